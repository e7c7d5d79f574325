// SPDX-License-Identifier: GPL-2.0
/*
 * Figures over a sliding interval (rates.h): SCI, loss and call rates over
 * exactly the window, a function that appears late, counters reset by a
 * restarted source, p99 interpolated from cumulative buckets, the main
 * cause when some causes are negative, the sort orders, and memory that
 * stays bounded however many samples come.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "top/rates.h"

#define S	1000000000ull
#define EPS	1e-9

/* Totals that grow linearly: @calls per second, each losing @loss_ns. */
static struct rates_counts linear(double t_s, double calls, double loss_ns,
				  double threads)
{
	struct rates_counts c;

	memset(&c, 0, sizeof(c));
	c.calls = calls * t_s;
	c.loss_ns = calls * t_s * loss_ns;
	c.cause_ns[CAUSE_FUTEX] = c.loss_ns * 0.75;
	c.cause_ns[CAUSE_ONCPU] = c.loss_ns * 0.25;
	c.observed_ns = threads * t_s * 1e9;
	c.interference_ns = c.loss_ns * 0.5;	/* half of it */
	return c;
}

static const struct rates_row *row_of(const struct rates_view *v,
				      const char *fn)
{
	size_t i;

	for (i = 0; i < v->nr_rows; i++)
		if (!strcmp(v->rows[i].function, fn))
			return &v->rows[i];
	return NULL;
}

/*
 * Feed samples at t = 0 .. @last s of linear() totals (100 calls/s losing
 * 1 ms each over 2 threads), @aside of the observed time in solo blocks,
 * and the interference totals @interf[t] ns (NULL: linear()'s), then
 * view the one row they make.
 */
static const struct rates_row *feed_linear(struct rates *r, int last,
					   double aside, const double *interf,
					   struct rates_view *v)
{
	struct rates_counts c;
	int t;

	for (t = 0; t <= last; t++) {
		c = linear(t, 100, 1e6, 2);
		c.aside_ns = c.observed_ns * aside;
		if (interf)
			c.interference_ns = interf[t];
		ASSERT_EQ(rates_begin(r, t * S), 0);
		ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	}
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, v), 0);
	ASSERT_EQ(v->nr_rows, 1);
	return &v->rows[0];
}

TEST(first_sample_has_no_rates)
{
	struct rates *r = rates_new(5 * S);
	struct rates_counts c = linear(1, 100, 1000, 2);
	struct rates_view v;

	ASSERT_TRUE(r);
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	EXPECT_EQ(v.nr_rows, 0);
	ASSERT_EQ(rates_begin(r, 1 * S), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	ASSERT_EQ(v.nr_rows, 1);
	EXPECT_TRUE(v.span_ns == 0);
	EXPECT_TRUE(isnan(v.rows[0].sci));
	EXPECT_TRUE(isnan(v.rows[0].calls_per_s));
	EXPECT_TRUE(isnan(v.rows[0].p99_ns));
	rates_free(r);
}

/*
 * 100 calls/s losing 1 ms each over 2 threads until t = 6 s, then 50
 * calls/s losing 4 ms each: at t = 10 with a 5 s window, the figures are
 * those of t = 5..10 alone.
 */
TEST(window_covers_the_last_interval)
{
	struct rates *r = rates_new(5 * S);
	struct rates_counts c;
	struct rates_view v;
	const struct rates_row *f;
	double calls = 0, loss = 0;
	int t;

	ASSERT_TRUE(r);
	for (t = 0; t <= 10; t++) {
		c = linear(t, 0, 0, 2);
		c.calls = calls;
		c.loss_ns = loss;
		c.cause_ns[CAUSE_FUTEX] = loss;
		c.interference_ns = loss / 4;
		ASSERT_EQ(rates_begin(r, t * S), 0);
		ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
		rates_events(r, 1000.0 * t, 3.0 * t);
		calls += t < 6 ? 100 : 50;
		loss += t < 6 ? 100 * 1e6 : 50 * 4e6;
	}
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	EXPECT_NEAR(v.span_ns, 5e9, EPS);
	f = row_of(&v, "f");
	ASSERT_TRUE(f);
	/* t = 5..10: one second at the first pace, four at the second. */
	EXPECT_NEAR(f->calls_per_s, (100 + 4 * 50) / 5.0, EPS);
	EXPECT_NEAR(f->loss_per_s, (100e6 + 4 * 200e6) / 5.0, 1e-3);
	EXPECT_NEAR(f->sci, (100e6 + 4 * 200e6) / 10e9, EPS);
	EXPECT_NEAR(f->interference, f->sci / 4, EPS);
	EXPECT_NEAR(v.events_per_s, 1000, EPS);
	EXPECT_NEAR(v.dropped_per_s, 3, EPS);
	EXPECT_NEAR(v.dropped, 30, EPS);
	EXPECT_EQ(f->cause, CAUSE_FUTEX);
	EXPECT_NEAR(f->cause_share, 1.0, EPS);
	rates_free(r);
}

/*
 * Solo blocks' time is left out of the interference figure's time, not of
 * SCI's: a tenth of the observed time in blocks makes interference 0.5 of
 * the loss over 0.9 of the time.
 */
TEST(interference_leaves_solo_blocks_out)
{
	struct rates *r = rates_new(5 * S);
	const struct rates_row *f;
	struct rates_view v;

	ASSERT_TRUE(r);
	f = feed_linear(r, 5, 0.1, NULL, &v);
	EXPECT_NEAR(f->sci, 100 * 1e6 / 2e9, EPS);
	EXPECT_NEAR(f->interference, 0.5 * 100 * 1e6 / (0.9 * 2e9), EPS);
	rates_free(r);
}

/*
 * A source's interference total re-estimated against a faster reference
 * grows by more than the window's loss, here by 3 s in a window of 2 s
 * over 2 threads: the window's figure stops at the whole of its time.
 */
TEST(interference_past_the_window_time_is_capped)
{
	static const double interf[] = { 2e9, 5e9 };
	struct rates *r = rates_new(5 * S);
	struct rates_view v;

	ASSERT_TRUE(r);
	EXPECT_NEAR(feed_linear(r, 1, 0, interf, &v)->interference, 1.0, EPS);
	rates_free(r);
}

/* While the view is younger than a window, it covers what there is. */
TEST(young_view_covers_since_start)
{
	struct rates *r = rates_new(5 * S);
	struct rates_counts c;
	struct rates_view v;

	ASSERT_TRUE(r);
	c = linear(0, 100, 1000, 1);
	ASSERT_EQ(rates_begin(r, 0), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	c = linear(2, 100, 1000, 1);
	ASSERT_EQ(rates_begin(r, 2 * S), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	EXPECT_NEAR(v.span_ns, 2e9, EPS);
	EXPECT_NEAR(v.rows[0].calls_per_s, 100, EPS);
	EXPECT_NEAR(v.rows[0].sci, 100 * 1000 / 1e9, EPS);
	rates_free(r);
}

/* A function first seen late had nothing before: its totals all count. */
TEST(late_function_counts_from_zero)
{
	struct rates *r = rates_new(5 * S);
	struct rates_counts a = linear(1, 10, 0, 1), b = linear(1, 40, 0, 1);
	struct rates_view v;

	ASSERT_TRUE(r);
	ASSERT_EQ(rates_begin(r, 0), 0);
	ASSERT_EQ(rates_add(r, "app", "a", "app", &a), 0);
	ASSERT_EQ(rates_begin(r, 2 * S), 0);
	ASSERT_EQ(rates_add(r, "app", "a", "app", &a), 0);
	ASSERT_EQ(rates_add(r, "app", "b", "app", &b), 0);
	ASSERT_EQ(rates_view(r, RATES_BY_CALLS, &v), 0);
	ASSERT_EQ(v.nr_rows, 2);
	EXPECT_STREQ(v.rows[0].function, "b");
	EXPECT_NEAR(v.rows[0].calls_per_s, 20, EPS);
	EXPECT_NEAR(v.rows[1].calls_per_s, 0, EPS);
	rates_free(r);
}

/* Totals that went down were reset: the difference starts from zero. */
TEST(reset_counts_from_zero)
{
	struct rates *r = rates_new(5 * S);
	struct rates_counts c = linear(100, 10, 1000, 1);
	struct rates_view v;

	ASSERT_TRUE(r);
	ASSERT_EQ(rates_begin(r, 0), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	rates_events(r, 5000, 50);
	c = linear(1, 10, 1000, 1);
	ASSERT_EQ(rates_begin(r, 1 * S), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	rates_events(r, 100, 1);
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	EXPECT_NEAR(v.rows[0].calls_per_s, 10, EPS);
	EXPECT_NEAR(v.rows[0].loss_per_s, 10000, EPS);
	EXPECT_NEAR(v.events_per_s, 100, EPS);
	EXPECT_EQ(v.rows[0].cause, CAUSE_FUTEX);
	EXPECT_NEAR(v.rows[0].cause_share, 0.75, EPS);
	rates_free(r);
}

/* histogram_quantile's reading of cumulative buckets. */
TEST(quantile_interpolates_within_a_bucket)
{
	const double le[] = { 10, 20, 40, INFINITY };
	const double cum[] = { 0, 100, 200, 200 };
	const double base[] = { 0, 50, 50, 50 };
	const double tail[] = { 10, 10, 10, 20 };

	/* 100 in (10, 20], 100 in (20, 40]. */
	EXPECT_NEAR(rates_quantile(0.5, le, cum, NULL, 4), 20, EPS);
	EXPECT_NEAR(rates_quantile(0.25, le, cum, NULL, 4), 15, EPS);
	EXPECT_NEAR(rates_quantile(0.99, le, cum, NULL, 4), 39.6, EPS);
	/* Minus the base: 50 in (10, 20], 100 in (20, 40]. */
	EXPECT_NEAR(rates_quantile(0.25, le, cum, base, 4), 17.5, EPS);
	EXPECT_NEAR(rates_quantile(0.5, le, cum, base, 4), 25, EPS);
	/* The first bucket starts at 0. */
	EXPECT_NEAR(rates_quantile(0.25, le, tail, NULL, 4), 5, EPS);
	/* In the +Inf bucket: the highest finite bound, as Prometheus. */
	EXPECT_NEAR(rates_quantile(0.99, le, tail, NULL, 4), 40, EPS);
	/* Nothing counted: no answer. */
	EXPECT_TRUE(isnan(rates_quantile(0.99, le, cum, cum, 4)));
	EXPECT_TRUE(isnan(rates_quantile(0.99, le, cum, NULL, 0)));
	/* A base above the counts: reset, so from zero (50 in (10, 20]). */
	EXPECT_NEAR(rates_quantile(0.5, le, base, cum, 4), 15, EPS);
}

TEST(p99_over_the_window_only)
{
	const double le[] = { 1000, 2000, 4000, INFINITY };
	const double early[] = { 1000, 1000, 1000, 1000 };
	const double late[] = { 1000, 1000, 1100, 1100 };
	struct rates *r = rates_new(5 * S);
	struct rates_counts c = linear(1, 1, 1, 1);
	struct rates_view v;

	ASSERT_TRUE(r);
	c.nr_buckets = 4;
	c.le_ns = le;
	c.cum = early;
	ASSERT_EQ(rates_begin(r, 0), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	c.cum = late;
	ASSERT_EQ(rates_begin(r, 1 * S), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	/* The 100 new calls were all in (2000, 4000]: the 1000 fast ones
	 * before the window must not pull p99 down. */
	EXPECT_NEAR(v.rows[0].p99_ns, 2000 + 2000 * 0.99, 1e-6);
	rates_free(r);
}

/* Other bounds than the base's: no p99 rather than a wrong one. */
TEST(p99_unknown_when_bounds_change)
{
	const double le1[] = { 1000, INFINITY }, le2[] = { 500, INFINITY };
	const double cum[] = { 10, 10 };
	struct rates *r = rates_new(5 * S);
	struct rates_counts c = linear(1, 1, 1, 1);
	struct rates_view v;

	ASSERT_TRUE(r);
	c.nr_buckets = 2;
	c.cum = cum;
	c.le_ns = le1;
	ASSERT_EQ(rates_begin(r, 0), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	c.le_ns = le2;
	ASSERT_EQ(rates_begin(r, 1 * S), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	EXPECT_TRUE(isnan(v.rows[0].p99_ns));
	rates_free(r);
}

/* Negative parts (faster than the reference) do not count in shares. */
TEST(main_cause_among_positive_parts)
{
	struct rates *r = rates_new(5 * S);
	struct rates_counts c;
	struct rates_view v;

	ASSERT_TRUE(r);
	memset(&c, 0, sizeof(c));
	ASSERT_EQ(rates_begin(r, 0), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	c.calls = 10;
	c.loss_ns = 100;
	c.cause_ns[CAUSE_FUTEX] = 30;
	c.cause_ns[CAUSE_RUNQUEUE] = 90;
	c.cause_ns[CAUSE_ONCPU] = -20;
	c.observed_ns = 1000;
	ASSERT_EQ(rates_begin(r, 1 * S), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	EXPECT_EQ(v.rows[0].cause, CAUSE_RUNQUEUE);
	EXPECT_NEAR(v.rows[0].cause_share, 0.75, EPS);
	EXPECT_NEAR(v.rows[0].sci, 0.1, EPS);
	/* Nothing lost: no cause. */
	ASSERT_EQ(rates_begin(r, 2 * S), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	ASSERT_EQ(rates_begin(r, 7 * S), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	EXPECT_EQ(v.rows[0].cause, -1);
	rates_free(r);
}

TEST(sort_orders)
{
	struct rates *r = rates_new(5 * S);
	struct rates_counts a, b, c;
	struct rates_view v;

	ASSERT_TRUE(r);
	memset(&a, 0, sizeof(a));
	ASSERT_EQ(rates_begin(r, 0), 0);
	ASSERT_EQ(rates_add(r, "app", "a", "app", &a), 0);
	ASSERT_EQ(rates_add(r, "app", "b", "app", &a), 0);
	ASSERT_EQ(rates_add(r, "app", "c", "app", &a), 0);
	/* a: high SCI, few calls; b: many calls, more loss; c: no time. */
	a.calls = 10;
	a.loss_ns = 500;
	a.observed_ns = 1000;
	b = a;
	b.calls = 1000;
	b.loss_ns = 800;
	b.observed_ns = 8000;
	c = a;
	c.observed_ns = 0;
	c.calls = 100;
	ASSERT_EQ(rates_begin(r, 1 * S), 0);
	ASSERT_EQ(rates_add(r, "app", "a", "app", &a), 0);
	ASSERT_EQ(rates_add(r, "app", "b", "app", &b), 0);
	ASSERT_EQ(rates_add(r, "app", "c", "app", &c), 0);
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	EXPECT_STREQ(v.rows[0].function, "a");
	EXPECT_STREQ(v.rows[1].function, "b");
	EXPECT_STREQ(v.rows[2].function, "c");	/* NAN last */
	ASSERT_EQ(rates_view(r, RATES_BY_LOSS, &v), 0);
	EXPECT_STREQ(v.rows[0].function, "b");
	ASSERT_EQ(rates_view(r, RATES_BY_CALLS, &v), 0);
	EXPECT_STREQ(v.rows[0].function, "b");
	EXPECT_STREQ(v.rows[1].function, "c");
	EXPECT_STREQ(v.rows[2].function, "a");
	rates_free(r);
}

/* The same function name in two executables is two rows. */
TEST(rows_are_per_exe_function_object)
{
	struct rates *r = rates_new(5 * S);
	struct rates_counts c = linear(1, 1, 1, 1);
	struct rates_view v;

	ASSERT_TRUE(r);
	ASSERT_EQ(rates_begin(r, 0), 0);
	ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
	ASSERT_EQ(rates_add(r, "db", "f", "db", &c), 0);
	ASSERT_EQ(rates_add(r, "db", "f", "libc.so.6", &c), 0);
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	EXPECT_EQ(v.nr_rows, 3);
	rates_free(r);
}

/*
 * A long view keeps only the samples the window spans, and a window
 * longer than RATES_MAX_SAMPLES refreshes covers that many.
 */
TEST(samples_stay_bounded)
{
	struct rates *r = rates_new(5 * S), *wide = rates_new(1000 * S);
	struct rates_counts c;
	struct rates_view v;
	int t;

	ASSERT_TRUE(r && wide);
	for (t = 0; t < 10000; t++) {
		c = linear(t / 10.0, 100, 10, 1);
		ASSERT_EQ(rates_begin(r, t * (S / 10)), 0);
		ASSERT_EQ(rates_add(r, "app", "f", "app", &c), 0);
		ASSERT_EQ(rates_begin(wide, t * (S / 10)), 0);
		ASSERT_EQ(rates_add(wide, "app", "f", "app", &c), 0);
	}
	ASSERT_EQ(rates_view(r, RATES_BY_SCI, &v), 0);
	EXPECT_NEAR(v.span_ns, 5e9, 1);
	EXPECT_NEAR(v.rows[0].calls_per_s, 100, 1e-6);
	ASSERT_EQ(rates_view(wide, RATES_BY_SCI, &v), 0);
	EXPECT_NEAR(v.span_ns, (RATES_MAX_SAMPLES - 1) * 1e8, 1);
	rates_free(r);
	rates_free(wide);
}

TEST_HARNESS_MAIN
