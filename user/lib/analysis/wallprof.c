// SPDX-License-Identifier: GPL-2.0
/* The off-CPU half of a wall-clock profile; see wallprof.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/wallprof.h"
#include "util/array.h"

/* prev_state's bit for an uninterruptible sleep (TASK_UNINTERRUPTIBLE). */
#define WALL_TASK_UNINTERRUPTIBLE	0x0002
/* Samples kept, at most: about 50 MB; the rest are counted as lost. */
#define WALLPROF_MAX_SAMPLES		65536

const char *const wall_kind_names[WALL_NR_KINDS] = {
	[WALL_FUTEX] = "futex",
	[WALL_IO] = "io",
	[WALL_RUNQ] = "runq",
	[WALL_SLEEP] = "sleep",
};

struct wallprof_thread {
	uint64_t out_ts;		/* 0: on a CPU */
	enum wall_kind kind;		/* of the period under way */
	bool in_futex;
	long pending;			/* this period's sample, or -1 */
	uint64_t off_ns[WALL_NR_KINDS];
	double sampled[WALL_NR_KINDS];	/* weight x period, its samples */
};

void wallprof_init(struct wallprof *wp)
{
	memset(wp, 0, sizeof(*wp));
}

void wallprof_free(struct wallprof *wp)
{
	const struct hashmap_entry *e;
	size_t pos;

	hashmap_for_each(&wp->threads, e, pos)
		free((void *)(uintptr_t)e->value);
	hashmap_free(&wp->threads);
	free(wp->samples);
	memset(wp, 0, sizeof(*wp));
}

static struct wallprof_thread *wallprof_thread(struct wallprof *wp,
					       uint32_t tid)
{
	struct wallprof_thread *th = hashmap_find_ptr(&wp->threads, tid);

	if (th)
		return th;
	th = calloc(1, sizeof(*th));
	if (!th || hashmap_insert(&wp->threads, tid, (uintptr_t)th)) {
		free(th);
		wp->nomem++;
		return NULL;
	}
	th->pending = -1;
	return th;
}

/*
 * An OFF_STACK as the ABI lays it out: frames in the slots after the
 * first, words from the slot after the frames' last.  Refused (and
 * counted) when its counts and its slots disagree.
 */
static void wallprof_stack(struct wallprof *wp, struct wallprof_thread *th,
			   const struct ispot_record *rec)
{
	uint32_t nframes = rec->data[0] & 0xffff;
	uint32_t nwords = (rec->data[0] >> 16) & 0xffff;
	uint32_t frame_slots = (nframes + 7) / 8;
	const uint64_t *payload = (const uint64_t *)(rec + 1);
	struct wallprof_sample *s;

	th->pending = -1;
	if (nframes > ISPOT_STACK_MAX_FRAMES ||
	    nwords > ISPOT_OFFCPU_MAX_WORDS || nwords % 8 ||
	    rec->nslots != 1 + frame_slots + nwords / 8 || !rec->data[1]) {
		wp->malformed++;
		return;
	}
	if (wp->nr_samples == WALLPROF_MAX_SAMPLES ||
	    ARRAY_RESERVE(wp->samples, wp->cap_samples, wp->nr_samples + 1)) {
		wp->nomem++;
		return;
	}
	s = &wp->samples[wp->nr_samples];
	memset(s, 0, sizeof(*s));
	s->tid = rec->tid;
	s->ts = rec->ts_ns;
	s->ip = rec->ip;
	s->sp = rec->sp;
	s->weight = rec->data[1];
	s->nframes = nframes;
	s->nwords = nwords;
	memcpy(s->frames, payload, nframes * sizeof(*payload));
	memcpy(s->words, payload + frame_slots * 8, nwords * sizeof(*payload));
	th->pending = (long)wp->nr_samples++;
}

/* What kind of wait a SWITCH_OUT starts. */
static enum wall_kind wallprof_kind(const struct wallprof_thread *th,
				    const struct ispot_record *rec)
{
	if (rec->data[0])
		return WALL_RUNQ;
	if (th->in_futex)
		return WALL_FUTEX;
	if (rec->data[1] & WALL_TASK_UNINTERRUPTIBLE)
		return WALL_IO;
	return WALL_SLEEP;
}

static void wallprof_switch_out(struct wallprof_thread *th,
				struct wallprof *wp,
				const struct ispot_record *rec)
{
	th->out_ts = rec->ts_ns;
	th->kind = wallprof_kind(th, rec);
	/* A stack is this period's only if it came at the same moment. */
	if (th->pending >= 0 && wp->samples[th->pending].ts == rec->ts_ns)
		wp->samples[th->pending].kind = th->kind;
	else
		th->pending = -1;
}

static void wallprof_switch_in(struct wallprof_thread *th,
			       struct wallprof *wp,
			       const struct ispot_record *rec)
{
	struct wallprof_sample *s;
	uint64_t d;

	if (!th->out_ts || rec->ts_ns < th->out_ts) {
		th->out_ts = 0;
		th->pending = -1;
		return;
	}
	d = rec->ts_ns - th->out_ts;
	th->off_ns[th->kind] += d;
	wp->off_ns[th->kind] += d;
	wp->periods++;
	if (th->pending >= 0) {
		s = &wp->samples[th->pending];
		s->period_ns = d ? d : 1;
		th->sampled[th->kind] += (double)s->weight * s->period_ns;
	}
	th->out_ts = 0;
	th->pending = -1;
}

void wallprof_record(struct wallprof *wp, const struct ispot_record *rec)
{
	struct wallprof_thread *th;

	switch (rec->kind) {
	case ISPOT_REC_OFF_STACK:
	case ISPOT_REC_SWITCH_OUT:
	case ISPOT_REC_SWITCH_IN:
	case ISPOT_REC_FUTEX_ENTER:
	case ISPOT_REC_FUTEX_EXIT:
		break;
	default:
		return;
	}
	th = wallprof_thread(wp, rec->tid);
	if (!th)
		return;
	switch (rec->kind) {
	case ISPOT_REC_OFF_STACK:
		wallprof_stack(wp, th, rec);
		break;
	case ISPOT_REC_SWITCH_OUT:
		wallprof_switch_out(th, wp, rec);
		break;
	case ISPOT_REC_SWITCH_IN:
		wallprof_switch_in(th, wp, rec);
		break;
	case ISPOT_REC_FUTEX_ENTER:
		th->in_futex = true;
		break;
	default:
		th->in_futex = false;
		break;
	}
}

void wallprof_finish(struct wallprof *wp)
{
	size_t i;

	for (i = 0; i < wp->nr_samples; i++) {
		struct wallprof_sample *s = &wp->samples[i];
		const struct wallprof_thread *th;

		th = hashmap_find_ptr(&wp->threads, s->tid);
		if (!th || !s->period_ns || !(th->sampled[s->kind] > 0))
			continue;
		s->off_ns = (uint64_t)((double)th->off_ns[s->kind] *
				       ((double)s->weight * s->period_ns) /
				       th->sampled[s->kind]);
	}
}
