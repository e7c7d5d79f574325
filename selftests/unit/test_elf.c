// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/elf.c, the ELF symbol resolver.
 *
 * Offsets are checked against an independent source: the fixtures
 * Makefile records objdump -F's "File Offset" of every function in
 * NAME.offsets.  Where code is loaded into this process (this test binary,
 * libc, a dlopen()ed fixture), the bytes at the resolved file offset are
 * also compared with the bytes at the symbol's runtime address.
 *
 * Fixtures are found next to this binary (fixtures/ beside it, located
 * via /proc/self/exe), so the test runs from any working directory.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "elf.h"
#include "ispot_test.h"

#define ERRLEN 512

/* Code and data of our own, named back by the symbolizer tests. */
__attribute__((noinline, noclone, used))
int elf_test_target_fn(int x)
{
	return x * 7 + 3;
}

int gm_test_lock[8];				/* .bss */
int gm_test_data[4] = { 1, 2, 3, 4 };		/* .data */
char gm_big_bss[1 << 20];	/* big enough to spill past the file pages */

static const char *fixture(const char *name)
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
	snprintf(p, PATH_MAX, "%s/fixtures/%s", self, name);
	if (access(p, F_OK)) {
		TH_LOG("fixture %s missing: run 'make fixtures' first", p);
		ASSERT_TRUE(0);
	}
	return p;
}

static const char *canon(const char *path)
{
	static char buf[4][PATH_MAX];
	static int slot;
	char *p = buf[slot++ & 3];

	ASSERT_TRUE(realpath(path, p));
	return p;
}

/* "test_elf:" or whatever this binary is called, for formatted names. */
static const char *self_prefix(void)
{
	static char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s:", strrchr(canon("/proc/self/exe"),
						  '/') + 1);
	return buf;
}

/*
 * The kernel's name for the mapping at addr.  Under valgrind the heap and
 * the client stack are plain anonymous memory, so expectations about
 * "[heap]"/"[stack]" follow the maps rather than assume them.
 */
static const char *map_name(const void *addr)
{
	static char buf[PATH_MAX];
	const struct elf_map *m;
	struct elf_map *maps;
	char err[ERRLEN];
	size_t n;

	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	m = elf_maps_find(maps, n, (uintptr_t)addr);
	ASSERT_TRUE(m);
	snprintf(buf, sizeof(buf), "%s", m->path);
	elf_maps_free(maps, n);
	return buf;
}

/* valgrind preloads its vgpreload_*.so into the client. */
static bool under_valgrind(void)
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

/* objdump's file offset for name in bin's .offsets file, or -1. */
static long long objdump_offset(const char *bin, const char *name)
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

/* Resolve spec, expecting exactly one probe point. */
static struct elf_target_sym resolve_one(const char *spec, pid_t pid,
					 const char *exe)
{
	struct elf_target_sym *t, r;
	char err[ERRLEN] = "";
	size_t n;
	int rc;

	rc = elf_resolve_spec(spec, pid, exe, &t, &n, err, sizeof(err));
	if (rc)
		TH_LOG("%s: %s", spec, err);
	ASSERT_EQ(rc, 0);
	ASSERT_EQ(n, 1);
	r = t[0];
	free(t);
	return r;
}

/* Resolve spec, expecting failure rc; the message is returned. */
static const char *resolve_fail(const char *spec, pid_t pid, const char *exe,
				int want_rc)
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

static void check_offsets(const char *bin, const char *const *names,
			  long long vaddr_minus_offset)
{
	size_t i;

	for (i = 0; names[i]; i++) {
		struct elf_target_sym t = resolve_one(names[i], 0, bin);
		long long want = objdump_offset(bin, names[i]);

		ASSERT_NE(want, -1);
		EXPECT_EQ(t.offset, want);
		EXPECT_EQ(t.vaddr - t.offset, vaddr_minus_offset);
		EXPECT_STREQ(t.name, names[i]);
		EXPECT_STREQ(t.obj, canon(bin));
	}
}

static void pread_all(const char *path, uint64_t off, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	close(fd);
}

static const char *const app_funcs[] = {
	"compute", "compute_fast", "worker_a", "worker_b", "worker_c",
	"api_entry", "api_exit", "main", NULL
};

TEST(pie_offsets_match_objdump)
{
	check_offsets(fixture("app_pie"), app_funcs, 0);
}

TEST(nopie_offsets_match_objdump)
{
	/* Linked at 0x400000: vaddr and offset differ by the base. */
	check_offsets(fixture("app_nopie"), app_funcs, 0x400000);
}

TEST(shlib_offsets_match_objdump)
{
	static const char *const names[] = {
		"fx_add", "fx_mul", "fx_nosize", NULL
	};

	/* libfx.so is linked at a 0x200000 base. */
	check_offsets(fixture("libfx.so"), names, 0x200000);
}

TEST(shlib_bytes_match_loaded_code)
{
	static const char *const names[] = { "fx_add", "fx_mul", NULL };
	const char *lib = fixture("libfx.so");
	struct elf_map *maps;
	char err[ERRLEN];
	uint64_t bias;
	size_t nmaps, i;
	void *h;

	h = dlopen(lib, RTLD_NOW);
	ASSERT_TRUE(h);
	ASSERT_EQ(elf_maps_read(0, &maps, &nmaps, err, sizeof(err)), 0);
	ASSERT_EQ(elf_load_bias(maps, nmaps, lib, &bias, err, sizeof(err)), 0);
	for (i = 0; names[i]; i++) {
		struct elf_target_sym *t;
		unsigned char file[64];
		size_t n;
		void *addr = dlsym(h, names[i]);

		ASSERT_TRUE(addr);
		ASSERT_EQ(elf_resolve_file(lib, names[i], &t, &n, err,
					   sizeof(err)), 0);
		ASSERT_EQ(n, 1);
		ASSERT_GT(t->size, 0);
		ASSERT_LE(t->size, sizeof(file));
		EXPECT_EQ(bias + t->vaddr, (uintptr_t)addr);
		pread_all(lib, t->offset, file, t->size);
		EXPECT_EQ(memcmp(file, addr, t->size), 0);
		free(t);
	}
	elf_maps_free(maps, nmaps);
	dlclose(h);
}

TEST(self_offset_bytes_match_memory)
{
	struct elf_target_sym t;
	unsigned char file[256];

	/* No OBJ and no exe: the main executable of the pid. */
	t = resolve_one("elf_test_target_fn", getpid(), NULL);
	EXPECT_STREQ(t.obj, canon("/proc/self/exe"));
	ASSERT_GT(t.size, 0);
	ASSERT_LE(t.size, sizeof(file));
	pread_all(t.obj, t.offset, file, t.size);
	EXPECT_EQ(memcmp(file, (void *)elf_test_target_fn, t.size), 0);
}

TEST(glob_matches)
{
	static const char *const want[] = {
		"worker_a", "worker_b", "worker_c"
	};
	static const char *const globs[] = { "worker_*", "worker_?",
					     "worker_[abc]", "*orker*" };
	const char *app = fixture("app_pie");
	struct elf_target_sym *t;
	char err[ERRLEN];
	size_t n, i, g;

	for (g = 0; g < sizeof(globs) / sizeof(globs[0]); g++) {
		ASSERT_EQ(elf_resolve_spec(globs[g], 0, app, &t, &n, err,
					   sizeof(err)), 0);
		ASSERT_EQ(n, 3);
		for (i = 0; i < n; i++) {
			EXPECT_STREQ(t[i].name, want[i]);
			EXPECT_EQ(t[i].offset, objdump_offset(app, want[i]));
		}
		free(t);
	}
	resolve_fail("worker_[xyz]", 0, app, -ENOENT);
}

TEST(aliases_probed_once)
{
	static const char *const names[] = {
		"process_item", "proc_item", "__process_item_internal"
	};
	static const char *const pick1[] = { "__a", "_b", "zz", "aa", "ccc" };
	static const char *const pick2[] = { "__y", "_x" };
	const char *app = fixture("app_pie");
	struct elf_target_sym *t;
	char err[ERRLEN];
	long long want = objdump_offset(app, "__process_item_internal");
	size_t n, i;

	/* objdump labels the shared address with one of the names. */
	if (want < 0)
		want = objdump_offset(app, "process_item");
	if (want < 0)
		want = objdump_offset(app, "proc_item");
	ASSERT_NE(want, -1);
	for (i = 0; i < 3; i++) {
		struct elf_target_sym r = resolve_one(names[i], 0, app);

		EXPECT_EQ(r.offset, want);
		EXPECT_STREQ(r.name, names[i]);
	}

	/* A glob hitting all three names yields one probe, best name. */
	ASSERT_EQ(elf_resolve_spec("*item*", 0, app, &t, &n, err,
				   sizeof(err)), 0);
	ASSERT_EQ(n, 1);
	EXPECT_STREQ(t[0].name, "proc_item");
	EXPECT_EQ(t[0].offset, want);
	free(t);

	EXPECT_STREQ(pick1[elf_pick_name(pick1, 5)], "aa");
	EXPECT_STREQ(pick2[elf_pick_name(pick2, 2)], "_x");
	EXPECT_EQ(elf_pick_name(pick1, 0), 0);
}

TEST(versioned_symbols)
{
	const char *lib = fixture("libfxver.so");
	long long v1 = objdump_offset(lib, "foo@V1");
	long long v2 = objdump_offset(lib, "foo@@V2");
	struct elf_target_sym r, *t;
	char err[ERRLEN];
	size_t n;

	ASSERT_NE(v1, -1);
	ASSERT_NE(v2, -1);
	ASSERT_NE(v1, v2);

	/* Plain name: the default version only. */
	r = resolve_one("foo", 0, lib);
	EXPECT_EQ(r.offset, v2);
	EXPECT_STREQ(r.name, "foo");
	EXPECT_TRUE(r.flags & ELF_SYM_VERSIONED);

	r = resolve_one("foo@V1", 0, lib);
	EXPECT_EQ(r.offset, v1);
	EXPECT_STREQ(r.name, "foo@V1");

	r = resolve_one("foo@@V2", 0, lib);
	EXPECT_EQ(r.offset, v2);
	EXPECT_STREQ(r.name, "foo@@V2");

	r = resolve_one("foo@V2", 0, lib);
	EXPECT_EQ(r.offset, v2);

	r = resolve_one("bar", 0, lib);
	EXPECT_EQ(r.offset, objdump_offset(lib, "bar"));

	/* V1 exists but is not the default. */
	resolve_fail("foo@@V1", 0, lib, -ENOENT);
	resolve_fail("foo@V3", 0, lib, -ENOENT);

	/*
	 * foo_v1/foo_v2 are the local names behind the versions: foo_v2
	 * folds into foo, foo_v1 stays on its own (foo@V1 is hidden).
	 */
	ASSERT_EQ(elf_resolve_file(lib, "foo*", &t, &n, err, sizeof(err)), 0);
	ASSERT_EQ(n, 2);
	EXPECT_STREQ(t[0].name, "foo");
	EXPECT_EQ(t[0].offset, v2);
	EXPECT_STREQ(t[1].name, "foo_v1");
	EXPECT_EQ(t[1].offset, v1);
	free(t);
}

TEST(stripped_binary)
{
	const char *app = fixture("app_stripped");
	const char *err;
	struct elf_target_sym r;

	err = resolve_fail("compute", 0, app, -ENOENT);
	EXPECT_TRUE(strstr(err, "no function 'compute' in "));
	EXPECT_TRUE(strstr(err, "stripped"));

	err = resolve_fail("api_entr", 0, app, -ENOENT);
	EXPECT_TRUE(strstr(err, "stripped"));
	EXPECT_TRUE(strstr(err, "; did you mean: api_entry?"));

	/* .dynsym survives strip and gives the same offset. */
	r = resolve_one("api_entry", 0, app);
	EXPECT_EQ(r.offset, objdump_offset(fixture("app_pie"), "api_entry"));
}

TEST(unresolvable_name_suggestions)
{
	const char *app = fixture("app_pie");
	char want[ERRLEN + PATH_MAX];
	const char *err;

	err = resolve_fail("comput", 0, app, -ENOENT);
	snprintf(want, sizeof(want),
		 "no function 'comput' in %s; did you mean: compute, compute_fast?",
		 app);
	EXPECT_STREQ(err, want);

	err = resolve_fail("wroker_b", 0, app, -ENOENT);
	EXPECT_TRUE(strstr(err, "did you mean: worker_b"));

	err = resolve_fail("zzqqxxjj", 0, app, -ENOENT);
	EXPECT_FALSE(strstr(err, "did you mean"));

	err = resolve_fail("gm_ridlock", 0, app, -ENOENT);
	EXPECT_TRUE(strstr(err, "not a function"));
}

TEST(non_executable_symbol_rejected)
{
	const char *lib = fixture("libfx.so");
	struct elf_target_sym *t;
	char err[ERRLEN];
	const char *msg;
	size_t n, i;

	msg = resolve_fail("fx_datafunc", 0, lib, -EINVAL);
	EXPECT_TRUE(strstr(msg, "not in an executable segment"));

	/* A glob quietly leaves it out. */
	ASSERT_EQ(elf_resolve_file(lib, "fx_*", &t, &n, err, sizeof(err)), 0);
	ASSERT_GE(n, 4);
	for (i = 0; i < n; i++)
		EXPECT_NE(strcmp(t[i].name, "fx_datafunc"), 0);
	free(t);
}

TEST(ifunc_flagged)
{
	const char *lib = fixture("libfx.so");
	struct elf_target_sym r = resolve_one("fx_fast", 0, lib);

	EXPECT_TRUE(r.flags & ELF_SYM_IFUNC);
	EXPECT_EQ(r.offset, objdump_offset(lib, "fx_fast_resolver"));
}

TEST(not_elf_file)
{
	char tmp[] = "/tmp/test_elf_empty.XXXXXX";
	const char *err;
	int fd;

	err = resolve_fail("main", 0, fixture("app.c"), -ENOEXEC);
	EXPECT_TRUE(strstr(err, "not an ELF file"));

	fd = mkstemp(tmp);
	ASSERT_GE(fd, 0);
	close(fd);
	err = resolve_fail("main", 0, tmp, -ENOEXEC);
	EXPECT_TRUE(strstr(err, "not an ELF file"));
	unlink(tmp);
}

TEST(truncated_elf_file)
{
	const char *err = resolve_fail("main", 0, fixture("truncated.elf"),
				       -ENOEXEC);

	EXPECT_TRUE(strstr(err, "truncated"));
}

static char *slurp(const char *path, size_t *len)
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

static void spit(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

TEST(truncation_sweep)
{
	char tmp[] = "/tmp/test_elf_trunc.XXXXXX";
	struct elf_target_sym *t;
	char err[ERRLEN];
	size_t len, cut, n;
	char *buf = slurp(fixture("app_pie"), &len);
	int fd = mkstemp(tmp);

	ASSERT_GE(fd, 0);
	close(fd);
	/* Section headers sit at the end: every cut must be refused. */
	for (cut = 0; cut < len; cut += cut < 256 ? 1 : 97) {
		spit(tmp, buf, cut);
		ASSERT_NE(elf_resolve_file(tmp, "compute", &t, &n, err,
					   sizeof(err)), 0);
		ASSERT_TRUE(t == NULL);
	}
	spit(tmp, buf, len);
	ASSERT_EQ(elf_resolve_file(tmp, "compute", &t, &n, err, sizeof(err)),
		  0);
	free(t);
	unlink(tmp);
	free(buf);
}

/*
 * Corrupt headers, section headers and random bytes of real files and make
 * sure nothing crashes (a crash fails the forked test; valgrind catches
 * reads out of bounds).  Results themselves may be anything.  One byte is
 * patched in place at a time, then restored.
 */
TEST(corruption_fuzz)
{
	static const unsigned char vals[] = { 0x00, 0xff, 0x7f, 0x80 };
	static const char *const files[] = { "libfx.so", "libfxver.so" };
	char dir[] = "/tmp/test_elf_fuzz.XXXXXX";
	char path[sizeof(dir) + 16], out[PATH_MAX], err[ERRLEN];
	struct elf_target_sym *t;
	uint32_t seed = 12345;
	size_t f, len, i, n, v;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/app", dir);
	for (f = 0; f < 2; f++) {
		char *orig = slurp(fixture(files[f]), &len);
		Elf64_Ehdr *eh = (Elf64_Ehdr *)orig;
		size_t shtab = eh->e_shoff, shlen = eh->e_shnum * 64;
		size_t phlen = eh->e_phnum * sizeof(Elf64_Phdr);
		int fd;

		ASSERT_LE(shtab + shlen, len);
		spit(path, orig, len);
		fd = open(path, O_WRONLY);
		ASSERT_GE(fd, 0);
		for (i = 0; i < 64 + phlen + shlen + 1000; i++) {
			size_t at;

			if (i < 64 + phlen) {
				at = i;	/* ELF and program headers */
			} else if (i < 64 + phlen + shlen) {
				at = shtab + i - 64 - phlen;
			} else {
				seed = seed * 1103515245 + 12345;
				at = (seed >> 8) % len;
			}
			for (v = 0; v < sizeof(vals); v++) {
				ASSERT_EQ(pwrite(fd, &vals[v], 1, at), 1);
				if (!elf_resolve_file(path, "*", &t, &n, err,
						      sizeof(err)))
					free(t);
				/* The DT_NEEDED walk reads PT_DYNAMIC. */
				if (i < 64 + phlen || !(i % 8))
					elf_find_needed(path, "libnope", out,
							sizeof(out), err,
							sizeof(err));
			}
			ASSERT_EQ(pwrite(fd, orig + at, 1, at), 1);
		}
		close(fd);
		free(orig);
	}
	unlink(path);
	rmdir(dir);
}

TEST(directory_and_missing_file)
{
	const char *err;

	err = resolve_fail("main", 0, fixture(""), -EISDIR);
	EXPECT_TRUE(strstr(err, "is a directory"));
	err = resolve_fail("main", 0, "/nonexistent/app", -ENOENT);
	EXPECT_TRUE(strstr(err, "cannot open"));
}

TEST(bad_specs)
{
	const char *app = fixture("app_pie");

	resolve_fail("", 0, app, -EINVAL);
	resolve_fail(":compute", 0, app, -EINVAL);
	resolve_fail("libc:", 0, app, -EINVAL);
	resolve_fail("foo@", 0, app, -EINVAL);
	resolve_fail("@V1", 0, app, -EINVAL);
	resolve_fail("compute", 0, NULL, -EINVAL);
	resolve_fail("libnope:compute", 0, app, -ENOENT);
}

TEST(object_name_matching)
{
	EXPECT_TRUE(elf_obj_name_matches("/usr/lib/x86_64-linux-gnu/libc.so.6",
					 "libc"));
	EXPECT_TRUE(elf_obj_name_matches("/lib/libc-2.31.so", "libc"));
	EXPECT_TRUE(elf_obj_name_matches("libc.so.6", "libc.so.6"));
	EXPECT_TRUE(elf_obj_name_matches("/usr/bin/app", "app"));
	EXPECT_FALSE(elf_obj_name_matches("/usr/lib/libcrypt.so.1", "libc"));
	EXPECT_FALSE(elf_obj_name_matches("/usr/lib/libc.so.6", "libc.so.7"));
	EXPECT_FALSE(elf_obj_name_matches("/usr/lib/libc.so.6", "usr"));
	EXPECT_FALSE(elf_obj_name_matches("/usr/lib/libc.so.6", ""));
}

TEST(maps_of_self)
{
	const char *exe = canon("/proc/self/exe");
	const struct elf_map *m;
	struct elf_map *maps;
	char err[ERRLEN], path[PATH_MAX];
	int on_stack = 1;
	size_t n, i;

	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	ASSERT_GT(n, 3);
	/* Unsigned compare: [vsyscall] sits at the top of the space. */
	for (i = 1; i < n; i++)
		ASSERT_TRUE(maps[i - 1].end <= maps[i].start);

	m = elf_maps_find(maps, n, (uintptr_t)elf_test_target_fn);
	ASSERT_TRUE(m);
	EXPECT_STREQ(m->path, exe);
	EXPECT_EQ(m->perms[2], 'x');
	EXPECT_GT(m->inode, 0);

	m = elf_maps_find(maps, n, (uintptr_t)&on_stack);
	ASSERT_TRUE(m);
	if (!under_valgrind())
		EXPECT_STREQ(m->path, "[stack]");
	EXPECT_TRUE(elf_maps_find(maps, n, 16) == NULL);

	ASSERT_EQ(elf_maps_find_object(maps, n, "libc", path, sizeof(path),
				       err, sizeof(err)), 0);
	EXPECT_EQ(strncmp(strrchr(path, '/'), "/libc.so", 8), 0);
	EXPECT_EQ(elf_maps_find_object(maps, n, "libcrypt", path,
				       sizeof(path), err, sizeof(err)),
		  -ENOENT);
	ASSERT_EQ(elf_maps_find_object(maps, n, "/proc/self/exe", path,
				       sizeof(path), err, sizeof(err)), 0);
	EXPECT_STREQ(path, exe);
	elf_maps_free(maps, n);

	ASSERT_EQ(elf_maps_read(getpid(), &maps, &n, err, sizeof(err)), 0);
	ASSERT_GT(n, 3);
	elf_maps_free(maps, n);
	EXPECT_EQ(elf_maps_read(INT_MAX, &maps, &n, err, sizeof(err)), -ENOENT);
}

TEST(libc_printf_runtime_address)
{
	struct elf_target_sym t = resolve_one("libc:printf", getpid(), NULL);
	void *real = dlsym(RTLD_DEFAULT, "printf");
	struct elf_addr_info info;
	struct elf_map *maps;
	unsigned char file[32];
	char err[ERRLEN];
	uint64_t bias;
	size_t n;

	ASSERT_TRUE(real);
	EXPECT_EQ(strncmp(strrchr(t.obj, '/'), "/libc.so", 8), 0);
	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	ASSERT_EQ(elf_load_bias(maps, n, t.obj, &bias, err, sizeof(err)), 0);
	elf_maps_free(maps, n);
	EXPECT_EQ(bias + t.vaddr, (uintptr_t)real);
	pread_all(t.obj, t.offset, file, sizeof(file));
	EXPECT_EQ(memcmp(file, real, sizeof(file)), 0);

	/* And back; printf's aliases (_IO_printf) lose to the plain name. */
	ASSERT_EQ(elf_addr_to_symbol(0, (uintptr_t)real + 5, &info, err,
				     sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "printf");
	EXPECT_EQ(info.sym_off, 5);
	EXPECT_STREQ(info.obj, t.obj);
}

TEST(addr_to_symbol_function)
{
	struct elf_addr_info info;
	char err[ERRLEN], buf[PATH_MAX + 64];

	ASSERT_EQ(elf_addr_to_symbol(getpid(),
				     (uintptr_t)elf_test_target_fn + 3, &info,
				     err, sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "elf_test_target_fn");
	EXPECT_EQ(info.sym_off, 3);
	EXPECT_EQ(info.sym_type, STT_FUNC);
	EXPECT_STREQ(info.obj, canon("/proc/self/exe"));
	elf_addr_format(&info, buf, sizeof(buf));
	EXPECT_EQ(strncmp(buf, self_prefix(), strlen(self_prefix())), 0);
	EXPECT_STREQ(buf + strlen(self_prefix()), "elf_test_target_fn+0x3");
}

static void expect_data_sym(struct elf_symbolizer *s, const void *addr,
			    const char *name, uint64_t off)
{
	struct elf_addr_info info;
	char err[ERRLEN];

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)addr, &info, err, sizeof(err)),
		  0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, name);
	EXPECT_EQ(info.sym_off, off);
	EXPECT_EQ(info.sym_type, STT_OBJECT);
}

TEST(addr_to_symbol_data)
{
	struct elf_symbolizer *s;
	struct elf_map *maps;
	const struct elf_map *m;
	char err[ERRLEN], buf[PATH_MAX + 64];
	struct elf_addr_info info;
	size_t n;

	/* Touch the tail so that its anonymous pages exist. */
	((volatile char *)gm_big_bss)[900000] = 1;
	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	expect_data_sym(s, &gm_test_lock[2], "gm_test_lock", 8);
	expect_data_sym(s, &gm_test_data[1], "gm_test_data", 4);
	expect_data_sym(s, &gm_big_bss[900000], "gm_big_bss", 900000);

	/* That last one really lay in an anonymous mapping. */
	ASSERT_EQ(elf_maps_read(0, &maps, &n, err, sizeof(err)), 0);
	m = elf_maps_find(maps, n, (uintptr_t)&gm_big_bss[900000]);
	ASSERT_TRUE(m);
	EXPECT_STREQ(m->path, "");
	elf_maps_free(maps, n);

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)&gm_test_lock[1], &info, err,
				sizeof(err)), 0);
	elf_addr_format(&info, buf, sizeof(buf));
	EXPECT_EQ(strncmp(buf, self_prefix(), strlen(self_prefix())), 0);
	EXPECT_STREQ(buf + strlen(self_prefix()), "gm_test_lock+0x4");
	elf_symbolizer_free(s);
}

TEST(addr_to_symbol_pseudo)
{
	struct elf_symbolizer *s;
	struct elf_addr_info info;
	char err[ERRLEN], buf[64];
	int on_stack = 0;
	void *heap = malloc(64);
	void *anon = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_TRUE(heap);
	ASSERT_TRUE(anon != MAP_FAILED);
	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)heap, &info, err, sizeof(err)),
		  0);
	if (!strcmp(map_name(heap), "[heap]")) {
		EXPECT_EQ(info.kind, ELF_ADDR_HEAP);
		EXPECT_STREQ(info.obj, "[heap]");
		elf_addr_format(&info, buf, sizeof(buf));
		EXPECT_STREQ(buf, "[heap]");
	} else {
		TH_LOG("malloc() memory is not in [heap] here");
		EXPECT_TRUE(under_valgrind());
	}

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)&on_stack, &info, err,
				sizeof(err)), 0);
	if (!strcmp(map_name(&on_stack), "[stack]")) {
		EXPECT_EQ(info.kind, ELF_ADDR_STACK);
		EXPECT_STREQ(info.obj, "[stack]");
	} else {
		TH_LOG("the stack is not [stack] here");
		EXPECT_TRUE(under_valgrind());
	}

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)anon + 100, &info, err,
				sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_ANON);
	EXPECT_STREQ(info.obj, "anon");
	EXPECT_EQ(info.vaddr, 100);

	EXPECT_EQ(elf_symbolize(s, 16, &info, err, sizeof(err)), -ENOENT);
	EXPECT_TRUE(strstr(err, "not mapped"));
	elf_symbolizer_free(s);
	munmap(anon, 1 << 16);
	free(heap);
}

TEST(symbolizer_sees_new_mappings)
{
	const char *lib = fixture("libfx.so");
	struct elf_addr_info info;
	struct elf_symbolizer *s;
	char err[ERRLEN];
	void *h, *counter;

	/* Created before the library is loaded: must re-read the maps. */
	s = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(s);
	h = dlopen(lib, RTLD_NOW);
	ASSERT_TRUE(h);
	counter = dlsym(h, "fx_counter");
	ASSERT_TRUE(counter);
	ASSERT_EQ(elf_symbolize(s, (uintptr_t)counter, &info, err,
				sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "fx_counter");
	EXPECT_STREQ(info.obj, canon(lib));
	/* Link-time address, with libfx.so's 0x200000 base. */
	EXPECT_GE(info.vaddr, 0x200000);
	elf_symbolizer_free(s);
	dlclose(h);
}

static const char *mapped_libc(void)
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

TEST(find_needed)
{
	const char *app = fixture("app_pie");
	char out[PATH_MAX], err[ERRLEN];

	unsetenv("LD_LIBRARY_PATH");
	/* The same libc this (dynamically linked) test process runs on. */
	ASSERT_EQ(elf_find_needed(app, "libc", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, mapped_libc());
	ASSERT_EQ(elf_find_needed(app, "libc.so.6", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, mapped_libc());

	/* Through DT_RUNPATH $ORIGIN. */
	ASSERT_EQ(elf_find_needed(app, "libfx", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, canon(fixture("libfx.so")));

	/* Only libfx.so needs it. */
	ASSERT_EQ(elf_find_needed(app, "libfxdep", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, canon(fixture("libfxdep.so")));

	/* The program interpreter. */
	ASSERT_EQ(elf_find_needed(app, "ld-linux-x86-64", out, sizeof(out),
				  err, sizeof(err)), 0);
	EXPECT_TRUE(strstr(out, "ld-linux-x86-64.so"));

	EXPECT_EQ(elf_find_needed(app, "libnope", out, sizeof(out), err,
				  sizeof(err)), -ENOENT);
	EXPECT_TRUE(strstr(err, "libnope"));
	EXPECT_EQ(elf_find_needed(fixture("app.c"), "libc", out, sizeof(out),
				  err, sizeof(err)), -ENOEXEC);
}

TEST(find_needed_ld_library_path_order)
{
	char dir[] = "/tmp/test_elf_llp.XXXXXX";
	char copy[sizeof(dir) + 32], out[PATH_MAX], err[ERRLEN];
	const char *app = fixture("app_pie");
	size_t len;
	char *buf = slurp(fixture("libfxdep.so"), &len);

	/* LD_LIBRARY_PATH goes before libfx.so's DT_RUNPATH. */
	ASSERT_TRUE(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/libfxdep.so", dir);
	spit(copy, buf, len);
	setenv("LD_LIBRARY_PATH", dir, 1);
	ASSERT_EQ(elf_find_needed(app, "libfxdep", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, canon(copy));

	/* A non-ELF file of that name is passed over, as ld.so does. */
	spit(copy, "junk", 4);
	ASSERT_EQ(elf_find_needed(app, "libfxdep", out, sizeof(out), err,
				  sizeof(err)), 0);
	EXPECT_STREQ(out, canon(fixture("libfxdep.so")));
	unlink(copy);
	rmdir(dir);
	free(buf);
}

TEST(run_mode_specs)
{
	const char *app = fixture("app_pie");
	char spec[PATH_MAX + 16];
	struct elf_target_sym r;

	/* Not started: OBJ found through DT_NEEDED. */
	r = resolve_one("libfx:fx_add", 0, app);
	EXPECT_STREQ(r.obj, canon(fixture("libfx.so")));
	EXPECT_EQ(r.offset, objdump_offset(fixture("libfx.so"), "fx_add"));

	r = resolve_one("libc:pthread_mutex_lock", 0, app);
	EXPECT_STREQ(r.obj, mapped_libc());

	/* The executable's own short name, and OBJ as a path. */
	r = resolve_one("app_pie:compute", 0, app);
	EXPECT_EQ(r.offset, objdump_offset(app, "compute"));
	snprintf(spec, sizeof(spec), "%s:fx_mul", fixture("libfx.so"));
	r = resolve_one(spec, 0, app);
	EXPECT_STREQ(r.obj, canon(fixture("libfx.so")));
	EXPECT_EQ(r.offset, objdump_offset(fixture("libfx.so"), "fx_mul"));
}

TEST_HARNESS_MAIN
