// SPDX-License-Identifier: GPL-2.0
/*
 * The SCI engine: executions and thread lifetimes in; the definitions
 * are in sci.h, the scores sci_report.c's, folding sci_fold.c's, what
 * else it is asked sci_query.c's.
 *
 * Three dense arrays (blocks, threads, (block, thread) pairs), each with
 * a hash map of its keys to indices (util/hashmap.h), so a lookup is O(1)
 * expected and nothing is allocated per event: only a new block, thread
 * or pair, or a doubling, allocates.  Folding a thread away deletes its
 * thread and pairs from the maps and puts their slots of the dense arrays
 * on free lists that the next new thread and pairs take.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/hash.h"
#include "analysis/sci_internal.h"

static size_t block_hash(uint64_t key, const void *ctx)
{
	const struct sci_block_id *id = (const void *)(uintptr_t)key;

	(void)ctx;
	return (size_t)hash_mix64(id->key ^
				  hash_mix64(id->func_id +
					     0x9e3779b97f4a7c15ULL));
}

static bool block_equal(uint64_t stored, uint64_t key, const void *ctx)
{
	const struct sci_block_id *a = (const void *)(uintptr_t)stored;
	const struct sci_block_id *b = (const void *)(uintptr_t)key;

	(void)ctx;
	return a->func_id == b->func_id && a->key == b->key;
}

uint64_t sci_bt_key(uint32_t block, uint32_t thread)
{
	return (uint64_t)block << 32 | thread;
}

/* Room for @want elements in a dense array, its growth counted in mem. */
int sci_reserve(struct sci_engine *e, void *arrp, size_t *cap, size_t want,
		size_t size)
{
	size_t old = *cap;

	if (array_grow(arrp, cap, want, size))
		return -ENOMEM;
	e->mem += (*cap - old) * size;
	return 0;
}

static long block_get(struct sci_engine *e, uint32_t func_id, uint64_t key)
{
	struct sci_block_id id = { .func_id = func_id, .key = key };
	struct sci_block *b;
	uint64_t idx;
	int err;

	if (hashmap_find(&e->block_map, (uintptr_t)&id, &idx))
		return (long)idx;
	err = sci_block_admit(e, func_id);
	if (err)
		return err;
	if (sci_reserve(e, &e->blocks, &e->cap_blocks, e->nr_blocks + 1,
			sizeof(*e->blocks)))
		return -ENOMEM;
	/* On a cache line's boundary: see struct sci_block. */
	b = aligned_alloc(64, (sizeof(*b) + 63) & ~(size_t)63);
	if (!b)
		return -ENOMEM;
	memset(b, 0, offsetof(struct sci_block, hist));
	b->id = id;
	b->min = UINT64_MAX;
	b->ref_dur = UINT64_MAX;
	hist_init(&b->hist);
	interf_init(&b->interf);
	if (hashmap_insert(&e->block_map, (uintptr_t)&b->id, e->nr_blocks)) {
		free(b);
		return -ENOMEM;
	}
	e->mem += sizeof(*b);
	e->blocks[e->nr_blocks] = b;
	sci_block_made(e, func_id);
	return e->nr_blocks++;
}

/* A new thread opens at @ts, or is born closed (@open false) at @ts. */
static long thread_new(struct sci_engine *e, uint32_t tid, uint64_t ts,
		       bool open)
{
	struct sci_thread *t;
	size_t idx;

	if (e->free_threads) {
		idx = e->free_threads - 1;
	} else {
		idx = e->nr_threads;
		if (sci_reserve(e, &e->threads, &e->cap_threads, idx + 1,
				sizeof(*e->threads)))
			return -ENOMEM;
	}
	if (hashmap_insert(&e->thread_map, tid, idx))
		return -ENOMEM;
	if (idx == e->nr_threads) {
		e->nr_threads++;
	} else {
		e->free_threads = e->threads[idx].next_free;
		e->nr_free_threads--;
	}
	t = &e->threads[idx];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->open = open;
	t->closed_once = !open;
	t->first = t->start = t->exit = t->last = ts;
	return idx;
}

/*
 * The thread was alive over [lo, hi]: widen its open interval backwards,
 * or reopen it if it had exited before @hi (see "Thread lifetime" in
 * sci.h).  An open interval never reaches back over a closed one, so no
 * instant is counted twice.
 */
static inline void thread_touch(struct sci_thread *t, uint64_t lo,
				uint64_t hi)
{
	if (t->open) {
		if (lo < t->start) {
			/* Closed intervals all end at or before exit. */
			uint64_t floor = t->closed_once ? t->exit : 0;

			t->start = lo > floor ? lo : floor;
		}
	} else if (hi > t->exit) {
		t->start = lo > t->exit ? lo : t->exit;
		t->open = true;
		t->exit_given = 0;
	}
	if (t->start < t->first)
		t->first = t->start;
	if (hi > t->last)
		t->last = hi;
}

static void thread_close(const struct sci_engine *e, struct sci_thread *t,
			 uint64_t ts)
{
	/*
	 * A thread cannot exit before its own last execution ended, nor
	 * before its own lost time does (sci_thread_lost()): a scan dates
	 * an exit at the last time it knew the thread alive, which can be
	 * before a drop told since, and a drop of several threads' records
	 * takes time from each; a lifetime that runs on through lost time
	 * gains none.
	 */
	if (ts < t->last)
		ts = t->last;
	if (ts < t->lost_to)
		ts = t->lost_to;
	if (ts < t->start)
		ts = t->start;
	t->acc += ts - t->start;
	t->aside += sci_thread_aside_overlap(e, t, t->start, ts);
	t->lost += sci_lost_overlap(e, t->start, ts);
	/* Reopened in this block, its share starts then. */
	t->aside_from = 0;
	t->exit = ts;
	t->open = false;
	t->closed_once = true;
	if (ts > t->last)
		t->last = ts;
}

static long bt_get(struct sci_engine *e, uint32_t block, uint32_t thread)
{
	uint64_t key = sci_bt_key(block, thread), idx;
	struct sci_bt *bt;
	size_t h;

	if (hashmap_find(&e->bt_map, key, &idx))
		return (long)idx;
	if (e->free_bts) {
		h = e->free_bts - 1;
	} else {
		h = e->nr_bts;
		if (sci_reserve(e, &e->bts, &e->cap_bts, h + 1,
				sizeof(*e->bts)))
			return -ENOMEM;
	}
	if (hashmap_insert(&e->bt_map, key, h))
		return -ENOMEM;
	if (h == e->nr_bts) {
		e->nr_bts++;
	} else {
		e->free_bts = e->bts[h].next;
		e->nr_free_bts--;
	}
	bt = &e->bts[h];
	memset(bt, 0, sizeof(*bt));
	bt->block = block;
	bt->thread = thread;
	bt->min = UINT64_MAX;
	/* Newest first: a thread's pairs are only walked when it folds. */
	bt->next = e->threads[thread].pairs;
	e->threads[thread].pairs = h + 1;
	e->blocks[block]->nr_threads++;
	return h;
}

struct sci_engine *sci_new(void)
{
	struct sci_engine *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->hot_bits = SCI_HOT_MIN_BITS;
	e->hot = sci_hot_table(e->hot_bits);
	if (!e->hot) {
		free(e);
		return NULL;
	}
	e->mem = sizeof(*e) + (sizeof(*e->hot) << e->hot_bits);
	hashmap_init(&e->block_map, block_hash, block_equal, NULL);
	return e;
}

void sci_free(struct sci_engine *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->nr_blocks; i++)
		free(e->blocks[i]);
	free(e->blocks);
	hashmap_free(&e->block_map);
	free(e->threads);
	hashmap_free(&e->thread_map);
	free(e->bts);
	hashmap_free(&e->bt_map);
	free(e->func_fold);
	free(e->func_blocks);
	free(e->hot);
	free(e->lost);
	free(e);
}

static void note_ts(struct sci_engine *e, uint64_t ts)
{
	if (ts > e->last_ts)
		e->last_ts = ts;
}

int sci_thread_seen(struct sci_engine *e, uint32_t tid, uint64_t ts)
{
	long t = sci_thread_index(e, tid);

	note_ts(e, ts);
	if (t < 0)
		return thread_new(e, tid, ts, true) < 0 ? -ENOMEM : 0;
	thread_touch(&e->threads[t], ts, ts);
	return 0;
}

int sci_thread_hold(struct sci_engine *e, uint32_t tid, uint64_t ts)
{
	if (sci_thread_index(e, tid) >= 0)
		return 0;
	return sci_thread_seen(e, tid, ts);
}

/* Out of line: the prologue it needs stays off the path of every record. */
static __attribute__((noinline)) int thread_hold_ref(struct sci_engine *e,
						     uint32_t *ref,
						     uint32_t tid,
						     uint64_t ts)
{
	long t = sci_thread_index(e, tid);

	if (t < 0) {
		note_ts(e, ts);
		t = thread_new(e, tid, ts, true);
		if (t < 0)
			return -ENOMEM;
	}
	*ref = t + 1;
	return 0;
}

int sci_thread_hold_ref(struct sci_engine *e, uint32_t *ref, uint32_t tid,
			uint64_t ts)
{
	/* A tid is in one slot at most: one that holds @tid is its slot. */
	if (*ref && *ref <= e->nr_threads && !e->threads[*ref - 1].free &&
	    e->threads[*ref - 1].tid == tid)
		return 0;
	return thread_hold_ref(e, ref, tid, ts);
}

int sci_thread_exit(struct sci_engine *e, uint32_t tid, uint64_t ts)
{
	long t = sci_thread_index(e, tid);
	struct sci_thread *th;

	note_ts(e, ts);
	if (t < 0) {	/* never seen alive: it contributes no time */
		t = thread_new(e, tid, ts, false);
		if (t < 0)
			return -ENOMEM;
		e->threads[t].exit_given = ts;
		return 0;
	}
	th = &e->threads[t];
	th->exit_given = ts;
	if (th->open) {
		thread_close(e, th, ts);
	} else if (ts > th->exit) {
		/* A second exit for the same interval moves its end. */
		th->acc += ts - th->exit;
		th->aside += sci_thread_aside_overlap(e, th, th->exit, ts);
		th->lost += sci_lost_overlap(e, th->exit, ts);
		th->exit = ts;
		if (ts > th->last)
			th->last = ts;
	}
	return 0;
}

void sci_finish(struct sci_engine *e, uint64_t end_ts)
{
	size_t i;

	note_ts(e, end_ts);
	for (i = 0; i < e->nr_threads; i++) {
		struct sci_thread *t = &e->threads[i];

		/* The trace cannot end before the events it holds. */
		if (t->open)
			thread_close(e, t, end_ts > t->last ? end_ts : t->last);
	}
	sci_solo_end(e, end_ts);
}

int sci_seed(struct sci_engine *e, const struct sci_block_min *m)
{
	long bi = block_get(e, m->func_id, m->key);
	struct sci_block *b;

	if (bi < 0)
		return (int)bi;
	b = e->blocks[bi];
	b->idle_windows = m->idle_windows;
	if (m->min < b->min)
		b->min = m->min;
	if (m->ref_dur < b->ref_dur) {
		b->ref_dur = m->ref_dur;
		memcpy(b->ref_cause, m->ref_cause, sizeof(b->ref_cause));
	}
	interf_seed(&b->interf, &m->solo);
	return 0;
}

/*
 * An execution's parts by cause, made to sum to its duration (see
 * "Causes" in sci.h for the clamping order), and its interference split
 * when it carried a context: worked out once for every block it counts
 * for.
 */
struct sci_exec_parts {
	uint64_t cause[SCI_NR_CAUSES];
	bool context;
	struct interf_split split;
};

static void exec_parts(uint64_t d, const struct sci_causes *in,
		       struct sci_exec_parts *out)
{
	uint64_t rem = d;

	out->cause[SCI_CAUSE_FUTEX] = in->futex_ns < rem ? in->futex_ns : rem;
	rem -= out->cause[SCI_CAUSE_FUTEX];
	out->cause[SCI_CAUSE_BLOCKED] = in->blocked_ns < rem ?
					in->blocked_ns : rem;
	rem -= out->cause[SCI_CAUSE_BLOCKED];
	out->cause[SCI_CAUSE_RUNQUEUE] = in->runqueue_ns < rem ?
					 in->runqueue_ns : rem;
	rem -= out->cause[SCI_CAUSE_RUNQUEUE];
	out->cause[SCI_CAUSE_ONCPU] = rem;
	out->context = in->context;
	if (in->context) {
		struct interf_call call = {
			.duration_ns = d,
			.waited_ns = in->waited_ns,
			.runqueue_ns = in->runqueue_ns,
			.rq_program_ns = in->rq_program_ns,
			.others_ns = in->others_ns,
			.reference = in->reference,
			.aside = in->aside,
		};

		interf_split(&call, &out->split);
	}
}

/*
 * Add an execution of @d, in @x's parts, to @b, and keep them if it is
 * the fastest caused one.  Into the block's sums one by one, not through
 * an array on the stack, which costs a stalled store forward.
 */
static void block_causes(struct sci_block *b, uint64_t d,
			 const struct sci_exec_parts *x)
{
	b->n_caused++;
	b->cause_sum[SCI_CAUSE_FUTEX] += x->cause[SCI_CAUSE_FUTEX];
	b->cause_sum[SCI_CAUSE_BLOCKED] += x->cause[SCI_CAUSE_BLOCKED];
	b->cause_sum[SCI_CAUSE_RUNQUEUE] += x->cause[SCI_CAUSE_RUNQUEUE];
	b->cause_sum[SCI_CAUSE_ONCPU] += x->cause[SCI_CAUSE_ONCPU];
	if (d < b->ref_dur) {
		b->ref_dur = d;
		memcpy(b->ref_cause, x->cause, sizeof(b->ref_cause));
	}
	if (x->context)
		interf_add_split(&b->interf, &x->split);
}

/* Whether the pairs held want a larger hot table than it is. */
static bool hot_short(const struct sci_engine *e, unsigned int bits)
{
	return bits < SCI_HOT_MAX_BITS &&
	       (e->nr_bts - e->nr_free_bts) * SCI_HOT_SLOTS_PER_PAIR >
	       (size_t)1 << bits;
}

/*
 * Room in the hot table for the pairs held: a table twice as large or
 * more, empty (its entries are only a cache).  Whether it was replaced:
 * out of memory, the table stays as it was.
 */
static bool hot_fit(struct sci_engine *e)
{
	unsigned int bits = e->hot_bits;
	struct sci_hot *hot;

	while (hot_short(e, bits))
		bits++;
	hot = sci_hot_table(bits);
	if (!hot)
		return false;
	free(e->hot);
	e->mem += (sizeof(*hot) << bits) - (sizeof(*hot) << e->hot_bits);
	e->hot = hot;
	e->hot_bits = bits;
	return true;
}

static bool hot_holds(const struct sci_hot *hot,
		      uint32_t func_id, uint64_t key, uint32_t thread)
{
	return hot->bt && hot->key == key && hot->func_id == func_id &&
	       hot->thread == thread;
}

/*
 * hot_get()'s rare path, out of line: the pair is in neither way of its
 * hot set @hot.  From the maps, made if new, and put first in the set.
 */
static __attribute__((noinline)) long hot_miss(struct sci_engine *e,
					       struct sci_hot *hot,
					       uint32_t func_id, uint64_t key,
					       uint32_t t, struct sci_block **b)
{
	long bi, bti;

	bi = block_get(e, func_id, key);
	if (bi == -ENOSPC)
		e->unscored++;
	if (bi < 0)
		return bi;
	bti = bt_get(e, bi, t);
	if (bti < 0)
		return -ENOMEM;
	if (hot_short(e, e->hot_bits) && hot_fit(e))
		hot = sci_hot_slot(e, func_id, key, t);
	/* The newest first: the older way goes. */
	hot[1] = hot[0];
	*b = e->blocks[bi];
	*hot = (struct sci_hot){ .key = key, .func_id = func_id,
				 .thread = t, .block = *b, .bt = bti + 1 };
	return bti;
}

/*
 * The pair of block (@func_id, @key) with thread index @t, from the hot
 * set or the maps: its index (the block in *@b), or -ENOMEM.
 */
static inline long hot_get(struct sci_engine *e, uint32_t func_id,
			   uint64_t key, uint32_t t, struct sci_block **b)
{
	struct sci_hot *hot = sci_hot_slot(e, func_id, key, t);

	_Static_assert(SCI_HOT_WAYS == 2, "the hot sets have two ways");
	if (hot_holds(hot, func_id, key, t)) {
		*b = hot->block;
		return hot->bt - 1;
	}
	if (hot_holds(hot + 1, func_id, key, t)) {
		*b = hot[1].block;
		return hot[1].bt - 1;
	}
	return hot_miss(e, hot, func_id, key, t, b);
}

/* n, sum, min and max, a pair's, take @d. */
static inline void sums_add(uint64_t *n, uint64_t *sum, uint64_t *min,
			    uint64_t *max, uint64_t d)
{
	(*n)++;
	*sum += d;
	if (d < *min)
		*min = d;
	if (d > *max)
		*max = d;
}

/*
 * An execution of @d into block @b and into @bt, its pair with a thread:
 * the block's count, sum and maximum are its histogram's.
 */
static void block_add(struct sci_block *b, struct sci_bt *bt, uint64_t d,
		      const struct sci_exec_parts *x)
{
	if (d < b->min)
		b->min = d;
	hist_record(&b->hist, d);
	if (x)
		block_causes(b, d, x);
	sums_add(&bt->n, &bt->sum, &bt->min, &bt->max, d);
}

unsigned int sci_add_held(struct sci_engine *e, uint32_t ref,
			  const struct sci_key *keys, unsigned int n,
			  uint64_t duration_ns, uint64_t ts_end,
			  const struct sci_causes *causes)
{
	uint64_t start = ts_end >= duration_ns ? ts_end - duration_ns : 0;
	struct sci_exec_parts parts, *x = NULL;
	unsigned int i, failed = 0;
	struct sci_block *b;
	long bti;

	if (causes) {
		exec_parts(duration_ns, causes, &parts);
		x = &parts;
	}
	for (i = 0; i < n; i++) {
		bti = hot_get(e, keys[i].func_id, keys[i].key, ref - 1, &b);
		if (bti < 0) {
			failed++;
			continue;
		}
		block_add(b, &e->bts[bti], duration_ns, x);
	}
	/*
	 * Once, after the blocks (which never read the thread's interval),
	 * and only if one of them took the execution: not a flag tested at
	 * every block.
	 */
	if (failed < n) {
		thread_touch(&e->threads[ref - 1], start, ts_end);
		note_ts(e, ts_end);
		e->events += n - failed;
	}
	return failed;
}

int sci_add(struct sci_engine *e, uint32_t func_id, uint64_t key,
	    uint32_t tid, uint64_t duration_ns, uint64_t ts_end,
	    const struct sci_causes *causes)
{
	const struct sci_key k = { .func_id = func_id, .key = key };
	uint64_t start = ts_end >= duration_ns ? ts_end - duration_ns : 0;
	uint64_t unscored = e->unscored;
	long t = sci_thread_index(e, tid);

	if (t < 0)
		t = thread_new(e, tid, start, true);
	if (t < 0)
		return -ENOMEM;
	if (!sci_add_held(e, t + 1, &k, 1, duration_ns, ts_end, causes))
		return 0;
	return e->unscored != unscored ? -ENOSPC : -ENOMEM;
}
