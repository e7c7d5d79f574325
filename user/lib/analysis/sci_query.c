// SPDX-License-Identifier: GPL-2.0
/*
 * What the SCI engine holds, for its readers: its sizes and counts, the
 * histograms, the open threads, the minima a next engine is seeded with;
 * recording is sci.c's, the scores sci_report.c's.
 */
#include <string.h>

#include "analysis/sci_internal.h"

void sci_func_hist(const struct sci_engine *e, uint32_t func_id,
		   struct hist *out)
{
	size_t i;

	hist_init(out);
	for (i = 0; i < e->nr_blocks; i++)
		if (e->blocks[i]->id.func_id == func_id)
			hist_merge(out, &e->blocks[i]->hist);
}

const struct hist *sci_block_hist(const struct sci_engine *e,
				  uint32_t func_id, uint64_t key)
{
	size_t i;

	for (i = 0; i < e->nr_blocks; i++)
		if (e->blocks[i]->id.func_id == func_id &&
		    e->blocks[i]->id.key == key)
			return &e->blocks[i]->hist;
	return NULL;
}

size_t sci_nr_blocks(const struct sci_engine *e)
{
	return e->nr_blocks;
}

size_t sci_nr_threads(const struct sci_engine *e)
{
	return e->nr_threads - e->nr_free_threads;
}

size_t sci_nr_block_threads(const struct sci_engine *e)
{
	return e->nr_bts - e->nr_free_bts;
}

uint64_t sci_nr_folded_threads(const struct sci_engine *e)
{
	return e->folded_threads;
}

const uint64_t *sci_folds(const struct sci_engine *e)
{
	return &e->folded_threads;
}

uint64_t sci_nr_events(const struct sci_engine *e)
{
	return e->events;
}

size_t sci_mem_bytes(const struct sci_engine *e)
{
	return e->mem + hashmap_mem_bytes(&e->block_map) +
	       hashmap_mem_bytes(&e->thread_map) +
	       hashmap_mem_bytes(&e->bt_map);
}

size_t sci_hot_slots(const struct sci_engine *e)
{
	return (size_t)1 << e->hot_bits;
}

uint64_t sci_last_ts(const struct sci_engine *e)
{
	return e->last_ts;
}

uint64_t sci_longest_mean(const struct sci_engine *e)
{
	uint64_t mean, longest = 0;
	size_t i;

	for (i = 0; i < e->nr_blocks; i++) {
		const struct sci_block *b = e->blocks[i];

		if (!sci_block_calls(b))
			continue;
		mean = sci_block_sum(b) / sci_block_calls(b);
		if (mean > longest)
			longest = mean;
	}
	return longest;
}

void sci_each_open_thread(const struct sci_engine *e,
			  void (*fn)(void *ctx, uint32_t tid, uint64_t last),
			  void *ctx)
{
	size_t i;

	for (i = 0; i < e->nr_threads; i++)
		if (!e->threads[i].free && e->threads[i].open)
			fn(ctx, e->threads[i].tid, e->threads[i].last);
}

void sci_minima(const struct sci_engine *e, struct sci_block_min *out)
{
	size_t i;

	for (i = 0; i < e->nr_blocks; i++) {
		const struct sci_block *b = e->blocks[i];

		out[i].func_id = b->id.func_id;
		out[i].key = b->id.key;
		/*
		 * An engine that took no call (no burst) ages nothing; one
		 * whose calls the bound refused does, or a full engine of
		 * seeds would never make room.
		 */
		out[i].idle_windows = sci_block_calls(b) ? 0 : b->idle_windows +
				      !!(e->events || e->unscored);
		out[i].min = b->min;
		out[i].ref_dur = b->ref_dur;
		memcpy(out[i].ref_cause, b->ref_cause, sizeof(b->ref_cause));
		interf_seed_out(&b->interf, &out[i].solo);
	}
}

bool sci_thread_is_open(const struct sci_engine *e, uint32_t tid)
{
	long t = sci_thread_index(e, tid);

	return t >= 0 && e->threads[t].open;
}
