// SPDX-License-Identifier: GPL-2.0
/* When ispotd --auto picks again; see repick.h. */
#include <stdbool.h>

#include "repick.h"

void repick_reset(struct repick *r)
{
	r->cpu_rate = 0;
	r->share = 0;
	r->low = 0;
	r->windows = 0;
}

static double at_least_idle(double rate)
{
	return rate > REPICK_MIN_CPU_RATE ? rate : REPICK_MIN_CPU_RATE;
}

/*
 * The traced calls' share of their threads' time in @w, at least
 * REPICK_MIN_SHARE; 0 when too few calls were timed to say, or too many
 * of those entered went untimed (repick.h).
 */
static double timed_share(const struct repick_window *w)
{
	double share;

	if (w->timed_calls < REPICK_MIN_TIMED_CALLS || !w->lived_ns ||
	    (double)w->timed_calls < REPICK_MIN_TIMED * (double)w->calls)
		return 0;
	share = (double)w->timed_ns / (double)w->lived_ns;
	return share > REPICK_MIN_SHARE ? share : REPICK_MIN_SHARE;
}

enum repick_why repick_check(struct repick *r, uint32_t every,
			     const struct repick_window *w)
{
	double rate, ratio, share = timed_share(w);
	bool first_share = share > 0 && r->share <= 0;

	r->windows++;
	if (!w->window_ns)
		return REPICK_NO;
	rate = (double)w->cpu_ns / (double)w->window_ns;
	/*
	 * The first window judged is the share the picks hold; each judged
	 * window after it at half or less counts, one above half clears.
	 */
	if (first_share)
		r->share = share;
	else if (share > 0)
		r->low = share <= r->share / 2 ? r->low + 1 : 0;
	/* The picks' own window: the rate they were made at. */
	if (r->cpu_rate <= 0) {
		r->cpu_rate = at_least_idle(rate);
		return r->windows >= every ? REPICK_PERIOD : REPICK_NO;
	}
	if (w->armed_ns && w->nr_picks && !w->calls)
		return REPICK_UNCALLED;
	ratio = at_least_idle(rate) / r->cpu_rate;
	if (ratio >= 2 || ratio <= 0.5)
		return REPICK_CPU;
	if (r->low >= REPICK_LOW_WINDOWS)
		return REPICK_SHARE;
	return r->windows >= every ? REPICK_PERIOD : REPICK_NO;
}

const char *repick_why_name(enum repick_why why)
{
	switch (why) {
	case REPICK_FIRST:
		return "first";
	case REPICK_PERIOD:
		return "period";
	case REPICK_CPU:
		return "cpu";
	case REPICK_UNCALLED:
		return "uncalled";
	case REPICK_SHARE:
		return "share";
	default:
		return "none";
	}
}
