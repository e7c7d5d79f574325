/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pipeline's two halves share: the record flow (pipeline.c) and
 * the per-thread state with the threads' lifetimes (pipeline_threads.c).
 * Nothing outside those two files includes this.
 */
#ifndef ISPOT_PIPELINE_INTERNAL_H
#define ISPOT_PIPELINE_INTERNAL_H

#include <errno.h>
#include <stdint.h>

#include "analysis/pipeline.h"

/*
 * A thread's state: each analysis's part of it, so that a record looks
 * its thread up once and hands each analysis its own part.
 */
struct pipeline_thread {
	struct pair_thread pair;	/* its open calls and blocks */
	struct tl_thread *tl;		/* NULL till the timeline has it */
	uint32_t sci;			/* the engine's handle of it */
	uint64_t sci_folds;		/* *pipeline.sci_folds when it was */
	bool inside;			/* counted in pipeline.inside */
	/* Its last GATE record, for the ENTRY that follows it. */
	bool gate_pending;
	uint32_t gate_probe;
	uint32_t gate_flags;		/* ISPOT_GATE_* */
	uint64_t gate_sp;
	/* A timeout opened the gate on its gated call (pipeline_gated()). */
	bool gate_displaced;
};

/* @th's open calls changed: keep pipeline.inside up to date. */
static inline void pipeline_thread_inside(struct pipeline *p,
					  struct pipeline_thread *th)
{
	bool inside = th->pair.depth > 0;

	if (inside != th->inside) {
		th->inside = inside;
		if (inside)
			p->inside++;
		else
			p->inside--;
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
