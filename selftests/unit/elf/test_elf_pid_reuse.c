// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/elf/elf_symbolize.c and elf_maps.c: a
 * symbolizer reads one process, not whatever process has its pid by the
 * time a file is read.  The pid is made to come round again through
 * /proc/sys/kernel/ns_last_pid, which root may write.
 */
#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elf_fixtures.h"

/* Tries at making the next fork's pid @want, other forks on the host aside. */
#define REUSE_TRIES	200

/* Make the pid after @want - 1 the next one handed out: 0, or -errno. */
static int next_pid_is(pid_t want)
{
	char buf[32];
	int fd, len, rc = 0;

	fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%d", (int)want - 1);
	if (write(fd, buf, len) != len)
		rc = -errno;
	close(fd);
	return rc;
}

/*
 * In a child: map @other over the whole mapping that holds @addr (its
 * start, end and file offset the same), tell @ready, and wait to be
 * killed.  Its map_files entry then has the old mapping's very name.
 */
static void map_other_over(const void *addr, const char *other, int ready)
{
	const struct elf_map *m;
	struct elf_map *maps;
	size_t n;
	int fd;

	if (elf_maps_read(0, &maps, &n, NULL, 0))
		_exit(20);
	m = elf_maps_find(maps, n, (uintptr_t)addr);
	fd = open(other, O_RDONLY | O_CLOEXEC);
	if (!m || fd < 0 ||
	    mmap((void *)(uintptr_t)m->start, m->end - m->start, PROT_READ,
		 MAP_PRIVATE | MAP_FIXED, fd, m->offset) == MAP_FAILED)
		_exit(21);
	if (write(ready, "r", 1) != 1)
		_exit(22);
	pause();
	_exit(0);
}

/*
 * A child with pid @want that maps @other where @addr's mapping is: its
 * pid, or -1 if another process took @want every time.
 */
static pid_t take_pid(pid_t want, const void *addr, const char *other)
{
	int i, p[2];
	char c;

	for (i = 0; i < REUSE_TRIES; i++) {
		pid_t pid;

		if (next_pid_is(want) || pipe2(p, O_CLOEXEC))
			return -1;
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid) {
			close(p[0]);
			map_other_over(addr, other, p[1]);
		}
		close(p[1]);
		if (pid == want && read(p[0], &c, 1) == 1) {
			close(p[0]);
			return pid;
		}
		close(p[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

/*
 * A symbolizer made for a process that has since exited, its pid taken
 * by another process that maps another file at the very addresses of a
 * library the first had: the library's address is named from the
 * library, not from the file of the process that came after (its
 * map_files entry, /proc/PID/map_files/START-END, has the same name).
 */
TEST(a_pid_reused_after_the_maps_is_not_read)
{
	const char *lib = fixture("libfx.so");
	struct elf_addr_info info;
	struct elf_symbolizer *s;
	char err[ERRLEN];
	void *h, *counter;
	pid_t first, second;

	if (geteuid())
		SKIP("not root: cannot choose the next pid, nor read map_files");
	h = dlopen(lib, RTLD_NOW);
	ASSERT_TRUE(h);
	counter = dlsym(h, "fx_counter");
	ASSERT_TRUE(counter);
	first = fork();
	ASSERT_GE(first, 0);
	if (!first) {
		pause();
		_exit(0);
	}
	s = elf_symbolizer_new(first, err, sizeof(err));
	if (!s)
		TH_LOG("%s", err);
	ASSERT_TRUE(s);
	ASSERT_TRUE(elf_symbolizer_knows(s, (uintptr_t)counter));
	kill(first, SIGKILL);
	ASSERT_EQ(waitpid(first, NULL, 0), first);
	/*
	 * Pids are handed out in turn: without ns_last_pid one comes round
	 * only after all the others (pid_max), never within the clock tick
	 * (10 ms) its last process started in, where start times are equal.
	 */
	usleep(30 * 1000);
	/* This program, an ELF file with none of libfx.so's names. */
	second = take_pid(first, counter, "/proc/self/exe");
	if (second != first)
		TH_LOG("pid %d never came round again", (int)first);
	ASSERT_EQ(second, first);
	/* It maps that file where the library was: its own maps say so. */
	ASSERT_EQ(elf_addr_to_symbol(second, (uintptr_t)counter, &info, err,
				     sizeof(err)), 0);
	EXPECT_NE(strcmp(info.sym, "fx_counter"), 0);

	ASSERT_EQ(elf_symbolize(s, (uintptr_t)counter, &info, err,
				sizeof(err)), 0);
	EXPECT_EQ(info.kind, ELF_ADDR_SYMBOL);
	EXPECT_STREQ(info.sym, "fx_counter");
	EXPECT_STREQ(info.obj, canon(lib));
	/* Nor do the maps read again come from the new process. */
	EXPECT_NE(elf_symbolizer_refresh(s, err, sizeof(err)), 0);
	elf_symbolizer_free(s);
	kill(second, SIGKILL);
	waitpid(second, NULL, 0);
	dlclose(h);
}

TEST_HARNESS_MAIN
