// SPDX-License-Identifier: GPL-2.0
/* On-CPU excess from counter deltas; see excess.h. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/excess.h"
#include "util/hashmap.h"

/* What names a block: the map's keys point to these. */
struct excess_block_id {
	uint32_t func_id;
	uint64_t key;
};

struct excess_block {
	struct excess_block_id id;
	uint64_t calls;
	uint32_t nr_counters;
	/* [counter][bucket]: valid executions and their summed deltas. */
	uint64_t n[ISPOT_MAX_COUNTERS][EXCESS_BUCKETS];
	uint64_t sum[ISPOT_MAX_COUNTERS][EXCESS_BUCKETS];
};

struct excess {
	struct hashmap blocks;		/* &block->id -> block */
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

/*
 * Fibonacci hashing of the pair, its high half.  The map walks its slots
 * in order for a function's figures, which sum floating-point numbers in
 * that order: this hash keeps the order (and so the figures to the last
 * bit) what it has always been.
 */
static size_t excess_hash(uint64_t key, const void *ctx)
{
	const struct excess_block_id *id = (const void *)(uintptr_t)key;

	(void)ctx;
	return (size_t)(((id->key ^ ((uint64_t)id->func_id << 40)) *
			 0x9e3779b97f4a7c15ull) >> 32);
}

static bool excess_equal(uint64_t stored, uint64_t key, const void *ctx)
{
	const struct excess_block_id *a = (const void *)(uintptr_t)stored;
	const struct excess_block_id *b = (const void *)(uintptr_t)key;

	(void)ctx;
	return a->func_id == b->func_id && a->key == b->key;
}

struct excess *excess_new(void)
{
	struct excess *x = calloc(1, sizeof(*x));

	if (x)
		hashmap_init(&x->blocks, excess_hash, excess_equal, NULL);
	return x;
}

void excess_free(struct excess *x)
{
	const struct hashmap_entry *e;
	size_t pos;

	if (!x)
		return;
	hashmap_for_each(&x->blocks, e, pos)
		free((void *)(uintptr_t)e->value);
	hashmap_free(&x->blocks);
	free(x);
}

/* Block (@func_id, @key), made on first sight; NULL without memory. */
static struct excess_block *excess_block(struct excess *x, uint32_t func_id,
					 uint64_t key)
{
	struct excess_block_id id = { .func_id = func_id, .key = key };
	struct excess_block *b = hashmap_find_ptr(&x->blocks, (uintptr_t)&id);

	if (b)
		return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->id = id;
	if (hashmap_insert(&x->blocks, (uintptr_t)&b->id, (uintptr_t)b)) {
		free(b);
		return NULL;
	}
	return b;
}

int excess_add(struct excess *x, uint32_t func_id, uint64_t key,
	       const struct pair_exec *e)
{
	unsigned int bucket = excess_bucket(e->exit_ts - e->entry_ts);
	struct excess_block *b;
	uint32_t c;

	if (!e->nr_counters)
		return 0;
	b = excess_block(x, func_id, key);
	if (!b)
		return -ENOMEM;
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
	const struct hashmap_entry *e;
	bool found = false;
	size_t pos;
	uint32_t c;

	memset(out, 0, sizeof(*out));
	hashmap_for_each(&x->blocks, e, pos) {
		const struct excess_block *b;

		b = (const void *)(uintptr_t)e->value;

		if (b->id.func_id != func_id || (!all_keys && b->id.key != key))
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
