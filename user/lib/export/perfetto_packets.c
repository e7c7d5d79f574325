// SPDX-License-Identifier: GPL-2.0
/*
 * The Perfetto writer's packets: the clock snapshot, the process and
 * thread track descriptors and the TrackEvents, as protobuf encoded by
 * hand (util/protobuf.h); see perfetto.h.
 */
#include <errno.h>

#include "export/perfetto_internal.h"

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
#define PACKET_INTERNED_DATA		12
#define PACKET_SEQUENCE_FLAGS		13
#define PACKET_TIMESTAMP_CLOCK_ID	58
#define PACKET_DEFAULTS			59 /* trace_packet_defaults */
#define PACKET_TRACK_DESCRIPTOR		60
#define SEQ_INCREMENTAL_STATE_CLEARED	1
#define SEQ_NEEDS_INCREMENTAL_STATE	2
#define DEFAULTS_TIMESTAMP_CLOCK_ID	58
#define CLOCK_SNAPSHOT_CLOCKS		1
#define CLOCK_SNAPSHOT_PRIMARY		2	/* primary_trace_clock */
#define CLOCK_ID			1
#define CLOCK_TIMESTAMP			2
#define CLOCK_IS_INCREMENTAL		3
#define BUILTIN_CLOCK_MONOTONIC		3
#define BUILTIN_CLOCK_BOOTTIME		6
/*
 * A clock of the sequence (ids 64 to 127) whose every timestamp is the
 * difference from its last one, in nanoseconds: MONOTONIC's, in two or
 * three bytes where MONOTONIC takes seven.  The Perfetto SDK's own
 * incremental clock has the same id.
 */
#define CLOCK_DELTA			64
#define INTERNED_EVENT_NAMES		2
#define EVENT_NAME_IID_OF		1	/* EventName.iid */
#define EVENT_NAME_OF			2	/* EventName.name */
#define EVENT_TYPE			9
#define EVENT_NAME_IID			10
#define EVENT_TRACK_UUID		11
#define EVENT_NAME			23
#define EVENT_FLOW_IDS			47
#define EVENT_TERMINATING_FLOW_IDS	48
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

static uint64_t pf_track(const struct pf_thread *t, unsigned int kind)
{
	return ((uint64_t)t->gen << 32 | t->tid) << 2 | kind;
}

/*
 * The packets written so far, out to the file: one fwrite() for many
 * packets, where one or two a packet cost more than the packets' whole
 * encoding (Documentation/evaluation.rst).
 */
void pf_out_flush(struct perfetto *pf)
{
	size_t n = pf->out_buf.len;

	pb_reset(&pf->out_buf);
	if (pf->err || !n)
		return;
	errno = 0;
	if (fwrite(pf->out_buf.data, 1, n, pf->out) != n)
		pf->err = errno ? -errno : -EIO; /* ENOSPC, not a mystery */
}

/* The packet built in pf->pkt, its bytes counted: to the file's buffer. */
static void pf_flush_packet(struct perfetto *pf)
{
	size_t n;

	if (pf->err)
		return;
	n = pb_failed(&pf->pkt) ? 0 :
	    pb_append_field(&pf->out_buf, TRACE_PACKET, &pf->pkt);
	if (!n) {
		pf->err = -ENOMEM;
		return;
	}
	pf->written += n;
	if (pf->out_buf.len >= PF_OUT_CHUNK)
		pf_out_flush(pf);
}

/* Start a packet of the sequence in pf->pkt. */
static void pf_packet(struct perfetto *pf)
{
	pb_reset(&pf->pkt);
	pb_varint(&pf->pkt, PACKET_SEQUENCE_ID, PF_SEQUENCE_ID);
}

/*
 * First: the sequence starts, MONOTONIC is the trace's clock, and
 * CLOCK_DELTA, which starts at the same instant, every packet's unless
 * it names another (trace_packet_defaults).  trace_processor takes the
 * clear, the defaults and the snapshot in that order from one packet,
 * as the Perfetto SDK writes them.
 */
void pf_clock_snapshot(struct perfetto *pf, const struct perfetto_clock *c)
{
	struct pb_buf *b = &pf->pkt;
	size_t snap, clk, def;

	pf_packet(pf);
	pb_varint(b, PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	def = pb_begin(b, PACKET_DEFAULTS);
	pb_varint(b, DEFAULTS_TIMESTAMP_CLOCK_ID, CLOCK_DELTA);
	pb_end(b, def);
	snap = pb_begin(b, PACKET_CLOCK_SNAPSHOT);
	clk = pb_begin(b, CLOCK_SNAPSHOT_CLOCKS);
	pb_varint(b, CLOCK_ID, BUILTIN_CLOCK_MONOTONIC);
	pb_varint(b, CLOCK_TIMESTAMP, c->monotonic_ns);
	pb_end(b, clk);
	clk = pb_begin(b, CLOCK_SNAPSHOT_CLOCKS);
	pb_varint(b, CLOCK_ID, BUILTIN_CLOCK_BOOTTIME);
	pb_varint(b, CLOCK_TIMESTAMP, c->boottime_ns);
	pb_end(b, clk);
	clk = pb_begin(b, CLOCK_SNAPSHOT_CLOCKS);
	pb_varint(b, CLOCK_ID, CLOCK_DELTA);
	pb_varint(b, CLOCK_TIMESTAMP, c->monotonic_ns);
	pb_varint(b, CLOCK_IS_INCREMENTAL, 1);
	pb_end(b, clk);
	pb_varint(b, CLOCK_SNAPSHOT_PRIMARY, BUILTIN_CLOCK_MONOTONIC);
	pb_end(b, snap);
	pf_flush_packet(pf);
	pf->delta_ts = c->monotonic_ns;
}

void pf_process_track(struct perfetto *pf, const char *process)
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

/* @t's thread track, named @name (NULL: no name). */
static void pf_thread_track(struct perfetto *pf, const struct pf_thread *t,
			    const char *name)
{
	struct pb_buf *b = &pf->pkt;
	size_t desc, thr;

	pf_packet(pf);
	desc = pb_begin(b, PACKET_TRACK_DESCRIPTOR);
	pb_varint(b, TRACK_UUID, pf_track(t, PF_TRACK_THREAD));
	pb_varint(b, TRACK_PARENT_UUID,
		  (uint64_t)pf->pid << 2 | PF_TRACK_PROCESS);
	thr = pb_begin(b, TRACK_THREAD);
	pb_varint(b, THREAD_PID, pf->pid);
	pb_varint(b, THREAD_TID, t->tid);
	if (name)
		pb_string(b, THREAD_NAME, name);
	pb_end(b, thr);
	pb_end(b, desc);
	pf_flush_packet(pf);
}

/*
 * A track described again names it: trace_processor takes a repeated
 * descriptor of the same track (parent, pid and tid) and updates the
 * thread's name from its ThreadDescriptor, the later name winning
 * (perfetto's track event tokenizer and parser, read at ec5d16b).
 */
void pf_name_thread(struct perfetto *pf, struct pf_thread *t,
		    const char *name)
{
	pf_thread_track(pf, t, name);
	snprintf(t->name, sizeof(t->name), "%s", name);
}

/* A thread's two tracks, before its first event. */
static void pf_announce(struct perfetto *pf, struct pf_thread *t)
{
	struct pb_buf *b = &pf->pkt;
	char name[PF_NAME_MAX];
	size_t desc;

	t->announced = true;
	if (!pf->names.thread ||
	    pf->names.thread(pf->names.ctx, t->tid, name, sizeof(name)) <= 0)
		name[0] = 0;
	snprintf(t->name, sizeof(t->name), "%s", name);
	pf_thread_track(pf, t, name[0] ? name : NULL);

	pf_packet(pf);
	desc = pb_begin(b, PACKET_TRACK_DESCRIPTOR);
	pb_varint(b, TRACK_UUID, pf_track(t, PF_TRACK_WAITS));
	pb_varint(b, TRACK_PARENT_UUID, pf_track(t, PF_TRACK_THREAD));
	pb_string(b, TRACK_NAME, "waits");
	pb_end(b, desc);
	pf_flush_packet(pf);
}

/*
 * @ts on CLOCK_DELTA, as the difference from the last packet's, when it
 * is no earlier; else as it is, on MONOTONIC, which leaves CLOCK_DELTA's
 * running time alone (trace_processor keeps a clock's running time of
 * its own; the SDK writes a time before it so).
 */
static void pf_timestamp(struct perfetto *pf, uint64_t ts)
{
	struct pb_buf *b = &pf->pkt;

	if (ts >= pf->delta_ts) {
		/* Even 0: without one, it would take the latest time seen. */
		pb_varint(b, PACKET_TIMESTAMP, ts - pf->delta_ts);
		pf->delta_ts = ts;
		return;
	}
	pb_varint(b, PACKET_TIMESTAMP, ts);
	pb_varint(b, PACKET_TIMESTAMP_CLOCK_ID, BUILTIN_CLOCK_MONOTONIC);
}

/*
 * @name's interned id, its definition written into the packet the first
 * time (a packet may define a name and use it).  0, and @name written in
 * full, past PF_NAMES_MAX names or without memory: the table's memory
 * has a bound however many keys the names carry.
 */
static uint64_t pf_name_iid(struct perfetto *pf, const char *name)
{
	struct pb_buf *b = &pf->pkt;
	size_t iid = strindex_get(&pf->name_iids, name, 0), data, def;

	if (iid != STRINDEX_NONE)
		return iid;
	/* Ids from 1: 0 is no id. */
	if (pf->nr_names >= PF_NAMES_MAX ||
	    strindex_put(&pf->name_iids, name, 0, pf->nr_names + 1))
		return 0;
	iid = ++pf->nr_names;
	data = pb_begin(b, PACKET_INTERNED_DATA);
	def = pb_begin(b, INTERNED_EVENT_NAMES);
	pb_varint(b, EVENT_NAME_IID_OF, iid);
	pb_string(b, EVENT_NAME_OF, name);
	pb_end(b, def);
	pb_end(b, data);
	return iid;
}

/*
 * Every event needs the sequence's state: its clock, and its names'
 * definitions.  trace_processor drops such a packet only if that state
 * was lost, which a file written whole never does.  Named by @iid, a
 * name defined already, or else by @name (NULL: none): the id it was
 * named by, 0 if none.
 */
static uint64_t pf_event_named(struct perfetto *pf, struct pf_thread *t,
			   unsigned int kind, uint64_t ts, unsigned int type,
			   const char *name, uint64_t iid,
			   uint64_t first_flow, uint32_t nr_flows,
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
	pb_varint(b, PACKET_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	pf_timestamp(pf, ts);
	if (!iid && name)
		iid = pf_name_iid(pf, name);
	ev = pb_begin(b, PACKET_TRACK_EVENT);
	pb_varint(b, EVENT_TYPE, type);
	pb_varint(b, EVENT_TRACK_UUID, pf_track(t, kind));
	if (iid)
		pb_varint(b, EVENT_NAME_IID, iid);
	else if (name)
		pb_string(b, EVENT_NAME, name);
	for (i = 0; i < nr_flows; i++)
		pb_fixed64(b, terminating ? EVENT_TERMINATING_FLOW_IDS :
			   EVENT_FLOW_IDS, first_flow + i);
	pb_end(b, ev);
	pf_flush_packet(pf);
	if (type == TYPE_SLICE_BEGIN)
		pf->open++;
	else if (type == TYPE_SLICE_END && pf->open)
		pf->open--;
	return iid;
}

void pf_event(struct perfetto *pf, struct pf_thread *t, unsigned int kind,
	      uint64_t ts, unsigned int type, const char *name,
	      uint64_t first_flow, uint32_t nr_flows, bool terminating)
{
	pf_event_named(pf, t, kind, ts, type, name, 0, first_flow, nr_flows,
		       terminating);
}

uint64_t pf_begin(struct perfetto *pf, struct pf_thread *t,
		  unsigned int kind, uint64_t ts, const char *name,
		  uint64_t iid)
{
	return pf_event_named(pf, t, kind, ts, TYPE_SLICE_BEGIN, name, iid,
			      0, 0, false);
}

void pf_end(struct perfetto *pf, struct pf_thread *t, unsigned int kind,
	    uint64_t ts)
{
	pf_event(pf, t, kind, ts, TYPE_SLICE_END, NULL, 0, 0, false);
}

