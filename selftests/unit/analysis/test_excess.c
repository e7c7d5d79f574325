// SPDX-License-Identifier: GPL-2.0
/*
 * On-CPU excess from counter deltas: the duration buckets, the baseline
 * over the fastest buckets holding EXCESS_FASTEST_SHARE of a block's valid
 * executions, invalid deltas left out, the per-function aggregate that
 * weighs each key's own baseline, and a table of many blocks.
 *
 * Every expected value is worked out by hand in the comments.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "analysis/excess.h"

#define F	7		/* the function most tests use */
#define KEY	0x1040

/* One execution of @ns with up to three counter deltas and valid bits. */
static void add(struct excess *x, uint32_t func, uint64_t key, uint64_t ns,
		uint32_t nr, uint32_t valid, uint64_t d0, uint64_t d1,
		uint64_t d2)
{
	struct pair_exec e;

	memset(&e, 0, sizeof(e));
	e.tid = 100;
	e.probe_id = 1;
	e.entry_ts = 1000000;
	e.exit_ts = e.entry_ts + ns;
	e.nr_counters = nr;
	e.counters_valid = valid;
	e.counter_delta[0] = d0;
	e.counter_delta[1] = d1;
	e.counter_delta[2] = d2;
	ASSERT_EQ(excess_add(x, func, key, &e), 0);
}

/* @n executions of one counter, all valid. */
static void add_n(struct excess *x, uint32_t func, uint64_t key, size_t n,
		  uint64_t ns, uint64_t delta)
{
	while (n--)
		add(x, func, key, ns, 1, 1, delta, 0, 0);
}

static struct excess_result result(const struct excess *x, uint32_t func,
				   uint64_t key, bool all_keys)
{
	struct excess_result r;

	ASSERT_EQ(excess_result(x, func, key, all_keys, &r), 0);
	return r;
}

#define EXPECT_DBL(got, want) EXPECT_NEAR(got, want, 1e-9 * fabs(want) + 1e-12)

TEST(bucket_small_values_exact)
{
	static const struct {
		uint64_t ns;
		unsigned int bucket;
	} v[] = {
		/* Below 2 * EXCESS_SUB: the value itself. */
		{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 5, 5 }, { 7, 7 },
		/* Octave 3 (8..15): 3 * 4 + bits 2..1. */
		{ 8, 12 }, { 9, 12 }, { 10, 13 }, { 11, 13 }, { 12, 14 },
		{ 14, 15 }, { 15, 15 },
		/* Octave 4 (16..31): 16 + bits 3..2. */
		{ 16, 16 }, { 19, 16 }, { 20, 17 }, { 24, 18 }, { 28, 19 },
		{ 31, 19 }, { 32, 20 },
		/* 100 = 0b1100100: octave 6, next bits 10. */
		{ 100, 26 }, { 1000, 39 }, { 2000, 43 },
		{ 1ULL << 63, 252 }, { UINT64_MAX, 255 },
	};
	size_t i;

	ASSERT_EQ(EXCESS_SUB, 4);
	ASSERT_EQ(EXCESS_BUCKETS, 256);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (excess_bucket(v[i].ns) != v[i].bucket)
			TH_LOG("bucket(%llu)", (unsigned long long)v[i].ns);
		EXPECT_EQ(excess_bucket(v[i].ns), v[i].bucket);
	}
}

/* Longer never lands in a faster bucket; every bucket is in range. */
TEST(bucket_monotonic_and_in_range)
{
	unsigned int prev = 0, b;
	uint64_t ns, step;
	int k;

	for (ns = 0; ns < 200000; ns++) {
		b = excess_bucket(ns);
		ASSERT_GE(b, prev);
		ASSERT_LT(b, EXCESS_BUCKETS);
		prev = b;
	}
	/* Then geometrically to the top, with each power's neighbours. */
	for (ns = 200000; ns < UINT64_MAX / 2; ns += step) {
		step = ns / 97 + 1;
		b = excess_bucket(ns);
		ASSERT_GE(b, prev);
		ASSERT_LT(b, EXCESS_BUCKETS);
		prev = b;
	}
	ASSERT_GE(excess_bucket(UINT64_MAX), prev);
	ASSERT_LT(excess_bucket(UINT64_MAX), EXCESS_BUCKETS);
	for (k = 3; k < 64; k++) {
		uint64_t p = 1ULL << k;

		if (k > 3)	/* 7 is exact, 8 starts octave 3 at 12 */
			EXPECT_EQ(excess_bucket(p - 1) + 1, excess_bucket(p));
		EXPECT_EQ(excess_bucket(p), k * EXCESS_SUB);
		/* EXCESS_SUB buckets per octave: +25% is the next one. */
		EXPECT_EQ(excess_bucket(p + p / 4), k * EXCESS_SUB + 1);
		EXPECT_EQ(excess_bucket(p + p / 4 - 1), k * EXCESS_SUB);
		EXPECT_EQ(excess_bucket(2 * p - 1), k * EXCESS_SUB + 3);
	}
}

/*
 * 90 calls of 100ns with delta 5, 10 of 10us with delta 50: the fastest
 * 10% are in the 100ns bucket (which holds 90), baseline 5; mean
 * (90 * 5 + 10 * 50) / 100 = 9.5.
 */
TEST(block_fastest_and_mean)
{
	struct excess *x = excess_new();
	struct excess_result r;

	ASSERT_TRUE(x);
	add_n(x, F, KEY, 90, 100, 5);
	add_n(x, F, KEY, 10, 10000, 50);
	r = result(x, F, KEY, false);
	EXPECT_EQ(r.calls, 100);
	EXPECT_EQ(r.nr_counters, 1);
	EXPECT_EQ(r.c[0].valid_calls, 100);
	EXPECT_EQ(r.c[0].fastest_calls, 90);
	EXPECT_DBL(r.c[0].mean, 9.5);
	EXPECT_DBL(r.c[0].fastest_mean, 5.0);
	/* The same seen as the function (one key). */
	r = result(x, F, 0, true);
	EXPECT_EQ(r.calls, 100);
	EXPECT_EQ(r.c[0].valid_calls, 100);
	EXPECT_DBL(r.c[0].mean, 9.5);
	EXPECT_DBL(r.c[0].fastest_mean, 5.0);
	/* The order of adds does not matter: the slow ones first. */
	excess_free(x);
	x = excess_new();
	ASSERT_TRUE(x);
	add_n(x, F, KEY, 10, 10000, 50);
	add_n(x, F, KEY, 90, 100, 5);
	r = result(x, F, KEY, false);
	EXPECT_DBL(r.c[0].mean, 9.5);
	EXPECT_DBL(r.c[0].fastest_mean, 5.0);
	excess_free(x);
}

/*
 * Whole buckets, fastest first, until they hold 10%: 5 calls of 100ns
 * (delta 1) are not enough of 100, with the 5 of 1us (delta 3) they are:
 * baseline (5 + 15) / 10 = 2, mean (5 + 15 + 90 * 100) / 100 = 90.2.
 * With 20 calls in the second bucket it is taken whole: 3 + 20 calls,
 * baseline (3 * 1 + 20 * 2) / 23.
 */
TEST(fastest_share_whole_buckets)
{
	struct excess *x = excess_new();
	struct excess_result r;

	ASSERT_TRUE(x);
	add_n(x, F, 1, 5, 100, 1);
	add_n(x, F, 1, 90, 100000, 100);
	add_n(x, F, 1, 5, 1000, 3);
	r = result(x, F, 1, false);
	EXPECT_EQ(r.c[0].valid_calls, 100);
	EXPECT_EQ(r.c[0].fastest_calls, 10);
	EXPECT_DBL(r.c[0].fastest_mean, 2.0);
	EXPECT_DBL(r.c[0].mean, 90.2);

	add_n(x, F, 2, 3, 100, 1);
	add_n(x, F, 2, 20, 1000, 2);
	add_n(x, F, 2, 77, 100000, 10);
	r = result(x, F, 2, false);
	EXPECT_EQ(r.c[0].valid_calls, 100);
	EXPECT_EQ(r.c[0].fastest_calls, 23);
	EXPECT_DBL(r.c[0].fastest_mean, 43.0 / 23);
	EXPECT_DBL(r.c[0].mean, (3 + 40 + 770) / 100.0);

	/*
	 * 10% of 15 is 1.5 calls: the single fastest call (6.7%) is not
	 * enough, the two fastest are.  Baseline (5 + 7) / 2 = 6.
	 */
	add(x, F, 3, 100, 1, 1, 5, 0, 0);
	add(x, F, 3, 1000, 1, 1, 7, 0, 0);
	add_n(x, F, 3, 13, 100000, 50);
	r = result(x, F, 3, false);
	EXPECT_EQ(r.c[0].valid_calls, 15);
	EXPECT_EQ(r.c[0].fastest_calls, 2);
	EXPECT_DBL(r.c[0].fastest_mean, 6.0);
	EXPECT_DBL(r.c[0].mean, (5 + 7 + 13 * 50) / 15.0);

	/* Exactly 10% (3 of 30) is enough: not a fourth call. */
	add_n(x, F, 4, 3, 100, 4);
	add_n(x, F, 4, 1, 1000, 8);
	add_n(x, F, 4, 26, 100000, 20);
	r = result(x, F, 4, false);
	EXPECT_EQ(r.c[0].fastest_calls, 3);
	EXPECT_DBL(r.c[0].fastest_mean, 4.0);
	excess_free(x);
}

/*
 * Bits a call's delta is not valid for are left out of that counter only;
 * the call still counts in calls.  The invalid deltas are huge, so
 * counting one would show.
 */
TEST(invalid_deltas_not_counted)
{
	struct excess *x = excess_new();
	struct excess_result r;
	int i;

	ASSERT_TRUE(x);
	/* 10 calls: counter 0 valid in 6, counter 1 in all, 2 in none. */
	for (i = 0; i < 10; i++) {
		uint32_t valid = i < 6 ? 0x3 : 0x2;

		add(x, F, KEY, 100, 3, valid, i < 6 ? 10 : 1000000000,
		    20 + i, 999999999);
	}
	/* And 2 calls with no valid delta at all. */
	add(x, F, KEY, 100, 3, 0, 77777777, 77777777, 77777777);
	add(x, F, KEY, 100, 3, 0x8, 77777777, 77777777, 77777777);
	r = result(x, F, KEY, false);
	EXPECT_EQ(r.calls, 12);
	EXPECT_EQ(r.nr_counters, 3);
	EXPECT_EQ(r.c[0].valid_calls, 6);
	EXPECT_DBL(r.c[0].mean, 10.0);
	EXPECT_DBL(r.c[0].fastest_mean, 10.0);
	EXPECT_EQ(r.c[1].valid_calls, 10);
	EXPECT_DBL(r.c[1].mean, 24.5);		/* 20..29 */
	EXPECT_DBL(r.c[1].fastest_mean, 24.5);	/* one bucket */
	EXPECT_EQ(r.c[2].valid_calls, 0);
	EXPECT_EQ(r.c[2].mean, 0);
	EXPECT_EQ(r.c[2].fastest_mean, 0);
	EXPECT_EQ(r.c[3].valid_calls, 0);	/* bit 3 is beyond nr */
	excess_free(x);
}

/* Executions without counters are not kept: no block at all. */
TEST(no_counters_ignored)
{
	struct excess *x = excess_new();
	struct excess_result r;

	ASSERT_TRUE(x);
	add(x, F, KEY, 100, 0, 0x7, 5, 5, 5);
	add(x, F, KEY, 100, 0, 0, 0, 0, 0);
	EXPECT_EQ(excess_result(x, F, KEY, false, &r), -ENOENT);
	EXPECT_EQ(excess_result(x, F, 0, true, &r), -ENOENT);
	EXPECT_EQ(r.calls, 0);
	/* A block with counters does not count them either. */
	add(x, F, KEY, 100, 1, 1, 5, 0, 0);
	add(x, F, KEY, 100, 0, 1, 500, 0, 0);
	r = result(x, F, KEY, false);
	EXPECT_EQ(r.calls, 1);
	EXPECT_EQ(r.c[0].valid_calls, 1);
	EXPECT_DBL(r.c[0].mean, 5.0);
	/* Other functions and keys are still absent. */
	EXPECT_EQ(excess_result(x, F + 1, KEY, false, &r), -ENOENT);
	EXPECT_EQ(excess_result(x, F + 1, 0, true, &r), -ENOENT);
	EXPECT_EQ(excess_result(x, F, KEY + 1, false, &r), -ENOENT);
	excess_free(x);
}

/*
 * Two keys of F with their own baselines:
 *   key A: 9 calls of 100ns delta 10, 1 of 1us delta 30: valid 10,
 *          baseline 10, sum 120;
 *   key B: 18 calls of 2us delta 100, 2 of 5us delta 200: valid 20,
 *          baseline 100, sum 2200.
 * F: mean (120 + 2200) / 30, baseline (10 * 10 + 20 * 100) / 30 = 70.
 * Pooling the keys instead would give 10 (A's 100ns bucket is fastest).
 * Another function with the same keys must not mix in.
 */
TEST(keys_weighted_by_valid_calls)
{
	struct excess *x = excess_new();
	struct excess_result r;

	ASSERT_TRUE(x);
	add_n(x, F, 0xa, 9, 100, 10);
	add_n(x, F, 0xb, 18, 2000, 100);
	add_n(x, F, 0xa, 1, 1000, 30);
	add_n(x, F, 0xb, 2, 5000, 200);
	add_n(x, F + 1, 0xa, 50, 50, 1);
	add_n(x, F + 1, 0xb, 50, 50000, 1000);
	/* An execution of F with no valid delta: a call, nothing else. */
	add(x, F, 0xb, 10, 1, 0, 1, 0, 0);

	r = result(x, F, 0, true);
	EXPECT_EQ(r.calls, 31);
	EXPECT_EQ(r.c[0].valid_calls, 30);
	EXPECT_EQ(r.c[0].fastest_calls, 9 + 18);
	EXPECT_DBL(r.c[0].mean, 2320.0 / 30);
	EXPECT_DBL(r.c[0].fastest_mean, 70.0);

	/* Per key: only that key. */
	r = result(x, F, 0xa, false);
	EXPECT_EQ(r.calls, 10);
	EXPECT_EQ(r.c[0].valid_calls, 10);
	EXPECT_DBL(r.c[0].mean, 12.0);
	EXPECT_DBL(r.c[0].fastest_mean, 10.0);
	r = result(x, F, 0xb, false);
	EXPECT_EQ(r.calls, 21);
	EXPECT_EQ(r.c[0].valid_calls, 20);
	EXPECT_DBL(r.c[0].mean, 110.0);
	EXPECT_DBL(r.c[0].fastest_mean, 100.0);
	/* all_keys ignores the key given. */
	r = result(x, F, 0xdead, true);
	EXPECT_EQ(r.calls, 31);
	/* The other function is its own. */
	r = result(x, F + 1, 0, true);
	EXPECT_EQ(r.calls, 100);
	EXPECT_DBL(r.c[0].mean, 500.5);
	EXPECT_DBL(r.c[0].fastest_mean, (50 * 1 + 50 * 1000) / 100.0);
	r = result(x, F + 1, 0xa, false);
	EXPECT_DBL(r.c[0].mean, 1.0);
	EXPECT_EQ(excess_result(x, F, 0xc, false, &r), -ENOENT);
	excess_free(x);
}

/*
 * Keys whose fastest calls are all their calls have no excess, and the
 * aggregate says exactly 0: one call of delta 0, seven in one bucket
 * summing to 29 (7 * (29 / 7.) is not 29 in doubles).
 */
TEST(no_excess_is_exactly_zero)
{
	struct excess *x = excess_new();
	struct excess_result r;
	int i;

	ASSERT_TRUE(x);
	add(x, F, 1, 500, 1, 1, 0, 0, 0);
	for (i = 0; i < 7; i++)
		add(x, F, 2, 1000, 1, 1, i ? 4 : 5, 0, 0);
	r = result(x, F, 2, false);
	EXPECT_EQ(r.c[0].fastest_calls, 7);
	EXPECT_TRUE(r.c[0].mean == r.c[0].fastest_mean);
	r = result(x, F, 0, true);
	EXPECT_EQ(r.c[0].valid_calls, 8);
	EXPECT_DBL(r.c[0].mean, 29.0 / 8);
	if (r.c[0].mean != r.c[0].fastest_mean)
		TH_LOG("excess %g, want 0", r.c[0].mean - r.c[0].fastest_mean);
	EXPECT_TRUE(r.c[0].mean - r.c[0].fastest_mean == 0.0);
	excess_free(x);
}

/* One call: it is its own baseline. */
TEST(single_call)
{
	struct excess *x = excess_new();
	struct excess_result r;

	ASSERT_TRUE(x);
	add(x, F, KEY, 12345, 2, 0x3, 987654321, 3, 0);
	r = result(x, F, KEY, false);
	EXPECT_EQ(r.calls, 1);
	EXPECT_EQ(r.nr_counters, 2);
	EXPECT_EQ(r.c[0].valid_calls, 1);
	EXPECT_EQ(r.c[0].fastest_calls, 1);
	EXPECT_TRUE(r.c[0].mean == 987654321.0);
	EXPECT_TRUE(r.c[0].fastest_mean == r.c[0].mean);
	EXPECT_TRUE(r.c[1].mean == 3.0);
	EXPECT_TRUE(r.c[1].fastest_mean == 3.0);
	excess_free(x);
}

/* Every counter slot is its own, up to ISPOT_MAX_COUNTERS. */
TEST(all_counter_slots)
{
	struct excess *x = excess_new();
	struct excess_result r;
	struct pair_exec e;
	uint32_t c;
	int i;

	ASSERT_TRUE(x);
	memset(&e, 0, sizeof(e));
	e.nr_counters = ISPOT_MAX_COUNTERS;
	e.counters_valid = (1u << ISPOT_MAX_COUNTERS) - 1;
	for (i = 0; i < 10; i++) {
		e.entry_ts = 1000;
		e.exit_ts = i ? 1100 : 1010;	/* one fast call */
		for (c = 0; c < ISPOT_MAX_COUNTERS; c++)
			e.counter_delta[c] = (c + 1) * (i ? 100 : 1);
		ASSERT_EQ(excess_add(x, F, KEY, &e), 0);
	}
	r = result(x, F, KEY, false);
	EXPECT_EQ(r.nr_counters, ISPOT_MAX_COUNTERS);
	for (c = 0; c < ISPOT_MAX_COUNTERS; c++) {
		EXPECT_EQ(r.c[c].valid_calls, 10);
		EXPECT_EQ(r.c[c].fastest_calls, 1);
		EXPECT_DBL(r.c[c].fastest_mean, c + 1.0);
		EXPECT_DBL(r.c[c].mean, (c + 1) * 901 / 10.0);
	}
	excess_free(x);
}

/* 5000 blocks across functions: the table grows and loses none. */
TEST(many_blocks)
{
	struct excess *x = excess_new();
	struct excess_result r;
	uint64_t k, want_sum[3] = { 0 }, want_n[3] = { 0 };
	uint32_t f;

	ASSERT_TRUE(x);
	for (k = 0; k < 5000; k++) {
		f = k % 3;
		/* Keys that collide in the low bits, and key 0. */
		add(x, f, k << 20, 100 + k, 1, 1, 3 * k + 1, 0, 0);
		if (k % 7 == 0)
			add(x, f, k << 20, 100 + k, 1, 1, 3 * k + 1, 0, 0);
		want_sum[f] += (3 * k + 1) * (k % 7 == 0 ? 2 : 1);
		want_n[f] += k % 7 == 0 ? 2 : 1;
	}
	for (k = 0; k < 5000; k++) {
		r = result(x, k % 3, k << 20, false);
		ASSERT_EQ(r.calls, k % 7 == 0 ? 2 : 1);
		ASSERT_TRUE(r.c[0].mean == 3.0 * k + 1);
		ASSERT_TRUE(r.c[0].fastest_mean == 3.0 * k + 1);
	}
	for (f = 0; f < 3; f++) {
		r = result(x, f, 0, true);
		EXPECT_EQ(r.calls, want_n[f]);
		EXPECT_EQ(r.c[0].valid_calls, want_n[f]);
		/* Single-bucket keys: baseline is each key's mean. */
		EXPECT_DBL(r.c[0].mean, (double)want_sum[f] / want_n[f]);
		EXPECT_DBL(r.c[0].fastest_mean,
			   (double)want_sum[f] / want_n[f]);
	}
	EXPECT_EQ(excess_result(x, 0, 5000ULL << 20, false, &r), -ENOENT);
	EXPECT_EQ(excess_result(x, 3, 0, true, &r), -ENOENT);
	excess_free(x);
}

TEST(free_null)
{
	excess_free(NULL);
}

TEST_HARNESS_MAIN
