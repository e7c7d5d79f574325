// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: many threads on many probes with overflowing rings, a target that
 * forks and execs (and vforks) while traced, and a thousand session cycles
 * against a running target.
 *
 * The guest is emulated (50-100x slower than hardware): sizes are chosen so
 * that each test runs in well under a minute there, and nothing compares a
 * time with a constant.  Counts are exact.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "ispot_kmod_test.h"

static volatile int sink;

/*
 * 32 distinct probed functions: each adds its own constant, so that no two
 * are folded into one (-fipa-icf), and none is inlined or cloned.
 */
#define SFN(n)								\
	__attribute__((noinline, noclone, used)) int sfn_##n(int x)	\
	{								\
		sink += x;						\
		__asm__ volatile("" ::: "memory");			\
		return x + n;						\
	}
SFN(0) SFN(1) SFN(2) SFN(3) SFN(4) SFN(5) SFN(6) SFN(7)
SFN(8) SFN(9) SFN(10) SFN(11) SFN(12) SFN(13) SFN(14) SFN(15)
SFN(16) SFN(17) SFN(18) SFN(19) SFN(20) SFN(21) SFN(22) SFN(23)
SFN(24) SFN(25) SFN(26) SFN(27) SFN(28) SFN(29) SFN(30) SFN(31)

#define NR_FNS		32
#define NR_THREADS	64

static int (*const fns[NR_FNS])(int) = {
	sfn_0, sfn_1, sfn_2, sfn_3, sfn_4, sfn_5, sfn_6, sfn_7,
	sfn_8, sfn_9, sfn_10, sfn_11, sfn_12, sfn_13, sfn_14, sfn_15,
	sfn_16, sfn_17, sfn_18, sfn_19, sfn_20, sfn_21, sfn_22, sfn_23,
	sfn_24, sfn_25, sfn_26, sfn_27, sfn_28, sfn_29, sfn_30, sfn_31,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Memory the target writes and the test reads: MAP_SHARED survives fork. */
static void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(p, MAP_FAILED);
	memset(p, 0, size);
	return p;
}

static void session_stats(int fd, struct ispot_ring_stats *rs, uint32_t nr,
			  struct ispot_probe_stats *ps, uint32_t np,
			  struct ispot_stats *out)
{
	struct ispot_stats st = {
		.rings = (uintptr_t)rs,
		.probes = (uintptr_t)ps,
		.nr_rings = nr,
		.nr_probes = np,
	};

	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_STATS, &st), 0);
	if (out)
		*out = st;
}

/*
 * Drain every ring, checking each record as it goes, and release it.
 * @consumed counts records per ring; @entries counts ENTRY records per
 * probe id.  Returns the number of malformed records (each logged, at most
 * a few).
 */
struct drain_check {
	pid_t tgid;
	uint32_t nr_probes;
	uint32_t allowed_kinds;		/* bit per ISPOT_REC_* */
	uint64_t consumed[256];
	uint64_t entries[NR_FNS + 1];
	uint64_t exits[NR_FNS + 1];
	uint64_t stacks;
	uint64_t records;
	uint64_t bad;
};

static void bad_record(struct drain_check *d, int cpu, uint64_t pos,
		       const struct ispot_record *rec, const char *why)
{
	if (d->bad++ < 8)
		TH_LOG("ring %d slot %llu: %s (kind %u nslots %u probe %u tgid %u tid %u cpu %u)",
		       cpu, (unsigned long long)pos, why, rec->kind,
		       rec->nslots, rec->probe_id, rec->tgid, rec->tid,
		       rec->cpu);
}

static void drain_checked(int fd, struct ispot_rings *r,
			  struct drain_check *d)
{
	int cpu;

	ASSERT_LE(r->nr, 256);
	for (cpu = 0; cpu < r->nr; cpu++) {
		struct ispot_ring_ctrl *c = ispot_ring_ctrl(r, cpu);
		const struct ispot_record *slots = (const void *)
			((const char *)r->maps[cpu] + c->data_offset);
		uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
		uint64_t pos = c->tail;
		struct ispot_ring_consume rc = { .cpu = cpu };

		if (head - pos > c->nr_slots) {
			TH_LOG("ring %d: head %llu tail %llu beyond %u slots",
			       cpu, (unsigned long long)head,
			       (unsigned long long)pos, c->nr_slots);
			d->bad++;
			continue;
		}
		while (pos < head) {
			const struct ispot_record *rec =
				&slots[pos & (c->nr_slots - 1)];
			unsigned int want = 1;

			if (rec->nslots < 1 || pos + rec->nslots > head) {
				bad_record(d, cpu, pos, rec, "nslots");
				/* Cannot step over it: stop this ring here. */
				break;
			}
			if (rec->kind > 31 ||
			    !(d->allowed_kinds & (1u << rec->kind)))
				bad_record(d, cpu, pos, rec, "kind");
			if (rec->tgid != (uint32_t)d->tgid)
				bad_record(d, cpu, pos, rec, "tgid");
			if (rec->cpu != cpu)
				bad_record(d, cpu, pos, rec, "cpu");
			if (!rec->ts_ns)
				bad_record(d, cpu, pos, rec, "ts_ns 0");
			switch (rec->kind) {
			case ISPOT_REC_ENTRY:
			case ISPOT_REC_EXIT:
			case ISPOT_REC_STACK:
				if (rec->probe_id < 1 ||
				    rec->probe_id > d->nr_probes) {
					bad_record(d, cpu, pos, rec,
						   "probe_id");
					break;
				}
				if (rec->kind == ISPOT_REC_ENTRY)
					d->entries[rec->probe_id]++;
				else if (rec->kind == ISPOT_REC_EXIT)
					d->exits[rec->probe_id]++;
				break;
			default:
				if (rec->probe_id)
					bad_record(d, cpu, pos, rec,
						   "probe_id on a task record");
				break;
			}
			if (rec->kind == ISPOT_REC_STACK) {
				d->stacks++;
				if (rec->data[0] < 1 ||
				    rec->data[0] > ISPOT_STACK_MAX_FRAMES)
					bad_record(d, cpu, pos, rec, "frames");
				want = 1 + (rec->data[0] + 7) / 8;
			}
			if (rec->nslots != want)
				bad_record(d, cpu, pos, rec, "nslots != kind's");
			d->consumed[cpu]++;
			d->records++;
			pos += rec->nslots;
		}
		rc.tail = pos;
		if (ioctl(fd, ISPOT_IOC_RING_CONSUME, &rc) < 0) {
			TH_LOG("RING_CONSUME cpu %d: %s", cpu,
			       strerror(errno));
			d->bad++;
		}
	}
}

/* ---- 1. 64 threads x 32 probes, rings that overflow --------------------- */

#define STORM_ITERS	100

struct storm {
	pthread_barrier_t start;		/* process-private, in the child */
	uint64_t calls[NR_THREADS];		/* per thread, by the target */
	uint32_t tids[NR_THREADS];
};

static struct storm *storm;

static void *storm_thread(void *arg)
{
	long t = (long)arg;
	int i, f;

	storm->tids[t] = gettid();
	pthread_barrier_wait(&storm->start);
	for (i = 0; i < STORM_ITERS; i++)
		for (f = 0; f < NR_FNS; f++) {
			fns[f](i);
			storm->calls[t]++;
		}
	return NULL;
}

static int storm_work(void *arg)
{
	pthread_t th[NR_THREADS];
	long t;

	(void)arg;
	if (pthread_barrier_init(&storm->start, NULL, NR_THREADS))
		return 1;
	for (t = 0; t < NR_THREADS; t++)
		if (pthread_create(&th[t], NULL, storm_thread, (void *)t))
			return 2;
	for (t = 0; t < NR_THREADS; t++)
		pthread_join(th[t], NULL);
	return 0;
}

TEST(threads64_probes32_overflow_accounting)
{
	struct ispot_probe_stats ps[NR_FNS];
	struct ispot_ring_stats rs[256];
	struct drain_check *d;
	struct ispot_child c;
	struct ispot_setup s;
	struct ispot_rings r;
	struct ispot_stats st;
	uint64_t calls = 0, dropped = 0, produced = 0, t0;
	int fd, i, status;

	fd = ispot_open_or_skip();
	ASSERT_GE(fd, 0);
	storm = shared_alloc(sizeof(*storm));
	d = calloc(1, sizeof(*d));
	ASSERT_NE(d, NULL);
	ASSERT_EQ(ispot_child_start(&c, storm_work, NULL), 0);
	/* One data page per CPU: 64 slots, against tens of thousands. */
	ASSERT_EQ(ispot_setup(fd, c.pid, 1, &s), 0);
	ASSERT_LE(s.nr_rings, 256);
	ASSERT_EQ(ispot_map_rings(fd, &s, &r), 0);
	for (i = 0; i < NR_FNS; i++)
		ASSERT_EQ(ispot_add_probe_fn(fd, (void *)fns[i],
					     ISPOT_PROBE_BOTH, 0), i + 1);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);

	d->tgid = c.pid;
	d->nr_probes = NR_FNS;
	d->allowed_kinds = 1u << ISPOT_REC_ENTRY | 1u << ISPOT_REC_EXIT |
			   1u << ISPOT_REC_STACK;
	t0 = now_ns();
	ispot_child_go(&c);
	/* Drain while the producers run: consume races with reserve. */
	for (;;) {
		pid_t w = waitpid(c.pid, &status, WNOHANG);

		ASSERT_GE(w, 0);
		drain_checked(fd, &r, d);
		if (w == c.pid)
			break;
		usleep(2000);
	}
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL), 0);
	drain_checked(fd, &r, d);
	TH_LOG("%d threads x %d probes x %d loops: %.1f s, %llu records read",
	       NR_THREADS, NR_FNS, STORM_ITERS, (now_ns() - t0) / 1e9,
	       (unsigned long long)d->records);
	EXPECT_EQ(d->bad, 0);

	for (i = 0; i < NR_THREADS; i++)
		calls += storm->calls[i];
	ASSERT_EQ(calls, (uint64_t)NR_THREADS * NR_FNS * STORM_ITERS);

	session_stats(fd, rs, s.nr_rings, ps, NR_FNS, &st);
	EXPECT_EQ(st.nr_probes, NR_FNS);
	for (i = 0; i < (int)s.nr_rings; i++) {
		struct ispot_ring_ctrl *ctrl = ispot_ring_ctrl(&r, i);

		EXPECT_EQ(rs[i].produced, rs[i].consumed + rs[i].dropped);
		EXPECT_EQ(rs[i].consumed, d->consumed[i]);
		EXPECT_EQ(ctrl->dropped, rs[i].dropped);
		EXPECT_EQ(ctrl->head, ctrl->tail);
		dropped += rs[i].dropped;
		produced += rs[i].produced;
	}
	/* The scenario needs overflow, or it proves nothing about drops. */
	EXPECT_GT(dropped, 0);
	for (i = 0; i < NR_FNS; i++) {
		uint64_t per_fn = (uint64_t)NR_THREADS * STORM_ITERS;

		EXPECT_EQ(ps[i].probe_id, i + 1);
		EXPECT_EQ(ps[i].entry_hits, per_fn);
		EXPECT_EQ(ps[i].return_hits, per_fn);
		EXPECT_EQ(ps[i].filtered, 0);
		EXPECT_LE(d->entries[i + 1], per_fn);
		EXPECT_LE(d->exits[i + 1], per_fn);
	}
	/* Every call wrote an entry and an exit, or dropped them. */
	EXPECT_GE(produced, 2 * calls);
	EXPECT_LE(produced, 2 * calls + d->stacks + dropped);
	close(fd);
}

/* ---- 2. a target that forks and execs while traced ---------------------- */

#define FORK_ROUNDS	100

struct forker {
	uint64_t parent_calls;
	uint64_t child_calls;	/* before exec, in children */
	int bad;
};

static struct forker *forker;

/* Run /bin/true (busybox in the guest) in a fork()ed or vfork()ed child. */
static int fork_exec_true(int use_vfork, int child_calls)
{
	pid_t pid;
	int st;

	pid = use_vfork ? vfork() : fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/*
		 * A child's calls are not the target's: they must be filtered.
		 * A vfork()ed child shares the target's mm until it execs.
		 */
		if (child_calls)
			sfn_0(-1);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (child_calls)
		__atomic_add_fetch(&forker->child_calls, 1, __ATOMIC_RELAXED);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

static void parent_call(void)
{
	sfn_0(1);
	forker->parent_calls++;
}

struct fork_plan {
	int fork_child_calls;	/* fork()ed children call the probed fn */
	int vfork_child_calls;	/* vfork()ed children call it before exec */
};

static int fork_work(void *arg)
{
	const struct fork_plan *plan = arg;
	int i;

	for (i = 0; i < FORK_ROUNDS; i++) {
		parent_call();
		if (fork_exec_true(0, plan->fork_child_calls))
			return 1;
		parent_call();
		parent_call();
		if (fork_exec_true(1, plan->vfork_child_calls))
			return 2;
		parent_call();
	}
	return 0;
}

static void fork_exec_case(const struct fork_plan *plan, uint32_t flags)
{
	struct ispot_probe_stats ps;
	struct ispot_ring_stats rs[256];
	struct drain_check *d;
	struct ispot_child c;
	struct ispot_setup s;
	struct ispot_rings r;
	uint64_t t0;
	int fd, i, ret, tries;

	fd = ispot_open_or_skip();
	ASSERT_GE(fd, 0);
	forker = shared_alloc(sizeof(*forker));
	d = calloc(1, sizeof(*d));
	ASSERT_NE(d, NULL);
	ASSERT_EQ(ispot_child_start(&c, fork_work, (void *)plan), 0);
	memset(&s, 0, sizeof(s));
	s.pid = c.pid;
	s.ring_pages = 64;
	s.flags = flags;
	ret = ispot_ioctl(fd, ISPOT_IOC_SETUP, &s);
	if (ret == -EOPNOTSUPP) {
		kill(c.pid, SIGKILL);
		SKIP("setup flags 0x%x not supported here", flags);
	}
	ASSERT_EQ(ret, 0);
	ASSERT_LE(s.nr_rings, 256);
	ASSERT_EQ(ispot_map_rings(fd, &s, &r), 0);
	ASSERT_EQ(ispot_add_probe_fn(fd, (void *)sfn_0, ISPOT_PROBE_BOTH, 0), 1);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	d->tgid = c.pid;
	d->nr_probes = 1;
	d->allowed_kinds = 1u << ISPOT_REC_ENTRY | 1u << ISPOT_REC_EXIT |
			   1u << ISPOT_REC_STACK;
	if (flags & ISPOT_SETUP_TASKS)
		d->allowed_kinds |= 1u << ISPOT_REC_TASK_NEW |
				    1u << ISPOT_REC_TASK_EXIT;
	if (flags & ISPOT_SETUP_WAITS)
		d->allowed_kinds |= 1u << ISPOT_REC_SWITCH_OUT |
				    1u << ISPOT_REC_SWITCH_IN |
				    1u << ISPOT_REC_FUTEX_ENTER |
				    1u << ISPOT_REC_FUTEX_EXIT;
	t0 = now_ns();
	ispot_child_go(&c);
	for (;;) {
		int status;
		pid_t w = waitpid(c.pid, &status, WNOHANG);

		ASSERT_GE(w, 0);
		drain_checked(fd, &r, d);
		if (w == c.pid) {
			ASSERT_TRUE(WIFEXITED(status));
			ASSERT_EQ(WEXITSTATUS(status), 0);
			break;
		}
		usleep(5000);
	}
	/*
	 * A child's last switch away from its CPU comes after its parent
	 * saw it exit (exit_notify() before the last schedule()): with
	 * waits on, one record may come after the drain above (609 written,
	 * 608 read, once in a make check on 6.12).  Drain until every ring
	 * is read to its end, for a second at most.
	 */
	for (tries = 0; tries < 100; tries++) {
		drain_checked(fd, &r, d);
		session_stats(fd, rs, s.nr_rings, &ps, 1, NULL);
		for (i = 0; i < (int)s.nr_rings; i++)
			if (rs[i].produced != rs[i].consumed)
				break;
		if (i == (int)s.nr_rings)
			break;
		usleep(10000);
	}
	TH_LOG("%d fork+exec and %d vfork+exec rounds: %.1f s", FORK_ROUNDS,
	       FORK_ROUNDS, (now_ns() - t0) / 1e9);
	EXPECT_EQ(d->bad, 0);
	ASSERT_EQ(forker->parent_calls, 4 * FORK_ROUNDS);
	TH_LOG("parent calls %llu, entry_hits %llu, return_hits %llu, filtered %llu (children called %llu times)",
	       (unsigned long long)forker->parent_calls,
	       (unsigned long long)ps.entry_hits,
	       (unsigned long long)ps.return_hits,
	       (unsigned long long)ps.filtered,
	       (unsigned long long)forker->child_calls);
	EXPECT_EQ(ps.entry_hits, forker->parent_calls);
	EXPECT_EQ(ps.return_hits, forker->parent_calls);
	EXPECT_EQ(d->entries[1], forker->parent_calls);
	EXPECT_EQ(d->exits[1], forker->parent_calls);
	EXPECT_LE(ps.filtered, forker->child_calls);
	for (i = 0; i < (int)s.nr_rings; i++) {
		EXPECT_EQ(rs[i].dropped, 0);
		EXPECT_EQ(rs[i].produced, rs[i].consumed);
	}
	close(fd);
}

/* Children (fork and vfork) exec without calling the probed function. */
TEST(fork_exec_loop_counts_parent_only)
{
	static const struct fork_plan plan = { 0, 0 };

	fork_exec_case(&plan, 0);
}

/* fork()ed children call the probed function before they exec. */
TEST(fork_children_calling_are_filtered)
{
	static const struct fork_plan plan = { 1, 0 };

	fork_exec_case(&plan, 0);
}

/*
 * A vfork()ed child runs in the target's mm until it execs (posix_spawn
 * does the same with CLONE_VM): when it hits the probe, the module must
 * neither record it nor remove the breakpoint from the mm it shares with
 * the target, or the target's later calls go uncounted.
 */
TEST(vfork_child_hit_keeps_parent_probe)
{
	static const struct fork_plan plan = { 1, 1 };

	fork_exec_case(&plan, 0);
}

/* The same, with task and wait records: none about the children. */
TEST(fork_exec_loop_with_task_and_wait_records)
{
	static const struct fork_plan plan = { 1, 0 };

	fork_exec_case(&plan, ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS);
}

/* ---- 3. a thousand session cycles against a running target ------------- */

#define CYCLES		1000

struct spinner {
	volatile int stop;
	volatile uint64_t calls;
};

static struct spinner *spinner;

static int spin_work(void *arg)
{
	(void)arg;
	while (!spinner->stop) {
		sfn_1(2);
		sfn_2(3);
		spinner->calls++;
	}
	return 0;
}

TEST(thousand_session_cycles_on_running_target)
{
	struct ispot_info info = { 0 };
	struct ispot_child c;
	uint64_t t0, calls_before;
	int i, status, info_fd, ret, waits = 1;
	pid_t w;

	ispot_require_module();
	spinner = shared_alloc(sizeof(*spinner));
	ASSERT_EQ(ispot_child_start(&c, spin_work, NULL), 0);
	ispot_child_go(&c);
	t0 = now_ns();
	for (i = 0; i < CYCLES; i++) {
		struct ispot_setup s;
		struct ispot_rings r = { 0 };
		int fd = ispot_open(), j;

		ASSERT_GE(fd, 0);
		/* Every 5th also records the target's tasks and waits. */
		memset(&s, 0, sizeof(s));
		s.pid = c.pid;
		s.ring_pages = 1;
		s.flags = i % 5 == 2 && waits ? ISPOT_SETUP_TASKS |
						 ISPOT_SETUP_WAITS : 0;
		ret = ispot_ioctl(fd, ISPOT_IOC_SETUP, &s);
		if (ret == -EOPNOTSUPP && s.flags) {
			waits = 0;
			s.flags = 0;
			ret = ispot_ioctl(fd, ISPOT_IOC_SETUP, &s);
		}
		ASSERT_EQ(ret, 0);
		ASSERT_EQ(ispot_add_probe_fn(fd, (void *)sfn_1,
					     ISPOT_PROBE_BOTH, 0), 1);
		if (i % 2)
			ASSERT_EQ(ispot_add_probe_fn(fd, (void *)sfn_2,
						     ISPOT_PROBE_ENTRY, 0), 2);
		/* Every 7th session closes READY, never enabled. */
		if (i % 7 != 6)
			ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
		/* Every 4th maps its rings and keeps them past close. */
		if (i % 4 == 0) {
			struct ispot_record *recs = NULL;
			size_t cap = 0;

			ASSERT_EQ(ispot_map_rings(fd, &s, &r), 0);
			ispot_drain(fd, &r, &recs, &cap, 0);
			free(recs);
		}
		/* Every 3rd disables first; the others close enabled. */
		if (i % 3 == 0 && i % 7 != 6)
			ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL), 0);
		close(fd);
		for (j = 0; j < r.nr && r.maps; j++)
			munmap(r.maps[j], r.size);
		free(r.maps);
		/* The target must live through every cycle. */
		ASSERT_EQ(waitpid(c.pid, &status, WNOHANG), 0);
	}
	TH_LOG("%d cycles: %.1f s", CYCLES, (now_ns() - t0) / 1e9);
	/* Still calling after the last close: no breakpoint was left. */
	calls_before = spinner->calls;
	for (i = 0; i < 500 && spinner->calls < calls_before + 1000; i++)
		usleep(10000);
	EXPECT_GE(spinner->calls, calls_before + 1000);
	spinner->stop = 1;
	w = waitpid(c.pid, &status, 0);
	ASSERT_EQ(w, c.pid);
	if (WIFSIGNALED(status))
		TH_LOG("target killed by signal %d", WTERMSIG(status));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);

	/* Nothing leaked: one session (this one), no ring memory. */
	info_fd = ispot_open();
	ASSERT_GE(info_fd, 0);
	ASSERT_EQ(ispot_ioctl(info_fd, ISPOT_IOC_INFO, &info), 0);
	EXPECT_EQ(info.sessions, 1);
	EXPECT_EQ(info.ring_bytes, 0);
	close(info_fd);
}

TEST_HARNESS_MAIN
