// SPDX-License-Identifier: GPL-2.0
/*
 * The SCI engine; the definitions are in sci.h.
 *
 * Three dense arrays (blocks, threads, (block, thread) pairs) each indexed
 * by an open-addressing hash table of u32 slots that hold index + 1.  The
 * tables use linear probing and double when half full, so a lookup is O(1)
 * expected and nothing is allocated per event: only a new block, thread or
 * pair, or a doubling, allocates.  Folding a thread away (sci_fold_thread)
 * deletes its thread and pairs by backward shift, which keeps every probe
 * sequence whole without tombstones, and puts their slots of the dense
 * arrays on free lists that the next new thread and pairs take.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/openaddr.h"
#include "analysis/sci_internal.h"

/* The splitmix64 finaliser: keys such as tids and call sites are far from
 * uniform, and linear probing needs the low bits to be mixed. */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static inline uint64_t hash_block(uint32_t func_id, uint64_t key)
{
	return mix64(key ^ mix64(func_id + 0x9e3779b97f4a7c15ULL));
}

static inline uint64_t hash_thread(uint32_t tid)
{
	return mix64(tid);
}

static inline uint64_t hash_bt(uint32_t block, uint32_t thread)
{
	return mix64(((uint64_t)block << 32) | thread);
}

static uint64_t hash_of(const struct sci_engine *e,
			const struct sci_table *tab, size_t idx)
{
	if (tab == &e->block_tab)
		return hash_block(e->blocks[idx]->func_id, e->blocks[idx]->key);
	if (tab == &e->thread_tab)
		return hash_thread(e->threads[idx].tid);
	return hash_bt(e->bts[idx].block, e->bts[idx].thread);
}

/*
 * Make room for element number @nr + 1: keep the load at most one half so
 * that probe sequences stay short, rebuilding from the dense array.
 */
static int table_reserve(struct sci_engine *e, struct sci_table *tab,
			 size_t nr)
{
	size_t cap = tab->slot ? tab->mask + 1 : 0, ncap, i;
	uint32_t *slot;

	if ((nr + 1) * 2 <= cap)
		return 0;
	ncap = cap ? cap * 2 : 16;
	if (ncap > (size_t)UINT32_MAX)
		return -ENOMEM;
	slot = calloc(ncap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		size_t h;

		if ((tab == &e->thread_tab && e->threads[i].free) ||
		    (tab == &e->bt_tab && e->bts[i].block == SCI_FREE_PAIR))
			continue;
		h = hash_of(e, tab, i) & (ncap - 1);

		while (slot[h])
			h = (h + 1) & (ncap - 1);
		slot[h] = i + 1;
	}
	free(tab->slot);
	e->mem += (ncap - cap) * sizeof(*slot);
	tab->slot = slot;
	tab->mask = ncap - 1;
	return 0;
}

/* Grow a dense array by doubling; @cap is in elements. */
static int array_reserve(struct sci_engine *e, void **arr, size_t *cap,
			 size_t nr, size_t size)
{
	size_t ncap;
	void *p;

	if (nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	e->mem += (ncap - *cap) * size;
	*arr = p;
	*cap = ncap;
	return 0;
}

static void table_insert(struct sci_table *tab, uint64_t hash, size_t idx)
{
	size_t h = hash & tab->mask;

	while (tab->slot[h])
		h = (h + 1) & tab->mask;
	tab->slot[h] = idx + 1;
}

/* Delete element @idx (still intact: its hash is read); openaddr.h. */
static void table_remove(struct sci_engine *e, struct sci_table *tab,
			 size_t idx)
{
	size_t i = hash_of(e, tab, idx) & tab->mask, j, home;

	while (tab->slot[i] != idx + 1)
		i = (i + 1) & tab->mask;
	for (j = i;;) {
		j = (j + 1) & tab->mask;
		if (!tab->slot[j])
			break;
		home = hash_of(e, tab, tab->slot[j] - 1) & tab->mask;
		if (openaddr_may_fill(home, i, j)) {
			tab->slot[i] = tab->slot[j];
			i = j;
		}
	}
	tab->slot[i] = 0;
}

static long block_get(struct sci_engine *e, uint32_t func_id, uint64_t key)
{
	uint64_t hash = hash_block(func_id, key);
	struct sci_block *b;
	size_t h;

	if (e->block_tab.slot) {
		for (h = hash & e->block_tab.mask; e->block_tab.slot[h];
		     h = (h + 1) & e->block_tab.mask) {
			b = e->blocks[e->block_tab.slot[h] - 1];
			if (b->func_id == func_id && b->key == key)
				return e->block_tab.slot[h] - 1;
		}
	}
	if (table_reserve(e, &e->block_tab, e->nr_blocks) ||
	    array_reserve(e, (void **)&e->blocks, &e->cap_blocks,
			  e->nr_blocks, sizeof(*e->blocks)))
		return -ENOMEM;
	b = malloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	memset(b, 0, offsetof(struct sci_block, hist));
	b->func_id = func_id;
	b->key = key;
	b->min = UINT64_MAX;
	b->ref_dur = UINT64_MAX;
	hist_init(&b->hist);
	interf_init(&b->interf);
	e->mem += sizeof(*b);
	e->blocks[e->nr_blocks] = b;
	table_insert(&e->block_tab, hash, e->nr_blocks);
	return e->nr_blocks++;
}

static long thread_lookup(const struct sci_engine *e, uint32_t tid)
{
	size_t h;

	if (!e->thread_tab.slot)
		return -1;
	for (h = hash_thread(tid) & e->thread_tab.mask; e->thread_tab.slot[h];
	     h = (h + 1) & e->thread_tab.mask) {
		if (e->threads[e->thread_tab.slot[h] - 1].tid == tid)
			return e->thread_tab.slot[h] - 1;
	}
	return -1;
}

/* A new thread opens at @ts, or is born closed (@open false) at @ts. */
static long thread_new(struct sci_engine *e, uint32_t tid, uint64_t ts,
		       bool open)
{
	struct sci_thread *t;
	size_t idx;

	if (e->free_threads) {
		idx = e->free_threads - 1;
		e->free_threads = e->threads[idx].next_free;
		e->nr_free_threads--;
	} else {
		if (table_reserve(e, &e->thread_tab, e->nr_threads) ||
		    array_reserve(e, (void **)&e->threads, &e->cap_threads,
				  e->nr_threads, sizeof(*e->threads)))
			return -ENOMEM;
		idx = e->nr_threads++;
	}
	t = &e->threads[idx];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->open = open;
	t->closed_once = !open;
	t->first = t->start = t->exit = t->last = ts;
	table_insert(&e->thread_tab, hash_thread(tid), idx);
	return idx;
}

/*
 * The thread was alive over [lo, hi]: widen its open interval backwards,
 * or reopen it if it had exited before @hi (see "Thread lifetime" in
 * sci.h).  An open interval never reaches back over a closed one, so no
 * instant is counted twice.
 */
static void thread_touch(struct sci_thread *t, uint64_t lo, uint64_t hi)
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

static void thread_close(struct sci_thread *t, uint64_t ts)
{
	/* A thread cannot exit before its own last execution ended. */
	if (ts < t->last)
		ts = t->last;
	if (ts < t->start)
		ts = t->start;
	t->acc += ts - t->start;
	t->exit = ts;
	t->open = false;
	t->closed_once = true;
	if (ts > t->last)
		t->last = ts;
}

static long bt_get(struct sci_engine *e, uint32_t block, uint32_t thread)
{
	uint64_t hash = hash_bt(block, thread);
	struct sci_bt *bt;
	size_t h;

	if (e->bt_tab.slot) {
		for (h = hash & e->bt_tab.mask; e->bt_tab.slot[h];
		     h = (h + 1) & e->bt_tab.mask) {
			bt = &e->bts[e->bt_tab.slot[h] - 1];
			if (bt->block == block && bt->thread == thread)
				return e->bt_tab.slot[h] - 1;
		}
	}
	if (e->free_bts) {
		h = e->free_bts - 1;
		e->free_bts = e->bts[h].next;
		e->nr_free_bts--;
	} else {
		if (table_reserve(e, &e->bt_tab, e->nr_bts) ||
		    array_reserve(e, (void **)&e->bts, &e->cap_bts, e->nr_bts,
				  sizeof(*e->bts)))
			return -ENOMEM;
		h = e->nr_bts++;
	}
	bt = &e->bts[h];
	memset(bt, 0, sizeof(*bt));
	bt->block = block;
	bt->thread = thread;
	bt->min = UINT64_MAX;
	/* Newest first: a thread's pairs are only walked when it folds. */
	bt->next = e->threads[thread].pairs;
	e->threads[thread].pairs = h + 1;
	table_insert(&e->bt_tab, hash, h);
	e->blocks[block]->nr_threads++;
	return h;
}

struct sci_engine *sci_new(void)
{
	struct sci_engine *e = calloc(1, sizeof(*e));

	if (e)
		e->mem = sizeof(*e);
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
	free(e->block_tab.slot);
	free(e->threads);
	free(e->thread_tab.slot);
	free(e->bts);
	free(e->bt_tab.slot);
	free(e->func_fold);
	free(e);
}

static void note_ts(struct sci_engine *e, uint64_t ts)
{
	if (ts > e->last_ts)
		e->last_ts = ts;
}

int sci_thread_seen(struct sci_engine *e, uint32_t tid, uint64_t ts)
{
	long t = thread_lookup(e, tid);

	note_ts(e, ts);
	if (t < 0)
		return thread_new(e, tid, ts, true) < 0 ? -ENOMEM : 0;
	thread_touch(&e->threads[t], ts, ts);
	return 0;
}

int sci_thread_hold(struct sci_engine *e, uint32_t tid, uint64_t ts)
{
	if (thread_lookup(e, tid) >= 0)
		return 0;
	return sci_thread_seen(e, tid, ts);
}

int sci_thread_exit(struct sci_engine *e, uint32_t tid, uint64_t ts)
{
	long t = thread_lookup(e, tid);
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
		thread_close(th, ts);
	} else if (ts > th->exit) {
		/* A second exit for the same interval moves its end. */
		th->acc += ts - th->exit;
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
			thread_close(t, end_ts > t->last ? end_ts : t->last);
	}
}

int sci_seed(struct sci_engine *e, const struct sci_block_min *m)
{
	long bi = block_get(e, m->func_id, m->key);
	struct sci_block *b;

	if (bi < 0)
		return -ENOMEM;
	b = e->blocks[bi];
	if (m->min < b->min)
		b->min = m->min;
	if (m->ref_dur < b->ref_dur) {
		b->ref_dur = m->ref_dur;
		memcpy(b->ref_cause, m->ref_cause, sizeof(b->ref_cause));
	}
	interf_seed(&b->interf, &m->solo);
	return 0;
}

void sci_minima(const struct sci_engine *e, struct sci_block_min *out)
{
	size_t i;

	for (i = 0; i < e->nr_blocks; i++) {
		const struct sci_block *b = e->blocks[i];

		out[i].func_id = b->func_id;
		out[i].key = b->key;
		out[i].min = b->min;
		out[i].ref_dur = b->ref_dur;
		memcpy(out[i].ref_cause, b->ref_cause, sizeof(b->ref_cause));
		interf_seed_out(&b->interf, &out[i].solo);
	}
}

/* Make the parts sum to @d; see "Causes" in sci.h for the clamping order. */
static void causes_normalise(const struct sci_causes *in, uint64_t d,
			     uint64_t out[SCI_NR_CAUSES])
{
	uint64_t rem = d;

	out[SCI_CAUSE_FUTEX] = in->futex_ns < rem ? in->futex_ns : rem;
	rem -= out[SCI_CAUSE_FUTEX];
	out[SCI_CAUSE_BLOCKED] = in->blocked_ns < rem ? in->blocked_ns : rem;
	rem -= out[SCI_CAUSE_BLOCKED];
	out[SCI_CAUSE_RUNQUEUE] = in->runqueue_ns < rem ? in->runqueue_ns : rem;
	rem -= out[SCI_CAUSE_RUNQUEUE];
	out[SCI_CAUSE_ONCPU] = rem;
}

static void block_context(struct sci_block *b, uint64_t d,
			  const struct sci_causes *causes)
{
	struct interf_call call = {
		.duration_ns = d,
		.waited_ns = causes->waited_ns,
		.runqueue_ns = causes->runqueue_ns,
		.rq_program_ns = causes->rq_program_ns,
		.others_ns = causes->others_ns,
	};

	interf_add(&b->interf, &call);
}

static inline struct sci_hot *hot_slot(struct sci_engine *e,
				       uint32_t func_id, uint64_t key,
				       uint32_t tid)
{
	uint64_t h = (key ^ ((uint64_t)func_id << 32 | tid)) *
		     0x9e3779b97f4a7c15ULL;

	return &e->hot[h >> (64 - SCI_HOT_BITS)];
}

int sci_add(struct sci_engine *e, uint32_t func_id, uint64_t key,
	    uint32_t tid, uint64_t duration_ns, uint64_t ts_end,
	    const struct sci_causes *causes)
{
	uint64_t start = ts_end >= duration_ns ? ts_end - duration_ns : 0;
	struct sci_hot *hot = hot_slot(e, func_id, key, tid);
	struct sci_block *b;
	struct sci_bt *bt;
	long t, bi, bti;
	int k;

	if (hot->bt && hot->key == key && hot->func_id == func_id &&
	    hot->tid == tid) {
		t = hot->thread;
		bi = hot->block;
		bti = hot->bt - 1;
	} else {
		t = thread_lookup(e, tid);
		if (t < 0)
			t = thread_new(e, tid, start, true);
		if (t < 0)
			return -ENOMEM;
		bi = block_get(e, func_id, key);
		if (bi < 0)
			return -ENOMEM;
		bti = bt_get(e, bi, t);
		if (bti < 0)
			return -ENOMEM;
		*hot = (struct sci_hot){ .key = key, .func_id = func_id,
					 .tid = tid, .block = bi,
					 .thread = t, .bt = bti + 1 };
	}
	thread_touch(&e->threads[t], start, ts_end);
	note_ts(e, ts_end);

	b = e->blocks[bi];
	b->n++;
	b->sum += duration_ns;
	if (duration_ns < b->min)
		b->min = duration_ns;
	if (duration_ns > b->max)
		b->max = duration_ns;
	hist_record(&b->hist, duration_ns);
	if (causes) {
		uint64_t c[SCI_NR_CAUSES];

		causes_normalise(causes, duration_ns, c);
		b->n_caused++;
		for (k = 0; k < SCI_NR_CAUSES; k++)
			b->cause_sum[k] += c[k];
		if (duration_ns < b->ref_dur) {
			b->ref_dur = duration_ns;
			memcpy(b->ref_cause, c, sizeof(c));
		}
		if (causes->context)
			block_context(b, duration_ns, causes);
	}

	bt = &e->bts[bti];
	bt->n++;
	bt->sum += duration_ns;
	if (duration_ns < bt->min)
		bt->min = duration_ns;
	if (duration_ns > bt->max)
		bt->max = duration_ns;

	e->events++;
	return 0;
}

/* ---- folding exited threads ---- */

static void fold_add(struct sci_folded *f, uint32_t tid, uint64_t lifetime,
		     uint64_t loss)
{
	double sci = lifetime ? (double)loss / (double)lifetime : 0.0;

	if (!f->threads || sci > f->worst_sci) {
		f->worst_sci = sci;
		f->worst_tid = tid;
		f->worst_loss = loss;
	}
	f->threads++;
	f->lifetime += lifetime;
}

/* Room in func_fold for every function the thread ran; 0 or -ENOMEM. */
static int fold_reserve(struct sci_engine *e, const struct sci_thread *t)
{
	uint32_t bi, top = 0;
	struct sci_folded *p;

	for (bi = t->pairs; bi; bi = e->bts[bi - 1].next) {
		uint32_t f = e->blocks[e->bts[bi - 1].block]->func_id;

		if (f + 1 > top)
			top = f + 1;
	}
	if (top <= e->nr_func_fold)
		return 0;
	p = realloc(e->func_fold, top * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + e->nr_func_fold, 0, (top - e->nr_func_fold) * sizeof(*p));
	e->mem += (top - e->nr_func_fold) * sizeof(*p);
	e->func_fold = p;
	e->nr_func_fold = top;
	return 0;
}

static uint64_t pair_loss(const struct sci_engine *e, const struct sci_bt *bt)
{
	return bt->sum - bt->n * e->blocks[bt->block]->min;
}

/* Fold closed thread @ti into its blocks and functions, then free it. */
static int fold_thread(struct sci_engine *e, size_t ti)
{
	struct sci_thread *t = &e->threads[ti];
	uint64_t life = t->acc;		/* closed: nothing open to add */
	uint32_t bi, bj, next;

	if (fold_reserve(e, t))
		return -ENOMEM;
	for (bi = t->pairs; bi; bi = e->bts[bi - 1].next) {
		struct sci_bt *bt = &e->bts[bi - 1];
		struct sci_block *b = e->blocks[bt->block];
		uint64_t floss = 0;

		fold_add(&b->fold, t->tid, life, pair_loss(e, bt));
		/* A function once per thread, at its first pair in the list. */
		for (bj = t->pairs; bj != bi; bj = e->bts[bj - 1].next)
			if (e->blocks[e->bts[bj - 1].block]->func_id ==
			    b->func_id)
				break;
		if (bj != bi)
			continue;
		for (bj = bi; bj; bj = e->bts[bj - 1].next)
			if (e->blocks[e->bts[bj - 1].block]->func_id ==
			    b->func_id)
				floss += pair_loss(e, &e->bts[bj - 1]);
		fold_add(&e->func_fold[b->func_id], t->tid, life, floss);
	}
	for (bi = t->pairs; bi; bi = next) {
		struct sci_bt *bt = &e->bts[bi - 1];
		struct sci_block *b = e->blocks[bt->block];
		struct sci_hot *hot = hot_slot(e, b->func_id, b->key, t->tid);

		next = bt->next;
		if (hot->bt == bi)
			hot->bt = 0;
		table_remove(e, &e->bt_tab, bi - 1);
		b->nr_threads--;
		bt->block = SCI_FREE_PAIR;
		bt->next = e->free_bts;
		e->free_bts = bi;
		e->nr_free_bts++;
	}
	table_remove(e, &e->thread_tab, ti);
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
	long ti = thread_lookup(e, tid);
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

void sci_func_hist(const struct sci_engine *e, uint32_t func_id,
		   struct hist *out)
{
	size_t i;

	hist_init(out);
	for (i = 0; i < e->nr_blocks; i++)
		if (e->blocks[i]->func_id == func_id)
			hist_merge(out, &e->blocks[i]->hist);
}

const struct hist *sci_block_hist(const struct sci_engine *e,
				  uint32_t func_id, uint64_t key)
{
	size_t i;

	for (i = 0; i < e->nr_blocks; i++)
		if (e->blocks[i]->func_id == func_id &&
		    e->blocks[i]->key == key)
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

uint64_t sci_nr_events(const struct sci_engine *e)
{
	return e->events;
}

size_t sci_mem_bytes(const struct sci_engine *e)
{
	return e->mem;
}

uint64_t sci_last_ts(const struct sci_engine *e)
{
	return e->last_ts;
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

bool sci_thread_is_open(const struct sci_engine *e, uint32_t tid)
{
	long t = thread_lookup(e, tid);

	return t >= 0 && e->threads[t].open;
}
