/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ispotd --auto: when a target's functions are picked again.  Every
 * --auto-every windows, and sooner when what the picks were made for has
 * drifted: the target's CPU rate has doubled or halved since the first
 * window after the pick (a new phase, a new load), or the picks were not
 * called in a window they were armed for (the work moved elsewhere), or
 * the traced functions' share of their threads' time has stayed at half
 * or less of the first judged window's for two judged windows in a row
 * (the time the profile found in them went elsewhere, at the same CPU
 * rate: a lock that is no longer contended, a phase that waits
 * elsewhere; one window of heavy-tailed waits is not enough to say so).  A rule of windows,
 * measured by the bursts themselves, so that it costs nothing between
 * profiles; the profile itself is what tells where the time went.
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
	REPICK_SHARE,		/* the traced calls' share of time halved */
};

/* Below this CPU rate (of one CPU) the target counts as idle. */
#define REPICK_MIN_CPU_RATE	0.01
/*
 * The calls a window must time for its share to be judged: with fewer, a
 * share is noise (a duration's spread over a handful of calls).
 */
#define REPICK_MIN_TIMED_CALLS	50
/*
 * A call still running when its burst ends is entered but not timed, and
 * those are the long ones: where more than a tenth of the calls entered
 * went untimed (bursts short for the calls), the share would be too low
 * and the window is not judged.
 */
#define REPICK_MIN_TIMED	0.9
/* Judged windows at half the share or less, in a row, that are drift. */
#define REPICK_LOW_WINDOWS	2
/* Below this share of their threads' time the traced calls count as idle. */
#define REPICK_MIN_SHARE	0.01

/* What a closed window says of the target and of its traced functions. */
struct repick_window {
	uint64_t window_ns, cpu_ns;	/* its length, the target's CPU time */
	uint64_t armed_ns;
	uint64_t calls;		/* probed calls entered while armed */
	size_t nr_picks;
	/*
	 * The traced functions' timed calls, their durations summed, and
	 * the armed lifetimes of the threads that made them, summed over
	 * the functions: durations / lifetimes is their share of time.
	 */
	uint64_t timed_calls, timed_ns, lived_ns;
};

struct repick {
	double cpu_rate;	/* of the first window after the pick; 0: none */
	double share;		/* of the first window judged; 0: none */
	unsigned int low;	/* judged windows at half of it, in a row */
	unsigned int windows;	/* closed since the pick */
};

/* A profile ended: count from here. */
void repick_reset(struct repick *r);

/* A window @w closed: whether a profile is due, and why. */
enum repick_why repick_check(struct repick *r, uint32_t every,
			     const struct repick_window *w);

/*
 * "first", "period", "cpu", "uncalled", "share" (the window line's
 * auto.why).
 */
const char *repick_why_name(enum repick_why why);

#endif /* ISPOTD_REPICK_H */
