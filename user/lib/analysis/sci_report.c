// SPDX-License-Identifier: GPL-2.0
/*
 * The SCI engine's reports (sci.h, "Reports"): per function, key and
 * thread, the scores of what sci.c recorded, folded threads included.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sci_internal.h"

static int cmp_score(const void *pa, const void *pb)
{
	const struct sci_thread_score *a = pa, *b = pb;

	if (a->sci != b->sci)
		return a->sci > b->sci ? -1 : 1;
	if (a->loss_ns != b->loss_ns)
		return a->loss_ns > b->loss_ns ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static int cmp_result(const void *pa, const void *pb)
{
	const struct sci_result *a = pa, *b = pb;

	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	if (a->sci != b->sci)
		return a->sci > b->sci ? -1 : 1;
	if (a->loss_ns != b->loss_ns)
		return a->loss_ns > b->loss_ns ? -1 : 1;
	if (a->func_id != b->func_id)
		return a->func_id < b->func_id ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

static int cmp_life(const void *pa, const void *pb)
{
	const struct sci_thread_life *a = pa, *b = pb;

	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Block indices sorted by (func_id, key), and (function, thread) pairs. */
struct sort_ctx_item {
	uint32_t a;
	uint32_t b;
	uint64_t c;
	size_t idx;
};

static int cmp_item(const void *pa, const void *pb)
{
	const struct sort_ctx_item *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return x->c < y->c ? -1 : x->c > y->c;
}

/* Split a block's loss by cause, as defined in sci.h. */
static void block_causes(const struct sci_block *b, uint64_t loss,
			 struct sci_result *res)
{
	int64_t r[SCI_NR_CAUSES], known = 0;
	int k;

	res->caused_calls = b->n_caused;
	if (!b->n_caused) {
		res->unknown_loss_ns = (int64_t)loss;
		return;
	}
	for (k = 0; k < SCI_NR_CAUSES; k++) {
		if (b->ref_dur == b->min)
			r[k] = (int64_t)b->ref_cause[k];
		else	/* ref_dur > min > 0 here, so no division by zero */
			r[k] = llround((double)b->ref_cause[k] *
				       ((double)b->min / (double)b->ref_dur));
		res->cause_loss_ns[k] = (int64_t)b->cause_sum[k] -
					(int64_t)b->n_caused * r[k];
		known += res->cause_loss_ns[k];
	}
	res->unknown_loss_ns = (int64_t)loss - known;
}

/* The result's shares of its threads' lifetimes, and its rank. */
static void result_ratios(struct sci_result *res)
{
	double life = (double)res->lifetime_ns;
	/* Interference: of the time no solo block admitted (sci.h). */
	double outside = res->aside_ns < res->lifetime_ns ?
			 (double)(res->lifetime_ns - res->aside_ns) : 0.0;

	res->sci = life ? (double)res->loss_ns / life : 0.0;
	res->interference = outside ?
			    (double)res->interf.loss_ns / outside : 0.0;
	res->interference_bound = outside ?
				  (double)res->interf.bound_ns / outside : 0.0;
	res->rank = !res->has_interference ? res->sci :
		    res->interf.ref == INTERF_REF_NONE ?
		    res->interference_bound : res->interference;
}

static void score_fill(struct sci_thread_score *s, uint32_t tid,
		       uint64_t lifetime, uint64_t aside)
{
	s->tid = tid;
	s->lifetime_ns = lifetime;
	s->aside_ns = aside;
	s->sci = lifetime ? (double)s->loss_ns / (double)lifetime : 0.0;
}

/* Sort a result's thread scores and take the worst and the lifetimes. */
static void result_threads(struct sci_report *r, struct sci_result *res)
{
	struct sci_thread_score *s = &r->scores[res->first_score];
	uint32_t i;

	qsort(s, res->nr_scores, sizeof(*s), cmp_score);
	res->lifetime_ns = 0;
	res->aside_ns = 0;
	for (i = 0; i < res->nr_scores; i++) {
		res->lifetime_ns += s[i].lifetime_ns;
		res->aside_ns += s[i].aside_ns;
	}
	result_ratios(res);
	if (res->nr_scores) {
		res->sci_worst_thread = s[0].sci;
		res->worst_tid = s[0].tid;
		res->worst_loss_ns = s[0].loss_ns;
	}
	res->threads = res->nr_scores;
}

/* Add what folded threads left of the result's thread scores. */
static void result_fold(struct sci_result *res, const struct sci_folded *f)
{
	if (!f || !f->threads)
		return;
	if (!res->nr_scores || f->worst_sci > res->sci_worst_thread) {
		res->sci_worst_thread = f->worst_sci;
		res->worst_tid = f->worst_tid;
		res->worst_loss_ns = f->worst_loss;
	}
	res->threads += f->threads;
	res->lifetime_ns += f->lifetime;
	res->aside_ns += f->aside;
	result_ratios(res);
}

/* Add block @b, whose result is @br, into function result @f. */
static void func_add_block(struct sci_result *f, const struct sci_block *b,
			   const struct sci_result *br, struct hist *h)
{
	size_t k;

	f->nr_keys++;
	f->calls += sci_block_calls(b);
	f->sum_ns += sci_block_sum(b);
	f->loss_ns += br->loss_ns;
	if (b->min < f->min_ns)
		f->min_ns = b->min;
	if (sci_block_max(b) > f->max_ns)
		f->max_ns = sci_block_max(b);
	f->caused_calls += b->n_caused;
	for (k = 0; k < SCI_NR_CAUSES; k++)
		f->cause_loss_ns[k] += br->cause_loss_ns[k];
	f->unknown_loss_ns += br->unknown_loss_ns;
	f->has_interference |= br->has_interference;
	interf_estimate_add(&f->interf, &br->interf);
	hist_merge(h, &b->hist);
}

/*
 * One result per function: walk the blocks in (func, key) order, leaving
 * out blocks that were only seeded (sci_seed()).  The block results are
 * not sorted yet: result i is still block i's.
 */
static void funcs_from_blocks(const struct sci_engine *e,
			      struct sci_report *r,
			      struct sort_ctx_item *items, struct hist *h)
{
	size_t i, j, nf = 0, nb = 0;

	for (i = 0; i < e->nr_blocks; i++) {
		if (!sci_block_calls(e->blocks[i]))
			continue;
		items[nb].a = e->blocks[i]->id.func_id;
		items[nb].c = e->blocks[i]->id.key;
		items[nb++].idx = i;
	}
	qsort(items, nb, sizeof(*items), cmp_item);
	for (i = 0; i < nb; i = j) {
		struct sci_result *f = &r->funcs[nf++];

		memset(f, 0, sizeof(*f));
		f->func_id = items[i].a;
		f->min_ns = UINT64_MAX;
		hist_init(h);
		for (j = i; j < nb && items[j].a == items[i].a; j++)
			func_add_block(f, e->blocks[items[j].idx],
				       &r->blocks[items[j].idx], h);
		if (f->min_ns == UINT64_MAX)
			f->min_ns = 0;
		f->mean_ns = f->calls ? (double)f->sum_ns / f->calls : 0.0;
		f->p50_ns = hist_percentile(h, 50);
		f->p99_ns = hist_percentile(h, 99);
	}
	r->nr_funcs = nf;
}

/* Add (block, thread) pair @bt into the function's thread score @s. */
static void score_add_pair(const struct sci_engine *e,
			   struct sci_thread_score *s, const struct sci_bt *bt)
{
	const struct sci_block *b = e->blocks[bt->block];

	s->calls += bt->n;
	s->sum_ns += bt->sum;
	s->loss_ns += bt->sum - bt->n * b->min;
	if (bt->min < s->min_ns)
		s->min_ns = bt->min;
	if (bt->max > s->max_ns)
		s->max_ns = bt->max;
}

/*
 * Then one score per (function, thread), summing over keys, from slot
 * @nscores of r->scores on.
 */
static void funcs_thread_scores(const struct sci_engine *e,
				struct sci_report *r,
				struct sort_ctx_item *items,
				const uint64_t *life, const uint64_t *aside,
				size_t nscores)
{
	size_t i, j, nf = 0, np = 0;

	for (i = 0; i < e->nr_bts; i++) {
		if (e->bts[i].block == SCI_FREE_PAIR)
			continue;
		items[np].a = e->blocks[e->bts[i].block]->id.func_id;
		items[np].b = e->threads[e->bts[i].thread].tid;
		items[np].c = 0;
		items[np++].idx = i;
	}
	qsort(items, np, sizeof(*items), cmp_item);
	for (i = 0; i < np; i = j) {
		struct sci_thread_score *s = &r->scores[nscores];
		struct sci_result *f;
		uint32_t thread = e->bts[items[i].idx].thread;

		while (r->funcs[nf].func_id != items[i].a)
			nf++;
		f = &r->funcs[nf];
		if (!f->nr_scores)
			f->first_score = nscores;
		f->nr_scores++;
		memset(s, 0, sizeof(*s));
		s->min_ns = UINT64_MAX;
		for (j = i; j < np && items[j].a == items[i].a &&
			    items[j].b == items[i].b; j++)
			score_add_pair(e, s, &e->bts[items[j].idx]);
		score_fill(s, items[i].b, life[thread], aside[thread]);
		nscores++;
	}
}

static int report_funcs(const struct sci_engine *e, struct sci_report *r,
			const uint64_t *life, const uint64_t *aside,
			size_t nscores)
{
	size_t i, n = e->nr_bts > e->nr_blocks ? e->nr_bts : e->nr_blocks;
	struct sort_ctx_item *items = calloc(n ? n : 1, sizeof(*items));
	struct hist *h = malloc(sizeof(*h));

	if (!items || !h) {
		free(items);
		free(h);
		return -ENOMEM;
	}
	funcs_from_blocks(e, r, items, h);
	funcs_thread_scores(e, r, items, life, aside, nscores);
	for (i = 0; i < r->nr_funcs; i++) {
		struct sci_result *f = &r->funcs[i];

		result_threads(r, f);
		result_fold(f, f->func_id < e->nr_func_fold ?
			       &e->func_fold[f->func_id] : NULL);
	}
	free(items);
	free(h);
	return 0;
}

/*
 * Every live thread's lifetime as of @now, into @life by thread slot, and
 * the part of it solo blocks admitted into @aside.
 */
static void report_threads(const struct sci_engine *e, struct sci_report *r,
			   uint64_t now, uint64_t *life, uint64_t *aside)
{
	size_t i, n = 0;

	r->total_lifetime_ns = e->folded_lifetime;
	for (i = 0; i < e->nr_threads; i++) {
		const struct sci_thread *t = &e->threads[i];
		struct sci_thread_life *l = &r->threads[n];

		if (t->free)
			continue;
		n++;
		life[i] = sci_thread_lifetime(e, t, now);
		aside[i] = sci_thread_aside(e, t, now);
		l->tid = t->tid;
		l->first_ns = t->first;
		l->exited = !t->open;
		l->last_ns = t->open ? (now > t->last ? now : t->last) :
			     t->exit;
		l->lifetime_ns = life[i];
		r->total_lifetime_ns += life[i];
	}
	qsort(r->threads, r->nr_threads, sizeof(*r->threads), cmp_life);
}

/* Block results, with a slot range in scores for each (@pos: its start). */
static size_t report_blocks(const struct sci_engine *e, struct sci_report *r,
			    size_t *pos)
{
	size_t i, nscores = 0;

	for (i = 0; i < e->nr_blocks; i++) {
		const struct sci_block *b = e->blocks[i];
		struct sci_result *res = &r->blocks[i];

		res->func_id = b->id.func_id;
		res->key = b->id.key;
		res->nr_keys = 1;
		res->calls = sci_block_calls(b);
		res->nr_scores = b->nr_threads;
		/*
		 * No calls: a block seeded from an earlier window that has
		 * not run in this one, or whose pair failed on first use.
		 */
		res->min_ns = res->calls ? b->min : 0;
		res->p50_ns = hist_percentile(&b->hist, 50);
		res->p99_ns = hist_percentile(&b->hist, 99);
		res->max_ns = sci_block_max(b);
		res->sum_ns = sci_block_sum(b);
		res->mean_ns = res->calls ?
			       (double)res->sum_ns / res->calls : 0.0;
		res->loss_ns = res->sum_ns - res->calls * res->min_ns;
		block_causes(b, res->loss_ns, res);
		interf_estimate(&b->interf, &res->interf);
		res->has_interference = res->interf.calls != 0;
		res->first_score = pos[i] = nscores;
		nscores += b->nr_threads;
	}
	return nscores;
}

/* Each block's thread scores into its slots; @pos moves past them. */
static void report_block_scores(const struct sci_engine *e,
				struct sci_report *r, size_t *pos,
				const uint64_t *life, const uint64_t *aside)
{
	size_t i;

	for (i = 0; i < e->nr_bts; i++) {
		const struct sci_bt *bt = &e->bts[i];
		struct sci_thread_score *s;

		if (bt->block == SCI_FREE_PAIR)
			continue;
		s = &r->scores[pos[bt->block]++];
		s->calls = bt->n;
		s->sum_ns = bt->sum;
		s->min_ns = bt->min;
		s->max_ns = bt->max;
		s->loss_ns = bt->sum - bt->n * e->blocks[bt->block]->min;
		score_fill(s, e->threads[bt->thread].tid, life[bt->thread],
			   aside[bt->thread]);
	}
	for (i = 0; i < e->nr_blocks; i++) {
		result_threads(r, &r->blocks[i]);
		result_fold(&r->blocks[i], &e->blocks[i]->fold);
	}
}

/*
 * Sort blocks and functions by rank; seeded blocks that ran no execution
 * are not part of the report.
 */
static void report_sort(struct sci_report *r)
{
	size_t i, n = 0;

	qsort(r->blocks, r->nr_blocks, sizeof(*r->blocks), cmp_result);
	qsort(r->funcs, r->nr_funcs, sizeof(*r->funcs), cmp_result);
	for (i = 0; i < r->nr_blocks; i++)
		if (r->blocks[i].calls)
			r->blocks[n++] = r->blocks[i];
	r->nr_blocks = n;
}

static struct sci_report *report_alloc(const struct sci_engine *e,
				       uint64_t now)
{
	struct sci_report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->now_ns = now;
	r->events = e->events;
	r->nr_blocks = e->nr_blocks;
	r->nr_threads = e->nr_threads - e->nr_free_threads;
	r->folded_threads = e->folded_threads;
	/* +1: calloc(0) may return NULL, which would read as a failure. */
	r->blocks = calloc(e->nr_blocks + 1, sizeof(*r->blocks));
	r->funcs = calloc(e->nr_blocks + 1, sizeof(*r->funcs));
	r->scores = calloc(2 * e->nr_bts + 1, sizeof(*r->scores));
	r->threads = calloc(e->nr_threads + 1, sizeof(*r->threads));
	if (!r->blocks || !r->funcs || !r->scores || !r->threads) {
		sci_report_free(r);
		return NULL;
	}
	return r;
}

struct sci_report *sci_report(const struct sci_engine *e, uint64_t now)
{
	struct sci_report *r;
	uint64_t *life, *aside;
	size_t *pos, nscores;

	if (!now)
		now = e->last_ts;
	r = report_alloc(e, now);
	life = calloc(e->nr_threads + 1, sizeof(*life));
	aside = calloc(e->nr_threads + 1, sizeof(*aside));
	pos = calloc(e->nr_blocks + 1, sizeof(*pos));
	if (!r || !life || !aside || !pos)
		goto fail;
	report_threads(e, r, now, life, aside);
	nscores = report_blocks(e, r, pos);
	report_block_scores(e, r, pos, life, aside);
	/* Functions read the block results, so build them before sorting. */
	if (report_funcs(e, r, life, aside, nscores))
		goto fail;
	report_sort(r);
	free(life);
	free(aside);
	free(pos);
	return r;
fail:
	free(life);
	free(aside);
	free(pos);
	sci_report_free(r);
	return NULL;
}

void sci_report_free(struct sci_report *r)
{
	if (!r)
		return;
	free(r->blocks);
	free(r->funcs);
	free(r->scores);
	free(r->threads);
	free(r);
}

const struct sci_result *sci_report_block(const struct sci_report *r,
					  uint32_t func_id, uint64_t key)
{
	size_t i;

	for (i = 0; i < r->nr_blocks; i++)
		if (r->blocks[i].func_id == func_id && r->blocks[i].key == key)
			return &r->blocks[i];
	return NULL;
}

const struct sci_result *sci_report_func(const struct sci_report *r,
					 uint32_t func_id)
{
	size_t i;

	for (i = 0; i < r->nr_funcs; i++)
		if (r->funcs[i].func_id == func_id)
			return &r->funcs[i];
	return NULL;
}

const struct sci_thread_score *
sci_result_thread(const struct sci_report *r, const struct sci_result *res,
		  uint32_t tid)
{
	uint32_t i;

	for (i = 0; i < res->nr_scores; i++)
		if (r->scores[res->first_score + i].tid == tid)
			return &r->scores[res->first_score + i];
	return NULL;
}

double sci_ideal_gain(const uint64_t *d, size_t n, uint64_t thread_ns)
{
	uint64_t sum = 0, min = UINT64_MAX;
	size_t i;

	if (!n || !thread_ns)
		return 0.0;
	for (i = 0; i < n; i++) {
		sum += d[i];
		if (d[i] < min)
			min = d[i];
	}
	return (double)(sum - n * min) / (double)thread_ns;
}
