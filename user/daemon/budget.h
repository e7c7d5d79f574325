/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The overhead budget: how long to arm a target's probes, and when.
 *
 * Every probed call costs the target a trap pair, c ns, measured on this
 * host at start (calibrate.h), and the daemon spends CPU time of its own
 * on each burst, D: arming, draining, pairing, scoring, disarming.  On a
 * busy host that time is taken from the targets as surely as the traps
 * are, so the budget counts it.  During a burst the target used some CPU
 * time, which the kernel charges the traps to as well, so the work it did
 * is that CPU time less calls x c, and armed all the time ISPOT would cost
 *
 *	o_full = (calls x c + D) / (CPU time while armed - calls x c)
 *
 * of the CPU time the target would use untraced.  Armed for a share d of
 * the time they cost d x o_full, and d = budget / o_full (at most 1)
 * spends the budget.  Rates taken over the whole period instead would
 * underestimate o_full: while armed, a target does less work per second.
 *
 * o_full is learnt from the bursts.  The one used is the larger of the
 * last burst's and a slow average, so a load that rises is answered at
 * the next burst and one that falls is believed only gradually: over
 * budget is worse than under.  The average is taken of the cost (traps
 * and daemon) and of the target's own CPU time separately, then divided: /proc counts
 * CPU time in 10 ms ticks, and a target that uses less than a tick per
 * burst reads 0 or 10 ms, so any one burst's o_full is wrong for it (a
 * tick taken for its 5 ms halves o_full: the unit test saw twice the
 * budget spent), while the errors of the readings cancel in the sums.
 *
 * Schedule.  A burst lasts L = max(BUDGET_MIN_BURST_NS, d x
 * BUDGET_BASE_PERIOD_NS) and belongs to a period P = L / d; periods follow
 * each other, and the burst starts at a uniformly random point of its
 * period, so the long-run armed share is d while nothing periodic in the
 * target can stay in step with the sampling.  A period longer than
 * BUDGET_MAX_PERIOD_NS is cut to it and the burst shortened with it, so
 * the budget still holds.  The minimum burst keeps the calls that
 * straddle a burst's end (and are lost) a small share of the calls.
 * The first burst, a short probe of the call rate, starts within
 * BUDGET_FIRST_SPREAD_NS of the first plan (with windows, once the own
 * rate is known) instead of anywhere in its period (20 s at 1%), so a
 * short-lived program or the first window sees one; its period still
 * follows it, so the budget holds.
 *
 * Windows.  ispotd reports in windows, and the budget holds in each of
 * them, a target's first included, not only over the long run: a 200 ms
 * burst paid back by four empty windows shows as one window at 28% and
 * four at 0 (budget_window()).  Each window pays its own way, in cost
 * ns: it may spend budget x (the target's own CPU time in it), which is
 * its own CPU rate (learnt from whole windows, where /proc's ticks are
 * precise enough) times the window's length, and at least the budget of
 * a tick's work (less is not measured: an idle target's profile is paid
 * for, slowly, by its debt rather than never).  A target has no
 * allowance until its rate is known (budget_own_rate(): ispotd reads it
 * 200 ms after finding the target, the lesser of its lifetime's and the
 * one since, so that a start busier than now does not make the first
 * window's allowance large).
 *
 * A burst costs what an armed ns costs times its length, plus the
 * daemon's time on it, both learnt from the bursts.  An armed ns costs
 * the traps' rate (calls x c over the armed time), and the work the
 * target does not do then: the own rate less the bursts' own work an
 * armed ns (their CPU ticks less the traps, in sums), where that is
 * less, each ns of it taking BUDGET_AIM x budget from the window's
 * allowance (the allowance is the budget of the work done).  That work
 * is counted as c counts it, so it may be negative where calls x c
 * exceed the CPU time (a c that reads high): the window's estimate says
 * the same.  The own rate is learnt from a window's time disarmed,
 * where it had enough of it, so the lost work is not counted twice.
 * (Until 2026-12, o_full times the own rate: what armed all the time
 * costs, far above a share of a window where the work collapses while
 * armed, and unbounded where none is left.)  Before any burst, every CPU
 * the target may run on trapping all the time and all its work lost
 * (nothing can cost more, short of a c that reads high),
 * so the first burst is short and safe whatever the target does, but
 * where even BUDGET_WINDOW_MIN_BURST_NS at that rate costs more than a
 * whole window (then it is that long, and the debt spaces the next); and
 * the daemon's time a burst is budget_windows()'s guess until one says.
 * A burst is cut to what is left of its window's allowance and never
 * crosses the window's end; what a window cannot pay (a profile, or a
 * burst's own daemon time) is carried into the next ones as debt.
 * Where a burst of BUDGET_WINDOW_MIN_BURST_NS costs more than a whole
 * window may spend, windows with a burst go over and budget_over() says
 * so.
 */
#ifndef ISPOT_BUDGET_H
#define ISPOT_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#define BUDGET_MIN_BURST_NS	(500 * 1000000ull)
#define BUDGET_BASE_PERIOD_NS	(5 * 1000000000ull)
#define BUDGET_MAX_PERIOD_NS	(600 * 1000000000ull)
/* The first burst of a target, before anything is known of it. */
#define BUDGET_PROBE_BURST_NS	(200 * 1000000ull)
/* It starts this soon after the target is found, at a random point. */
#define BUDGET_FIRST_SPREAD_NS	(100 * 1000000ull)
/* /proc's CPU times come in clock ticks: less than one is not zero. */
#define BUDGET_MIN_CPU_NS	(10 * 1000000ull)
/* Weight of a new burst in the slow average of o_full. */
#define BUDGET_EWMA		0.25

/*
 * A cost's estimate after a new reading @x: a rise at once (a ceiling
 * must not wait to learn it), a fall through the slow average.
 */
static inline double budget_ceiling(double est, double x)
{
	return x > est ? x : est + BUDGET_EWMA * (x - est);
}
/* The least duty with windows: a period is a burst over it. */
#define BUDGET_MIN_DUTY		1e-6
/* A window shorter than this teaches no first own rate: a tick or two. */
#define BUDGET_RATE_MIN_WALL_NS	(200 * 1000000ull)
/*
 * The share of a window's allowance its plans spend.  The budget is the
 * most ISPOT may cost, and what a burst will cost is known only to a few
 * percent: the trap's cost, calibrated at each start, read 14.9 and
 * 17.2 us in two starts on one idle guest, and the daemon's time a burst
 * varies by as much.  Aimed at the whole budget, half the windows would
 * go over it.
 */
#define BUDGET_AIM		0.9
/* No burst shorter: arming costs the daemon more than it would show. */
#define BUDGET_WINDOW_MIN_BURST_NS	(2 * 1000000ull)

struct budget {
	double budget;		/* fraction; 0 = always armed */
	double call_cost_ns;	/* c */
	double full;		/* o_full: the average or the last, if larger */
	double cost_avg;	/* calls x c (+ D without windows), averaged */
	double own_avg;		/* CPU time less the traps, averaged */
	double duty;		/* d */
	unsigned int observed;	/* bursts reported so far */
	uint64_t period_end;	/* where the next period starts */
	uint64_t rng;
	/* Windows (budget_windows()); win_ns 0: the long run only. */
	uint64_t win_start, win_end, win_ns;
	double own_rate;	/* the target's own CPU ns a wall ns */
	bool own_known;		/* own_rate was read (it may be 0: idle) */
	double max_rate;	/* CPU ns a wall ns it can take at most */
	double spent;		/* cost ns the window paid, debt included */
	double trap_rate;	/* the traps' cost an armed ns, learnt */
	double armed_avg;	/* a burst's armed ns, averaged */
	double lost_rate;	/* own work an armed ns loses, learnt */
	double armed_cost;	/* what an armed ns costs: traps + lost */
	double daemon_avg;	/* the daemon's time a burst, learnt */
	/* This window's bursts: armed ns, and CPU time (traps included). */
	uint64_t win_armed, win_armed_cpu;
	bool over;		/* a burst costs more than a window may */
};

void budget_init(struct budget *b, double budget, double call_cost_ns,
		 uint64_t seed);

/*
 * A burst ended: the target made @calls probed calls and used @cpu_ns of
 * CPU time (traps included) in the @armed_ns it lasted, and the daemon
 * spent @daemon_ns of its own on it.
 */
void budget_observe(struct budget *b, uint64_t calls, uint64_t armed_ns,
		    uint64_t cpu_ns, uint64_t daemon_ns);

/*
 * Spend @cost_ns at @now on something other than a burst (ispotd --auto's
 * profile).  With windows, the window pays it, or carries it as debt.
 * Without, the bursts to come move later by what it would take them to
 * have spent it, cost / budget, so that the long-run share stays the
 * budget.
 */
void budget_charge(struct budget *b, uint64_t cost_ns, uint64_t now);

/*
 * Hold the budget window by window: the current one runs from @now to
 * @end, the next ones are @window_ns long.  @own_rate is the target's
 * own CPU time a wall ns so far (its lifetime's, at discovery; 0 if not
 * known yet: no burst until it is), @max_cpus the CPUs it may run on,
 * @daemon_ns the daemon's time a burst until a burst says (ispotd's
 * calibration session's).
 */
void budget_windows(struct budget *b, uint64_t now, uint64_t end,
		    uint64_t window_ns, double own_rate, unsigned int max_cpus,
		    double daemon_ns);

/* The target's own rate, read again (0: still not known). */
void budget_own_rate(struct budget *b, double own_rate);

/*
 * A window ended at @now after @wall_ns: the target used @cpu_ns of CPU
 * time in it (as /proc says, traps included) and made @calls probed
 * calls.  Its own rate is learnt; what it spent past its allowance is
 * carried into the next window, which starts now and lasts @next_ns (0:
 * as the last).
 */
void budget_window(struct budget *b, uint64_t now, uint64_t wall_ns,
		   uint64_t cpu_ns, uint64_t calls, uint64_t next_ns);

/*
 * With windows, the cost ns the current window may still spend (0 when
 * it has none left, or has debt); without, HUGE_VAL.
 */
double budget_left(const struct budget *b);

/*
 * A profile (ispotd --auto) of at most @want_ns, costing @cost_rate ns a
 * ns it lasts, sized to what the window can still pay and to end inside
 * it: 0 to wait for the next window.  Where a whole window with no debt
 * cannot pay @min_ns, @min_ns (the debt spaces the next), as for bursts.
 */
uint64_t budget_fit_profile(const struct budget *b, uint64_t now,
			    uint64_t want_ns, double cost_rate,
			    uint64_t min_ns);

/* Whether windows with a burst go over the budget (see above). */
static inline bool budget_over(const struct budget *b)
{
	return b->over;
}

/*
 * The calling thread's CPU time (0 if it cannot be read): the daemon's
 * own time, D above, taken by the loop around a burst's work and by
 * --auto's profile thread around its profile.
 */
uint64_t budget_thread_cpu_ns(void);

/*
 * The next burst, no earlier than @now: its start and its length
 * (UINT64_MAX: armed until further notice, for a budget of 0).  With
 * windows, a start of UINT64_MAX (and a length of 0) is no burst in this
 * window: ask again when the next one begins.
 */
void budget_next_burst(struct budget *b, uint64_t now, uint64_t *start,
		       uint64_t *len);

/*
 * The estimated cost of @calls probed calls and @daemon_ns of the daemon's
 * time as a share of the CPU time the target would have used without them
 * (@cpu_ns, as /proc says, includes the calls).
 */
double budget_overhead_estimate(uint64_t calls, double call_cost_ns,
				uint64_t daemon_ns, uint64_t cpu_ns);

#endif /* ISPOT_BUDGET_H */
