// SPDX-License-Identifier: GPL-2.0
/*
 * Records to a Perfetto trace: each thread's calls, waits and wakes as
 * slices, instants and flows; see perfetto.h.  The packets are
 * perfetto_packets.c's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/drain.h"
#include "analysis/timeline.h"
#include "export/perfetto_internal.h"
#include "report/names.h"
#include "util/array.h"
#include "util/hash.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The first error, which sticks. */
static void pf_fail(struct perfetto *pf, int err)
{
	if (!pf->err)
		pf->err = err;
}

/* @tid's state, made on first sight; NULL without memory. */
static struct pf_thread *pf_thread(struct perfetto *pf, uint32_t tid)
{
	struct pf_thread *t = hashmap_find_ptr(&pf->threads, tid);

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t || hashmap_insert(&pf->threads, tid, (uintptr_t)t)) {
		free(t);
		pf_fail(pf, -ENOMEM);
		return NULL;
	}
	t->tid = tid;
	*pf->last = t;
	pf->last = &t->next;
	return t;
}

/* The thread runs (it recorded something): it is off no CPU. */
static void pf_on_cpu(struct perfetto *pf, struct pf_thread *t, uint64_t ts)
{
	if (t->off) {
		pf_end(pf, t, PF_TRACK_WAITS, ts);
		t->off = false;
	}
}

/* Its futex wait is over, woken by flow @flow (0: by no traced wake). */
static void pf_wait_over(struct perfetto *pf, struct pf_thread *t,
			 uint64_t ts, uint64_t flow)
{
	pf_on_cpu(pf, t, ts);
	if (!t->in_wait)
		return;
	pf_event(pf, t, PF_TRACK_WAITS, ts, TYPE_SLICE_END, NULL, flow,
		 flow ? 1 : 0, true);
	t->in_wait = false;
}

/* Whether the pairer still holds @c open in @t. */
static bool pf_call_open(const struct pf_thread *t, const struct pf_call *c)
{
	uint32_t up, id;

	for (up = 0; (id = pair_thread_open_probe(&t->pair, up)); up++)
		if (id == c->probe_id &&
		    pair_thread_open_ts(&t->pair, up) == c->ts)
			return true;
	return false;
}

/*
 * After the pairer took an ENTRY or EXIT: close the calls it no longer
 * holds (returned, or given up), innermost first, and open the one an
 * entry pushed, named by @iid or else @name (neither: none is opened):
 * the interned id of the name it was opened with, 0 if none was or it
 * was written whole.
 */
static uint64_t pf_calls(struct perfetto *pf, struct pf_thread *t,
			 const struct ispot_record *rec, const char *name,
			 uint64_t iid)
{
	struct pf_call *c;

	while (t->nr_calls && !pf_call_open(t, &t->calls[t->nr_calls - 1])) {
		pf_end(pf, t, PF_TRACK_THREAD, rec->ts_ns);
		t->nr_calls--;
	}
	if ((!iid && !name) ||
	    pair_thread_open_probe(&t->pair, 0) != rec->probe_id ||
	    pair_thread_open_ts(&t->pair, 0) != rec->ts_ns)
		return 0;
	if (ARRAY_RESERVE(t->calls, t->cap_calls, (size_t)t->nr_calls + 1)) {
		pf_fail(pf, -ENOMEM);
		return 0;
	}
	c = &t->calls[t->nr_calls++];
	c->ts = rec->ts_ns;
	c->probe_id = rec->probe_id;
	return pf_begin(pf, t, PF_TRACK_THREAD, rec->ts_ns, name, iid);
}

/* What the call names cache keys a (probe, key) by. */
static uint64_t pf_call_id(uint32_t probe_id, bool keyed, uint64_t key)
{
	return hash_mix64(key ^ hash_mix64((uint64_t)probe_id << 1 | keyed));
}

/*
 * The entry kept for @probe_id's calls by @key, or NULL: one of another
 * (probe, key) of the same id is never kept, and named anew.
 */
static struct pf_call_name *pf_call_name(struct perfetto *pf,
					 uint32_t probe_id, bool keyed,
					 uint64_t key)
{
	struct pf_call_name *n;
	uint64_t i;

	if (!hashmap_find(&pf->call_name_index,
			  pf_call_id(probe_id, keyed, key), &i))
		return NULL;
	n = &pf->call_names[i];
	if (n->probe_id != probe_id || n->keyed != keyed || n->key != key)
		return NULL;
	return n;
}

/* What the names are made from now (perfetto_names.generation). */
static uint64_t pf_names_generation(const struct perfetto *pf)
{
	return pf->names.generation ? pf->names.generation(pf->names.ctx) : 0;
}

/*
 * Keep @iid, the interned name a call of @probe_id by @key was just
 * written with: the next ones by the same are named by it, not formatted
 * again.  @stale: its entry kept under another generation, renewed in
 * place.  Up to PF_CALL_NAMES_MAX; a name written whole (0) is not kept.
 */
static void pf_call_keep(struct perfetto *pf, struct pf_call_name *stale,
			 uint32_t probe_id, bool keyed, uint64_t key,
			 uint64_t iid, uint64_t generation)
{
	uint64_t id = pf_call_id(probe_id, keyed, key);

	if (!iid)
		return;
	if (stale) {
		stale->iid = iid;
		stale->generation = generation;
		return;
	}
	/* An id another (probe, key) holds: never kept, named anew. */
	if (pf->nr_call_names >= PF_CALL_NAMES_MAX ||
	    hashmap_find(&pf->call_name_index, id, NULL) ||
	    ARRAY_RESERVE(pf->call_names, pf->cap_call_names,
			  pf->nr_call_names + 1) ||
	    hashmap_insert(&pf->call_name_index, id, pf->nr_call_names))
		return;
	pf->call_names[pf->nr_call_names++] = (struct pf_call_name){
		.probe_id = probe_id, .keyed = keyed, .key = key, .iid = iid,
		.generation = generation,
	};
}

static void pf_call_record(struct perfetto *pf, struct pf_thread *t,
			   const struct ispot_record *rec)
{
	struct pf_call_name *kept = NULL, *stale = NULL;
	char buf[PF_NAME_MAX];
	const char *name = NULL;
	bool keyed = false;
	struct pair_exec e;
	uint64_t key = 0, iid = 0, generation = 0;
	int same = 0;	/* the name is the same for every call so keyed */

	/* A call began or returned: any wait it was in is over. */
	pf_wait_over(pf, t, rec->ts_ns, 0);
	if (rec->kind == ISPOT_REC_ENTRY) {
		if (pf->names.call_key) {
			same = pf->names.call_key(pf->names.ctx, rec, &key,
						  &keyed);
			if (same < 0)
				return;
			if (same) {
				generation = pf_names_generation(pf);
				kept = pf_call_name(pf, rec->probe_id, keyed,
						    key);
			}
			if (kept && kept->generation != generation) {
				stale = kept;
				kept = NULL;
			}
		}
		if (kept) {
			iid = kept->iid;
		} else {
			if (!pf->names.call ||
			    pf->names.call(pf->names.ctx, rec, buf,
					   sizeof(buf)) < 0)
				return;
			name = buf;
		}
	}
	/* The slices mirror the pairer's frames, not its executions. */
	if (pairer_feed_thread(pf->pairer, &t->pair, rec, NULL, &e) < 0)
		pf_fail(pf, -ENOMEM);
	iid = pf_calls(pf, t, rec, name, iid);
	if (name && same)
		pf_call_keep(pf, stale, rec->probe_id, keyed, key, iid,
			     generation);
}

/*
 * @uaddr's state, made on first sight if @create: NULL if unknown, without
 * memory, or past PERFETTO_WORDS_MAX words (the target picks how many
 * words it wakes; those past the bound get their wake drawn, no arrows).
 */
static struct pf_word *pf_word(struct perfetto *pf, uint64_t uaddr,
			       bool create)
{
	struct pf_word *w;
	uint64_t i;

	if (hashmap_find(&pf->word_index, uaddr, &i))
		return &pf->words[i];
	if (!create || pf->nr_words >= PERFETTO_WORDS_MAX)
		return NULL;
	if (ARRAY_RESERVE(pf->words, pf->cap_words, pf->nr_words + 1) ||
	    hashmap_insert(&pf->word_index, uaddr, pf->nr_words)) {
		pf_fail(pf, -ENOMEM);
		return NULL;
	}
	w = &pf->words[pf->nr_words++];
	memset(w, 0, sizeof(*w));
	w->uaddr = uaddr;
	return w;
}

/* A wake: an instant inside the waker's call, starting its flows. */
static void pf_wake(struct perfetto *pf, struct pf_thread *t,
		    const struct ispot_record *rec)
{
	struct pf_word *w = pf_word(pf, rec->data[0], true);
	uint64_t val = rec->data[2];

	if (!w) {
		/* Past the bound (or no memory): the wake, without arrows. */
		pf_event(pf, t, PF_TRACK_THREAD, rec->ts_ns, TYPE_INSTANT,
			 "futex wake", 0, 0, false);
		return;
	}
	w->wake_ts = rec->ts_ns;
	w->first_flow = pf->next_flow;
	w->nr_flows = val < 1 ? 1 : val > PERFETTO_WAKE_FLOWS ?
		      PERFETTO_WAKE_FLOWS : (uint32_t)val;
	w->used_flows = 0;
	pf->next_flow += w->nr_flows;
	pf_event(pf, t, PF_TRACK_THREAD, rec->ts_ns, TYPE_INSTANT,
		 "futex wake", w->first_flow, w->nr_flows, false);
}

/* The flow that ends @t's wait, returning @ret at @ts; 0 for none. */
static uint64_t pf_waker_flow(struct perfetto *pf, const struct pf_thread *t,
			      int64_t ret)
{
	struct pf_word *w = pf_word(pf, t->wait_uaddr, false);

	if (!w || w->used_flows == w->nr_flows ||
	    !timeline_wake_ended_wait(w->wake_ts, t->wait_since, ret))
		return 0;
	return w->first_flow + w->used_flows++;
}

static void pf_futex_enter(struct perfetto *pf, struct pf_thread *t,
			   const struct ispot_record *rec)
{
	uint32_t op = (uint32_t)rec->data[1];

	/* Another futex call: the wait before it ended, its EXIT lost. */
	pf_wait_over(pf, t, rec->ts_ns, 0);
	if (timeline_futex_op_wakes(op)) {
		pf_wake(pf, t, rec);
	} else if (timeline_futex_op_waits(op)) {
		pf_begin(pf, t, PF_TRACK_WAITS, rec->ts_ns, "futex wait", 0);
		t->in_wait = true;
		t->wait_uaddr = rec->data[0];
		t->wait_since = rec->ts_ns;
	}
}

static void pf_switch_out(struct perfetto *pf, struct pf_thread *t,
			  const struct ispot_record *rec)
{
	enum cause_id cause = rec->data[0] ? CAUSE_RUNQUEUE :
			      t->in_wait ? CAUSE_FUTEX : CAUSE_BLOCKED;

	/* Two OUTs in a row: the IN between them was lost. */
	pf_on_cpu(pf, t, rec->ts_ns);
	pf_begin(pf, t, PF_TRACK_WAITS, rec->ts_ns, cause_names[cause].text,
		 0);
	t->off = true;
}

/* Close every slice @t has open, at @ts. */
static void pf_close_thread(struct perfetto *pf, struct pf_thread *t,
			    uint64_t ts)
{
	pf_wait_over(pf, t, ts, 0);
	for (; t->nr_calls; t->nr_calls--)
		pf_end(pf, t, PF_TRACK_THREAD, ts);
}

/*
 * A thread's track named by its exit's comm (ABI 1.10) where it carries
 * another name or none: one gone before its first event could read it,
 * one renamed since, one whose tid was another's then.  A recording keeps
 * the same name (trace_session.c), so its replay draws the same.
 */
static void pf_exit_named(struct perfetto *pf, struct pf_thread *t,
			  const struct ispot_record *rec)
{
	char comm[RECORD_COMM_LEN];

	if (t->announced && record_exit_comm(rec, comm) &&
	    strcmp(t->name, comm))
		pf_name_thread(pf, t, comm);
}

/* A TASK_NEW: a tid seen exit before is a new thread, on new tracks. */
static void pf_task_new(struct pf_thread *t)
{
	if (!t->exited)
		return;
	t->gen++;
	t->announced = false;
	t->name[0] = 0;
	t->exited = false;
	t->last_ts = 0;
}

/* Records of @t from @ts on were lost: its open calls end there. */
static void pf_thread_lost(struct perfetto *pf, struct pf_thread *t,
			   uint64_t ts)
{
	if (t->exited)
		return;
	pf_close_thread(pf, t, ts);
	pairer_thread_flush(pf->pairer, &t->pair);
}

void perfetto_lost(struct perfetto *pf, uint64_t ts)
{
	struct pf_thread *t;

	/* Stopped: perfetto_close() ends the slices where the trace did. */
	if (pf->full)
		return;
	for (t = pf->first; t; t = t->next)
		pf_thread_lost(pf, t, ts);
}

/* A LOST record: a full ring dropped records of its tid, or of several. */
static void pf_ring_lost(struct perfetto *pf, const struct ispot_record *rec)
{
	struct pf_thread *t;

	if (rec->data[2] & ISPOT_LOST_SEVERAL) {
		perfetto_lost(pf, rec->ts_ns);
		return;
	}
	t = rec->tid ? hashmap_find_ptr(&pf->threads, rec->tid) : NULL;
	if (t)
		pf_thread_lost(pf, t, rec->ts_ns);
}

/*
 * Whether what @rec may write keeps the file within its bound, the ends
 * of every slice it leaves open counted.  The first record that may not
 * stops the trace.
 */
static bool pf_room(struct perfetto *pf, const struct ispot_record *rec)
{
	uint64_t need = (pf->open + PF_RECORD_OPENS) * PF_END_MAX +
			PF_RECORD_MAX;

	_Static_assert(PERFETTO_MIN_SIZE >= PF_HEAD_MAX + PF_RECORD_MAX +
		       PF_RECORD_OPENS * PF_END_MAX,
		       "the least bound holds the first packets and a record");

	if (!pf->max_size || pf->written + need <= pf->max_size)
		return true;
	/* perfetto_close() ends what is open, in the room kept for it. */
	pf->full = true;
	pf->full_ts = rec->ts_ns;
	return false;
}

void perfetto_record(struct perfetto *pf, const struct ispot_record *rec)
{
	struct pf_thread *t;

	if (pf->full)
		return;
	/* The module's, of no process: told before any process's.  Ends. */
	if (rec->kind == ISPOT_REC_LOST) {
		pf_ring_lost(pf, rec);
		return;
	}
	if (rec->tgid != pf->pid && rec->kind != ISPOT_REC_TASK_NEW)
		return;
	t = pf_thread(pf, rec->tid);
	if (!t)
		return;
	if (rec->kind == ISPOT_REC_TASK_NEW) {
		pf_task_new(t);
		return;
	}
	/* The first record that may write anything but ends. */
	if (t->exited || !pf_room(pf, rec))
		return;
	switch (rec->kind) {
	case ISPOT_REC_ENTRY:
	case ISPOT_REC_EXIT:
		pf_call_record(pf, t, rec);
		return;
	case ISPOT_REC_SWITCH_OUT:
		pf_switch_out(pf, t, rec);
		return;
	case ISPOT_REC_SWITCH_IN:
		pf_on_cpu(pf, t, rec->ts_ns);
		return;
	case ISPOT_REC_FUTEX_ENTER:
		pf_futex_enter(pf, t, rec);
		return;
	case ISPOT_REC_FUTEX_EXIT:
		pf_wait_over(pf, t, rec->ts_ns,
			     t->in_wait ? pf_waker_flow(pf, t,
						(int64_t)rec->data[0]) : 0);
		return;
	case ISPOT_REC_TASK_EXIT:
		pf_exit_named(pf, t, rec);
		perfetto_thread_exit(pf, rec->tid, rec->ts_ns);
		return;
	default:
		return;
	}
}

void perfetto_set_trampoline(struct perfetto *pf, uint64_t start,
			     uint64_t end)
{
	pairer_set_trampoline(pf->pairer, start, end);
}

void perfetto_thread_exit(struct perfetto *pf, uint32_t tid, uint64_t ts)
{
	struct pf_thread *t;

	/* Stopped: perfetto_close() ends its slices where the trace did. */
	if (pf->full)
		return;
	t = pf_thread(pf, tid);
	if (!t || t->exited)
		return;
	pf_close_thread(pf, t, ts);
	pairer_thread_ended(pf->pairer, &t->pair);
	t->exited = true;
}

struct perfetto *perfetto_open(FILE *out, uint32_t pid, const char *process,
			       const struct perfetto_names *names,
			       const struct perfetto_clock *clock)
{
	struct perfetto *pf = calloc(1, sizeof(*pf));
	struct perfetto_clock now;

	if (!pf)
		return NULL;
	pf->out = out;
	pf->pid = pid;
	pf->names = *names;
	pf->next_flow = 1;
	pf->last = &pf->first;
	pf->pairer = pairer_new(NULL, NULL);
	if (!pf->pairer) {
		free(pf);
		return NULL;
	}
	if (!clock) {
		now.monotonic_ns = clock_ns(CLOCK_MONOTONIC);
		now.boottime_ns = clock_ns(CLOCK_BOOTTIME);
		clock = &now;
	}
	pf_clock_snapshot(pf, clock);
	pf_process_track(pf, process);
	return pf;
}

void perfetto_set_max_size(struct perfetto *pf, uint64_t bytes)
{
	pf->max_size = bytes && bytes < PERFETTO_MIN_SIZE ? PERFETTO_MIN_SIZE :
			bytes;
}

bool perfetto_full(const struct perfetto *pf, uint64_t *ts)
{
	if (pf->full)
		*ts = pf->full_ts;
	return pf->full;
}

int perfetto_close(struct perfetto *pf)
{
	struct pf_thread *t, *next;
	int err;

	/* In the order the threads were first seen: the same each time. */
	for (t = pf->first; t; t = t->next)
		if (!t->exited)
			pf_close_thread(pf, t, pf->last_ts);
	pf_out_flush(pf);
	errno = 0;
	if (!pf->err && fflush(pf->out))
		pf->err = errno ? -errno : -EIO;
	err = pf->err;
	for (t = pf->first; t; t = next) {
		next = t->next;
		pairer_thread_forget(pf->pairer, &t->pair);
		free(t->calls);
		free(t);
	}
	hashmap_free(&pf->threads);
	hashmap_free(&pf->word_index);
	strindex_free(&pf->name_iids);
	hashmap_free(&pf->call_name_index);
	free(pf->call_names);
	free(pf->words);
	pairer_free(pf->pairer);
	pb_free(&pf->pkt);
	pb_free(&pf->out_buf);
	free(pf);
	return err;
}
