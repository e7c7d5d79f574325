/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the ELF resolver tests (selftests/unit/elf/test_elf_*.c) share.
 *
 * Offsets are checked against an independent source: the fixtures
 * Makefile records objdump -F's "File Offset" of every function in
 * NAME.offsets.  Fixtures are found from the test binary (selftests/unit/
 * fixtures/, the folder above a test's room, located via /proc/self/exe),
 * so a test runs from any working directory.
 *
 * static inline only so that a test file need not use every helper.
 */
#ifndef ISPOT_ELF_FIXTURES_H
#define ISPOT_ELF_FIXTURES_H

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "elf/elf.h"
#include "ispot_test.h"

#define ERRLEN 512

static inline const char *fixture(const char *name)
{
	static char buf[8][PATH_MAX];
	static int slot;
	char self[PATH_MAX / 2], *slash;
	ssize_t r;
	char *p = buf[slot++ & 7];

	r = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_GT(r, 0);
	self[r] = '\0';
	slash = strrchr(self, '/');
	ASSERT_TRUE(slash);
	*slash = '\0';
	snprintf(p, PATH_MAX, "%s/../fixtures/%s", self, name);
	if (access(p, F_OK)) {
		TH_LOG("fixture %s missing: run 'make fixtures' first", p);
		ASSERT_TRUE(0);
	}
	return p;
}

static inline const char *canon(const char *path)
{
	static char buf[4][PATH_MAX];
	static int slot;
	char *p = buf[slot++ & 3];

	ASSERT_TRUE(realpath(path, p));
	return p;
}

/* valgrind preloads its vgpreload_*.so into the client. */
static inline bool under_valgrind(void)
{
	struct elf_map *maps;
	char err[ERRLEN];
	bool vg = false;
	size_t n, i;

	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	for (i = 0; i < n; i++)
		vg |= strstr(maps[i].path, "/vgpreload_") != NULL;
	elf_maps_free(maps, n);
	return vg;
}

/*
 * Skip the test unless this process's maps show @path's file (mapped)
 * with the device and inode stat() gives it.  They differ on a btrfs
 * subvolume and on an overlay whose layers are on another file system,
 * where a file no mapping maps any more is not read for a kept snapshot
 * (elf_symbolizer_keep()): it is taken by its path only with the
 * mapping's numbers.
 */
static inline void skip_unless_maps_number_as_stat(const char *path)
{
	const char *real = canon(path);
	const struct elf_map *m = NULL;
	struct elf_map *maps;
	char err[ERRLEN];
	struct stat st;
	bool same;
	size_t n, i;

	ASSERT_EQ(stat(real, &st), 0);
	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	for (i = 0; i < n && !m; i++)
		if (!strcmp(maps[i].path, real))
			m = &maps[i];
	ASSERT_TRUE(m);
	same = m->dev_major == major(st.st_dev) &&
	       m->dev_minor == minor(st.st_dev) && m->inode == st.st_ino;
	elf_maps_free(maps, n);
	if (!same)
		SKIP("the maps number %s otherwise than stat() (a btrfs "
		     "subvolume, an overlay?)", real);
}

/* objdump's file offset for name in bin's .offsets file, or -1. */
static inline long long objdump_offset(const char *bin, const char *name)
{
	char path[PATH_MAX + 16], line[512], sym[400];
	unsigned long long off;
	long long found = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "%s.offsets", bin);
	fp = fopen(path, "r");
	if (!fp) {
		TH_LOG("cannot open %s", path);
		ASSERT_TRUE(0);
	}
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "%399s %llx", sym, &off) == 2 &&
		    !strcmp(sym, name))
			found = (long long)off;
	fclose(fp);
	return found;
}

/* Resolve spec with @flags (ELF_RESOLVE_*), expecting one probe point. */
static inline struct elf_target_sym resolve_one_flags(const char *spec,
						      pid_t pid,
						      const char *exe,
						      unsigned int flags)
{
	struct elf_target_sym *t, r;
	char err[ERRLEN] = "";
	size_t n;
	int rc;

	rc = elf_resolve_spec_flags(spec, pid, exe, flags, &t, &n, err,
				    sizeof(err));
	if (rc)
		TH_LOG("%s: %s", spec, err);
	ASSERT_EQ(rc, 0);
	ASSERT_EQ(n, 1);
	r = t[0];
	free(t);
	return r;
}

/* Resolve spec, expecting exactly one probe point. */
static inline struct elf_target_sym resolve_one(const char *spec, pid_t pid,
						const char *exe)
{
	return resolve_one_flags(spec, pid, exe, 0);
}

/* Resolve spec, expecting failure rc; the message is returned. */
static inline const char *resolve_fail(const char *spec, pid_t pid,
				       const char *exe, int want_rc)
{
	static char err[ERRLEN];
	struct elf_target_sym *t = (void *)1;
	size_t n = 99;
	int rc;

	err[0] = '\0';
	rc = elf_resolve_spec(spec, pid, exe, &t, &n, err, sizeof(err));
	TH_LOG("%s -> %d: %s", spec, rc, err);
	ASSERT_EQ(rc, want_rc);
	ASSERT_TRUE(t == NULL);
	ASSERT_EQ(n, 0);
	ASSERT_TRUE(err[0]);
	ASSERT_TRUE(strchr(err, '\n') == NULL);
	return err;
}

static inline void pread_all(const char *path, uint64_t off, void *buf,
			     size_t len)
{
	int fd = open(path, O_RDONLY);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	close(fd);
}

static inline char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(fstat(fd, &st), 0);
	buf = malloc(st.st_size);
	ASSERT_TRUE(buf);
	ASSERT_EQ(read(fd, buf, st.st_size), st.st_size);
	close(fd);
	*len = st.st_size;
	return buf;
}

static inline void spit(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static inline const char *mapped_libc(void)
{
	static char path[PATH_MAX];
	struct elf_map *maps;
	char err[ERRLEN];
	size_t n;

	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	ASSERT_EQ(elf_maps_find_object(maps, n, "libc", path, sizeof(path),
				       err, sizeof(err)), 0);
	elf_maps_free(maps, n);
	return path;
}

#endif /* ISPOT_ELF_FIXTURES_H */
