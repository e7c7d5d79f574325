/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ispotd's Prometheus metrics (Documentation/ispotd.rst, "Metrics"): a
 * registry fed with every closed window's figures (window.h) and rendered
 * in the text exposition format 0.0.4 for GET /metrics (http.h serves it).
 *
 * The counters are the registry's own, keyed by (exe, function, object)
 * with base names, never a target's: an --exe target that restarts under
 * a new pid, and several processes running one executable, add to the
 * same series, so that no counter decreases while the daemon runs (a
 * Prometheus rate() reads any decrease as a reset).  For the same reason:
 *
 *  - figures move when a window closes, not live: a window's loss is
 *    measured against the fastest execution so far, and a faster one
 *    later in the window lowers the loss already counted;
 *  - a window's loss split by cause can have negative parts (sci.h,
 *    "Causes"); the counters take the positive parts scaled to sum to the
 *    loss, so that each only grows and the causes still add up to it;
 *  - per exe, at most max_functions functions get series of their own,
 *    newcomers ranked by their loss in the window they first appear in;
 *    the others are summed under function="(other)", object="(other)".
 *    Membership never changes: a function with a series keeps it, one
 *    folded into (other) stays there, even when --max-functions changes
 *    (moving a function would make its series or (other) go down).
 *
 * Memory grows with the exes and functions ever seen, never with time,
 * and with at most METRICS_MAX_FOLDED folded functions an exe: past them,
 * a newcomer with no room for a series counts into (other) unremembered,
 * so that a target that shows ever new function names (its symbols are
 * its own) cannot grow the daemon.  (One of them could get a series of
 * its own after a reload raised --max-functions; (other) keeps what it
 * counted of it.)  Exes are bounded the same way: the first
 * METRICS_MAX_EXES get series of their own for the daemon's life, and
 * every exe after them counts as exe="(other)", as sticky.  A process in
 * a --cgroup target runs what binaries it likes, under what names it
 * likes.
 */
#define METRICS_MAX_FOLDED	4096
#define METRICS_MAX_EXES	256
#ifndef ISPOTD_METRICS_H
#define ISPOTD_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "window.h"

#define METRICS_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"
#define METRICS_OTHER		"(other)"
/* The executable label when /proc/PID/exe could not be read. */
#define METRICS_UNKNOWN_EXE	"(unknown)"

struct metrics;

struct metrics *metrics_new(uint32_t max_functions);
void metrics_free(struct metrics *m);

/* A reloaded --max-functions: only newcomers see it (see above). */
void metrics_set_max_functions(struct metrics *m, uint32_t max);

/*
 * A target running @exe (a path) was found: its exe's series exist from
 * now on, at 0 (the dropped events too).  Returns 0 or -ENOMEM.
 */
int metrics_add_exe(struct metrics *m, const char *exe);

/*
 * A target running @exe is gone (after its last window was added): once
 * none of the exe's is left, its gauges (duty cycle, overhead, SCI, the
 * --auto share) are no longer written, so that an alert on them ends
 * with the program; its counters stay, as they stand.
 */
void metrics_drop_exe(struct metrics *m, const char *exe);

/* How many processes are traced now: the ispot_targets gauge. */
void metrics_set_targets(struct metrics *m, size_t n);

/* Add one closed window (a window_observer).  Returns 0 or -ENOMEM. */
int metrics_add_window(struct metrics *m, const struct window_figures *wf);

/* Write every metric; returns 0, or -1 if @f failed. */
int metrics_render(const struct metrics *m, FILE *f);

#endif /* ISPOTD_METRICS_H */
