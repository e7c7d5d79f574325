// SPDX-License-Identifier: GPL-2.0
/*
 * Time no record tells, left out of the threads' lifetimes.  A replay's
 * damaged chunk (sci.h, sci_lost()), whose calls are gone, is every
 * thread's: kept as spans, each thread's share is taken over the interval
 * it lived, when it closes (sci.c, thread_close()) or its lifetime is
 * read (sci_internal.h, sci_thread_lifetime()).  A ring's drop of a
 * thread's records is that thread's (sci_thread_lost(), for each thread
 * the drop stops from scoring: pipeline_losses.c), added to its own lost
 * time at once.
 */
#include <errno.h>

#include "analysis/sci_internal.h"

/*
 * A new replay span [@from, @to) that meets a thread's own lost time
 * (sci_thread_lost()) would take that time twice: the own span gives back
 * what it counted of it (net of the replay spans before).  Only the
 * last own span can reach past @from: spans that meet are one, and one
 * that does not meet the last begins at a drop read by then.  A walk of
 * the threads, once a damaged chunk.
 */
static void lost_own_given_back(struct sci_engine *e, uint64_t from,
				uint64_t to)
{
	struct sci_thread *t;
	uint64_t a, b, back;
	size_t i;

	for (i = 0; i < e->nr_threads; i++) {
		t = &e->threads[i];
		if (t->free || !t->open || t->lost_to <= from)
			continue;
		a = t->lost_from > from ? t->lost_from : from;
		b = t->lost_to < to ? t->lost_to : to;
		if (b <= a)
			continue;
		back = b - a - sci_lost_overlap(e, a, b);
		t->lost -= back < t->lost ? back : t->lost;
		/* The block's share will leave the span out itself. */
		t->lost_aside -= sci_lost_own_in(e, t, a, b);
	}
}

int sci_lost(struct sci_engine *e, uint64_t from, uint64_t to)
{
	struct sci_span *last;

	if (to <= from)
		return 0;
	/* They come in order: one that meets the last extends it. */
	last = e->nr_lost ? &e->lost[e->nr_lost - 1] : NULL;
	if (last && from <= last->to) {
		lost_own_given_back(e, from, to);
		if (to > last->to)
			last->to = to;
		return 0;
	}
	/* Room first: nothing is given back for a span not kept. */
	if (sci_reserve(e, &e->lost, &e->cap_lost, e->nr_lost + 1,
			sizeof(*e->lost)))
		return -ENOMEM;
	last = e->nr_lost ? &e->lost[e->nr_lost - 1] : NULL;
	lost_own_given_back(e, from, to);
	e->lost[e->nr_lost] = (struct sci_span){
		.from = from, .to = to,
		.before = last ? last->before + last->to - last->from : 0,
	};
	e->nr_lost++;
	return 0;
}

/*
 * Of [@from, @to), what the last solo block that ended admitted for @t,
 * once no block admits: a drop told after its END (the stretch to a
 * return after it, a LOST read late).  Its share was taken at the END.
 */
static uint64_t lost_in_ended_block(const struct sci_engine *e,
				    const struct sci_thread *t,
				    uint64_t from, uint64_t to)
{
	uint64_t lo = e->ended_begin, hi = e->ended_until;

	if (e->aside_open)
		return 0;
	if (lo < from)
		lo = from;
	if (lo < t->aside_from)
		lo = t->aside_from;
	if (hi > to)
		hi = to;
	return hi > lo ? hi - lo - sci_lost_overlap(e, lo, hi) : 0;
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
	t->lost_aside += sci_thread_aside_overlap(e, t, from, to) +
			 lost_in_ended_block(e, t, from, to);
	/* One that meets the last makes one span with it. */
	if (from != t->lost_to)
		t->lost_from = from;
	t->lost_to = to;
	return span;
}
