// SPDX-License-Identifier: GPL-2.0
/* Entry/exit pairing by stack pointer; see pair.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "analysis/pair.h"
#include "util/openaddr.h"

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

/*
 * Frames grow on demand: most threads never nest deeply.  Open blocks
 * (begin markers without their end yet) have a stack of their own: a
 * block is not a call, so no return unwinds it, and it may begin in one
 * function and end in another.
 */
struct pair_thread {
	uint32_t tid;
	uint32_t depth;
	uint32_t cap;
	struct pair_frame *frames;
	uint32_t nr_blocks;
	uint32_t cap_blocks;
	struct pair_frame *blocks;
	uint64_t exit_ts;	/* pairer_thread_exit_at(), 0: alive */
};

struct pairer {
	pair_cb cb;
	void *ctx;
	struct pair_thread **threads;	/* open addressing by tid */
	size_t cap;			/* power of two */
	size_t used;
	uint64_t tramp_start, tramp_end;
	uint32_t *markers;		/* by probe id: PAIR_MARKER_*, block */
	uint32_t nr_markers;
	uint32_t *callees;		/* by probe id: callee id + 1, 0 unset */
	uint32_t nr_callees;
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
	p->cap = 64;
	p->threads = calloc(p->cap, sizeof(*p->threads));
	if (!p->threads) {
		free(p);
		return NULL;
	}
	return p;
}

static size_t pair_home(const struct pairer *p, uint32_t tid)
{
	return (tid * 0x9e3779b1u) & (p->cap - 1);
}

static size_t pair_slot(const struct pairer *p, uint32_t tid)
{
	size_t i = pair_home(p, tid);

	while (p->threads[i] && p->threads[i]->tid != tid)
		i = (i + 1) & (p->cap - 1);
	return i;
}

static int pair_grow(struct pairer *p)
{
	struct pair_thread **old = p->threads;
	size_t i, oldcap = p->cap;

	p->threads = calloc(oldcap * 2, sizeof(*p->threads));
	if (!p->threads) {
		p->threads = old;
		return -ENOMEM;
	}
	p->cap = oldcap * 2;
	for (i = 0; i < oldcap; i++)
		if (old[i])
			p->threads[pair_slot(p, old[i]->tid)] = old[i];
	free(old);
	return 0;
}

static struct pair_thread *pair_thread(struct pairer *p, uint32_t tid,
				       int create)
{
	size_t i = pair_slot(p, tid);

	if (p->threads[i] || !create)
		return p->threads[i];
	if ((p->used + 1) * 2 > p->cap) {
		if (pair_grow(p))
			return NULL;
		i = pair_slot(p, tid);
	}
	p->threads[i] = calloc(1, sizeof(struct pair_thread));
	if (!p->threads[i])
		return NULL;
	p->threads[i]->tid = tid;
	p->used++;
	return p->threads[i];
}

/* Room for one more frame in @frames (of @depth used, @cap allocated). */
static int pair_reserve(struct pair_frame **frames, uint32_t depth,
			uint32_t *cap)
{
	struct pair_frame *f;
	uint32_t n;

	if (depth < *cap || *cap == PAIR_MAX_DEPTH)
		return 0;
	n = *cap ? *cap * 2 : 8;
	if (n > PAIR_MAX_DEPTH)
		n = PAIR_MAX_DEPTH;
	f = realloc(*frames, n * sizeof(*f));
	if (!f)
		return -ENOMEM;
	*frames = f;
	*cap = n;
	return 0;
}

/* Push the frame @rec opens onto @frames, dropping the oldest if full. */
static void pair_push(struct pairer *p, struct pair_frame *frames,
		      uint32_t *depth, const struct ispot_record *rec,
		      const uint64_t *aux)
{
	struct pair_frame *f;

	if (*depth == PAIR_MAX_DEPTH) {
		/* Keep the innermost frames: they are the ones to return. */
		memmove(frames, frames + 1,
			(PAIR_MAX_DEPTH - 1) * sizeof(frames[0]));
		(*depth)--;
		p->stats.unpaired_entries++;
		p->stats.overflow++;
	}
	f = &frames[(*depth)++];
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

/*
 * @rec's thread.  One that exited (pairer_thread_exit_at()) keeps its open
 * entries for records from before its exit, late ones of its last calls;
 * the first record from after it (a reused tid) finds them unpaired.
 */
static struct pair_thread *pair_thread_rec(struct pairer *p,
					   const struct ispot_record *rec,
					   int create)
{
	struct pair_thread *t = pair_thread(p, rec->tid, create);

	if (t && t->exit_ts && rec->ts_ns >= t->exit_ts) {
		p->stats.unpaired_entries += t->depth + t->nr_blocks;
		t->depth = 0;
		t->nr_blocks = 0;
		t->exit_ts = 0;
	}
	return t;
}

static int pair_entry(struct pairer *p, const struct ispot_record *rec,
		      const uint64_t *aux)
{
	struct pair_thread *t = pair_thread_rec(p, rec, 1);
	/*
	 * ip 0: the module did not read the call site (NO_CALLSITE), so a
	 * tail call cannot be told from a reused sp; assume the tail call,
	 * whose frame will return.  An abandoned frame is still counted as
	 * unpaired once an outer frame returns or the thread ends.
	 */
	bool chained = !rec->ip ||
		       (rec->ip >= p->tramp_start && rec->ip < p->tramp_end);

	if (!t || pair_reserve(&t->frames, t->depth, &t->cap))
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

/* @f, opened by an entry or a begin marker, is closed by @rec. */
static void pair_emit(struct pairer *p, const struct pair_thread *t,
		      const struct pair_frame *f,
		      const struct ispot_record *rec)
{
	struct pair_exec e;

	/* Every field set once, no memset: this runs for every record pair. */
	e.tid = rec->tid;
	e.tgid = rec->tgid;
	e.probe_id = f->probe_id;
	e.depth = t->depth;
	e.entry_cpu = f->cpu;
	e.exit_cpu = rec->cpu;
	e.entry_ts = f->ts;
	e.exit_ts = rec->ts_ns;
	/* Without a call site read at entry, the return target is it. */
	e.callsite = f->callsite ? f->callsite : rec->ip;
	memcpy(e.args, f->args, sizeof(e.args));
	memcpy(e.aux, f->aux, sizeof(e.aux));
	e.shape = f->shape;
	e.retval = rec->kind == ISPOT_REC_EXIT ? rec->data[0] : 0;
	e.nr_counters = 0;
	e.counters_valid = 0;
	memset(e.counter_delta, 0, sizeof(e.counter_delta));
	if (f->has_counters)
		pair_counters(&e, f, rec);
	p->stats.paired++;
	if (p->cb)
		p->cb(&e, p->ctx);
}

static void pair_exit(struct pairer *p, const struct ispot_record *rec)
{
	struct pair_thread *t = pair_thread_rec(p, rec, 0);
	uint64_t want = rec->sp - sizeof(uint64_t);
	uint32_t i;

	if (!t) {
		p->stats.unpaired_exits++;
		return;
	}
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
		return;
	}
	p->stats.unpaired_entries += t->depth - i;
	t->depth = i - 1;
	pair_emit(p, t, &t->frames[t->depth], rec);
}

/* A begin marker opens a block; pair_block_end() closes it. */
static int pair_block_begin(struct pairer *p, const struct ispot_record *rec,
			    const uint64_t *aux)
{
	struct pair_thread *t = pair_thread_rec(p, rec, 1);

	if (!t || pair_reserve(&t->blocks, t->nr_blocks, &t->cap_blocks))
		return -ENOMEM;
	pair_push(p, t->blocks, &t->nr_blocks, rec, aux);
	return 0;
}

/*
 * An end marker closes the innermost open block of its name, by nesting
 * depth: blocks of other names opened inside it stay open (they may
 * overlap rather than nest), and a nested block of the same name closes
 * first.
 */
static void pair_block_end(struct pairer *p, const struct ispot_record *rec,
			   uint32_t block)
{
	struct pair_thread *t = pair_thread_rec(p, rec, 0);
	struct pair_frame f;
	uint32_t i;

	for (i = t ? t->nr_blocks : 0; i > 0; i--)
		if ((pair_marker(p, t->blocks[i - 1].probe_id) &
		     PAIR_MARKER_BLOCK) == block)
			break;
	if (i == 0) {
		p->stats.unpaired_exits++;
		return;
	}
	f = t->blocks[i - 1];
	memmove(&t->blocks[i - 1], &t->blocks[i],
		(t->nr_blocks - i) * sizeof(t->blocks[0]));
	t->nr_blocks--;
	pair_emit(p, t, &f, rec);
}

int pairer_feed(struct pairer *p, const struct ispot_record *rec)
{
	return pairer_feed_aux(p, rec, NULL);
}

uint32_t pairer_open_probe(const struct pairer *p, uint32_t tid)
{
	return pairer_open_probe_at(p, tid, 0);
}

uint32_t pairer_open_probe_at(const struct pairer *p, uint32_t tid,
			      uint32_t up)
{
	const struct pair_thread *t = p->threads[pair_slot(p, tid)];

	return t && t->depth > up ? t->frames[t->depth - 1 - up].probe_id : 0;
}

uint64_t pairer_open_callsite_at(const struct pairer *p, uint32_t tid,
				 uint32_t up)
{
	const struct pair_thread *t = p->threads[pair_slot(p, tid)];

	return t && t->depth > up ? t->frames[t->depth - 1 - up].callsite : 0;
}

uint64_t pairer_open_ts_at(const struct pairer *p, uint32_t tid, uint32_t up)
{
	const struct pair_thread *t = p->threads[pair_slot(p, tid)];

	return t && t->depth > up ? t->frames[t->depth - 1 - up].ts : 0;
}

int pairer_feed_aux(struct pairer *p, const struct ispot_record *rec,
		    const uint64_t *aux)
{
	uint32_t m;

	switch (rec->kind) {
	case ISPOT_REC_ENTRY:
		m = pair_marker(p, rec->probe_id);
		if (m & PAIR_MARKER_BEGIN)
			return pair_block_begin(p, rec, aux);
		if (m & PAIR_MARKER_END) {
			pair_block_end(p, rec, m & PAIR_MARKER_BLOCK);
			return 0;
		}
		return pair_entry(p, rec, aux);
	case ISPOT_REC_EXIT:
		pair_exit(p, rec);
		return 0;
	default:
		return 0;
	}
}

void pairer_thread_exit(struct pairer *p, uint32_t tid)
{
	struct pair_thread *t = pair_thread(p, tid, 0);

	if (!t)
		return;
	p->stats.unpaired_entries += t->depth + t->nr_blocks;
	t->depth = 0;
	t->nr_blocks = 0;
	t->exit_ts = 0;
}

void pairer_thread_exit_at(struct pairer *p, uint32_t tid, uint64_t ts)
{
	struct pair_thread *t = pair_thread(p, tid, 0);

	if (t && (t->depth || t->nr_blocks))
		t->exit_ts = ts ? ts : 1;
}

/* Free @tid's shadow stack, deleting by backward shift (openaddr.h). */
void pairer_forget(struct pairer *p, uint32_t tid)
{
	size_t i = pair_slot(p, tid), j, home;

	if (!p->threads[i])
		return;
	p->stats.unpaired_entries += p->threads[i]->depth +
				     p->threads[i]->nr_blocks;
	free(p->threads[i]->frames);
	free(p->threads[i]->blocks);
	free(p->threads[i]);
	for (j = i;;) {
		j = (j + 1) & (p->cap - 1);
		if (!p->threads[j])
			break;
		home = pair_home(p, p->threads[j]->tid);
		if (openaddr_may_fill(home, i, j)) {
			p->threads[i] = p->threads[j];
			i = j;
		}
	}
	p->threads[i] = NULL;
	p->used--;
}

void pairer_flush(struct pairer *p)
{
	size_t i;

	for (i = 0; i < p->cap; i++) {
		if (!p->threads[i])
			continue;
		p->stats.unpaired_entries += p->threads[i]->depth +
					     p->threads[i]->nr_blocks;
		p->threads[i]->depth = 0;
		p->threads[i]->nr_blocks = 0;
	}
}

const struct pair_stats *pairer_stats(const struct pairer *p)
{
	return &p->stats;
}

void pairer_free(struct pairer *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->cap; i++) {
		if (p->threads[i]) {
			free(p->threads[i]->frames);
			free(p->threads[i]->blocks);
		}
		free(p->threads[i]);
	}
	free(p->threads);
	free(p->markers);
	free(p->callees);
	free(p);
}
