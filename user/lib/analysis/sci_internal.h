/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the SCI engine (sci.c: recording executions; sci_fold.c: folding
 * threads; sci_solo.c: solo blocks' time; sci_limit.c: the bound on
 * blocks) and its readers (sci_query.c:
 * sizes, counts, histograms; sci_report.c: scores per function, key and
 * thread) share: the engine's tables.  Nothing outside those five files
 * includes this.
 */
#ifndef ISPOT_SCI_INTERNAL_H
#define ISPOT_SCI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hist.h"
#include "analysis/sci.h"
#include "util/hash.h"
#include "util/hashmap.h"

/*
 * The hot table (struct sci_engine's hot): SCI_HOT_WAYS slots a set,
 * 2^SCI_HOT_MIN_BITS slots (32 KiB) at first, and at least
 * SCI_HOT_SLOTS_PER_PAIR slots for every pair held, up to
 * 2^SCI_HOT_MAX_BITS (2 MiB).
 */
#define SCI_HOT_WAYS		2
#define SCI_HOT_MIN_BITS	10
#define SCI_HOT_MAX_BITS	16
#define SCI_HOT_SLOTS_PER_PAIR	4
/* A pair's block while its slot is on the free list. */
#define SCI_FREE_PAIR	UINT32_MAX

/* What folded threads leave of a block's or a function's per-thread
 * scores: their number, their lifetimes and the worst of them. */
struct sci_folded {
	uint32_t threads;
	uint64_t lifetime;
	uint64_t aside;		/* of that, while solo blocks admitted */
	double worst_sci;
	uint32_t worst_tid;
	uint64_t worst_loss;
};

/* What names a block: the block map's keys point to these. */
struct sci_block_id {
	uint32_t func_id;
	uint64_t key;
};

/*
 * What every execution updates comes last, in one run from the
 * interference sums' (interference.h: theirs come last in them) to the
 * histogram's header, so that an execution touches as few cache lines as
 * it can: block_get() allocates blocks on a line's boundary.  The
 * histogram stays last (block_get() clears what comes before it).
 */
struct sci_block {
	struct sci_block_id id;
	uint32_t nr_threads;
	uint32_t idle_windows;	/* its seed's (struct sci_block_min) */
	struct sci_folded fold;
	uint64_t ref_cause[SCI_NR_CAUSES];
	struct interf_acc interf;
	/*
	 * The histogram's minimum or less (sci_seed() lowers it).  The
	 * block's count, sum and maximum are the histogram's: see
	 * sci_block_calls().
	 */
	uint64_t min;
	uint64_t n_caused;
	uint64_t cause_sum[SCI_NR_CAUSES];
	uint64_t ref_dur;	/* duration of the fastest caused execution */
	struct hist hist;	/* per block: per thread would cost 58 KiB each */
};

/*
 * A block's executions, their sum (as a u64, wrapping as a plain sum
 * would) and the longest: its histogram's, which every execution updates
 * anyway, not a second set of sums beside it.
 */
static inline uint64_t sci_block_calls(const struct sci_block *b)
{
	return hist_count(&b->hist);
}

static inline uint64_t sci_block_sum(const struct sci_block *b)
{
	return hist_sum_u64(&b->hist);
}

static inline uint64_t sci_block_max(const struct sci_block *b)
{
	return hist_max(&b->hist);
}

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
	/* Of acc, the time solo blocks admitted (sci.h, "Solo blocks"). */
	uint64_t aside;
	/*
	 * From when the open block counts for it: 0 from its start,
	 * UINT64_MAX not yet (inside a call that began before the block,
	 * sci_solo_inside()), else when that call returned.
	 */
	uint64_t aside_from;
	uint64_t last;		/* latest timestamp attributed to the thread */
	/* The ts of the sci_thread_exit() that closed it, 0 if something
	 * else did or it was reopened since: what sci_fold_thread() checks. */
	uint64_t exit_given;
	/*
	 * Of acc, time a damaged recording lost (sci_lost()), or a ring
	 * dropped the thread's records in (sci_thread_lost()).
	 */
	uint64_t lost;
	/*
	 * The last span sci_thread_lost() left out (those that meet are
	 * one), and of all of them, the part solo blocks admitted (of
	 * aside: sci_thread_aside()).
	 */
	uint64_t lost_from, lost_to;
	uint64_t lost_aside;
};

struct sci_bt {
	uint32_t block;		/* SCI_FREE_PAIR: slot unused */
	uint32_t thread;
	uint32_t next;		/* the thread's next pair, or the free list's */
	/*
	 * Not n and sum side by side: the compiler would add both with one
	 * vector of (1, d) built on the stack, a stalled store forward.
	 */
	uint64_t n;
	uint64_t min;
	uint64_t sum;
	uint64_t max;
};

/*
 * A slot of the hot table: struct sci_engine's hot says what for.  It
 * names its thread and its block itself, not only its pair: a hit then
 * reads the pair and the block side by side, where a slot naming the
 * pair alone made three loads in a row (the pair for its thread and
 * block, the block's pointer, the block).  A block never moves or goes
 * before sci_free().
 */
struct sci_hot {
	uint64_t key;
	uint32_t func_id;
	uint32_t thread;	/* the thread's index */
	struct sci_block *block;
	uint32_t bt;		/* index + 1, 0 = empty */
};

_Static_assert(sizeof(struct sci_hot) * SCI_HOT_WAYS == 64,
	       "a hot set is one cache line");

/*
 * An empty hot table of 2^@bits slots, each set on a cache line of its
 * own: calloc() put the table off a line's boundary, and a hit in a
 * set's second way read two lines.  NULL without memory.
 */
static inline struct sci_hot *sci_hot_table(unsigned int bits)
{
	size_t size = sizeof(struct sci_hot) << bits;
	struct sci_hot *hot = aligned_alloc(64, size);

	if (hot)
		memset(hot, 0, size);
	return hot;
}

struct sci_engine {
	/* Dense arrays, each with a map of its keys to indices. */
	struct sci_block **blocks;
	size_t nr_blocks, cap_blocks;
	struct hashmap block_map;	/* &id -> index */

	struct sci_thread *threads;
	size_t nr_threads, cap_threads;
	struct hashmap thread_map;	/* tid -> index */

	struct sci_bt *bts;
	size_t nr_bts, cap_bts;
	struct hashmap bt_map;		/* block << 32 | thread -> idx */

	/* Folded threads (sci_fold_thread): free slots, and what is kept. */
	uint32_t free_threads, free_bts;	/* list heads: index + 1 */
	size_t nr_free_threads, nr_free_bts;
	struct sci_folded *func_fold;		/* by function id */
	size_t nr_func_fold;
	uint64_t folded_threads;
	uint64_t folded_lifetime;

	/* sci_limit_blocks()'s bounds (0: none), sci_limit.c's counts. */
	size_t max_blocks, max_blocks_per_func;
	uint32_t *func_blocks;		/* blocks by function id */
	size_t nr_func_blocks;
	uint64_t unscored;		/* executions the bound refused */
	uint64_t events;
	uint64_t last_ts;
	/* The solo block admitting now, over [aside_begin, aside_until). */
	bool aside_open;
	uint64_t aside_begin, aside_until;
	/* The last that ended, for a drop told after (sci_thread_lost()). */
	uint64_t ended_begin, ended_until;
	/*
	 * Time no record tells (sci_lost()), in rising order, none
	 * overlapping: each thread's share is taken when it closes, or
	 * when its lifetime is read, over the interval it lived, so that an
	 * exit learnt late, or a start moved back, is counted right.  With
	 * the time of the spans before each, so that a share is two binary
	 * searches (a ring that drops tells every drain round).
	 */
	struct sci_span {
		uint64_t from, to;
		uint64_t before;	/* the spans' time before this one */
	} *lost;
	size_t nr_lost, cap_lost;
	size_t mem;			/* besides the maps */

	/*
	 * The pair (block, thread) of recent (func, key, thread) triples: a
	 * trace repeats few blocks in few threads, so most executions skip
	 * the three hash lookups.  Indices stay valid when the dense arrays
	 * grow; folding a thread clears the entries of its pairs.  Two ways
	 * a set, the newest first (a direct-mapped table sent twice as many
	 * executions to the lookups).  An entry names its thread, its
	 * block and its pair (struct sci_hot says why all three).  The
	 * table grows with the pairs held (sci.c, hot_fit()): at a fixed
	 * 1,024 slots, the pairs of an auto function's shadows in eight
	 * threads shared sets, and an execution found in the second way,
	 * or not at all, cost a mispredicted branch or the three lookups.
	 */
	struct sci_hot *hot;
	unsigned int hot_bits;		/* 2^hot_bits slots */
};

/*
 * The hot set of a (func, key, thread) triple, the thread by its index:
 * its SCI_HOT_WAYS slots, valid until the next execution added, which
 * may replace the table.  In line: every execution asks, per block.
 */
static inline struct sci_hot *sci_hot_slot(struct sci_engine *e,
					   uint32_t func_id, uint64_t key,
					   uint32_t thread)
{
	/*
	 * The key hashed first: a small key (a log2 bucket, a shape's
	 * number) and the thread's index would otherwise meet in the same
	 * low bits, and every (key, thread) with the same XOR share a set.
	 */
	uint64_t h = (hash_u64(key) ^ ((uint64_t)func_id << 32 | thread)) *
		     0x9e3779b97f4a7c15ULL;

	return &e->hot[(h >> (64 - e->hot_bits)) & ~(SCI_HOT_WAYS - 1ul)];
}

/* A thread's index in threads[], -1 if it is not held. */
static inline long sci_thread_index(const struct sci_engine *e, uint32_t tid)
{
	uint64_t idx;

	return hashmap_find(&e->thread_map, tid, &idx) ? (long)idx : -1;
}

/* sci.c, for sci_fold.c: a pair's key in bt_map, */
uint64_t sci_bt_key(uint32_t block, uint32_t thread);
/* and room for @want elements in a dense array, counted in mem. */
int sci_reserve(struct sci_engine *e, void *arrp, size_t *cap, size_t want,
		size_t size);
/*
 * sci_limit.c, for block_get(): whether a new block of @func_id may be
 * made (0; -ENOSPC past the bound, or -ENOMEM), and that it was, once
 * nothing can fail any more (a block that failed is not counted).
 */
int sci_block_admit(struct sci_engine *e, uint32_t func_id);
void sci_block_made(struct sci_engine *e, uint32_t func_id);

/* How much of the time before @ts the spans of sci_lost() hold. */
static inline uint64_t sci_lost_before(const struct sci_engine *e,
				       uint64_t ts)
{
	size_t lo = 0, hi = e->nr_lost, mid;
	const struct sci_span *s;

	/* The first span that begins at @ts or later: lo. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (e->lost[mid].from < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	s = &e->lost[lo - 1];
	return s->before + (ts < s->to ? ts : s->to) - s->from;
}

/* How much of [@lo, @hi) is lost (sci_lost()). */
static inline uint64_t sci_lost_overlap(const struct sci_engine *e,
					uint64_t lo, uint64_t hi)
{
	if (!e->nr_lost || hi <= lo)
		return 0;
	return sci_lost_before(e, hi) - sci_lost_before(e, lo);
}

/*
 * Of [@lo, @hi), the time the open solo block admits (0 if none), less
 * what a replay lost of it: a lifetime leaves that out already, and the
 * time outside the blocks is the one less the other.
 */
static inline uint64_t sci_aside_overlap(const struct sci_engine *e,
					 uint64_t lo, uint64_t hi)
{
	uint64_t lost;

	if (!e->aside_open)
		return 0;
	if (lo < e->aside_begin)
		lo = e->aside_begin;
	if (hi > e->aside_until)
		hi = e->aside_until;
	if (hi <= lo)
		return 0;
	lost = sci_lost_overlap(e, lo, hi);
	return hi - lo > lost ? hi - lo - lost : 0;
}

/* Of [@lo, @hi), the time the open block admits and counts for @t. */
static inline uint64_t sci_thread_aside_overlap(const struct sci_engine *e,
						const struct sci_thread *t,
						uint64_t lo, uint64_t hi)
{
	return sci_aside_overlap(e, lo > t->aside_from ? lo : t->aside_from,
				 hi);
}

/*
 * Of what @t's last own span (sci_thread_lost()) put in lost_aside, the
 * part in [@lo, @hi) of the open block: its overlap with that block's
 * share of the thread, at most lost_aside.
 */
static inline uint64_t sci_lost_own_in(const struct sci_engine *e,
				       const struct sci_thread *t,
				       uint64_t lo, uint64_t hi)
{
	uint64_t in;

	if (lo < t->lost_from)
		lo = t->lost_from;
	if (hi > t->lost_to)
		hi = t->lost_to;
	in = hi > lo ? sci_thread_aside_overlap(e, t, lo, hi) : 0;
	return in < t->lost_aside ? in : t->lost_aside;
}

/*
 * A thread's observed time up to @now: its closed intervals and the open
 * one, less the time lost in them.
 */
static inline uint64_t sci_thread_lifetime(const struct sci_engine *e,
					   const struct sci_thread *t,
					   uint64_t now)
{
	uint64_t end = now > t->last ? now : t->last;
	uint64_t life = t->acc, lost = t->lost;

	/* Through its own lost time, as thread_close() (sci.c) says. */
	if (end < t->lost_to)
		end = t->lost_to;
	if (t->open) {
		life += end - t->start;
		lost += sci_lost_overlap(e, t->start, end);
	}
	return life > lost ? life - lost : 0;
}

/* Of that, the time solo blocks admitted. */
static inline uint64_t sci_thread_aside(const struct sci_engine *e,
					const struct sci_thread *t,
					uint64_t now)
{
	uint64_t end = now > t->last ? now : t->last;
	uint64_t aside;

	if (end < t->lost_to)
		end = t->lost_to;
	aside = t->aside + (t->open ?
		sci_thread_aside_overlap(e, t, t->start, end) : 0);

	/* Its own lost time is out of the lifetime: not out of it twice. */
	return aside > t->lost_aside ? aside - t->lost_aside : 0;
}

#endif /* ISPOT_SCI_INTERNAL_H */
