// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU stacks (ABI 1.8, ISPOT_SETUP_OFFCPU): SETUP's validation, the
 * user stack of a thread that waits in a futex (the waiting function is in
 * it), sampling in time (a thread that switches thousands of times costs
 * about one stack per period of its off-CPU time, and the weights add up
 * to that time), and sessions closed while the target switches heavily.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>

#include "ispot_kmod_test.h"

#define PERIOD_US	1000	/* the tests' sampling period */
#define WAITS		20	/* the waiting thread's futex waits */
#define WAIT_MS		20
#define PINGS		1500	/* round trips of the ping-pong pair */

static volatile int sink;

/* ENABLE needs a probe: this one is never called. */
__attribute__((noipa)) int offcpu_dummy(int x)
{
	sink += x;
	return x;
}

struct shared {
	uint64_t callsite;	/* do_wait()'s return address in waiting_fn() */
	int waiter_tid, ping_tid, pong_tid, sleeper_tid;
	uint32_t ping, pong;	/* the pair's futex words */
	volatile int stop;
};

static struct shared *sh;

static int my_tid(void)
{
	return (int)syscall(SYS_gettid);
}

static void futex_wait_ms(uint32_t *word, uint32_t val, long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000 };

	syscall(SYS_futex, word, FUTEX_WAIT, val, ms ? &ts : NULL, NULL, 0);
}

/* Waits in the kernel; its caller is the function the stack must show. */
__attribute__((noipa)) void do_wait(uint32_t *word)
{
	sh->callsite = (uint64_t)__builtin_return_address(0);
	futex_wait_ms(word, *word, WAIT_MS);
}

__attribute__((noipa)) void waiting_fn(uint32_t *word)
{
	do_wait(word);
	sink++;
}

static void *waiter(void *arg)
{
	uint32_t word = 0;
	int i;

	(void)arg;
	sh->waiter_tid = my_tid();
	for (i = 0; i < WAITS; i++)
		waiting_fn(&word);
	return NULL;
}

/* Ping-pong: each wakes the other and waits, PINGS times. */
static void *pinger(void *arg)
{
	bool ping = arg != NULL;
	uint32_t *mine = ping ? &sh->ping : &sh->pong;
	uint32_t *theirs = ping ? &sh->pong : &sh->ping;
	int i;

	if (ping)
		sh->ping_tid = my_tid();
	else
		sh->pong_tid = my_tid();
	for (i = 0; i < PINGS; i++) {
		if (ping || i) {
			__atomic_store_n(theirs, 1, __ATOMIC_RELEASE);
			syscall(SYS_futex, theirs, FUTEX_WAKE, 1, NULL,
				NULL, 0);
		}
		while (!__atomic_exchange_n(mine, 0, __ATOMIC_ACQUIRE))
			futex_wait_ms(mine, 0, 100);
	}
	__atomic_store_n(theirs, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, theirs, FUTEX_WAKE, 1, NULL, NULL, 0);
	return NULL;
}

static void *sleeper(void *arg)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };
	int i;

	(void)arg;
	sh->sleeper_tid = my_tid();
	for (i = 0; i < 10; i++)
		nanosleep(&ts, NULL);
	return NULL;
}

/* The four threads, once; or (@arg) again and again until told to stop. */
static int target_work(void *arg)
{
	pthread_t t[4];
	int i;

	do {
		sh->ping = sh->pong = 0;
		pthread_create(&t[0], NULL, waiter, NULL);
		pthread_create(&t[1], NULL, pinger, (void *)1);
		pthread_create(&t[2], NULL, pinger, NULL);
		pthread_create(&t[3], NULL, sleeper, NULL);
		for (i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
	} while (arg && !sh->stop);
	return 0;
}

/* One OFF_STACK, its payload, and the off-CPU time it ends up standing for. */
struct off_stack {
	uint64_t ts, ip, sp, weight, off_ns;
	uint32_t tid, tgid, nframes, nwords;
	uint64_t frames[ISPOT_STACK_MAX_FRAMES];
	uint64_t words[ISPOT_OFFCPU_MAX_WORDS];
};

struct osess {
	int fd;
	struct ispot_setup setup;
	struct ispot_rings rings;
	struct ispot_record *all;	/* every slot drained, ring order */
	size_t n, cap;
	struct ispot_record *heads;	/* head slots, sorted by time */
	size_t nheads;
	struct off_stack *stacks;
	size_t nstacks;
};

static int osess_setup(struct osess *o, pid_t pid, uint32_t flags,
		       uint32_t period_us)
{
	memset(o, 0, sizeof(*o));
	o->fd = ispot_open();
	if (o->fd < 0)
		return -errno;
	o->setup.pid = pid;
	/* Room for the whole run: nothing is drained before its end. */
	o->setup.ring_pages = 2048;
	o->setup.flags = flags;
	o->setup.offcpu_period_us = period_us;
	return ispot_ioctl(o->fd, ISPOT_IOC_SETUP, &o->setup);
}

/* A session of off-CPU stacks, with a probe or (a profile) none. */
static void osess_start(struct osess *o, pid_t pid, bool probe)
{
	ASSERT_EQ(osess_setup(o, pid, ISPOT_SETUP_FLAGS, PERIOD_US), 0);
	ASSERT_EQ(ispot_map_rings(o->fd, &o->setup, &o->rings), 0);
	if (probe)
		ASSERT_GE(ispot_add_probe_fn(o->fd, offcpu_dummy,
					     ISPOT_PROBE_BOTH, 0), 0);
	ASSERT_EQ(ispot_ioctl(o->fd, ISPOT_IOC_ENABLE, NULL), 0);
}

static void osess_close(struct osess *o)
{
	int i;

	for (i = 0; o->rings.maps && i < o->rings.nr; i++)
		if (o->rings.maps[i] && o->rings.maps[i] != MAP_FAILED)
			munmap(o->rings.maps[i], o->rings.size);
	free(o->rings.maps);
	free(o->all);
	free(o->heads);
	free(o->stacks);
	close(o->fd);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

static int ts_cmp(const void *a, const void *b)
{
	const struct ispot_record *x = a, *y = b;

	/* OFF_STACK before the SWITCH_OUT of the same moment. */
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return (x->kind != ISPOT_REC_OFF_STACK) -
	       (y->kind != ISPOT_REC_OFF_STACK);
}

/* The next SWITCH_IN of @tid after head @i: the off-CPU period's end. */
static uint64_t switch_in_after(const struct osess *o, size_t i, uint32_t tid)
{
	for (i++; i < o->nheads; i++)
		if (o->heads[i].tid == tid &&
		    o->heads[i].kind == ISPOT_REC_SWITCH_IN)
			return o->heads[i].ts_ns;
	return 0;
}

/* Drain the disabled session: heads sorted, stacks with their payload. */
static void osess_collect(struct osess *o)
{
	size_t i, k, h = 0;
	int ret;

	ret = ispot_ioctl(o->fd, ISPOT_IOC_DISABLE, NULL);
	if (ret)
		ASSERT_EQ(ret, -EBADFD);
	o->n = ispot_drain(o->fd, &o->rings, &o->all, &o->cap, 0);
	/* A dropped record would bias the figures. */
	ispot_expect_no_drops(o->fd, o->setup.nr_rings, false);
	o->heads = calloc(o->n + 1, sizeof(*o->heads));
	o->stacks = calloc(o->n + 1, sizeof(*o->stacks));
	ASSERT_TRUE(o->heads && o->stacks);
	for (i = 0; i < o->n; i += o->all[i].nslots) {
		const struct ispot_record *r = &o->all[i];
		struct off_stack *s;
		const uint64_t *payload = (const uint64_t *)&o->all[i + 1];

		ASSERT_GE(r->nslots, 1);
		o->heads[h++] = *r;
		if (r->kind != ISPOT_REC_OFF_STACK)
			continue;
		s = &o->stacks[o->nstacks++];
		s->ts = r->ts_ns;
		s->ip = r->ip;
		s->sp = r->sp;
		s->tid = r->tid;
		s->tgid = r->tgid;
		s->weight = r->data[1];
		s->nframes = r->data[0] & 0xffff;
		s->nwords = (r->data[0] >> 16) & 0xffff;
		EXPECT_EQ(r->data[0] >> 32, 0);
		EXPECT_EQ(r->data[2], 0);
		ASSERT_LE(s->nframes, ISPOT_STACK_MAX_FRAMES);
		ASSERT_LE(s->nwords, ISPOT_OFFCPU_MAX_WORDS);
		EXPECT_EQ(s->nwords % 8, 0);
		EXPECT_EQ(r->nslots, 1 + (s->nframes + 7) / 8 + s->nwords / 8);
		for (k = 0; k < s->nframes; k++)
			s->frames[k] = payload[k];
		payload += (s->nframes + 7) / 8 * 8;
		for (k = 0; k < s->nwords; k++)
			s->words[k] = payload[k];
	}
	o->nheads = h;
	qsort(o->heads, h, sizeof(*o->heads), ts_cmp);
	/* Each stack's period: from it to its thread's next SWITCH_IN. */
	for (k = 0; k < o->nstacks; k++) {
		struct off_stack *s = &o->stacks[k];
		uint64_t in;

		for (i = 0; i < h; i++)
			if (o->heads[i].kind == ISPOT_REC_OFF_STACK &&
			    o->heads[i].ts_ns == s->ts &&
			    o->heads[i].tid == s->tid)
				break;
		ASSERT_LT(i, h);
		in = switch_in_after(o, i, s->tid);
		if (in > s->ts)
			s->off_ns = in - s->ts;
	}
}

/* @tid's off-CPU time, every SWITCH_OUT to the next SWITCH_IN. */
static uint64_t off_time(const struct osess *o, uint32_t tid, size_t *periods)
{
	uint64_t sum = 0, in;
	size_t i;

	*periods = 0;
	for (i = 0; i < o->nheads; i++) {
		if (o->heads[i].tid != tid ||
		    o->heads[i].kind != ISPOT_REC_SWITCH_OUT)
			continue;
		in = switch_in_after(o, i, tid);
		if (in > o->heads[i].ts_ns) {
			sum += in - o->heads[i].ts_ns;
			(*periods)++;
		}
	}
	return sum;
}

TEST(setup_validates_offcpu)
{
	static const struct { uint32_t flags, period; int ret; } cases[] = {
		{ ISPOT_SETUP_OFFCPU, 0, -EINVAL },
		{ ISPOT_SETUP_OFFCPU | ISPOT_SETUP_TASKS, 0, -EINVAL },
		{ ISPOT_SETUP_OFFCPU | ISPOT_SETUP_WAITS, 0, -EINVAL },
		{ ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS, 1000, -EINVAL },
		{ 0, 1, -EINVAL },
		{ ISPOT_SETUP_FLAGS, ISPOT_OFFCPU_MAX_PERIOD_US + 1, -EINVAL },
		{ ISPOT_SETUP_FLAGS, ISPOT_OFFCPU_MAX_PERIOD_US, 0 },
		{ ISPOT_SETUP_FLAGS, 0, 0 },
		{ ISPOT_SETUP_FLAGS, 1, -EINVAL },
		{ ISPOT_SETUP_FLAGS, ISPOT_OFFCPU_MIN_PERIOD_US - 1, -EINVAL },
		{ ISPOT_SETUP_FLAGS, ISPOT_OFFCPU_MIN_PERIOD_US, 0 },
	};
	struct osess o;
	size_t i;

	ispot_require_module();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_EQ(osess_setup(&o, getpid(), cases[i].flags,
				      cases[i].period), cases[i].ret);
		osess_close(&o);
	}
	/* reserved32 must be 0; a refused SETUP leaves the session NEW. */
	o.fd = ispot_open();
	ASSERT_GE(o.fd, 0);
	memset(&o.setup, 0, sizeof(o.setup));
	o.setup.pid = getpid();
	o.setup.ring_pages = 1;
	o.setup.flags = ISPOT_SETUP_FLAGS;
	o.setup.reserved32 = 1;
	EXPECT_EQ(ispot_ioctl(o.fd, ISPOT_IOC_SETUP, &o.setup), -EINVAL);
	o.setup.reserved32 = 0;
	EXPECT_EQ(ispot_ioctl(o.fd, ISPOT_IOC_SETUP, &o.setup), 0);
	/* A profile needs no probe; other sessions do. */
	EXPECT_EQ(ispot_ioctl(o.fd, ISPOT_IOC_ENABLE, NULL), 0);
	close(o.fd);
	ASSERT_EQ(osess_setup(&o, getpid(), ISPOT_SETUP_TASKS |
			      ISPOT_SETUP_WAITS, 0), 0);
	EXPECT_EQ(ispot_ioctl(o.fd, ISPOT_IOC_ENABLE, NULL), -ENOENT);
	osess_close(&o);
}

/*
 * One run of the target, traced with off-CPU stacks, shared by the tests
 * below: the waiter's, the ping-pong pair's and the sleeper's records.
 */
static struct osess run;
static bool run_done;

static void run_target(void)
{
	struct ispot_child c;

	if (run_done)
		return;
	ispot_require_module();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(sh, MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	ASSERT_EQ(ispot_child_start(&c, target_work, NULL), 0);
	osess_start(&run, c.pid, false);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	osess_collect(&run);
	run_done = true;
}

/*
 * The waiter's futex waits: about one stack each (they are longer than the
 * period), and the waiting function is in its stack: the frame walk from
 * the user bp reaches do_wait()'s return address into waiting_fn(), as
 * glibc's syscall() keeps bp.
 */
TEST(waiting_function_is_in_the_stack)
{
	size_t i, k, mine = 0, found = 0, words = 0, periods;

	run_target();
	ASSERT_NE(sh->callsite, 0);
	for (i = 0; i < run.nstacks; i++) {
		const struct off_stack *s = &run.stacks[i];

		EXPECT_EQ(s->tgid, run.setup.pid);
		EXPECT_GE(s->weight, 1);
		if (s->tid != (uint32_t)sh->waiter_tid)
			continue;
		mine++;
		EXPECT_NE(s->ip, 0);
		EXPECT_NE(s->sp, 0);
		/*
		 * A stack page not present cannot be read with faults off: a
		 * thread's first switch, on a stack not yet touched (seen
		 * once on 7.2), has no words.
		 */
		words += s->nwords >= 8;
		for (k = 0; k < s->nframes; k++)
			if (s->frames[k] == sh->callsite)
				break;
		found += k < s->nframes;
	}
	off_time(&run, sh->waiter_tid, &periods);
	TH_LOG("waiter: %zu stacks over %zu off-CPU periods, %zu with "
	       "waiting_fn", mine, periods, found);
	EXPECT_GE(mine, WAITS / 2);
	EXPECT_GE(found * 10, mine * 8);
	EXPECT_GE(words * 10, mine * 8);
}

/*
 * Sampling in time: the ping-pong thread leaves its CPU thousands of times
 * for short waits, yet takes about one stack per period of its off-CPU
 * time, and its stacks' weights add up to its switch-outs (each stands for
 * that many).  The sleeper's 30 ms sleeps are each taken, at weight 1.
 * (The weights times the stacks' own periods are not compared with the
 * time: in the emulated guest, taking a stack is slow enough that the
 * partner's wake-up comes sooner after it, so a sampled period is shorter
 * than most; the reader shares each thread's measured time out instead.)
 */
TEST(stacks_are_sampled_in_time)
{
	size_t i, pp = 0, sl = 0, sl_periods, periods;
	double weights = 0, total, by_time;

	run_target();
	total = off_time(&run, sh->ping_tid, &periods);
	for (i = 0; i < run.nstacks; i++) {
		const struct off_stack *s = &run.stacks[i];

		if (s->tid == (uint32_t)sh->ping_tid) {
			pp++;
			weights += s->weight;
		}
		if (s->tid == (uint32_t)sh->sleeper_tid) {
			sl++;
			EXPECT_EQ(s->weight, 1);
		}
	}
	off_time(&run, sh->sleeper_tid, &sl_periods);
	TH_LOG("ping: %zu stacks of weight %.0f in all, for %zu periods, "
	       "%.1f ms off", pp, weights, periods, total / 1e6);
	TH_LOG("sleeper: %zu stacks for %zu periods", sl, sl_periods);
	ASSERT_GE(periods, PINGS / 2);
	/*
	 * About one stack per period of off-CPU time, not one per switch.
	 * How many fewer than switches depends on the mean wait, which the
	 * debug kernel stretches (257 us there, against 1 ms periods: 449
	 * stacks for 1,493 switches), so the count is held to the time.
	 */
	by_time = total / (PERIOD_US * 1000.0);
	EXPECT_LE(pp, by_time * 2 + 20);
	EXPECT_GE(pp * 3 + 20, by_time);
	if (total / periods < PERIOD_US * 1000.0 / 4)
		EXPECT_LT(pp * 2, periods);
	EXPECT_GT(weights, periods * 0.5);
	EXPECT_LT(weights, periods * 2.0);
	EXPECT_GE(sl, sl_periods * 8 / 10);
}

/* Closing sessions while the target switches: nothing left behind. */
TEST(sessions_closed_while_switching)
{
	struct ispot_child c;
	struct osess o;
	int i;

	ispot_require_module();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(sh, MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	ASSERT_EQ(ispot_child_start(&c, target_work, (void *)1), 0);
	ispot_child_go(&c);
	for (i = 0; i < 20; i++) {
		osess_start(&o, c.pid, i % 2);
		usleep(5000);
		osess_close(&o);
	}
	sh->stop = 1;
	ASSERT_EQ(ispot_child_wait(&c), 0);
}

TEST_HARNESS_MAIN
