// SPDX-License-Identifier: GPL-2.0
/* Entry/exit pairing by stack pointer; see pair.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "analysis/pair.h"

struct pair_frame {
	uint64_t sp;
	uint64_t ts;
	uint64_t callsite;
	uint64_t args[3];
	uint64_t aux[PAIR_AUX_WORDS];
	uint32_t probe_id;
	uint16_t cpu;
	bool has_counters;
	struct shape shape;
	struct ispot_counter_values counters;
};

/* The counter slot of an ENTRY or EXIT record, NULL if it has none. */
static const struct ispot_counter_values *
rec_counters(const struct ispot_record *rec)
{
	return rec->nslots >= 2 ? (const void *)(rec + 1) : NULL;
}

static void pair_counters(struct pair_exec *e, const struct pair_frame *f,
			  const struct ispot_record *rec)
{
	const struct ispot_counter_values *x = rec_counters(rec);
	const struct ispot_counter_values *n = &f->counters;
	uint32_t i;

	if (!x || x->nr != n->nr)
		return;
	e->nr_counters = n->nr < ISPOT_MAX_COUNTERS ? n->nr :
						      ISPOT_MAX_COUNTERS;
	if (f->cpu != rec->cpu || n->switches != x->switches)
		return;		/* other threads ran on these counters */
	e->counters_valid = n->valid & x->valid &
			    ((1u << e->nr_counters) - 1);
	for (i = 0; i < e->nr_counters; i++)
		if (e->counters_valid & (1u << i))
			e->counter_delta[i] = x->value[i] - n->value[i];
}

struct pairer {
	pair_cb cb;
	void *ctx;
	/* tid -> struct pair_thread *, for the callers by tid. */
	struct hashmap threads;
	uint64_t tramp_start, tramp_end;
	uint32_t *markers;		/* by probe id: PAIR_MARKER_*, block */
	uint32_t nr_markers;
	uint32_t *callees;		/* by probe id: callee id + 1, 0 unset */
	uint32_t nr_callees;
	/* Every thread's records were lost before this: pairer_all_lost(). */
	uint64_t lost_before;
	struct pair_stats stats;
};

#define PAIR_MARKER_BEGIN	(1u << 31)
#define PAIR_MARKER_END		(1u << 30)
#define PAIR_MARKER_BLOCK	(PAIR_MARKER_END - 1)

int pairer_set_marker(struct pairer *p, uint32_t probe_id, uint32_t block,
		      bool end)
{
	if (block > PAIR_MARKER_BLOCK)
		return -EINVAL;
	if (idarray_reserve(&p->markers, &p->nr_markers, sizeof(*p->markers),
			    probe_id))
		return -ENOMEM;
	p->markers[probe_id] = block |
			       (end ? PAIR_MARKER_END : PAIR_MARKER_BEGIN);
	return 0;
}

int pairer_set_callee(struct pairer *p, uint32_t probe_id, uint32_t id)
{
	if (idarray_reserve(&p->callees, &p->nr_callees, sizeof(*p->callees),
			    probe_id))
		return -ENOMEM;
	p->callees[probe_id] = id + 1;
	return 0;
}

static uint32_t pair_callee(const struct pairer *p, uint32_t probe_id)
{
	return probe_id < p->nr_callees && p->callees[probe_id] ?
	       p->callees[probe_id] - 1 : probe_id;
}

static uint32_t pair_marker(const struct pairer *p, uint32_t probe_id)
{
	return probe_id < p->nr_markers ? p->markers[probe_id] : 0;
}

void pairer_set_trampoline(struct pairer *p, uint64_t start, uint64_t end)
{
	p->tramp_start = start;
	p->tramp_end = end;
}

struct pairer *pairer_new(pair_cb cb, void *ctx)
{
	struct pairer *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->cb = cb;
	p->ctx = ctx;
	return p;
}

/* Room for one more frame in @frames (@depth used), up to PAIR_MAX_DEPTH. */
static int pair_reserve(struct pair_frame **frames, uint32_t depth,
			size_t *cap)
{
	return depth < PAIR_MAX_DEPTH ?
	       ARRAY_RESERVE(*frames, *cap, (size_t)depth + 1) : 0;
}

/* Frame @f is the one @rec opens, with @aux (NULL: zeros). */
static inline void pair_frame_fill(struct pair_frame *f,
				   const struct ispot_record *rec,
				   const uint64_t *aux)
{
	f->sp = rec->sp;
	f->ts = rec->ts_ns;
	f->callsite = rec->ip;
	memcpy(f->args, rec->data, sizeof(f->args));
	if (aux)
		memcpy(f->aux, aux, sizeof(f->aux));
	else
		memset(f->aux, 0, sizeof(f->aux));
	f->probe_id = rec->probe_id;
	f->cpu = rec->cpu;
	f->has_counters = rec_counters(rec) != NULL;
	if (f->has_counters)
		f->counters = *rec_counters(rec);
	shape_init(&f->shape);
}

/* pair_push() onto a full @frames, out of line: its oldest goes. */
static __attribute__((noinline)) void
pair_push_full(struct pairer *p, struct pair_frame *frames,
	       const struct ispot_record *rec, const uint64_t *aux)
{
	/* Keep the innermost frames: they are the ones to return. */
	memmove(frames, frames + 1, (PAIR_MAX_DEPTH - 1) * sizeof(frames[0]));
	p->stats.unpaired_entries++;
	p->stats.overflow++;
	pair_frame_fill(&frames[PAIR_MAX_DEPTH - 1], rec, aux);
}

/*
 * Push the frame @rec opens onto @frames, dropping the oldest if full:
 * that in a function of its own, so that a push saves no registers.
 */
static void pair_push(struct pairer *p, struct pair_frame *frames,
		      uint32_t *depth, const struct ispot_record *rec,
		      const uint64_t *aux)
{
	if (*depth == PAIR_MAX_DEPTH)
		pair_push_full(p, frames, rec, aux);
	else
		pair_frame_fill(&frames[(*depth)++], rec, aux);
}

/*
 * A thread that exited (pair_thread_exit_at()) keeps its open entries for
 * records from before its exit, late ones of its last calls; the first
 * record from after it (a reused tid) finds them unpaired.
 */
static void pair_thread_reused(struct pairer *p, struct pair_thread *t,
			       const struct ispot_record *rec)
{
	if (t->exit_ts && rec->ts_ns >= t->exit_ts) {
		p->stats.unpaired_entries += t->depth + t->nr_blocks;
		t->depth = 0;
		t->chain_pending = false;
		t->nr_blocks = 0;
		t->exit_ts = 0;
	}
}

static int pair_entry(struct pairer *p, struct pair_thread *t,
		      const struct ispot_record *rec, const uint64_t *aux)
{
	/*
	 * ip 0: the module did not read the call site (NO_CALLSITE), so a
	 * tail call cannot be told from a reused sp; assume the tail call,
	 * whose frame will return.  An abandoned frame is still counted as
	 * unpaired once an outer frame returns or the thread ends.
	 */
	bool chained = !rec->ip ||
		       (rec->ip >= p->tramp_start && rec->ip < p->tramp_end);

	if (pair_reserve(&t->frames, t->depth, &t->cap))
		return -ENOMEM;
	/*
	 * The stack grows down: an open entry at or below this entry's sp
	 * has been unwound without returning (longjmp, skipped return),
	 * unless this is a tail call, which shares its caller's sp.
	 */
	while (t->depth && (t->frames[t->depth - 1].sp < rec->sp ||
			    (!chained && t->frames[t->depth - 1].sp == rec->sp))) {
		t->depth--;
		p->stats.unpaired_entries++;
	}
	/* A call of the innermost open frame: part of its shape. */
	if (t->depth)
		shape_add(&t->frames[t->depth - 1].shape,
			  pair_callee(p, rec->probe_id));
	pair_push(p, t->frames, &t->depth, rec, aux);
	return 0;
}

/* @f, opened by an entry or a begin marker, is closed by @rec: into @e. */
static int pair_emit(struct pairer *p, const struct pair_thread *t,
		     const struct pair_frame *f,
		     const struct ispot_record *rec, struct pair_exec *e)
{
	/* Every field set once, no memset: this runs for every record pair. */
	e->tid = rec->tid;
	e->tgid = rec->tgid;
	e->exit_cpu = rec->cpu;
	e->exit_ts = rec->ts_ns;
	e->retval = rec->kind == ISPOT_REC_EXIT ? rec->data[0] : 0;
	/* Without a call site read at entry, the return target is it. */
	e->callsite = f->callsite ? f->callsite : rec->ip;
	e->probe_id = f->probe_id;
	e->entry_cpu = f->cpu;
	e->entry_ts = f->ts;
	memcpy(e->args, f->args, sizeof(e->args));
	memcpy(e->aux, f->aux, sizeof(e->aux));
	e->shape = f->shape;
	e->depth = t->depth;
	e->nr_counters = 0;
	e->counters_valid = 0;
	memset(e->counter_delta, 0, sizeof(e->counter_delta));
	if (f->has_counters)
		pair_counters(e, f, rec);
	p->stats.paired++;
	return 1;
}

/*
 * Before @rec, a record of @t's: a frame left pending by the last return
 * (struct pair_thread's chain_pending) that @rec does not return ended
 * without its return.  A tail call's caller returns at once, in the same
 * trap as its callee (the kernel's chained uretprobes), so it is the
 * next record; a frame whose return a full ring dropped is not, and left
 * under the loop's next calls at its sp (ip 0 entries are taken for tail
 * calls), the next return whose entry was dropped too would pair with
 * it: one call over the whole stretch and the calls in it, more time in
 * calls than the thread lived, an SCI over 1.
 */
static void pair_settle(struct pairer *p, struct pair_thread *t,
			const struct ispot_record *rec)
{
	if (!t->chain_pending)
		return;
	t->chain_pending = false;
	if (t->depth && !(rec->kind == ISPOT_REC_EXIT &&
			  rec->sp - sizeof(uint64_t) ==
			  t->frames[t->depth - 1].sp)) {
		t->depth--;
		p->stats.unpaired_entries++;
	}
}

/*
 * Whether @f was open when records of @t were lost (pair_thread_lost(),
 * pairer_all_lost()): then its return is not scored.
 */
static inline bool pair_open_at_loss(struct pairer *p,
				     const struct pair_thread *t,
				     const struct pair_frame *f)
{
	if (f->ts >= t->lost_before && f->ts >= p->lost_before)
		return false;
	p->stats.unpaired_entries++;
	p->stats.open_at_loss++;
	return true;
}

static int pair_exit(struct pairer *p, struct pair_thread *t,
		     const struct ispot_record *rec, struct pair_exec *e)
{
	uint64_t want = rec->sp - sizeof(uint64_t);
	uint32_t i;

	/* Frames deeper than the returning one never returned. */
	while (t->depth && t->frames[t->depth - 1].sp < want) {
		t->depth--;
		p->stats.unpaired_entries++;
	}
	/* Same sp: tail calls share a frame; match the probe too. */
	for (i = t->depth; i > 0 && t->frames[i - 1].sp == want; i--)
		if (t->frames[i - 1].probe_id == rec->probe_id)
			break;
	if (i == 0 || t->frames[i - 1].sp != want) {
		p->stats.unpaired_exits++;
		return 0;
	}
	p->stats.unpaired_entries += t->depth - i;
	t->depth = i - 1;
	/* A frame below at the same sp returns next, or never did. */
	t->chain_pending = t->depth && t->frames[t->depth - 1].sp == want;
	if (pair_open_at_loss(p, t, &t->frames[t->depth]))
		return 0;
	return pair_emit(p, t, &t->frames[t->depth], rec, e);
}

/* A begin marker opens a block; pair_block_end() closes it. */
static int pair_block_begin(struct pairer *p, struct pair_thread *t,
			    const struct ispot_record *rec,
			    const uint64_t *aux)
{
	if (pair_reserve(&t->blocks, t->nr_blocks, &t->cap_blocks))
		return -ENOMEM;
	pair_push(p, t->blocks, &t->nr_blocks, rec, aux);
	return 0;
}

/*
 * An end marker closes the innermost open block of its name, by nesting
 * depth: blocks of other names opened inside it stay open (they may
 * overlap rather than nest), and a nested block of the same name closes
 * first.  Out of line: markers are rare, and inlined, the copy of the
 * block's frame made every entry's prologue reserve it.
 */
static __attribute__((noinline)) int
pair_block_end(struct pairer *p, struct pair_thread *t,
	       const struct ispot_record *rec, uint32_t block,
	       struct pair_exec *e)
{
	struct pair_frame f;
	uint32_t i;

	for (i = t->nr_blocks; i > 0; i--)
		if ((pair_marker(p, t->blocks[i - 1].probe_id) &
		     PAIR_MARKER_BLOCK) == block)
			break;
	if (i == 0) {
		p->stats.unpaired_exits++;
		return 0;
	}
	f = t->blocks[i - 1];
	memmove(&t->blocks[i - 1], &t->blocks[i],
		(t->nr_blocks - i) * sizeof(t->blocks[0]));
	t->nr_blocks--;
	if (pair_open_at_loss(p, t, &f))
		return 0;
	return pair_emit(p, t, &f, rec, e);
}

int pairer_feed_entry(struct pairer *p, struct pair_thread *t,
		      const struct ispot_record *rec, const uint64_t *aux,
		      struct pair_exec *out)
{
	uint32_t m;

	pair_thread_reused(p, t, rec);
	m = pair_marker(p, rec->probe_id);
	if (!(m & (PAIR_MARKER_BEGIN | PAIR_MARKER_END)))
		pair_settle(p, t, rec);
	if (m & PAIR_MARKER_BEGIN)
		return pair_block_begin(p, t, rec, aux);
	if (m & PAIR_MARKER_END)
		return pair_block_end(p, t, rec, m & PAIR_MARKER_BLOCK, out);
	return pair_entry(p, t, rec, aux);
}

int pairer_feed_exit(struct pairer *p, struct pair_thread *t,
		     const struct ispot_record *rec, struct pair_exec *out)
{
	pair_thread_reused(p, t, rec);
	pair_settle(p, t, rec);
	return pair_exit(p, t, rec, out);
}

int pairer_feed_thread(struct pairer *p, struct pair_thread *t,
		       const struct ispot_record *rec, const uint64_t *aux,
		       struct pair_exec *out)
{
	switch (rec->kind) {
	case ISPOT_REC_ENTRY:
		return pairer_feed_entry(p, t, rec, aux, out);
	case ISPOT_REC_EXIT:
		return pairer_feed_exit(p, t, rec, out);
	default:
		return 0;
	}
}

uint32_t pair_thread_open_probe(const struct pair_thread *t, uint32_t up)
{
	return t->depth > up ? t->frames[t->depth - 1 - up].probe_id : 0;
}

uint64_t pair_thread_open_callsite(const struct pair_thread *t, uint32_t up)
{
	return t->depth > up ? t->frames[t->depth - 1 - up].callsite : 0;
}

uint64_t pair_thread_open_ts(const struct pair_thread *t, uint32_t up)
{
	return t->depth > up ? t->frames[t->depth - 1 - up].ts : 0;
}

uint64_t pair_thread_open_sp(const struct pair_thread *t, uint32_t up)
{
	return t->depth > up ? t->frames[t->depth - 1 - up].sp : 0;
}

void pairer_thread_ended(struct pairer *p, struct pair_thread *t)
{
	p->stats.unpaired_entries += t->depth + t->nr_blocks;
	t->depth = 0;
	t->chain_pending = false;
	t->nr_blocks = 0;
	t->exit_ts = 0;
}

void pair_thread_exit_at(struct pair_thread *t, uint64_t ts)
{
	if (t->depth || t->nr_blocks)
		t->exit_ts = ts ? ts : 1;
}

void pairer_thread_forget(struct pairer *p, struct pair_thread *t)
{
	pairer_thread_flush(p, t);
	free(t->frames);
	free(t->blocks);
	memset(t, 0, sizeof(*t));
}

void pair_thread_lost(struct pair_thread *t, uint64_t before)
{
	if (before > t->lost_before)
		t->lost_before = before;
}

void pairer_all_lost(struct pairer *p, uint64_t before)
{
	if (before > p->lost_before)
		p->lost_before = before;
}

uint64_t pair_lost_before(const struct pairer *p, const struct pair_thread *t)
{
	return t->lost_before > p->lost_before ? t->lost_before :
						 p->lost_before;
}

void pairer_thread_flush(struct pairer *p, struct pair_thread *t)
{
	p->stats.unpaired_entries += t->depth + t->nr_blocks;
	t->depth = 0;
	t->chain_pending = false;
	t->nr_blocks = 0;
}

/* ---- by tid, for callers without per-thread state ---- */

/* Whether @rec may open something: only then is its thread made. */
static bool pair_opens(const struct pairer *p, const struct ispot_record *rec)
{
	return rec->kind == ISPOT_REC_ENTRY &&
	       !(pair_marker(p, rec->probe_id) & PAIR_MARKER_END);
}

int pairer_feed(struct pairer *p, const struct ispot_record *rec)
{
	struct pair_thread none = { 0 }, *t;
	struct pair_exec e;
	int ret;

	if (rec->kind != ISPOT_REC_ENTRY && rec->kind != ISPOT_REC_EXIT)
		return 0;
	t = hashmap_find_ptr(&p->threads, rec->tid);
	if (!t && pair_opens(p, rec)) {
		t = calloc(1, sizeof(*t));
		if (!t || hashmap_insert(&p->threads, rec->tid,
					 (uintptr_t)t)) {
			free(t);
			return -ENOMEM;
		}
	}
	/* A thread with nothing open closes nothing: no need to make it. */
	ret = pairer_feed_thread(p, t ? t : &none, rec, NULL, &e);
	if (ret > 0 && p->cb)
		p->cb(&e, p->ctx);
	return ret < 0 ? ret : 0;
}

void pairer_thread_exit(struct pairer *p, uint32_t tid)
{
	struct pair_thread *t = hashmap_find_ptr(&p->threads, tid);

	if (t)
		pairer_thread_ended(p, t);
}

void pairer_forget(struct pairer *p, uint32_t tid)
{
	uint64_t v;

	if (!hashmap_delete(&p->threads, tid, &v))
		return;
	pairer_thread_forget(p, (struct pair_thread *)(uintptr_t)v);
	free((void *)(uintptr_t)v);
}

void pairer_flush(struct pairer *p)
{
	const struct hashmap_entry *e;
	size_t pos;

	hashmap_for_each(&p->threads, e, pos)
		pairer_thread_flush(p, (void *)(uintptr_t)e->value);
}

const struct pair_stats *pairer_stats(const struct pairer *p)
{
	return &p->stats;
}

void pairer_free(struct pairer *p)
{
	const struct hashmap_entry *e;
	size_t pos;

	if (!p)
		return;
	hashmap_for_each(&p->threads, e, pos) {
		struct pair_thread *t = (void *)(uintptr_t)e->value;

		free(t->frames);
		free(t->blocks);
		free(t);
	}
	hashmap_free(&p->threads);
	free(p->markers);
	free(p->callees);
	free(p);
}
