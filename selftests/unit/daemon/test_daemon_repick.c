// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd --auto's rule for picking again (user/daemon/repick.c): every
 * --auto-every windows, and sooner when the target's CPU rate doubles or
 * halves from the picks' first window, or when no pick was called in a
 * window they were armed for.
 */
#include "ispot_test.h"
#include "repick.h"

#define S	1000000000ull

TEST(every_n_windows)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(repick_check(&r, 3, S, S / 2, S / 10, 100, 2), REPICK_NO);
	EXPECT_EQ(repick_check(&r, 3, S, S / 2, S / 10, 100, 2), REPICK_NO);
	EXPECT_EQ(repick_check(&r, 3, S, S / 2, S / 10, 100, 2),
		  REPICK_PERIOD);
	EXPECT_EQ(r.windows, 3u);
	repick_reset(&r);
	EXPECT_EQ(repick_check(&r, 1, S, S / 2, 0, 0, 2), REPICK_PERIOD);
	EXPECT_STREQ(repick_why_name(REPICK_PERIOD), "period");
}

/* The first window after the pick is the reference; x2 or /2 is drift. */
TEST(cpu_rate_doubled_or_halved)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(repick_check(&r, 10, S, S / 2, 0, 0, 2), REPICK_NO);
	EXPECT_EQ(repick_check(&r, 10, S, S * 9 / 10, 0, 0, 2), REPICK_NO);
	EXPECT_EQ(repick_check(&r, 10, S, S, 0, 0, 2), REPICK_CPU);
	repick_reset(&r);
	EXPECT_EQ(repick_check(&r, 10, 2 * S, S, 0, 0, 2), REPICK_NO);
	EXPECT_EQ(repick_check(&r, 10, 2 * S, S / 2 + 1, 0, 0, 2),
		  REPICK_NO);
	EXPECT_EQ(repick_check(&r, 10, 2 * S, S / 2, 0, 0, 2), REPICK_CPU);
	EXPECT_STREQ(repick_why_name(REPICK_CPU), "cpu");
}

/* An idle target that wakes is drift; idle noise below 1% is not. */
TEST(idle_is_a_floor)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(repick_check(&r, 10, S, 0, 0, 0, 0), REPICK_NO);
	EXPECT_EQ(repick_check(&r, 10, S, S / 200, 0, 0, 0), REPICK_NO);
	EXPECT_EQ(repick_check(&r, 10, S, S / 10, 0, 0, 0), REPICK_CPU);
}

/* Armed, and not one call of the picks: the work moved. */
TEST(picks_armed_but_uncalled)
{
	struct repick r;

	repick_reset(&r);
	EXPECT_EQ(repick_check(&r, 10, S, S / 2, S / 10, 50, 3), REPICK_NO);
	EXPECT_EQ(repick_check(&r, 10, S, S / 2, 0, 0, 3), REPICK_NO);
	EXPECT_EQ(repick_check(&r, 10, S, S / 2, S / 10, 0, 3),
		  REPICK_UNCALLED);
	/* No picks (an idle target): nothing was to be called. */
	repick_reset(&r);
	EXPECT_EQ(repick_check(&r, 10, S, S / 2, 0, 0, 0), REPICK_NO);
	EXPECT_EQ(repick_check(&r, 10, S, S / 2, S / 10, 0, 0), REPICK_NO);
	EXPECT_STREQ(repick_why_name(REPICK_UNCALLED), "uncalled");
	EXPECT_STREQ(repick_why_name(REPICK_FIRST), "first");
}

TEST_HARNESS_MAIN
