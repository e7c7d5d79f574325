// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's metrics written out in the Prometheus text format for GET
 * /metrics (wire/promtext.h writes each line); see metrics.h.
 */
#include <stddef.h>

#include "metrics_internal.h"
#include "wire/promtext.h"

/* exe, function, object, and room for one label more. */
#define METRICS_SERIES_LABELS	3

static void metrics_labels(struct prom_label *l, const struct metrics_exe *x,
			   const struct metrics_series *s)
{
	l[0] = (struct prom_label){ LABEL_EXE, x->name };
	l[1] = (struct prom_label){ LABEL_FUNCTION, s->function };
	l[2] = (struct prom_label){ LABEL_OBJECT, s->object };
}

/* NAME{exe="..",function="..",object=".."} up to the value. */
static void metrics_open(FILE *f, const char *name,
			 const struct metrics_exe *x,
			 const struct metrics_series *s)
{
	struct prom_label l[METRICS_SERIES_LABELS];

	metrics_labels(l, x, s);
	prom_write_series(f, name, l, METRICS_SERIES_LABELS);
}

/* NAME{exe="..",function="..",object="..",@label="@value"} likewise. */
static void metrics_open_with(FILE *f, const char *name,
			      const struct metrics_exe *x,
			      const struct metrics_series *s,
			      const char *label, const char *value)
{
	struct prom_label l[METRICS_SERIES_LABELS + 1];

	metrics_labels(l, x, s);
	l[METRICS_SERIES_LABELS] = (struct prom_label){ label, value };
	prom_write_series(f, name, l, METRICS_SERIES_LABELS + 1);
}

typedef void metrics_series_fn(FILE *f, const struct metrics_exe *x,
			       const struct metrics_series *s);

/* @fn for every exe's own series, then its (other). */
static void metrics_each(const struct metrics *m, FILE *f,
			 metrics_series_fn *fn)
{
	size_t i, j;

	for (i = 0; i < m->nr_exes; i++) {
		const struct metrics_exe *x = &m->exes[i];

		for (j = 0; j < x->nr_series; j++)
			if (!x->series[j].folded)
				fn(f, x, &x->series[j]);
		if (x->has_other)
			fn(f, x, &x->other);
	}
}

static void metrics_calls(FILE *f, const struct metrics_exe *x,
			  const struct metrics_series *s)
{
	metrics_open(f, METRIC_CALLS, x, s);
	prom_write_u64(f, s->calls);
}

static void metrics_loss(FILE *f, const struct metrics_exe *x,
			 const struct metrics_series *s)
{
	int k;

	for (k = 0; k < NR_CAUSES; k++) {
		metrics_open_with(f, METRIC_LOSS, x, s, LABEL_CAUSE,
				  cause_names[k].metric);
		prom_write_seconds(f, s->loss_ns[k]);
	}
}

/* One series of a counter in seconds. */
static void metrics_seconds_line(FILE *f, const char *name,
				 const struct metrics_exe *x,
				 const struct metrics_series *s, uint64_t ns)
{
	metrics_open(f, name, x, s);
	prom_write_seconds(f, ns);
}

static void metrics_observed(FILE *f, const struct metrics_exe *x,
			     const struct metrics_series *s)
{
	metrics_seconds_line(f, METRIC_OBSERVED, x, s, s->observed_ns);
}

/* Without wait records there is no figure: no series, not a 0. */
static void metrics_interference(FILE *f, const struct metrics_exe *x,
				 const struct metrics_series *s)
{
	if (s->has_interference)
		metrics_seconds_line(f, METRIC_INTERFERENCE, x, s,
				     s->interference_ns);
}

static void metrics_external(FILE *f, const struct metrics_exe *x,
			     const struct metrics_series *s)
{
	if (s->has_interference)
		metrics_seconds_line(f, METRIC_EXTERNAL, x, s, s->external_ns);
}

static void metrics_solo_block(FILE *f, const struct metrics_exe *x,
			       const struct metrics_series *s)
{
	if (s->has_interference)
		metrics_seconds_line(f, METRIC_SOLO_BLOCK, x, s, s->aside_ns);
}

static void metrics_sci(FILE *f, const struct metrics_exe *x,
			const struct metrics_series *s)
{
	if (x->gone)
		return;
	metrics_open(f, METRIC_SCI, x, s);
	prom_write_double(f, s->sci_observed_ns ?
			  (double)s->sci_loss_ns / s->sci_observed_ns : 0.0);
}

static void metrics_auto_share(FILE *f, const struct metrics_exe *x,
			       const struct metrics_series *s)
{
	if (!s->ever_picked || x->gone)
		return;
	metrics_open(f, METRIC_AUTO_SHARE, x, s);
	prom_write_double(f, s->pick_share);
}

static void metrics_duration(FILE *f, const struct metrics_exe *x,
			     const struct metrics_series *s)
{
	int k;

	for (k = 0; k < METRICS_NR_BUCKETS; k++) {
		metrics_open_with(f, METRIC_DURATION_BUCKET, x, s, LABEL_LE,
				  metrics_le[k]);
		prom_write_u64(f, s->le[k]);
	}
	metrics_open_with(f, METRIC_DURATION_BUCKET, x, s, LABEL_LE, "+Inf");
	prom_write_u64(f, s->count);
	metrics_open(f, METRIC_DURATION_SUM, x, s);
	prom_write_seconds(f, s->sum_ns);
	metrics_open(f, METRIC_DURATION_COUNT, x, s);
	prom_write_u64(f, s->count);
}

/* A per-exe gauge: the mean of the sum at @sum_off over its processes. */
static void metrics_exe_mean(FILE *f, const struct metrics *m,
			     const char *name, const char *help,
			     size_t sum_off)
{
	size_t i;

	prom_write_family(f, name, "gauge", help);
	for (i = 0; i < m->nr_exes; i++) {
		const struct metrics_exe *x = &m->exes[i];
		double sum = *(const double *)((const char *)x + sum_off);
		struct prom_label exe = { LABEL_EXE, x->name };

		if (x->gone)
			continue;
		prom_write_series(f, name, &exe, 1);
		prom_write_double(f, x->gauge_n ? sum / x->gauge_n : 0);
	}
}

static void metrics_per_exe(const struct metrics *m, FILE *f)
{
	size_t i;
	int k;

	prom_write_family(f, METRIC_EVENTS, "counter",
			  "Probe events of the exe's processes while armed: "
			  "recorded, dropped (a ring was full), unpaired.");
	for (i = 0; i < m->nr_exes; i++) {
		const struct metrics_exe *x = &m->exes[i];
		const uint64_t v[NR_OUTCOMES] = {
			[OUTCOME_RECORDED] = x->recorded,
			[OUTCOME_DROPPED] = x->dropped,
			[OUTCOME_UNPAIRED] = x->unpaired,
		};
		struct prom_label l[2] = { { LABEL_EXE, x->name } };

		for (k = 0; k < NR_OUTCOMES; k++) {
			l[1] = (struct prom_label){ LABEL_OUTCOME,
						    outcome_names[k] };
			prom_write_series(f, METRIC_EVENTS, l, 2);
			prom_write_u64(f, v[k]);
		}
	}
	metrics_exe_mean(f, m, METRIC_DUTY_CYCLE,
			 "Share of the last window the exe's probes were armed "
			 "(the mean over its processes).",
			 offsetof(struct metrics_exe, duty_sum));
	metrics_exe_mean(f, m, METRIC_OVERHEAD,
			 "Estimated cost of the probes in the last window, as a "
			 "share of the exe's CPU time (the mean over its "
			 "processes).",
			 offsetof(struct metrics_exe, overhead_sum));
}

/* The per-function families, in the order they are written. */
static const struct metrics_family {
	const char *name;
	const char *type;
	const char *help;
	metrics_series_fn *fn;
} metrics_families[] = {
	{ METRIC_CALLS, "counter",
	  "Executions of the function while armed.", metrics_calls },
	{ METRIC_LOSS, "counter",
	  "Time the function's executions took beyond its fastest one, by "
	  "cause.", metrics_loss },
	{ METRIC_OBSERVED, "counter",
	  "Armed lifetime of the threads that ran the function. "
	  "SCI = rate(ispot_loss_seconds_total) / rate(this).",
	  metrics_observed },
	{ METRIC_INTERFERENCE, "counter",
	  "The part of the loss that the program's other threads caused, "
	  "beyond the function's own variance (a floor where it has no "
	  "reference to compare with). Interference = rate(this) / "
	  "(rate(ispot_observed_seconds_total) - "
	  "rate(ispot_solo_block_seconds_total)).", metrics_interference },
	{ METRIC_EXTERNAL, "counter",
	  "Time the function's calls waited for CPUs that other processes "
	  "held.", metrics_external },
	{ METRIC_SOLO_BLOCK, "counter",
	  "The part of ispot_observed_seconds_total that fell in solo "
	  "blocks, which the interference figure leaves out of its time.",
	  metrics_solo_block },
	{ METRIC_SCI, "gauge",
	  "Slowdown caused by interference in the last window: loss over "
	  "observed time.", metrics_sci },
	{ METRIC_AUTO_SHARE, "gauge",
	  "ispotd --auto: the function's share of its exe's wall time in "
	  "the last profile (0: not picked now).", metrics_auto_share },
	{ METRIC_DURATION, "histogram",
	  "Durations of the function's executions while armed.",
	  metrics_duration },
};

int metrics_render(const struct metrics *m, FILE *f)
{
	const struct metrics_family *fam;
	size_t i;

	prom_write_family(f, METRIC_TARGETS, "gauge",
			  "Processes ispotd traces now.");
	prom_write_series(f, METRIC_TARGETS, NULL, 0);
	prom_write_u64(f, m->targets);
	metrics_per_exe(m, f);
	for (i = 0; i < sizeof(metrics_families) / sizeof(*fam); i++) {
		fam = &metrics_families[i];
		prom_write_family(f, fam->name, fam->type, fam->help);
		metrics_each(m, f, fam->fn);
	}
	return ferror(f) ? -1 : 0;
}
