/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pipeline's two halves share: the record flow (pipeline.c) and
 * the per-thread state with the threads' lifetimes (pipeline_threads.c).
 * Nothing outside those two files includes this.
 */
#ifndef ISPOT_PIPELINE_INTERNAL_H
#define ISPOT_PIPELINE_INTERNAL_H

#include <stdint.h>

#include "analysis/pipeline.h"

/*
 * A thread's state: each analysis's part of it, so that a record looks
 * its thread up once and hands each analysis its own part.
 */
struct pipeline_thread {
	struct pair_thread pair;	/* its open calls and blocks */
	struct tl_thread *tl;		/* NULL until the timeline sees it */
	uint32_t sci;			/* the engine's handle of it */
};


/* @tid's state, made on first sight; NULL without memory. */
struct pipeline_thread *pipeline_thread(struct pipeline *p, uint32_t tid);
/*
 * @th's part of the timeline, made when the timeline first has a record
 * of it (as it would make it, by tid); -ENOMEM without memory.
 */
int pipeline_tl(struct pipeline_thread *th, uint32_t tid);
/*
 * @rec's thread, held by the engine: its TASK_NEW may be lost, and its
 * calls never complete, but the engine holds it all the same, or it
 * would never be forgotten (pipeline_forget_exited()).  NULL without
 * memory for its state (the engine holds it even then).
 */
struct pipeline_thread *pipeline_held(struct pipeline *p,
				      const struct ispot_record *rec);
/* Free every thread's state, for pipeline_free(). */
void pipeline_threads_free(struct pipeline *p);

#endif /* ISPOT_PIPELINE_INTERNAL_H */
