// SPDX-License-Identifier: GPL-2.0
/*
 * Solo blocks' time set aside from the interference figure's (sci.h,
 * sci_solo_begin()): the block admitting now, and each thread's share of
 * the blocks' admission, which for a thread inside a call at the block's
 * BEGIN starts when that call returns (sci_solo_inside()).  A thread that
 * closes while a block admits takes its share then (sci.c,
 * thread_close()); the others at the block's end.
 */
#include "analysis/sci_internal.h"

void sci_solo_begin(struct sci_engine *e, uint64_t ts, uint64_t deadline)
{
	size_t i;

	/* A BEGIN whose block's END was lost ends that block. */
	sci_solo_end(e, ts);
	e->aside_open = deadline > ts;
	e->aside_begin = ts;
	e->aside_until = deadline;
	for (i = 0; i < e->nr_threads; i++)
		e->threads[i].aside_from = 0;
}

/*
 * Handle @ref's slot if it still holds @tid: a handle outlives a fold of
 * its thread (pipeline.c keeps it), and its slot may be another's then.
 */
static struct sci_thread *solo_thread(struct sci_engine *e, uint32_t ref,
				      uint32_t tid)
{
	struct sci_thread *t;

	if (!ref || ref > e->nr_threads)
		return NULL;
	t = &e->threads[ref - 1];
	return !t->free && t->tid == tid ? t : NULL;
}

void sci_solo_inside(struct sci_engine *e, uint32_t ref, uint32_t tid)
{
	struct sci_thread *t = solo_thread(e, ref, tid);

	if (t && e->aside_open)
		t->aside_from = UINT64_MAX;
}

void sci_solo_outside(struct sci_engine *e, uint32_t ref, uint32_t tid,
		      uint64_t ts)
{
	struct sci_thread *t = solo_thread(e, ref, tid);

	if (t && t->aside_from == UINT64_MAX)
		t->aside_from = ts;
}

void sci_solo_carry(struct sci_engine *to, const struct sci_engine *from)
{
	to->aside_open = from->aside_open;
	to->aside_begin = from->aside_begin;
	to->aside_until = from->aside_until;
}

void sci_solo_end(struct sci_engine *e, uint64_t ts)
{
	size_t i;

	if (!e->aside_open)
		return;
	for (i = 0; ts < e->aside_until && i < e->nr_threads; i++) {
		struct sci_thread *t = &e->threads[i];

		/*
		 * Its own lost time was counted in the block as far as the
		 * deadline: not past an earlier END.  Only its last span
		 * reaches past @ts (sci_lost.c, lost_own_given_back()).
		 */
		if (t->open && !t->free)
			t->lost_aside -= sci_lost_own_in(e, t, ts,
							 e->aside_until);
	}
	if (ts < e->aside_until)
		e->aside_until = ts;
	/* The threads closed meanwhile took their share as they closed. */
	for (i = 0; i < e->nr_threads; i++) {
		struct sci_thread *t = &e->threads[i];

		if (t->open && !t->free)
			t->aside += sci_thread_aside_overlap(e, t, t->start,
							     e->aside_until);
	}
	e->aside_open = false;
	e->ended_begin = e->aside_begin;
	e->ended_until = e->aside_until;
}
