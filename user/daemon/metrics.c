// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's Prometheus metrics: the registry, fed window by window
 * (metrics_render.c writes it out); see metrics.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hist.h"
#include "analysis/sci.h"
#include "metrics_internal.h"
#include "trace/autopick.h"
#include "util/array.h"
#include "util/path.h"
#include "util/utf8.h"

const uint64_t metrics_le_ns[METRICS_NR_BUCKETS] = {
	1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
	1000000, 2500000, 5000000, 10000000, 25000000, 50000000, 100000000,
	250000000, 500000000, 1000000000, 2500000000, 5000000000,
	10000000000,
};
const char *const metrics_le[METRICS_NR_BUCKETS] = {
	"1e-06", "2.5e-06", "5e-06", "1e-05", "2.5e-05", "5e-05", "0.0001",
	"0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025",
	"0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10",
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
 * processes still running the old one are the same program).  Names are
 * kept as they are written, in UTF-8 (util/utf8.h): two that differ only
 * in bytes that are not would be two series with one label set.
 */
static char *metrics_exe_name(const char *path)
{
	static const char deleted[] = " (deleted)";
	const char *base = path_base(path ? path : "");
	size_t len = strlen(base);
	char *raw, *name;

	if (len > sizeof(deleted) - 1 &&
	    !strcmp(base + len - (sizeof(deleted) - 1), deleted))
		len -= sizeof(deleted) - 1;
	if (!len)
		return strdup(METRICS_UNKNOWN_EXE);
	raw = strndup(base, len);
	name = raw ? utf8_dup_valid(raw) : NULL;
	free(raw);
	return name;
}

static struct metrics_exe *metrics_exe_find(struct metrics *m,
					    const char *name)
{
	size_t i;

	for (i = 0; i < m->nr_exes; i++)
		if (!strcmp(m->exes[i].name, name))
			return &m->exes[i];
	return NULL;
}

/*
 * The exe of @path, made if new: past METRICS_MAX_EXES, a newcomer is
 * (other) (metrics.h says why).
 */
static struct metrics_exe *metrics_exe(struct metrics *m, const char *path)
{
	struct metrics_exe *x;
	char *name = metrics_exe_name(path);

	if (!name)
		return NULL;
	x = metrics_exe_find(m, name);
	if (!x && m->nr_exes >= METRICS_MAX_EXES) {
		free(name);
		x = metrics_exe_find(m, METRICS_OTHER);
		name = x ? NULL : strdup(METRICS_OTHER);
		if (!x && !name)
			return NULL;
	}
	if (x) {
		free(name);
		return x;
	}
	if (ARRAY_RESERVE(m->exes, m->cap_exes, m->nr_exes + 1)) {
		free(name);
		return NULL;
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
	struct metrics_exe *x = metrics_exe(m, exe);

	if (!x)
		return -ENOMEM;
	/* Still gone: its gauges return with its new process's window. */
	x->live++;
	return 0;
}

void metrics_drop_exe(struct metrics *m, const char *exe)
{
	char *name = metrics_exe_name(exe);
	struct metrics_exe *x = name ? metrics_exe_find(m, name) : NULL;

	/* Past METRICS_MAX_EXES, its processes were counted in (other). */
	if (name && !x && m->nr_exes >= METRICS_MAX_EXES)
		x = metrics_exe_find(m, METRICS_OTHER);
	free(name);
	if (!x || !x->live)
		return;	/* added without memory: nothing was counted */
	if (!--x->live)
		x->gone = true;
}

static struct metrics_series *metrics_find(struct metrics_exe *x,
					   const char *function,
					   const char *object)
{
	const char *base = path_base(object);
	size_t i;

	for (i = 0; i < x->nr_series; i++)
		if (utf8_eq_valid(x->series[i].function, function) &&
		    utf8_eq_valid(x->series[i].object, base))
			return &x->series[i];
	return NULL;
}

static struct metrics_series *metrics_new_series(struct metrics_exe *x,
						 const char *function,
						 const char *object,
						 bool folded)
{
	struct metrics_series *s;

	if (ARRAY_RESERVE(x->series, x->cap_series, x->nr_series + 1))
		return NULL;
	s = &x->series[x->nr_series];
	memset(s, 0, sizeof(*s));
	s->function = utf8_dup_valid(function);
	s->object = utf8_dup_valid(path_base(object));
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
		bool folded = x->nr_named >= m->max_functions;

		/* Two objects of one base name: one series. */
		if (metrics_find(x, nc[i]->name, nc[i]->object))
			continue;
		/* Not remembered past the bound: see metrics_add_window(). */
		if (folded && x->nr_series - x->nr_named >= METRICS_MAX_FOLDED)
			continue;
		if (!metrics_new_series(x, nc[i]->name, nc[i]->object, folded))
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
	s->aside_ns += f->aside_ns;
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

/* The last profile's picks, as each series of @x stands in it. */
static void metrics_picks(struct metrics_exe *x, const struct autopick *a)
{
	size_t i, k;

	for (i = 0; i < x->nr_series; i++) {
		struct metrics_series *s = &x->series[i];

		s->pick_share = 0;
		for (k = 0; k < a->nr; k++) {
			if (utf8_eq_valid(s->function, a->funcs[k].sym.name) &&
			    utf8_eq_valid(s->object,
					  path_base(a->funcs[k].sym.obj)) &&
			    a->wall_ns) {
				s->pick_share = (double)a->funcs[k].wall_ns /
						(double)a->wall_ns;
				s->ever_picked = true;
				break;
			}
		}
	}
}

int metrics_add_window(struct metrics *m, const struct window_figures *wf)
{
	struct metrics_exe *x = metrics_exe(m, wf->target->exe);
	size_t i;
	int ret;

	if (!x)
		return -ENOMEM;
	x->gone = false;
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

		/*
		 * Not admitted: a folded function past METRICS_MAX_FOLDED
		 * (no room for a series of its own), or out of memory with
		 * room, its window lost, not more.
		 */
		if (!s && x->nr_named < m->max_functions)
			continue;
		if (!s || s->folded) {
			s = &x->other;
			x->has_other = true;
		}
		metrics_count(m, s, wf, f);
	}
	/* A profile that could not pick leaves the last picks traced. */
	if (wf->target->picked && !wf->target->pick_error)
		metrics_picks(x, wf->target->picked);
	return ret;
}
