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

/*
 * What the plans for @len_ns of the target's time may spend (budget.h,
 * "Windows"): BUDGET_AIM of the budget of its own work then, and at least
 * of a tick's; nothing while its rate is not known.  The debt a window
 * carries is reckoned against the whole budget (budget_window()).
 */
static double budget_allowance_of(const struct budget *b, uint64_t len_ns)
{
	if (!b->own_known)
		return 0;
	return BUDGET_AIM * b->budget *
	       fmax(b->own_rate * (double)len_ns, BUDGET_MIN_CPU_NS);
}

/*
 * What the window has spent, debt included: its bursts' traps and the
 * daemon's time, and the allowance the own work its armed time lost
 * took with it (budget_window_duty()).
 */
static double budget_window_spent(const struct budget *b)
{
	return b->spent + BUDGET_AIM * b->budget * b->lost_rate *
			  (double)b->win_armed;
}

/*
 * With windows, the armed share a window can pay: its allowance less a
 * burst's daemon time, over what an armed ns costs.
 */
static void budget_window_duty(struct budget *b)
{
	double win = (double)b->win_ns;
	double whole = budget_allowance_of(b, b->win_ns);
	double pay = whole - b->daemon_avg;
	double q, own_armed;

	/*
	 * What an armed ns costs: its traps, and the own work the target
	 * does not do then (the daemon takes CPUs from it, the traps take
	 * the CPUs it is held to, arming slows it in ways no count of calls
	 * shows; in the emulated guest the --func run at 1% cost 2.2% going
	 * by the traps alone).  The allowance is the budget of the window's
	 * own work, so each ns of work lost is AIM x budget less of it: an
	 * armed ns costs the traps' rate plus that times the own rate less
	 * the bursts' own work an armed ns (their CPU ticks less the traps,
	 * in sums, where the ticks cancel).  Not o_full times the own rate:
	 * that is what armed all the time would cost, far above what a
	 * share of a window does where little work is left while armed, and
	 * it has no bound where none is: a target held to its CPUs whose
	 * traps the count puts above its CPU time (the 6.1 guest's
	 * lock_contention) had an armed ns cost 500 to 2,000 CPUs, and its
	 * windows at 100% a duty of 0.002 to 0.02.
	 */
	own_armed = b->armed_avg > 0 ? b->own_avg / b->armed_avg : b->own_rate;
	b->lost_rate = fmax(b->own_rate - own_armed, 0);
	q = b->trap_rate + BUDGET_AIM * b->budget * b->lost_rate;
	b->armed_cost = q;
	/*
	 * Over: the shortest burst costs more than a whole window may
	 * spend, as a burst showed (not from the worst case before one),
	 * and the target is not idle (a tick's work allows little).
	 */
	b->over = b->own_known && b->own_rate * win >= BUDGET_MIN_CPU_NS &&
		  q * BUDGET_WINDOW_MIN_BURST_NS + b->daemon_avg > whole;
	if (q <= 0)
		b->duty = 1.0;
	else
		b->duty = fmin(1.0, fmax(pay, 0) / (q * win));
	/* Not 0: a period is a burst over it (and the window cuts it). */
	if (b->duty < BUDGET_MIN_DUTY)
		b->duty = BUDGET_MIN_DUTY;
}

/*
 * A burst with windows: what its traps cost an armed ns, and what the
 * daemon spent on it, each learnt apart (a burst's cost is the first
 * times its length plus the second), a rise at once and a fall through
 * the average as o_full is; and, in sums, its length and the own work
 * its CPU ticks show (budget_window_duty()).  The window's own rate
 * comes from its time disarmed (budget_window()).
 */
static void budget_observe_window(struct budget *b, double traps,
				  uint64_t armed_ns, uint64_t cpu_ns,
				  uint64_t daemon_ns)
{
	double rate = traps / (double)armed_ns, d = (double)daemon_ns;
	double own = (double)cpu_ns - traps;

	b->spent += traps + d;
	b->win_armed += armed_ns;
	b->win_armed_cpu += cpu_ns;
	/*
	 * Sums, not ratios, as without windows: the ticks cancel in them.
	 * The traps only: the daemon's time is reserved per burst apart.
	 */
	if (!b->observed++) {
		b->trap_rate = rate;
		b->daemon_avg = d;
		b->cost_avg = traps;
		b->own_avg = own;
		b->armed_avg = (double)armed_ns;
	} else {
		b->cost_avg += BUDGET_EWMA * (traps - b->cost_avg);
		b->own_avg += BUDGET_EWMA * (own - b->own_avg);
		b->armed_avg += BUDGET_EWMA * ((double)armed_ns - b->armed_avg);
		b->trap_rate = budget_ceiling(b->trap_rate, rate);
		b->daemon_avg = budget_ceiling(b->daemon_avg, d);
	}
	budget_window_duty(b);
}

void budget_windows(struct budget *b, uint64_t now, uint64_t end,
		    uint64_t window_ns, double own_rate, unsigned int max_cpus,
		    double daemon_ns)
{
	b->max_rate = max_cpus ? max_cpus : 1;
	b->own_rate = own_rate > 0 ? own_rate : 0;
	b->own_known = own_rate > 0;
	b->daemon_avg = daemon_ns > 0 ? daemon_ns : 0;
	b->win_ns = window_ns;
	b->win_start = now;
	b->win_end = end > now ? end : now + window_ns;
	b->period_end = now;
	b->spent = 0;
	b->win_armed = b->win_armed_cpu = 0;
}

void budget_own_rate(struct budget *b, double own_rate)
{
	b->own_rate = own_rate > 0 ? own_rate : 0;
	b->own_known = true;
	if (b->observed)
		budget_window_duty(b);
}

double budget_left(const struct budget *b)
{
	double left;

	if (!b->win_ns || b->budget <= 0)
		return HUGE_VAL;
	left = budget_allowance_of(b, b->win_end - b->win_start) -
	       budget_window_spent(b);
	return left > 0 ? left : 0;
}

uint64_t budget_fit_profile(const struct budget *b, uint64_t now,
			    uint64_t want_ns, double cost_rate,
			    uint64_t min_ns)
{
	double left = budget_left(b);
	uint64_t len = want_ns, room;

	if (left == HUGE_VAL)
		return len;
	room = b->win_end > now ? b->win_end - now : 0;
	if (len > room)
		len = room;
	if (cost_rate > 0 && (double)len * cost_rate > left)
		len = (uint64_t)(left / cost_rate);
	if (len >= min_ns)
		return len;
	/* As a burst does where a whole window cannot pay the shortest. */
	if (b->own_known && b->spent <= 0 && room >= min_ns &&
	    want_ns >= min_ns)
		return min_ns;
	return 0;
}

void budget_window(struct budget *b, uint64_t now, uint64_t wall_ns,
		   uint64_t cpu_ns, uint64_t calls, uint64_t next_ns)
{
	double traps = (double)calls * b->call_cost_ns, own, rate, debt;
	uint64_t unarmed = wall_ns > b->win_armed ? wall_ns - b->win_armed : 0;

	if (!b->win_ns)
		return;
	own = (double)cpu_ns > traps ? (double)cpu_ns - traps : 0;
	/*
	 * A window of less than BUDGET_RATE_MIN_WALL_NS (the target found
	 * just before it closed) is a tick or two: it teaches no rate the
	 * budget does not know yet.
	 */
	if (wall_ns && (b->own_known || wall_ns >= BUDGET_RATE_MIN_WALL_NS)) {
		/*
		 * Its rate disarmed, where the window had enough of that:
		 * the work an armed ns loses is a cost of its own
		 * (budget_window_duty()), and a window's rate would count
		 * it again, and at once (less work is less allowance).
		 */
		rate = own / (double)wall_ns;
		if (unarmed >= BUDGET_RATE_MIN_WALL_NS && 4 * unarmed >= wall_ns)
			rate = fmax((double)cpu_ns -
				    (double)b->win_armed_cpu, 0) /
			       (double)unarmed;
		/*
		 * Less work is less allowance at once; more, gradually.
		 * None known yet (or none done): this window's, as it is.
		 */
		if (rate < b->own_rate || !b->own_known)
			b->own_rate = rate;
		else
			b->own_rate += BUDGET_EWMA * (rate - b->own_rate);
		b->own_known = true;
	}
	/* What the window spent past what its own work allowed. */
	debt = b->spent - b->budget * fmax(own, BUDGET_MIN_CPU_NS);
	b->spent = debt > 0 ? debt : 0;
	/* A reload may have changed the windows' length. */
	if (next_ns)
		b->win_ns = next_ns;
	b->win_start = now;
	b->win_end = now + b->win_ns;
	b->period_end = now;
	b->win_armed = b->win_armed_cpu = 0;
	if (b->observed)
		budget_window_duty(b);
}

void budget_observe(struct budget *b, uint64_t calls, uint64_t armed_ns,
		    uint64_t cpu_ns, uint64_t daemon_ns)
{
	double traps = (double)calls * b->call_cost_ns, own, full;
	double cost = traps + (double)daemon_ns;

	if (!armed_ns || b->budget <= 0)
		return;
	if (b->win_ns)
		return budget_observe_window(b, traps, armed_ns, cpu_ns,
					     daemon_ns);
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
	/* A window pays it, or carries it into the next ones. */
	if (b->win_ns) {
		b->spent += (double)cost_ns;
		return;
	}
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

/*
 * Cut @burst, planned from @from, to what is left of its window: of the
 * allowance, and of the time.  False if no burst fits before the window
 * ends; the next window plans again.
 */
static bool budget_fit_window(struct budget *b, uint64_t from,
			      uint64_t *burst)
{
	/*
	 * What an armed ns costs: every CPU trapping and all of the
	 * target's work lost (budget_window_duty()), until a burst is seen.
	 */
	double q = b->observed ? b->armed_cost : b->max_rate +
		   BUDGET_AIM * b->budget * b->own_rate;
	double whole = budget_allowance_of(b, b->win_ns);
	double left = budget_allowance_of(b, b->win_end - b->win_start) -
		      budget_window_spent(b) - b->daemon_avg;
	uint64_t fit = from < b->win_end ? b->win_end - from : 0;

	/* Free traps (an idle target's) still need what is left to pay. */
	if (left <= 0)
		fit = 0;
	else if (q > 0 && fit > left / q)
		fit = (uint64_t)(left / q);
	if (fit >= BUDGET_WINDOW_MIN_BURST_NS) {
		if (*burst > fit)
			*burst = fit;
		return true;
	}
	/*
	 * A whole window, with no debt, cannot pay the shortest burst: the
	 * windows with one go over, and the debt spaces them.  Not for a
	 * target whose rate is not known yet, nor in a window that is short
	 * because the target was found late in it: the next one may pay.
	 */
	if (b->spent <= 0 && whole > 0 && from < b->win_end &&
	    b->win_end - from >= BUDGET_WINDOW_MIN_BURST_NS &&
	    q * BUDGET_WINDOW_MIN_BURST_NS + b->daemon_avg > whole) {
		*burst = BUDGET_WINDOW_MIN_BURST_NS;
		return true;
	}
	return false;
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
	if (b->period_end < now)
		b->period_end = now;
	if (b->win_ns && !budget_fit_window(b, b->period_end, &burst)) {
		*start = UINT64_MAX;
		*len = 0;
		return;
	}
	period = b->duty < 1.0 ? (uint64_t)(burst / b->duty) : burst;
	/* With windows, each starts a period of its own: no cap to keep. */
	if (!b->win_ns && period > BUDGET_MAX_PERIOD_NS) {
		period = BUDGET_MAX_PERIOD_NS;
		burst = (uint64_t)(b->duty * period);
	}
	slack = period - burst;
	/*
	 * The first burst comes at once, give or take a spread that keeps
	 * the targets one scan found from all arming together: a program
	 * that lives a second, or a first window of a few seconds, must see
	 * one.  Its period still follows, so the share stays the budget.
	 */
	if (!b->observed && slack > BUDGET_FIRST_SPREAD_NS)
		slack = BUDGET_FIRST_SPREAD_NS;
	/* And a burst ends inside its window. */
	if (b->win_ns && slack > b->win_end - burst - b->period_end)
		slack = b->win_end - burst - b->period_end;
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
