/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Figures over a sliding interval, from totals that only grow.
 *
 * Both sources of `ispotctl top` give running totals per function: its own
 * session's SCI engine, and ispotd's /metrics (Prometheus counters).  A
 * live view wants what happened lately, so each refresh records the totals
 * as a sample, and the figures are differences between the latest sample
 * and the newest one at least a window older (or the oldest kept, while
 * the view is younger than a window):
 *
 *	SCI         = d(loss) / d(observed thread time)
 *	INTERF      = d(interference) / d(observed thread time)
 *	loss rate   = d(loss) / dt,  calls/s = d(calls) / dt
 *	p99         = from d(cumulative histogram buckets), linear within the
 *		      bucket it falls in (Prometheus' histogram_quantile)
 *	main cause  = the cause with the largest part of d(loss), its share
 *		      taken over the causes that added loss
 *
 * A function missing from a sample had zero of everything then: every
 * source starts a function's totals at zero when it first runs.  A total
 * that went down was reset (a restarted daemon, a new target under the
 * same name), and its difference is taken from zero, as Prometheus' rate()
 * does.
 *
 * Memory is the functions times the samples a window spans (at most
 * RATES_MAX_SAMPLES: a window longer than that many refreshes covers
 * less, and says so in rates_view.span_ns).
 */
#ifndef ISPOT_RATES_H
#define ISPOT_RATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/names.h"

#define RATES_MAX_SAMPLES	64
#define RATES_MAX_BUCKETS	160

enum rates_sort {
	RATES_BY_INTERF,
	RATES_BY_SCI,
	RATES_BY_LOSS,
	RATES_BY_CALLS,
	RATES_BY_P99,
	RATES_NR_SORTS,
};

extern const char *const rates_sort_names[RATES_NR_SORTS];

/* One function's totals at one moment. */
struct rates_counts {
	double calls;
	double loss_ns;
	double cause_ns[NR_CAUSES];	/* < 0 possible: sci.h */
	double observed_ns;	/* lifetimes of the threads that ran it */
	double aside_ns;	/* of observed_ns, in solo blocks (sci.h) */
	double interference_ns;	/* analysis/interference.h; NAN: none */
	/* ispotd --auto: its share in the last profile; 0: not picked. */
	double pick_share;
	/* Cumulative histogram: cum[i] durations <= le_ns[i], ascending;
	 * the last bound may be INFINITY.  nr_buckets 0: none. */
	size_t nr_buckets;
	const double *le_ns;
	const double *cum;
};

struct rates_row {
	const char *exe;
	const char *function;
	const char *object;
	double sci;		/* NAN: no thread time in the interval */
	double interference;	/* likewise */
	double loss_per_s;	/* ns of loss per second */
	double calls_per_s;
	double p99_ns;		/* NAN: no call in the interval */
	int cause;		/* enum cause_id; -1: nothing lost */
	double cause_share;
	double pick_share;	/* the latest sample's; 0: not picked */
};

struct rates_view {
	double span_ns;		/* what the figures cover; 0: one sample */
	double events_per_s;
	double dropped_per_s;
	double dropped;		/* the total so far */
	size_t nr_rows;
	struct rates_row *rows;	/* valid until the next rates_begin() */
};

struct rates;

struct rates *rates_new(uint64_t window_ns);
void rates_free(struct rates *r);

/*
 * Start the sample of @now_ns (monotonic, increasing); the rates_add()
 * and rates_events() calls that follow fill it.  Returns 0 or -ENOMEM.
 */
int rates_begin(struct rates *r, uint64_t now_ns);
/* One function's totals in the current sample.  Returns 0 or -ENOMEM. */
int rates_add(struct rates *r, const char *exe, const char *function,
	      const char *object, const struct rates_counts *c);
/* Records the source took, and lost, so far. */
void rates_events(struct rates *r, double recorded, double dropped);

/*
 * The figures over the window ending at the latest sample, one row per
 * function of that sample, sorted by @sort, highest first (NAN last, then
 * by name).  Returns 0 or -ENOMEM.
 */
int rates_view(struct rates *r, enum rates_sort sort, struct rates_view *v);

/* Sort @n rows as rates_view() does: a frozen view can be re-sorted. */
void rates_sort_rows(struct rates_row *rows, size_t n, enum rates_sort sort);

/*
 * The @q quantile (0..1) of the durations counted by the difference of two
 * cumulative histograms on bounds @le (@base may be NULL: zero).  NAN when
 * the difference counts nothing.
 */
double rates_quantile(double q, const double *le, const double *cum,
		      const double *base, size_t n);

#endif /* ISPOT_RATES_H */
