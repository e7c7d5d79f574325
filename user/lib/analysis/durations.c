// SPDX-License-Identifier: GPL-2.0
/* Bounded samples of call durations per function and thread; durations.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "analysis/durations.h"

/* One function's samples: its first threads', then the shared one. */
struct func_samples {
	size_t nr;
	struct duration_sample s[DURATIONS_THREADS + 1];
};

struct durations {
	struct func_samples **funcs;	/* by function id, NULL = none yet */
	size_t nr_funcs;
	uint64_t rng;
};

/* xorshift64*: cheap, and the same picture from the same trace. */
static uint64_t next_random(struct durations *d)
{
	d->rng ^= d->rng >> 12;
	d->rng ^= d->rng << 25;
	d->rng ^= d->rng >> 27;
	return d->rng * 0x2545f4914f6cdd1dULL;
}

struct durations *durations_new(void)
{
	struct durations *d = calloc(1, sizeof(*d));

	if (d)
		d->rng = 0x9e3779b97f4a7c15ull;
	return d;
}

void durations_free(struct durations *d)
{
	size_t i, k;

	if (!d)
		return;
	for (i = 0; i < d->nr_funcs; i++) {
		for (k = 0; d->funcs[i] && k < d->funcs[i]->nr; k++)
			free(d->funcs[i]->s[k].ns);
		free(d->funcs[i]);
	}
	free(d->funcs);
	free(d);
}

static struct func_samples *func_get(struct durations *d, uint32_t func_id)
{
	/* Indexed by function id: what growth adds reads as "none yet". */
	if (ARRAY_RESERVE(d->funcs, d->nr_funcs, (size_t)func_id + 1))
		return NULL;
	if (!d->funcs[func_id])
		d->funcs[func_id] = calloc(1, sizeof(struct func_samples));
	return d->funcs[func_id];
}

/* @tid's sample, or the shared one once DURATIONS_THREADS are taken. */
static struct duration_sample *sample_get(struct func_samples *f,
					  uint32_t tid)
{
	struct duration_sample *s;
	size_t k;

	for (k = 0; k < f->nr; k++)
		if (f->s[k].tid == tid && tid != DURATIONS_OTHER)
			return &f->s[k];
	if (f->nr == DURATIONS_THREADS + 1)
		return &f->s[DURATIONS_THREADS];
	s = &f->s[f->nr++];
	s->tid = f->nr == DURATIONS_THREADS + 1 ? DURATIONS_OTHER : tid;
	s->min = UINT64_MAX;
	return s;
}

int durations_add(struct durations *d, uint32_t func_id, uint32_t tid,
		  uint64_t ns)
{
	struct func_samples *f = func_get(d, func_id);
	struct duration_sample *s;
	uint64_t slot;

	if (!f)
		return -ENOMEM;
	s = sample_get(f, tid);
	s->calls++;
	if (ns < s->min)
		s->min = ns;
	if (ns > s->max)
		s->max = ns;
	if (s->nr < DURATIONS_CAP) {
		if (ARRAY_RESERVE(s->ns, s->cap, s->nr + 1))
			return -ENOMEM;
		s->ns[s->nr++] = ns;
		return 0;
	}
	/* Algorithm R: the calls-th call replaces one with CAP/calls odds. */
	slot = next_random(d) % s->calls;
	if (slot < DURATIONS_CAP)
		s->ns[slot] = ns;
	return 0;
}

size_t durations_of(const struct durations *d, uint32_t func_id,
		    const struct duration_sample **out)
{
	const struct func_samples *f;

	*out = NULL;
	if (!d || func_id >= d->nr_funcs || !d->funcs[func_id])
		return 0;
	f = d->funcs[func_id];
	*out = f->s;
	return f->nr;
}
