// SPDX-License-Identifier: GPL-2.0
/* When ispotd --auto picks again; see repick.h. */
#include "repick.h"

void repick_reset(struct repick *r)
{
	r->cpu_rate = 0;
	r->windows = 0;
}

static double at_least_idle(double rate)
{
	return rate > REPICK_MIN_CPU_RATE ? rate : REPICK_MIN_CPU_RATE;
}

enum repick_why repick_check(struct repick *r, uint32_t every,
			     uint64_t window_ns, uint64_t cpu_ns,
			     uint64_t armed_ns, uint64_t calls,
			     size_t nr_picks)
{
	double rate, ratio;

	r->windows++;
	if (!window_ns)
		return REPICK_NO;
	rate = (double)cpu_ns / (double)window_ns;
	/* The picks' own window: the rate they were made at. */
	if (r->cpu_rate <= 0) {
		r->cpu_rate = at_least_idle(rate);
		return r->windows >= every ? REPICK_PERIOD : REPICK_NO;
	}
	if (armed_ns && nr_picks && !calls)
		return REPICK_UNCALLED;
	ratio = at_least_idle(rate) / r->cpu_rate;
	if (ratio >= 2 || ratio <= 0.5)
		return REPICK_CPU;
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
	default:
		return "none";
	}
}
