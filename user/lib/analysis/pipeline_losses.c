// SPDX-License-Identifier: GPL-2.0
/*
 * Lost records (pipeline.h, pipeline_lost(), pipeline_ring_lost()): the
 * calls they may have cut in two are not scored, and the time whose calls
 * are gone leaves the lifetimes of the threads it was lost in, so that
 * each SCI is the share of the time its kept records tell.
 *
 * A ring's drop leaves out, of each thread it stops from scoring (the one
 * it names, or every thread for a drop of several), the stretch whose
 * calls cannot be scored and holds no call that was:
 *   - from its last call record read, if a call was open then (that
 *     call's return cannot be scored, and no record came since), else
 *     from the first drop or that record, the later;
 *   - to the last drop;
 *   - then to its first call record after, if that is a return that is
 *     not scored.
 * A LOST record is read late: it bears its first drop's time, but comes
 * after the other rings' records of that time (drain.c), which may have
 * been scored, of this thread too when it ran on another CPU.  So the
 * stretch starts no earlier than the thread's last call record read, and
 * stops at the first one after.  A nested function's calls inside an
 * outer call cut by the drop keep their time so.
 */
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

/*
 * @th (@tid) met a drop from @from to @to: its stretch (the file's
 * comment) leaves its lifetime, and its next call record is looked at.
 */
static void pipeline_thread_drop(struct pipeline *p,
				 struct pipeline_thread *th, uint32_t tid,
				 uint64_t from, uint64_t to)
{
	uint64_t start = th->last_call_ts;

	if (!th->pair.depth && start < from)
		start = from;
	p->stats.ring_lost_ns += sci_thread_lost(p->sci, tid, start, to);
	if (th->last_call_ts < to)
		th->dropped_until = to;
}

/* A drop of several: each thread sci_each_open_thread() gives. */
struct several_drop {
	struct pipeline *p;
	uint64_t from, to;
};

static void several_drop_thread(void *ctx, uint32_t tid, uint64_t last)
{
	struct several_drop *d = ctx;
	struct pipeline_thread *th = hashmap_find_ptr(&d->p->threads, tid);

	(void)last;
	/* No record of it read: none of its calls scored either. */
	if (!th)
		d->p->stats.ring_lost_ns += sci_thread_lost(d->p->sci, tid,
							    d->from, d->to);
	else
		pipeline_thread_drop(d->p, th, tid, d->from, d->to);
}

void pipeline_ring_lost(struct pipeline *p, const struct ispot_record *rec)
{
	/*
	 * Up to the last drop: a thread may have opened a call on another
	 * CPU meanwhile, and lost its return on this one.
	 */
	struct several_drop d = { p, rec->ts_ns, rec->data[1] };
	struct pipeline_thread *th;

	p->stats.ring_losses++;
	p->stats.ring_lost_records += rec->data[0];
	/* A recording's, unchecked: no drop before its first, no wrap. */
	if (d.to < d.from)
		d.to = d.from;
	if (d.to < UINT64_MAX)
		d.to++;
	if (!(rec->data[2] & ISPOT_LOST_SEVERAL)) {
		/* 0: no thread's (a solo block's record). */
		if (!rec->tid)
			return;
		/* Made if new: its calls read later must not pair either. */
		th = pipeline_thread(p, rec->tid);
		if (!th) {
			p->stats.nomem++;
			return;
		}
		pipeline_records_lost(p, th, d.to);
		pipeline_thread_drop(p, th, rec->tid, d.from, d.to);
		return;
	}
	/*
	 * Every thread's calls begun before the last drop are stopped, and
	 * so is every thread's time: a walk of the threads.  A ring tells
	 * at most once a drain round, as it takes a record only once read.
	 */
	pipeline_records_lost(p, NULL, d.to);
	sci_each_open_thread(p->sci, several_drop_thread, &d);
}

void pipeline_call_after_drop(struct pipeline *p, struct pipeline_thread *th,
			      const struct ispot_record *rec, int paired)
{
	uint64_t to = th->dropped_until;

	th->dropped_until = 0;
	/* A return not scored (0; < 0: out of memory, scored or not). */
	if (rec->kind == ISPOT_REC_EXIT && !paired && rec->ts_ns > to)
		p->stats.ring_lost_ns += sci_thread_lost(p->sci, rec->tid, to,
							 rec->ts_ns);
}
