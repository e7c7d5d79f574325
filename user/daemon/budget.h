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
 * BUDGET_FIRST_SPREAD_NS of the target's discovery instead of anywhere in
 * its period (20 s at 1%), so a short-lived program or the first window
 * sees one; its period still follows it, so the budget holds.
 */
#ifndef ISPOT_BUDGET_H
#define ISPOT_BUDGET_H

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

struct budget {
	double budget;		/* fraction; 0 = always armed */
	double call_cost_ns;	/* c */
	double full;		/* o_full: the average or the last, if larger */
	double cost_avg;	/* calls x c + D per burst, averaged */
	double own_avg;		/* CPU time less the traps, averaged */
	double duty;		/* d */
	unsigned int observed;	/* bursts reported so far */
	uint64_t period_end;	/* where the next period starts */
	uint64_t rng;
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
 * profile): the bursts to come move later by what it would take them to
 * have spent it, cost / budget, so that the long-run share stays the
 * budget.
 */
void budget_charge(struct budget *b, uint64_t cost_ns, uint64_t now);

/*
 * The calling thread's CPU time (0 if it cannot be read): the daemon's
 * own time, D above, taken by the loop around a burst's work and by
 * --auto's profile thread around its profile.
 */
uint64_t budget_thread_cpu_ns(void);

/*
 * The next burst, no earlier than @now: its start and its length
 * (UINT64_MAX: armed until further notice, for a budget of 0).
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
