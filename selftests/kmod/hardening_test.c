// SPDX-License-Identifier: GPL-2.0
/*
 * Regressions for defects a review of the module found: each test fails
 * (or, for the lock inversion, hangs and is killed) on the module before
 * the fix it names.
 */
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "ispot_kmod_test.h"

#define CALLS	1000

__attribute__((noinline, noclone)) int hardened_fn(int x)
{
	asm volatile("" ::: "memory");
	return x + 1;
}

static int call_n(void *arg)
{
	int i, n = *(int *)arg, sum = 0;

	for (i = 0; i < n; i++)
		sum += hardened_fn(i);
	return sum == -1;
}

static int stats(int fd, struct ispot_stats *st)
{
	memset(st, 0, sizeof(*st));
	return ispot_ioctl(fd, ISPOT_IOC_STATS, st);
}

static size_t count_kind(const struct ispot_record *r, size_t n, int kind)
{
	size_t i, c = 0;

	for (i = 0; i < n; i += r[i].nslots ? r[i].nslots : 1)
		c += r[i].kind == kind;
	return c;
}

/*
 * A SETUP that fails leaves the session NEW and untouched: every other
 * command gets a clean errno, and a good SETUP still works on the same fd.
 * Before the fix, nr_rings was set with rings NULL, and STATS oopsed.
 */
TEST(failed_setup_leaves_session_new)
{
	struct ispot_ring_consume rc = { 0 };
	struct ispot_info before, after;
	struct pollfd pfd;
	struct ispot_setup s;
	struct ispot_stats st;
	int fd = ispot_open_or_skip();

	memset(&before, 0, sizeof(before));
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &before), 0);
	/* More than max_buffer_mib (256 MiB) on any machine with a CPU. */
	EXPECT_EQ(ispot_setup(fd, getpid(), 65536, NULL), -E2BIG);
	/* Sizes that would overflow 32-bit byte counts. */
	EXPECT_EQ(ispot_setup(fd, getpid(), 1U << 31, NULL), -E2BIG);
	EXPECT_EQ(ispot_setup(fd, getpid(), 1U << 20, NULL), -E2BIG);
	EXPECT_EQ(ispot_setup(fd, getpid(), 3, NULL), -EINVAL);

	EXPECT_EQ(stats(fd, &st), -EBADFD);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_RING_CONSUME, &rc), -EBADFD);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), -EBADFD);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL), -EBADFD);
	EXPECT_EQ(ispot_add_probe_fn(fd, hardened_fn, ISPOT_PROBE_BOTH, 0),
		  -EBADFD);
	EXPECT_TRUE(mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0) ==
		    MAP_FAILED);
	EXPECT_EQ(errno, EBADFD);
	pfd.fd = fd;
	pfd.events = POLLIN;
	EXPECT_EQ(poll(&pfd, 1, 0), 0);

	memset(&after, 0, sizeof(after));
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &after), 0);
	EXPECT_EQ(after.ring_bytes, before.ring_bytes);
	ASSERT_EQ(ispot_setup(fd, getpid(), 1, &s), 0);
	EXPECT_EQ(stats(fd, &st), 0);
	EXPECT_EQ(st.state, ISPOT_STATE_READY);
	close(fd);
}

/*
 * The rings are read-only and never executable, at mmap and after it.
 * Before the fix, mprotect(PROT_EXEC) succeeded (VM_MAYEXEC was kept).
 */
TEST(rings_never_writable_or_executable)
{
	struct ispot_setup s;
	void *m;
	int fd = ispot_open_or_skip();

	ASSERT_EQ(ispot_setup(fd, getpid(), 1, &s), 0);
	EXPECT_TRUE(mmap(NULL, s.ring_mmap_size, PROT_READ | PROT_EXEC,
			 MAP_SHARED, fd, 0) == MAP_FAILED);
	EXPECT_EQ(errno, EPERM);
	EXPECT_TRUE(mmap(NULL, s.ring_mmap_size, PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0) == MAP_FAILED);
	/* Offsets beyond the rings, or not on a ring, and wrong sizes. */
	EXPECT_TRUE(mmap(NULL, s.ring_mmap_size, PROT_READ, MAP_SHARED, fd,
			 (off_t)s.ring_mmap_size * s.nr_rings) == MAP_FAILED);
	EXPECT_TRUE(mmap(NULL, s.ring_mmap_size, PROT_READ, MAP_SHARED, fd,
			 (off_t)1 << 46) == MAP_FAILED);
	EXPECT_TRUE(mmap(NULL, s.ring_mmap_size, PROT_READ, MAP_SHARED, fd,
			 4096) == MAP_FAILED);
	EXPECT_TRUE(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) ==
		    MAP_FAILED);

	m = mmap(NULL, s.ring_mmap_size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_TRUE(m != MAP_FAILED);
	EXPECT_EQ(mprotect(m, s.ring_mmap_size, PROT_READ | PROT_EXEC), -1);
	EXPECT_EQ(errno, EACCES);
	EXPECT_EQ(mprotect(m, s.ring_mmap_size, PROT_READ | PROT_WRITE), -1);
	EXPECT_EQ(errno, EACCES);
	munmap(m, s.ring_mmap_size);
	/* A private mapping cannot be made writable either. */
	m = mmap(NULL, s.ring_mmap_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m != MAP_FAILED) {
		EXPECT_EQ(mprotect(m, s.ring_mmap_size, PROT_WRITE), -1);
		munmap(m, s.ring_mmap_size);
	}
	close(fd);
}

/*
 * --sample N applies to a probe that records only returns.  Before the
 * fix, its entry handler left before the sampling decision and every
 * return was recorded.
 */
TEST(return_only_probe_honours_sampling)
{
	struct ispot_record *recs = NULL;
	struct ispot_child c;
	struct ispot_rings r;
	struct ispot_setup s;
	int n = CALLS, fd = ispot_open_or_skip();
	size_t cap = 0, nrec;

	ASSERT_EQ(ispot_child_start(&c, call_n, &n), 0);
	ASSERT_EQ(ispot_setup(fd, c.pid, 16, &s), 0);
	ASSERT_EQ(ispot_map_rings(fd, &s, &r), 0);
	ASSERT_EQ(ispot_add_probe_fn(fd, hardened_fn, ISPOT_PROBE_RETURN, 10),
		  1);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL), 0);
	nrec = ispot_drain(fd, &r, &recs, &cap, 0);
	EXPECT_EQ(count_kind(recs, nrec, ISPOT_REC_ENTRY), 0);
	EXPECT_EQ(count_kind(recs, nrec, ISPOT_REC_EXIT), CALLS / 10);
	free(recs);
	close(fd);
}

static int exit_late(void *arg __attribute__((unused)))
{
	usleep(300 * 1000);
	return 0;
}

/*
 * poll() hangs up when the target exits, even with no task records and
 * nothing in the rings.  Before the fix nothing woke the reader: the
 * poll below timed out.
 */
TEST(poll_hangs_up_when_the_target_exits)
{
	struct ispot_child c;
	struct ispot_setup s;
	struct pollfd pfd;
	int fd = ispot_open_or_skip();

	ASSERT_EQ(ispot_child_start(&c, exit_late, NULL), 0);
	ASSERT_EQ(ispot_setup(fd, c.pid, 1, &s), 0);
	ASSERT_EQ(ispot_add_probe_fn(fd, hardened_fn, ISPOT_PROBE_BOTH, 0), 1);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	ispot_child_go(&c);
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	/* Generous: only a missing wakeup takes this long. */
	EXPECT_EQ(poll(&pfd, 1, 60000), 1);
	EXPECT_TRUE(pfd.revents & POLLHUP);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	close(fd);
}

struct mmap_loop {
	int fd;
	size_t size;
	volatile int stop;
	int maps;		/* atomic: read by the main thread */
};

static void *mmap_loop(void *arg)
{
	struct mmap_loop *l = arg;

	while (!l->stop) {
		void *m = mmap(NULL, l->size, PROT_READ, MAP_SHARED, l->fd, 0);

		if (m == MAP_FAILED)
			break;
		munmap(m, l->size);
		__atomic_fetch_add(&l->maps, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int call_getppid_n(void *arg)
{
	int i, n = *(int *)arg;

	for (i = 0; i < n; i++)
		getppid();
	return 0;
}

/*
 * mmap of the rings while ENABLE registers a probe in a library this
 * process maps too.  Before the fix, ->mmap took the session lock under
 * mmap_lock while ENABLE held it around uprobe_register(), which takes
 * mmap_lock of every mm mapping the library: a deadlock (and a lockdep
 * report on the debug kernel).  The alarm turns a hang into a failure.
 */
TEST(mmap_while_enabling_a_library_probe)
{
	struct mmap_loop l = { 0 };
	int n = 100, i, fd = ispot_open_or_skip();
	struct ispot_child c;
	struct ispot_setup s;
	pthread_t th;

	alarm(300);
	ASSERT_EQ(ispot_child_start(&c, call_getppid_n, &n), 0);
	ASSERT_EQ(ispot_setup(fd, c.pid, 1, &s), 0);
	ASSERT_EQ(ispot_add_probe_fn(fd, (void *)getppid, ISPOT_PROBE_BOTH,
				     0), 1);
	l.fd = fd;
	l.size = s.ring_mmap_size;
	ASSERT_EQ(pthread_create(&th, NULL, mmap_loop, &l), 0);
	/* The mapper must be running before the first ENABLE. */
	while (!__atomic_load_n(&l.maps, __ATOMIC_RELAXED))
		usleep(1000);
	for (i = 0; i < 30; i++) {
		ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
		ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL), 0);
	}
	l.stop = 1;
	pthread_join(th, NULL);
	TH_LOG("30 enable/disable rounds against %d mmaps", l.maps);
	EXPECT_GT(l.maps, 0);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	close(fd);
}

/* Whether ispot.ko keeps its tracepoint probes until unload. */
static int keep_tracepoints(void)
{
	FILE *f = fopen("/sys/module/ispot/parameters/keep_tracepoints", "r");
	int c = 'N';

	if (f) {
		c = fgetc(f);
		fclose(f);
	}
	return c == 'Y' || c == '1';
}

static uint32_t registered_tracepoints(int fd)
{
	struct ispot_info info;

	memset(&info, 0, sizeof(info));
	if (ispot_ioctl(fd, ISPOT_IOC_INFO, &info))
		return ~0U;
	return info.tracepoints;
}

/*
 * The wait tracepoint probes are registered while a session needs them,
 * and removed when the last one goes, so an idle host pays nothing
 * (unless keep_tracepoints=1, the emulated guests' workaround).
 */
TEST(tracepoints_registered_only_while_used)
{
	struct ispot_child c;
	struct ispot_setup s;
	int n = 10, fd, fd2;
	uint32_t idle;

	ispot_require_module();
	/* Before the fds: a child holding them would keep them open. */
	ASSERT_EQ(ispot_child_start(&c, call_n, &n), 0);
	fd = ispot_open();
	fd2 = ispot_open();
	ASSERT_GE(fd, 0);
	ASSERT_GE(fd2, 0);
	/* The groups of tracepoint probes (OFFCPU rides on WAITS'). */
	idle = keep_tracepoints() ? ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS : 0;
	memset(&s, 0, sizeof(s));
	s.pid = c.pid;
	s.ring_pages = 1;
	s.flags = ISPOT_SETUP_FLAGS;
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_SETUP, &s), 0);
	ASSERT_EQ(ispot_add_probe_fn(fd, hardened_fn, ISPOT_PROBE_BOTH, 0), 1);
	s.flags = ISPOT_SETUP_TASKS;
	s.nr_rings = 0;
	s.ring_mmap_size = 0;
	ASSERT_EQ(ispot_ioctl(fd2, ISPOT_IOC_SETUP, &s), 0);
	ASSERT_EQ(ispot_add_probe_fn(fd2, hardened_fn, ISPOT_PROBE_BOTH, 0),
		  1);
	if (!keep_tracepoints())
		EXPECT_EQ(registered_tracepoints(fd), 0);

	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	ASSERT_EQ(ispot_ioctl(fd2, ISPOT_IOC_ENABLE, NULL), 0);
	EXPECT_EQ(registered_tracepoints(fd),
		  ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS);
	/* The WAITS group goes with its last user; TASKS has another. */
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL), 0);
	EXPECT_EQ(registered_tracepoints(fd), ISPOT_SETUP_TASKS | idle);
	close(fd2);
	EXPECT_EQ(registered_tracepoints(fd), idle);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	close(fd);
}

static int run_in_new_pidns(void)
{
	struct ispot_record *recs = NULL;
	int n = 50, fd, bad = 0;
	struct ispot_child c;
	struct ispot_rings r;
	struct ispot_setup s;
	size_t cap = 0, nrec, i;

	/* pid 1 of a new pid namespace; /proc is still the parent's. */
	if (ispot_child_start(&c, call_n, &n))
		return 10;
	fd = ispot_open();
	if (fd < 0)
		return 11;
	if (ispot_setup(fd, c.pid, 16, &s) != -EXDEV)
		return 12;	/* the access check would name other tasks */
	if (mount("proc", "/proc", "proc", 0, NULL))
		return 13;
	if (ispot_setup(fd, c.pid, 16, &s) || ispot_map_rings(fd, &s, &r) ||
	    ispot_add_probe_fn(fd, hardened_fn, ISPOT_PROBE_BOTH, 0) != 1 ||
	    ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL))
		return 14;
	ispot_child_go(&c);
	if (ispot_child_wait(&c))
		return 15;
	ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL);
	nrec = ispot_drain(fd, &r, &recs, &cap, 0);
	for (i = 0; i < nrec; i += recs[i].nslots)
		bad += recs[i].tid != (uint32_t)c.pid ||
		       recs[i].tgid != (uint32_t)c.pid;
	if (count_kind(recs, nrec, ISPOT_REC_ENTRY) != (size_t)n)
		return 16;
	return bad ? 17 : 0;
}

/*
 * A reader in a child pid namespace sees its own pids in the records, and
 * the access check refuses to use a procfs of another pid namespace.
 * Before the fix, records carried the initial namespace's pids.
 */
TEST(records_carry_the_readers_pids)
{
	pid_t pid, inner;
	int st;

	ispot_require_module();
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWPID | CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(20);
		inner = fork();
		if (inner < 0)
			_exit(21);
		if (inner == 0)
			_exit(run_in_new_pidns());
		if (waitpid(inner, &st, 0) < 0 || !WIFEXITED(st))
			_exit(22);
		_exit(WEXITSTATUS(st));
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WEXITSTATUS(st), 0);
}

/*
 * An fd opened with CAP_PERFMON and handed to an unprivileged process
 * lets it trace what it may ptrace, and nothing else: capabilities come
 * from the opener, ptrace access from the caller.
 */
TEST(handed_fd_traces_only_what_the_holder_may_ptrace)
{
	struct ispot_child root_child;
	int n = 1, fd = ispot_open_or_skip(), fd2 = ispot_open();
	pid_t pid;
	int st;

	ASSERT_GE(fd2, 0);
	ASSERT_EQ(ispot_child_start(&root_child, call_n, &n), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(30);
		prctl(PR_SET_DUMPABLE, 1);
		if (ispot_setup(fd, root_child.pid, 1, NULL) != -EPERM)
			_exit(31);
		if (ispot_setup(fd2, getpid(), 1, NULL))
			_exit(32);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WEXITSTATUS(st), 0);
	ispot_child_go(&root_child);
	ispot_child_wait(&root_child);
	close(fd);
	close(fd2);
}

/* A cgroup v2 memory group for this test, or NULL to skip. */
static const char *memcg_setup(void)
{
	static const char *dir = "/sys/fs/cgroup/ispot_memcg_test";
	FILE *f;

	mkdir("/sys/fs/cgroup", 0755);
	if (mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL) &&
	    errno != EBUSY)
		return NULL;
	f = fopen("/sys/fs/cgroup/cgroup.subtree_control", "w");
	if (!f)
		return NULL;
	fputs("+memory", f);
	if (fclose(f))
		return NULL;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return NULL;
	return dir;
}

static long long memcg_read(const char *dir)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.current", dir);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * Ring memory is charged to the memory cgroup of whoever sets the session
 * up, and given back at close.  Before the fix the rings came from
 * vmalloc_user(), which charges nobody.
 */
TEST(rings_are_charged_to_the_tracers_memory_cgroup)
{
	long long before, during, after, rings;
	const char *dir = memcg_setup();
	struct ispot_setup s;
	char path[256];
	FILE *f;
	int fd;

	ispot_require_module();
	if (!dir)
		SKIP("no cgroup v2 memory controller here");
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fprintf(f, "%d\n", (int)getpid());
	ASSERT_EQ(fclose(f), 0);

	before = memcg_read(dir);
	ASSERT_GE(before, 0);
	fd = ispot_open();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ispot_setup(fd, getpid(), 512, &s), 0);	/* 2 MiB/CPU */
	during = memcg_read(dir);
	close(fd);
	after = memcg_read(dir);
	rings = (long long)s.nr_rings * 512 * 4096;
	TH_LOG("memory.current %lld -> %lld -> %lld, rings %lld bytes",
	       before, during, after, rings);
	/* Possible CPUs may be fewer than nr_rings: one ring at least. */
	EXPECT_GE(during - before, 512 * 4096);
	EXPECT_LT(after - before, (during - before) / 2);
}

/*
 * SETUP racing the target's exit and reaping: with SIGCHLD ignored a child
 * is released the moment it exits, so the group can be gone between the
 * module's liveness check and its taking the TGID pid.  That pid is then
 * NULL, and the module dereferenced it (a NULL pointer Oops on 6.1 found by
 * fuzz_test's multi_fd_threads).  Every SETUP must give 0 or -ESRCH.
 */
TEST(setup_races_the_targets_release)
{
	struct sigaction old, ign = { .sa_handler = SIG_IGN };
	int i, ok = 0, gone = 0, other = 0, first_other = 0;

	ASSERT_EQ(sigaction(SIGCHLD, &ign, &old), 0);
	for (i = 0; i < 3000; i++) {
		int fd = ispot_open_or_skip(), ret;
		pid_t pid;

		/* Not a SETUP's error: the ioctl on -1 would say EBADF. */
		ASSERT_TRUE(fd >= 0);
		pid = fork();
		ASSERT_TRUE(pid >= 0);
		if (!pid)
			_exit(0);
		ret = ispot_setup(fd, pid, 1, NULL);
		if (!ret)
			ok++;
		else if (ret == -ESRCH)
			gone++;
		else if (!other++)
			first_other = ret;
		close(fd);
		/*
		 * The child has its copy of @fd until it exits, and the
		 * session stays open until both are closed: on a slow host
		 * the children left behind held sessions up to the module's
		 * limit (-EBUSY at the next open).  SIGCHLD ignored, the
		 * wait returns ECHILD once the child is gone, its files
		 * released before it is.
		 */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	sigaction(SIGCHLD, &old, NULL);
	printf("# %d set up, %d already gone, %d other (the first: %s)\n",
	       ok, gone, other, other ? strerror(-first_other) : "none");
	EXPECT_EQ(other, 0);
}

TEST_HARNESS_MAIN
