// SPDX-License-Identifier: GPL-2.0
/* On-CPU excess from counter deltas; see excess.h. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/excess.h"

struct excess_block {
	uint32_t func_id;
	uint64_t key;
	uint64_t calls;
	uint32_t nr_counters;
	/* [counter][bucket]: valid executions and their summed deltas. */
	uint64_t n[ISPOT_MAX_COUNTERS][EXCESS_BUCKETS];
	uint64_t sum[ISPOT_MAX_COUNTERS][EXCESS_BUCKETS];
};

struct excess {
	struct excess_block **blocks;	/* open addressing */
	size_t cap;			/* power of two */
	size_t used;
};

unsigned int excess_bucket(uint64_t ns)
{
	unsigned int e;

	if (ns < 2 * EXCESS_SUB)
		return ns;	/* exact, and below every octave's index */
	e = 63 - __builtin_clzll(ns);
	return e * EXCESS_SUB +
	       ((ns >> (e - EXCESS_SUB_BITS)) & (EXCESS_SUB - 1));
}

struct excess *excess_new(void)
{
	struct excess *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->cap = 16;
	x->blocks = calloc(x->cap, sizeof(*x->blocks));
	if (!x->blocks) {
		free(x);
		return NULL;
	}
	return x;
}

void excess_free(struct excess *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->cap; i++)
		free(x->blocks[i]);
	free(x->blocks);
	free(x);
}

static size_t excess_slot(const struct excess *x, uint32_t func_id,
			  uint64_t key)
{
	uint64_t h = (key ^ ((uint64_t)func_id << 40)) * 0x9e3779b97f4a7c15ull;
	size_t i = (h >> 32) & (x->cap - 1);

	while (x->blocks[i] && (x->blocks[i]->func_id != func_id ||
				x->blocks[i]->key != key))
		i = (i + 1) & (x->cap - 1);
	return i;
}

static int excess_grow(struct excess *x)
{
	struct excess_block **old = x->blocks;
	size_t i, oldcap = x->cap;

	x->blocks = calloc(oldcap * 2, sizeof(*x->blocks));
	if (!x->blocks) {
		x->blocks = old;
		return -ENOMEM;
	}
	x->cap = oldcap * 2;
	for (i = 0; i < oldcap; i++)
		if (old[i])
			x->blocks[excess_slot(x, old[i]->func_id,
					      old[i]->key)] = old[i];
	free(old);
	return 0;
}

int excess_add(struct excess *x, uint32_t func_id, uint64_t key,
	       const struct pair_exec *e)
{
	unsigned int bucket = excess_bucket(e->exit_ts - e->entry_ts);
	size_t i = excess_slot(x, func_id, key);
	struct excess_block *b = x->blocks[i];
	uint32_t c;

	if (!e->nr_counters)
		return 0;
	if (!b) {
		if ((x->used + 1) * 2 > x->cap) {
			if (excess_grow(x))
				return -ENOMEM;
			i = excess_slot(x, func_id, key);
		}
		b = calloc(1, sizeof(*b));
		if (!b)
			return -ENOMEM;
		b->func_id = func_id;
		b->key = key;
		x->blocks[i] = b;
		x->used++;
	}
	b->calls++;
	if (e->nr_counters > b->nr_counters)
		b->nr_counters = e->nr_counters;
	for (c = 0; c < e->nr_counters; c++) {
		if (!(e->counters_valid & (1u << c)))
			continue;
		b->n[c][bucket]++;
		b->sum[c][bucket] += e->counter_delta[c];
	}
	return 0;
}

/* Add block @b's counter @c to @out: sums, and the weighted baseline. */
static void excess_block_counter(const struct excess_block *b, uint32_t c,
				 struct excess_counter *out, double *sum,
				 double *base_sum)
{
	uint64_t valid = 0, n = 0, s = 0, want;
	unsigned int k;

	for (k = 0; k < EXCESS_BUCKETS; k++) {
		valid += b->n[c][k];
		*sum += (double)b->sum[c][k];
	}
	if (!valid)
		return;
	/* At least the share: 2 of 15 calls, not 1 (6.7%). */
	want = (uint64_t)ceil(valid * EXCESS_FASTEST_SHARE - 1e-9);
	if (!want)
		want = 1;
	for (k = 0; k < EXCESS_BUCKETS && n < want; k++) {
		n += b->n[c][k];
		s += b->sum[c][k];
	}
	out->valid_calls += valid;
	out->fastest_calls += n;
	/*
	 * This block's valid executions, each against its own baseline;
	 * its exact sum when the fastest are all of them, so that a block
	 * without excess adds 0 to the excess, not a rounding error.
	 */
	*base_sum += n == valid ? (double)s :
		     (double)valid * ((double)s / (double)n);
}

int excess_result(const struct excess *x, uint32_t func_id, uint64_t key,
		  bool all_keys, struct excess_result *out)
{
	double sum[ISPOT_MAX_COUNTERS] = { 0 }, base[ISPOT_MAX_COUNTERS] = { 0 };
	bool found = false;
	size_t i;
	uint32_t c;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < x->cap; i++) {
		const struct excess_block *b = x->blocks[i];

		if (!b || b->func_id != func_id || (!all_keys && b->key != key))
			continue;
		found = true;
		out->calls += b->calls;
		if (b->nr_counters > out->nr_counters)
			out->nr_counters = b->nr_counters;
		for (c = 0; c < b->nr_counters; c++)
			excess_block_counter(b, c, &out->c[c], &sum[c],
					     &base[c]);
	}
	for (c = 0; c < out->nr_counters; c++) {
		struct excess_counter *o = &out->c[c];

		if (!o->valid_calls)
			continue;
		o->mean = sum[c] / (double)o->valid_calls;
		o->fastest_mean = base[c] / (double)o->valid_calls;
	}
	return found ? 0 : -ENOENT;
}
