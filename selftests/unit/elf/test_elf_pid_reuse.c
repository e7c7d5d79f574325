// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/elf/elf_symbolize.c and elf_maps.c: a
 * symbolizer reads one process, not whatever process has its pid by the
 * time a file is read.  The pid is made to come round again through
 * /proc/sys/kernel/ns_last_pid (pid_reuse.h), which root may write.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_fixtures.h"
#include "pid_reuse.h"
#include "util/procstat.h"

/* What a child given the first's pid maps over the library's mapping. */
struct map_over {
	const void *addr;	/* in the library's mapping */
	const char *other;	/* the file mapped there instead */
};

/*
 * In the child: map @m->other over the whole mapping that holds @m->addr
 * (its start, end and file offset the same), so that its map_files entry
 * has the old mapping's very name; fork_at_pid() then waits.
 */
static void map_other_over(void *arg)
{
	const struct map_over *mo = arg;
	const struct elf_map *m;
	struct elf_map *maps;
	size_t n;
	int fd;

	if (elf_maps_read(0, &maps, &n, NULL, 0))
		_exit(20);
	m = elf_maps_find(maps, n, (uintptr_t)mo->addr);
	fd = open(mo->other, O_RDONLY | O_CLOEXEC);
	if (!m || fd < 0 ||
	    mmap((void *)(uintptr_t)m->start, m->end - m->start, PROT_READ,
		 MAP_PRIVATE | MAP_FIXED, fd, m->offset) == MAP_FAILED)
		_exit(21);
}

/* Until @pid maps something other than @lib at @addr: whether it does. */
static bool wait_mapped_over(pid_t pid, const void *addr, const char *lib)
{
	int i;

	for (i = 0; i < 500; i++) {
		const struct elf_map *m;
		struct elf_map *maps;
		bool over = false;
		size_t n;

		if (!elf_maps_read(pid, &maps, &n, NULL, 0)) {
			m = elf_maps_find(maps, n, (uintptr_t)addr);
			over = m && strcmp(m->path, lib);
			elf_maps_free(maps, n);
		}
		if (over)
			return true;
		usleep(10 * 1000);
	}
	return false;
}

/*
 * Process @first, whose mapping holds @counter, gone, and its pid given
 * to a child that maps @other there instead: the child's pid (@first);
 * fork_at_pid()'s -errno if the pid cannot be chosen here, or -EIO.
 */
static pid_t reuse_with_other_file(pid_t first, uint64_t start,
				   void *counter, const char *lib,
				   const char *other)
{
	struct map_over mo = { .addr = counter, .other = other };
	pid_t second;

	reap_child(first);
	second = fork_at_pid(first, start, map_other_over, &mo);
	if (second > 0 && !wait_mapped_over(second, counter, lib)) {
		reap_child(second);
		return -EIO;
	}
	return second;
}

/* Whether map_files of @pid opens here (CAP_CHECKPOINT_RESTORE or more). */
static bool map_files_open(pid_t pid, const void *addr)
{
	const struct elf_map *m;
	struct elf_map *maps;
	char path[96];
	size_t n;
	int fd = -1;

	if (elf_maps_read(pid, &maps, &n, NULL, 0))
		return false;
	m = elf_maps_find(maps, n, (uintptr_t)addr);
	if (m) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64
			 "-%" PRIx64, (int)pid, m->start, m->end);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	elf_maps_free(maps, n);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* The end of a test whose second process could not be made. */
static void skip_or_fail(pid_t second, pid_t first)
{
	if (second == -EIO) {
		TH_LOG("the process given pid %d did not map its file",
		       (int)first);
		ASSERT_TRUE(0);
	}
	SKIP("cannot give pid %d to a new process here: %s", (int)first,
	     strerror(-second));
}

/* libfx.so loaded here, and a child that has it mapped too. */
struct scene {
	const char *lib;
	void *h, *counter;	/* the library, fx_counter's address */
	pid_t first;		/* the child */
	uint64_t start;		/* its start time */
};

static void scene_begin(struct scene *sc)
{
	sc->lib = canon(fixture("libfx.so"));
	sc->h = dlopen(sc->lib, RTLD_NOW);
	ASSERT_TRUE(sc->h);
	sc->counter = dlsym(sc->h, "fx_counter");
	ASSERT_TRUE(sc->counter);
	sc->first = fork_waiting();
	ASSERT_GT(sc->first, 0);
	ASSERT_EQ(proc_start_time(sc->first, &sc->start), 0);
}

/* The first's pid given to a process that maps @other there. */
static pid_t scene_reuse(struct scene *sc, const char *other)
{
	pid_t second = reuse_with_other_file(sc->first, sc->start,
					     sc->counter, sc->lib, other);

	if (second < 0)
		skip_or_fail(second, sc->first);
	return second;
}

static void scene_end(struct scene *sc, pid_t second)
{
	reap_child(second);
	dlclose(sc->h);
}

/*
 * A symbolizer made for a process that has since exited, its pid given
 * to another process that maps @other at the very addresses of a library
 * the first had (its map_files entry, /proc/PID/map_files/START-END, has
 * the same name): the library's address is named from the library, not
 * from the file of the process that came after, nor left without a name
 * because that file is no ELF object.
 */
static void reused_pid_named_from_the_library(const char *other)
{
	struct elf_addr_info info;
	struct elf_symbolizer *s;
	char err[ERRLEN];
	struct scene sc;
	pid_t second;

	scene_begin(&sc);
	if (!map_files_open(sc.first, sc.counter)) {
		reap_child(sc.first);
		SKIP("map_files is closed to this process");
	}
	s = elf_symbolizer_new(sc.first, err, sizeof(err));
	if (!s)
		TH_LOG("%s", err);
	ASSERT_TRUE(s);
	ASSERT_TRUE(elf_symbolizer_knows(s, (uintptr_t)sc.counter));
	second = scene_reuse(&sc, other);
	/* It maps that file where the library was: its own maps say so. */
	if (!elf_addr_to_symbol(second, (uintptr_t)sc.counter, &info, err,
				sizeof(err)))
		EXPECT_NE(strcmp(info.sym, "fx_counter"), 0);

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)sc.counter, &info, err,
				sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "fx_counter");
	EXPECT_STREQ(info.obj, sc.lib);
	/* Nor do the maps read again come from the new process. */
	EXPECT_NE(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	elf_symbolizer_free(s);
	scene_end(&sc, second);
}

/* This program there: an ELF file with none of libfx.so's names. */
TEST(a_pid_reused_after_the_maps_is_not_read)
{
	reused_pid_named_from_the_library("/proc/self/exe");
}

/* A file of zeros there: no ELF object, not cached as the library's. */
TEST(a_pid_reused_with_a_file_not_elf_is_not_taken_for_the_first)
{
	char path[] = "/tmp/ispot_zerosXXXXXX", other[32];
	int fd = mkstemp(path);

	/* Gone from the directory at once; the child opens our fd's file. */
	ASSERT_GE(fd, 0);
	unlink(path);
	ASSERT_EQ(ftruncate(fd, 1 << 20), 0);
	snprintf(other, sizeof(other), "/proc/self/fd/%d", fd);
	reused_pid_named_from_the_library(other);
	close(fd);
}

/*
 * A symbolizer asked for a process by pid and start time after that pid
 * went to another process (ispotd makes one when a burst ends, for a
 * target it found earlier) is not made.
 */
TEST(a_symbolizer_of_a_process_gone_is_not_made_for_its_pid)
{
	struct elf_symbolizer *s;
	char err[ERRLEN];
	struct scene sc;
	pid_t second;

	scene_begin(&sc);
	s = elf_symbolizer_new_of(sc.first, sc.start, err, sizeof(err));
	ASSERT_TRUE(s);
	elf_symbolizer_free(s);
	second = scene_reuse(&sc, "/proc/self/exe");
	s = elf_symbolizer_new_of(second, sc.start, err, sizeof(err));
	EXPECT_FALSE(s);
	elf_symbolizer_free(s);
	s = elf_symbolizer_new(second, err, sizeof(err));
	EXPECT_TRUE(s);
	elf_symbolizer_free(s);
	scene_end(&sc, second);
}

TEST_HARNESS_MAIN
