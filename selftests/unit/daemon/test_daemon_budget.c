// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's overhead budget (user/daemon/budget.c): the duty cycle that
 * spends the budget for a constant load, the clamp at 1, budget 0, a long
 * simulation whose armed share and overhead must come out as promised,
 * burst starts spread over their periods without overlap, a load step,
 * and an idle target.
 *
 * The simulated target uses TARGET_CPUS CPUs all the time, traps included
 * (a CPU-bound target pays for the probes with its own work), and makes
 * @rate probed calls per second while armed.  Then a burst of L ns has
 * rate x L calls and TARGET_CPUS x L ns of CPU time, which is what ispotd
 * reads from /proc at the end of a real burst.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ispot_test.h"
#include "budget.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NS		1000000000.0
#define TARGET_CPUS	1.5
#define COST_NS		1000.0		/* c: one trap pair */
#define BUDGET		0.01

/* The harness compares as integers: doubles need their own check. */
#define __DBL_CMP(a, op, b, fatal) do {					\
	double __x = (a), __y = (b);					\
	if (!(__x op __y)) {						\
		TH_LOG("expected %s %s %s (%.9g vs %.9g)", #a, #op, #b,	\
		       __x, __y);					\
		ispot_test_fail(fatal);					\
	}								\
} while (0)

#define ASSERT_DBL(a, op, b)	__DBL_CMP(a, op, b, 1)
#define EXPECT_DBL(a, op, b)	__DBL_CMP(a, op, b, 0)

/* o_full as budget.h defines it, computed independently of budget.c. */
static double o_full(double rate, double cost_ns)
{
	double probes = rate * cost_ns / NS;	/* CPU share of the traps */

	return probes / (TARGET_CPUS - probes);
}

/* One burst of @len ns of the simulated target, reported to @b. */
static void observe(struct budget *b, double rate, uint64_t len)
{
	budget_observe(b, (uint64_t)(rate * len / NS), len,
		       (uint64_t)(TARGET_CPUS * len), 0);
}

TEST(duty_spends_budget_for_constant_load)
{
	/* Calls per armed second: o_full from 0.7% to 2 (traps > work). */
	static const double rates[] = { 1e4, 3e4, 1e5, 3e5, 1e6 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		double want = o_full(rates[i], COST_NS);
		struct budget b;

		budget_init(&b, BUDGET, COST_NS, 1);
		observe(&b, rates[i], 1000000000ull);
		EXPECT_NEAR(b.full, want, want * 1e-6);
		if (want > BUDGET)
			EXPECT_NEAR(b.duty, BUDGET / want,
				    1e-6 * BUDGET / want);
		else
			EXPECT_DBL(b.duty, ==, 1.0);
		/* The same load again changes nothing: no drift. */
		observe(&b, rates[i], 1000000000ull);
		EXPECT_NEAR(b.full, want, want * 1e-6);
	}
}

TEST(duty_clamps_to_one_when_cheap)
{
	uint64_t start, len, now = 7000000000ull;
	struct budget b;
	int i;

	/* 100 calls a second cost ~0.007%: far below a 1% budget. */
	budget_init(&b, BUDGET, COST_NS, 1);
	observe(&b, 100, 1000000000ull);
	ASSERT_DBL(b.full, <, BUDGET);
	EXPECT_DBL(b.duty, ==, 1.0);
	/* Armed all the time: each burst starts where the last one ended. */
	for (i = 0; i < 10; i++) {
		budget_next_burst(&b, now, &start, &len);
		EXPECT_EQ(start, now);
		EXPECT_GT(len, 0);
		EXPECT_NE(len, UINT64_MAX);
		observe(&b, 100, len);
		now = start + len;
	}
}

TEST(budget_zero_is_always_armed)
{
	uint64_t start, len;
	struct budget b;

	budget_init(&b, 0, COST_NS, 1);
	budget_next_burst(&b, 123, &start, &len);
	EXPECT_EQ(start, 123);
	EXPECT_TRUE(len == UINT64_MAX);
	/* Even under a load that a budget would cut. */
	observe(&b, 1e6, 1000000000ull);
	EXPECT_DBL(b.duty, ==, 1.0);
	budget_next_burst(&b, 456, &start, &len);
	EXPECT_EQ(start, 456);
	EXPECT_TRUE(len == UINT64_MAX);
}

/*
 * Many periods of a constant load: the long-run armed share is the duty
 * and the overhead the target pays stays within the budget.  The loads
 * cover a duty of 1, duties whose burst is d x BUDGET_BASE_PERIOD_NS,
 * one held at BUDGET_MIN_BURST_NS, and one whose period is cut to
 * BUDGET_MAX_PERIOD_NS.
 */
TEST(long_run_share_and_overhead)
{
	static const double rates[] = { 1e4, 3e4, 1e5, 1e6, 1.45e6 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		double duty, share, overhead, calls = 0, armed = 0, wall;
		uint64_t now = 1000000000ull, t0, start, len;
		struct budget b;
		int n;

		budget_init(&b, BUDGET, COST_NS, 42 + i);
		/* The probe burst: nothing is known yet. */
		budget_next_burst(&b, now, &start, &len);
		EXPECT_EQ(len, BUDGET_PROBE_BURST_NS);
		observe(&b, rates[i], len);
		calls += rates[i] * len / NS;
		armed += len;
		now = start + len;
		duty = b.duty;
		t0 = b.period_end;

		/* From here the duty is known: count the periods. */
		for (n = 0; n < 2000; n++) {
			budget_next_burst(&b, now, &start, &len);
			ASSERT_GE(start, now);
			observe(&b, rates[i], len);
			calls += rates[i] * len / NS;
			armed += len;
			/* The daemon asks again when the burst is over. */
			now = start + len;
		}
		/* Whole periods: the last one may not have ended yet. */
		wall = (double)(b.period_end - t0);
		share = (armed - BUDGET_PROBE_BURST_NS) / wall;
		TH_LOG("rate %.0f/s: duty %.5f share %.5f", rates[i], duty,
		       share);
		/*
		 * Bursts of another length round the calls differently,
		 * which near TARGET_CPUS of traps moves o_full a little.
		 */
		EXPECT_NEAR(b.duty, duty, 1e-3 * duty);
		EXPECT_NEAR(share, duty, 0.02 * duty);
		/* Over all the time, probe burst included. */
		wall += (double)(t0 - 1000000000ull);
		overhead = calls * COST_NS /
			   (TARGET_CPUS * wall - calls * COST_NS);
		TH_LOG("rate %.0f/s: overhead %.5f of budget %.5f", rates[i],
		       overhead, BUDGET);
		EXPECT_DBL(overhead, <=, BUDGET * 1.02);
	}
}

/*
 * Where bursts start: uniformly over the slack of their period (so nothing
 * periodic in the target stays in step), never before @now and never
 * overlapping the burst before, whether the daemon asks at the end of a
 * burst, early, or late.
 */
TEST(burst_starts_spread_without_overlap)
{
	uint64_t rng = 0x853c49e6748fea9bULL, now = 5000000000ull;
	uint64_t prev_end = 0, start, len;
	unsigned int bins[10] = { 0 };
	const int periods = 2000;
	struct budget b;
	int n, k;

	budget_init(&b, BUDGET, COST_NS, 7);
	observe(&b, 1e5, 1000000000ull);	/* duty ~0.15: slack ~4.2 s */
	ASSERT_DBL(b.duty, <, 0.5);
	for (n = 0; n < periods; n++) {
		uint64_t period_start = b.period_end > now ? b.period_end : now;
		uint64_t period, slack;

		budget_next_burst(&b, now, &start, &len);
		period = b.period_end - period_start;
		ASSERT_GT(period, len);
		slack = period - len;
		ASSERT_GE(start, now);
		ASSERT_GE(start, period_start);
		ASSERT_LE(start, period_start + slack);
		if (n)
			ASSERT_GE(start, prev_end);
		k = (int)((double)(start - period_start) / slack * 10);
		bins[k < 10 ? k : 9]++;
		prev_end = start + len;
		observe(&b, 1e5, len);
		/* Mostly at the burst's end; sometimes early or late. */
		switch (ispot_test_rand(&rng) % 4) {
		case 0:
			now = start + ispot_test_rand(&rng) % len;
			break;
		case 1:
			now = prev_end + ispot_test_rand(&rng) % (3 * period);
			break;
		default:
			now = prev_end;
		}
	}
	for (k = 0; k < 10; k++) {
		TH_LOG("bin %d: %u", k, bins[k]);
		EXPECT_GE(bins[k], periods / 20);
	}
}

/* More calls: the duty drops at the next burst; fewer: only gradually. */
TEST(load_step)
{
	struct budget b;
	double d1, d2, d3;

	budget_init(&b, BUDGET, COST_NS, 1);
	observe(&b, 3e4, 1000000000ull);
	observe(&b, 3e4, 1000000000ull);
	d1 = b.duty;
	observe(&b, 3e5, 1000000000ull);
	d2 = b.duty;
	EXPECT_DBL(d2, <, d1);
	/* At once what the new load needs, not an average with the old. */
	EXPECT_NEAR(d2, BUDGET / o_full(3e5, COST_NS),
		    1e-6 * BUDGET / o_full(3e5, COST_NS));
	/* Back down: believed only through the slow average. */
	observe(&b, 3e4, 1000000000ull);
	d3 = b.duty;
	EXPECT_DBL(d3, >, d2);
	EXPECT_DBL(d3, <, d1 * 0.9);
}

/* No calls and no CPU time: no division by zero, and a usable burst. */
TEST(idle_target)
{
	uint64_t start, len;
	struct budget b;
	int i;

	budget_init(&b, BUDGET, COST_NS, 1);
	budget_observe(&b, 0, 1000000000ull, 0, 0);
	EXPECT_TRUE(isfinite(b.full));
	EXPECT_TRUE(isfinite(b.duty));
	EXPECT_DBL(b.duty, >, 0);
	EXPECT_DBL(b.duty, <=, 1.0);
	budget_next_burst(&b, 1000, &start, &len);
	EXPECT_GE(start, 1000);
	EXPECT_GT(len, 0);
	EXPECT_NE(len, UINT64_MAX);

	/*
	 * Calls, but /proc says less than a tick of CPU: finite, and not
	 * free either (a tick of work: o_full 0.1, duty 0.1).
	 */
	for (i = 0; i < 3; i++)
		budget_observe(&b, 1000, 1000000000ull, 0, 0);
	EXPECT_TRUE(isfinite(b.full));
	EXPECT_DBL(b.duty, >, 0);
	EXPECT_DBL(b.duty, <, 1.0);
	budget_next_burst(&b, start + len, &start, &len);
	EXPECT_GT(len, 0);
	EXPECT_NE(len, UINT64_MAX);

	/* A burst that did not last is no observation. */
	budget_init(&b, BUDGET, COST_NS, 1);
	budget_observe(&b, 1000, 0, 0, 0);
	EXPECT_EQ(b.observed, 0);
	EXPECT_DBL(b.duty, ==, BUDGET);
}

/*
 * The daemon's CPU time per burst counts with the traps: a sparse caller
 * whose traps cost little but whose records keep the daemon busy is
 * armed less than the traps alone would allow.
 */
TEST(daemon_time_counts_against_the_budget)
{
	struct budget traps, both;
	double want;

	budget_init(&traps, BUDGET, COST_NS, 1);
	budget_init(&both, BUDGET, COST_NS, 1);
	/* 1e4 calls of 1 us and 1 s of work: the traps alone cost 1%. */
	budget_observe(&traps, 10000, 1000000000ull, 1010000000ull, 0);
	EXPECT_NEAR(traps.full, 0.01, 1e-9);
	/* The daemon spent 30 ms on the burst: 4% in all. */
	budget_observe(&both, 10000, 1000000000ull, 1010000000ull,
		       30000000ull);
	want = 0.04;
	EXPECT_NEAR(both.full, want, 1e-9);
	EXPECT_NEAR(both.duty, BUDGET / want, 1e-9);
	EXPECT_DBL(both.duty, <, traps.duty);
}

TEST(overhead_estimate)
{
	EXPECT_DBL(budget_overhead_estimate(0, COST_NS, 0, 0), ==, 0.0);
	EXPECT_DBL(budget_overhead_estimate(0, COST_NS, 0, 1000000000ull), ==,
		   0.0);
	/* 1e5 calls x 1 us = 0.1 s of 1.1 s: 0.1 / 1.0 of the work. */
	EXPECT_NEAR(budget_overhead_estimate(100000, COST_NS, 0,
					     1100000000ull), 0.1, 1e-12);
	/* And 50 ms of the daemon's: 0.15 / 1.0. */
	EXPECT_NEAR(budget_overhead_estimate(100000, COST_NS, 50000000ull,
					     1100000000ull), 0.15, 1e-12);
	/* The daemon's time alone is a cost too. */
	EXPECT_NEAR(budget_overhead_estimate(0, COST_NS, 10000000ull,
					     1000000000ull), 0.01, 1e-12);
	/*
	 * Less CPU time than the calls cost, as /proc's ticks can say:
	 * counted as a tick of work, not as none (a division by zero) nor
	 * as a wrapped-around u64 (free).
	 */
	EXPECT_NEAR(budget_overhead_estimate(100000, COST_NS, 0, 0),
		    1e8 / BUDGET_MIN_CPU_NS, 1e-9);
	EXPECT_NEAR(budget_overhead_estimate(100000, COST_NS, 0, 100000000ull +
					     BUDGET_MIN_CPU_NS / 2),
		    1e8 / BUDGET_MIN_CPU_NS, 1e-9);
}

TEST_HARNESS_MAIN
