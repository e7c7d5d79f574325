// SPDX-License-Identifier: GPL-2.0
/*
 * Log-linear histogram: bucket geometry, percentiles against an exact sort
 * on uniform, exponential and bimodal data, exact min/max/mean, merge, and
 * a size that does not depend on what was recorded.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "analysis/hist.h"

#define N_VALUES	200000

/* xorshift64*: deterministic, so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	return ispot_test_rand(&rng_state);
}

/* Uniform in (0, 1). */
static double rng_unit(void)
{
	return ((rng() >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(void)
{
	return sqrt(-2.0 * log(rng_unit())) * cos(2.0 * M_PI * rng_unit());
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile that hist_percentile() approximates. */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double p)
{
	long double r;
	size_t rank;

	if (p <= 0)
		return sorted[0];
	if (p >= 100)
		return sorted[n - 1];
	r = ceill((long double)p * n / 100.0L);
	rank = r < 1 ? 1 : (r > n ? n : (size_t)r);
	return sorted[rank - 1];
}

static const double pcts[] = {
	0, 0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100,
};

/* Record @v[], then check every percentile and the exact statistics. */
static void check_against_sort(uint64_t *v, size_t n, const char *what)
{
	struct hist *h = malloc(sizeof(*h));
	long double sum = 0;
	double worst = 0;
	size_t i;

	ASSERT_TRUE(h);
	hist_init(h);
	for (i = 0; i < n; i++) {
		hist_record(h, v[i]);
		sum += v[i];
	}
	qsort(v, n, sizeof(*v), cmp_u64);

	ASSERT_EQ(hist_count(h), n);
	ASSERT_EQ(hist_min(h), v[0]);
	ASSERT_EQ(hist_max(h), v[n - 1]);
	EXPECT_NEAR(hist_mean(h), (double)(sum / n), (double)(sum / n) * 1e-12);

	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		uint64_t want = exact_percentile(v, n, pcts[i]);
		uint64_t got = hist_percentile(h, pcts[i]);
		double err = want ? fabs((double)got - (double)want) / want :
			     (double)got;

		if (err > worst)
			worst = err;
		if (err > HIST_REL_ERROR) {
			TH_LOG("%s p%g: got %llu want %llu (err %.5f)", what,
			       pcts[i], (unsigned long long)got,
			       (unsigned long long)want, err);
		}
		/* The harness compares as long long: test doubles as bools. */
		EXPECT_TRUE(err <= HIST_REL_ERROR);
	}
	/* The claimed ~1% with room to spare. */
	EXPECT_TRUE(worst < 0.01);
	TH_LOG("%s: worst relative error %.5f (bound %.5f)", what, worst,
	       HIST_REL_ERROR);
	free(h);
}

TEST(geometry_contiguous_and_bounded)
{
	size_t i;

	ASSERT_EQ(hist_bucket_index(0), 0);
	ASSERT_EQ(hist_bucket_index(UINT64_MAX), HIST_NR_BUCKETS - 1);
	ASSERT_EQ(hist_bucket_lower(0), 0);
	ASSERT_TRUE(hist_bucket_upper(HIST_NR_BUCKETS - 1) == UINT64_MAX);
	for (i = 0; i < HIST_NR_BUCKETS; i++) {
		uint64_t lo = hist_bucket_lower(i), hi = hist_bucket_upper(i);

		ASSERT_LE(lo, hi);
		ASSERT_EQ(hist_bucket_index(lo), i);
		ASSERT_EQ(hist_bucket_index(hi), i);
		if (i + 1 < HIST_NR_BUCKETS)
			ASSERT_TRUE(hi + 1 == hist_bucket_lower(i + 1));
		/* Above the exact region, width <= 1/HIST_SUB of lower. */
		if (lo >= 2 * HIST_SUB)
			ASSERT_TRUE((long double)(hi - lo + 1) / lo <=
				    1.0L / HIST_SUB);
	}
}

TEST(small_values_exact)
{
	struct hist *h = malloc(sizeof(*h));
	uint64_t v;

	ASSERT_TRUE(h);
	hist_init(h);
	for (v = 0; v < 2 * HIST_SUB; v++)
		hist_record(h, v);
	/* 256 values 0..255: nearest rank of p50 is the 128th, i.e. 127. */
	EXPECT_EQ(hist_percentile(h, 50), 127);
	EXPECT_EQ(hist_percentile(h, 99), 253);
	EXPECT_EQ(hist_percentile(h, 100), 255);
	EXPECT_EQ(hist_min(h), 0);
	EXPECT_NEAR(hist_mean(h), 127.5, 1e-9);
	free(h);
}

TEST(uniform_vs_sort)
{
	uint64_t *v = malloc(N_VALUES * sizeof(*v));
	size_t i;

	ASSERT_TRUE(v);
	for (i = 0; i < N_VALUES; i++)
		v[i] = 1000 + rng() % 1000000000ULL;
	check_against_sort(v, N_VALUES, "uniform");
	free(v);
}

TEST(exponential_vs_sort)
{
	uint64_t *v = malloc(N_VALUES * sizeof(*v));
	size_t i;

	ASSERT_TRUE(v);
	for (i = 0; i < N_VALUES; i++)
		v[i] = (uint64_t)(-50000.0 * log(rng_unit()));
	check_against_sort(v, N_VALUES, "exponential");
	free(v);
}

TEST(bimodal_vs_sort)
{
	uint64_t *v = malloc(N_VALUES * sizeof(*v));
	size_t i;

	ASSERT_TRUE(v);
	/* A fast path near 2us and a contended one near 3ms, 95/5. */
	for (i = 0; i < N_VALUES; i++) {
		double x = rng() % 100 < 95 ? 2000 + 150 * rng_normal() :
			   3e6 + 4e5 * rng_normal();

		v[i] = x < 1 ? 1 : (uint64_t)x;
	}
	check_against_sort(v, N_VALUES, "bimodal");
	free(v);
}

TEST(wide_range_vs_sort)
{
	uint64_t *v = malloc(N_VALUES * sizeof(*v));
	size_t i;

	ASSERT_TRUE(v);
	/* Log-uniform over the whole u64 range, every group populated. */
	for (i = 0; i < N_VALUES; i++)
		v[i] = rng() >> (rng() % 64);
	check_against_sort(v, N_VALUES, "log-uniform");
	free(v);
}

TEST(min_max_mean_exact)
{
	struct hist *h = malloc(sizeof(*h));

	ASSERT_TRUE(h);
	hist_init(h);
	hist_record(h, 1000003);
	hist_record(h, 999999937);
	hist_record(h, 123457);
	EXPECT_EQ(hist_min(h), 123457);
	EXPECT_EQ(hist_max(h), 999999937);
	EXPECT_EQ(hist_percentile(h, 0), 123457);
	EXPECT_EQ(hist_percentile(h, 100), 999999937);
	EXPECT_NEAR(hist_mean(h), (1000003.0 + 999999937.0 + 123457.0) / 3,
		    1e-6);

	/* The sum is 128-bit: two near-maximal values do not wrap. */
	hist_init(h);
	hist_record(h, UINT64_MAX);
	hist_record(h, UINT64_MAX - 1);
	EXPECT_NEAR(hist_mean(h) / 18446744073709551615.0, 1.0, 1e-12);
	EXPECT_TRUE(hist_max(h) == UINT64_MAX);
	EXPECT_TRUE(hist_percentile(h, 100) == UINT64_MAX);
	free(h);
}

TEST(empty)
{
	struct hist *h = malloc(sizeof(*h));

	ASSERT_TRUE(h);
	hist_init(h);
	EXPECT_EQ(hist_count(h), 0);
	EXPECT_EQ(hist_min(h), 0);
	EXPECT_EQ(hist_max(h), 0);
	EXPECT_EQ(hist_percentile(h, 50), 0);
	EXPECT_NEAR(hist_mean(h), 0.0, 0.0);
	free(h);
}

TEST(memory_fixed)
{
	struct hist *h = malloc(sizeof(*h));
	size_t i;

	ASSERT_TRUE(h);
	/* No pointers inside: the size is the whole cost, whatever is put in. */
	ASSERT_EQ(sizeof(struct hist), 5 * sizeof(uint64_t) +
		  HIST_NR_BUCKETS * sizeof(uint64_t));
	ASSERT_LT(sizeof(struct hist), 64 * 1024);
	hist_init(h);
	for (i = 0; i < 1000000; i++)
		hist_record(h, rng());
	EXPECT_EQ(hist_count(h), 1000000);
	free(h);
}

TEST(record_n_same_as_loop)
{
	struct hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	int i;

	ASSERT_TRUE(a && b);
	hist_init(a);
	hist_init(b);
	for (i = 0; i < 1000; i++)
		hist_record(a, 777777);
	hist_record_n(b, 777777, 1000);
	hist_record_n(b, 5, 0);
	EXPECT_EQ(memcmp(a, b, sizeof(*a)), 0);
	free(a);
	free(b);
}

TEST(merge_equals_recording_both)
{
	struct hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct hist *all = malloc(sizeof(*all)), *e = malloc(sizeof(*e));
	int i;

	ASSERT_TRUE(a && b && all && e);
	hist_init(a);
	hist_init(b);
	hist_init(all);
	hist_init(e);
	for (i = 0; i < 50000; i++) {
		uint64_t x = 100 + rng() % 10000, y = rng() >> (rng() % 64);

		hist_record(a, x);
		hist_record(b, y);
		hist_record(all, x);
		hist_record(all, y);
	}
	hist_merge(a, b);
	EXPECT_EQ(memcmp(a, all, sizeof(*a)), 0);
	EXPECT_EQ(hist_percentile(a, 99), hist_percentile(all, 99));

	/* Merging an empty histogram changes nothing, in either direction. */
	hist_merge(a, e);
	EXPECT_EQ(memcmp(a, all, sizeof(*a)), 0);
	hist_merge(e, all);
	EXPECT_EQ(memcmp(e, all, sizeof(*e)), 0);
	free(a);
	free(b);
	free(all);
	free(e);
}

/*
 * Classic cumulative buckets against counting by hand: exact below
 * 2 * HIST_SUB, and otherwise wrong only for values within
 * HIST_REL_ERROR of a bound.
 */
TEST(cumulative_vs_counting)
{
	static const uint64_t le[] = {
		0, 5, 255, 1000, 2500, 100000, 2500000, 1000000000,
	};
	const size_t n = sizeof(le) / sizeof(le[0]);
	uint64_t out[sizeof(le) / sizeof(le[0])], seed = 7;
	struct hist *h = malloc(sizeof(*h));
	uint64_t *v = malloc(20000 * sizeof(*v));
	size_t i, k;

	ASSERT_TRUE(h && v);
	hist_init(h);
	hist_cumulative(h, le, n, out);
	for (k = 0; k < n; k++)
		EXPECT_EQ(out[k], 0);
	for (i = 0; i < 20000; i++) {
		/* log-uniform over 1 ns .. 4 s, and some exact bounds */
		v[i] = i % 10 ? 1ull << (ispot_test_rand(&seed) % 32) :
		       le[i / 10 % n];
		v[i] += i % 10 ? ispot_test_rand(&seed) % (v[i] + 1) : 0;
		hist_record(h, v[i]);
	}
	hist_cumulative(h, le, n, out);
	for (k = 0; k < n; k++) {
		uint64_t below = 0, near = 0;

		for (i = 0; i < 20000; i++) {
			below += v[i] <= le[k];
			near += fabs((double)v[i] - le[k]) <=
				HIST_REL_ERROR * 2 * le[k];
		}
		if (le[k] < 2 * HIST_SUB)
			EXPECT_EQ(out[k], below);
		EXPECT_LE(out[k], below + near);
		EXPECT_GE(out[k] + near, below);
		if (k)
			EXPECT_GE(out[k], out[k - 1]);
	}
	free(h);
	free(v);
}

TEST_HARNESS_MAIN
