/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names that several parts of ISPOT write or read, each spelled once:
 *
 *  - the causes of loss: the report table's label, the JSON key under
 *    "causes" and ispotd's "cause" label value (Documentation/ispotd.rst
 *    and ispotctl.8 promise the last two);
 *  - ispotd's metric and label names (Documentation/ispotd.rst, "Metrics"),
 *    which ispotd writes (user/daemon/metrics.c) and `ispotctl top --from`
 *    reads back (user/ctl/top/metrics_read.c).
 */
#ifndef ISPOT_NAMES_H
#define ISPOT_NAMES_H

#include "analysis/sci.h"

/* sci.h's four causes in its order, then loss that carried no causes. */
enum cause_id {
	CAUSE_FUTEX = SCI_CAUSE_FUTEX,
	CAUSE_BLOCKED = SCI_CAUSE_BLOCKED,
	CAUSE_RUNQUEUE = SCI_CAUSE_RUNQUEUE,
	CAUSE_ONCPU = SCI_CAUSE_ONCPU,
	CAUSE_UNKNOWN = SCI_NR_CAUSES,
	NR_CAUSES,
};

struct cause_name {
	const char *text;	/* the report's LOSS BY CAUSE: "on-cpu" */
	const char *json;	/* the key under "causes": "oncpu_ns" */
	const char *metric;	/* the metrics' cause="oncpu" */
};

extern const struct cause_name cause_names[NR_CAUSES];

/* The cause whose metric label value is @value; -1 for none (or NULL). */
int cause_of_metric(const char *value);

/* ---- ispotd's metrics ---- */

#define METRIC_PREFIX		"ispot_"
#define METRIC_TARGETS		"ispot_targets"
#define METRIC_EVENTS		"ispot_events_total"
#define METRIC_DUTY_CYCLE	"ispot_duty_cycle"
#define METRIC_OVERHEAD		"ispot_overhead_estimate"
#define METRIC_CALLS		"ispot_calls_total"
#define METRIC_LOSS		"ispot_loss_seconds_total"
#define METRIC_OBSERVED		"ispot_observed_seconds_total"
#define METRIC_INTERFERENCE	"ispot_interference_seconds_total"
#define METRIC_EXTERNAL		"ispot_external_seconds_total"
#define METRIC_SOLO_BLOCK	"ispot_solo_block_seconds_total"
#define METRIC_SCI		"ispot_sci"
#define METRIC_AUTO_SHARE	"ispot_auto_wall_share"
#define METRIC_DURATION		"ispot_duration_seconds"
#define METRIC_DURATION_BUCKET	METRIC_DURATION "_bucket"
#define METRIC_DURATION_SUM	METRIC_DURATION "_sum"
#define METRIC_DURATION_COUNT	METRIC_DURATION "_count"

#define LABEL_EXE		"exe"
#define LABEL_FUNCTION		"function"
#define LABEL_OBJECT		"object"
#define LABEL_CAUSE		"cause"
#define LABEL_OUTCOME		"outcome"
#define LABEL_LE		"le"

/* METRIC_EVENTS' outcome="..." values, in this order. */
enum event_outcome {
	OUTCOME_RECORDED,
	OUTCOME_DROPPED,
	OUTCOME_UNPAIRED,
	NR_OUTCOMES,
};

extern const char *const outcome_names[NR_OUTCOMES];

/* The outcome whose label value is @value; -1 for none (or NULL). */
int outcome_of(const char *value);

#endif /* ISPOT_NAMES_H */
