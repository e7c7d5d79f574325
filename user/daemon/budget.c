// SPDX-License-Identifier: GPL-2.0
/* The overhead budget; see budget.h. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "budget.h"

/* xorshift64*: enough to spread burst starts, and reproducible in tests. */
static uint64_t budget_rand(struct budget *b)
{
	b->rng ^= b->rng >> 12;
	b->rng ^= b->rng << 25;
	b->rng ^= b->rng >> 27;
	return b->rng * 0x2545f4914f6cdd1dULL;
}

/* CPU time less the probes' cost, at least one clock tick. */
static uint64_t budget_untraced_cpu(uint64_t calls, double call_cost_ns,
				    uint64_t cpu_ns)
{
	double probes = (double)calls * call_cost_ns;

	if ((double)cpu_ns < probes + BUDGET_MIN_CPU_NS)
		return BUDGET_MIN_CPU_NS;
	return cpu_ns - (uint64_t)probes;
}

void budget_init(struct budget *b, double budget, double call_cost_ns,
		 uint64_t seed)
{
	memset(b, 0, sizeof(*b));
	b->budget = budget;
	b->call_cost_ns = call_cost_ns;
	b->duty = budget > 0 ? budget : 1.0;
	b->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

void budget_observe(struct budget *b, uint64_t calls, uint64_t armed_ns,
		    uint64_t cpu_ns, uint64_t daemon_ns)
{
	double traps = (double)calls * b->call_cost_ns, own, full;
	double cost = traps + (double)daemon_ns;

	if (!armed_ns || b->budget <= 0)
		return;
	/*
	 * Not floored per burst: a burst's tick count is off by up to a
	 * tick either way, and the errors cancel in the average.
	 */
	own = (double)cpu_ns - traps;
	if (!b->observed++) {
		b->cost_avg = cost;
		b->own_avg = own;
	} else {
		b->cost_avg += BUDGET_EWMA * (cost - b->cost_avg);
		b->own_avg += BUDGET_EWMA * (own - b->own_avg);
	}
	/*
	 * The average spans about 1 / BUDGET_EWMA bursts, and so spreads a
	 * tick over them: less own time than that is not measured.
	 */
	b->full = b->cost_avg > 0 ?
		  b->cost_avg / fmax(b->own_avg,
				      BUDGET_EWMA * BUDGET_MIN_CPU_NS) : 0.0;
	/* A rise counts at once, a fall only through the average. */
	full = budget_overhead_estimate(calls, b->call_cost_ns, daemon_ns,
					cpu_ns);
	if (full > b->full)
		b->full = full;
	b->duty = b->full > b->budget ? b->budget / b->full : 1.0;
}

void budget_charge(struct budget *b, uint64_t cost_ns, uint64_t now)
{
	if (b->budget <= 0 || !cost_ns)
		return;
	if (b->period_end < now)
		b->period_end = now;
	b->period_end += (uint64_t)((double)cost_ns / b->budget);
}

uint64_t budget_thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void budget_next_burst(struct budget *b, uint64_t now, uint64_t *start,
		       uint64_t *len)
{
	uint64_t period, burst, slack;

	if (b->budget <= 0) {
		*start = now;
		*len = UINT64_MAX;
		return;
	}
	if (!b->observed) {
		/*
		 * Nothing known yet: a short burst to learn the call rate,
		 * somewhere in the first period the budget allows for it.
		 */
		burst = BUDGET_PROBE_BURST_NS;
	} else {
		burst = (uint64_t)(b->duty * BUDGET_BASE_PERIOD_NS);
		if (burst < BUDGET_MIN_BURST_NS)
			burst = BUDGET_MIN_BURST_NS;
	}
	period = b->duty < 1.0 ? (uint64_t)(burst / b->duty) : burst;
	if (period > BUDGET_MAX_PERIOD_NS) {
		period = BUDGET_MAX_PERIOD_NS;
		burst = (uint64_t)(b->duty * period);
	}
	if (b->period_end < now)
		b->period_end = now;
	slack = period - burst;
	/*
	 * The first burst comes at once, give or take a spread that keeps
	 * the targets one scan found from all arming together: a program
	 * that lives a second, or a first window of a few seconds, must see
	 * one.  Its period still follows, so the share stays the budget.
	 */
	if (!b->observed && slack > BUDGET_FIRST_SPREAD_NS)
		slack = BUDGET_FIRST_SPREAD_NS;
	*start = b->period_end + (slack ? budget_rand(b) % (slack + 1) : 0);
	*len = burst;
	b->period_end += period;
}

double budget_overhead_estimate(uint64_t calls, double call_cost_ns,
				uint64_t daemon_ns, uint64_t cpu_ns)
{
	if (!calls && !daemon_ns)
		return 0.0;
	cpu_ns = budget_untraced_cpu(calls, call_cost_ns, cpu_ns);
	return ((double)calls * call_cost_ns + (double)daemon_ns) /
	       (double)cpu_ns;
}
