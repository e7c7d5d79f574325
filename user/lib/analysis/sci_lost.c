// SPDX-License-Identifier: GPL-2.0
/*
 * Time a replay knows nothing of, left out of the threads' lifetimes
 * (sci.h, sci_lost()): a damaged chunk's, whose calls are gone.  Counted
 * apart from the lifetime (sci_thread.lost), which subtracts it
 * (sci_internal.h, sci_thread_lifetime()).
 */
#include "analysis/sci_internal.h"

void sci_lost(struct sci_engine *e, uint64_t from, uint64_t to)
{
	size_t i;

	/* Only the threads alive then, from when each began. */
	for (i = 0; i < e->nr_threads; i++) {
		struct sci_thread *t = &e->threads[i];
		uint64_t lo = from > t->start ? from : t->start;

		if (!t->free && t->open && to > lo)
			t->lost += to - lo;
	}
}
