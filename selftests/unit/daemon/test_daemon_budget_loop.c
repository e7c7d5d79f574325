// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's overhead budget (user/daemon/budget.c) in the loop the daemon
 * runs it in, beside test_daemon_budget.c's CPU-bound target: targets
 * whose CPU time the traps add to, /proc's 10 ms ticks, noisy call
 * counts, the probe burst, the maximum period, a load that falls; and
 * the calibration's error path (user/daemon/calibrate.c), which is all of
 * it that runs without ispot.ko.
 *
 * The load is simulated: a target that makes H calls per armed ns, uses U
 * CPU ns per wall ns of its own, and pays C ns of CPU per probed call,
 * which the kernel charges to it.  Armed all the time, the probes would
 * cost o_full = H * C / U of its own CPU time, and the duty should be
 * budget / o_full.  Seeds are fixed, so every run draws the same bursts.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>

#include "budget.h"
#include "calibrate.h"
#include "elf/elf.h"
#include "ispot_test.h"

#define SEC	1000000000ull
#define COST	16000.0		/* ns a call: the host's measured uprobe pair */

/* The harness compares as integers; duties and overheads are fractions. */
#define EXPECT_DBL(a, op, b) do {					\
	double __x = (a), __y = (b);					\
	if (!(__x op __y)) {						\
		TH_LOG("expected %s %s %s (%.9g vs %.9g)",		\
		       #a, #op, #b, __x, __y);				\
		ispot_test_fail(0);					\
	}								\
} while (0)

struct load {
	double hits;		/* calls per armed ns */
	double cpu;		/* the target's own CPU ns per wall ns */
	double noise;		/* calls vary by up to +-noise, relative */
	bool ticks;		/* CPU time as /proc shows it: whole ticks */
	/*
	 * Windows only: the CPU ns the target gets an armed ns, traps
	 * included (0: its own work goes on and the traps add to it).  A
	 * target held to its CPUs, whose traps cost it less than calls x
	 * COST says (as in the emulated guest: a calibration on a loaded
	 * host reads high), does little or no work while armed by the
	 * count, and as ispotd reports it.
	 */
	double armed_cpu;
};

struct sim {
	uint64_t now, first;
	uint64_t calls, armed;
	double cum_cpu;		/* the target's CPU time, probes included */
	uint64_t rng;
	size_t bursts;
};

static void sim_init(struct sim *s, uint64_t now)
{
	memset(s, 0, sizeof(*s));
	s->now = s->first = now;
	s->rng = 0x5eed;
}

/* What /proc shows of the CPU time so far. */
static uint64_t sim_reading(const struct sim *s, const struct load *l)
{
	return l->ticks ? (uint64_t)(s->cum_cpu / BUDGET_MIN_CPU_NS) *
			  BUDGET_MIN_CPU_NS : (uint64_t)s->cum_cpu;
}

/*
 * One period: take the next burst, run the target up to its start and
 * through it, observe at its end (as target_disarm() does).  The daemon is
 * always ready when the burst ends.
 */
static void sim_period(struct budget *b, struct sim *s, const struct load *l)
{
	uint64_t start, len, calls, before;
	double noise = 1.0;

	budget_next_burst(b, s->now, &start, &len);
	s->bursts++;
	ASSERT_GE(start, s->now);
	s->cum_cpu += l->cpu * (start - s->now);
	before = sim_reading(s, l);
	if (l->noise)
		noise += l->noise *
			 (2.0 * (ispot_test_rand(&s->rng) >> 11) * 0x1p-53 - 1);
	calls = (uint64_t)llround(l->hits * len * noise);
	s->cum_cpu += l->cpu * len + calls * b->call_cost_ns;
	budget_observe(b, calls, len, sim_reading(s, l) - before, 0);
	s->calls += calls;
	s->armed += len;
	s->now = start + len;
}

static void sim_run(struct budget *b, struct sim *s, const struct load *l,
		    size_t periods)
{
	while (periods--)
		sim_period(b, s, l);
}

/* The duty the controller should settle on for a steady, exact load. */
static double expected_duty(double budget, const struct load *l)
{
	double o_full = l->hits * COST / l->cpu;

	return o_full > budget ? budget / o_full : 1;
}

TEST(duty_when_the_traps_add_cpu_time)
{
	static const struct load loads[] = {
		{ .hits = 1e-5, .cpu = 1.0 },	/* 10k calls/s: o_full 16% */
		{ .hits = 3e-6, .cpu = 2.5 },	/* 2.5 CPUs: o_full 1.9% */
		{ .hits = 1e-4, .cpu = 0.2 },	/* mostly blocked: 800% */
	};
	static const double budgets[] = { 0.01, 0.005, 0.05 };
	size_t i, j;

	for (i = 0; i < sizeof(loads) / sizeof(*loads); i++) {
		for (j = 0; j < sizeof(budgets) / sizeof(*budgets); j++) {
			double want = expected_duty(budgets[j], &loads[i]);
			struct budget b;
			struct sim s;

			budget_init(&b, budgets[j], COST, 1);
			sim_init(&s, 1000 * SEC);
			sim_run(&b, &s, &loads[i], 10);
			/*
			 * The probes' own CPU time is not the target's
			 * (counting it would be 0.3% to 2% off here); what
			 * is left is the calls rounded to integers.
			 */
			EXPECT_NEAR(b.duty, want, want * 1e-4);
		}
	}
}

TEST(first_burst_is_a_short_conservative_probe)
{
	static const double budgets[] = { 0.01, 0.001, 0.2 };
	uint64_t start, len, period;
	struct budget b;
	size_t i;

	for (i = 0; i < sizeof(budgets) / sizeof(*budgets); i++) {
		budget_init(&b, budgets[i], COST, 4);
		/* Nothing known: assume arming doubles the CPU time. */
		EXPECT_DBL(b.duty, <=, budgets[i]);
		budget_next_burst(&b, 7 * SEC, &start, &len);
		period = b.period_end - 7 * SEC;
		EXPECT_EQ(len, BUDGET_PROBE_BURST_NS);
		EXPECT_GE(start, 7 * SEC);
		/* At once, not anywhere in its 20 s period (1%). */
		EXPECT_LE(start, 7 * SEC + BUDGET_FIRST_SPREAD_NS);
		EXPECT_LE(start + len, b.period_end);
		EXPECT_GE(period, (uint64_t)(BUDGET_PROBE_BURST_NS /
					     budgets[i]) - 1);
	}
	/* At 0.01%, even the probe's period would pass the cap. */
	budget_init(&b, 0.0001, COST, 4);
	budget_next_burst(&b, 0, &start, &len);
	EXPECT_EQ(b.period_end, BUDGET_MAX_PERIOD_NS);
	EXPECT_EQ(len, (uint64_t)(0.0001 * BUDGET_MAX_PERIOD_NS));
}

/* Armed share of the wall time, over many periods, for one load. */
static void check_long_run_share(double budget, const struct load *l,
				 bool want_capped)
{
	double want = expected_duty(budget, l), share;
	uint64_t armed0, t0, start, len;
	struct budget b;
	struct sim s;

	budget_init(&b, budget, COST, 6);
	sim_init(&s, 3 * SEC);
	sim_run(&b, &s, l, 5);		/* learn, past the probe burst */
	armed0 = s.armed;
	t0 = b.period_end;
	sim_run(&b, &s, l, 1000);
	share = (double)(s.armed - armed0) / (b.period_end - t0);
	TH_LOG("budget %g: duty %.6g, armed share %.6g", budget, want, share);
	EXPECT_NEAR(share, want, want * 0.01);
	/* The cap shortens the burst, and never lengthens the period. */
	t0 = b.period_end;
	budget_next_burst(&b, s.now, &start, &len);
	EXPECT_EQ(b.period_end - t0 == BUDGET_MAX_PERIOD_NS, want_capped);
	EXPECT_LE(b.period_end - t0, BUDGET_MAX_PERIOD_NS);
	if (want_capped)
		EXPECT_LT(len, BUDGET_MIN_BURST_NS);
}

TEST(long_run_armed_share_is_the_duty)
{
	struct load mid = { .hits = 4.5625e-5, .cpu = 1.0 };	/* 73% */
	struct load light = { .hits = 2e-6, .cpu = 1.0 };	/* 3.2% */
	struct load heavy = { .hits = 1e-3, .cpu = 1.0 };	/* 1600% */

	check_long_run_share(0.01, &mid, false);	/* min burst */
	check_long_run_share(0.01, &light, false);	/* d * base */
	check_long_run_share(0.01, &heavy, true);	/* shortened */
}

TEST(a_load_decrease_is_followed_gradually)
{
	struct load before = { .hits = 8e-5, .cpu = 1.0 };
	struct load after = { .hits = 2e-5, .cpu = 1.0 };
	double d0, d1;
	struct budget b;
	struct sim s;

	budget_init(&b, 0.01, COST, 9);
	sim_init(&s, SEC);
	sim_run(&b, &s, &before, 20);
	d0 = b.duty;
	sim_period(&b, &s, &after);
	d1 = b.duty;
	/* One quiet burst does not quadruple the duty at once... */
	EXPECT_DBL(d1, >, d0);
	EXPECT_DBL(d1, <, expected_duty(0.01, &after) * 0.5);
	/* ...but the moving average gets there. */
	sim_run(&b, &s, &after, 60);
	EXPECT_NEAR(b.duty, expected_duty(0.01, &after),
		    expected_duty(0.01, &after) * 0.01);
}

/*
 * A busy target falling idle: its idle bursts say nothing of what its
 * next calls will cost, and the duty must not collapse (which would leave
 * it unsampled for long once busy again).
 */
TEST(busy_target_falling_idle)
{
	struct load busy = { .hits = 2e-5, .cpu = 1.0, .ticks = true };
	struct budget b;
	struct sim s;
	double d;
	int i;

	budget_init(&b, 0.01, COST, 10);
	sim_init(&s, SEC);
	sim_run(&b, &s, &busy, 10);
	d = b.duty;
	for (i = 0; i < 5; i++) {
		budget_observe(&b, 0, BUDGET_MIN_BURST_NS, 0, 0);
		EXPECT_TRUE(isfinite(b.duty));
		EXPECT_DBL(b.duty, >=, d);
		EXPECT_DBL(b.duty, <=, 1);
	}
}

/*
 * The whole loop, as the daemon runs it: what the schedule makes the
 * target pay stays within the budget, with noisy calls and /proc's ticks,
 * and does not waste most of it either.
 */
TEST(scheduled_overhead_stays_within_budget)
{
	static const struct load loads[] = {
		{ .hits = 1e-5, .cpu = 1.0 },
		{ .hits = 1e-5, .cpu = 1.0, .noise = 0.3, .ticks = true },
		{ .hits = 3e-6, .cpu = 3.0, .noise = 0.1, .ticks = true },
		{ .hits = 1e-3, .cpu = 1.0, .noise = 0.2, .ticks = true },
		{ .hits = 5e-6, .cpu = 0.05, .noise = 0.2, .ticks = true },
		/* Near idle: 5 ms of its own per 0.5 s burst, under a tick. */
		{ .hits = 2e-7, .cpu = 0.01, .ticks = true },
		{ .hits = 2e-7, .cpu = 0.01, .noise = 0.3, .ticks = true },
	};
	static const double budgets[] = { 0.01, 0.03 };
	size_t i, j;

	for (i = 0; i < sizeof(loads) / sizeof(*loads); i++) {
		for (j = 0; j < sizeof(budgets) / sizeof(*budgets); j++) {
			const struct load *l = &loads[i];
			double cost, want = budgets[j];
			struct budget b;
			struct sim s;

			budget_init(&b, want, COST, 11 + i);
			sim_init(&s, 42 * SEC);
			sim_run(&b, &s, l, 300);
			/* Against what the program used for itself. */
			cost = s.calls * COST /
			       (l->cpu * (b.period_end - s.first));
			TH_LOG("load %zu budget %g: overhead %.5f, duty %.3g",
			       i, want, cost, b.duty);
			EXPECT_DBL(cost, <=, want * 1.01);
			/* Under budget only where the duty is already 1. */
			if (b.duty < 1)
				EXPECT_DBL(cost, >=, want * 0.7);
		}
	}
}

/*
 * Windows (budget.h, "Windows"): ispotd's loop of windows of @win ns, a
 * burst cut at its window's end as ispotd cuts it, @daemon_ns of the
 * daemon's time a burst.  The target was found @late ns into its first
 * window, and its lifetime rate told the budget @own_rate (0: too young
 * to tell).  Returns the largest overhead a window showed, the first
 * included, against the work the target really did in it; *@total gets
 * the overhead over all the windows.
 */
struct wsim {
	uint64_t win, late, daemon_ns;
	double own_rate;
	size_t windows;
	double total;		/* overhead over the whole run */
	double first;		/* the first window's */
	double later;		/* the worst of the windows after it */
	size_t bursts;
	bool over;		/* budget_over(): a burst costs a window more */
	bool verbose;		/* log every window */
};

static double window_run(double budget, const struct load *l,
			 struct wsim *w, uint64_t seed)
{
	uint64_t t0 = 100 * SEC, win_start = t0, now = t0 + w->late;
	double worst = 0, cost_all = 0, own_all = 0;
	struct budget b;
	struct sim s;
	size_t i;

	w->later = 0;
	budget_init(&b, budget, COST, seed);
	/* A host with the CPUs the target's work and traps can take. */
	budget_windows(&b, now, t0 + w->win, w->win, w->own_rate,
		       (unsigned int)ceil(l->armed_cpu ?
					  fmax(l->cpu, l->armed_cpu) :
					  l->cpu + l->hits * COST),
		       (double)w->daemon_ns);
	sim_init(&s, now);
	w->bursts = 0;
	for (i = 0; i < w->windows; i++) {
		uint64_t end = win_start + w->win, before = sim_reading(&s, l);
		uint64_t armed0 = s.armed;
		uint64_t calls = 0, bursts = 0, start, len, c, at;
		double cost, own, cum0 = s.cum_cpu;

		for (;;) {
			budget_next_burst(&b, now, &start, &len);
			if (start >= end)
				break;
			ASSERT_GE(start, now);
			ASSERT_LE(start + len, end);
			s.cum_cpu += l->cpu * (start - now);
			c = (uint64_t)llround(l->hits * len);
			at = sim_reading(&s, l);
			s.cum_cpu += l->armed_cpu ? l->armed_cpu * len :
				     l->cpu * len + c * COST;
			budget_observe(&b, c, len, sim_reading(&s, l) - at,
				       w->daemon_ns);
			calls += c;
			bursts++;
			s.armed += len;
			now = start + len;
		}
		s.cum_cpu += l->cpu * (end - now);
		now = end;
		cost = calls * COST + (double)bursts * w->daemon_ns;
		/* As ispotd counts it: the CPU time less calls x COST. */
		own = l->armed_cpu ? s.cum_cpu - cum0 - calls * COST :
		      l->cpu * (end - (i ? win_start : t0 + w->late));
		if (own > 0 && cost / own > worst)
			worst = cost / own;
		if (!i)
			w->first = own > 0 ? cost / own : 0;
		else if (own > 0 && cost / own > w->later)
			w->later = cost / own;
		if (w->verbose)
			TH_LOG("window %zu: duty %.4f overhead %.4f, %llu "
			       "bursts; armed cost %.4g, own rate %.4g", i,
			       (double)(s.armed - armed0) /
			       (end - (i ? win_start : t0 + w->late)),
			       own > 0 ? cost / own : 0,
			       (unsigned long long)bursts, b.armed_cost,
			       b.own_rate);
		cost_all += cost;
		own_all += own;
		w->bursts += bursts;
		budget_window(&b, end, end - (i ? win_start : t0 + w->late),
			      sim_reading(&s, l) - before, calls, 0);
		win_start = end;
	}
	w->total = cost_all / own_all;
	w->over = budget_over(&b);
	return worst;
}

/*
 * Every window holds the budget, the first included, for loads from
 * near idle to traps 16 times the work, windows of 3 s to a minute, a
 * target found late in its first window, young or not, and the daemon's
 * own time per burst.  And the budget is spent, not wasted: over the run
 * the overhead is most of it.
 */
TEST(every_window_holds_the_budget)
{
	static const struct load loads[] = {
		{ .hits = 1e-5, .cpu = 1.0 },			/* 16% */
		{ .hits = 1e-5, .cpu = 1.0, .ticks = true },
		{ .hits = 3e-6, .cpu = 1.9, .ticks = true },	/* 2.5% */
		{ .hits = 1e-3, .cpu = 1.0, .ticks = true },	/* 1600% */
		{ .hits = 5e-6, .cpu = 0.05, .ticks = true },	/* 160% */
	};
	static const uint64_t wins[] = { 3 * SEC, 10 * SEC, 60 * SEC };
	static const double budgets[] = { 0.01, 0.05 };
	size_t i, j, k, m;

	for (i = 0; i < sizeof(loads) / sizeof(*loads); i++)
	for (j = 0; j < sizeof(wins) / sizeof(*wins); j++)
	for (k = 0; k < sizeof(budgets) / sizeof(*budgets); k++)
	for (m = 0; m < 4; m++) {
		/* The daemon's time a burst, and a target young or not. */
		struct wsim w = {
			.win = wins[j], .late = wins[j] / 3,
			.daemon_ns = m & 1 ? 200000 : 0,
			.own_rate = m & 2 ? 0 : loads[i].cpu,
			.windows = 40,
		};
		double worst = window_run(budgets[k], &loads[i], &w,
					  1 + i + j + k);

		TH_LOG("load %zu window %llus budget %g daemon %llu%s: first "
		       "%.4f, worst %.4f, all %.4f, %zu bursts%s", i,
		       (unsigned long long)(wins[j] / SEC), budgets[k],
		       (unsigned long long)w.daemon_ns, m & 2 ? " young" : "",
		       w.first, worst, w.total, w.bursts,
		       w.over ? ", over" : "");
		/*
		 * A tick of a window's CPU time is its allowance's error.
		 * Where even the shortest burst costs more than a window
		 * may spend, the windows with one go over, and the run
		 * still holds the budget.
		 */
		if (!w.over)
			EXPECT_DBL(worst, <=, budgets[k] * (1.0 +
				   BUDGET_MIN_CPU_NS /
				   (loads[i].cpu * wins[j] * 2 / 3)) * 1.02);
		EXPECT_DBL(w.total, <=, budgets[k] * 1.02);
		EXPECT_DBL(w.total, >=, 0.5 * fmin(budgets[k], loads[i].hits *
						   COST / loads[i].cpu));
		EXPECT_GT(w.bursts, 0);
	}
}

/*
 * The 6.1 guest's lock_contention (4 threads on 2 vCPUs, --delay-us 0):
 * 1.5 CPUs of its own, held to the 2 CPUs while armed (1.84 of them
 * used), and calls x the calibrated cost of a call say 4.5 CPUs of traps
 * an armed ns, more than it used: by the count it does no work while
 * armed (-2.66 CPUs of it), which is how ispotd reports its windows.
 * The daemon spends 50 ms a burst.  An armed ns then costs the traps and
 * the work the window loses (4.5 + 0.9 x budget x 4.16 CPUs), so a 3 s
 * window at 100% buys ~0.5 s armed, duty 0.16; the guest's windows sat
 * at duty 0.002-0.02 instead (an armed ns costing 500 to 2000 CPUs: the
 * traps over a floored, negative own time while armed, times the own
 * rate).  Every window holds the budget and the run spends most of it;
 * at 1% one burst's daemon time is more than a window may spend, and
 * the run as a whole holds it.
 */
TEST(a_target_whose_work_stops_while_armed_spends_its_budget)
{
	static const struct {
		double budget;
		uint64_t win;
	} runs[] = {
		{ 1.0, 3 * SEC }, { 0.5, 10 * SEC }, { 0.5, 3 * SEC },
		{ 0.05, 10 * SEC }, { 0.01, 3 * SEC },
	};
	const struct load l = {
		.hits = 4.5 / COST, .cpu = 1.5, .armed_cpu = 1.84,
		.ticks = true,
	};
	size_t i;

	for (i = 0; i < sizeof(runs) / sizeof(*runs); i++) {
		struct wsim w = {
			.win = runs[i].win, .late = runs[i].win / 3,
			.daemon_ns = 50 * 1000000ull, .own_rate = l.cpu,
			.windows = 24, .verbose = getenv("BUDGET_VERBOSE"),
		};
		double worst = window_run(runs[i].budget, &l, &w, 7 + i);

		TH_LOG("budget %g window %llus: first %.4f, worst %.4f, "
		       "later %.4f, all %.4f, %zu bursts%s", runs[i].budget,
		       (unsigned long long)(runs[i].win / SEC), w.first, worst,
		       w.later, w.total, w.bursts, w.over ? ", over" : "");
		/*
		 * Not the first window: its first burst is planned as every
		 * CPU trapping, and calls x COST here say more than the CPUs
		 * (the calibration read high), which no plan can know
		 * before a burst; at 5% of a 10 s window it shows 10%.
		 */
		if (!w.over)
			EXPECT_DBL(w.later, <=, runs[i].budget * 1.02);
		EXPECT_DBL(w.total, <=, runs[i].budget * 1.02);
		EXPECT_DBL(w.total, >=, 0.5 * runs[i].budget);
	}
}

/*
 * A target that does less work while armed than its traps explain (the
 * daemon takes its CPUs, arming slows it): the work its bursts' CPU
 * ticks show it lost is a cost, beside the count of its calls.  One CPU
 * of own work, traps of 5% of an armed ns: a window of 10 s at 1% buys
 * 2 s armed going by the traps (duty 0.2).  Where the traps took CPU
 * time from the work (a CPU-bound target: 0.475 s of work in a 0.5 s
 * burst), an armed ns also loses 0.05 ns of work, and the window the
 * budget of it; where its CPU time while armed is half its rate (0.225 s
 * of work), 0.55 ns.  Either way the window spends BUDGET_AIM of the
 * budget of the work it did (budget.h), no less: until 2026-12 an armed
 * ns cost o_full (0.025 / 0.225) times the own rate, which at half the
 * rate spent half of that (duty 0.081, 0.45%).
 */
TEST(lost_work_while_armed_is_a_cost)
{
	const uint64_t w = 10 * SEC, t0 = 50 * SEC, len = SEC / 2;
	uint64_t calls = (uint64_t)(0.05 * len / COST);
	double duty[2], traps = calls * COST;
	struct budget b;
	int i;

	for (i = 0; i < 2; i++) {
		double cpu = i ? len / 2 : len;
		double lost = 1.0 - (cpu - traps) / len, armed, own;

		budget_init(&b, 0.01, COST, 5);
		budget_windows(&b, t0, t0 + w, w, 0, 2, 0);
		budget_own_rate(&b, 1.0);
		/* CPU time while armed: all of it, or half; traps included. */
		budget_observe(&b, calls, len, (uint64_t)cpu, 0);
		duty[i] = b.duty;
		EXPECT_NEAR(duty[i], BUDGET_AIM * 0.01 /
			    (traps / len + BUDGET_AIM * 0.01 * lost), 1e-4);
		/* The window armed that long: its traps over its work. */
		armed = duty[i] * w;
		own = (w - armed) + armed * (1.0 - lost);
		EXPECT_NEAR(traps / len * armed / own, BUDGET_AIM * 0.01,
			    1e-6);
	}
	TH_LOG("duty %.4f whole, %.4f half", duty[0], duty[1]);
	EXPECT_DBL(duty[1], <, duty[0]);
	EXPECT_DBL(duty[0], <, BUDGET_AIM * 0.2);
	/* Traps that add CPU time to the work: their rate, 0.2. */
	budget_init(&b, 0.01, COST, 5);
	budget_windows(&b, t0, t0 + w, w, 0, 2, 0);
	budget_own_rate(&b, 1.0);
	budget_observe(&b, calls, len, len + (uint64_t)traps, 0);
	EXPECT_NEAR(b.duty, BUDGET_AIM * 0.2, 1e-3);
}

/*
 * ispotd --auto's profile in a window (budget_fit_profile()): as long as
 * --auto-time when the window can pay it, shorter when it can pay less,
 * inside the window, none while debt remains, and the shortest one where
 * a whole window cannot pay it (an idle target's: a tick's work allows
 * little), the debt then spacing the next.
 */
TEST(a_profile_fits_its_window)
{
	const uint64_t w = 10 * SEC, t0 = 50 * SEC, min = SEC / 10;
	/*
	 * 1.5 CPUs of own work: 1% of a window is 150 ms of cost, and the
	 * plans spend BUDGET_AIM of it, 135 ms.
	 */
	const double rate = 0.1;	/* 100 ms of cost a s profiled */
	uint64_t len;
	struct budget b;

	budget_init(&b, 0.01, COST, 3);
	budget_windows(&b, t0, t0 + w, w, 1.5, 2, 0);
	EXPECT_EQ(budget_fit_profile(&b, t0, SEC, rate, min), SEC);
	/* 2 s would cost 200 ms: cut to the 135 ms the window has. */
	len = budget_fit_profile(&b, t0, 2 * SEC, rate, min);
	EXPECT_NEAR(len, BUDGET_AIM * 1500 * 1000000ull, 1000);
	/* Never past the window's end. */
	EXPECT_EQ(budget_fit_profile(&b, t0 + w - SEC / 2, SEC, rate, min),
		  SEC / 2);
	/* Spent: none now, and none in the next while the debt lasts. */
	budget_charge(&b, 400 * 1000000ull, t0);
	EXPECT_EQ(budget_fit_profile(&b, t0, SEC, rate, min), 0);
	budget_window(&b, t0 + w, w, 15 * SEC, 0, 0);
	EXPECT_EQ(budget_fit_profile(&b, t0 + w, SEC, rate, min), 0);
	budget_window(&b, t0 + 2 * w, w, 15 * SEC, 0, 0);
	budget_window(&b, t0 + 3 * w, w, 15 * SEC, 0, 0);
	EXPECT_EQ(budget_fit_profile(&b, t0 + 3 * w, SEC, rate, min), SEC);

	/* Idle: no window pays 100 ms, so one runs, then the debt waits. */
	budget_init(&b, 0.25, COST, 3);
	budget_windows(&b, t0, t0 + 2 * SEC, 2 * SEC, 0, 2, 0);
	EXPECT_EQ(budget_fit_profile(&b, t0, SEC, rate, min), 0); /* young */
	budget_own_rate(&b, 0);
	EXPECT_EQ(budget_fit_profile(&b, t0, SEC, rate, min), min);
	budget_charge(&b, 30 * 1000000ull, t0);
	budget_window(&b, t0 + 2 * SEC, 2 * SEC, 0, 0, 0);
	EXPECT_EQ(budget_fit_profile(&b, t0 + 2 * SEC, SEC, rate, min), 0);
	/* A tick's work a window at 25%: 2.5 ms repaid a window. */
	for (len = 2; len < 14; len++)
		budget_window(&b, t0 + len * 2 * SEC, 2 * SEC, 0, 0, 0);
	EXPECT_EQ(budget_fit_profile(&b, t0 + 26 * SEC, SEC, rate, min), min);

	/* No budget: always the whole profile. */
	budget_init(&b, 0, COST, 3);
	budget_windows(&b, t0, t0 + w, w, 1.5, 2, 0);
	EXPECT_EQ(budget_fit_profile(&b, t0 + w - 1, SEC, rate, min), SEC);
}

/*
 * Bursts with no calls cost their traps nothing, but the daemon's time
 * still: a target near idle (a tick's work a window at 1%: 0.1 ms) whose
 * burst cost the daemon 65 ms gets no other burst while that debt lasts.
 */
TEST(free_traps_still_pay_the_daemon)
{
	const uint64_t w = 2 * SEC, t0 = 50 * SEC;
	uint64_t start, len;
	struct budget b;

	budget_init(&b, 0.01, COST, 9);
	budget_windows(&b, t0, t0 + w, w, 0, 2, 0);
	budget_own_rate(&b, 0.001);
	budget_observe(&b, 0, 10 * 1000000ull, 0, 65 * 1000000ull);
	budget_next_burst(&b, t0 + 20 * 1000000ull, &start, &len);
	EXPECT_EQ(start, UINT64_MAX);
	budget_window(&b, t0 + w, w, 2 * 1000000ull, 0, 0);
	budget_next_burst(&b, t0 + w, &start, &len);
	EXPECT_EQ(start, UINT64_MAX);
}

/*
 * A target found 5 ms before its window closed: that window's tick says
 * 2 CPUs for a target of 0.1, and must not become its rate.
 */
TEST(a_short_first_window_teaches_no_rate)
{
	struct budget b;

	budget_init(&b, 0.01, COST, 9);
	budget_windows(&b, 10 * SEC, 10 * SEC + 5000000ull, 3 * SEC, 0, 2, 0);
	budget_window(&b, 10 * SEC + 5000000ull, 5000000ull,
		      BUDGET_MIN_CPU_NS, 0, 0);
	EXPECT_FALSE(b.own_known);
	budget_own_rate(&b, 0.1);
	EXPECT_TRUE(b.own_known);
	EXPECT_DBL(b.own_rate, ==, 0.1);
}

TEST(calibration_target_has_a_symbol)
{
	struct elf_target_sym *syms;
	char err[512];
	size_t n;

	/* The daemon's calibration probes it by name, in itself. */
	ASSERT_EQ(elf_resolve_spec("ispotd_calibration_target", getpid(),
				   NULL, &syms, &n, err, sizeof(err)), 0);
	EXPECT_EQ(n, 1);
	EXPECT_GT(syms[0].offset, 0);
	free(syms);
	ispotd_calibration_target();
}

TEST(calibration_without_the_module)
{
	char err[512] = "", buf[256];
	double cost = -1;
	int fd, saved_fd;
	ssize_t r;

	if (!access("/dev/ispot", F_OK))
		SKIP("/dev/ispot exists: the VM tests calibrate for real");
	/* Whatever reaches fd 2 lands in a file we read back. */
	fd = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	ASSERT_GE(fd, 0);
	saved_fd = dup(2);
	ASSERT_GE(saved_fd, 0);
	ASSERT_EQ(dup2(fd, 2), 2);
	EXPECT_EQ(calibrate_call_cost(&cost, NULL, err, sizeof(err)), -1);
	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);

	TH_LOG("reason: %s", err);
	EXPECT_TRUE(strstr(err, "/dev/ispot"));
	EXPECT_TRUE(strstr(err, "load the module"));
	EXPECT_FALSE(strchr(err, '\n'));
	EXPECT_DBL(cost, ==, -1);
	/* The reason goes to the caller, and nothing to stderr. */
	r = pread(fd, buf, sizeof(buf) - 1, 0);
	EXPECT_EQ(r, 0);
	if (r > 0) {
		buf[r] = '\0';
		TH_LOG("printed: %s", buf);
	}
	close(fd);
}

TEST_HARNESS_MAIN
