// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd --auto's rule for picking again (user/daemon/repick.c): every
 * --auto-every windows, and sooner when the target's CPU rate doubles or
 * halves from the picks' first window, when no pick was called in a
 * window they were armed for, or when the traced calls' share of their
 * threads' time is half the first judged window's or less twice in a row.
 */
#include "ispot_test.h"
#include "repick.h"

#define S	1000000000ull

/* A window of @window_ns, with no call timed. */
static enum repick_why check(struct repick *r, uint32_t every,
			     uint64_t window_ns, uint64_t cpu_ns,
			     uint64_t armed_ns, uint64_t calls,
			     size_t nr_picks)
{
	const struct repick_window w = {
		.window_ns = window_ns, .cpu_ns = cpu_ns,
		.armed_ns = armed_ns, .calls = calls, .nr_picks = nr_picks,
	};

	return repick_check(r, every, &w);
}

/*
 * A window of 1 s at @cpu_ns, armed 0.1 s, two threads: @entered calls
 * entered, @calls of them timed, holding @share of the threads' time.
 */
static enum repick_why timed_at(struct repick *r, uint64_t cpu_ns,
				uint64_t entered, uint64_t calls, double share)
{
	const struct repick_window w = {
		.window_ns = S, .cpu_ns = cpu_ns, .armed_ns = S / 10,
		.calls = entered, .nr_picks = 2, .timed_calls = calls,
		.timed_ns = (uint64_t)(share * 2e8), .lived_ns = 2 * S / 10,
	};

	return repick_check(r, 10, &w);
}

/* The same at half a CPU, every call entered timed. */
static enum repick_why timed(struct repick *r, uint64_t calls, double share)
{
	return timed_at(r, S / 2, calls, calls, share);
}

TEST(every_n_windows)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(check(&r, 3, S, S / 2, S / 10, 100, 2), REPICK_NO);
	EXPECT_EQ(check(&r, 3, S, S / 2, S / 10, 100, 2), REPICK_NO);
	EXPECT_EQ(check(&r, 3, S, S / 2, S / 10, 100, 2),
		  REPICK_PERIOD);
	EXPECT_EQ(r.windows, 3u);
	repick_reset(&r);
	EXPECT_EQ(check(&r, 1, S, S / 2, 0, 0, 2), REPICK_PERIOD);
	EXPECT_STREQ(repick_why_name(REPICK_PERIOD), "period");
}

/* The first window after the pick is the reference; x2 or /2 is drift. */
TEST(cpu_rate_doubled_or_halved)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(check(&r, 10, S, S / 2, 0, 0, 2), REPICK_NO);
	EXPECT_EQ(check(&r, 10, S, S * 9 / 10, 0, 0, 2), REPICK_NO);
	EXPECT_EQ(check(&r, 10, S, S, 0, 0, 2), REPICK_CPU);
	repick_reset(&r);
	EXPECT_EQ(check(&r, 10, 2 * S, S, 0, 0, 2), REPICK_NO);
	EXPECT_EQ(check(&r, 10, 2 * S, S / 2 + 1, 0, 0, 2),
		  REPICK_NO);
	EXPECT_EQ(check(&r, 10, 2 * S, S / 2, 0, 0, 2), REPICK_CPU);
	EXPECT_STREQ(repick_why_name(REPICK_CPU), "cpu");
}

/* An idle target that wakes is drift; idle noise below 1% is not. */
TEST(idle_is_a_floor)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(check(&r, 10, S, 0, 0, 0, 0), REPICK_NO);
	EXPECT_EQ(check(&r, 10, S, S / 200, 0, 0, 0), REPICK_NO);
	EXPECT_EQ(check(&r, 10, S, S / 10, 0, 0, 0), REPICK_CPU);
}

/* Armed, and not one call of the picks: the work moved. */
TEST(picks_armed_but_uncalled)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(check(&r, 10, S, S / 2, S / 10, 50, 3), REPICK_NO);
	EXPECT_EQ(check(&r, 10, S, S / 2, 0, 0, 3), REPICK_NO);
	EXPECT_EQ(check(&r, 10, S, S / 2, S / 10, 0, 3),
		  REPICK_UNCALLED);
	/* No picks (an idle target): nothing was to be called. */
	repick_reset(&r);
	EXPECT_EQ(check(&r, 10, S, S / 2, 0, 0, 0), REPICK_NO);
	EXPECT_EQ(check(&r, 10, S, S / 2, S / 10, 0, 0), REPICK_NO);
	EXPECT_STREQ(repick_why_name(REPICK_UNCALLED), "uncalled");
	EXPECT_STREQ(repick_why_name(REPICK_FIRST), "first");
}

/*
 * The traced calls held 60% of their threads' time (the first window
 * judged: the reference, not the last window nor the most); two judged
 * windows in a row at 30% or less say the time went elsewhere.  At the
 * same CPU rate: no other rule would see it.
 */
TEST(share_of_time_halved_twice)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(timed(&r, 400, 0.60), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.40), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.90), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.29), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.30), REPICK_SHARE);
	EXPECT_STREQ(repick_why_name(REPICK_SHARE), "share");
}

/* One low window, then one above half: the count starts again. */
TEST(one_low_window_is_not_drift)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(timed(&r, 400, 0.60), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.20), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.31), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.20), REPICK_NO);
	/* A window not judged neither counts nor clears. */
	EXPECT_EQ(timed(&r, 10, 0.90), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.20), REPICK_SHARE);
}

/*
 * Too few calls timed, or too many entered left untimed (bursts short
 * for the calls), say nothing, and do not set the reference: the first
 * window with enough does.  Shares under 1% are one floor.
 */
TEST(share_needs_enough_timed_calls_and_has_a_floor)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(timed(&r, REPICK_MIN_TIMED_CALLS - 1, 0.9), REPICK_NO);
	EXPECT_EQ(timed_at(&r, S / 2, 400, 359, 0.9), REPICK_NO);
	EXPECT_EQ(timed_at(&r, S / 2, 400, 360, 0.4), REPICK_NO);
	EXPECT_EQ(timed_at(&r, S / 2, 400, 359, 0.01), REPICK_NO);
	EXPECT_EQ(timed_at(&r, S / 2, 400, 359, 0.01), REPICK_NO);
	EXPECT_EQ(timed(&r, REPICK_MIN_TIMED_CALLS - 1, 0.01), REPICK_NO);
	EXPECT_EQ(timed(&r, REPICK_MIN_TIMED_CALLS, 0.21), REPICK_NO);
	EXPECT_EQ(timed(&r, REPICK_MIN_TIMED_CALLS, 0.19), REPICK_NO);
	EXPECT_EQ(timed(&r, REPICK_MIN_TIMED_CALLS, 0.19), REPICK_SHARE);
	repick_reset(&r);
	EXPECT_EQ(timed(&r, 400, 0.008), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.001), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.0), REPICK_NO);
}

/* A new profile starts a new reference: 0.9 before it is forgotten. */
TEST(reset_forgets_the_reference)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(timed(&r, 400, 0.90), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.30), REPICK_NO);
	repick_reset(&r);
	EXPECT_EQ(timed(&r, 400, 0.30), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.30), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.30), REPICK_NO);
}

/* A window that is both: the CPU rule says why first, uncalled before it. */
TEST(rules_in_order)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(timed(&r, 400, 0.60), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.20), REPICK_NO);
	EXPECT_EQ(timed_at(&r, S * 3 / 2, 400, 400, 0.20), REPICK_CPU);
	repick_reset(&r);
	EXPECT_EQ(timed(&r, 400, 0.60), REPICK_NO);
	EXPECT_EQ(timed(&r, 400, 0.20), REPICK_NO);
	EXPECT_EQ(timed_at(&r, S / 2, 0, 0, 0.20), REPICK_UNCALLED);
}

TEST_HARNESS_MAIN
