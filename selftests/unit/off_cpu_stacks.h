/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Off-CPU stacks made by hand, as the module gives them (analysis/
 * wallprof.h), for the tests of --auto's choice (test_autopick.c,
 * test_autopick_maps.c).  Include after ispot_test.h.
 */
#ifndef ISPOT_TEST_OFF_CPU_STACKS_H
#define ISPOT_TEST_OFF_CPU_STACKS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/wallprof.h"

/*
 * A stack of @ms of waits of @kind added to @wp: the ip inside the C
 * library's syscall(), then the stack words the module copies (the C
 * library has no frame pointers), a stale number and the return address
 * @ret, and @frames[0..@nframes) as the walk's.
 */
static inline void off_cpu_stack(struct wallprof *wp, enum wall_kind kind,
				 uint64_t ms, uint64_t ret,
				 const uint64_t *frames, uint32_t nframes)
{
	struct wallprof_sample *s, *grown;

	/* Through a temporary: a failed realloc() leaves the old array. */
	grown = realloc(wp->samples,
			(wp->nr_samples + 1) * sizeof(*wp->samples));
	ASSERT_TRUE(grown != NULL);
	wp->samples = grown;
	s = &wp->samples[wp->nr_samples++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->ip = (uintptr_t)syscall + 16;
	s->nwords = 8;
	s->words[0] = 0x1234;
	s->words[3] = ret;
	s->nframes = nframes;
	if (nframes)
		memcpy(s->frames, frames, nframes * sizeof(*frames));
	s->weight = 1;
	s->off_ns = ms * 1000000ull;
	wp->off_ns[kind] += s->off_ns;
}

#endif /* ISPOT_TEST_OFF_CPU_STACKS_H */
