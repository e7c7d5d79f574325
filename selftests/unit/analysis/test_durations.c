// SPDX-License-Identifier: GPL-2.0
/*
 * The per-thread duration samples of the pictures (analysis/durations.c):
 * bounded whatever the calls, exact ends, an even sample of the rest, and
 * threads beyond the first few sharing one sample.
 */
#include <stdlib.h>

#include "ispot_test.h"
#include "analysis/durations.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

TEST(every_call_kept_below_the_cap)
{
	struct durations *d = durations_new();
	const struct duration_sample *s;
	uint64_t i;

	ASSERT_TRUE(d);
	for (i = 0; i < 100; i++)
		ASSERT_EQ(durations_add(d, 3, 77, 1000 + i), 0);
	ASSERT_EQ(durations_of(d, 3, &s), 1);
	EXPECT_EQ(s->tid, 77);
	EXPECT_EQ(s->calls, 100);
	EXPECT_EQ(s->nr, 100);
	EXPECT_EQ(s->min, 1000);
	EXPECT_EQ(s->max, 1099);
	EXPECT_EQ(durations_of(d, 2, &s), 0);
	EXPECT_EQ(durations_of(d, 4000, &s), 0);
	durations_free(d);
}

TEST(above_the_cap_an_even_sample_and_exact_ends)
{
	struct durations *d = durations_new();
	const struct duration_sample *s;
	uint64_t i, n = 50 * DURATIONS_CAP, *v;

	ASSERT_TRUE(d);
	/*
	 * 1..n in order: a sample that favoured the first calls or the last
	 * ones would have its quartiles off to one side.
	 */
	for (i = 1; i <= n; i++)
		ASSERT_EQ(durations_add(d, 0, 5, i), 0);
	ASSERT_EQ(durations_of(d, 0, &s), 1);
	EXPECT_EQ(s->calls, n);
	EXPECT_EQ(s->nr, DURATIONS_CAP);
	EXPECT_LE(s->cap, DURATIONS_CAP);
	EXPECT_EQ(s->min, 1);
	EXPECT_EQ(s->max, n);
	v = malloc(s->nr * sizeof(*v));
	ASSERT_TRUE(v);
	memcpy(v, s->ns, s->nr * sizeof(*v));
	qsort(v, s->nr, sizeof(*v), cmp_u64);
	/* Quartiles of a uniform sample of 1..n, within 3% of n. */
	EXPECT_NEAR((double)v[s->nr / 4], n / 4.0, 0.03 * n);
	EXPECT_NEAR((double)v[s->nr / 2], n / 2.0, 0.03 * n);
	EXPECT_NEAR((double)v[3 * s->nr / 4], 3 * n / 4.0, 0.03 * n);
	free(v);
	durations_free(d);
}

TEST(threads_beyond_the_first_share_one_sample)
{
	struct durations *d = durations_new();
	const struct duration_sample *s;
	uint32_t t;
	size_t n;

	ASSERT_TRUE(d);
	for (t = 1; t <= DURATIONS_THREADS + 5; t++)
		ASSERT_EQ(durations_add(d, 1, 100 + t, 10 * t), 0);
	ASSERT_EQ(durations_add(d, 1, 101, 5), 0);
	n = durations_of(d, 1, &s);
	ASSERT_EQ(n, DURATIONS_THREADS + 1);
	EXPECT_EQ(s[0].tid, 101);
	EXPECT_EQ(s[0].calls, 2);
	EXPECT_EQ(s[0].min, 5);
	EXPECT_EQ(s[DURATIONS_THREADS - 1].tid, 100 + DURATIONS_THREADS);
	EXPECT_EQ(s[DURATIONS_THREADS].tid, DURATIONS_OTHER);
	EXPECT_EQ(s[DURATIONS_THREADS].calls, 5);
	EXPECT_EQ(s[DURATIONS_THREADS].min, 10 * (DURATIONS_THREADS + 1));
	EXPECT_EQ(s[DURATIONS_THREADS].max, 10 * (DURATIONS_THREADS + 5));
	durations_free(d);
}

TEST_HARNESS_MAIN
