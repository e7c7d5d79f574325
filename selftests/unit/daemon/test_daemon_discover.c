// SPDX-License-Identifier: GPL-2.0
/*
 * Which processes ispotd traces (user/daemon/discover.c), on this host's
 * real processes: --exe targets running before, started after, exec'd
 * into, forked, restarted, killed and upgraded under their feet; --pid
 * targets and the pid reuse they must not follow; --cgroup targets that
 * gain processes by a move, a fork and a nested cgroup, and lose them by
 * a move out; the overflow of the event socket; the /proc scan fallback;
 * and the /proc/PID/stat readers the budget uses.
 *
 * Each test runs its body in a process group of its own (sandbox_run()):
 * whatever it started is killed and its files and cgroups removed even
 * when an ASSERT ends it half-way.  The targets are copies of /bin/sleep
 * and of this binary under names of this run, so that nothing else on
 * the host can match.
 *
 * Waits have deadlines, never a fixed sleep that must be long enough.
 * discover_update() is given a clock of the test's own: kept still, it
 * proves that an event, not a periodic scan, found a process; pushed on,
 * it makes the scans happen without waiting for them.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "ispot_test.h"
#include "discover.h"
#include "pid_reuse.h"
#include "util/procstat.h"

#define WAIT_NS		(5 * 1000000000ull)
#define SLEEP_ARG	"60"	/* a leftover sleep ends on its own */

static struct {
	char dir[64];		/* this run's files */
	char sleep[128];	/* a copy of /bin/sleep: the usual target */
	char helper[128];	/* a copy of this binary, for --fork-on-input */
	char cg_mnt[1024];	/* where cgroup2 is mounted */
	char cg[64];		/* "/ispot-test-PID", from the cgroup2 root */
	bool have_cg;
} sb;

static uint64_t vnow = 1;	/* the clock discover_update() is given */
static bool scan_only;		/* ISPOT_DISCOVER_NO_NETLINK=1 */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	close(in);
	return close(out) || n < 0 ? -1 : 0;
}

/* A cgroup2 mount: of the hierarchy's root, or (@any) of any part. */
static bool cgroup2_mount_of(char *buf, size_t len, bool any)
{
	char line[4096], root[PATH_MAX], mnt[PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		if (sep && !strncmp(sep + 3, "cgroup2 ", 8) &&
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) == 2 &&
		    (any || !strcmp(root, "/"))) {
			snprintf(buf, len, "%s", mnt);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static bool cgroup2_root(char *buf, size_t len)
{
	return cgroup2_mount_of(buf, len, false);
}

/* @rel ("/a/b", from the cgroup2 root) as a directory path. */
static void cg_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s%s", sb.cg_mnt, rel);
}

static int cg_move(const char *rel, pid_t pid)
{
	char path[PATH_MAX + 32];
	int fd, ret;

	snprintf(path, sizeof(path), "%s%s/cgroup.procs", sb.cg_mnt, rel);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = dprintf(fd, "%d\n", (int)pid) > 0 ? 0 : -errno;
	close(fd);
	return ret;
}

static void cg_remove(const char *rel)
{
	char path[PATH_MAX];
	int tries;

	cg_path(path, sizeof(path), rel);
	/* A reaped process may leave its cgroup a moment later. */
	for (tries = 0; tries < 100 && rmdir(path) && errno == EBUSY; tries++)
		usleep(10000);
}

static const char *const cg_children[] = { "/nested", "/nested/deeper" };

/*
 * The test's cgroup, a nested one and a deeper one inside it, and a
 * sibling whose name only starts like it ("x" appended).
 */
static bool sandbox_cgroups(void)
{
	char path[PATH_MAX + 64];
	size_t i;

	if (!cgroup2_root(sb.cg_mnt, sizeof(sb.cg_mnt)))
		return false;
	snprintf(sb.cg, sizeof(sb.cg), "/ispot-test-%d", (int)getpid());
	cg_path(path, sizeof(path), sb.cg);
	if (mkdir(path, 0755))
		return false;
	sb.have_cg = true;
	for (i = 0; i < sizeof(cg_children) / sizeof(*cg_children); i++) {
		snprintf(path, sizeof(path), "%s%s%s", sb.cg_mnt, sb.cg,
			 cg_children[i]);
		if (mkdir(path, 0755))
			return false;
	}
	snprintf(path, sizeof(path), "%s%sx", sb.cg_mnt, sb.cg);
	return !mkdir(path, 0755);
}

static void sandbox_teardown(void)
{
	char path[PATH_MAX + 64];
	size_t i;
	DIR *dir;
	struct dirent *de;

	if (sb.have_cg) {
		for (i = sizeof(cg_children) / sizeof(*cg_children); i--;) {
			snprintf(path, sizeof(path), "%s%s", sb.cg,
				 cg_children[i]);
			cg_remove(path);
		}
		cg_remove(sb.cg);
		snprintf(path, sizeof(path), "%sx", sb.cg);
		cg_remove(path);
	}
	dir = opendir(sb.dir);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", sb.dir, de->d_name);
		if (unlink(path)) {
			/* other/: one level is all this test makes */
			char sub[PATH_MAX * 2];
			DIR *sd = opendir(path);
			struct dirent *se;

			while (sd && (se = readdir(sd))) {
				if (se->d_name[0] == '.')
					continue;
				snprintf(sub, sizeof(sub), "%s/%s", path,
					 se->d_name);
				unlink(sub);
			}
			if (sd)
				closedir(sd);
			rmdir(path);
		}
	}
	if (dir)
		closedir(dir);
	rmdir(sb.dir);
}

/*
 * Run @body in a process group of its own, then kill what it left and
 * remove this run's files and cgroups; the body's verdict is the test's.
 */
static void sandbox_run(void (*body)(void), bool cgroups)
{
	int status;
	pid_t child;

	snprintf(sb.dir, sizeof(sb.dir), "/tmp/ispot-unit-discover-XXXXXX");
	ASSERT_TRUE(mkdtemp(sb.dir));
	snprintf(sb.sleep, sizeof(sb.sleep), "%s/ispot-sleep-%d", sb.dir,
		 (int)getpid());
	snprintf(sb.helper, sizeof(sb.helper), "%s/ispot-helper-%d", sb.dir,
		 (int)getpid());
	if (copy_file("/bin/sleep", sb.sleep) ||
	    copy_file("/proc/self/exe", sb.helper)) {
		sandbox_teardown();
		ASSERT_TRUE(0);
	}
	if (cgroups && !sandbox_cgroups()) {
		sandbox_teardown();
		SKIP("no cgroup2 hierarchy to make cgroups in (%s)",
		     strerror(errno));
	}
	/* What the body starts comes back here when the body dies first. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	fflush(stdout);
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		setpgid(0, 0);
		alarm(120);
		body();
		fflush(stdout);
		_exit(ispot_test_failed ? KSFT_FAIL : KSFT_PASS);
	}
	setpgid(child, child);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	kill(-child, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	sandbox_teardown();
	if (WIFSIGNALED(status)) {
		TH_LOG("the test's body died of signal %d", WTERMSIG(status));
		ispot_test_fail(1);
	}
	if (WEXITSTATUS(status) == KSFT_SKIP) {
		fflush(stdout);
		_exit(KSFT_SKIP);
	}
	if (WEXITSTATUS(status))
		ispot_test_fail(1);
}

static pid_t spawn_fd(const char *path, const char *arg, int in)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (in >= 0)
			dup2(in, 0);
		execl(path, path, arg, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static pid_t spawn(const char *path)
{
	return spawn_fd(path, SLEEP_ARG, -1);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Until @pid runs @path: it was started, it must also have exec'd. */
static bool wait_exec(pid_t pid, const char *path)
{
	uint64_t end = mono_ns() + WAIT_NS;
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	do {
		n = readlink(link, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			if (!strcmp(buf, path))
				return true;
		}
		usleep(5000);
	} while (mono_ns() < end);
	return false;
}

static const struct discover_proc *listed(const struct discover *d,
					  pid_t pid)
{
	const struct discover_proc *p;
	size_t n = discover_procs(d, &p), i;

	for (i = 0; i < n; i++)
		if (p[i].pid == pid)
			return &p[i];
	return NULL;
}

/*
 * Update @d until @pid is listed (@want) or not.  With @scans the clock
 * moves half a scan period a round, so periodic scans happen; without,
 * it stands still and only events can change the set.  Without the
 * connector, only scans can.
 */
static bool wait_listed(struct discover *d, pid_t pid, bool want, bool scans)
{
	uint64_t end = mono_ns() + WAIT_NS;
	int fd = discover_fd(d);

	scans = scans || fd < 0;
	for (;;) {
		if (scans)
			vnow += DISCOVER_SCAN_NS / 2;
		ASSERT_EQ(discover_update(d, vnow), 0);
		if (!!listed(d, pid) == want)
			return true;
		if (mono_ns() >= end)
			return false;
		if (fd >= 0 && !scans) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			poll(&pfd, 1, 50);
		} else {
			usleep(20000);
		}
	}
}

/* A periodic pass now, whatever the mode. */
static void pass(struct discover *d)
{
	vnow += DISCOVER_SCAN_NS;
	ASSERT_EQ(discover_update(d, vnow), 0);
}

static void expect_sorted(const struct discover *d)
{
	const struct discover_proc *p;
	size_t n = discover_procs(d, &p), i;

	for (i = 1; i < n; i++)
		EXPECT_LT(p[i - 1].pid, p[i].pid);
}

/*
 * Whether this process may subscribe to the connector: root with
 * CAP_NET_ADMIN in the initial user and pid namespaces.  There, not
 * getting it is a bug; elsewhere, a reason to skip.
 */
static bool netlink_expected(void)
{
	char line[256];
	unsigned long long caps = 0;
	unsigned int a, b, c;
	bool init_ns = false, one_nspid = false;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "CapEff:", 7))
			sscanf(line + 7, "%llx", &caps);
		if (!strncmp(line, "NSpid:", 6))
			one_nspid = !strchr(line + 7, '\t') &&
				    !strchr(line + 7, ' ');
	}
	if (f)
		fclose(f);
	f = fopen("/proc/self/uid_map", "re");
	if (f && fscanf(f, "%u %u %u", &a, &b, &c) == 3)
		init_ns = a == 0 && b == 0 && c == 4294967295u;
	if (f)
		fclose(f);
	return (caps >> 12 & 1) && init_ns && one_nspid;
}

/* discover_new() in the mode of the test: connector, or scans only. */
static struct discover *discover_mode(const pid_t *pids, size_t nr_pids,
				      const char *const *exes, size_t nr_exes,
				      const char *const *cgs, size_t nr_cgs)
{
	struct discover *d;
	char err[256] = "";

	if (scan_only)
		setenv("ISPOT_DISCOVER_NO_NETLINK", "1", 1);
	else
		unsetenv("ISPOT_DISCOVER_NO_NETLINK");
	d = discover_new(pids, nr_pids, exes, nr_exes, cgs, nr_cgs, err,
			 sizeof(err));
	if (!d)
		TH_LOG("discover_new: %s", err);
	ASSERT_TRUE(d);
	if (scan_only) {
		ASSERT_FALSE(discover_netlink(d));
		ASSERT_EQ(discover_fd(d), -1);
	} else if (!discover_netlink(d)) {
		if (netlink_expected()) {
			TH_LOG("no proc connector, though root in the "
			       "initial namespaces");
			ASSERT_TRUE(0);
		}
		discover_free(d);
		SKIP("no proc connector here (needs CAP_NET_ADMIN)");
	} else {
		ASSERT_GE(discover_fd(d), 0);
	}
	return d;
}

/* A child of this process that execs @path once told to (a byte on *@go). */
static pid_t spawn_exec_later(const char *path, int *go)
{
	int p[2];
	pid_t pid;
	char c;

	ASSERT_EQ(pipe(p), 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) == 1)
			execl(path, path, SLEEP_ARG, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

static void go(int fd)
{
	ASSERT_EQ(write(fd, "g", 1), 1);
	close(fd);
}

/*
 * --exe across a process's life: running at the start, started later,
 * exec'd into, forked by a member, killed, started again.  Nothing else
 * matches, not even a file of the same name and content elsewhere.
 */
static void exe_lifecycle(void)
{
	const char *exes[] = { "/nonexistent/ispot-exe", sb.sleep,
			       sb.helper };
	char other[PATH_MAX + 32];
	const struct discover_proc *p;
	pid_t a, b, c, h, a2, twin, plain;
	int go_c, go_h[2];
	struct discover *d;
	bool by_event = !scan_only;

	snprintf(other, sizeof(other), "%s/other", sb.dir);
	ASSERT_EQ(mkdir(other, 0755), 0);
	strcat(other, strrchr(sb.sleep, '/'));
	ASSERT_EQ(copy_file(sb.sleep, other), 0);

	a = spawn(sb.sleep);
	twin = spawn(other);
	plain = spawn("/bin/sleep");
	ASSERT_TRUE(wait_exec(a, sb.sleep));
	ASSERT_TRUE(wait_exec(twin, other));

	d = discover_mode(NULL, 0, exes, 3, NULL, 0);
	ASSERT_EQ(discover_update(d, vnow), 0);
	p = listed(d, a);
	ASSERT_TRUE(p);
	EXPECT_EQ(p->source, DISCOVER_EXE);
	EXPECT_EQ(p->index, 1);
	{
		uint64_t st;

		ASSERT_EQ(proc_start_time(a, &st), 0);
		EXPECT_EQ(p->start_time, st);
	}
	EXPECT_FALSE(listed(d, twin));
	EXPECT_FALSE(listed(d, plain));
	EXPECT_FALSE(listed(d, getpid()));

	/* Started after: the EXEC event (the clock stands still). */
	b = spawn(sb.sleep);
	ASSERT_TRUE(wait_listed(d, b, true, !by_event));

	/* A child of ours, listed only once it runs the binary. */
	c = spawn_exec_later(sb.sleep, &go_c);
	ASSERT_EQ(discover_update(d, vnow), 0);
	pass(d);
	EXPECT_FALSE(listed(d, c));
	go(go_c);
	ASSERT_TRUE(wait_listed(d, c, true, !by_event));

	/* A member's fork runs the same binary: it matches too. */
	ASSERT_EQ(pipe(go_h), 0);
	h = spawn_fd(sb.helper, "--fork-on-input", go_h[0]);
	close(go_h[0]);
	ASSERT_TRUE(wait_listed(d, h, true, !by_event));
	EXPECT_EQ(listed(d, h)->index, 2);
	go(go_h[1]);
	{
		uint64_t end = mono_ns() + WAIT_NS;
		size_t before = discover_procs(d, &p), n;

		/* The fork's pid is unknown here: count. */
		do {
			usleep(20000);
			if (!by_event)
				vnow += DISCOVER_SCAN_NS / 2;
			ASSERT_EQ(discover_update(d, vnow), 0);
			n = discover_procs(d, &p);
		} while (n == before && mono_ns() < end);
		EXPECT_EQ(n, before + 1);
	}

	/* Killed: the EXIT event.  Started again: a new pid, found. */
	reap(a);
	ASSERT_TRUE(wait_listed(d, a, false, !by_event));
	a2 = spawn(sb.sleep);
	EXPECT_NE(a2, a);
	ASSERT_TRUE(wait_listed(d, a2, true, !by_event));

	pass(d);
	EXPECT_TRUE(listed(d, b));
	EXPECT_TRUE(listed(d, c));
	EXPECT_FALSE(listed(d, twin));
	EXPECT_FALSE(listed(d, plain));
	expect_sorted(d);
	discover_free(d);
}

TEST(exe_lifecycle_by_events)
{
	sandbox_run(exe_lifecycle, false);
}

TEST(exe_lifecycle_by_scans)
{
	scan_only = true;
	sandbox_run(exe_lifecycle, false);
}

/*
 * An upgrade renames a new file over the binary: the processes that run
 * the old one ("PATH (deleted)") still match, as do those started from
 * the new one.  The target is a symlink to the binary, as /usr/bin/java
 * is, so the old process matches only by the link's real path.
 */
static void exe_replaced(void)
{
	char link[PATH_MAX + 16], fresh[PATH_MAX + 16];
	const char *exes[] = { link };
	struct discover *d;
	pid_t old, new;

	snprintf(link, sizeof(link), "%s/link", sb.dir);
	snprintf(fresh, sizeof(fresh), "%s/fresh", sb.dir);
	ASSERT_EQ(symlink(sb.sleep, link), 0);
	old = spawn(sb.sleep);
	ASSERT_TRUE(wait_exec(old, sb.sleep));
	d = discover_mode(NULL, 0, exes, 1, NULL, 0);
	ASSERT_EQ(discover_update(d, vnow), 0);
	ASSERT_TRUE(listed(d, old));

	ASSERT_EQ(copy_file("/bin/sleep", fresh), 0);
	ASSERT_EQ(rename(fresh, sb.sleep), 0);
	/* Every periodic pass looks at the set again, with PATH re-read. */
	pass(d);
	pass(d);
	EXPECT_TRUE(listed(d, old));

	new = spawn(sb.sleep);
	ASSERT_TRUE(wait_listed(d, new, true, scan_only));
	pass(d);
	EXPECT_TRUE(listed(d, old));
	EXPECT_TRUE(listed(d, new));
	discover_free(d);
}

TEST(exe_replaced_by_events)
{
	sandbox_run(exe_replaced, false);
}

TEST(exe_replaced_by_scans)
{
	scan_only = true;
	sandbox_run(exe_replaced, false);
}

/*
 * ispotd never traces itself: not as a --pid, not as a process of an
 * --exe it runs.  The sandbox's parent runs this very binary and is
 * listed; this process, which runs it too, is not.
 */
static void self_never_listed(void)
{
	char self[PATH_MAX];
	const char *exes[] = { self };
	pid_t pids[] = { getpid() };
	struct discover *d;
	const struct discover_proc *p;

	ASSERT_TRUE(realpath("/proc/self/exe", self));
	d = discover_mode(pids, 1, exes, 1, NULL, 0);
	ASSERT_EQ(discover_update(d, vnow), 0);
	pass(d);
	EXPECT_FALSE(listed(d, getpid()));
	p = listed(d, getppid());
	ASSERT_TRUE(p);
	EXPECT_EQ(p->source, DISCOVER_EXE);
	discover_free(d);
}

TEST(self_never_listed)
{
	sandbox_run(self_never_listed, false);
}

/*
 * --pid: the process that had the pid at the start, until it exits; a
 * pid free at the start names nothing.  Neither is found again when the
 * pid is given to a new process.
 */
static void pid_targets(void)
{
	pid_t t = spawn("/bin/sleep"), unused = spawn("/bin/sleep"), again;
	pid_t pids[3];
	const struct discover_proc *p;
	struct discover *d;
	uint64_t st;

	ASSERT_EQ(proc_start_time(t, &st), 0);
	reap(unused);
	pids[0] = unused;
	pids[1] = t;
	pids[2] = getpid();
	d = discover_mode(pids, 3, NULL, 0, NULL, 0);
	ASSERT_EQ(discover_update(d, vnow), 0);
	p = listed(d, t);
	ASSERT_TRUE(p);
	EXPECT_EQ(p->source, DISCOVER_PID);
	EXPECT_EQ(p->index, 1);
	EXPECT_FALSE(listed(d, unused));
	EXPECT_FALSE(listed(d, getpid()));

	again = fork_at_pid(unused, 0, NULL, NULL);
	if (again > 0) {
		pass(d);
		pass(d);
		EXPECT_FALSE(listed(d, unused));
		reap(again);
	} else {
		TH_LOG("cannot choose a pid here: reuse of a free pid "
		       "not tried");
	}

	reap(t);
	ASSERT_TRUE(wait_listed(d, t, false, scan_only));
	again = fork_at_pid(t, st, NULL, NULL);
	if (again > 0) {
		pass(d);
		pass(d);
		EXPECT_FALSE(listed(d, t));
	} else {
		TH_LOG("cannot choose a pid here: reuse of the target's pid "
		       "not tried");
	}
	discover_free(d);
}

TEST(pid_targets_by_events)
{
	sandbox_run(pid_targets, false);
}

TEST(pid_targets_by_scans)
{
	scan_only = true;
	sandbox_run(pid_targets, false);
}

/*
 * A reload (ispotd's SIGHUP) makes a new set of the same --pid: it names
 * the process the old set had, gone, not the one the pid went to since
 * (which discover_new() alone would take).
 */
static void pid_after_reload(void)
{
	pid_t t = spawn("/bin/sleep"), again;
	struct discover *d, *fresh;
	uint64_t st;

	ASSERT_EQ(proc_start_time(t, &st), 0);
	d = discover_mode(&t, 1, NULL, 0, NULL, 0);
	ASSERT_EQ(discover_update(d, vnow), 0);
	ASSERT_TRUE(listed(d, t));
	reap(t);
	ASSERT_TRUE(wait_listed(d, t, false, scan_only));
	again = fork_at_pid(t, st, NULL, NULL);
	if (again < 0)
		SKIP("cannot give pid %d to a new process: %s", (int)t,
		     strerror(-again));
	fresh = discover_mode(&t, 1, NULL, 0, NULL, 0);
	discover_keep_pids(fresh, d);
	discover_free(d);
	pass(fresh);
	pass(fresh);
	EXPECT_FALSE(listed(fresh, t));
	reap(again);
	discover_free(fresh);
}

TEST(a_reload_keeps_a_pid_to_its_process)
{
	sandbox_run(pid_after_reload, false);
}

/*
 * A grandchild born inside the cgroup @rel: a child joins it, then
 * forks, and dies.  Nothing of it is ever moved, so only the FORK event
 * or a scan can find it.
 */
static pid_t fork_inside(const char *rel)
{
	int p[2];
	pid_t child, kid = -1;

	ASSERT_EQ(pipe(p), 0);
	fflush(stdout);
	child = fork();
	if (child == 0) {
		if (cg_move(rel, 0))
			_exit(1);
		kid = fork();
		if (kid == 0) {
			alarm(60);
			pause();
			_exit(0);
		}
		_exit(write(p[1], &kid, sizeof(kid)) != sizeof(kid));
	}
	close(p[1]);
	EXPECT_EQ(read(p[0], &kid, sizeof(kid)), sizeof(kid));
	close(p[0]);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	ASSERT_GT(kid, 0);
	return kid;
}

/*
 * --cgroup: a process moved in (no event: a scan finds it), one born
 * inside (the FORK event), one in a cgroup two levels down, one in a
 * sibling whose name starts the same (never), and one moved out again.
 */
static void cgroup_members(void)
{
	char nested[PATH_MAX + 32], sibling[PATH_MAX + 8];
	const char *cgs[] = { "/ispot-no-such-cgroup", sb.cg };
	const struct discover_proc *p;
	pid_t moved, deep, outside, born, stray;
	struct discover *d;

	snprintf(nested, sizeof(nested), "%s/nested/deeper", sb.cg);
	snprintf(sibling, sizeof(sibling), "%sx", sb.cg);
	moved = spawn("/bin/sleep");
	outside = spawn("/bin/sleep");

	d = discover_mode(NULL, 0, NULL, 0, cgs, 2);
	ASSERT_EQ(discover_update(d, vnow), 0);
	EXPECT_FALSE(listed(d, moved));

	ASSERT_EQ(cg_move(sb.cg, moved), 0);
	ASSERT_TRUE(wait_listed(d, moved, true, true));
	p = listed(d, moved);
	EXPECT_EQ(p->source, DISCOVER_CGROUP);
	EXPECT_EQ(p->index, 1);

	deep = spawn("/bin/sleep");
	ASSERT_EQ(cg_move(nested, deep), 0);
	ASSERT_TRUE(wait_listed(d, deep, true, true));
	EXPECT_EQ(listed(d, deep)->index, 1);

	/* Born inside, found with the clock still when events are on. */
	born = fork_inside(sb.cg);
	ASSERT_TRUE(wait_listed(d, born, true, scan_only));
	EXPECT_EQ(listed(d, born)->index, 1);
	/* Its FORK event is queued by now: one update reads it. */
	stray = fork_inside(sibling);
	ASSERT_EQ(discover_update(d, vnow), 0);
	EXPECT_FALSE(listed(d, stray));

	/* Moved out: the next pass drops it.  Killed: the EXIT event. */
	ASSERT_EQ(cg_move("", moved), 0);
	ASSERT_TRUE(wait_listed(d, moved, false, true));
	reap(deep);
	ASSERT_TRUE(wait_listed(d, deep, false, scan_only));

	pass(d);
	EXPECT_TRUE(listed(d, born));
	EXPECT_FALSE(listed(d, stray));
	EXPECT_FALSE(listed(d, outside));
	EXPECT_FALSE(listed(d, getpid()));
	expect_sorted(d);
	discover_free(d);
}

TEST(cgroup_members_by_events)
{
	sandbox_run(cgroup_members, true);
}

TEST(cgroup_members_by_scans)
{
	scan_only = true;
	sandbox_run(cgroup_members, true);
}

/*
 * The whole hierarchy ("/"): every process, but never a kernel thread,
 * which has no executable, though the root's cgroup.procs lists them.
 */
static void cgroup_root_no_kthreads(void)
{
	const char *cgs[] = { "/" };
	char comm[32];
	struct discover *d;

	task_comm(2, comm, sizeof(comm));
	if (strcmp(comm, "kthreadd"))
		SKIP("pid 2 is not kthreadd here");
	d = discover_mode(NULL, 0, NULL, 0, cgs, 1);
	ASSERT_EQ(discover_update(d, vnow), 0);
	EXPECT_TRUE(listed(d, getppid()));
	EXPECT_FALSE(listed(d, 2));
	EXPECT_FALSE(listed(d, getpid()));
	discover_free(d);
}

TEST(cgroup_root_has_no_kernel_threads)
{
	char mnt[PATH_MAX];

	if (!cgroup2_root(mnt, sizeof(mnt)))
		SKIP("no cgroup2 mount");
	scan_only = true;
	sandbox_run(cgroup_root_no_kthreads, false);
}

/* --cgroup without a cgroup2 mount: refused, in one line that says so. */
static void cgroup_no_mount(void)
{
	const char *cgs[] = { "/x" };
	char mnt[PATH_MAX], err[256] = "";
	struct discover *d;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		SKIP("cannot make a mount namespace (%s)", strerror(errno));
	while (cgroup2_mount_of(mnt, sizeof(mnt), true))
		ASSERT_EQ(umount2(mnt, MNT_DETACH), 0);
	d = discover_new(NULL, 0, NULL, 0, cgs, 1, err, sizeof(err));
	EXPECT_FALSE(d);
	EXPECT_TRUE(strstr(err, "cgroup2"));
	EXPECT_FALSE(strchr(err, '\n'));
	discover_free(d);
	/* Without --cgroup the mount is not needed. */
	d = discover_new(NULL, 0, NULL, 0, NULL, 0, err, sizeof(err));
	EXPECT_TRUE(d);
	discover_free(d);
}

TEST(cgroup_needs_cgroup2)
{
	sandbox_run(cgroup_no_mount, false);
}

/*
 * Events lost to an overflowing socket: the next update scans, and finds
 * a process whose own events were among those lost.
 */
static void overflow_rescans(void)
{
	const char *exes[] = { sb.sleep };
	struct discover *d;
	int tiny = 1, i;
	pid_t late;

	d = discover_mode(NULL, 0, exes, 1, NULL, 0);
	ASSERT_EQ(discover_update(d, vnow), 0);
	ASSERT_EQ(setsockopt(discover_fd(d), SOL_SOCKET, SO_RCVBUF, &tiny,
			     sizeof(tiny)), 0);
	for (i = 0; i < 30; i++) {
		pid_t t = spawn("/bin/true");

		ASSERT_GT(t, 0);
		while (waitpid(t, NULL, 0) < 0 && errno == EINTR)
			;
	}
	late = spawn(sb.sleep);
	ASSERT_TRUE(wait_exec(late, sb.sleep));
	/* One update, the clock still: only the rescan can find it. */
	ASSERT_EQ(discover_update(d, vnow), 0);
	EXPECT_TRUE(listed(d, late));
	discover_free(d);
}

TEST(overflow_rescans)
{
	sandbox_run(overflow_rescans, false);
}

/* With the connector on, in the initial namespaces as root, it is used. */
TEST(netlink_used_when_allowed)
{
	const char *exes[] = { "/bin/sleep" };
	char err[256];
	struct discover *d;

	if (!netlink_expected())
		SKIP("not root with CAP_NET_ADMIN in the initial namespaces");
	unsetenv("ISPOT_DISCOVER_NO_NETLINK");
	d = discover_new(NULL, 0, exes, 1, NULL, 0, err, sizeof(err));
	ASSERT_TRUE(d);
	EXPECT_TRUE(discover_netlink(d));
	EXPECT_GE(discover_fd(d), 0);
	discover_free(d);
	setenv("ISPOT_DISCOVER_NO_NETLINK", "1", 1);
	d = discover_new(NULL, 0, exes, 1, NULL, 0, err, sizeof(err));
	ASSERT_TRUE(d);
	EXPECT_FALSE(discover_netlink(d));
	EXPECT_EQ(discover_fd(d), -1);
	discover_free(d);
}

/*
 * In another pid namespace (a container), the kernel ignores the
 * subscription without a word, and no event would ever come: discovery
 * must see that no acknowledgement came, and scan instead.
 */
static void netlink_in_pid_ns(void)
{
	int status;
	pid_t child;

	if (!netlink_expected())
		SKIP("not root with CAP_NET_ADMIN in the initial namespaces");
	if (unshare(CLONE_NEWPID))
		SKIP("cannot make a pid namespace (%s)", strerror(errno));
	fflush(stdout);
	child = fork();
	if (child == 0) {
		const char *exes[] = { "/bin/sleep" };
		struct discover *d;
		char err[256];

		unsetenv("ISPOT_DISCOVER_NO_NETLINK");
		d = discover_new(NULL, 0, exes, 1, NULL, 0, err, sizeof(err));
		_exit(!d ? 2 : discover_netlink(d) ? 3 : 0);
	}
	ASSERT_GT(child, 0);
	ASSERT_EQ(waitpid(child, &status, 0), child);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(netlink_refused_in_pid_namespace)
{
	sandbox_run(netlink_in_pid_ns, false);
}

/* ---- /proc/PID/stat: what the budget reads ---------------------------- */

static void cpu_of_busy_child(void)
{
	uint64_t st, first, ns;
	uint64_t end = mono_ns() + WAIT_NS;
	pid_t busy;

	fflush(stdout);
	busy = fork();
	if (busy == 0) {
		alarm(30);
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	ASSERT_EQ(proc_start_time(busy, &st), 0);
	ASSERT_EQ(proc_cpu_ns(busy, st, &first), 0);
	do {
		usleep(10000);
		ASSERT_EQ(proc_cpu_ns(busy, st, &ns), 0);
	} while (ns < first + 30000000 && mono_ns() < end);
	EXPECT_GE(ns, first + 30000000);
	/* Another process's start time: not this one. */
	EXPECT_EQ(proc_cpu_ns(busy, st + 1, &ns), -ESRCH);
	reap(busy);
	EXPECT_EQ(proc_cpu_ns(busy, st, &ns), -ESRCH);
	EXPECT_EQ(proc_start_time(busy, &st), -ESRCH);
}

TEST(proc_cpu_ns_grows_then_esrch)
{
	sandbox_run(cpu_of_busy_child, false);
}

static void *spin_100ms(void *arg)
{
	struct timespec ts;

	(void)arg;
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	while (ts.tv_sec == 0 && ts.tv_nsec < 100000000);
	return NULL;
}

/* A thread that burnt CPU and exited still counts for its process. */
static void cpu_of_exited_thread(void)
{
	int done[2];
	uint64_t st, ns;
	pid_t pid;
	char c;

	ASSERT_EQ(pipe(done), 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		alarm(30);
		if (pthread_create(&t, NULL, spin_100ms, NULL) ||
		    pthread_join(t, NULL) || write(done[1], "d", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(read(done[0], &c, 1), 1);
	ASSERT_EQ(proc_start_time(pid, &st), 0);
	ASSERT_EQ(proc_cpu_ns(pid, st, &ns), 0);
	EXPECT_GE(ns, 50000000);
}

TEST(proc_cpu_ns_counts_exited_threads)
{
	sandbox_run(cpu_of_exited_thread, false);
}

/* A command name with spaces and parentheses does not shift the fields. */
TEST(proc_stat_odd_comm)
{
	uint64_t before, after, ns;

	ASSERT_EQ(proc_start_time(getpid(), &before), 0);
	ASSERT_EQ(prctl(PR_SET_NAME, "a) 1 2 (b) ", 0, 0, 0), 0);
	ASSERT_EQ(proc_start_time(getpid(), &after), 0);
	EXPECT_EQ(after, before);
	EXPECT_EQ(proc_cpu_ns(getpid(), before, &ns), 0);
}

/*
 * A kernel thread has no user code to probe: told by its stat's flags
 * (PF_KTHREAD), not by its name; this process, whatever its name, is
 * none, and a pid that is no process is none either.
 */
TEST(kernel_threads_are_told)
{
	char comm[32], was[32];
	const pid_t kthreadd = 2;
	struct discover *d;

	task_comm(getpid(), was, sizeof(was));
	ASSERT_EQ(prctl(PR_SET_NAME, "kthreadd", 0, 0, 0), 0);
	EXPECT_FALSE(task_is_kthread(getpid()));
	ASSERT_EQ(prctl(PR_SET_NAME, was, 0, 0, 0), 0);
	EXPECT_FALSE(task_is_kthread(4194305));
	task_comm(kthreadd, comm, sizeof(comm));
	if (strcmp(comm, "kthreadd"))
		SKIP("pid 2 is not kthreadd here (a pid namespace)");
	EXPECT_TRUE(task_is_kthread(kthreadd));
	/* Given as a --pid, it is never a target. */
	scan_only = true;
	d = discover_mode(&kthreadd, 1, NULL, 0, NULL, 0);
	ASSERT_EQ(discover_update(d, vnow), 0);
	EXPECT_FALSE(listed(d, kthreadd));
	discover_free(d);
	scan_only = false;
}

/*
 * As a target, this binary forks once it reads a byte on stdin; both
 * then wait to be killed.
 */
static int helper_main(const char *mode)
{
	char c;

	if (strcmp(mode, "--fork-on-input"))
		return 127;
	alarm(60);
	if (read(0, &c, 1) == 1 && fork() == 0)
		alarm(60);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return helper_main(argv[1]);
	return ispot_test_main();
}
