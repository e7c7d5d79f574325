// SPDX-License-Identifier: GPL-2.0
/* Records to a Perfetto trace; see perfetto.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/pair.h"
#include "analysis/timeline.h"
#include "export/perfetto.h"
#include "report/names.h"
#include "util/protobuf.h"

/*
 * Field numbers, from Perfetto's protos/perfetto/trace/: trace.proto,
 * trace_packet.proto, clock_snapshot.proto, track_event/track_event.proto,
 * track_descriptor.proto, process_descriptor.proto, thread_descriptor.proto
 * (selftests/host/perfetto_min.proto declares the same, to decode with).
 */
#define TRACE_PACKET			1
#define PACKET_CLOCK_SNAPSHOT		6
#define PACKET_TIMESTAMP		8
/* trusted_packet_sequence_id */
#define PACKET_SEQUENCE_ID		10
#define PACKET_TRACK_EVENT		11
#define PACKET_SEQUENCE_FLAGS		13
#define PACKET_TIMESTAMP_CLOCK_ID	58
#define PACKET_TRACK_DESCRIPTOR		60
#define SEQ_INCREMENTAL_STATE_CLEARED	1
#define CLOCK_SNAPSHOT_CLOCKS		1
#define CLOCK_SNAPSHOT_PRIMARY		2	/* primary_trace_clock */
#define CLOCK_ID			1
#define CLOCK_TIMESTAMP			2
#define BUILTIN_CLOCK_MONOTONIC		3
#define BUILTIN_CLOCK_BOOTTIME		6
#define EVENT_TYPE			9
#define EVENT_TRACK_UUID		11
#define EVENT_NAME			23
#define EVENT_FLOW_IDS			47
#define EVENT_TERMINATING_FLOW_IDS	48
#define TYPE_SLICE_BEGIN		1
#define TYPE_SLICE_END			2
#define TYPE_INSTANT			3
#define TRACK_UUID			1
#define TRACK_NAME			2
#define TRACK_PROCESS			3
#define TRACK_THREAD			4
#define TRACK_PARENT_UUID		5
#define PROCESS_PID			1
#define PROCESS_NAME			6
#define THREAD_PID			1
#define THREAD_TID			2
#define THREAD_NAME			5

/* Any non-zero id: the whole trace is one sequence of one writer. */
#define PF_SEQUENCE_ID			1
/* Track uuids: kind in the low bits, then the tid and its generation. */
#define PF_TRACK_THREAD			0
#define PF_TRACK_WAITS			1
#define PF_TRACK_PROCESS		2
#define PF_NAME_MAX			512

/* A call open on a thread track: the pairer's frame it mirrors. */
struct pf_call {
	uint64_t ts;
	uint32_t probe_id;
};

struct pf_thread {
	uint32_t tid;
	uint32_t gen;		/* a reused tid is a new thread */
	bool used;
	bool announced;		/* its track descriptors are written */
	bool exited;		/* later records of it are left out */
	bool in_wait;		/* a "futex wait" slice is open */
	bool off;		/* an off-CPU slice is open (inside it) */
	uint64_t last_ts;	/* its latest event: none goes before */
	uint64_t wait_uaddr, wait_since;
	struct pf_call *calls;
	uint32_t nr_calls, cap_calls;
};

/* A futex word's latest wake, and the flows it started. */
struct pf_word {
	uint64_t uaddr;
	uint64_t wake_ts;
	uint64_t first_flow;
	uint32_t nr_flows, used_flows;
	bool used;
};

struct perfetto {
	FILE *out;
	uint32_t pid;
	struct perfetto_names names;
	struct pairer *pairer;
	struct pf_thread *threads;	/* open addressing by tid */
	size_t cap, used;
	struct pf_word *words;		/* open addressing by uaddr */
	size_t nr_words, cap_words;
	uint64_t next_flow;
	uint64_t last_ts;		/* the latest event written */
	struct pb_buf pkt;
	int err;			/* the first error, sticky */
};

static uint64_t pf_track(const struct pf_thread *t, unsigned int kind)
{
	return ((uint64_t)t->gen << 32 | t->tid) << 2 | kind;
}

/* Write the packet built in pf->pkt. */
static void pf_flush_packet(struct perfetto *pf)
{
	if (pf->err)
		return;
	if (pb_failed(&pf->pkt))
		pf->err = -ENOMEM;
	else if (pb_write_field(pf->out, TRACE_PACKET, &pf->pkt))
		pf->err = -EIO;
}

/* Start a packet of the sequence in pf->pkt. */
static void pf_packet(struct perfetto *pf)
{
	pb_reset(&pf->pkt);
	pb_varint(&pf->pkt, PACKET_SEQUENCE_ID, PF_SEQUENCE_ID);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* First: the sequence starts, and MONOTONIC is the trace's clock. */
static void pf_clock_snapshot(struct perfetto *pf,
			      const struct perfetto_clock *c)
{
	struct pb_buf *b = &pf->pkt;
	size_t snap, clk;

	pf_packet(pf);
	pb_varint(b, PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	snap = pb_begin(b, PACKET_CLOCK_SNAPSHOT);
	clk = pb_begin(b, CLOCK_SNAPSHOT_CLOCKS);
	pb_varint(b, CLOCK_ID, BUILTIN_CLOCK_MONOTONIC);
	pb_varint(b, CLOCK_TIMESTAMP, c->monotonic_ns);
	pb_end(b, clk);
	clk = pb_begin(b, CLOCK_SNAPSHOT_CLOCKS);
	pb_varint(b, CLOCK_ID, BUILTIN_CLOCK_BOOTTIME);
	pb_varint(b, CLOCK_TIMESTAMP, c->boottime_ns);
	pb_end(b, clk);
	pb_varint(b, CLOCK_SNAPSHOT_PRIMARY, BUILTIN_CLOCK_MONOTONIC);
	pb_end(b, snap);
	pf_flush_packet(pf);
}

static void pf_process_track(struct perfetto *pf, const char *process)
{
	struct pb_buf *b = &pf->pkt;
	size_t desc, proc;

	pf_packet(pf);
	desc = pb_begin(b, PACKET_TRACK_DESCRIPTOR);
	pb_varint(b, TRACK_UUID, (uint64_t)pf->pid << 2 | PF_TRACK_PROCESS);
	proc = pb_begin(b, TRACK_PROCESS);
	pb_varint(b, PROCESS_PID, pf->pid);
	pb_string(b, PROCESS_NAME, process);
	pb_end(b, proc);
	pb_end(b, desc);
	pf_flush_packet(pf);
}

/* A thread's two tracks, before its first event. */
static void pf_announce(struct perfetto *pf, struct pf_thread *t)
{
	struct pb_buf *b = &pf->pkt;
	char name[PF_NAME_MAX];
	size_t desc, thr;

	t->announced = true;
	pf_packet(pf);
	desc = pb_begin(b, PACKET_TRACK_DESCRIPTOR);
	pb_varint(b, TRACK_UUID, pf_track(t, PF_TRACK_THREAD));
	pb_varint(b, TRACK_PARENT_UUID,
		  (uint64_t)pf->pid << 2 | PF_TRACK_PROCESS);
	thr = pb_begin(b, TRACK_THREAD);
	pb_varint(b, THREAD_PID, pf->pid);
	pb_varint(b, THREAD_TID, t->tid);
	if (pf->names.thread &&
	    pf->names.thread(pf->names.ctx, t->tid, name, sizeof(name)) >= 0)
		pb_string(b, THREAD_NAME, name);
	pb_end(b, thr);
	pb_end(b, desc);
	pf_flush_packet(pf);

	pf_packet(pf);
	desc = pb_begin(b, PACKET_TRACK_DESCRIPTOR);
	pb_varint(b, TRACK_UUID, pf_track(t, PF_TRACK_WAITS));
	pb_varint(b, TRACK_PARENT_UUID, pf_track(t, PF_TRACK_THREAD));
	pb_string(b, TRACK_NAME, "waits");
	pb_end(b, desc);
	pf_flush_packet(pf);
}

/*
 * One TrackEvent on @t's track @kind at @ts (never before the thread's
 * latest event).  @name for a begin or an instant; @flows start
 * (@terminating false) or end flows.
 */
static void pf_event(struct perfetto *pf, struct pf_thread *t,
		     unsigned int kind, uint64_t ts, unsigned int type,
		     const char *name, uint64_t first_flow, uint32_t nr_flows,
		     bool terminating)
{
	struct pb_buf *b = &pf->pkt;
	size_t ev;
	uint32_t i;

	if (!t->announced)
		pf_announce(pf, t);
	if (ts < t->last_ts)
		ts = t->last_ts;
	t->last_ts = ts;
	if (ts > pf->last_ts)
		pf->last_ts = ts;
	pf_packet(pf);
	pb_varint(b, PACKET_TIMESTAMP, ts);
	pb_varint(b, PACKET_TIMESTAMP_CLOCK_ID, BUILTIN_CLOCK_MONOTONIC);
	ev = pb_begin(b, PACKET_TRACK_EVENT);
	pb_varint(b, EVENT_TYPE, type);
	pb_varint(b, EVENT_TRACK_UUID, pf_track(t, kind));
	if (name)
		pb_string(b, EVENT_NAME, name);
	for (i = 0; i < nr_flows; i++)
		pb_fixed64(b, terminating ? EVENT_TERMINATING_FLOW_IDS :
			   EVENT_FLOW_IDS, first_flow + i);
	pb_end(b, ev);
	pf_flush_packet(pf);
}

static void pf_begin(struct perfetto *pf, struct pf_thread *t,
		     unsigned int kind, uint64_t ts, const char *name)
{
	pf_event(pf, t, kind, ts, TYPE_SLICE_BEGIN, name, 0, 0, false);
}

static void pf_end(struct perfetto *pf, struct pf_thread *t,
		   unsigned int kind, uint64_t ts)
{
	pf_event(pf, t, kind, ts, TYPE_SLICE_END, NULL, 0, 0, false);
}

static size_t pf_home(const struct perfetto *pf, uint32_t tid)
{
	return (tid * 0x9e3779b1u) & (pf->cap - 1);
}

static size_t pf_slot(const struct perfetto *pf, uint32_t tid)
{
	size_t i = pf_home(pf, tid);

	while (pf->threads[i].used && pf->threads[i].tid != tid)
		i = (i + 1) & (pf->cap - 1);
	return i;
}

/* @tid's state, made on first sight; NULL without memory. */
static struct pf_thread *pf_thread(struct perfetto *pf, uint32_t tid)
{
	size_t i = pf_slot(pf, tid);

	if (pf->threads[i].used)
		return &pf->threads[i];
	if ((pf->used + 1) * 2 > pf->cap) {
		struct pf_thread *old = pf->threads;
		size_t j, oldcap = pf->cap;

		pf->threads = calloc(oldcap * 2, sizeof(*pf->threads));
		if (!pf->threads) {
			pf->threads = old;
			pf->err = pf->err ? pf->err : -ENOMEM;
			return NULL;
		}
		pf->cap = oldcap * 2;
		for (j = 0; j < oldcap; j++)
			if (old[j].used)
				pf->threads[pf_slot(pf, old[j].tid)] = old[j];
		free(old);
		i = pf_slot(pf, tid);
	}
	pf->used++;
	pf->threads[i].used = true;
	pf->threads[i].tid = tid;
	return &pf->threads[i];
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

/* Whether the pairer still holds @c open in @tid. */
static bool pf_call_open(const struct perfetto *pf, uint32_t tid,
			 const struct pf_call *c)
{
	uint32_t up, id;

	for (up = 0; (id = pairer_open_probe_at(pf->pairer, tid, up)); up++)
		if (id == c->probe_id &&
		    pairer_open_ts_at(pf->pairer, tid, up) == c->ts)
			return true;
	return false;
}

/*
 * After the pairer took an ENTRY or EXIT: close the calls it no longer
 * holds (returned, or given up), innermost first, and open the one an
 * entry pushed.
 */
static void pf_calls(struct perfetto *pf, struct pf_thread *t,
		     const struct ispot_record *rec, const char *name)
{
	struct pf_call *c;

	while (t->nr_calls &&
	       !pf_call_open(pf, t->tid, &t->calls[t->nr_calls - 1])) {
		pf_end(pf, t, PF_TRACK_THREAD, rec->ts_ns);
		t->nr_calls--;
	}
	if (!name || pairer_open_probe_at(pf->pairer, t->tid, 0) !=
		     rec->probe_id ||
	    pairer_open_ts_at(pf->pairer, t->tid, 0) != rec->ts_ns)
		return;
	if (t->nr_calls == t->cap_calls) {
		uint32_t cap = t->cap_calls ? 2 * t->cap_calls : 8;

		c = realloc(t->calls, cap * sizeof(*c));
		if (!c) {
			pf->err = pf->err ? pf->err : -ENOMEM;
			return;
		}
		t->calls = c;
		t->cap_calls = cap;
	}
	c = &t->calls[t->nr_calls++];
	c->ts = rec->ts_ns;
	c->probe_id = rec->probe_id;
	pf_begin(pf, t, PF_TRACK_THREAD, rec->ts_ns, name);
}

static void pf_call_record(struct perfetto *pf, struct pf_thread *t,
			   const struct ispot_record *rec)
{
	char buf[PF_NAME_MAX];
	const char *name = NULL;

	/* A call began or returned: any wait it was in is over. */
	pf_wait_over(pf, t, rec->ts_ns, 0);
	if (rec->kind == ISPOT_REC_ENTRY) {
		if (!pf->names.call ||
		    pf->names.call(pf->names.ctx, rec, buf, sizeof(buf)) < 0)
			return;
		name = buf;
	}
	if (pairer_feed(pf->pairer, rec))
		pf->err = pf->err ? pf->err : -ENOMEM;
	pf_calls(pf, t, rec, name);
}

static size_t pf_word_slot(const struct pf_word *words, size_t cap,
			   uint64_t uaddr)
{
	size_t i = (size_t)((uaddr * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);

	while (words[i].used && words[i].uaddr != uaddr)
		i = (i + 1) & (cap - 1);
	return i;
}

/*
 * @uaddr's state, made on first sight if @create: NULL if unknown, without
 * memory, or past PERFETTO_WORDS_MAX words (the target picks how many
 * words it wakes; those past the bound get their wake drawn, no arrows).
 * Open addressing, never more than half full: O(1) a lookup.
 */
static struct pf_word *pf_word(struct perfetto *pf, uint64_t uaddr,
			       bool create)
{
	struct pf_word *w;
	size_t i;

	if (pf->cap_words) {
		i = pf_word_slot(pf->words, pf->cap_words, uaddr);
		if (pf->words[i].used)
			return &pf->words[i];
	}
	if (!create || pf->nr_words >= PERFETTO_WORDS_MAX)
		return NULL;
	if ((pf->nr_words + 1) * 2 > pf->cap_words) {
		size_t j, cap = pf->cap_words ? 2 * pf->cap_words : 64;

		w = calloc(cap, sizeof(*w));
		if (!w) {
			pf->err = pf->err ? pf->err : -ENOMEM;
			return NULL;
		}
		for (j = 0; j < pf->cap_words; j++)
			if (pf->words[j].used)
				w[pf_word_slot(w, cap, pf->words[j].uaddr)] =
					pf->words[j];
		free(pf->words);
		pf->words = w;
		pf->cap_words = cap;
	}
	pf->nr_words++;
	w = &pf->words[pf_word_slot(pf->words, pf->cap_words, uaddr)];
	memset(w, 0, sizeof(*w));
	w->used = true;
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
		pf_begin(pf, t, PF_TRACK_WAITS, rec->ts_ns, "futex wait");
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
	pf_begin(pf, t, PF_TRACK_WAITS, rec->ts_ns, cause_names[cause].text);
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

/* A TASK_NEW: a tid seen exit before is a new thread, on new tracks. */
static void pf_task_new(struct pf_thread *t)
{
	if (!t->exited)
		return;
	t->gen++;
	t->announced = false;
	t->exited = false;
	t->last_ts = 0;
}

void perfetto_record(struct perfetto *pf, const struct ispot_record *rec)
{
	struct pf_thread *t;

	if (rec->tgid != pf->pid && rec->kind != ISPOT_REC_TASK_NEW)
		return;
	t = pf_thread(pf, rec->tid);
	if (!t)
		return;
	if (rec->kind == ISPOT_REC_TASK_NEW) {
		pf_task_new(t);
		return;
	}
	if (t->exited)
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
	struct pf_thread *t = pf_thread(pf, tid);

	if (!t || t->exited)
		return;
	pf_close_thread(pf, t, ts);
	pairer_thread_exit(pf->pairer, tid);
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
	pf->cap = 64;
	pf->threads = calloc(pf->cap, sizeof(*pf->threads));
	pf->pairer = pairer_new(NULL, NULL);
	if (!pf->threads || !pf->pairer) {
		pairer_free(pf->pairer);
		free(pf->threads);
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

int perfetto_close(struct perfetto *pf)
{
	size_t i;
	int err;

	for (i = 0; i < pf->cap; i++)
		if (pf->threads[i].used && !pf->threads[i].exited)
			pf_close_thread(pf, &pf->threads[i], pf->last_ts);
	if (!pf->err && fflush(pf->out))
		pf->err = -EIO;
	err = pf->err;
	for (i = 0; i < pf->cap; i++)
		free(pf->threads[i].calls);
	free(pf->threads);
	free(pf->words);
	pairer_free(pf->pairer);
	pb_free(&pf->pkt);
	free(pf);
	return err;
}
