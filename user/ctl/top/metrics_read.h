/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ispotd's /metrics read back (Documentation/ispotd.rst, "Metrics"): the
 * running totals of each (exe, function, object) series, for a client
 * that takes differences between two reads (`ispotctl top --from`).
 *
 *	ispot_calls_total                    -> calls
 *	ispot_loss_seconds_total{cause}      -> loss by cause, and their sum
 *	ispot_observed_seconds_total         -> observed thread time
 *	ispot_duration_seconds_bucket{le}    -> the cumulative histogram
 *	ispot_events_total{outcome}          -> recorded, dropped, unpaired
 *	ispot_targets                        -> targets
 *
 * Everything else is ignored, so metrics added later cost nothing.
 * Seconds become nanoseconds.
 */
#ifndef ISPOT_METRICS_READ_H
#define ISPOT_METRICS_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "top/rates.h"

struct metrics_series {
	const char *exe;	/* point into the text read */
	const char *function;
	const char *object;
	double calls;
	double cause_ns[NR_CAUSES];
	double loss_ns;		/* the sum of the causes */
	double observed_ns;
	double aside_ns;		/* of observed_ns, in solo blocks */
	double interference_ns;
	double pick_share;	/* ispotd --auto's gauge; 0: not picked */
	size_t nr_buckets;	/* sorted by le; 0 if there were too many */
	bool too_many_buckets;
	double le_ns[RATES_MAX_BUCKETS];
	double cum[RATES_MAX_BUCKETS];
};

struct metrics_snapshot {
	struct metrics_series *series;
	size_t nr_series, cap_series;
	double recorded, dropped, unpaired;
	double targets;		/* -1 when not served */
	size_t nr_ispot;	/* samples of ispot_* metrics */
};

/*
 * Read an exposition (@text[len] must be writable: it is parsed in place,
 * and the series point into it).  Returns 0, -ENOMEM, or -1 with why in
 * @err ("line N: ...").  A text without any ispot_ metric reads fine: its
 * nr_ispot is 0, which tells "not ispotd" apart from "no target yet"
 * (ispotd always serves ispot_targets).
 */
int metrics_read(char *text, size_t len, struct metrics_snapshot *m,
		 char *err, size_t errlen);
void metrics_snapshot_free(struct metrics_snapshot *m);

/* The series as rates_add() takes it. */
void metrics_series_counts(const struct metrics_series *s,
			   struct rates_counts *c);

#endif /* ISPOT_METRICS_READ_H */
