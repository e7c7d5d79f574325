// SPDX-License-Identifier: GPL-2.0
/*
 * When solo blocks start and end (trace/solo_sched.c): a fake module
 * records each ISPOT_IOC_SOLO call, and the tests walk time forward.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <linux/ispot.h>

#include "ispot_test.h"
#include "trace/solo_sched.h"

#define MS	(1000 * 1000ull)

struct fake_module {
	int calls, starts, ends;
	uint64_t last_duration, last_wait;
	int fail_after;		/* refuse from this call on (0: never) */
};

static int fake_solo(void *ctx, struct ispot_solo *arg)
{
	struct fake_module *m = ctx;

	m->calls++;
	if (m->fail_after && m->calls >= m->fail_after) {
		errno = EBADFD;
		return -1;
	}
	if (arg->duration_ns) {
		m->starts++;
		m->last_duration = arg->duration_ns;
		m->last_wait = arg->wait_max_ns;
	} else {
		m->ends++;
	}
	return 0;
}

/*
 * A program that loses @loss of each millisecond a block is on (a pool of
 * n busy threads loses (n - 1) / n of it), seen by the scheduler a drain's
 * 20 ms later, as a session sees its GATE records.
 */
struct program {
	double loss;
	uint64_t on_ns;			/* the blocks' time */
	double cost_ns;			/* and what they cost, so far */
	double seen[20];		/* cost_ns, the last 20 ms */
};

/* Step time by 1 ms from @now to @until, acting whenever due. */
static uint64_t run_program(struct solo_sched *s, uint64_t now,
			    uint64_t until, uint64_t mean, struct program *p)
{
	for (; now < until; now += MS) {
		unsigned int lag = (now / MS) % 20;
		bool was_on = s->on;

		solo_sched_act(s, now, mean, (uint64_t)p->seen[lag]);
		if (was_on) {
			p->on_ns += MS;
			p->cost_ns += p->loss * MS;
		}
		p->seen[lag] = p->cost_ns;
	}
	return now;
}

/* The same for a program the blocks cost nothing. */
static uint64_t run(struct solo_sched *s, uint64_t now, uint64_t until,
		    uint64_t mean, uint64_t *on_ns)
{
	struct program p = { .loss = 0 };

	now = run_program(s, now, until, mean, &p);
	if (on_ns)
		*on_ns += p.on_ns;
	return now;
}

/* Off: never due, never calls the module. */
TEST(zero_share_makes_no_block)
{
	struct fake_module m = { 0 };
	struct solo_sched s;

	solo_sched_init(&s, 0, 0, 42, fake_solo, &m);
	EXPECT_EQ(solo_sched_next(&s), UINT64_MAX);
	run(&s, 0, 10000 * MS, 50000, NULL);
	EXPECT_EQ(m.calls, 0);
}

/* Before a call is seen, no block: its length would be a guess. */
TEST(no_block_before_a_call_is_seen)
{
	struct fake_module m = { 0 };
	struct solo_sched s;

	solo_sched_init(&s, 0.05, 0, 42, fake_solo, &m);
	run(&s, 0, 2000 * MS, 0, NULL);
	EXPECT_EQ(m.calls, 0);
	run(&s, 2000 * MS, 4000 * MS, 50000, NULL);
	EXPECT_GT(m.starts, 0);
}

/*
 * Over 100 s, blocks cost the program the share asked (within a tenth of
 * it) when a block costs it much; each start has its end, and
 * lengths and waits follow the mean call.
 */
TEST(blocks_cost_the_share_asked)
{
	static const double shares[] = { 0.01, 0.03, 0.1 };
	static const double losses[] = { 0.5, 0.875 };
	unsigned int i, j;

	for (i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
		for (j = 0; j < sizeof(losses) / sizeof(losses[0]); j++) {
			struct program p = { .loss = losses[j] };
			struct fake_module m = { 0 };
			struct solo_sched s;

			solo_sched_init(&s, shares[i], 0, 7 + i, fake_solo,
					&m);
			run_program(&s, 0, 100000 * MS, 500 * 1000, &p);
			/* By one block's cost at most: it counts after. */
			EXPECT_LE(p.cost_ns, shares[i] * 100000.0 * MS +
				  SOLO_CALLS_PER_BLOCK * 500 * 1000);
			EXPECT_GE(p.cost_ns / (100000.0 * MS),
				  shares[i] * 0.9);
			EXPECT_TRUE(m.ends == m.starts ||
				    m.ends + 1 == m.starts);
			EXPECT_EQ(m.last_duration,
				  SOLO_CALLS_PER_BLOCK * 500 * 1000);
			EXPECT_EQ(m.last_wait, SOLO_WAIT_CALLS * 500 * 1000);
		}
	}
}

/*
 * A short run is not over its share by a block: each block is paid for
 * before it starts, the first included.  A pool of eight busy threads
 * (loss 7/8) with 1.5 ms calls (48 ms blocks) at 3%, over runs of 1 to
 * 6 s and many seeds: the blocks' cost stays within the share of the run
 * at every moment, but for what a drain's lag hides (20 ms of a block).
 */
TEST(short_runs_pay_for_each_block_ahead)
{
	uint64_t seed, secs, now, mean = 1500 * 1000;
	double worst = 0;
	int with_blocks = 0;

	for (secs = 1; secs <= 6; secs++) {
		for (seed = 1; seed <= 20; seed++) {
			struct program p = { .loss = 0.875 };
			struct fake_module m = { 0 };
			struct solo_sched s;
			double over;

			solo_sched_init(&s, 0.03, 0, seed, fake_solo, &m);
			for (now = 0; now < secs * 1000 * MS; now += 100 * MS) {
				now = run_program(&s, now, now + 100 * MS,
						  mean, &p) - 100 * MS;
				over = p.cost_ns - 0.03 * (now + 100 * MS);
				worst = over > worst ? over : worst;
			}
			with_blocks += m.starts > 0;
		}
	}
	TH_LOG("most over the share: %.1f ms", worst / MS);
	EXPECT_LE(worst, 0.875 * 20 * MS);
	/* Runs of 2 s and more (100 of the 120) have blocks. */
	EXPECT_GE(with_blocks, 100);
}

/*
 * The first block is paid ahead at the most its program's threads can
 * lose: two threads, one waiting (half the block's length), start it
 * twice as early as threads not counted, and a pool of eight, told its
 * count, still stays within its share at every moment.  20 ms blocks at
 * 2%: 1 s of run pays for a whole one, 0.5 s for half.
 */
static uint64_t first_start(unsigned int threads, double loss,
			    double *worst)
{
	struct program p = { .loss = loss };
	struct fake_module m = { 0 };
	struct solo_sched s;
	uint64_t now, first = 0;
	double over;

	solo_sched_init(&s, 0.02, 0, 7, fake_solo, &m);
	solo_sched_threads(&s, threads);
	for (now = 0; now < 6000 * MS; now += MS) {
		run_program(&s, now, now + MS, 625 * 1000, &p);
		if (m.starts && !first)
			first = now;
		over = p.cost_ns - 0.02 * (now + MS);
		*worst = over > *worst ? over : *worst;
	}
	return first;
}

TEST(the_first_block_is_paid_at_what_its_threads_can_lose)
{
	double worst = 0;
	uint64_t unknown, two, eight;

	unknown = first_start(0, 0.5, &worst);
	two = first_start(2, 0.5, &worst);
	worst = 0;
	eight = first_start(8, 0.875, &worst);
	TH_LOG("first block: threads unknown %llu ms, two %llu ms, "
	       "eight %llu ms; eight most over the share %.1f ms",
	       (unsigned long long)(unknown / MS),
	       (unsigned long long)(two / MS),
	       (unsigned long long)(eight / MS), worst / MS);
	ASSERT_NE(unknown, 0);
	ASSERT_NE(two, 0);
	EXPECT_GE(unknown, 1000 * MS);
	EXPECT_LT(two, 1000 * MS);
	EXPECT_GE(two, 500 * MS);
	EXPECT_GE(eight, 875 * MS);
	EXPECT_LE(worst, 0.875 * 20 * MS);
}

/*
 * One of ispotd's bursts (200 ms, shorter than a block needs to be paid
 * for) gets its first block unpaid, at a random moment; any other session
 * of that length gets none.
 */
TEST(a_burst_gets_its_first_block_unpaid)
{
	uint64_t seed;
	int bursts = 0, sessions = 0;

	for (seed = 1; seed <= 50; seed++) {
		struct fake_module mb = { 0 }, ms = { 0 };
		struct program pb = { .loss = 0.875 }, ps = pb;
		struct solo_sched b, s;

		solo_sched_init(&b, 0.03, 0, seed, fake_solo, &mb);
		solo_sched_burst(&b);
		run_program(&b, 0, 200 * MS, 200 * 1000, &pb);
		solo_sched_init(&s, 0.03, 0, seed, fake_solo, &ms);
		run_program(&s, 0, 200 * MS, 200 * 1000, &ps);
		bursts += mb.starts;
		sessions += ms.starts;
	}
	EXPECT_GE(bursts, 25);
	EXPECT_EQ(sessions, 0);
}

/*
 * Blocks that cost little come often, but cover at most SOLO_MAX_COVER of
 * the run (or the share asked, if more), and their cost stays in bounds.
 */
TEST(cheap_blocks_cover_up_to_the_cap)
{
	static const double shares[] = { 0.03, 0.4 };
	unsigned int i;

	for (i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
		struct program p = { .loss = 0.05 };
		double cover = shares[i] > SOLO_MAX_COVER ? shares[i] :
			       SOLO_MAX_COVER;
		struct fake_module m = { 0 };
		struct solo_sched s;

		solo_sched_init(&s, shares[i], 0, 11 + i, fake_solo, &m);
		run_program(&s, 0, 100000 * MS, 500 * 1000, &p);
		EXPECT_NEAR((double)p.on_ns / (100000.0 * MS), cover,
			    cover / 10);
		EXPECT_LE(p.cost_ns, shares[i] * 100000.0 * MS);
	}
}

/* ispotd's cap: cheap blocks cover no more than it. */
TEST(a_cap_bounds_what_cheap_blocks_cover)
{
	struct program p = { .loss = 0.05 };
	struct fake_module m = { 0 };
	struct solo_sched s;

	solo_sched_init(&s, 0.03, 0, 13, fake_solo, &m);
	solo_sched_cap(&s, 0.03);
	run_program(&s, 0, 100000 * MS, 500 * 1000, &p);
	EXPECT_NEAR((double)p.on_ns / (100000.0 * MS), 0.03, 0.003);
}

/* Lengths and waits are bounded whatever the calls take. */
TEST(block_and_wait_bounds)
{
	struct fake_module m = { 0 };
	struct solo_sched s;

	solo_sched_init(&s, 0.5, 0, 3, fake_solo, &m);
	run(&s, 0, 1000 * MS, 10, NULL);
	EXPECT_EQ(m.last_duration, SOLO_MIN_BLOCK_NS);
	EXPECT_EQ(m.last_wait, SOLO_MIN_WAIT_NS);
	run(&s, 1000 * MS, 20000 * MS, 100 * MS, NULL);
	EXPECT_EQ(m.last_duration, SOLO_MAX_BLOCK_NS);
	EXPECT_EQ(m.last_wait, SOLO_MAX_WAIT_NS);
}

/* Gaps vary (no rhythm to lock onto) and never bunch blocks together. */
TEST(gaps_are_random_and_spread)
{
	struct fake_module m = { 0 };
	struct solo_sched s;
	uint64_t now, start = 0, gap, min = UINT64_MAX, max = 0;
	int started = 0;

	solo_sched_init(&s, 0.1, 0, 99, fake_solo, &m);
	for (now = 0; now < 20000 * MS; now += MS) {
		int before = m.starts;

		solo_sched_act(&s, now, MS / 10, 0);
		if (m.starts == before)
			continue;
		if (started++) {
			gap = now - start;
			min = gap < min ? gap : min;
			max = gap > max ? gap : max;
		}
		start = now;
	}
	ASSERT_GT(started, 20);
	/*
	 * Free blocks of 5 ms at the cover cap, 25%: a mean gap of 15 ms,
	 * from 7.5 to 22.5 ms, plus the block.
	 */
	EXPECT_GE(min, 5 * MS + 7 * MS);
	EXPECT_LE(max, 5 * MS + 23 * MS + MS);
	EXPECT_GT(max - min, 7 * MS);
}

/* A module that refuses (the target gone) stops the blocks for good. */
TEST(a_refusal_stops_the_blocks)
{
	struct fake_module m = { .fail_after = 3 };
	struct solo_sched s;

	solo_sched_init(&s, 0.1, 0, 5, fake_solo, &m);
	run(&s, 0, 10000 * MS, MS, NULL);
	EXPECT_EQ(m.calls, 3);
	EXPECT_EQ(solo_sched_next(&s), UINT64_MAX);
}

TEST_HARNESS_MAIN
