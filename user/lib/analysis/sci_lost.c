// SPDX-License-Identifier: GPL-2.0
/*
 * Time no record tells, left out of the threads' lifetimes.  A replay's
 * damaged chunk (sci.h, sci_lost()), whose calls are gone, is every
 * thread's: kept as spans, each thread's share is taken over the interval
 * it lived, when it closes (sci.c, thread_close()) or its lifetime is
 * read (sci_internal.h, sci_thread_lifetime()).  So is a ring's drop
 * of several threads' records (pipeline_ring_lost()); one of a single
 * thread's is that thread's (sci_thread_lost()), added to its own lost
 * time at once.
 */
#include <errno.h>

#include "analysis/sci_internal.h"

/*
 * A new global span [@from, @to) that meets a thread's last own span
 * (sci_thread_lost()) would take that time twice: the own span gives it
 * back.  Only the last: a damaged chunk begins where the records read
 * end, which only the last own span can reach past.  A walk of the
 * threads, once a damaged chunk.
 */
static void lost_own_given_back(struct sci_engine *e, uint64_t from,
				uint64_t to)
{
	struct sci_thread *t;
	uint64_t a, b;
	size_t i;

	for (i = 0; i < e->nr_threads; i++) {
		t = &e->threads[i];
		if (t->free || !t->open || t->lost_to <= from)
			continue;
		a = t->lost_from > from ? t->lost_from : from;
		b = t->lost_to < to ? t->lost_to : to;
		if (b <= a)
			continue;
		t->lost -= b - a < t->lost ? b - a : t->lost;
		t->lost_to = a;
	}
}

int sci_lost(struct sci_engine *e, uint64_t from, uint64_t to)
{
	struct sci_span *last;

	if (to <= from)
		return 0;
	lost_own_given_back(e, from, to);
	/* They come in order: one that meets the last extends it. */
	last = e->nr_lost ? &e->lost[e->nr_lost - 1] : NULL;
	if (last && from <= last->to) {
		if (to > last->to)
			last->to = to;
		return 0;
	}
	if (sci_reserve(e, &e->lost, &e->cap_lost, e->nr_lost + 1,
			sizeof(*e->lost)))
		return -ENOMEM;
	e->lost[e->nr_lost] = (struct sci_span){
		.from = from, .to = to,
		.before = last ? last->before + last->to - last->from : 0,
	};
	e->nr_lost++;
	return 0;
}

uint64_t sci_thread_lost(struct sci_engine *e, uint32_t tid, uint64_t from,
			 uint64_t to)
{
	long i = sci_thread_index(e, tid);
	struct sci_thread *t;
	uint64_t span;

	if (i < 0)
		return 0;
	t = &e->threads[i];
	if (!t->open)
		return 0;
	if (from < t->start)
		from = t->start;
	if (from < t->lost_to)
		from = t->lost_to;
	if (to <= from)
		return 0;
	span = to - from - sci_lost_overlap(e, from, to);
	t->lost += span;
	t->lost_aside += sci_thread_aside_overlap(e, t, from, to);
	t->lost_from = from;
	t->lost_to = to;
	return span;
}
