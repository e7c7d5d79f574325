/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metrics registry as its two files see it (metrics.h): metrics.c
 * keeps the counters, metrics_render.c writes them out.
 */
#ifndef ISPOTD_METRICS_INTERNAL_H
#define ISPOTD_METRICS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "metrics.h"
#include "report/names.h"

/*
 * The classic buckets: 1-2.5-5 per decade from 1 us (about a probed
 * call's cost on hardware, so nothing below it is measurable) to 10 s (a
 * lock held for a whole window); metrics_le are their le labels, written
 * as Go's strconv would, as client_golang's are.
 */
#define METRICS_NR_BUCKETS	22
extern const uint64_t metrics_le_ns[METRICS_NR_BUCKETS];
extern const char *const metrics_le[METRICS_NR_BUCKETS];

/* One (exe, function, object), or a function folded into (other). */
struct metrics_series {
	char *function;
	char *object;		/* base name */
	bool folded;		/* counts into its exe's (other) */
	uint64_t calls;
	uint64_t loss_ns[NR_CAUSES];
	uint64_t observed_ns;
	uint64_t aside_ns;	/* of observed_ns, in solo blocks */
	bool has_interference;	/* some window had the figure */
	uint64_t interference_ns;
	uint64_t external_ns;
	uint64_t le[METRICS_NR_BUCKETS];	/* cumulative */
	uint64_t count;
	uint64_t sum_ns;
	/* The gauge: the windows that closed last at one moment. */
	uint64_t sci_at;
	uint64_t sci_loss_ns, sci_observed_ns;
	/*
	 * ispotd --auto: the function's share of the wall time in the last
	 * profile of its exe (0: not picked now); a series once picked keeps
	 * the gauge.
	 */
	double pick_share;
	bool ever_picked;
};

struct metrics_exe {
	char *name;
	uint64_t recorded, dropped, unpaired;
	/* Gauges: the mean over the processes whose windows closed last. */
	uint64_t gauge_at;
	unsigned int gauge_n;
	double duty_sum, overhead_sum;
	/*
	 * Its processes traced now; @gone once the last was dropped: its
	 * gauges are no longer written (a gone program has no "now"), its
	 * counters are, as they stand.
	 */
	unsigned int live;
	bool gone;
	struct metrics_series *series;
	size_t nr_series, cap_series;
	uint32_t nr_named;
	struct metrics_series other;
	bool has_other;
};

struct metrics {
	uint32_t max_functions;
	size_t targets;
	struct metrics_exe *exes;
	size_t nr_exes, cap_exes;
	struct hist *scratch;	/* one function's durations at a time */
};

#endif /* ISPOTD_METRICS_INTERNAL_H */
