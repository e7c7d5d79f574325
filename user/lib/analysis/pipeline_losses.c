// SPDX-License-Identifier: GPL-2.0
/*
 * Lost records (pipeline.h, pipeline_lost(), pipeline_ring_lost()): the
 * calls they may have cut in two are not scored, and the time whose calls
 * are gone leaves the lifetimes of the threads it was lost in, so that
 * each SCI is the share of the time its kept records tell.
 *
 * A ring's drop leaves out, of each thread it stopped from scoring, the
 * stretch whose calls cannot be scored and holds no call that is:
 *   - from its last call record before the drop, if a call was open
 *     then (the call's return cannot be scored, and no record came
 *     between), else from the first drop;
 *   - to the last drop;
 *   - then to its first call record after, if that is a return that
 *     does not pair (its entry was dropped, or it was open at the drop).
 * The calls around that stretch keep their own time, as a nested
 * function's calls inside an outer call whose entry or return was lost
 * are scored; so the stretch stops at the first record either side.
 */
#include <errno.h>

#include "analysis/pipeline_internal.h"

/*
 * Records of @th, or of every thread (NULL), were lost before @before: the
 * calls and futex waits open then score nothing, nor does a GATE before
 * it (pipeline_gate_word(), pipeline_gated()).  Bounds, not a walk of
 * every thread: a ring near full tells often, a damaged recording once a
 * chunk.
 */
static void pipeline_records_lost(struct pipeline *p,
				  struct pipeline_thread *th, uint64_t before)
{
	if (!th) {
		pairer_all_lost(p->pairer, before);
		if (p->tl)
			timeline_all_lost(p->tl, before);
		return;
	}
	pair_thread_lost(&th->pair, before);
	if (th->tl)
		timeline_thread_lost(th->tl, before);
}

int pipeline_lost(struct pipeline *p, uint64_t from, uint64_t to)
{
	/* The last record read was at @from: what it opened was open too. */
	pipeline_records_lost(p, NULL, from + 1);
	return sci_lost(p->sci, from, to);
}

/* [@from, @to) leaves @tid's lifetime (sci_thread_lost()). */
static void pipeline_thread_lost_time(struct pipeline *p, uint32_t tid,
				      uint64_t from, uint64_t to)
{
	p->stats.ring_lost_ns += sci_thread_lost(p->sci, tid, from, to);
}

/*
 * @th (@tid) lost records from @from to @to: the stretch before the drop
 * (the file's comment) if it was inside a call, and it waits for its
 * first call record after.  The drop's own time, when it was of every
 * thread (@own false), is the caller's.
 */
static void pipeline_thread_drop(struct pipeline *p,
				 struct pipeline_thread *th, uint32_t tid,
				 uint64_t from, uint64_t to, bool own)
{
	uint64_t start = from;

	if (th->pair.depth && th->last_call_ts && th->last_call_ts < from)
		start = th->last_call_ts;
	if (own)
		pipeline_thread_lost_time(p, tid, start, to);
	else if (start < from)
		pipeline_thread_lost_time(p, tid, start, from);
	th->dropped_until = to;
}

void pipeline_ring_lost(struct pipeline *p, const struct ispot_record *rec)
{
	/*
	 * Up to the last drop: a thread may have opened a call on another
	 * CPU meanwhile, and lost its return on this one.
	 */
	uint64_t from = rec->ts_ns, before = rec->data[1] + 1, was;
	const struct hashmap_entry *e;
	struct pipeline_thread *th;
	size_t pos;

	p->stats.ring_losses++;
	p->stats.ring_lost_records += rec->data[0];
	if (!(rec->data[2] & ISPOT_LOST_SEVERAL)) {
		/* A thread never seen had no call open; 0: no thread. */
		th = rec->tid ? hashmap_find_ptr(&p->threads, rec->tid) : NULL;
		if (!th)
			return;
		pipeline_records_lost(p, th, before);
		pipeline_thread_drop(p, th, rec->tid, from, before, true);
		return;
	}
	/*
	 * Every thread's calls begun before the last drop are stopped, so
	 * the drop's time is every thread's: one span (sci_lost()), and a
	 * walk of the threads for the stretches around it.  A ring tells
	 * at most once a drain round, as it takes a record only once read.
	 */
	pipeline_records_lost(p, NULL, before);
	hashmap_for_each(&p->threads, e, pos)
		pipeline_thread_drop(p, (void *)(uintptr_t)e->value,
				     (uint32_t)e->key, from, before, false);
	was = sci_lost_ns(p->sci);
	if (sci_lost(p->sci, from, before))
		p->stats.nomem++;
	p->stats.ring_lost_ns += sci_lost_ns(p->sci) - was;
}

void pipeline_call_after_drop(struct pipeline *p, struct pipeline_thread *th,
			      const struct ispot_record *rec, bool paired)
{
	uint64_t to = th->dropped_until;

	th->dropped_until = 0;
	if (rec->kind == ISPOT_REC_EXIT && !paired && rec->ts_ns >= to)
		pipeline_thread_lost_time(p, rec->tid, to, rec->ts_ns + 1);
}
