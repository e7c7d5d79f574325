// SPDX-License-Identifier: GPL-2.0
/* Figures over a sliding interval; see rates.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "top/rates.h"
#include "util/array.h"
#include "util/fifo.h"

const char *const rates_sort_names[RATES_NR_SORTS] = {
	"INTERF", "SCI", "LOSS/s", "CALLS/s", "P99",
};

struct rates_func {
	char *exe;
	char *function;
	char *object;
	size_t nr_buckets;	/* of the latest sample that had any */
	double *le_ns;
};

/* A function's totals in one sample; present false: zero. */
struct rates_total {
	bool present;
	double calls;
	double loss_ns;
	double cause_ns[NR_CAUSES];
	double observed_ns;
	double aside_ns;
	double interference_ns;
	double pick_share;
	size_t nr_buckets;	/* 0, or the function's bounds at the time */
	double *cum;
};

struct rates_sample {
	uint64_t t;
	double recorded;
	double dropped;
	size_t nr;		/* totals[] covers functions 0..nr-1 */
	size_t cap;
	struct rates_total *totals;
};

struct rates {
	uint64_t window_ns;
	struct rates_func *funcs;
	size_t nr_funcs, cap_funcs;
	/* struct rates_sample *, oldest first, at most RATES_MAX_SAMPLES. */
	struct fifo samples;
	struct rates_row *rows;
	size_t cap_rows;
};

static void sample_free(struct rates_sample *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++)
		free(s->totals[i].cum);
	free(s->totals);
	free(s);
}

struct rates *rates_new(uint64_t window_ns)
{
	struct rates *r = calloc(1, sizeof(*r));

	if (r) {
		r->window_ns = window_ns;
		fifo_init(&r->samples, sizeof(struct rates_sample *));
	}
	return r;
}

/* The @i-th sample, oldest first. */
static struct rates_sample *sample_at(const struct rates *r, size_t i)
{
	return *(struct rates_sample **)fifo_at(&r->samples, i);
}

static size_t nr_samples(const struct rates *r)
{
	return fifo_len(&r->samples);
}

void rates_free(struct rates *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < nr_samples(r); i++)
		sample_free(sample_at(r, i));
	fifo_free(&r->samples);
	for (i = 0; i < r->nr_funcs; i++) {
		free(r->funcs[i].exe);
		free(r->funcs[i].function);
		free(r->funcs[i].object);
		free(r->funcs[i].le_ns);
	}
	free(r->funcs);
	free(r->rows);
	free(r);
}

static void drop_oldest(struct rates *r)
{
	sample_free(sample_at(r, 0));
	fifo_pop(&r->samples);
}

int rates_begin(struct rates *r, uint64_t now_ns)
{
	struct rates_sample *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->t = now_ns;
	/*
	 * Keep the newest sample at least a window older than this one, as
	 * the base of the next view; anything older has no further use.
	 */
	while (nr_samples(r) >= 2 &&
	       now_ns - sample_at(r, 1)->t >= r->window_ns)
		drop_oldest(r);
	if (nr_samples(r) == RATES_MAX_SAMPLES)
		drop_oldest(r);
	if (fifo_push(&r->samples, &s)) {
		sample_free(s);
		return -ENOMEM;
	}
	return 0;
}

static long func_get(struct rates *r, const char *exe, const char *function,
		     const char *object)
{
	struct rates_func *f;
	size_t i;

	for (i = 0; i < r->nr_funcs; i++) {
		f = &r->funcs[i];
		if (!strcmp(f->function, function) && !strcmp(f->exe, exe) &&
		    !strcmp(f->object, object))
			return i;
	}
	if (ARRAY_RESERVE(r->funcs, r->cap_funcs, r->nr_funcs + 1))
		return -ENOMEM;
	f = &r->funcs[r->nr_funcs];
	memset(f, 0, sizeof(*f));
	f->exe = strdup(exe);
	f->function = strdup(function);
	f->object = strdup(object);
	if (!f->exe || !f->function || !f->object) {
		free(f->exe);
		free(f->function);
		free(f->object);
		return -ENOMEM;
	}
	return r->nr_funcs++;
}

/* New bounds make the older samples' buckets incomparable: forget them. */
static int func_set_bounds(struct rates *r, size_t id,
			   const struct rates_counts *c)
{
	struct rates_func *f = &r->funcs[id];
	double *le;
	size_t i;

	if (f->nr_buckets == c->nr_buckets &&
	    !memcmp(f->le_ns, c->le_ns, c->nr_buckets * sizeof(*le)))
		return 0;
	le = malloc(c->nr_buckets * sizeof(*le));
	if (!le)
		return -ENOMEM;
	memcpy(le, c->le_ns, c->nr_buckets * sizeof(*le));
	free(f->le_ns);
	f->le_ns = le;
	f->nr_buckets = c->nr_buckets;
	for (i = 0; i + 1 < nr_samples(r); i++) {
		struct rates_sample *s = sample_at(r, i);

		if (id < s->nr) {
			free(s->totals[id].cum);
			s->totals[id].cum = NULL;
			s->totals[id].nr_buckets = 0;
		}
	}
	return 0;
}

int rates_add(struct rates *r, const char *exe, const char *function,
	      const char *object, const struct rates_counts *c)
{
	struct rates_sample *s;
	struct rates_total *t;
	long id;

	if (!nr_samples(r))
		return -EINVAL;
	s = sample_at(r, nr_samples(r) - 1);
	id = func_get(r, exe, function, object);
	if (id < 0)
		return id;
	if ((size_t)id >= s->nr) {
		/* Totals past nr were zeroed by the growth, never written. */
		if (ARRAY_RESERVE(s->totals, s->cap, (size_t)id + 1))
			return -ENOMEM;
		s->nr = id + 1;
	}
	t = &s->totals[id];
	free(t->cum);
	memset(t, 0, sizeof(*t));
	t->present = true;
	t->calls = c->calls;
	t->loss_ns = c->loss_ns;
	memcpy(t->cause_ns, c->cause_ns, sizeof(t->cause_ns));
	t->observed_ns = c->observed_ns;
	t->aside_ns = c->aside_ns;
	t->interference_ns = c->interference_ns;
	t->pick_share = c->pick_share;
	if (c->nr_buckets && c->nr_buckets <= RATES_MAX_BUCKETS) {
		if (func_set_bounds(r, id, c))
			return -ENOMEM;
		t->cum = malloc(c->nr_buckets * sizeof(*t->cum));
		if (!t->cum)
			return -ENOMEM;
		memcpy(t->cum, c->cum, c->nr_buckets * sizeof(*t->cum));
		t->nr_buckets = c->nr_buckets;
	}
	return 0;
}

void rates_events(struct rates *r, double recorded, double dropped)
{
	struct rates_sample *s;

	if (!nr_samples(r))
		return;
	s = sample_at(r, nr_samples(r) - 1);
	s->recorded = recorded;
	s->dropped = dropped;
}

/* What a total gained since its base; from zero if it was reset. */
static double delta(double now, double base)
{
	return now >= base ? now - base : now;
}

double rates_quantile(double q, const double *le, const double *cum,
		      const double *base, size_t n)
{
	double total, rank, below = 0, lower = 0, d = 0;
	size_t i;

	if (!n)
		return NAN;
	/* One reset bucket means the whole histogram was reset. */
	for (i = 0; base && i < n; i++)
		if (cum[i] < base[i])
			base = NULL;
	total = cum[n - 1] - (base ? base[n - 1] : 0);
	if (!(total > 0))
		return NAN;
	rank = q * total;
	for (i = 0; i < n; i++) {
		d = cum[i] - (base ? base[i] : 0);
		if (d >= rank)
			break;
		below = d;
		lower = le[i];
	}
	if (i == n)
		i = n - 1;
	if (isinf(le[i]))
		return i ? le[i - 1] : NAN;
	if (d <= below)
		return le[i];
	return lower + (le[i] - lower) * (rank - below) / (d - below);
}

static const struct rates_total zero_total;

/*
 * What the interference total gained.  A live session's total is an
 * estimate made again at each sample, against a reference that more solo
 * calls can raise, so it may go down without a reset: that reads as no
 * gain.  Only a reset of the loss (a restarted source) starts it from
 * zero.  NAN: the source has no interference figure (no wait records).
 */
static double interference_delta(const struct rates_total *now,
				 const struct rates_total *base, bool reset)
{
	double d;

	if (isnan(now->interference_ns))
		return NAN;
	if (reset || !base->present || isnan(base->interference_ns))
		return now->interference_ns;
	d = now->interference_ns - base->interference_ns;
	return d > 0 ? d : 0;
}

static void row_fill(const struct rates *r, size_t id,
		     const struct rates_total *now,
		     const struct rates_total *base, double dt,
		     struct rates_row *row)
{
	const struct rates_func *f = &r->funcs[id];
	double loss = delta(now->loss_ns, base->loss_ns);
	double observed = delta(now->observed_ns, base->observed_ns);
	/* The interference figure's time leaves solo blocks out (sci.h). */
	double outside = observed - delta(now->aside_ns, base->aside_ns);
	bool reset = now->loss_ns < base->loss_ns;
	double positive = 0, best = 0;
	int k;

	row->exe = f->exe;
	row->function = f->function;
	row->object = f->object;
	row->sci = observed > 0 ? loss / observed : NAN;
	/*
	 * A source's interference total is estimated again at each sample
	 * against a reference that may move, so what it gained can include
	 * a new estimate of earlier windows' loss.  No window loses more
	 * than its time: past that is the estimate's motion, not the
	 * window's figure.
	 */
	row->interference = outside > 0 ?
			    fmin(interference_delta(now, base, reset) /
				 outside, 1.0) :
			    NAN;
	row->loss_per_s = dt > 0 ? loss / dt * 1e9 : NAN;
	row->calls_per_s = dt > 0 ?
			   delta(now->calls, base->calls) / dt * 1e9 : NAN;
	row->p99_ns = NAN;
	/* A base on other bounds (cum freed) cannot be compared with. */
	if (now->nr_buckets && dt > 0 &&
	    (!base->present || base->nr_buckets == now->nr_buckets))
		row->p99_ns = rates_quantile(0.99, f->le_ns, now->cum,
					     base->present ? base->cum : NULL,
					     now->nr_buckets);
	row->cause = -1;
	row->cause_share = 0;
	row->pick_share = now->pick_share;
	/* Causes can be negative: a share is of the parts that added loss. */
	for (k = 0; k < NR_CAUSES; k++) {
		double d = reset ? now->cause_ns[k] :
			   now->cause_ns[k] - base->cause_ns[k];

		if (d <= 0)
			continue;
		positive += d;
		if (d > best) {
			best = d;
			row->cause = k;
		}
	}
	if (row->cause >= 0)
		row->cause_share = best / positive;
}

static double sort_value(const struct rates_row *row, enum rates_sort sort)
{
	switch (sort) {
	case RATES_BY_LOSS:
		return row->loss_per_s;
	case RATES_BY_CALLS:
		return row->calls_per_s;
	case RATES_BY_P99:
		return row->p99_ns;
	case RATES_BY_SCI:
		return row->sci;
	case RATES_BY_INTERF:
	default:
		return row->interference;
	}
}

static int cmp_row(const void *pa, const void *pb, void *ctx)
{
	const struct rates_row *a = pa, *b = pb;
	enum rates_sort sort = *(const enum rates_sort *)ctx;
	double x = sort_value(a, sort), y = sort_value(b, sort);
	int c;

	if (isnan(x) != isnan(y))
		return isnan(x) ? 1 : -1;
	if (!isnan(x) && x != y)
		return x > y ? -1 : 1;
	c = strcmp(a->function, b->function);
	if (c)
		return c;
	c = strcmp(a->exe, b->exe);
	return c ? c : strcmp(a->object, b->object);
}

void rates_sort_rows(struct rates_row *rows, size_t n, enum rates_sort sort)
{
	qsort_r(rows, n, sizeof(*rows), cmp_row, &sort);
}

int rates_view(struct rates *r, enum rates_sort sort, struct rates_view *v)
{
	const struct rates_sample *last, *base;
	struct rates_row *rows;
	double dt;
	size_t i, n = 0;

	memset(v, 0, sizeof(*v));
	if (!nr_samples(r))
		return 0;
	last = sample_at(r, nr_samples(r) - 1);
	/* rates_begin() kept just what the window needs: base it on the
	 * oldest. */
	base = sample_at(r, 0);
	dt = last == base ? 0 : (double)(last->t - base->t);
	if (ARRAY_RESERVE(r->rows, r->cap_rows, last->nr + 1))
		return -ENOMEM;
	rows = r->rows;
	for (i = 0; i < last->nr; i++) {
		const struct rates_total *b = i < base->nr &&
					      base != last ?
					      &base->totals[i] : &zero_total;

		if (!last->totals[i].present)
			continue;
		if (base == last)
			b = &last->totals[i];
		row_fill(r, i, &last->totals[i], b, dt, &rows[n++]);
	}
	rates_sort_rows(rows, n, sort);
	v->rows = rows;
	v->nr_rows = n;
	v->span_ns = dt;
	v->dropped = last->dropped;
	if (dt > 0) {
		v->events_per_s = delta(last->recorded, base->recorded) /
				  dt * 1e9;
		v->dropped_per_s = delta(last->dropped, base->dropped) /
				   dt * 1e9;
	}
	return 0;
}
