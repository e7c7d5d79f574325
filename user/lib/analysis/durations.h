/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded sample of each (function, thread)'s call durations, for the
 * per-thread lines of the sorted-durations picture (report/pictures.h):
 * the engine keeps a histogram per block, not per thread (58 KiB each).
 *
 * Kept only when a picture is asked for (pipeline_enable_durations());
 * otherwise the pipeline pays one NULL test per call.  Per function, the
 * first DURATIONS_THREADS threads seen get a sample each, and every later
 * thread shares one more ("other threads").  A sample holds every call up
 * to DURATIONS_CAP, and above it a uniform random DURATIONS_CAP of them
 * (reservoir sampling, Vitter's algorithm R), so its sorted values are an
 * unbiased picture of the sorted curve; the fastest and the slowest call
 * are kept exactly beside it.  Memory: at most (DURATIONS_THREADS + 1) x
 * DURATIONS_CAP x 8 bytes (288 KiB) per function, whatever the calls.
 */
#ifndef ISPOT_DURATIONS_H
#define ISPOT_DURATIONS_H

#include <stddef.h>
#include <stdint.h>

#define DURATIONS_CAP		4096
#define DURATIONS_THREADS	8
/* The tid of the sample the threads beyond DURATIONS_THREADS share. */
#define DURATIONS_OTHER		0

struct duration_sample {
	uint32_t tid;		/* DURATIONS_OTHER: the later threads */
	uint64_t calls;		/* seen, of which nr are kept */
	uint64_t min, max;	/* exact */
	size_t nr;
	uint64_t *ns;		/* nr of them, in no order */
	size_t cap;
};

struct durations;

struct durations *durations_new(void);
void durations_free(struct durations *d);
/* One call of function @func_id in @tid that took @ns.  0 or -ENOMEM. */
int durations_add(struct durations *d, uint32_t func_id, uint32_t tid,
		  uint64_t ns);
/*
 * The samples of function @func_id, in the order their threads were
 * first seen (the shared one last), into *@out; returns how many (0 if
 * none), at most DURATIONS_THREADS + 1.  Valid until the next add.
 */
size_t durations_of(const struct durations *d, uint32_t func_id,
		    const struct duration_sample **out);

#endif /* ISPOT_DURATIONS_H */
