// SPDX-License-Identifier: GPL-2.0
/* ispotd's Prometheus metrics: the registry and its rendering; metrics.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hist.h"
#include "metrics.h"
#include "analysis/sci.h"
#include "report/names.h"
#include "util/path.h"

/*
 * The classic buckets: 1-2.5-5 per decade from 1 us (about a probed
 * call's cost on hardware, so nothing below it is measurable) to 10 s (a
 * lock held for a whole window).  Written as Go's strconv would, as
 * client_golang's le labels are.
 */
#define METRICS_NR_BUCKETS	22
static const uint64_t metrics_le_ns[METRICS_NR_BUCKETS] = {
	1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
	1000000, 2500000, 5000000, 10000000, 25000000, 50000000, 100000000,
	250000000, 500000000, 1000000000, 2500000000, 5000000000,
	10000000000,
};
static const char *const metrics_le[METRICS_NR_BUCKETS] = {
	"1e-06", "2.5e-06", "5e-06", "1e-05", "2.5e-05", "5e-05", "0.0001",
	"0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025",
	"0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10",
};

/* One (exe, function, object), or a function folded into (other). */
struct metrics_series {
	char *function;
	char *object;		/* base name */
	bool folded;		/* counts into its exe's (other) */
	uint64_t calls;
	uint64_t loss_ns[NR_CAUSES];
	uint64_t observed_ns;
	bool has_interference;	/* some window had the figure */
	uint64_t interference_ns;
	uint64_t external_ns;
	uint64_t le[METRICS_NR_BUCKETS];	/* cumulative */
	uint64_t count;
	uint64_t sum_ns;
	/* The gauge: the windows that closed last at one moment. */
	uint64_t sci_at;
	uint64_t sci_loss_ns, sci_observed_ns;
};

struct metrics_exe {
	char *name;
	uint64_t recorded, dropped, unpaired;
	/* Gauges: the mean over the processes whose windows closed last. */
	uint64_t gauge_at;
	unsigned int gauge_n;
	double duty_sum, overhead_sum;
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

struct metrics *metrics_new(uint32_t max_functions)
{
	struct metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->scratch = malloc(sizeof(*m->scratch));
	if (!m->scratch) {
		free(m);
		return NULL;
	}
	m->max_functions = max_functions;
	return m;
}

void metrics_free(struct metrics *m)
{
	size_t i, j;

	if (!m)
		return;
	for (i = 0; i < m->nr_exes; i++) {
		struct metrics_exe *x = &m->exes[i];

		for (j = 0; j < x->nr_series; j++) {
			free(x->series[j].function);
			free(x->series[j].object);
		}
		free(x->series);
		free(x->name);
	}
	free(m->exes);
	free(m->scratch);
	free(m);
}

void metrics_set_max_functions(struct metrics *m, uint32_t max)
{
	m->max_functions = max;
}

void metrics_set_targets(struct metrics *m, size_t n)
{
	m->targets = n;
}

/*
 * The exe label: the base name, without the " (deleted)" that
 * /proc/PID/exe gains when a package upgrade replaces the binary (the
 * processes still running the old one are the same program).
 */
static char *metrics_exe_name(const char *path)
{
	static const char deleted[] = " (deleted)";
	const char *base = path_base(path ? path : "");
	size_t len = strlen(base);

	if (len > sizeof(deleted) - 1 &&
	    !strcmp(base + len - (sizeof(deleted) - 1), deleted))
		len -= sizeof(deleted) - 1;
	if (!len)
		return strdup(METRICS_UNKNOWN_EXE);
	return strndup(base, len);
}

static struct metrics_exe *metrics_exe(struct metrics *m, const char *path)
{
	struct metrics_exe *x;
	char *name = metrics_exe_name(path);
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < m->nr_exes; i++) {
		if (!strcmp(m->exes[i].name, name)) {
			free(name);
			return &m->exes[i];
		}
	}
	if (m->nr_exes == m->cap_exes) {
		size_t cap = m->cap_exes ? 2 * m->cap_exes : 4;

		x = realloc(m->exes, cap * sizeof(*x));
		if (!x) {
			free(name);
			return NULL;
		}
		m->exes = x;
		m->cap_exes = cap;
	}
	x = &m->exes[m->nr_exes++];
	memset(x, 0, sizeof(*x));
	x->name = name;
	x->other.function = METRICS_OTHER;
	x->other.object = METRICS_OTHER;
	return x;
}

int metrics_add_exe(struct metrics *m, const char *exe)
{
	return metrics_exe(m, exe) ? 0 : -ENOMEM;
}

static struct metrics_series *metrics_find(struct metrics_exe *x,
					   const char *function,
					   const char *object)
{
	const char *base = path_base(object);
	size_t i;

	for (i = 0; i < x->nr_series; i++)
		if (!strcmp(x->series[i].function, function) &&
		    !strcmp(x->series[i].object, base))
			return &x->series[i];
	return NULL;
}

static struct metrics_series *metrics_new_series(struct metrics_exe *x,
						 const char *function,
						 const char *object,
						 bool folded)
{
	struct metrics_series *s;

	if (x->nr_series == x->cap_series) {
		size_t cap = x->cap_series ? 2 * x->cap_series : 8;

		s = realloc(x->series, cap * sizeof(*s));
		if (!s)
			return NULL;
		x->series = s;
		x->cap_series = cap;
	}
	s = &x->series[x->nr_series];
	memset(s, 0, sizeof(*s));
	s->function = strdup(function);
	s->object = strdup(path_base(object));
	if (!s->function || !s->object) {
		free(s->function);
		free(s->object);
		return NULL;
	}
	s->folded = folded;
	if (!folded)
		x->nr_named++;
	x->nr_series++;
	return s;
}

/* Newcomers first by loss, then by calls, then by name: deterministic. */
static int metrics_cmp_newcomer(const void *a, const void *b)
{
	const struct window_func_figures *x = *(const void *const *)a;
	const struct window_func_figures *y = *(const void *const *)b;
	int c;

	if (x->loss_ns != y->loss_ns)
		return x->loss_ns > y->loss_ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->object, y->object);
}

/* Give every function of @wf a place: a series of its own, or (other). */
static int metrics_admit(struct metrics *m, struct metrics_exe *x,
			 const struct window_figures *wf)
{
	const struct window_func_figures **nc;
	size_t i, n = 0;
	int ret = 0;

	nc = calloc(wf->nr_funcs + 1, sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	for (i = 0; i < wf->nr_funcs; i++)
		if (!metrics_find(x, wf->funcs[i].name, wf->funcs[i].object))
			nc[n++] = &wf->funcs[i];
	qsort(nc, n, sizeof(*nc), metrics_cmp_newcomer);
	for (i = 0; i < n && !ret; i++) {
		/* Two objects of one base name: one series. */
		if (metrics_find(x, nc[i]->name, nc[i]->object))
			continue;
		if (!metrics_new_series(x, nc[i]->name, nc[i]->object,
					x->nr_named >= m->max_functions))
			ret = -ENOMEM;
	}
	free(nc);
	return ret;
}

/*
 * The window's loss by cause as counters can take it: negative parts
 * (sci.h, "Causes") count 0 and the positive ones are scaled down to sum
 * to the loss, the remainder of the integer division going to the
 * largest.  Without negative parts they are the parts themselves.
 */
static void metrics_split_loss(const struct window_func_figures *f,
			       uint64_t *out)
{
	int64_t part[NR_CAUSES];
	unsigned __int128 pos = 0;
	uint64_t given = 0;
	int k, big = CAUSE_UNKNOWN;

	for (k = 0; k < SCI_NR_CAUSES; k++)
		part[k] = f->cause_loss_ns[k];
	part[CAUSE_UNKNOWN] = f->unknown_loss_ns;
	memset(out, 0, NR_CAUSES * sizeof(*out));
	for (k = 0; k < NR_CAUSES; k++) {
		if (part[k] <= 0)
			continue;
		pos += part[k];
		if (part[k] > part[big])
			big = k;
	}
	if (!f->loss_ns)
		return;
	if (!pos) {
		out[CAUSE_UNKNOWN] = f->loss_ns;
		return;
	}
	for (k = 0; k < NR_CAUSES; k++) {
		if (part[k] <= 0)
			continue;
		out[k] = (unsigned __int128)part[k] * f->loss_ns / pos;
		given += out[k];
	}
	out[big] += f->loss_ns - given;
}

static void metrics_count(struct metrics *m, struct metrics_series *s,
			  const struct window_figures *wf,
			  const struct window_func_figures *f)
{
	uint64_t loss[NR_CAUSES], le[METRICS_NR_BUCKETS];
	int k;

	s->calls += f->calls;
	s->observed_ns += f->observed_ns;
	s->has_interference |= f->has_interference;
	s->interference_ns += f->interference_ns;
	s->external_ns += f->external_ns;
	metrics_split_loss(f, loss);
	for (k = 0; k < NR_CAUSES; k++)
		s->loss_ns[k] += loss[k];
	if (wf->engine) {
		sci_func_hist(wf->engine, f->func_id, m->scratch);
		hist_cumulative(m->scratch, metrics_le_ns, METRICS_NR_BUCKETS,
				le);
		for (k = 0; k < METRICS_NR_BUCKETS; k++)
			s->le[k] += le[k];
		s->count += hist_count(m->scratch);
	} else {
		s->count += f->calls;
	}
	s->sum_ns += f->sum_ns;
	if (s->sci_at != wf->now) {
		s->sci_at = wf->now;
		s->sci_loss_ns = s->sci_observed_ns = 0;
	}
	s->sci_loss_ns += f->loss_ns;
	s->sci_observed_ns += f->observed_ns;
}

int metrics_add_window(struct metrics *m, const struct window_figures *wf)
{
	struct metrics_exe *x = metrics_exe(m, wf->target->exe);
	size_t i;
	int ret;

	if (!x)
		return -ENOMEM;
	x->recorded += wf->recorded;
	x->dropped += wf->dropped;
	x->unpaired += wf->unpaired;
	if (x->gauge_at != wf->now || !x->gauge_n) {
		x->gauge_at = wf->now;
		x->gauge_n = 0;
		x->duty_sum = x->overhead_sum = 0;
	}
	x->gauge_n++;
	x->duty_sum += wf->duty;
	x->overhead_sum += wf->overhead;

	ret = metrics_admit(m, x, wf);
	for (i = 0; i < wf->nr_funcs; i++) {
		const struct window_func_figures *f = &wf->funcs[i];
		struct metrics_series *s = metrics_find(x, f->name, f->object);

		/* Out of memory admitting it: its window is lost, not more. */
		if (!s)
			continue;
		if (s->folded) {
			s = &x->other;
			x->has_other = true;
		}
		metrics_count(m, s, wf, f);
	}
	return ret;
}

/* A label value: backslash, double quote and newline escaped. */
static void metrics_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\')
			fputs("\\\\", f);
		else if (*v == '"')
			fputs("\\\"", f);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* Nanoseconds as exact decimal seconds: no rounding can make a counter
 * step back. */
static void metrics_seconds(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, ns / 1000000000,
		ns % 1000000000);
}

static void metrics_double(FILE *f, double v)
{
	if (isnan(v))
		fputs("NaN", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", f);
	else
		fprintf(f, "%.9g", v);
}

static void metrics_family(FILE *f, const char *name, const char *type,
			   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* NAME{exe=".." (no closing brace) */
static void metrics_exe_label(FILE *f, const char *name,
			      const struct metrics_exe *x)
{
	fprintf(f, "%s{" LABEL_EXE "=\"", name);
	metrics_value(f, x->name);
	fputc('"', f);
}

/* NAME{exe="..",function="..",object=".." (no closing brace) */
static void metrics_open(FILE *f, const char *name,
			 const struct metrics_exe *x,
			 const struct metrics_series *s)
{
	metrics_exe_label(f, name, x);
	fputs("," LABEL_FUNCTION "=\"", f);
	metrics_value(f, s->function);
	fputs("\"," LABEL_OBJECT "=\"", f);
	metrics_value(f, s->object);
	fputc('"', f);
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
	fprintf(f, "} %" PRIu64 "\n", s->calls);
}

static void metrics_loss(FILE *f, const struct metrics_exe *x,
			 const struct metrics_series *s)
{
	int k;

	for (k = 0; k < NR_CAUSES; k++) {
		metrics_open(f, METRIC_LOSS, x, s);
		fprintf(f, "," LABEL_CAUSE "=\"%s\"} ",
			cause_names[k].metric);
		metrics_seconds(f, s->loss_ns[k]);
		fputc('\n', f);
	}
}

/* One series of a counter in seconds. */
static void metrics_seconds_line(FILE *f, const char *name,
				 const struct metrics_exe *x,
				 const struct metrics_series *s, uint64_t ns)
{
	metrics_open(f, name, x, s);
	fputs("} ", f);
	metrics_seconds(f, ns);
	fputc('\n', f);
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

static void metrics_sci(FILE *f, const struct metrics_exe *x,
			const struct metrics_series *s)
{
	metrics_open(f, METRIC_SCI, x, s);
	fputs("} ", f);
	metrics_double(f, s->sci_observed_ns ?
		       (double)s->sci_loss_ns / s->sci_observed_ns : 0.0);
	fputc('\n', f);
}

static void metrics_duration(FILE *f, const struct metrics_exe *x,
			     const struct metrics_series *s)
{
	int k;

	for (k = 0; k < METRICS_NR_BUCKETS; k++) {
		metrics_open(f, METRIC_DURATION_BUCKET, x, s);
		fprintf(f, "," LABEL_LE "=\"%s\"} %" PRIu64 "\n", metrics_le[k],
			s->le[k]);
	}
	metrics_open(f, METRIC_DURATION_BUCKET, x, s);
	fprintf(f, "," LABEL_LE "=\"+Inf\"} %" PRIu64 "\n", s->count);
	metrics_open(f, METRIC_DURATION_SUM, x, s);
	fputs("} ", f);
	metrics_seconds(f, s->sum_ns);
	fputc('\n', f);
	metrics_open(f, METRIC_DURATION_COUNT, x, s);
	fprintf(f, "} %" PRIu64 "\n", s->count);
}

/* A per-exe gauge: the mean of the sum at @sum_off over its processes. */
static void metrics_exe_mean(FILE *f, const struct metrics *m,
			     const char *name, const char *help,
			     size_t sum_off)
{
	size_t i;

	metrics_family(f, name, "gauge", help);
	for (i = 0; i < m->nr_exes; i++) {
		const struct metrics_exe *x = &m->exes[i];
		double sum = *(const double *)((const char *)x + sum_off);

		metrics_exe_label(f, name, x);
		fputs("} ", f);
		metrics_double(f, x->gauge_n ? sum / x->gauge_n : 0);
		fputc('\n', f);
	}
}

static void metrics_per_exe(const struct metrics *m, FILE *f)
{
	size_t i;
	int k;

	metrics_family(f, METRIC_EVENTS, "counter",
		       "Probe events of the exe's processes while armed: "
		       "recorded, dropped (a ring was full), unpaired.");
	for (i = 0; i < m->nr_exes; i++) {
		const struct metrics_exe *x = &m->exes[i];
		const uint64_t v[NR_OUTCOMES] = {
			[OUTCOME_RECORDED] = x->recorded,
			[OUTCOME_DROPPED] = x->dropped,
			[OUTCOME_UNPAIRED] = x->unpaired,
		};

		for (k = 0; k < NR_OUTCOMES; k++) {
			metrics_exe_label(f, METRIC_EVENTS, x);
			fprintf(f, "," LABEL_OUTCOME "=\"%s\"} %" PRIu64 "\n",
				outcome_names[k], v[k]);
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

int metrics_render(const struct metrics *m, FILE *f)
{
	metrics_family(f, METRIC_TARGETS, "gauge",
		       "Processes ispotd traces now.");
	fprintf(f, METRIC_TARGETS " %zu\n", m->targets);
	metrics_per_exe(m, f);
	metrics_family(f, METRIC_CALLS, "counter",
		       "Executions of the function while armed.");
	metrics_each(m, f, metrics_calls);
	metrics_family(f, METRIC_LOSS, "counter",
		       "Time the function's executions took beyond its "
		       "fastest one, by cause.");
	metrics_each(m, f, metrics_loss);
	metrics_family(f, METRIC_OBSERVED, "counter",
		       "Armed lifetime of the threads that ran the function. "
		       "SCI = rate(ispot_loss_seconds_total) / rate(this).");
	metrics_each(m, f, metrics_observed);
	metrics_family(f, METRIC_INTERFERENCE, "counter",
		       "The part of the loss that the program's other threads "
		       "caused, beyond the function's own variance (a floor "
		       "where it has no solo calls to compare with). "
		       "Interference = rate(this) / "
		       "rate(ispot_observed_seconds_total).");
	metrics_each(m, f, metrics_interference);
	metrics_family(f, METRIC_EXTERNAL, "counter",
		       "Time the function's calls waited for CPUs that other "
		       "processes held.");
	metrics_each(m, f, metrics_external);
	metrics_family(f, METRIC_SCI, "gauge",
		       "Slowdown caused by interference in the last window: "
		       "loss over observed time.");
	metrics_each(m, f, metrics_sci);
	metrics_family(f, METRIC_DURATION, "histogram",
		       "Durations of the function's executions while armed.");
	metrics_each(m, f, metrics_duration);
	return ferror(f) ? -1 : 0;
}
