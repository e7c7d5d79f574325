// SPDX-License-Identifier: GPL-2.0
/*
 * Folding the SCI engine's closed threads into what their blocks and
 * functions keep of folded threads, so that memory follows the live
 * threads (sci.h, "Folding").
 */
#include <errno.h>
#include <stdlib.h>

#include "analysis/sci_internal.h"

static void fold_add(struct sci_folded *f, uint32_t tid, uint64_t lifetime,
		     uint64_t aside, uint64_t loss)
{
	double sci = lifetime ? (double)loss / (double)lifetime : 0.0;

	if (!f->threads || sci > f->worst_sci) {
		f->worst_sci = sci;
		f->worst_tid = tid;
		f->worst_loss = loss;
	}
	f->threads++;
	f->lifetime += lifetime;
	f->aside += aside;
}

/* Room in func_fold for every function the thread ran; 0 or -ENOMEM. */
static int fold_reserve(struct sci_engine *e, const struct sci_thread *t)
{
	uint32_t bi, top = 0;

	for (bi = t->pairs; bi; bi = e->bts[bi - 1].next) {
		uint32_t f = e->blocks[e->bts[bi - 1].block]->id.func_id;

		if (f + 1 > top)
			top = f + 1;
	}
	return sci_reserve(e, &e->func_fold, &e->nr_func_fold, top,
			   sizeof(*e->func_fold));
}

static uint64_t pair_loss(const struct sci_engine *e, const struct sci_bt *bt)
{
	return bt->sum - bt->n * e->blocks[bt->block]->min;
}

/* Fold closed thread @ti into its blocks and functions, then free it. */
static int fold_thread(struct sci_engine *e, size_t ti)
{
	struct sci_thread *t = &e->threads[ti];
	uint64_t life = sci_thread_lifetime(e, t, 0);	/* closed */
	uint64_t aside = sci_thread_aside(e, t, 0);
	uint32_t bi, bj, next;

	if (fold_reserve(e, t))
		return -ENOMEM;
	for (bi = t->pairs; bi; bi = e->bts[bi - 1].next) {
		struct sci_bt *bt = &e->bts[bi - 1];
		struct sci_block *b = e->blocks[bt->block];
		uint64_t floss = 0;

		fold_add(&b->fold, t->tid, life, aside, pair_loss(e, bt));
		/* A function once per thread, at its first pair in the list. */
		for (bj = t->pairs; bj != bi; bj = e->bts[bj - 1].next)
			if (e->blocks[e->bts[bj - 1].block]->id.func_id ==
			    b->id.func_id)
				break;
		if (bj != bi)
			continue;
		for (bj = bi; bj; bj = e->bts[bj - 1].next)
			if (e->blocks[e->bts[bj - 1].block]->id.func_id ==
			    b->id.func_id)
				floss += pair_loss(e, &e->bts[bj - 1]);
		fold_add(&e->func_fold[b->id.func_id], t->tid, life, aside,
			 floss);
	}
	for (bi = t->pairs; bi; bi = next) {
		struct sci_bt *bt = &e->bts[bi - 1];
		struct sci_block *b = e->blocks[bt->block];
		struct sci_hot *hot = sci_hot_slot(e, b->id.func_id, b->id.key,
						    ti);
		unsigned int w;

		next = bt->next;
		for (w = 0; w < SCI_HOT_WAYS; w++)
			if (hot[w].bt == bi)
				hot[w].bt = 0;
		hashmap_delete(&e->bt_map, sci_bt_key(bt->block, bt->thread),
			       NULL);
		b->nr_threads--;
		bt->block = SCI_FREE_PAIR;
		bt->next = e->free_bts;
		e->free_bts = bi;
		e->nr_free_bts++;
	}
	hashmap_delete(&e->thread_map, t->tid, NULL);
	e->folded_threads++;
	e->folded_lifetime += life;
	t->free = true;
	t->pairs = 0;
	t->next_free = e->free_threads;
	e->free_threads = ti + 1;
	e->nr_free_threads++;
	return 0;
}

int sci_fold_thread(struct sci_engine *e, uint32_t tid, uint64_t exit_ts)
{
	long ti = sci_thread_index(e, tid);
	int ret;

	if (ti < 0 || e->threads[ti].open || !exit_ts ||
	    e->threads[ti].exit_given != exit_ts)
		return 0;
	ret = fold_thread(e, ti);
	return ret ? ret : 1;
}

long sci_fold_closed(struct sci_engine *e)
{
	size_t i;
	long n = 0;

	for (i = 0; i < e->nr_threads; i++) {
		if (e->threads[i].free || e->threads[i].open)
			continue;
		if (fold_thread(e, i))
			return -ENOMEM;
		n++;
	}
	return n;
}
