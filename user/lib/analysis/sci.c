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
#include "analysis/hist.h"
#include "analysis/sci.h"

/* Direct-mapped, (func, key, tid) -> indices; 32 KiB. */
#define SCI_HOT_BITS	10
/* A pair's block while its slot is on the free list. */
#define SCI_FREE_PAIR	UINT32_MAX

/* What folded threads leave of a block's or a function's per-thread
 * scores: their number, their lifetimes and the worst of them. */
struct sci_folded {
	uint32_t threads;
	uint64_t lifetime;
	double worst_sci;
	uint32_t worst_tid;
	uint64_t worst_loss;
};

struct sci_block {
	uint32_t func_id;
	uint32_t nr_threads;
	uint64_t key;
	uint64_t n;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t n_caused;
	uint64_t cause_sum[SCI_NR_CAUSES];
	uint64_t ref_dur;	/* duration of the fastest caused execution */
	uint64_t ref_cause[SCI_NR_CAUSES];
	struct sci_folded fold;
	struct hist hist;	/* per block: per thread would cost 58 KiB each */
};

struct sci_thread {
	uint32_t tid;
	uint32_t pairs;		/* its first pair: index + 1, 0 = none */
	uint32_t next_free;	/* free list link: index + 1 */
	bool free;		/* folded away, the slot is unused */
	bool open;
	bool closed_once;	/* exit is the end of a counted interval */
	uint64_t first;		/* start of the first interval */
	uint64_t start;		/* start of the current interval, when open */
	uint64_t exit;		/* end of the last closed interval */
	uint64_t acc;		/* total of the closed intervals */
	uint64_t last;		/* latest timestamp attributed to the thread */
	/* The ts of the sci_thread_exit() that closed it, 0 if something
	 * else did or it was reopened since: what sci_fold_thread() checks. */
	uint64_t exit_given;
};

struct sci_bt {
	uint32_t block;		/* SCI_FREE_PAIR: slot unused */
	uint32_t thread;
	uint32_t next;		/* the thread's next pair, or the free list's */
	uint64_t n;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
};

struct sci_table {
	uint32_t *slot;		/* index + 1, 0 = empty */
	size_t mask;		/* capacity - 1, capacity a power of two */
};

struct sci_engine {
	struct sci_block **blocks;
	size_t nr_blocks, cap_blocks;
	struct sci_table block_tab;

	struct sci_thread *threads;
	size_t nr_threads, cap_threads;
	struct sci_table thread_tab;

	struct sci_bt *bts;
	size_t nr_bts, cap_bts;
	struct sci_table bt_tab;

	/* Folded threads (sci_fold_thread): free slots, and what is kept. */
	uint32_t free_threads, free_bts;	/* list heads: index + 1 */
	size_t nr_free_threads, nr_free_bts;
	struct sci_folded *func_fold;		/* by function id */
	size_t nr_func_fold;
	uint64_t folded_threads;
	uint64_t folded_lifetime;

	uint64_t events;
	uint64_t last_ts;
	size_t mem;

	/*
	 * The (block, thread, pair) of recent (func, key, tid) triples: a
	 * trace repeats few blocks in few threads, so most executions skip
	 * the three hash lookups.  Indices stay valid when the dense arrays
	 * grow; folding a thread clears the entries of its pairs.
	 */
	struct sci_hot {
		uint64_t key;
		uint32_t func_id;
		uint32_t tid;
		uint32_t block;
		uint32_t thread;
		uint32_t bt;	/* index + 1, 0 = empty */
	} hot[1u << SCI_HOT_BITS];
};

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

static uint64_t thread_lifetime(const struct sci_thread *t, uint64_t now)
{
	uint64_t end = now > t->last ? now : t->last;

	return t->acc + (t->open ? end - t->start : 0);
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

/* ---- reports ---- */

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

static void score_fill(struct sci_thread_score *s, uint32_t tid,
		       uint64_t lifetime)
{
	s->tid = tid;
	s->lifetime_ns = lifetime;
	s->sci = lifetime ? (double)s->loss_ns / (double)lifetime : 0.0;
}

/* Sort a result's thread scores and take the worst and the lifetimes. */
static void result_threads(struct sci_report *r, struct sci_result *res)
{
	struct sci_thread_score *s = &r->scores[res->first_score];
	uint32_t i;

	qsort(s, res->nr_scores, sizeof(*s), cmp_score);
	res->lifetime_ns = 0;
	for (i = 0; i < res->nr_scores; i++)
		res->lifetime_ns += s[i].lifetime_ns;
	res->sci = res->lifetime_ns ?
		   (double)res->loss_ns / (double)res->lifetime_ns : 0.0;
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
	res->sci = res->lifetime_ns ?
		   (double)res->loss_ns / (double)res->lifetime_ns : 0.0;
}

/* Add block @b, whose result is @br, into function result @f. */
static void func_add_block(struct sci_result *f, const struct sci_block *b,
			   const struct sci_result *br, struct hist *h)
{
	size_t k;

	f->nr_keys++;
	f->calls += b->n;
	f->sum_ns += b->sum;
	f->loss_ns += br->loss_ns;
	if (b->min < f->min_ns)
		f->min_ns = b->min;
	if (b->max > f->max_ns)
		f->max_ns = b->max;
	f->caused_calls += b->n_caused;
	for (k = 0; k < SCI_NR_CAUSES; k++)
		f->cause_loss_ns[k] += br->cause_loss_ns[k];
	f->unknown_loss_ns += br->unknown_loss_ns;
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
		if (!e->blocks[i]->n)
			continue;
		items[nb].a = e->blocks[i]->func_id;
		items[nb].c = e->blocks[i]->key;
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
				const uint64_t *life, size_t nscores)
{
	size_t i, j, nf = 0, np = 0;

	for (i = 0; i < e->nr_bts; i++) {
		if (e->bts[i].block == SCI_FREE_PAIR)
			continue;
		items[np].a = e->blocks[e->bts[i].block]->func_id;
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
		score_fill(s, items[i].b, life[thread]);
		nscores++;
	}
}

static int report_funcs(const struct sci_engine *e, struct sci_report *r,
			const uint64_t *life, size_t nscores)
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
	funcs_thread_scores(e, r, items, life, nscores);
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

/* Every live thread's lifetime as of @now, into @life by thread slot. */
static void report_threads(const struct sci_engine *e, struct sci_report *r,
			   uint64_t now, uint64_t *life)
{
	size_t i, n = 0;

	r->total_lifetime_ns = e->folded_lifetime;
	for (i = 0; i < e->nr_threads; i++) {
		const struct sci_thread *t = &e->threads[i];
		struct sci_thread_life *l = &r->threads[n];

		if (t->free)
			continue;
		n++;
		life[i] = thread_lifetime(t, now);
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

		res->func_id = b->func_id;
		res->key = b->key;
		res->nr_keys = 1;
		res->calls = b->n;
		res->nr_scores = b->nr_threads;
		/* n is 0 only if allocating the pair failed on first use. */
		res->min_ns = b->n ? b->min : 0;
		res->p50_ns = hist_percentile(&b->hist, 50);
		res->p99_ns = hist_percentile(&b->hist, 99);
		res->max_ns = b->max;
		res->sum_ns = b->sum;
		res->mean_ns = b->n ? (double)b->sum / b->n : 0.0;
		res->loss_ns = b->sum - b->n * res->min_ns;
		block_causes(b, res->loss_ns, res);
		res->first_score = pos[i] = nscores;
		nscores += b->nr_threads;
	}
	return nscores;
}

/* Each block's thread scores into its slots; @pos moves past them. */
static void report_block_scores(const struct sci_engine *e,
				struct sci_report *r, size_t *pos,
				const uint64_t *life)
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
		score_fill(s, e->threads[bt->thread].tid, life[bt->thread]);
	}
	for (i = 0; i < e->nr_blocks; i++) {
		result_threads(r, &r->blocks[i]);
		result_fold(&r->blocks[i], &e->blocks[i]->fold);
	}
}

/*
 * Sort blocks and functions by SCI; seeded blocks that ran no execution
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
	uint64_t *life;
	size_t *pos, nscores;

	if (!now)
		now = e->last_ts;
	r = report_alloc(e, now);
	life = calloc(e->nr_threads + 1, sizeof(*life));
	pos = calloc(e->nr_blocks + 1, sizeof(*pos));
	if (!r || !life || !pos)
		goto fail;
	report_threads(e, r, now, life);
	nscores = report_blocks(e, r, pos);
	report_block_scores(e, r, pos, life);
	/* Functions read the block results, so build them before sorting. */
	if (report_funcs(e, r, life, nscores))
		goto fail;
	report_sort(r);
	free(life);
	free(pos);
	return r;
fail:
	free(life);
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
