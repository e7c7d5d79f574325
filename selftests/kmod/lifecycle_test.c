// SPDX-License-Identifier: GPL-2.0
/*
 * Process and session lifecycle while probes are armed: the target forks,
 * execs, exits; the session is closed or its owner killed while the target
 * is inside a probed function; two sessions trace two processes; the
 * module is unloaded while a former target still runs.
 */
#include <poll.h>
#include <signal.h>

#include "ispot_kmod_test.h"

static volatile int sink;

__attribute__((noinline, noclone)) int life_fn(int x)
{
	sink += x;
	return x;
}

/* Blocks inside a probed call until a byte arrives on @fd. */
__attribute__((noinline, noclone)) int life_block(int fd)
{
	char b;

	return read(fd, &b, 1);
}

static void call_n(int n)
{
	int i;

	for (i = 0; i < n; i++)
		life_fn(i);
}

static size_t count_kind(int fd, struct ispot_rings *r, uint8_t kind,
			 pid_t tgid, size_t *others)
{
	struct ispot_record *recs = NULL;
	size_t cap = 0, n, i, c = 0;

	n = ispot_drain(fd, r, &recs, &cap, 0);
	for (i = 0; i < n; i += recs[i].nslots) {
		if (recs[i].tgid != (uint32_t)tgid) {
			if (others)
				(*others)++;
			continue;
		}
		c += recs[i].kind == kind;
	}
	free(recs);
	return c;
}

/* Session on @pid with @fn probed, enabled, rings mapped. */
static int session_on(pid_t pid, void *fn, struct ispot_setup *s,
		      struct ispot_rings *r)
{
	int fd = ispot_open();

	if (fd < 0 || ispot_setup(fd, pid, 16, s) ||
	    ispot_add_probe_fn(fd, fn, ISPOT_PROBE_BOTH, 0) <= 0 ||
	    ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL) ||
	    (r && ispot_map_rings(fd, s, r)))
		return -1;
	return fd;
}

static int fork_work(void *arg)
{
	pid_t g;
	int st;

	(void)arg;
	call_n(100);
	g = fork();
	if (g == 0) {
		call_n(100);
		_exit(0);
	}
	waitpid(g, &st, 0);
	call_n(100);
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}

TEST(fork_child_not_traced)
{
	struct ispot_child c;
	struct ispot_setup s;
	struct ispot_rings r;
	size_t others = 0;
	int fd;

	ispot_require_module();
	ASSERT_EQ(ispot_child_start(&c, fork_work, NULL), 0);
	fd = session_on(c.pid, life_fn, &s, &r);
	ASSERT_GE(fd, 0);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	EXPECT_EQ(count_kind(fd, &r, ISPOT_REC_ENTRY, c.pid, &others), 200);
	EXPECT_EQ(others, 0);
	close(fd);
}

static int exec_self(void *arg)
{
	execl("/proc/self/exe", "lifecycle_test", "--call", (char *)arg, NULL);
	return 127;
}

TEST(exec_after_arming_is_traced)
{
	struct ispot_child c;
	struct ispot_setup s;
	struct ispot_rings r;
	int fd;

	ispot_require_module();
	ASSERT_EQ(ispot_child_start(&c, exec_self, "50"), 0);
	fd = session_on(c.pid, life_fn, &s, &r);
	ASSERT_GE(fd, 0);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	EXPECT_EQ(count_kind(fd, &r, ISPOT_REC_ENTRY, c.pid, NULL), 50);
	close(fd);
}

static int quick(void *arg)
{
	(void)arg;
	call_n(10);
	return 0;
}

TEST(target_exit_makes_session_dead)
{
	struct ispot_stats st = { 0 };
	struct ispot_child c;
	struct ispot_setup s;
	struct pollfd pfd;
	int fd;

	ispot_require_module();
	ASSERT_EQ(ispot_child_start(&c, quick, NULL), 0);
	fd = session_on(c.pid, life_fn, &s, NULL);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_STATS, &st), 0);
	EXPECT_EQ(st.state, ISPOT_STATE_ENABLED);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_STATS, &st), 0);
	EXPECT_EQ(st.state, ISPOT_STATE_DEAD);
	pfd.fd = fd;
	pfd.events = POLLIN;
	ASSERT_EQ(poll(&pfd, 1, 5000), 1);
	EXPECT_TRUE(pfd.revents & POLLHUP);
	EXPECT_TRUE(pfd.revents & POLLIN);
	close(fd);
}

struct blocker {
	int unblock[2];
};

static int block_work(void *arg)
{
	struct blocker *b = arg;

	close(b->unblock[1]);
	return life_block(b->unblock[0]) == 1 ? 0 : 1;
}

/* Wait until the target has entered the probed function. */
static int wait_entry(int fd, struct ispot_rings *r, pid_t pid)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (count_kind(fd, r, ISPOT_REC_ENTRY, pid, NULL))
			return 0;
		usleep(20000);
	}
	return -1;
}

TEST(close_and_unload_while_target_inside_function)
{
	struct ispot_child c;
	struct ispot_setup s;
	struct ispot_rings r;
	struct blocker b;
	int fd, i;

	ispot_require_module();
	ASSERT_EQ(pipe(b.unblock), 0);
	ASSERT_EQ(ispot_child_start(&c, block_work, &b), 0);
	close(b.unblock[0]);
	fd = session_on(c.pid, life_block, &s, &r);
	ASSERT_GE(fd, 0);
	ispot_child_go(&c);
	ASSERT_EQ(wait_entry(fd, &r, c.pid), 0);
	for (i = 0; i < r.nr; i++)
		munmap(r.maps[i], r.size);
	close(fd);
	/* The target still sits in the function, on a hijacked return. */
	ASSERT_EQ(system("rmmod ispot"), 0);
	ASSERT_EQ(write(b.unblock[1], "x", 1), 1);
	EXPECT_EQ(ispot_child_wait(&c), 0);
	ASSERT_EQ(system("/ispot/selftests/kmod/load_ispot.sh"), 0);
}

TEST(owner_killed_while_target_inside_function)
{
	struct ispot_info before = { 0 }, after = { 0 };
	struct ispot_child c;
	struct blocker b;
	int ready[2], st, fd = ispot_open_or_skip();
	pid_t tracer;
	char x;

	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &before), 0);
	ASSERT_EQ(pipe(b.unblock), 0);
	ASSERT_EQ(pipe(ready), 0);
	ASSERT_EQ(ispot_child_start(&c, block_work, &b), 0);
	close(b.unblock[0]);
	tracer = fork();
	ASSERT_GE(tracer, 0);
	if (tracer == 0) {
		struct ispot_setup s;
		struct ispot_rings r;
		int tfd = session_on(c.pid, life_block, &s, &r);

		if (tfd < 0)
			_exit(1);
		ispot_child_go(&c);
		if (wait_entry(tfd, &r, c.pid))
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		pause();
		_exit(4);
	}
	close(c.go);
	close(ready[1]);
	ASSERT_EQ(read(ready[0], &x, 1), 1);
	ASSERT_EQ(kill(tracer, SIGKILL), 0);
	ASSERT_EQ(waitpid(tracer, &st, 0), tracer);
	ASSERT_TRUE(WIFSIGNALED(st));
	ASSERT_EQ(write(b.unblock[1], "x", 1), 1);
	EXPECT_EQ(ispot_child_wait(&c), 0);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &after), 0);
	EXPECT_EQ(after.sessions, before.sessions);
	EXPECT_EQ(after.ring_bytes, before.ring_bytes);
	close(fd);
}

static int call_arg(void *arg)
{
	call_n((int)(long)arg);
	return 0;
}

TEST(two_sessions_two_processes)
{
	struct ispot_child a, b;
	struct ispot_setup sa, sb;
	struct ispot_rings ra, rb;
	size_t oa = 0, ob = 0;
	int fa, fb;

	ispot_require_module();
	ASSERT_EQ(ispot_child_start(&a, call_arg, (void *)300L), 0);
	ASSERT_EQ(ispot_child_start(&b, call_arg, (void *)500L), 0);
	fa = session_on(a.pid, life_fn, &sa, &ra);
	fb = session_on(b.pid, life_fn, &sb, &rb);
	ASSERT_GE(fa, 0);
	ASSERT_GE(fb, 0);
	ispot_child_go(&a);
	ispot_child_go(&b);
	ASSERT_EQ(ispot_child_wait(&a), 0);
	ASSERT_EQ(ispot_child_wait(&b), 0);
	EXPECT_EQ(count_kind(fa, &ra, ISPOT_REC_EXIT, a.pid, &oa), 300);
	EXPECT_EQ(count_kind(fb, &rb, ISPOT_REC_EXIT, b.pid, &ob), 500);
	EXPECT_EQ(oa + ob, 0);
	close(fa);
	close(fb);
}

static int calls_then_block(void *arg)
{
	call_n(2000);
	return block_work(arg);
}

TEST(poll_wakes_reader_at_watermark)
{
	struct ispot_child c;
	struct ispot_setup s;
	struct blocker b;
	struct pollfd pfd;
	int fd = ispot_open_or_skip();

	ASSERT_EQ(pipe(b.unblock), 0);
	ASSERT_EQ(ispot_child_start(&c, calls_then_block, &b), 0);
	close(b.unblock[0]);
	memset(&s, 0, sizeof(s));
	s.pid = c.pid;
	s.ring_pages = 16;
	s.watermark = 4096;
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_SETUP, &s), 0);
	ASSERT_GT(ispot_add_probe_fn(fd, life_fn, ISPOT_PROBE_BOTH, 0), 0);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	pfd.fd = fd;
	pfd.events = POLLIN;
	EXPECT_EQ(poll(&pfd, 1, 0), 0);		/* nothing yet */
	ispot_child_go(&c);
	/* The target is still alive (blocked), so only data can wake us. */
	ASSERT_EQ(poll(&pfd, 1, 60000), 1);
	EXPECT_TRUE(pfd.revents & POLLIN);
	EXPECT_FALSE(pfd.revents & POLLHUP);
	ASSERT_EQ(write(b.unblock[1], "x", 1), 1);
	EXPECT_EQ(ispot_child_wait(&c), 0);
	close(fd);
}

int main(int argc, char **argv)
{
	/* Re-executed by exec_after_arming_is_traced. */
	if (argc == 3 && !strcmp(argv[1], "--call")) {
		call_n(atoi(argv[2]));
		return 0;
	}
	return ispot_test_main();
}
