/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ispotd --auto: when a target's functions are picked again.  Every
 * --auto-every windows, and sooner when what the picks were made for has
 * drifted: the target's CPU rate has doubled or halved since the first
 * window after the pick (a new phase, a new load), or the picks were not
 * called in a window they were armed for (the work moved elsewhere).  A
 * rule of windows, so that it costs nothing between profiles; the profile
 * itself is what tells where the time went.
 */
#ifndef ISPOTD_REPICK_H
#define ISPOTD_REPICK_H

#include <stddef.h>
#include <stdint.h>

enum repick_why {
	REPICK_NO,
	REPICK_FIRST,		/* no profile yet */
	REPICK_PERIOD,		/* --auto-every windows */
	REPICK_CPU,		/* the CPU rate doubled or halved */
	REPICK_UNCALLED,	/* armed, and no pick was called */
};

/* Below this CPU rate (of one CPU) the target counts as idle. */
#define REPICK_MIN_CPU_RATE	0.01

struct repick {
	double cpu_rate;	/* of the first window after the pick; 0: none */
	unsigned int windows;	/* closed since the pick */
};

/* A profile ended: count from here. */
void repick_reset(struct repick *r);

/*
 * A window closed: @cpu_ns of the target's CPU time in @window_ns, armed
 * @armed_ns with @calls of its functions, @nr_picks of them picked.
 * Whether a profile is due, and why.
 */
enum repick_why repick_check(struct repick *r, uint32_t every,
			     uint64_t window_ns, uint64_t cpu_ns,
			     uint64_t armed_ns, uint64_t calls,
			     size_t nr_picks);

/* "first", "period", "cpu", "uncalled" (the window line's auto.why). */
const char *repick_why_name(enum repick_why why);

#endif /* ISPOTD_REPICK_H */
