// SPDX-License-Identifier: GPL-2.0
/*
 * The gate of solo blocks (ISPOT_IOC_SOLO, ABI 1.6): the ioctl's input and
 * its records; one thread at a time inside the gated functions during a
 * block, and all of them at once outside; and the faults the gate must
 * survive with no hang, no lost record and no kernel warning: nested and
 * recursive calls, work handed over through a condition variable,
 * SIGKILL, pthread_exit(), exit() and exec inside a gated call, longjmp
 * out of one, the tracer killed while threads wait (then the module
 * unloaded), and 1,000 threads at the gate.
 *
 * Each target is a child of this binary, forked before its session is
 * armed; its threads run on cue from memory shared with the test.  A
 * thread waiting at the gate sleeps killable, which /proc shows as state
 * D: that is how the test knows that waiters are there before it lets the
 * holder go, kills the target or closes the session.  Waits are judged
 * against the block's own wait_max, never against a fixed time; where a
 * stalled vCPU (a loaded host) could make a prompt release look like a
 * timeout, the scenario is tried up to three times, which a gate that
 * does not release fails every time.
 */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <linux/futex.h>

#include "ispot_kmod_test.h"

#define NWAIT		3	/* waiters at a holder's gate */
#define NWORK		4	/* threads of the serialization test */
#define NSLOTS		8
#define NMANY		1000	/* threads of the crowd test */
#define ATTEMPTS	3
#define MS		1000000ull
#define HANG_S		120	/* a child not done by then hangs */

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define INC(x)		__atomic_add_fetch(&(x), 1, __ATOMIC_ACQ_REL)

/* How a holder leaves its gated call (gate_hold()). */
enum leave {
	LEAVE_PARK,		/* never: killed or unblocked by the test */
	LEAVE_PTHREAD_EXIT,
	LEAVE_EXIT,		/* exit(0): the whole target */
	LEAVE_EXEC_TRUE,	/* execs /bin/true */
	LEAVE_EXEC_SELF,	/* execs this binary, which calls gated code */
	LEAVE_LONGJMP,
	LEAVE_RECURSE,		/* holds at the bottom of gate_rec(REC_DEPTH) */
	LEAVE_RETURN,		/* returns at once, then stays between calls */
};

#define REC_DEPTH	10

/* What a target and the test tell each other, shared across fork. */
struct shared {
	int tids[NSLOTS];
	int holder_tid;
	int leave;		/* enum leave */
	int nwait;		/* waiters started behind the holder */
	int go;			/* the holder starts */
	int inside;		/* the holder is inside its gated call */
	int release;		/* the holder may leave it */
	int calling[NSLOTS];	/* waiter i is about to call */
	int returned[NSLOTS];	/* and its call returned */
	uint64_t t_call[NSLOTS], t_ret[NSLOTS];
	int after_longjmp_sleep_ms;
	/* The serialization and crowd tests. */
	int run, stop, burst, done;
	int busy[NSLOTS];
	int fd;			/* the holder's pipe, for LEAVE_PARK */
	int take_seq;		/* the taker waits in its take_seq-th call */
	int hold_us;		/* a pool's calls sleep this long inside */
	int give_seq;		/* the giver is in its give_seq-th call */
	int handoff_order;	/* enum handoff_order */
};

/* Who is first in a hand-off: the taker asleep, or the giver at the gate. */
enum handoff_order {
	HANDOFF_ANY,		/* as it comes */
	HANDOFF_TAKER_ASLEEP,	/* the giver comes once the taker sleeps */
	HANDOFF_GIVER_WAITING,	/* the taker sleeps once the giver waits */
};

static struct shared *sh;
static volatile int sink;
static jmp_buf jump_env;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int my_tid(void)
{
	return (int)syscall(SYS_gettid);
}

static void shared_map(void)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(sh, MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	sh->fd = -1;
}

/* ---- the gated functions (each probed with a return probe) ---- */

/* Spins @spin_us, then sleeps @sleep_us: long enough to overlap. */
__attribute__((noipa)) int gate_work(int spin_us, int sleep_us)
{
	uint64_t end = now_ns() + spin_us * 1000ull;

	while (now_ns() < end)
		sink++;
	if (sleep_us)
		usleep(sleep_us);
	return sink;
}

__attribute__((noipa)) int gate_inner(int x)
{
	sink += x;
	return x;
}

/* Calls gate_inner, not as a tail call: a nested gated call. */
__attribute__((noipa)) int gate_outer(int x)
{
	volatile int keep = x;

	gate_inner(x);
	return keep + 1;
}

/* Until the test sets sh->release; not probed. */
static void hold_until_released(void)
{
	STORE(sh->inside, 1);
	while (!LOAD(sh->release))
		usleep(500);
}

/* Recursion @depth deep, holding at the bottom; never a tail call. */
__attribute__((noipa)) int gate_rec(int depth)
{
	volatile char frame[32];
	int r = 0;

	frame[0] = (char)depth;
	if (depth > 1)
		r = gate_rec(depth - 1);
	else
		hold_until_released();
	return r + frame[0];
}

/* The holder's call: in it until released, then leaves as told. */
__attribute__((noipa)) int gate_hold(int leave)
{
	char b;

	if (leave == LEAVE_PARK) {
		STORE(sh->inside, 1);
		return (int)read(sh->fd, &b, 1);
	}
	hold_until_released();
	switch (leave) {
	case LEAVE_PTHREAD_EXIT:
		pthread_exit(NULL);
	case LEAVE_EXIT:
		exit(0);
	case LEAVE_EXEC_TRUE:
		execl("/bin/true", "true", (char *)NULL);
		_exit(126);
	case LEAVE_EXEC_SELF:
		execl("/proc/self/exe", "gate_test", "--after-exec",
		      (char *)NULL);
		_exit(126);
	case LEAVE_LONGJMP:
		longjmp(jump_env, 1);
	}
	return leave;
}

static char task_state(pid_t pid, int tid);

/* Hand-off: waits in a gated call for what another gated call gives. */
static pthread_mutex_t handoff_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t handoff_cond = PTHREAD_COND_INITIALIZER;
static int handoff_given;

__attribute__((noipa)) int gate_take(int seq)
{
	pthread_mutex_lock(&handoff_lock);
	STORE(sh->take_seq, seq);
	/* Until the giver waits at the gate, or is past it (a timeout). */
	if (sh->handoff_order == HANDOFF_GIVER_WAITING)
		while (task_state(getpid(), LOAD(sh->tids[0])) != 'D' &&
		       LOAD(sh->give_seq) < seq)
			usleep(200);
	while (!handoff_given)
		pthread_cond_wait(&handoff_cond, &handoff_lock);
	handoff_given = 0;
	pthread_mutex_unlock(&handoff_lock);
	return seq;
}

__attribute__((noipa)) int gate_give(void)
{
	INC(sh->give_seq);
	pthread_mutex_lock(&handoff_lock);
	handoff_given = 1;
	pthread_cond_signal(&handoff_cond);
	pthread_mutex_unlock(&handoff_lock);
	return 0;
}

static void *const gated_fns[] = {
	gate_work, gate_inner, gate_outer, gate_rec, gate_hold, gate_take,
	gate_give,
};
#define NFNS	(sizeof(gated_fns) / sizeof(gated_fns[0]))

/* ---- the session ---- */

struct gsess {
	int fd;
	struct ispot_setup setup;
	struct ispot_rings rings;
	uint32_t ids[NFNS];		/* probe id of each gated function */
	struct ispot_record *recs;	/* head slots, by time */
	size_t n;
};

static uint32_t probe_of(const struct gsess *g, void *fn)
{
	size_t i;

	for (i = 0; i < NFNS; i++)
		if (gated_fns[i] == fn)
			return g->ids[i];
	return 0;
}

/*
 * Setup flags of the next session: thread records, which blocks need (a
 * holder's exit lets the gate go), and no wait records unless a test asks.
 */
static uint32_t gsess_flags = ISPOT_SETUP_TASKS;

/* A session on @pid with every gated function probed (entry and return). */
static int gsess_open(struct gsess *g, pid_t pid, uint32_t pages)
{
	size_t i;
	int ret;

	memset(g, 0, sizeof(*g));
	g->fd = ispot_open();
	if (g->fd < 0)
		return -errno;
	g->setup.pid = pid;
	g->setup.ring_pages = pages;
	g->setup.flags = gsess_flags;
	ret = ispot_ioctl(g->fd, ISPOT_IOC_SETUP, &g->setup);
	if (ret)
		return ret;
	ret = ispot_map_rings(g->fd, &g->setup, &g->rings);
	if (ret)
		return ret;
	for (i = 0; i < NFNS; i++) {
		ret = ispot_add_probe_fn(g->fd, gated_fns[i], ISPOT_PROBE_BOTH,
					 0);
		if (ret <= 0)
			return ret ? ret : -EINVAL;
		g->ids[i] = ret;
	}
	return ispot_ioctl(g->fd, ISPOT_IOC_ENABLE, NULL);
}

static void gsess_unmap(struct gsess *g)
{
	int i;

	for (i = 0; g->rings.maps && i < g->rings.nr; i++)
		if (g->rings.maps[i] && g->rings.maps[i] != MAP_FAILED)
			munmap(g->rings.maps[i], g->rings.size);
	free(g->rings.maps);
	g->rings.maps = NULL;
}

static void gsess_close(struct gsess *g)
{
	gsess_unmap(g);
	free(g->recs);
	if (g->fd >= 0)
		close(g->fd);
	memset(g, 0, sizeof(*g));
	g->fd = -1;
}

/* Start a block; its number, or -errno. */
static int solo(int fd, uint64_t duration, uint64_t wait_max)
{
	struct ispot_solo a = {
		.duration_ns = duration,
		.wait_max_ns = wait_max,
	};
	int ret = ispot_ioctl(fd, ISPOT_IOC_SOLO, &a);

	return ret ? ret : (int)a.block;
}

/* Drain every ring, keep head slots, sort everything kept by time. */
static void gsess_drain(struct gsess *g)
{
	ispot_drain_sorted(g->fd, &g->rings, &g->recs, &g->n);
}

/* Sleep @ms, reading the rings meanwhile, so that none fills up. */
static void sleep_draining(struct gsess *g, int ms)
{
	uint64_t end = now_ns() + ms * MS;
	uint64_t now;

	while ((now = now_ns()) < end) {
		usleep(end - now < 20 * MS ? (end - now) / 1000 : 20000);
		gsess_drain(g);
	}
}

/* Every record written was read: none dropped, none left. */
static void gsess_expect_no_drops(struct gsess *g)
{
	struct ispot_ring_stats rs[64];
	struct ispot_stats st = {
		.rings = (uintptr_t)rs,
		.nr_rings = 64,
	};
	uint32_t i;

	ASSERT_LE(g->setup.nr_rings, 64);
	gsess_drain(g);
	ASSERT_EQ(ispot_ioctl(g->fd, ISPOT_IOC_STATS, &st), 0);
	for (i = 0; i < g->setup.nr_rings; i++) {
		EXPECT_EQ(rs[i].dropped, 0);
		EXPECT_EQ(rs[i].produced, rs[i].consumed);
	}
}

static uint32_t gsess_state(struct gsess *g, uint32_t *stop_reason)
{
	struct ispot_stats st = { 0 };

	ASSERT_EQ(ispot_ioctl(g->fd, ISPOT_IOC_STATS, &st), 0);
	if (stop_reason)
		*stop_reason = st.stop_reason;
	return st.state;
}

/* The first record of @kind (and block @block, if not 0), or NULL. */
static const struct ispot_record *find_rec(const struct gsess *g, int kind,
					   uint32_t block)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->recs[i].kind == kind &&
		    (!block || g->recs[i].data[0] == block))
			return &g->recs[i];
	return NULL;
}

/* ---- calls, as the records tell them ---- */

struct call {
	uint32_t tid, probe;
	uint64_t sp;
	uint64_t t_entry, t_exit;	/* t_exit 0: no EXIT came */
	bool gated;			/* its GATE record came first */
	uint32_t gate, block;		/* the GATE's flags and block */
	uint64_t waited;
	uint64_t displaced;		/* the GATE's ip: a holder's tid */
};

struct tstate {
	uint32_t tid;
	long gate;		/* index of a GATE waiting for its ENTRY */
	size_t depth;
	size_t open[64];	/* calls entered, not returned */
};

struct calls {
	struct call *c;
	size_t n;
	size_t gate_orphans;	/* GATE with no matching ENTRY next */
	size_t gate_records;
	size_t exit_orphans;	/* EXIT with no open ENTRY */
};

#define TSTATES	8192

static struct tstate *tstate_of(struct tstate *t, uint32_t tid)
{
	size_t i = tid % TSTATES;

	while (t[i].tid && t[i].tid != tid)
		i = (i + 1) % TSTATES;
	if (!t[i].tid) {
		t[i].tid = tid;
		t[i].gate = -1;
	}
	return &t[i];
}

/*
 * Pair each thread's records: a GATE goes with the ENTRY that follows it
 * if probe and sp match; an EXIT closes the open call whose entry sp is 8
 * below its own, and the calls above it (left by longjmp) stay open.
 */
static void calls_build(const struct gsess *g, struct calls *cs)
{
	struct tstate *t = calloc(TSTATES, sizeof(*t));
	size_t i;

	memset(cs, 0, sizeof(*cs));
	cs->c = calloc(g->n + 1, sizeof(*cs->c));
	ASSERT_NE(t, NULL);
	ASSERT_NE(cs->c, NULL);
	for (i = 0; i < g->n; i++) {
		const struct ispot_record *r = &g->recs[i];
		struct tstate *st;
		struct call *c;

		if (r->kind != ISPOT_REC_GATE && r->kind != ISPOT_REC_ENTRY &&
		    r->kind != ISPOT_REC_EXIT)
			continue;
		st = tstate_of(t, r->tid);
		if (r->kind == ISPOT_REC_GATE) {
			cs->gate_records++;
			if (st->gate >= 0)
				cs->gate_orphans++;
			st->gate = (long)i;
			continue;
		}
		if (r->kind == ISPOT_REC_ENTRY) {
			c = &cs->c[cs->n++];
			c->tid = r->tid;
			c->probe = r->probe_id;
			c->sp = r->sp;
			c->t_entry = r->ts_ns;
			if (st->gate >= 0) {
				const struct ispot_record *q = &g->recs[st->gate];

				if (q->probe_id == r->probe_id &&
				    q->sp == r->sp) {
					c->gated = true;
					c->block = (uint32_t)q->data[0];
					c->waited = q->data[1];
					c->gate = (uint32_t)q->data[2];
					c->displaced = q->ip;
				} else {
					cs->gate_orphans++;
				}
				st->gate = -1;
			}
			ASSERT_LT(st->depth, 64);
			st->open[st->depth++] = cs->n - 1;
			continue;
		}
		while (st->depth &&
		       cs->c[st->open[st->depth - 1]].sp + 8 != r->sp)
			st->depth--;
		if (!st->depth) {
			cs->exit_orphans++;
			continue;
		}
		cs->c[st->open[--st->depth]].t_exit = r->ts_ns;
	}
	for (i = 0; i < TSTATES; i++)
		cs->gate_orphans += t[i].tid && t[i].gate >= 0;
	free(t);
}

/* The first call of @tid to @probe at or after @from (index), or NULL. */
static const struct call *call_of(const struct calls *cs, uint32_t tid,
				  uint32_t probe, size_t *from)
{
	size_t i;

	for (i = from ? *from : 0; i < cs->n; i++) {
		if (cs->c[i].tid == tid && cs->c[i].probe == probe) {
			if (from)
				*from = i + 1;
			return &cs->c[i];
		}
	}
	return NULL;
}

/*
 * A block's END counts every wait that timed out in it, and none of
 * another block's: at least as many as its GATE records say TIMEOUT (an
 * END may count one that was then taken back, never miss one).
 */
static void expect_timeouts_counted(const struct gsess *g)
{
	uint32_t counted[64] = { 0 };
	const struct ispot_record *end;
	size_t i;
	uint32_t b;

	for (i = 0; i < g->n; i++) {
		const struct ispot_record *r = &g->recs[i];

		if (r->kind == ISPOT_REC_GATE &&
		    (r->data[2] & ISPOT_GATE_TIMEOUT) && r->data[0] < 64)
			counted[r->data[0]]++;
	}
	for (b = 1; b < 64; b++) {
		if (!counted[b])
			continue;
		end = find_rec(g, ISPOT_REC_SOLO_END, b);
		if (!end)
			continue;
		EXPECT_GE(end->data[2], counted[b]);
		EXPECT_TRUE(end->data[1] & ISPOT_SOLO_CONTAMINATED);
	}
}

/* Every GATE record says how the call passed, in its block. */
static void expect_gate_records_sane(const struct gsess *g, uint32_t block)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		const struct ispot_record *r = &g->recs[i];

		if (r->kind != ISPOT_REC_GATE)
			continue;
		EXPECT_NE(r->data[2], 0);
		EXPECT_EQ(r->data[2] & ~0x1ffull, 0);
		/* ip: the holder a timeout or a pass beside displaced. */
		if (r->data[2] & (ISPOT_GATE_TIMEOUT | ISPOT_GATE_BESIDE))
			EXPECT_NE(r->ip, 0);
		else
			EXPECT_EQ(r->ip, 0);
		if (block)
			EXPECT_EQ(r->data[0], block);
		if (!(r->data[2] & ISPOT_GATE_WAITED))
			EXPECT_EQ(r->data[1], 0);
		EXPECT_EQ(r->nslots, 1);
		EXPECT_EQ(r->tgid, g->setup.pid);
		EXPECT_NE(r->tid, 0);
		EXPECT_NE(r->sp, 0);
	}
	expect_timeouts_counted(g);
}

/* ---- the kernel log: no warning appears ---- */

/* What the VM runner counts as a kernel report (selftests/vm/run.sh). */
static const char *const splats[] = {
	"Oops", "BUG:", "WARNING:", "Call Trace", "general protection",
	"UBSAN", "KASAN", "KFENCE:", "refcount_t:", "stall",
	"possible recursive locking", "possible circular locking",
	"inconsistent lock state", "DEBUG_LOCKS_WARN_ON",
	"sleeping function called from invalid context", "ODEBUG:",
	"suspicious RCU usage", "blocked for more than",
};

static int kmsg_fd = -1;

/* Note where the kernel log is: what comes after it is this test's. */
static void klog_mark(void)
{
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0 && lseek(kmsg_fd, 0, SEEK_END) < 0) {
		close(kmsg_fd);
		kmsg_fd = -1;
	}
}

/* No report in the kernel log since klog_mark(). */
static void expect_no_new_splat(void)
{
	char buf[8192];
	int reports = 0;
	size_t k;

	if (kmsg_fd < 0) {
		TH_LOG("/dev/kmsg unreadable: the VM runner checks the log");
		return;
	}
	for (;;) {
		ssize_t n = read(kmsg_fd, buf, sizeof(buf) - 1);

		if (n < 0 && errno == EPIPE)	/* overwritten: go on */
			continue;
		if (n <= 0)
			break;
		buf[n] = 0;
		for (k = 0; k < sizeof(splats) / sizeof(splats[0]); k++) {
			if (!strstr(buf, splats[k]))
				continue;
			TH_LOG("kernel: %.*s", (int)strcspn(buf, "\n"), buf);
			reports++;
			break;
		}
	}
	close(kmsg_fd);
	kmsg_fd = -1;
	EXPECT_EQ(reports, 0);
}

/* ---- children ---- */

/* Reap @pid, waiting at most HANG_S; a hang is killed and fails. */
static int reap(pid_t pid)
{
	uint64_t end = now_ns() + HANG_S * 1000 * MS;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) :
					       128 + WTERMSIG(st);
		if (r < 0)
			return -1;
		if (now_ns() > end) {
			TH_LOG("child %d hangs: killed", (int)pid);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -2;
		}
		usleep(2000);
	}
}

/* The state letter of thread @tid of @pid in /proc, or 0. */
static char task_state(pid_t pid, int tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static void wait_flag(int *flag)
{
	while (!LOAD(*flag))
		usleep(500);
}

/*
 * Until the holder is inside and each waiter sleeps at the gate (state
 * D, between "calling" and its return).  0, or -1 if a waiter returned
 * first (its wait timed out: a stalled vCPU) or HANG_S passed.
 */
static int wait_waiters_at_gate(pid_t pid, int nwait)
{
	uint64_t end = now_ns() + HANG_S * 1000 * MS;
	int i, at;

	while (!LOAD(sh->inside))
		if (now_ns() > end || usleep(500))
			return -1;
	do {
		for (i = 0, at = 0; i < nwait; i++) {
			if (LOAD(sh->returned[i]))
				return -1;
			at += LOAD(sh->calling[i]) &&
			      task_state(pid, LOAD(sh->tids[i])) == 'D';
		}
		if (at == nwait)
			return 0;
		usleep(200);
	} while (now_ns() < end);
	return -1;
}

static void *waiter_thread(void *arg)
{
	long i = (long)arg;

	STORE(sh->tids[i], my_tid());
	wait_flag(&sh->inside);
	sh->t_call[i] = now_ns();
	STORE(sh->calling[i], 1);
	gate_work(0, 0);
	sh->t_ret[i] = now_ns();
	STORE(sh->returned[i], 1);
	return NULL;
}

/*
 * The holder, out of its gated calls, stays alive until the waiters are
 * through: its exit would let them in too, and hide a gate that a return
 * failed to release.
 */
static void holder_outlives_waiters(void)
{
	int i;

	for (i = 0; i < sh->nwait; i++)
		wait_flag(&sh->returned[i]);
}

static void *holder_thread(void *arg)
{
	int leave = (int)(long)arg;

	STORE(sh->holder_tid, my_tid());
	wait_flag(&sh->go);
	if (leave == LEAVE_RECURSE) {
		gate_outer(1);		/* a nested call first */
		gate_rec(REC_DEPTH);
	} else if (leave == LEAVE_LONGJMP) {
		if (!setjmp(jump_env)) {
			gate_hold(LEAVE_LONGJMP);
			return (void *)1;	/* not reached */
		}
		/* Out of the call without its return, still holding. */
		usleep(sh->after_longjmp_sleep_ms * 1000);
		gate_work(0, 0);
	} else if (leave == LEAVE_RETURN) {
		gate_work(0, 0);
		STORE(sh->inside, 1);
	} else {
		gate_hold(leave);
	}
	holder_outlives_waiters();
	return NULL;
}

/*
 * The holder's target: a holder thread that takes the gate and stays
 * inside its call until released, and sh->nwait waiters that come to
 * the gate once it is inside.  Exits 0 when every thread is done.
 */
static int holder_work(void *arg)
{
	pthread_t h, w[NSLOTS];
	long i;

	(void)arg;
	if (pthread_create(&h, NULL, holder_thread, (void *)(long)sh->leave))
		return 1;
	for (i = 0; i < sh->nwait; i++)
		if (pthread_create(&w[i], NULL, waiter_thread, (void *)i))
			return 1;
	for (i = 0; i < sh->nwait; i++)
		pthread_join(w[i], NULL);
	pthread_join(h, NULL);
	return 0;
}

/* A holder scenario: target started, session on it, block on, go. */
struct scene {
	struct ispot_child c;
	struct gsess g;
	int block;
	uint64_t wait_max;
	uint64_t end_flags;	/* SOLO_END's */
	uint64_t deadline;	/* SOLO_BEGIN's: admission ended */
};

static void scene_start(struct scene *s, int leave, int nwait,
			uint64_t duration, uint64_t wait_max, int sleep_ms)
{
	int p[2];

	shared_map();
	sh->leave = leave;
	sh->nwait = nwait;
	sh->after_longjmp_sleep_ms = sleep_ms;
	if (leave == LEAVE_PARK) {
		ASSERT_EQ(pipe(p), 0);
		sh->fd = p[0];
	}
	ASSERT_EQ(ispot_child_start(&s->c, holder_work, NULL), 0);
	ASSERT_EQ(gsess_open(&s->g, s->c.pid, 64), 0);
	s->wait_max = wait_max;
	s->block = solo(s->g.fd, duration, wait_max);
	ASSERT_GT(s->block, 0);
	ispot_child_go(&s->c);
	STORE(sh->go, 1);
}

/*
 * The target has exited, so the session is DEAD and takes no SOLO:
 * DISABLE ends the block (SOLO_END with STOPPED) and the records are
 * read.  Nothing was lost, and no GATE record is malformed.
 */
static void scene_end(struct scene *s)
{
	const struct ispot_record *end;
	uint32_t reason;

	EXPECT_EQ(gsess_state(&s->g, &reason), ISPOT_STATE_DEAD);
	EXPECT_EQ(reason, ISPOT_STOP_EXITED);
	EXPECT_EQ(solo(s->g.fd, 0, 0), -EBADFD);
	ASSERT_EQ(ispot_ioctl(s->g.fd, ISPOT_IOC_DISABLE, NULL), 0);
	gsess_expect_no_drops(&s->g);
	expect_gate_records_sane(&s->g, s->block);
	end = find_rec(&s->g, ISPOT_REC_SOLO_END, s->block);
	ASSERT_NE(end, NULL);
	EXPECT_TRUE(end->data[1] & ISPOT_SOLO_STOPPED);
	s->end_flags = end->data[1];
	end = find_rec(&s->g, ISPOT_REC_SOLO_BEGIN, s->block);
	ASSERT_NE(end, NULL);
	s->deadline = end->data[1];
}

/*
 * The GATE of waiter @i's call: let in by the holder's exit (it took the
 * free gate, before its wait_max), by the holder's staying between calls
 * for wait_max (it opened the gate: OPEN, no timeout), or at the block's
 * end (then it passes late, by wait_max at most); never by a timeout.
 */
static bool waiter_let_in(const struct scene *s, const struct calls *cs,
			  int i)
{
	const struct call *w = call_of(cs, sh->tids[i],
				       probe_of(&s->g, gate_work), NULL);

	if (!w || !w->gated) {
		TH_LOG("waiter %d: no gated call", i);
		return false;
	}
	TH_LOG("waiter %d: gate flags %#x, waited %.1f ms (wait_max %.1f), "
	       "entered %.1f ms after the block's end", i, w->gate,
	       w->waited / 1e6, s->wait_max / 1e6,
	       ((double)w->t_entry - (double)s->deadline) / 1e6);
	if (!(w->gate & ISPOT_GATE_WAITED) || (w->gate & ISPOT_GATE_TIMEOUT) ||
	    !w->waited)
		return false;
	if (w->gate & ISPOT_GATE_ADMITTED)
		return (w->gate & ISPOT_GATE_TAKEN) && w->waited < s->wait_max;
	if (w->gate & ISPOT_GATE_OPEN)
		return w->waited >= s->wait_max && w->t_entry < s->deadline;
	return (w->gate & ISPOT_GATE_LATE) &&
	       w->t_entry >= s->deadline &&
	       w->t_entry < s->deadline + s->wait_max;
}

/* ---- 1. the ioctl ---- */

/* A session on this process with one probe, not enabled. */
static int solo_session(uint32_t setup_flags)
{
	struct ispot_setup st = {
		.pid = getpid(),
		.ring_pages = 4,
		.flags = setup_flags,
	};
	int fd = ispot_open_or_skip();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_SETUP, &st), 0);
	ASSERT_GT(ispot_add_probe_fn(fd, gate_work, ISPOT_PROBE_BOTH, 0), 0);
	return fd;
}

TEST(solo_ioctl_input)
{
	struct ispot_solo a;
	void *page;
	int fd;

	/* Blocks need thread records: a holder's exit lets the gate go. */
	fd = solo_session(0);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	EXPECT_EQ(solo(fd, MS, MS), -EOPNOTSUPP);
	EXPECT_EQ(solo(fd, 0, 0), -EOPNOTSUPP);
	close(fd);
	fd = solo_session(ISPOT_SETUP_WAITS);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	EXPECT_EQ(solo(fd, MS, MS), -EOPNOTSUPP);
	close(fd);

	/* NEW, then READY: blocks need an enabled session. */
	fd = ispot_open_or_skip();
	EXPECT_EQ(solo(fd, MS, MS), -EBADFD);
	close(fd);
	fd = solo_session(ISPOT_SETUP_TASKS);
	EXPECT_EQ(solo(fd, MS, MS), -EBADFD);
	EXPECT_EQ(solo(fd, 0, 0), -EBADFD);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);

	memset(&a, 0, sizeof(a));
	a.duration_ns = MS;
	a.wait_max_ns = MS;
	a.flags = 1;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SOLO, &a), -EINVAL);
	a.flags = 1u << 31;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SOLO, &a), -EINVAL);
	a.flags = 0;
	a.reserved[0] = 1;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SOLO, &a), -EINVAL);
	a.reserved[0] = 0;
	a.reserved[1] = 1ull << 63;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SOLO, &a), -EINVAL);
	/* The block field is out only: non-zero on input is refused. */
	a.reserved[1] = 0;
	a.block = 77;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SOLO, &a), -EINVAL);
	a.block = 0;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SOLO, &a), 0);
	EXPECT_EQ(a.block, 1);		/* blocks count from 1 */
	EXPECT_EQ(solo(fd, 0, 0), 1);

	EXPECT_EQ(solo(fd, ISPOT_SOLO_MAX_NS + 1, MS), -E2BIG);
	EXPECT_EQ(solo(fd, ~0ull, MS), -E2BIG);
	EXPECT_EQ(solo(fd, MS, 0), -EINVAL);
	EXPECT_EQ(solo(fd, MS, 999), -EINVAL);		/* under 1 us */
	EXPECT_EQ(solo(fd, MS, ISPOT_SOLO_WAIT_MAX_NS + 1), -EINVAL);
	EXPECT_EQ(solo(fd, MS, ~0ull), -EINVAL);
	EXPECT_EQ(solo(fd, 0, 1), -EINVAL);
	EXPECT_EQ(solo(fd, 0, ISPOT_SOLO_WAIT_MAX_NS), -EINVAL);

	/* The limits themselves are accepted; one block at a time. */
	EXPECT_EQ(solo(fd, ISPOT_SOLO_MAX_NS, ISPOT_SOLO_WAIT_MAX_NS), 2);
	EXPECT_EQ(solo(fd, MS, MS), -EBUSY);
	EXPECT_EQ(solo(fd, ISPOT_SOLO_MAX_NS, ISPOT_SOLO_WAIT_MAX_NS), -EBUSY);
	/* Ending says which block; ending twice is no error. */
	EXPECT_EQ(solo(fd, 0, 0), 2);
	EXPECT_EQ(solo(fd, 0, 0), 2);
	EXPECT_EQ(solo(fd, 1, 1000), 3);	/* 1 ns, 1 us: the minimum */
	usleep(1000);
	/* Its time ran out: the next one starts, no EBUSY. */
	EXPECT_EQ(solo(fd, MS, MS), 4);
	EXPECT_EQ(solo(fd, 0, 0), 4);

	/* Bad pointers: in, and out (an end request on a read-only page). */
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SOLO, NULL), -EFAULT);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SOLO, (void *)8), -EFAULT);
	page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(page, MAP_FAILED);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SOLO, page), -EFAULT);
	ASSERT_EQ(mprotect(page, 4096, PROT_READ), 0);	/* zeros: an end */
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SOLO, page), -EFAULT);
	munmap(page, 4096);
	/* Half the struct mapped. */
	page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(page, MAP_FAILED);
	ASSERT_EQ(munmap((char *)page + 4096, 4096), 0);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SOLO,
			      (char *)page + 4096 - sizeof(a) / 2), -EFAULT);
	munmap(page, 4096);

	/* Nothing of the refused calls started a block. */
	EXPECT_EQ(solo(fd, MS, MS), 5);
	EXPECT_EQ(solo(fd, 0, 0), 5);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL), 0);
	EXPECT_EQ(solo(fd, MS, MS), -EBADFD);
	EXPECT_EQ(solo(fd, 0, 0), -EBADFD);
	close(fd);
}

/*
 * BEGIN and END of each block, ended by the reader, by its time running
 * out, by DISABLE; the GATE records of a lone thread's calls (this one's:
 * the session traces the test itself).
 */
TEST(solo_records)
{
	const struct ispot_record *b, *e;
	struct calls cs;
	struct gsess g;
	uint64_t t0;
	uint32_t k;
	size_t i, begins = 0, ends = 0;

	ispot_require_module();
	shared_map();
	ASSERT_EQ(gsess_open(&g, getpid(), 16), 0);
	t0 = now_ns();
	ASSERT_EQ(solo(g.fd, 200 * MS, 5 * MS), 1);
	gate_outer(1);				/* admitted, and nested */
	ASSERT_EQ(solo(g.fd, 0, 0), 1);			/* by the reader */
	ASSERT_EQ(solo(g.fd, 2 * MS, 7 * MS), 2);
	usleep(5000);
	/* After its admission, before its END: ungated, no GATE. */
	gate_outer(2);
	ASSERT_EQ(solo(g.fd, 300 * MS, 9 * MS), 3);	/* ends 2 */
	ASSERT_EQ(solo(g.fd, 0, 0), 3);
	gate_outer(3);				/* no block: no GATE */
	ASSERT_EQ(solo(g.fd, 400 * MS, 11 * MS), 4);
	ASSERT_EQ(ispot_ioctl(g.fd, ISPOT_IOC_DISABLE, NULL), 0);
	gsess_expect_no_drops(&g);
	expect_gate_records_sane(&g, 0);
	calls_build(&g, &cs);
	EXPECT_EQ(cs.gate_records, 2);
	EXPECT_EQ(cs.gate_orphans, 0);
	EXPECT_EQ(cs.exit_orphans, 0);
	ASSERT_EQ(cs.n, 6);
	for (i = 0; i < cs.n; i++) {
		EXPECT_EQ(cs.c[i].tid, (uint32_t)getpid());
		EXPECT_NE(cs.c[i].t_exit, 0);
		EXPECT_EQ(cs.c[i].gated, i < 2);
	}
	EXPECT_EQ(cs.c[0].probe, probe_of(&g, gate_outer));
	EXPECT_EQ(cs.c[0].gate, ISPOT_GATE_ADMITTED | ISPOT_GATE_TAKEN);
	EXPECT_EQ(cs.c[0].block, 1);
	EXPECT_EQ(cs.c[1].probe, probe_of(&g, gate_inner));
	EXPECT_EQ(cs.c[1].gate, ISPOT_GATE_NESTED);
	EXPECT_EQ(cs.c[1].block, 1);
	free(cs.c);

	for (i = 0; i < g.n; i++) {
		const struct ispot_record *r = &g.recs[i];

		if (r->kind != ISPOT_REC_SOLO_BEGIN &&
		    r->kind != ISPOT_REC_SOLO_END)
			continue;
		begins += r->kind == ISPOT_REC_SOLO_BEGIN;
		ends += r->kind == ISPOT_REC_SOLO_END;
		EXPECT_EQ(r->tid, 0);
		EXPECT_EQ(r->tgid, (uint32_t)getpid());
		EXPECT_EQ(r->probe_id, 0);
		EXPECT_EQ(r->nslots, 1);
		EXPECT_EQ(r->sp, 0);
		EXPECT_EQ(r->ip, 0);
		EXPECT_GE(r->ts_ns, t0);
	}
	EXPECT_EQ(begins, 4);
	EXPECT_EQ(ends, 4);
	for (k = 1; k <= 4; k++) {
		static const uint64_t dur[] = { 0, 200, 2, 300, 400 };
		static const uint64_t wm[] = { 0, 5, 7, 9, 11 };

		b = find_rec(&g, ISPOT_REC_SOLO_BEGIN, k);
		e = find_rec(&g, ISPOT_REC_SOLO_END, k);
		ASSERT_NE(b, NULL);
		ASSERT_NE(e, NULL);
		EXPECT_LT(b, e);
		/* data[1]: when admission ends, @dur after the ioctl began. */
		EXPECT_GE(b->data[1], t0 + dur[k] * MS);
		EXPECT_LE(b->data[1], b->ts_ns + dur[k] * MS);
		EXPECT_EQ(b->data[2], wm[k] * MS);
		/* No wait timed out: not contaminated, whoever ended it. */
		EXPECT_EQ(e->data[2], 0);
		EXPECT_EQ(e->data[1] & ISPOT_SOLO_CONTAMINATED, 0);
		EXPECT_EQ(e->data[1] & ~(uint64_t)(ISPOT_SOLO_CONTAMINATED |
						   ISPOT_SOLO_STOPPED), 0);
		if (k < 4)
			EXPECT_EQ(e->data[1], 0);
		else
			EXPECT_EQ(e->data[1], ISPOT_SOLO_STOPPED);
		if (k == 2)	/* ended by the next start, after its time */
			EXPECT_GE(e->ts_ns, b->data[1]);
		if (k > 1)
			EXPECT_LT(find_rec(&g, ISPOT_REC_SOLO_END, k - 1), b);
	}
	gsess_close(&g);
}

/* ---- 2. one thread at a time ---- */

static void *worker_thread(void *arg)
{
	long i = (long)arg;

	STORE(sh->tids[i], my_tid());
	for (;;) {
		while (!LOAD(sh->run) && !LOAD(sh->stop))
			usleep(1000);
		if (LOAD(sh->stop))
			break;
		STORE(sh->busy[i], 1);
		while (LOAD(sh->run)) {
			gate_work(300, 2000);
			usleep(300);
		}
		STORE(sh->busy[i], 0);
	}
	return NULL;
}

static int workers_work(void *arg)
{
	pthread_t t[NWORK];
	long i;

	(void)arg;
	for (i = 0; i < NWORK; i++)
		if (pthread_create(&t[i], NULL, worker_thread, (void *)i))
			return 1;
	for (i = 0; i < NWORK; i++)
		pthread_join(t[i], NULL);
	return 0;
}

/* Let the workers call for @ms, then wait until each is out. */
static void workers_phase(struct gsess *g, int ms)
{
	int i;

	STORE(sh->run, 1);
	sleep_draining(g, ms);
	STORE(sh->run, 0);
	for (i = 0; i < NWORK; i++)
		while (LOAD(sh->busy[i]))
			usleep(1000);
}

static bool overlap(const struct call *a, const struct call *b)
{
	uint64_t ae = a->t_exit ? a->t_exit : a->t_entry;
	uint64_t be = b->t_exit ? b->t_exit : b->t_entry;

	return a->t_entry < be && b->t_entry < ae;
}

/*
 * One run of the workers, 300 ms without a block, then a 500 ms block.
 * What must hold every time fails the test here: GATE records that go
 * with their ENTRY, calls that overlap outside the block, and inside it
 * no call beside an admitted one but those a timeout let through (flagged
 * TIMEOUT or OPEN, or with no GATE record once the gate is open), and
 * those only in a contaminated block.  Whether enough calls were admitted
 * after waiting is returned: a vCPU the host stalls while its thread
 * holds the gate times waits out, which opens the gate for the rest of
 * the block.
 */
static bool serial_attempt(void)
{
	const uint64_t wait_max = 100 * MS;
	const struct ispot_record *begin, *end;
	size_t i, j, admitted = 0, waited = 0, free_overlaps = 0;
	size_t in_block = 0, beside = 0, clash = 0, holders = 0;
	uint32_t holder = 0;
	struct ispot_child c;
	uint32_t work_id;
	struct calls cs;
	struct gsess g;
	bool good;
	int block;

	shared_map();
	ASSERT_EQ(ispot_child_start(&c, workers_work, NULL), 0);
	ASSERT_EQ(gsess_open(&g, c.pid, 64), 0);
	ispot_child_go(&c);
	workers_phase(&g, 300);			/* no block */
	block = solo(g.fd, 500 * MS, wait_max);
	ASSERT_EQ(block, 1);
	workers_phase(&g, 500);			/* the block */
	ASSERT_EQ(solo(g.fd, 0, 0), block);
	STORE(sh->stop, 1);
	ASSERT_EQ(reap(c.pid), 0);
	gsess_expect_no_drops(&g);
	expect_gate_records_sane(&g, block);
	begin = find_rec(&g, ISPOT_REC_SOLO_BEGIN, block);
	end = find_rec(&g, ISPOT_REC_SOLO_END, block);
	ASSERT_NE(begin, NULL);
	ASSERT_NE(end, NULL);
	calls_build(&g, &cs);
	EXPECT_EQ(cs.gate_orphans, 0);
	EXPECT_EQ(cs.exit_orphans, 0);
	work_id = probe_of(&g, gate_work);

	for (i = 0; i < cs.n; i++) {
		const struct call *x = &cs.c[i];

		EXPECT_EQ(x->probe, work_id);
		EXPECT_NE(x->t_exit, 0);
		if (x->t_entry < begin->ts_ns) {
			/* Before the block: nothing met the gate. */
			EXPECT_FALSE(x->gated);
			for (j = i + 1; j < cs.n; j++)
				if (cs.c[j].t_entry < begin->ts_ns &&
				    cs.c[j].tid != x->tid &&
				    overlap(x, &cs.c[j]))
					free_overlaps++;
			continue;
		}
		in_block++;
		if (x->gated && (x->gate & ISPOT_GATE_TIMEOUT))
			TH_LOG("tid %u: a wait timed out %.1f ms into the block "
			       "(waited %.1f ms)", x->tid,
			       (x->t_entry - begin->ts_ns) / 1e6,
			       x->waited / 1e6);
		if (x->gated && (x->gate & ISPOT_GATE_WAITED)) {
			waited++;
			EXPECT_GT(x->waited, 0);
		}
		if (!x->gated || !(x->gate & ISPOT_GATE_ADMITTED))
			continue;
		admitted++;
		EXPECT_EQ(x->block, block);
		/* The block is one thread's: the first to come keeps it. */
		if (x->tid != holder) {
			holders++;
			holder = x->tid;
			EXPECT_TRUE(x->gate & ISPOT_GATE_TAKEN);
		} else {
			EXPECT_FALSE(x->gate & ISPOT_GATE_TAKEN);
		}
		EXPECT_EQ(x->gate & (ISPOT_GATE_TIMEOUT | ISPOT_GATE_OPEN |
				     ISPOT_GATE_NESTED | ISPOT_GATE_LATE), 0);
		/* The gate: no other call while an admitted one runs... */
		for (j = 0; j < cs.n; j++) {
			const struct call *y = &cs.c[j];

			if (y->tid == x->tid || !overlap(x, y))
				continue;
			beside++;
			/* ... but one a timeout let through. */
			if (!y->gated ||
			    (y->gate & (ISPOT_GATE_TIMEOUT | ISPOT_GATE_OPEN)))
				continue;
			TH_LOG("calls overlap: admitted tid %u %llu-%llu, tid %u "
			       "%llu-%llu (gate flags %#x)", x->tid,
			       (unsigned long long)x->t_entry,
			       (unsigned long long)x->t_exit, y->tid,
			       (unsigned long long)y->t_entry,
			       (unsigned long long)y->t_exit, y->gate);
			clash++;
		}
	}
	TH_LOG("%zu calls, %zu in the block: %zu admitted (%zu holders), "
	       "%zu waited; %zu overlapping pairs outside; END flags %#llx, "
	       "%llu timeouts", cs.n, in_block, admitted, holders, waited,
	       free_overlaps,
	       (unsigned long long)end->data[1],
	       (unsigned long long)end->data[2]);
	/* Sanity: without a block the calls do overlap. */
	EXPECT_GT(free_overlaps, 0);
	EXPECT_EQ(clash, 0);
	/* In a clean block nothing at all ran beside an admitted call. */
	if (!(end->data[1] & ISPOT_SOLO_CONTAMINATED))
		EXPECT_EQ(beside, 0);
	EXPECT_LE(holders, 1);
	good = admitted >= 8 && waited >= 1;
	free(cs.c);
	gsess_close(&g);
	return good;
}

TEST(one_thread_at_a_time_in_a_block)
{
	bool good = false;
	int attempt;

	ispot_require_module();
	klog_mark();
	for (attempt = 0; attempt < ATTEMPTS && !good; attempt++)
		good = serial_attempt();
	EXPECT_TRUE(good);
	expect_no_new_splat();
}

/*
 * A pool that never pauses: each thread calls again as soon as its call
 * returns.  The thread that lets the gate go must not take it straight
 * back while others wait for it, or they wait until their timeout and
 * every block of such a pool ends contaminated.
 */
static void *tight_thread(void *arg)
{
	long i = (long)arg;

	STORE(sh->tids[i], my_tid());
	while (!LOAD(sh->run))
		usleep(1000);
	while (LOAD(sh->run))
		gate_work(200, LOAD(sh->hold_us));
	return NULL;
}

/* @n threads running @fn, each given its index; 0 once all are done. */
static int pool_run(void *(*fn)(void *), long n)
{
	pthread_t t[NSLOTS];
	long i;

	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)i))
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

/* A pool of @arg (a long) such threads. */
static int tight_work(void *arg)
{
	return pool_run(tight_thread, (long)arg);
}

/*
 * One block of @block_ms over a pool of @nthreads whose calls sleep
 * @hold_us inside.  Its admitted calls are one thread's, the first with
 * TAKEN; the others wait until the block ends, and pass late.  Whether,
 * besides, no wait timed out, the holder was admitted at least twice, and
 * another thread waited, for longer than wait_max, is returned.
 */
static bool pool_block_one_thread(uint64_t wait_max, long nthreads,
				  int hold_us, int block_ms)
{
	size_t i, admitted = 0, taken = 0, timeouts = 0, holders = 0;
	const struct ispot_record *begin, *end;
	uint64_t longest = 0;
	struct ispot_child c;
	uint32_t holder = 0;
	struct calls cs;
	struct gsess g;
	bool good;
	int block;

	shared_map();
	sh->hold_us = hold_us;
	if (ispot_child_start(&c, tight_work, (void *)nthreads))
		return false;
	ASSERT_EQ(gsess_open(&g, c.pid, 256), 0);
	ispot_child_go(&c);
	STORE(sh->run, 1);
	sleep_draining(&g, 50);
	block = solo(g.fd, block_ms * MS, wait_max);
	ASSERT_EQ(block, 1);
	sleep_draining(&g, block_ms);
	ASSERT_EQ(solo(g.fd, 0, 0), block);
	STORE(sh->run, 0);
	ASSERT_EQ(reap(c.pid), 0);
	gsess_expect_no_drops(&g);
	expect_gate_records_sane(&g, block);
	begin = find_rec(&g, ISPOT_REC_SOLO_BEGIN, block);
	end = find_rec(&g, ISPOT_REC_SOLO_END, block);
	ASSERT_NE(begin, NULL);
	ASSERT_NE(end, NULL);
	calls_build(&g, &cs);
	for (i = 0; i < cs.n; i++) {
		const struct call *x = &cs.c[i];

		if (!x->gated)
			continue;
		if (x->gate & ISPOT_GATE_TIMEOUT) {
			TH_LOG("tid %u timed out %.1f ms into the block",
			       x->tid, (x->t_entry - begin->ts_ns) / 1e6);
			timeouts++;
		}
		if ((x->gate & ISPOT_GATE_WAITED) && x->waited > longest)
			longest = x->waited;
		if (!(x->gate & ISPOT_GATE_ADMITTED))
			continue;
		admitted++;
		taken += !!(x->gate & ISPOT_GATE_TAKEN);
		if (x->tid != holder) {
			holders++;
			holder = x->tid;
		}
	}
	TH_LOG("%ld threads: %zu admitted calls of %zu thread(s), %zu took "
	       "the gate, %zu timeouts, longest wait %.1f ms (wait_max %.1f), "
	       "END flags %#llx", nthreads, admitted, holders, taken, timeouts,
	       longest / 1e6, wait_max / 1e6,
	       (unsigned long long)end->data[1]);
	EXPECT_LE(holders, 1);
	EXPECT_EQ(taken, holders);
	/*
	 * A stalled vCPU can still time a wait out on a holder inside a
	 * call; no wait may time out for a queue, however long.
	 */
	good = !timeouts && !(end->data[1] & ISPOT_SOLO_CONTAMINATED) &&
	       admitted >= 2 && longest > wait_max;
	free(cs.c);
	gsess_close(&g);
	return good;
}

/*
 * Two threads that never pause: the first to come keeps the gate for the
 * block, the other waits till its end, past wait_max, with no timeout.
 */
TEST(pool_without_pauses_gives_the_block_to_one_thread)
{
	bool good = false;
	int attempt;

	ispot_require_module();
	klog_mark();
	for (attempt = 0; attempt < ATTEMPTS && !good; attempt++)
		good = pool_block_one_thread(50 * MS, 2, 0, 300);
	EXPECT_TRUE(good);
	expect_no_new_splat();
}

/*
 * Four threads whose calls hold the gate 40 ms each, asleep: the three
 * others wait the whole 800 ms block, eight times wait_max, with no
 * timeout, as only a holder inside one call for wait_max times one out.
 */
TEST(pool_of_four_waits_a_whole_block_without_timeout)
{
	bool good = false;
	int attempt;

	ispot_require_module();
	klog_mark();
	for (attempt = 0; attempt < ATTEMPTS && !good; attempt++)
		good = pool_block_one_thread(100 * MS, 4, 40000, 800);
	EXPECT_TRUE(good);
	expect_no_new_splat();
}

/*
 * Where the block admitting at @t ended (its END, or its admission's end
 * if sooner), or @t itself if none admitted then.
 */
static uint64_t block_end_at(const struct gsess *g, uint64_t t)
{
	const struct ispot_record *begin, *end;
	uint32_t b;

	for (b = 1; (begin = find_rec(g, ISPOT_REC_SOLO_BEGIN, b)); b++) {
		end = find_rec(g, ISPOT_REC_SOLO_END, b);
		if (t < begin->ts_ns || (end && t >= end->ts_ns) ||
		    t >= begin->data[1])
			continue;
		return end && end->ts_ns < begin->data[1] ? end->ts_ns :
							   begin->data[1];
	}
	return t;
}

/*
 * A reader that ends each block early and starts the next at once, over
 * a pool that never pauses: each new block frees the gate, one waiter
 * takes it, and the others must not wait through that block too.  Every
 * wait ends by the end of the block it began in plus 2 * wait_max (the
 * ABI's bound), and one still waiting then in a later block passes beside
 * its holder, which neither opens nor contaminates that block.  Whether
 * that held, with one wait_max of margin for a vCPU slow to run the woken
 * thread (without the bound, a thread that loses the race waits a whole
 * block more: 300 ms, six times wait_max), and some wait passed beside a
 * later block's holder, is returned: a stalled vCPU can still stretch a
 * wait or time one out for real, so the caller tries again.
 */
static bool chained_blocks_attempt(void)
{
	const uint64_t wait_max = 50 * MS;
	const int nblocks = 5, block_ms = 300;
	size_t i, waits = 0, across = 0, late = 0, beside = 0;
	int b, block, contaminated = 0;
	const struct ispot_record *end;
	uint64_t worst = 0;
	struct ispot_child c;
	struct calls cs;
	struct gsess g;

	shared_map();
	sh->hold_us = 2000;
	ASSERT_EQ(ispot_child_start(&c, tight_work, (void *)4L), 0);
	ASSERT_EQ(gsess_open(&g, c.pid, 256), 0);
	ispot_child_go(&c);
	STORE(sh->run, 1);
	sleep_draining(&g, 50);
	for (b = 1; b <= nblocks; b++) {
		/* The longest a block may be; END cuts it short. */
		block = solo(g.fd, ISPOT_SOLO_MAX_NS, wait_max);
		ASSERT_EQ(block, b);
		sleep_draining(&g, block_ms);
		ASSERT_EQ(solo(g.fd, 0, 0), block);
	}
	sleep_draining(&g, 100);
	STORE(sh->run, 0);
	ASSERT_EQ(reap(c.pid), 0);
	gsess_expect_no_drops(&g);
	expect_gate_records_sane(&g, 0);
	calls_build(&g, &cs);
	for (i = 0; i < cs.n; i++) {
		const struct call *x = &cs.c[i];
		const struct ispot_record *begin;
		uint64_t start, over;

		if (!x->gated || !(x->gate & ISPOT_GATE_WAITED))
			continue;
		waits++;
		start = x->t_entry - x->waited;
		/* It passed in a block that began while it waited. */
		begin = find_rec(&g, ISPOT_REC_SOLO_BEGIN, x->block);
		across += begin && begin->ts_ns > start;
		beside += (x->gate & (ISPOT_GATE_LATE | ISPOT_GATE_BESIDE)) ==
			  (ISPOT_GATE_LATE | ISPOT_GATE_BESIDE);
		over = x->t_entry - block_end_at(&g, start);
		if ((int64_t)over > (int64_t)worst)
			worst = over;
		late += (int64_t)over > (int64_t)(3 * wait_max);
	}
	for (b = 1; b <= nblocks; b++) {
		end = find_rec(&g, ISPOT_REC_SOLO_END, b);
		ASSERT_NE(end, NULL);
		if (end->data[1] & ISPOT_SOLO_CONTAMINATED) {
			TH_LOG("block %d ended contaminated (%llu timeouts)",
			       b, (unsigned long long)end->data[2]);
			contaminated++;
		}
	}
	TH_LOG("%zu waits, %zu into a later block, %zu passed beside a later "
	       "block's holder; the longest past its block's end by %.1f ms "
	       "(wait_max %.1f ms), %zu past 3 x wait_max",
	       waits, across, beside, (int64_t)worst / 1e6, wait_max / 1e6,
	       late);
	EXPECT_GT(waits, 0);
	free(cs.c);
	gsess_close(&g);
	return !late && across && beside && !contaminated;
}

TEST(chained_blocks_do_not_stretch_a_wait)
{
	bool good = false;
	int attempt;

	ispot_require_module();
	klog_mark();
	for (attempt = 0; attempt < ATTEMPTS && !good; attempt++)
		good = chained_blocks_attempt();
	EXPECT_TRUE(good);
	expect_no_new_splat();
}

/*
 * A block ended early by END, and no block after it, while its holder is
 * between calls and three threads wait at the gate for it: END lets the
 * holder go, which wakes them (END wakes them too: either alone lets them
 * through; with neither, each sleeps until it takes the holder for idle,
 * wait_max after it began to wait, and the test fails), and they pass at
 * once.  The holder makes no more calls, so nothing else wakes them.  An
 * attempt tells only if END came within wait_max / 4 of every wait's
 * start (a stalled vCPU can make the test slow to see them asleep), and
 * then each must pass within wait_max / 4 of END.  Whether the attempt
 * told, in *@told, and whether it passed are returned.
 */
static bool end_alone_attempt(bool *told)
{
	const uint64_t wait_max = ISPOT_SOLO_WAIT_MAX_NS;
	const int nwait = 3;
	const struct ispot_record *end;
	uint64_t worst = 0, latest_start = 0;
	struct calls cs;
	struct scene s;
	bool good = true;
	int i;

	scene_start(&s, LEAVE_RETURN, nwait, ISPOT_SOLO_MAX_NS, wait_max, 0);
	if (wait_waiters_at_gate(s.c.pid, nwait))
		good = false;
	ASSERT_EQ(solo(s.g.fd, 0, 0), s.block);
	for (i = 0; i < nwait; i++)
		wait_flag(&sh->returned[i]);
	ASSERT_EQ(reap(s.c.pid), 0);
	ASSERT_EQ(ispot_ioctl(s.g.fd, ISPOT_IOC_DISABLE, NULL), 0);
	gsess_expect_no_drops(&s.g);
	expect_gate_records_sane(&s.g, s.block);
	end = find_rec(&s.g, ISPOT_REC_SOLO_END, s.block);
	ASSERT_NE(end, NULL);
	EXPECT_FALSE(end->data[1] & ISPOT_SOLO_STOPPED);
	calls_build(&s.g, &cs);
	for (i = 0; i < nwait; i++) {
		const struct call *w = call_of(&cs, sh->tids[i],
					       probe_of(&s.g, gate_work),
					       NULL);
		uint64_t start;

		if (!w || !w->gated || !(w->gate & ISPOT_GATE_WAITED)) {
			TH_LOG("waiter %d: no call that waited", i);
			good = false;
			continue;
		}
		start = w->t_entry - w->waited;
		TH_LOG("waiter %d: gate flags %#x, waited %.1f ms", i, w->gate,
		       w->waited / 1e6);
		if (start > latest_start)
			latest_start = start;
		if ((int64_t)(w->t_entry - end->ts_ns) > (int64_t)worst)
			worst = w->t_entry - end->ts_ns;
		good &= !(w->gate & ISPOT_GATE_TIMEOUT);
	}
	*told = good && end->ts_ns - latest_start < wait_max / 4;
	TH_LOG("END %.1f ms after the last wait began; the last waiter "
	       "passed %.1f ms after END (wait_max %.1f ms)",
	       ((int64_t)(end->ts_ns - latest_start)) / 1e6,
	       (int64_t)worst / 1e6, wait_max / 1e6);
	free(cs.c);
	gsess_close(&s.g);
	return good && worst < wait_max / 4;
}

TEST(end_frees_the_waiters_of_an_idle_holder)
{
	bool good = false, told = false;
	int attempt;

	ispot_require_module();
	klog_mark();
	for (attempt = 0; attempt < ATTEMPTS && !(good && told); attempt++)
		good = end_alone_attempt(&told);
	EXPECT_TRUE(told);
	EXPECT_TRUE(good);
	expect_no_new_splat();
}

/*
 * A pool whose threads pause between calls, each for its own random
 * while, and blocks shorter than the pauses: the gate is mostly free when
 * a block's admission ends, so a thread often takes it just then, finds
 * the admission over and lets go.  That thread must pass, not take the
 * gate again and again (a wait on a stale clock did, in the entry
 * handler, until the watchdog saw both vCPUs stuck).
 */
static void *paced_thread(void *arg)
{
	long i = (long)arg;
	unsigned int seed = 1 + i;

	STORE(sh->tids[i], my_tid());
	while (!LOAD(sh->run))
		usleep(1000);
	while (LOAD(sh->run)) {
		gate_work(0, 0);
		INC(sh->busy[i]);
		usleep(rand_r(&seed) % 100);
	}
	return NULL;
}

static int paced_work(void *arg)
{
	return pool_run(paced_thread, (long)arg);
}

/* What a paced pool's blocks wrote: counted as drained, not kept. */
struct paced_tally {
	size_t ends, taken, late, bad_flags;
	struct ispot_record *buf;
	size_t cap;
};

static void paced_drain(struct gsess *g, struct paced_tally *t)
{
	size_t i, n = ispot_drain(g->fd, &g->rings, &t->buf, &t->cap, 0);

	for (i = 0; i < n; i += t->buf[i].nslots) {
		const struct ispot_record *r = &t->buf[i];

		t->ends += r->kind == ISPOT_REC_SOLO_END;
		if (r->kind != ISPOT_REC_GATE)
			continue;
		t->taken += !!(r->data[2] & ISPOT_GATE_TAKEN);
		t->late += !!(r->data[2] & ISPOT_GATE_LATE);
		t->bad_flags += !r->data[2] || (r->data[2] & ~0x1ffull) ||
				!(r->data[2] & (ISPOT_GATE_TIMEOUT |
						ISPOT_GATE_BESIDE)) != !r->ip;
	}
}

TEST(blocks_end_as_a_paced_pool_comes)
{
	const long nthreads = 3;
	const int nblocks = 1500;
	struct paced_tally tally = { 0 };
	int busy[NSLOTS], b, block = 0;
	unsigned int seed = 7;
	struct ispot_child c;
	struct gsess g;
	size_t i;

	ispot_require_module();
	shared_map();
	klog_mark();
	ASSERT_EQ(ispot_child_start(&c, paced_work, (void *)nthreads), 0);
	ASSERT_EQ(gsess_open(&g, c.pid, 256), 0);
	ispot_child_go(&c);
	STORE(sh->run, 1);
	for (b = 0; b < nblocks; b++) {
		/*
		 * Admission of 1 to 4 us, or 20 to 320 us, then its end,
		 * then the next: the short ones end while a thread takes.
		 * Every 16th lasts 20 ms, longer than a pause, so that the
		 * gate is taken even where calls are slow (the debug
		 * kernel beside a second guest took none of the others).
		 */
		uint64_t duration = b % 16 == 8 ? 20 * MS :
				    b % 2 ? 1000ull + rand_r(&seed) % 3000 :
				    20000ull + rand_r(&seed) % 300000;

		block = solo(g.fd, duration, MS);
		ASSERT_EQ(block, b + 1);
		usleep(duration / 1000 + 50);
		if (b % 16 == 15)
			paced_drain(&g, &tally);
	}
	ASSERT_EQ(solo(g.fd, 0, 0), block);
	/* Every thread still calls once the blocks are over. */
	for (i = 0; i < (size_t)nthreads; i++)
		busy[i] = LOAD(sh->busy[i]);
	for (b = 0; b < 10; b++) {
		usleep(20000);
		paced_drain(&g, &tally);
	}
	for (i = 0; i < (size_t)nthreads; i++)
		EXPECT_GT(LOAD(sh->busy[i]), busy[i]);
	STORE(sh->run, 0);
	ASSERT_EQ(reap(c.pid), 0);
	paced_drain(&g, &tally);
	gsess_expect_no_drops(&g);
	TH_LOG("%d blocks: %zu took the gate, %zu calls passed late",
	       nblocks, tally.taken, tally.late);
	EXPECT_EQ(tally.ends, nblocks);
	EXPECT_GE(tally.taken, 1);
	EXPECT_EQ(tally.bad_flags, 0);
	free(tally.buf);
	gsess_close(&g);
	expect_no_new_splat();
}

/* ---- 3. nested calls and recursion ---- */

TEST(nested_and_recursive_calls_release_the_gate)
{
	const uint64_t wait_max = 100 * MS;
	bool prompt = false;
	int attempt;

	ispot_require_module();
	klog_mark();
	for (attempt = 0; attempt < ATTEMPTS && !prompt; attempt++) {
		const struct call *outer, *inner, *rec, *top = NULL;
		size_t from = 0, i, nested = 0, admitted = 0, exits = 0;
		struct calls cs;
		struct scene s;
		uint32_t h;

		scene_start(&s, LEAVE_RECURSE, 1, 1000 * MS, wait_max, 0);
		if (wait_waiters_at_gate(s.c.pid, 1))
			TH_LOG("attempt %d: the waiter did not stay at the gate",
			       attempt);
		STORE(sh->release, 1);
		ASSERT_EQ(reap(s.c.pid), 0);
		scene_end(&s);
		calls_build(&s.g, &cs);
		EXPECT_EQ(cs.gate_orphans, 0);
		EXPECT_EQ(cs.exit_orphans, 0);
		h = sh->holder_tid;

		outer = call_of(&cs, h, probe_of(&s.g, gate_outer), NULL);
		inner = call_of(&cs, h, probe_of(&s.g, gate_inner), NULL);
		ASSERT_NE(outer, NULL);
		ASSERT_NE(inner, NULL);
		EXPECT_EQ(outer->gate, ISPOT_GATE_ADMITTED | ISPOT_GATE_TAKEN);
		EXPECT_EQ(inner->gate, ISPOT_GATE_NESTED);
		EXPECT_LT(inner->sp, outer->sp);
		EXPECT_LT(outer->t_entry, inner->t_entry);
		EXPECT_LT(inner->t_exit, outer->t_exit);
		while ((rec = call_of(&cs, h, probe_of(&s.g, gate_rec),
				      &from))) {
			if (!top)
				top = rec;
			exits += rec->t_exit != 0;
			if (rec->gate == ISPOT_GATE_ADMITTED)
				admitted++;
			else if (rec->gate == ISPOT_GATE_NESTED)
				nested++;
			else
				TH_LOG("gate_rec: flags %#x", rec->gate);
		}
		ASSERT_NE(top, NULL);
		/* The outermost took the gate, the nine below passed. */
		EXPECT_EQ(top->gate, ISPOT_GATE_ADMITTED);
		EXPECT_EQ(admitted, 1);
		EXPECT_EQ(nested, REC_DEPTH - 1);
		EXPECT_EQ(exits, REC_DEPTH);
		/*
		 * The waiter came in after the recursion returned, at the
		 * block's end, the holder keeping the gate between its calls
		 * till then (unless a stalled vCPU timed it out first).
		 */
		prompt = waiter_let_in(&s, &cs, 0);
		for (i = 0; i < cs.n; i++)
			if (cs.c[i].tid == (uint32_t)sh->tids[0] &&
			    cs.c[i].t_entry < top->t_exit)
				prompt = false;
		if (prompt)
			EXPECT_FALSE(s.end_flags & ISPOT_SOLO_CONTAMINATED);
		free(cs.c);
		gsess_close(&s.g);
	}
	EXPECT_TRUE(prompt);
	expect_no_new_splat();
}

/* ---- 4. hand-off through a condition variable ---- */

#define HANDOFFS	3

static void *taker_thread(void *arg)
{
	int i;

	(void)arg;
	STORE(sh->holder_tid, my_tid());
	wait_flag(&sh->go);
	for (i = 1; i <= HANDOFFS; i++)
		gate_take(i);
	return NULL;
}

static int handoff_work(void *arg)
{
	pthread_t t;
	int i;

	(void)arg;
	if (pthread_create(&t, NULL, taker_thread, NULL))
		return 1;
	STORE(sh->tids[0], my_tid());
	for (i = 1; i <= HANDOFFS; i++) {
		/* The taker waits inside its i-th call for what we give. */
		while (LOAD(sh->take_seq) < i)
			usleep(500);
		if (sh->handoff_order == HANDOFF_TAKER_ASLEEP)
			while (task_state(getpid(), LOAD(sh->holder_tid)) != 'S')
				usleep(200);
		gate_give();
	}
	pthread_join(t, NULL);
	return 0;
}

TEST(handoff_through_condvar_times_out)
{
	const uint64_t wait_max = 20 * MS;
	const struct ispot_record *end;
	const struct call *give, *take;
	struct ispot_child c;
	struct calls cs;
	struct gsess g;
	int block;

	ispot_require_module();
	shared_map();
	klog_mark();
	ASSERT_EQ(ispot_child_start(&c, handoff_work, NULL), 0);
	ASSERT_EQ(gsess_open(&g, c.pid, 64), 0);
	block = solo(g.fd, 1000 * MS, wait_max);
	ASSERT_EQ(block, 1);
	ispot_child_go(&c);
	STORE(sh->go, 1);
	/* No hang: the giver's wait at the gate times out. */
	ASSERT_EQ(reap(c.pid), 0);
	ASSERT_EQ(ispot_ioctl(g.fd, ISPOT_IOC_DISABLE, NULL), 0);
	gsess_expect_no_drops(&g);
	expect_gate_records_sane(&g, block);
	end = find_rec(&g, ISPOT_REC_SOLO_END, block);
	ASSERT_NE(end, NULL);
	EXPECT_TRUE(end->data[1] & ISPOT_SOLO_CONTAMINATED);
	EXPECT_GE(end->data[2], 1);
	calls_build(&g, &cs);
	take = call_of(&cs, sh->holder_tid, probe_of(&g, gate_take), NULL);
	give = call_of(&cs, sh->tids[0], probe_of(&g, gate_give), NULL);
	ASSERT_NE(take, NULL);
	ASSERT_NE(give, NULL);
	EXPECT_EQ(take->gate, ISPOT_GATE_ADMITTED | ISPOT_GATE_TAKEN);
	ASSERT_TRUE(give->gated);
	EXPECT_EQ(give->gate, ISPOT_GATE_WAITED | ISPOT_GATE_TIMEOUT);
	EXPECT_GE(give->waited, wait_max);
	TH_LOG("the giver waited %.1f ms (wait_max %.1f)", give->waited / 1e6,
	       wait_max / 1e6);
	/* Then the gate stays open: the later hand-offs pass ungated. */
	EXPECT_EQ(end->data[2], 1);
	EXPECT_NE(take->t_exit, 0);
	EXPECT_GT(take->t_exit, give->t_entry);
	free(cs.c);
	gsess_close(&g);
	expect_no_new_splat();
}

/*
 * With wait records (ISPOT_SETUP_WAITS, as ispotctl has them) the module
 * sees the holder wait in a futex, maybe for what the waiter has: the
 * giver passes beside it, ungated, whichever of the two came first, and
 * no wait times out.
 */
static void handoff_beside(enum handoff_order order)
{
	const uint64_t wait_max = 100 * MS;
	const struct ispot_record *end;
	size_t i, gives = 0, takes = 0;
	struct ispot_child c;
	struct calls cs;
	struct gsess g;
	int block;

	shared_map();
	klog_mark();
	sh->handoff_order = order;
	ASSERT_EQ(ispot_child_start(&c, handoff_work, NULL), 0);
	gsess_flags = ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS;
	ASSERT_EQ(gsess_open(&g, c.pid, 64), 0);
	block = solo(g.fd, 1000 * MS, wait_max);
	ASSERT_EQ(block, 1);
	ispot_child_go(&c);
	STORE(sh->go, 1);
	ASSERT_EQ(reap(c.pid), 0);
	ASSERT_EQ(ispot_ioctl(g.fd, ISPOT_IOC_DISABLE, NULL), 0);
	gsess_expect_no_drops(&g);
	expect_gate_records_sane(&g, block);
	end = find_rec(&g, ISPOT_REC_SOLO_END, block);
	ASSERT_NE(end, NULL);
	calls_build(&g, &cs);
	for (i = 0; i < cs.n; i++) {
		const struct call *x = &cs.c[i];

		if (x->probe == probe_of(&g, gate_take)) {
			takes++;
			/* The first took the gate; it kept it for the rest. */
			EXPECT_EQ(x->gate & ~ISPOT_GATE_TAKEN,
				  ISPOT_GATE_ADMITTED);
		}
		if (x->probe != probe_of(&g, gate_give))
			continue;
		gives++;
		TH_LOG("give %zu: gate flags %#x, waited %.1f ms", gives,
		       x->gate, x->waited / 1e6);
		EXPECT_TRUE(x->gated);
		EXPECT_EQ(x->gate & ~ISPOT_GATE_WAITED, ISPOT_GATE_BESIDE);
		if (order == HANDOFF_TAKER_ASLEEP)
			EXPECT_EQ(x->gate, ISPOT_GATE_BESIDE);
		else
			EXPECT_EQ(x->gate,
				  ISPOT_GATE_WAITED | ISPOT_GATE_BESIDE);
		EXPECT_EQ(x->displaced, (uint64_t)sh->holder_tid);
	}
	EXPECT_EQ(takes, HANDOFFS);
	EXPECT_EQ(gives, HANDOFFS);
	EXPECT_EQ(end->data[2], 0);
	EXPECT_FALSE(end->data[1] & ISPOT_SOLO_CONTAMINATED);
	free(cs.c);
	gsess_close(&g);
	expect_no_new_splat();
}

TEST(handoff_passes_beside_a_holder_asleep_in_a_futex)
{
	ispot_require_module();
	handoff_beside(HANDOFF_TAKER_ASLEEP);
}

TEST(handoff_waiter_passes_beside_once_the_holder_sleeps)
{
	ispot_require_module();
	handoff_beside(HANDOFF_GIVER_WAITING);
}

/* ---- 5. SIGKILL, pthread_exit() ---- */

TEST(sigkill_of_holder_and_waiters)
{
	const uint64_t wait_max = 100 * MS;
	bool killed_waiting = false;
	int attempt;

	ispot_require_module();
	klog_mark();
	for (attempt = 0; attempt < ATTEMPTS && !killed_waiting; attempt++) {
		struct calls cs;
		struct scene s;
		size_t i;
		int at;

		scene_start(&s, LEAVE_PARK, NWAIT, 1000 * MS, wait_max, 0);
		at = wait_waiters_at_gate(s.c.pid, NWAIT);
		/* A fatal signal takes the whole group, holder and all. */
		ASSERT_EQ(kill(s.c.pid, SIGKILL), 0);
		EXPECT_EQ(reap(s.c.pid), 128 + SIGKILL);
		scene_end(&s);
		calls_build(&s.g, &cs);
		for (i = 0; i < cs.n; i++) {
			const struct call *x = &cs.c[i];

			if (!at)	/* nothing returned */
				EXPECT_EQ(x->t_exit, 0);
			if (!x->gated)
				continue;
			TH_LOG("tid %u: gate flags %#x, waited %.1f ms", x->tid,
			       x->gate, x->waited / 1e6);
			/* Woken by the kill, not by its timeout. */
			if (x->gate == (ISPOT_GATE_WAITED | ISPOT_GATE_OPEN) &&
			    x->waited < wait_max)
				killed_waiting = true;
		}
		if (at)
			TH_LOG("attempt %d: waiters left the gate before the kill",
			       attempt);
		free(cs.c);
		gsess_close(&s.g);
	}
	EXPECT_TRUE(killed_waiting);
	expect_no_new_splat();
}

TEST(holder_pthread_exit_releases_promptly)
{
	const uint64_t wait_max = 100 * MS;
	bool prompt = false;
	int attempt;

	ispot_require_module();
	klog_mark();
	for (attempt = 0; attempt < ATTEMPTS && !prompt; attempt++) {
		const struct call *hold, *w;
		const struct ispot_record *texit = NULL;
		struct calls cs;
		struct scene s;
		size_t i;

		scene_start(&s, LEAVE_PTHREAD_EXIT, 1, 1000 * MS, wait_max, 0);
		if (wait_waiters_at_gate(s.c.pid, 1))
			TH_LOG("attempt %d: the waiter did not stay at the gate",
			       attempt);
		STORE(sh->release, 1);
		ASSERT_EQ(reap(s.c.pid), 0);
		scene_end(&s);
		calls_build(&s.g, &cs);
		hold = call_of(&cs, sh->holder_tid, probe_of(&s.g, gate_hold),
			       NULL);
		w = call_of(&cs, sh->tids[0], probe_of(&s.g, gate_work), NULL);
		ASSERT_NE(hold, NULL);
		ASSERT_NE(w, NULL);
		EXPECT_EQ(hold->gate, ISPOT_GATE_ADMITTED | ISPOT_GATE_TAKEN);
		EXPECT_EQ(hold->t_exit, 0);	/* it never returned */
		for (i = 0; i < s.g.n; i++)
			if (s.g.recs[i].kind == ISPOT_REC_TASK_EXIT &&
			    s.g.recs[i].tid == (uint32_t)sh->holder_tid)
				texit = &s.g.recs[i];
		ASSERT_NE(texit, NULL);
		/* Let in by the holder's exit, not by a timeout. */
		prompt = waiter_let_in(&s, &cs, 0) &&
			 (w->gate & ISPOT_GATE_ADMITTED) &&
			 w->t_entry > texit->ts_ns;
		if (prompt)
			EXPECT_FALSE(s.end_flags & ISPOT_SOLO_CONTAMINATED);
		free(cs.c);
		gsess_close(&s.g);
	}
	EXPECT_TRUE(prompt);
	expect_no_new_splat();
}

/* ---- 6. exit() and exec inside a gated call ---- */

/* The holder leaves its gated call by @leave, @nwait waiters at the gate. */
static void leave_and_check(int leave, int nwait)
{
	const uint64_t wait_max = 100 * MS;
	struct calls cs;
	struct scene s;
	size_t i;

	klog_mark();
	scene_start(&s, leave, nwait, 1000 * MS, wait_max, 0);
	if (wait_waiters_at_gate(s.c.pid, nwait))
		TH_LOG("the waiters did not stay at the gate");
	STORE(sh->release, 1);
	/* No hang, and the holder's way out ended the target well. */
	ASSERT_EQ(reap(s.c.pid), 0);
	scene_end(&s);
	calls_build(&s.g, &cs);
	EXPECT_EQ(cs.gate_orphans, 0);
	for (i = 0; i < cs.n; i++) {
		const struct call *x = &cs.c[i];

		if (x->gated)
			TH_LOG("tid %u probe %u: gate flags %#x, waited %.1f ms",
			       x->tid, x->probe, x->gate, x->waited / 1e6);
	}
	if (leave == LEAVE_EXEC_SELF) {
		/*
		 * The new image's gated calls: the holder's first takes the
		 * gate again (its old call is gone with the old image), and
		 * its threads then get in without a timeout.
		 */
		const struct ispot_record *begin =
			find_rec(&s.g, ISPOT_REC_SOLO_BEGIN, s.block);
		const struct call *first = NULL;
		size_t after = 0, timeouts = 0;

		ASSERT_NE(begin, NULL);
		for (i = 0; i < cs.n; i++) {
			const struct call *x = &cs.c[i];

			if (x->probe != probe_of(&s.g, gate_work))
				continue;
			if (!first)
				first = x;
			after++;
			EXPECT_NE(x->t_exit, 0);
			timeouts += !!(x->gate & ISPOT_GATE_TIMEOUT);
		}
		EXPECT_EQ(after, 1 + 2 * 4);
		ASSERT_NE(first, NULL);
		/* Taken again by the thread that exec'd, if still admitting. */
		EXPECT_EQ(first->tid, (uint32_t)s.c.pid);
		if (first->t_entry < begin->data[1])
			EXPECT_EQ(first->gate, ISPOT_GATE_ADMITTED);
		EXPECT_EQ(timeouts, 0);
		EXPECT_FALSE(s.end_flags & ISPOT_SOLO_CONTAMINATED);
	}
	free(cs.c);
	gsess_close(&s.g);
	expect_no_new_splat();
}

TEST(exit_inside_gated_call)
{
	ispot_require_module();
	leave_and_check(LEAVE_EXIT, NWAIT);
}

TEST(exec_inside_gated_call)
{
	ispot_require_module();
	leave_and_check(LEAVE_EXEC_TRUE, NWAIT);
}

TEST(exec_self_inside_gated_call)
{
	ispot_require_module();
	/*
	 * No waiters before the exec here (exec_inside_gated_call has them):
	 * one that an exec slower than wait_max times out would open the
	 * gate, and leave nothing for the new image's calls to show.
	 */
	leave_and_check(LEAVE_EXEC_SELF, 0);
}

/* The image LEAVE_EXEC_SELF execs into: gated calls, then threads. */
static void *after_exec_thread(void *arg)
{
	int i;

	for (i = 0; i < 4; i++)
		gate_work(100, 0);
	return arg;
}

static int after_exec_main(void)
{
	pthread_t t[2];
	int i;

	/* sh is gone with the old image: the test reads times instead. */
	gate_work(100, 0);
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, after_exec_thread, NULL))
			return 1;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}

/* ---- 7. longjmp out of a gated call ---- */

TEST(longjmp_out_of_gated_call)
{
	const uint64_t wait_max = 100 * MS;
	bool prompt = false, bounded = false;
	int attempt;

	ispot_require_module();
	klog_mark();
	/*
	 * The holder jumps out of its call, keeps the gate 10 ms, and its
	 * next gated call at the same height is its outermost (admitted, not
	 * nested), and returns: the waiter passes at the block's end, with
	 * no timeout.
	 */
	for (attempt = 0; attempt < ATTEMPTS && !prompt; attempt++) {
		const struct call *hold, *again, *w;
		struct calls cs;
		struct scene s;

		scene_start(&s, LEAVE_LONGJMP, 1, 1000 * MS, wait_max, 10);
		if (wait_waiters_at_gate(s.c.pid, 1))
			TH_LOG("attempt %d: the waiter did not stay at the gate",
			       attempt);
		STORE(sh->release, 1);
		ASSERT_EQ(reap(s.c.pid), 0);
		scene_end(&s);
		calls_build(&s.g, &cs);
		EXPECT_EQ(cs.exit_orphans, 0);
		hold = call_of(&cs, sh->holder_tid, probe_of(&s.g, gate_hold),
			       NULL);
		ASSERT_NE(hold, NULL);
		EXPECT_EQ(hold->gate, ISPOT_GATE_ADMITTED | ISPOT_GATE_TAKEN);
		EXPECT_EQ(hold->t_exit, 0);	/* its return never fired */
		again = call_of(&cs, sh->holder_tid, probe_of(&s.g, gate_work),
				NULL);
		w = call_of(&cs, sh->tids[0], probe_of(&s.g, gate_work), NULL);
		ASSERT_NE(again, NULL);
		ASSERT_NE(w, NULL);
		EXPECT_GE(again->sp, hold->sp);
		EXPECT_NE(again->t_exit, 0);
		TH_LOG("the holder's next call: gate flags %#x", again->gate);
		/* Unless a stalled vCPU timed the waiter out first. */
		prompt = waiter_let_in(&s, &cs, 0) &&
			 again->gate == ISPOT_GATE_ADMITTED &&
			 w->t_entry > again->t_exit;
		if (prompt)
			EXPECT_FALSE(s.end_flags & ISPOT_SOLO_CONTAMINATED);
		free(cs.c);
		gsess_close(&s.g);
	}
	EXPECT_TRUE(prompt);

	/*
	 * The holder jumps out and makes no gated call for longer than
	 * wait_max: the waiter is stuck no longer than wait_max.
	 */
	{
		const struct call *w, *again;
		struct calls cs;
		struct scene s;

		scene_start(&s, LEAVE_LONGJMP, 1, 1000 * MS, 20 * MS, 300);
		if (wait_waiters_at_gate(s.c.pid, 1))
			TH_LOG("the waiter did not stay at the gate");
		STORE(sh->release, 1);
		ASSERT_EQ(reap(s.c.pid), 0);
		scene_end(&s);
		calls_build(&s.g, &cs);
		w = call_of(&cs, sh->tids[0], probe_of(&s.g, gate_work), NULL);
		again = call_of(&cs, sh->holder_tid, probe_of(&s.g, gate_work),
				NULL);
		ASSERT_NE(w, NULL);
		ASSERT_NE(again, NULL);
		TH_LOG("waiter: gate flags %#x, waited %.1f ms (wait_max 20)",
		       w->gate, w->waited / 1e6);
		/*
		 * Its wait timed out, and its call ran while the holder
		 * still slept off the gate: stuck no longer than wait_max.
		 */
		EXPECT_EQ(w->gate, ISPOT_GATE_WAITED | ISPOT_GATE_TIMEOUT);
		EXPECT_GE(w->waited, 20 * MS);
		EXPECT_NE(w->t_exit, 0);
		EXPECT_TRUE(s.end_flags & ISPOT_SOLO_CONTAMINATED);
		bounded = w->t_entry < again->t_entry;
		free(cs.c);
		gsess_close(&s.g);
	}
	EXPECT_TRUE(bounded);
	expect_no_new_splat();
}

/* ---- 8. the tracer killed while threads wait; then unload ---- */

static bool module_unloadable(void)
{
	char v = 'N';
	int fd = open("/sys/module/ispot/parameters/keep_tracepoints",
		      O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &v, 1) != 1)
			v = 'N';
		close(fd);
	}
	return v != 'Y' && geteuid() == 0 &&
	       access("/ispot/selftests/kmod/load_ispot.sh", X_OK) == 0;
}

TEST(tracer_killed_while_threads_wait_then_unload)
{
	const uint64_t wait_max = 100 * MS;
	bool prompt = false, unloaded = false;
	int attempt;

	ispot_require_module();
	klog_mark();
	for (attempt = 0; attempt < ATTEMPTS && !prompt; attempt++) {
		struct ispot_child c;
		int ready[2], p[2], st, i;
		uint64_t t_kill;
		pid_t tracer;
		char x;

		shared_map();
		sh->leave = LEAVE_PARK;
		sh->nwait = NWAIT;
		ASSERT_EQ(pipe(p), 0);
		sh->fd = p[0];
		ASSERT_EQ(pipe(ready), 0);
		ASSERT_EQ(ispot_child_start(&c, holder_work, NULL), 0);
		tracer = fork();
		ASSERT_GE(tracer, 0);
		if (tracer == 0) {
			struct gsess g;

			/* As ispotctl: rings mapped, a block on. */
			if (gsess_open(&g, c.pid, 64) ||
			    solo(g.fd, 1000 * MS, wait_max) != 1)
				_exit(1);
			ispot_child_go(&c);
			STORE(sh->go, 1);
			if (write(ready[1], "r", 1) != 1)
				_exit(2);
			pause();
			_exit(3);
		}
		close(c.go);
		close(ready[1]);
		ASSERT_EQ(read(ready[0], &x, 1), 1);
		close(ready[0]);
		if (wait_waiters_at_gate(c.pid, NWAIT))
			TH_LOG("attempt %d: waiters left the gate first",
			       attempt);
		t_kill = now_ns();
		ASSERT_EQ(kill(tracer, SIGKILL), 0);
		ASSERT_EQ(waitpid(tracer, &st, 0), tracer);
		ASSERT_TRUE(WIFSIGNALED(st));
		/* The waiters go on at once, not at their timeout. */
		prompt = true;
		for (i = 0; i < NWAIT; i++) {
			uint64_t w;

			wait_flag(&sh->returned[i]);
			w = sh->t_ret[i] - sh->t_call[i];
			TH_LOG("waiter %d: in its call %.1f ms, %.1f after the "
			       "kill (wait_max %.1f)", i, w / 1e6,
			       ((int64_t)(sh->t_ret[i] - t_kill)) / 1e6,
			       wait_max / 1e6);
			if (w >= wait_max)
				prompt = false;
		}
		/*
		 * The holder still sits in its call, on a hijacked return:
		 * the module goes, then the call returns, unharmed.
		 */
		if (prompt && module_unloadable()) {
			EXPECT_EQ(system("rmmod ispot"), 0);
			unloaded = true;
		}
		ASSERT_EQ(write(p[1], "x", 1), 1);
		EXPECT_EQ(reap(c.pid), 0);
		close(p[1]);
		close(p[0]);
		if (unloaded)
			ASSERT_EQ(system("/ispot/selftests/kmod/load_ispot.sh"),
				  0);
	}
	EXPECT_TRUE(prompt);
	if (!unloaded)
		TH_LOG("module not unloaded (keep_tracepoints, or no root)");
	expect_no_new_splat();
}

/* ---- 9. a crowd ---- */

/* The burst the crowd may start: a futex word, all woken at once. */
static uint32_t crowd_burst;

static void crowd_wait(uint32_t b)
{
	uint32_t v;

	while ((v = LOAD(crowd_burst)) < b)
		syscall(SYS_futex, &crowd_burst, FUTEX_WAIT_PRIVATE, v, NULL,
			NULL, 0);
}

/* Two bursts of one call, then home on a third cue (no exits before). */
static void *crowd_thread(void *arg)
{
	uint32_t b;

	for (b = 1; b <= 2; b++) {
		crowd_wait(b);
		gate_work(0, 200);
		INC(sh->done);
	}
	crowd_wait(3);
	return arg;
}

/* NMANY threads call once per burst, all at once; bursts on cue. */
static int crowd_work(void *arg)
{
	pthread_attr_t attr;
	pthread_t *t;
	int i, b;

	(void)arg;
	t = calloc(NMANY, sizeof(*t));
	if (!t || pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, 64 * 1024))
		return 1;
	for (i = 0; i < NMANY; i++)
		if (pthread_create(&t[i], &attr, crowd_thread, NULL))
			return 2;
	STORE(sh->run, 1);
	for (b = 1; b <= 3; b++) {
		while (LOAD(sh->burst) < b)
			usleep(1000);
		STORE(crowd_burst, (uint32_t)b);
		syscall(SYS_futex, &crowd_burst, FUTEX_WAKE_PRIVATE, INT_MAX,
			NULL, NULL, 0);
	}
	for (i = 0; i < NMANY; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}

/* Run burst @b; the time from cue to the last call's return. */
static uint64_t crowd_burst_run(int b)
{
	uint64_t t0 = now_ns();

	STORE(sh->burst, b);
	while (LOAD(sh->done) < b * NMANY)
		usleep(2000);
	return now_ns() - t0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* When the crowd's calls entered and returned: half of them, all. */
static void crowd_quantiles(const struct calls *cs, uint64_t begin)
{
	uint64_t *e[2], *x[2], first[2] = { ~0ull, ~0ull };
	size_t n[2] = { 0 }, i, k, q;

	for (k = 0; k < 2; k++) {
		e[k] = calloc(cs->n + 1, sizeof(uint64_t));
		x[k] = calloc(cs->n + 1, sizeof(uint64_t));
	}
	for (i = 0; i < cs->n; i++) {
		k = cs->c[i].t_entry >= begin;
		e[k][n[k]] = cs->c[i].t_entry;
		x[k][n[k]++] = cs->c[i].t_exit;
		if (cs->c[i].t_entry < first[k])
			first[k] = cs->c[i].t_entry;
	}
	for (k = 0; k < 2; k++) {
		qsort(e[k], n[k], sizeof(uint64_t), u64_cmp);
		qsort(x[k], n[k], sizeof(uint64_t), u64_cmp);
		for (q = 2; q <= 4 && n[k]; q += 2) {
			size_t j = (n[k] - 1) * q / 4;

			TH_LOG("burst %zu: %zu%% of the calls entered by %.1f "
			       "ms, returned by %.1f ms", k + 1, q * 25,
			       (e[k][j] - first[k]) / 1e6,
			       (x[k][j] - first[k]) / 1e6);
		}
		free(e[k]);
		free(x[k]);
	}
}

TEST(thousand_threads_at_the_gate)
{
	const uint64_t wait_max = 20 * MS;
	uint64_t t_free, t_block, max_wait = 0;
	size_t i, gated = 0, timeouts = 0, entries = 0, exits = 0, over = 0;
	size_t opened = 0;
	const struct ispot_record *end, *begin;
	size_t by_flags[64] = { 0 };
	uint32_t max_flags = 0;
	struct ispot_child c;
	struct calls cs;
	struct gsess g;
	int block;

	ispot_require_module();
	shared_map();
	klog_mark();
	ASSERT_EQ(ispot_child_start(&c, crowd_work, NULL), 0);
	ASSERT_EQ(gsess_open(&g, c.pid, 256), 0);
	ispot_child_go(&c);
	wait_flag(&sh->run);
	t_free = crowd_burst_run(1);
	block = solo(g.fd, ISPOT_SOLO_MAX_NS, wait_max);
	ASSERT_EQ(block, 1);
	t_block = crowd_burst_run(2);
	ASSERT_EQ(solo(g.fd, 0, 0), block);
	STORE(sh->burst, 3);
	ASSERT_EQ(reap(c.pid), 0);
	gsess_expect_no_drops(&g);
	expect_gate_records_sane(&g, block);
	end = find_rec(&g, ISPOT_REC_SOLO_END, block);
	begin = find_rec(&g, ISPOT_REC_SOLO_BEGIN, block);
	ASSERT_NE(end, NULL);
	ASSERT_NE(begin, NULL);
	calls_build(&g, &cs);
	EXPECT_EQ(cs.gate_orphans, 0);
	EXPECT_EQ(cs.exit_orphans, 0);
	for (i = 0; i < cs.n; i++) {
		const struct call *x = &cs.c[i];

		entries++;
		exits += x->t_exit != 0;
		if (!x->gated)
			continue;
		gated++;
		if (x->gate < 64)
			by_flags[x->gate]++;
		if (x->gate & ISPOT_GATE_TIMEOUT) {
			timeouts++;
			TH_LOG("a wait timed out %.1f ms into the block",
			       (x->t_entry - begin->ts_ns) / 1e6);
		}
		opened += (x->gate & (ISPOT_GATE_OPEN | ISPOT_GATE_TIMEOUT)) ==
			  ISPOT_GATE_OPEN;
		if (x->waited > max_wait) {
			max_wait = x->waited;
			max_flags = x->gate;
		}
		if (x->waited > wait_max)
			over++;
	}
	crowd_quantiles(&cs, begin->ts_ns);
	for (i = 0; i < 64; i++)
		if (by_flags[i])
			TH_LOG("%zu gated calls with flags %#zx", by_flags[i], i);
	TH_LOG("%zu waits longer than wait_max; the longest has flags %#x",
	       over, max_flags);
	TH_LOG("burst without a block %.0f ms, with one %.0f ms; %zu gated "
	       "calls, %zu timeouts, longest wait %.1f ms (wait_max %.0f)",
	       t_free / 1e6, t_block / 1e6, gated, timeouts, max_wait / 1e6,
	       wait_max / 1e6);
	/* Nothing lost: every call of both bursts, entered and returned. */
	EXPECT_EQ(entries, 2 * NMANY);
	EXPECT_EQ(exits, 2 * NMANY);
	EXPECT_GE(gated, 1);
	/*
	 * The first thread makes its one call and keeps the gate, idle:
	 * after wait_max a waiter opens the gate for the rest of the block
	 * (or, on a stalled vCPU, a timeout does).  The crowd pays about
	 * one wait_max, and then the time the scheduler takes to run the
	 * crowd once, which the burst without a block shows, not one
	 * wait_max per thread, nor the second the block lasts.
	 */
	TH_LOG("%zu calls passed a gate opened on an idle holder", opened);
	EXPECT_GE(opened + timeouts, 1);
	EXPECT_EQ(end->data[2], timeouts);
	EXPECT_EQ(!!(end->data[1] & ISPOT_SOLO_CONTAMINATED), !!timeouts);
	EXPECT_LT(t_block, 3 * t_free + 10 * wait_max);
	EXPECT_LT(max_wait, 3 * t_free + 10 * wait_max);
	free(cs.c);
	gsess_close(&g);
	expect_no_new_splat();
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--after-exec"))
		return after_exec_main();
	return ispot_test_main();
}
