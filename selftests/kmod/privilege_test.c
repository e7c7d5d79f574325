// SPDX-License-Identifier: GPL-2.0
/*
 * Who may trace whom, with real unprivileged users: the test runs as root
 * in the guest and drops to other uids in forked children (setgroups,
 * setresgid, setresuid), keeping exactly CAP_PERFMON where a tracer needs
 * it (capset(2), raw syscall).
 *
 *   - no capability: open() of /dev/ispot is EPERM;
 *   - CAP_PERFMON only: SETUP on another uid's process is EPERM, on one's
 *     own uid's dumpable process it succeeds and records;
 *   - a target that execs a set-user-ID program stops being traced there,
 *     and STATS says so (DEAD, ISPOT_STOP_SECURE_EXEC, ABI 1.4);
 *   - a pid reused by another user's process is never traced;
 *   - a target whose group leader has exited (mm NULL) still gets the
 *     dumpable check;
 *   - a tracer that mounts its own /proc/self/mem over the target's mem
 *     entry (in a user namespace of its own) does not get the check run on
 *     itself;
 *   - a set-user-ID helper that makes itself root and execs again (an image
 *     that is dumpable, but runs as root) is not traced either;
 *   - a set-user-ID program is checked by its real ids as well as its
 *     file-system ids: no deputy for a caller who could not trace.
 */
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "ispot_kmod_test.h"
#include "pid_reuse.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif

#define UID_A		1000	/* the tracer's user, and its targets' */
#define UID_B		1001	/* another user */
/*
 * The set-user-ID-root copy (root_copy) lets whoever runs it exec any
 * file as root (--root-exec): it lives in a directory that only root and
 * UID_A's group may enter.  The set-ID-UID_B one (b_copy) gives only that
 * user's ids.
 */
#define SUID_DIR	"/tmp/ispot_privilege"
#define SUID_COPY	SUID_DIR "/suid"
#define SUID_B_DIR	"/tmp/ispot_privilege_b"
#define SUID_B_COPY	SUID_B_DIR "/suid"

static volatile int sink;

__attribute__((noinline, noclone)) int priv_fn(int x)
{
	sink += x;
	return x + 1;
}

static void call_n(int n)
{
	int i;

	for (i = 0; i < n; i++)
		priv_fn(i);
}

/* The probed function's file and offset, found once by root. */
static char fn_path[4096];
static uint64_t fn_off;

static void find_fn(void)
{
	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)priv_fn, fn_path,
				     sizeof(fn_path), &fn_off), 0);
}

static void require_root(void)
{
	ispot_require_module();
	if (geteuid() != 0)
		SKIP("needs root to create other users' processes");
}

static int capset_raw(uint64_t caps)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	d[0].effective = d[0].permitted = (uint32_t)caps;
	d[1].effective = d[1].permitted = (uint32_t)(caps >> 32);
	return syscall(SYS_capset, &h, d);
}

static uint64_t capget_effective(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return ~0ull;
	return d[0].effective | (uint64_t)d[1].effective << 32;
}

/*
 * Become @uid/@gid with no supplementary groups and exactly @caps in the
 * effective and permitted sets.  Changing uid leaves the process not
 * dumpable (suid_dumpable is 0); callers that must be traceable set it.
 */
static void become(uid_t uid, gid_t gid, uint64_t caps)
{
	if (caps)
		ASSERT_EQ(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0), 0);
	ASSERT_EQ(setgroups(0, NULL), 0);
	ASSERT_EQ(setresgid(gid, gid, gid), 0);
	ASSERT_EQ(setresuid(uid, uid, uid), 0);
	ASSERT_EQ(capset_raw(caps), 0);
	if (caps)
		ASSERT_EQ(prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0), 0);
	ASSERT_EQ(capget_effective(), caps);
	ASSERT_EQ(getuid(), uid);
	ASSERT_EQ(getegid(), gid);
}

#define PERFMON_ONLY	(1ull << CAP_PERFMON)

/*
 * Run @fn as @uid with @caps in a child; its checks count as ours, but
 * failures are not fatal here, so that the caller still cleans up.
 */
static void run_as(uid_t uid, uint64_t caps, void (*fn)(void *), void *arg)
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		/* Its own verdict, not an earlier failure of the caller's. */
		ispot_test_failed = 0;
		become(uid, uid, caps);
		fn(arg);
		fflush(stdout);
		_exit(ispot_test_failed ? KSFT_FAIL : KSFT_PASS);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		TH_LOG("child as uid %d killed by signal %d", (int)uid,
		       WTERMSIG(st));
	EXPECT_TRUE(WIFEXITED(st));
	if (WIFEXITED(st))
		EXPECT_EQ(WEXITSTATUS(st), KSFT_PASS);
}

/*
 * A target process: becomes @uid, sets its dumpable flag, says it is
 * ready, then on "go" calls priv_fn @calls times and says "done"; then
 * execs @exec_path (if set) or waits to be killed.
 */
struct target {
	pid_t pid;
	int go;		/* write: start */
	int done;	/* read: a byte after the calls (and another after
			 * the exec'd program's calls) */
	int done_w;	/* the target's end, for exec'd programs */
};

struct target_plan {
	uid_t uid;
	int dumpable;
	int calls;
	const char *exec_path;	/* then: exec_path --call-wait N done_w */
	const char *root_exec;	/* or: exec_path --root-exec root_exec N
				 * done_w, which becomes root and execs
				 * root_exec --call-wait N done_w */
	int exec_calls;
};

static void target_start(struct target *t, const struct target_plan *p)
{
	int go[2], done[2], ready[2];
	char b;

	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(done), 0);
	ASSERT_EQ(pipe(ready), 0);
	fflush(stdout);
	t->pid = fork();
	ASSERT_GE(t->pid, 0);
	if (t->pid == 0) {
		char n[16], fd[16];

		close(go[1]);
		close(done[0]);
		close(ready[0]);
		become(p->uid, p->uid, 0);
		ASSERT_EQ(prctl(PR_SET_DUMPABLE, p->dumpable, 0, 0, 0), 0);
		if (write(ready[1], "r", 1) != 1)
			_exit(90);
		if (read(go[0], &b, 1) != 1)
			_exit(91);
		call_n(p->calls);
		if (write(done[1], "d", 1) != 1)
			_exit(92);
		if (p->exec_path) {
			snprintf(n, sizeof(n), "%d", p->exec_calls);
			snprintf(fd, sizeof(fd), "%d", done[1]);
			if (p->root_exec)
				execl(p->exec_path, "privilege_test",
				      "--root-exec", p->root_exec, n, fd,
				      (char *)NULL);
			else
				execl(p->exec_path, "privilege_test",
				      "--call-wait", n, fd, (char *)NULL);
			_exit(93);
		}
		for (;;)
			pause();
	}
	close(go[0]);
	close(ready[1]);
	t->go = go[1];
	t->done = done[0];
	t->done_w = done[1];
	ASSERT_EQ(read(ready[0], &b, 1), 1);
	close(ready[0]);
}

static void target_go(struct target *t)
{
	ASSERT_EQ(write(t->go, "g", 1), 1);
}

/* Wait for the target's next "done" byte, at most @ms. */
static int target_wait_done(struct target *t, int ms)
{
	struct pollfd pfd = { .fd = t->done, .events = POLLIN };
	char b;

	if (poll(&pfd, 1, ms) != 1)
		return -1;
	return read(t->done, &b, 1) == 1 ? 0 : -1;
}

static void target_kill(struct target *t)
{
	int st;

	kill(t->pid, SIGKILL);
	waitpid(t->pid, &st, 0);
	close(t->go);
	close(t->done);
	close(t->done_w);
}

static int session_stats(int fd, struct ispot_probe_stats *ps, uint32_t np,
			 struct ispot_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->probes = (uintptr_t)ps;
	st->nr_probes = np;
	return ispot_ioctl(fd, ISPOT_IOC_STATS, st);
}

/* Count ENTRY records per probe id (1-based, up to 3); all tgids checked. */
static size_t drain_entries(int fd, const struct ispot_setup *s,
			    size_t entries[4], pid_t tgid)
{
	struct ispot_record *recs = NULL;
	struct ispot_rings r;
	size_t cap = 0, n, i, total = 0;

	memset(entries, 0, 4 * sizeof(*entries));
	if (ispot_map_rings(fd, s, &r))
		return (size_t)-1;
	n = ispot_drain(fd, &r, &recs, &cap, 0);
	for (i = 0; i < n; i += recs[i].nslots) {
		total++;
		if (recs[i].tgid != (uint32_t)tgid)
			TH_LOG("record of tgid %u, not %d", recs[i].tgid,
			       (int)tgid);
		if (recs[i].kind == ISPOT_REC_ENTRY && recs[i].probe_id < 4)
			entries[recs[i].probe_id]++;
	}
	free(recs);
	for (i = 0; i < (size_t)r.nr; i++)
		munmap(r.maps[i], r.size);
	free(r.maps);
	return total;
}

/* ---- 1. no capability: no open -------------------------------------- */

static void open_expect_eperm(void *arg)
{
	int fd = ispot_open();

	(void)arg;
	EXPECT_EQ(fd, -1);
	EXPECT_EQ(errno, EPERM);
	if (fd >= 0)
		close(fd);
}

TEST(unprivileged_open_is_eperm)
{
	require_root();
	run_as(65534, 0, open_expect_eperm, NULL);
	run_as(UID_A, 0, open_expect_eperm, NULL);
}

/* ---- 2. CAP_PERFMON only ---------------------------------------------- */

static void setup_expect(pid_t pid, int want)
{
	int fd = ispot_open();

	ASSERT_GE(fd, 0);	/* CAP_PERFMON opens the device */
	EXPECT_EQ(ispot_setup(fd, pid, 1, NULL), want);
	close(fd);
}

static void setup_expect_eperm(void *arg)
{
	setup_expect((pid_t)(long)arg, -EPERM);
}

TEST(perfmon_only_other_uid_is_eperm)
{
	const struct target_plan other = { .uid = UID_B, .dumpable = 1 };
	const struct target_plan rootp = { .uid = 0, .dumpable = 1 };
	struct target t, r;

	require_root();
	target_start(&t, &other);
	target_start(&r, &rootp);
	run_as(UID_A, PERFMON_ONLY, setup_expect_eperm, (void *)(long)t.pid);
	run_as(UID_A, PERFMON_ONLY, setup_expect_eperm, (void *)(long)r.pid);
	target_kill(&t);
	target_kill(&r);
}

TEST(perfmon_only_own_uid_not_dumpable_is_eperm)
{
	const struct target_plan p = { .uid = UID_A, .dumpable = 0 };
	struct target t;

	require_root();
	target_start(&t, &p);
	run_as(UID_A, PERFMON_ONLY, setup_expect_eperm, (void *)(long)t.pid);
	target_kill(&t);
}

/* The tracer half: SETUP, probe, ENABLE, let the target call, count. */
struct traced {
	struct target *t;
	int calls;
	int want_entry_hits;
};

static void trace_own_target(void *arg)
{
	struct traced *tr = arg;
	struct ispot_probe_stats ps;
	struct ispot_stats st;
	struct ispot_setup s;
	size_t e[4];
	int fd = ispot_open();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ispot_setup(fd, tr->t->pid, 16, &s), 0);
	ASSERT_EQ(ispot_add_probe(fd, fn_path, fn_off, ISPOT_PROBE_BOTH, 0),
		  1);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	target_go(tr->t);
	ASSERT_EQ(target_wait_done(tr->t, 60000), 0);
	ASSERT_EQ(session_stats(fd, &ps, 1, &st), 0);
	EXPECT_EQ(st.state, ISPOT_STATE_ENABLED);
	EXPECT_EQ(ps.entry_hits, tr->want_entry_hits);
	EXPECT_EQ(drain_entries(fd, &s, e, tr->t->pid),
		  2 * tr->want_entry_hits + (tr->want_entry_hits > 0));
	EXPECT_EQ(e[1], tr->want_entry_hits);
	close(fd);
}

TEST(perfmon_only_own_uid_dumpable_is_traced)
{
	const struct target_plan p = { .uid = UID_A, .dumpable = 1,
					.calls = 50 };
	struct target t;
	struct traced tr = { &t, 50, 50 };

	require_root();
	find_fn();
	target_start(&t, &p);
	run_as(UID_A, PERFMON_ONLY, trace_own_target, &tr);
	target_kill(&t);
}

/* ---- 3. a set-user-ID exec ends the tracing --------------------------- */

/*
 * A set-ID copy of this binary (the probed function at the same offset in
 * another file), in a directory of its own made afresh.
 */
struct setid_copy {
	const char *dir, *path;
	int dir_mode;		/* the directory's, */
	gid_t dir_gid;		/* and its group (owner root) */
	uid_t uid;		/* the copy's owner */
	gid_t gid;
	int mode;		/* with its set-ID bits */
	gid_t egid;		/* UID_A runs it as uid:egid */
};

static const struct setid_copy root_copy = {
	.dir = SUID_DIR, .path = SUID_COPY, .dir_mode = 0710,
	.dir_gid = UID_A, .uid = 0, .gid = 0, .mode = 04755, .egid = UID_A,
};

/* Its group too: ptrace compares the groups as well. */
static const struct setid_copy b_copy = {
	.dir = SUID_B_DIR, .path = SUID_B_COPY, .dir_mode = 0711,
	.dir_gid = 0, .uid = UID_B, .gid = UID_B, .mode = 06755,
	.egid = UID_B,
};

static void setid_copy_remove(const struct setid_copy *c)
{
	unlink(c->path);
	rmdir(c->dir);
}

/* Make @c, and see UID_A run it with its ids; skips if the bits are ignored. */
static void setid_copy_make(const struct setid_copy *c)
{
	char cmd[8192], euid[16], egid[16];
	pid_t pid;
	int st;

	snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -m %o %s && "
		 "chown 0:%d %s && cp '%s' %s && chown %d:%d %s && "
		 "chmod %o %s", c->dir, c->dir_mode, c->dir, (int)c->dir_gid,
		 c->dir, fn_path, c->path, (int)c->uid, (int)c->gid, c->path,
		 c->mode, c->path);
	ASSERT_EQ(system(cmd), 0);
	snprintf(euid, sizeof(euid), "%d", (int)c->uid);
	snprintf(egid, sizeof(egid), "%d", (int)c->egid);
	fflush(stdout);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		become(UID_A, UID_A, 0);
		execl(c->path, "privilege_test", "--ids-are", euid, egid,
		      (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_TRUE(WIFEXITED(st));
	if (WEXITSTATUS(st) == 3) {
		setid_copy_remove(c);
		SKIP("%s does not run set-ID here (nosuid?)", c->path);
	}
	ASSERT_EQ(WEXITSTATUS(st), 0);
}

#define PRE_EXEC_CALLS	20
#define POST_EXEC_CALLS	30

static void trace_across_suid_exec(void *arg)
{
	struct target *t = arg;
	struct ispot_probe_stats ps[2];
	struct ispot_stats st;
	struct ispot_setup s;
	size_t e[4], n;
	int fd = ispot_open();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ispot_setup(fd, t->pid, 16, &s), 0);
	/* The function in the image before the exec, and in the one after. */
	ASSERT_EQ(ispot_add_probe(fd, fn_path, fn_off, ISPOT_PROBE_BOTH, 0),
		  1);
	ASSERT_EQ(ispot_add_probe(fd, SUID_COPY, fn_off, ISPOT_PROBE_BOTH, 0),
		  2);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	target_go(t);
	ASSERT_EQ(target_wait_done(t, 60000), 0);	/* before the exec */
	ASSERT_EQ(session_stats(fd, ps, 2, &st), 0);
	/*
	 * Records flow before the exec: the test proves something.  (The
	 * target execs as soon as it is done, so the state may already be
	 * DEAD here.)
	 */
	EXPECT_EQ(ps[0].entry_hits, PRE_EXEC_CALLS);
	/* The set-user-ID program has made its calls and waits. */
	ASSERT_EQ(target_wait_done(t, 60000), 0);
	ASSERT_EQ(session_stats(fd, ps, 2, &st), 0);
	TH_LOG("after the exec: state %u stop_reason %u, hits %llu + %llu",
	       st.state, st.stop_reason,
	       (unsigned long long)ps[0].entry_hits,
	       (unsigned long long)ps[1].entry_hits);
	EXPECT_EQ(ps[0].entry_hits, PRE_EXEC_CALLS);
	EXPECT_EQ(ps[1].entry_hits, 0);
	EXPECT_EQ(ps[1].return_hits, 0);
	EXPECT_EQ(st.state, ISPOT_STATE_DEAD);
	EXPECT_EQ(st.stop_reason, ISPOT_STOP_SECURE_EXEC);
	n = drain_entries(fd, &s, e, t->pid);
	EXPECT_EQ(e[1], PRE_EXEC_CALLS);
	EXPECT_EQ(e[2], 0);
	/* Entries, exits and the first call stack: nothing else. */
	EXPECT_EQ(n, 2 * PRE_EXEC_CALLS + 1);
	close(fd);
}

static void suid_exec_case(int perfmon_tracer)
{
	const struct target_plan p = {
		.uid = UID_A, .dumpable = 1, .calls = PRE_EXEC_CALLS,
		.exec_path = SUID_COPY, .exec_calls = POST_EXEC_CALLS,
	};
	struct target t;

	require_root();
	find_fn();
	setid_copy_make(&root_copy);
	target_start(&t, &p);
	if (perfmon_tracer) {
		run_as(UID_A, PERFMON_ONLY, trace_across_suid_exec, &t);
	} else {
		trace_across_suid_exec(&t);
	}
	target_kill(&t);
	setid_copy_remove(&root_copy);
}

TEST(suid_exec_stops_tracing_perfmon_tracer)
{
	suid_exec_case(1);
}

TEST(suid_exec_stops_tracing_root_tracer)
{
	suid_exec_case(0);
}

/* ---- 4. a reused pid is not the target ---------------------------------- */

#define REUSE_CALLS	40

/* A process of UID_B given the pid that a target of UID_A had. */
struct pid_reuser {
	pid_t pid;	/* the pid wanted: another child only exits */
	int *done;	/* the pipe it says on that its calls are made */
};

/* In fork_at_pid()'s child: as UID_B, the same binary and function. */
static void reuse_as_uid_b(void *arg)
{
	const struct pid_reuser *r = arg;
	char n[16], fdn[16];

	/* A child at another pid must not say done for the one wanted. */
	if (getpid() != r->pid)
		_exit(0);
	close(r->done[0]);
	become(UID_B, UID_B, 0);
	snprintf(n, sizeof(n), "%d", REUSE_CALLS);
	snprintf(fdn, sizeof(fdn), "%d", r->done[1]);
	execl(fn_path, "privilege_test", "--call-wait", n, fdn, (char *)NULL);
	_exit(127);
}

TEST(reused_pid_of_other_user_never_traced)
{
	const struct target_plan p = { .uid = UID_A, .dumpable = 1 };
	struct ispot_probe_stats ps;
	struct ispot_stats st;
	struct ispot_setup s;
	struct target t;
	struct pid_reuser reuser;
	int fd, done[2], status;
	pid_t P, q;
	size_t e[4], n;
	char b;

	require_root();
	find_fn();
	fd = ispot_open();
	ASSERT_GE(fd, 0);
	target_start(&t, &p);
	P = t.pid;
	ASSERT_EQ(ispot_setup(fd, P, 16, &s), 0);
	ASSERT_EQ(ispot_add_probe(fd, fn_path, fn_off, ISPOT_PROBE_BOTH, 0),
		  1);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	/* The target makes no call and dies; its pid is freed. */
	target_go(&t);
	ASSERT_EQ(target_wait_done(&t, 60000), 0);
	ASSERT_EQ(kill(P, SIGKILL), 0);
	ASSERT_EQ(waitpid(P, &status, 0), P);

	ASSERT_EQ(pipe(done), 0);
	reuser = (struct pid_reuser){ .pid = P, .done = done };
	/* Forcing a pid needs CONFIG_CHECKPOINT_RESTORE (Debian has it). */
	q = fork_at_pid(P, 0, reuse_as_uid_b, &reuser);
	if (q < 0)
		SKIP("cannot give pid %d to a new process here: %s", (int)P,
		     strerror(-q));
	ASSERT_EQ(q, P);
	close(done[1]);
	{
		struct pollfd pfd = { .fd = done[0], .events = POLLIN };

		ASSERT_EQ(poll(&pfd, 1, 60000), 1);
		ASSERT_EQ(read(done[0], &b, 1), 1);
	}
	ASSERT_EQ(session_stats(fd, &ps, 1, &st), 0);
	TH_LOG("pid %d reused by uid %d: state %u stop_reason %u entry_hits %llu filtered %llu",
	       (int)P, UID_B, st.state, st.stop_reason,
	       (unsigned long long)ps.entry_hits,
	       (unsigned long long)ps.filtered);
	EXPECT_EQ(ps.entry_hits, 0);
	EXPECT_EQ(ps.return_hits, 0);
	EXPECT_EQ(st.state, ISPOT_STATE_DEAD);
	EXPECT_EQ(st.stop_reason, ISPOT_STOP_EXITED);
	n = drain_entries(fd, &s, e, P);
	EXPECT_EQ(n, 0);
	kill(P, SIGKILL);
	waitpid(P, &status, 0);
	close(fd);
}

/* ---- 5. the dumpable check when the group leader has exited ------------ */

struct leaderless {
	int go;		/* read end: the worker calls on a byte */
	int done;	/* write end: a byte after the calls */
	int calls;
};

static void *leaderless_worker(void *arg)
{
	struct leaderless *l = arg;
	char b;

	for (;;) {
		if (read(l->go, &b, 1) != 1)
			_exit(0);
		call_n(l->calls);
		if (write(l->done, "d", 1) != 1)
			_exit(1);
	}
	return NULL;
}

/* A process of @uid whose leader has exited; one thread waits for "go". */
static void leaderless_start(struct target *t, uid_t uid, int dumpable,
			     int calls)
{
	int go[2], done[2];
	char path[64], line[256];
	int i;

	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(done), 0);
	fflush(stdout);
	t->pid = fork();
	ASSERT_GE(t->pid, 0);
	if (t->pid == 0) {
		static struct leaderless l;
		pthread_t th;

		close(go[1]);
		close(done[0]);
		become(uid, uid, 0);
		ASSERT_EQ(prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0), 0);
		l.go = go[0];
		l.done = done[1];
		l.calls = calls;
		ASSERT_EQ(pthread_create(&th, NULL, leaderless_worker, &l), 0);
		/*
		 * End the leader thread only (exit(2), not exit_group(2)):
		 * libc's pthread_exit() would need libgcc_s to unwind, which
		 * the guest lacks.
		 */
		for (;;)
			syscall(SYS_exit, 0);
	}
	close(go[0]);
	close(done[1]);
	t->go = go[1];
	t->done = done[0];
	t->done_w = -1;
	/* Wait until the leader is a zombie (its mm is gone). */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)t->pid,
		 (int)t->pid);
	for (i = 0; i < 1000; i++) {
		FILE *f = fopen(path, "r");
		char *p = NULL;

		if (f) {
			if (fgets(line, sizeof(line), f))
				p = strrchr(line, ')');
			fclose(f);
		}
		if (p && p[1] == ' ' && p[2] == 'Z')
			break;
		usleep(10000);
	}
	ASSERT_LT(i, 1000);
}

TEST(leader_exited_not_dumpable_is_eperm)
{
	struct target t;

	require_root();
	leaderless_start(&t, UID_A, 0, 0);
	run_as(UID_A, PERFMON_ONLY, setup_expect_eperm, (void *)(long)t.pid);
	target_kill(&t);
}

/*
 * The control: the same, dumpable.  It may be traced (as ptrace allows),
 * and its remaining thread's calls are recorded.
 */
TEST(leader_exited_dumpable_is_traced)
{
	struct target t;
	struct traced tr = { &t, 25, 25 };

	require_root();
	find_fn();
	leaderless_start(&t, UID_A, 1, 25);
	run_as(UID_A, PERFMON_ONLY, trace_own_target, &tr);
	target_kill(&t);
}

/* ---- 6. a mount over the target's mem entry ----------------------------- */

static int write_str(const char *path, const char *str)
{
	ssize_t len = strlen(str), n;
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		return -errno;
	n = write(fd, str, len);
	n = n == len ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	return n;
}

/*
 * Whether an unprivileged user may create a user namespace here: 0, or the
 * errno unshare() gives uid 65534 (Debian's unprivileged_userns_clone=0,
 * user.max_user_namespaces=0, no CONFIG_USER_NS).
 */
static int userns_errno(void)
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		become(65534, 65534, 0);
		_exit(unshare(CLONE_NEWUSER | CLONE_NEWNS) ? errno : 0);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	ASSERT_TRUE(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/*
 * A user and mount namespace of one's own, where one's uid and gid are 0
 * and have every capability, with mounts private to it.
 */
static void enter_own_userns(void)
{
	char map[32];

	ASSERT_EQ(unshare(CLONE_NEWUSER | CLONE_NEWNS), 0);
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)geteuid());
	ASSERT_EQ(write_str("/proc/self/uid_map", map), 0);
	ASSERT_EQ(write_str("/proc/self/setgroups", "deny"), 0);
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)getegid());
	ASSERT_EQ(write_str("/proc/self/gid_map", map), 0);
	ASSERT_EQ(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
}

struct redirect {
	pid_t victim;
	int fd[3];	/* opened by root: control, redirected, own */
};

static void setup_through_mounted_mem(void *arg)
{
	struct redirect *r = arg;
	char mem[64];
	int fd, err;

	/* Uid 65534 with no capability; its /proc/self must be its own. */
	ASSERT_EQ(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), 0);
	enter_own_userns();
	snprintf(mem, sizeof(mem), "/proc/%d/task/%d/mem", (int)r->victim,
		 (int)r->victim);
	/* The control: root's process is not ours to trace. */
	EXPECT_EQ(ispot_setup(r->fd[0], r->victim, 1, NULL), -EPERM);
	ASSERT_EQ(mount("/proc/self/mem", mem, NULL, MS_BIND, NULL), 0);
	/* The victim's entry now opens our own memory. */
	fd = open(mem, O_RDONLY);
	ASSERT_GE(fd, 0);
	close(fd);
	err = ispot_setup(r->fd[1], r->victim, 1, NULL);
	TH_LOG("SETUP on root's pid %d with %s mounted over: %d (%s)",
	       (int)r->victim, mem, err, err ? strerror(-err) : "success");
	EXPECT_TRUE(err == -EXDEV || err == -EPERM);
	/* Its own process, whose entry is not mounted over, it may trace. */
	EXPECT_EQ(ispot_setup(r->fd[2], getpid(), 1, NULL), 0);
	EXPECT_EQ(umount2(mem, MNT_DETACH), 0);
}

TEST(mount_over_proc_mem_does_not_redirect_the_check)
{
	const struct target_plan rootp = { .uid = 0, .dumpable = 1 };
	struct redirect r;
	struct target v;
	FILE *f;
	int i, err, on = 1;

	require_root();
	f = fopen("/proc/sys/kernel/unprivileged_userns_clone", "r");
	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 1;
		fclose(f);
	}
	if (!on)
		SKIP("unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)");
	err = userns_errno();
	if (err)
		SKIP("an unprivileged unshare(CLONE_NEWUSER) fails here: %s",
		     strerror(err));
	/* Capabilities are the opener's: root opens, uid 65534 holds. */
	for (i = 0; i < 3; i++) {
		r.fd[i] = ispot_open();
		ASSERT_GE(r.fd[i], 0);
	}
	target_start(&v, &rootp);
	r.victim = v.pid;
	run_as(65534, 0, setup_through_mounted_mem, &r);
	target_kill(&v);
	for (i = 0; i < 3; i++)
		close(r.fd[i]);
}

/* ---- 7. a set-user-ID helper that becomes root and execs again ---------- */

/* Whether every uid and gid of @pid is 0, from /proc/PID/status. */
static int ids_all_root(pid_t pid)
{
	char path[64], line[256];
	int uid = 0, gid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4))
			uid = !strcmp(line, "Uid:\t0\t0\t0\t0\n");
		if (!strncmp(line, "Gid:", 4))
			gid = !strcmp(line, "Gid:\t0\t0\t0\t0\n");
	}
	fclose(f);
	return uid && gid;
}

struct reexec {
	struct target *t;
	int probe_copy;		/* also probe the set-user-ID copy */
};

static void trace_across_root_reexec(void *arg)
{
	struct reexec *rx = arg;
	struct target *t = rx->t;
	uint32_t np = rx->probe_copy ? 2 : 1;
	struct ispot_probe_stats ps[2];
	struct ispot_stats st;
	struct ispot_setup s;
	size_t e[4], n;
	int fd = ispot_open();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ispot_setup(fd, t->pid, 16, &s), 0);
	/* The first and last images' function, and the helper's. */
	ASSERT_EQ(ispot_add_probe(fd, fn_path, fn_off, ISPOT_PROBE_BOTH, 0),
		  1);
	if (rx->probe_copy)
		ASSERT_EQ(ispot_add_probe(fd, SUID_COPY, fn_off,
					  ISPOT_PROBE_BOTH, 0), 2);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	target_go(t);
	ASSERT_EQ(target_wait_done(t, 60000), 0);	/* before the exec */
	/* The root image, exec'd by the helper, has made its calls. */
	ASSERT_EQ(target_wait_done(t, 60000), 0);
	ASSERT_EQ(session_stats(fd, ps, np, &st), 0);
	TH_LOG("probes on %s%s: state %u stop_reason %u, hits %llu + %llu",
	       fn_path, rx->probe_copy ? " and " SUID_COPY : "", st.state,
	       st.stop_reason, (unsigned long long)ps[0].entry_hits,
	       rx->probe_copy ? (unsigned long long)ps[1].entry_hits : 0ull);
	EXPECT_EQ(ps[0].entry_hits, PRE_EXEC_CALLS);
	EXPECT_EQ(ps[0].return_hits, PRE_EXEC_CALLS);
	if (rx->probe_copy) {
		EXPECT_EQ(ps[1].entry_hits, 0);
		EXPECT_EQ(ps[1].return_hits, 0);
	}
	EXPECT_EQ(st.state, ISPOT_STATE_DEAD);
	EXPECT_EQ(st.stop_reason, ISPOT_STOP_SECURE_EXEC);
	n = drain_entries(fd, &s, e, t->pid);
	EXPECT_EQ(e[1], PRE_EXEC_CALLS);
	EXPECT_EQ(e[2], 0);
	/* Entries, exits and the first call stack: nothing else. */
	EXPECT_EQ(n, 2 * PRE_EXEC_CALLS + 1);
	close(fd);
}

/*
 * The helper's own image is not dumpable, but the image it execs as root
 * is, so dumpability alone would adopt it.  With a probe on the test
 * binary only, the module sees nothing of the helper's image (it maps no
 * probed file), and the root image is the first new image it is asked
 * about; with one on the copy too, it sees the helper first.
 */
TEST(setuid_helper_reexec_as_root_stops_tracing)
{
	const struct target_plan p = {
		.uid = UID_A, .dumpable = 1, .calls = PRE_EXEC_CALLS,
		.exec_path = SUID_COPY, .root_exec = fn_path,
		.exec_calls = POST_EXEC_CALLS,
	};
	struct reexec rx;
	struct target t;
	int probe_copy;

	require_root();
	find_fn();
	setid_copy_make(&root_copy);
	for (probe_copy = 0; probe_copy < 2; probe_copy++) {
		rx.t = &t;
		rx.probe_copy = probe_copy;
		target_start(&t, &p);
		run_as(UID_A, PERFMON_ONLY, trace_across_root_reexec, &rx);
		/* The case holds: the last image runs as root. */
		EXPECT_TRUE(ids_all_root(t.pid));
		target_kill(&t);
	}
	setid_copy_remove(&root_copy);
}

/* ---- 8. a set-user-ID deputy -------------------------------------------- */

/*
 * As @uid with CAP_PERFMON, open /dev/ispot and hand the fd to the
 * set-ID-B copy, which asks it for @pid: the copy's exit status (0:
 * set up, 1: EPERM, 2: another error), or -1.
 */
static int deputy_setup(uid_t uid, pid_t pid)
{
	char fds[16], pids[16];
	pid_t child;
	int st, fd;

	fflush(stdout);
	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		become(uid, uid, PERFMON_ONLY);
		/* Not closed on exec: the deputy is handed it. */
		fd = open(ISPOT_DEV, O_RDWR);
		if (fd < 0)
			_exit(5);
		snprintf(fds, sizeof(fds), "%d", fd);
		snprintf(pids, sizeof(pids), "%d", (int)pid);
		execl(SUID_B_COPY, "privilege_test", "--deputy", fds, pids,
		      (char *)NULL);
		_exit(6);
	}
	ASSERT_EQ(waitpid(child, &st, 0), child);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * A set-user-ID, set-group-ID program is checked by its file-system ids
 * (its owner's) and by its real ones (its caller's), as perf checks the
 * real ones: handed an ispot fd and a pid of its owner's by a caller who
 * may not trace that process, it sets up nothing; run by its owner, it
 * does.  With the file-system ids alone, the first traced UID_B's process
 * for UID_A.  (The two runs' fds have different openers, which SETUP does
 * not look at: what it checks is the caller, the deputy.)
 */
TEST(setuid_deputy_checked_by_its_real_ids)
{
	const struct target_plan p = { .uid = UID_B, .dumpable = 1 };
	struct target t;

	require_root();
	find_fn();
	setid_copy_make(&b_copy);
	target_start(&t, &p);
	EXPECT_EQ(deputy_setup(UID_A, t.pid), 1);
	EXPECT_EQ(deputy_setup(UID_B, t.pid), 0);
	target_kill(&t);
	setid_copy_remove(&b_copy);
}

int main(int argc, char **argv)
{
	/* A set-ID copy reports whether it runs as @argv[2]:@argv[3]. */
	if (argc == 4 && !strcmp(argv[1], "--ids-are"))
		return geteuid() == (uid_t)atoi(argv[2]) &&
		       getegid() == (gid_t)atoi(argv[3]) ? 0 : 3;
	/* The set-ID-B copy as a deputy: SETUP on fd @argv[2]. */
	if (argc == 4 && !strcmp(argv[1], "--deputy")) {
		int ret = ispot_setup(atoi(argv[2]), atoi(argv[3]), 16, NULL);

		return !ret ? 0 : ret == -EPERM ? 1 : 2;
	}
	/*
	 * The set-user-ID copy as a helper: root in every id, then exec
	 * @argv[2] --call-wait @argv[3] @argv[4].  That image is dumpable
	 * (euid == uid, egid == gid) and runs as full root.
	 */
	if (argc == 5 && !strcmp(argv[1], "--root-exec")) {
		if (setgroups(0, NULL) || setresgid(0, 0, 0) ||
		    setresuid(0, 0, 0))
			return 1;
		execl(argv[2], "privilege_test", "--call-wait", argv[3],
		      argv[4], (char *)NULL);
		return 1;
	}
	/* Exec'd by targets: call, say so on fd @argv[3], wait to be killed. */
	if (argc == 4 && !strcmp(argv[1], "--call-wait")) {
		call_n(atoi(argv[2]));
		if (write(atoi(argv[3]), "d", 1) != 1)
			return 1;
		for (;;)
			pause();
	}
	return ispot_test_main();
}
