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

/* Step time by 1 ms from @now to @until, acting whenever due. */
static uint64_t run(struct solo_sched *s, uint64_t now, uint64_t until,
		    uint64_t mean, uint64_t *on_ns)
{
	for (; now < until; now += MS) {
		bool was_on = s->on;

		solo_sched_act(s, now, mean);
		if (was_on && on_ns)
			*on_ns += MS;
	}
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
 * Over 100 s, blocks cover the share asked (within a tenth of it), each
 * start has its end, and lengths and waits follow the mean call.
 */
TEST(blocks_cover_the_share_asked)
{
	static const double shares[] = { 0.01, 0.02, 0.1 };
	unsigned int i;

	for (i = 0; i < sizeof(shares) / sizeof(shares[0]); i++) {
		struct fake_module m = { 0 };
		struct solo_sched s;
		uint64_t on = 0;

		solo_sched_init(&s, shares[i], 0, 7 + i, fake_solo, &m);
		run(&s, 0, 100000 * MS, 500 * 1000, &on);
		EXPECT_NEAR((double)on / (100000.0 * MS), shares[i],
			    shares[i] / 10);
		EXPECT_TRUE(m.ends == m.starts || m.ends + 1 == m.starts);
		EXPECT_EQ(m.last_duration, SOLO_CALLS_PER_BLOCK * 500 * 1000);
		EXPECT_EQ(m.last_wait, SOLO_WAIT_CALLS * 500 * 1000);
	}
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

		solo_sched_act(&s, now, MS / 10);
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
	/* Block 5 ms, mean gap 45 ms: from 22.5 to 67.5 ms, plus the block. */
	EXPECT_GE(min, 5 * MS + 22 * MS);
	EXPECT_LE(max, 5 * MS + 68 * MS + MS);
	EXPECT_GT(max - min, 20 * MS);
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
