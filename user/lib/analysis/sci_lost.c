// SPDX-License-Identifier: GPL-2.0
/*
 * Time a replay knows nothing of, left out of the threads' lifetimes
 * (sci.h, sci_lost()): a damaged chunk's, whose calls are gone.  Kept as
 * spans; each thread's share is taken over the interval it lived, when
 * it closes (sci.c, thread_close()) or its lifetime is read
 * (sci_internal.h, sci_thread_lifetime()).
 */
#include <errno.h>

#include "analysis/sci_internal.h"

int sci_lost(struct sci_engine *e, uint64_t from, uint64_t to)
{
	struct sci_span *last;

	if (to <= from)
		return 0;
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
	e->lost[e->nr_lost++] = (struct sci_span){ from, to };
	return 0;
}
