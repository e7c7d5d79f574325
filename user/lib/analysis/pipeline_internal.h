/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pipeline's three parts share: the record flow (pipeline.c),
 * its setup (pipeline_setup.c: the probes, their keys) and the per-thread
 * state with the threads' lifetimes (pipeline_threads.c).  Nothing
 * outside those three files includes this.
 */
#ifndef ISPOT_PIPELINE_INTERNAL_H
#define ISPOT_PIPELINE_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/pipeline.h"

struct stacks_wait;

/*
 * How a key is read from an execution, worked out once per probe from
 * its rule (key_sel_of()), so that keying an execution is a load and a
 * few selects, not a branch on the rule's kind: the probes of a trace
 * come in any order, and such a branch is mispredicted as often.
 */
struct key_sel {
	uint32_t off;		/* the field's offset in struct pair_exec */
	uint64_t mask;		/* 0: unkeyed, the key is 0 */
	bool log2;		/* bucket by floor(log2(value)) + 1 */
	uint8_t add;		/* 1: shifted (KEY_ARG), see key_sel_of() */
	uint8_t fix;		/* 1: a 0 reads as 1 (KEY_CALLSITE, SHAPE) */
};

struct pipeline_probe {
	bool used;
	bool marker;	/* a block's begin or end, not a function's entry */
	bool end_marker;	/* a block's end: its stack samples are not kept */
	bool sync;	/* a lock call: wakes inside count for its caller */
	uint32_t func_id;
	struct key_rule key;
	struct key_sel sel;	/* key, as key_of() reads it */
	uint32_t shadow;	/* KEY_AUTO: its arg0:log2 shadow id, 0 = none */
	/* Calls still open when the pipeline finished (pipeline_finish()). */
	uint32_t open_at_end;
};

static inline struct key_sel key_sel_of(const struct key_rule *rule)
{
	struct key_sel s = { .off = offsetof(struct pair_exec, callsite) };

	switch (rule->kind) {
	case KEY_ARG:
		s.off = offsetof(struct pair_exec, args) +
			rule->arg * sizeof(uint64_t);
		s.mask = UINT64_MAX;
		s.log2 = rule->log2;
		/*
		 * Shifted so that a keyed block never has key 0, which reads
		 * as "unkeyed"; UINT64_MAX wraps to 0 and is named correctly
		 * all the same, since names undo the shift.
		 */
		s.add = 1;
		break;
	case KEY_CALLSITE:
		s.mask = UINT64_MAX;
		s.fix = 1;
		break;
	case KEY_SHAPE:
		s.off = offsetof(struct pair_exec, shape.hash);
		s.mask = UINT64_MAX;
		s.fix = 1;
		break;
	case KEY_NONE:
	default:
		break;
	}
	return s;
}

static inline uint64_t key_of(const struct key_sel *s,
			      const struct pair_exec *e)
{
	uint64_t v, lg;

	memcpy(&v, (const char *)e + s->off, sizeof(v));
	v &= s->mask;
	lg = v ? 64 - (uint64_t)__builtin_clzll(v) : 0;
	v = s->log2 ? lg : v;
	return (v + s->add) | (s->fix & (v == 0));
}

/*
 * A thread's state: each analysis's part of it, so that a record looks
 * its thread up once and hands each analysis its own part.
 */
struct pipeline_thread {
	struct pair_thread pair;	/* its open calls and blocks */
	struct tl_thread *tl;		/* NULL till the timeline has it */
	uint32_t sci;			/* the engine's handle of it */
	uint64_t last_call_ts;		/* its last ENTRY's or EXIT's time */
	/*
	 * A ring dropped its records up to this time (0: none since its
	 * last call record): pipeline_call_after_drop() looks at its next.
	 */
	uint64_t dropped_until;
	uint64_t sci_folds;		/* *pipeline.sci_folds when it was */
	bool inside;			/* counted in pipeline.inside */
	/*
	 * Its last GATE record, for the ENTRY that follows it; none if
	 * records were lost since (pair_lost_before()): that ENTRY may be
	 * among them.
	 */
	bool gate_pending;
	uint32_t gate_probe;
	uint32_t gate_flags;		/* ISPOT_GATE_* */
	uint64_t gate_sp;
	uint64_t gate_ts;
	/*
	 * A timeout opened the gate on its gated call (pipeline_gated()),
	 * at displaced_ts: no call begun after it is that call.
	 */
	bool gate_displaced;
	uint64_t displaced_ts;
	/* A sampled stack waiting for its calls' returns (stacks_wait.h). */
	struct stacks_wait *stack_wait;
};

/*
 * pipeline_losses.c: @th's first call record @rec after a drop of its
 * records; @paired as the pairer returned it (1: a call to score).
 */
void pipeline_call_after_drop(struct pipeline *p, struct pipeline_thread *th,
			      const struct ispot_record *rec, int paired);

/* @th's (@tid's) calls changed at @ts: keep pipeline.inside up to date. */
static inline void pipeline_thread_inside(struct pipeline *p,
					  struct pipeline_thread *th,
					  uint32_t tid, uint64_t ts)
{
	bool inside = th->pair.depth > 0;

	if (inside != th->inside) {
		th->inside = inside;
		if (inside) {
			p->inside++;
		} else {
			p->inside--;
			/* A block admits: see sci_solo_inside(). */
			if (p->solo_window)
				sci_solo_outside(p->sci, th->sci, tid, ts);
		}
	}
}

/* A new state for @tid; NULL without memory. */
struct pipeline_thread *pipeline_thread_new(struct pipeline *p, uint32_t tid);

/* @tid's state, made on first sight; NULL without memory. */
static inline struct pipeline_thread *pipeline_thread(struct pipeline *p,
						      uint32_t tid)
{
	struct pipeline_thread *th = hashmap_find_ptr(&p->threads, tid);

	return th ? th : pipeline_thread_new(p, tid);
}

/* @tid's state if it was @cpu's last record's thread, else NULL. */
static inline struct pipeline_thread *pipeline_last_on(struct pipeline *p,
						       uint32_t tid,
						       uint32_t cpu)
{
	struct pipeline_last *l = &p->last[cpu % PIPE_LAST_CPUS];

	return l->tid == tid ? l->th : NULL;
}

/* @tid's state, for a record of it on @cpu: that CPU's last one first. */
static inline struct pipeline_thread *pipeline_thread_on(struct pipeline *p,
							 uint32_t tid,
							 uint32_t cpu)
{
	struct pipeline_last *l = &p->last[cpu % PIPE_LAST_CPUS];

	if (l->th && l->tid == tid)
		return l->th;
	l->th = pipeline_thread(p, tid);
	l->tid = tid;
	return l->th;
}

/*
 * @th's part of the timeline, made when the timeline first has a record
 * of it (as it would make it, by tid); -ENOMEM without memory.  Inline,
 * the test alone: every record of a traced call asks.
 */
static inline int pipeline_tl(struct pipeline_thread *th, uint32_t tid)
{
	if (!th->tl)
		th->tl = timeline_thread_new(tid);
	return th->tl ? 0 : -ENOMEM;
}
/* Forget every thread's handle in the engine (a new engine). */
void pipeline_threads_unhold(struct pipeline *p);
/* Free every thread's state, for pipeline_free(). */
void pipeline_threads_free(struct pipeline *p);

#endif /* ISPOT_PIPELINE_INTERNAL_H */
