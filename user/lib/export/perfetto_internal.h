/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the Perfetto writer's two halves share: its state (perfetto.c:
 * records to slices, flows and the threads they are on) and the packets
 * it writes them as (perfetto_packets.c: TracePackets of TrackEvents and
 * track descriptors, encoded by hand).  Nothing outside those two files
 * includes this, but their unit test.
 */
#ifndef ISPOT_PERFETTO_INTERNAL_H
#define ISPOT_PERFETTO_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/drain.h"
#include "analysis/pair.h"
#include "export/perfetto.h"
#include "util/hashmap.h"
#include "util/protobuf.h"
#include "util/strindex.h"

/* Track uuids: kind in the low bits, then the tid and its generation. */
#define PF_TRACK_THREAD			0
#define PF_TRACK_WAITS			1
#define PF_TRACK_PROCESS		2
#define PF_NAME_MAX			512
/* Names interned (perfetto_packets.c, pf_name_iid()); later ones whole. */
#define PF_NAMES_MAX			16384
/*
 * The bound's arithmetic (perfetto.c, pf_room()), from the encoding in
 * perfetto_packets.c, with ids, times and names at their largest:
 * test_perfetto.c writes those packets and checks them against these.
 * The first packets (clock snapshot, process track with a name of 255
 * bytes) take at most 345 bytes; a record, but for the ends of the slices
 * it closes (their room is kept while they are open), at most 1155: a new
 * thread's two track descriptors (591) and a call's begin with its name's
 * definition (564), more than a wake's instant with its flows (140) or a
 * thread's track named anew at its exit (55).  An end takes at most 45
 * (35 with its time written whole, and one flow it ends); a record opens
 * at most one slice.
 */
#define PF_HEAD_MAX			512
#define PF_RECORD_MAX			2048
#define PF_END_MAX			48
#define PF_RECORD_OPENS			1
/* (probe, key) pairs whose call names are kept (perfetto.c). */
#define PF_CALL_NAMES_MAX		PF_NAMES_MAX
/* Packets are written out in chunks of about this many bytes. */
#define PF_OUT_CHUNK			(64 * 1024)
/* TrackEvent.Type (track_event.proto). */
#define TYPE_SLICE_BEGIN		1
#define TYPE_SLICE_END			2
#define TYPE_INSTANT			3

/* A call open on a thread track: the pairer's frame it mirrors. */
struct pf_call {
	uint64_t ts;
	uint32_t probe_id;
};

struct pf_thread {
	uint32_t tid;
	uint32_t gen;		/* a reused tid is a new thread */
	bool announced;		/* its track descriptors are written */
	/* The name its track carries, as a comm: "" for none. */
	char name[RECORD_COMM_LEN];
	bool exited;		/* later records of it are left out */
	bool in_wait;		/* a "futex wait" slice is open */
	bool off;		/* an off-CPU slice is open (inside it) */
	uint64_t last_ts;	/* its latest event: none goes before */
	uint64_t wait_uaddr, wait_since;
	struct pf_call *calls;
	uint32_t nr_calls;
	size_t cap_calls;
	struct pair_thread pair;	/* its calls as the pairer holds them */
	struct pf_thread *next;		/* in the order first seen */
};

/* A call's name, interned, kept by what names it (perfetto_names). */
struct pf_call_name {
	uint32_t probe_id;
	bool keyed;
	uint64_t key;
	uint64_t iid;
	uint64_t generation;	/* perfetto_names.generation's, then */
};

/* A futex word's latest wake, and the flows it started. */
struct pf_word {
	uint64_t uaddr;
	uint64_t wake_ts;
	uint64_t first_flow;
	uint32_t nr_flows, used_flows;
};

struct perfetto {
	FILE *out;
	uint32_t pid;
	struct perfetto_names names;
	struct pairer *pairer;
	struct hashmap threads;		/* tid -> struct pf_thread * */
	struct pf_thread *first, **last;	/* in the order first seen */
	struct pf_word *words;		/* in the order first seen */
	size_t nr_words, cap_words;
	struct hashmap word_index;	/* uaddr -> index in words */
	uint64_t next_flow;
	uint64_t last_ts;		/* the latest event written */
	uint64_t delta_ts;		/* CLOCK_DELTA's running time */
	struct strindex name_iids;	/* name -> its interned id */
	size_t nr_names;
	struct pf_call_name *call_names;
	size_t nr_call_names, cap_call_names;
	struct hashmap call_name_index;	/* pf_call_id() -> its index */
	struct pb_buf pkt;
	struct pb_buf out_buf;		/* packets not written out yet */
	int err;			/* the first error, sticky */
	/*
	 * The bound (perfetto_set_max_size()): the bytes written, the
	 * slices open (each needs an end's room), and where it stopped.
	 */
	uint64_t written, max_size;
	uint64_t open;
	bool full;
	uint64_t full_ts;
};

/* perfetto_packets.c: the packets kept so far, out to the file; */
void pf_out_flush(struct perfetto *pf);
/* the trace's first packets, */
void pf_clock_snapshot(struct perfetto *pf, const struct perfetto_clock *c);
void pf_process_track(struct perfetto *pf, const char *process);
/*
 * one TrackEvent on @t's track @kind at @ts (never before the thread's
 * latest event; its tracks are announced before its first), @name for a
 * begin or an instant, @flows started (@terminating false) or ended,
 */
void pf_event(struct perfetto *pf, struct pf_thread *t, unsigned int kind,
	      uint64_t ts, unsigned int type, const char *name,
	      uint64_t first_flow, uint32_t nr_flows, bool terminating);
/*
 * a slice's begin, named by @iid, a name defined already, or else by
 * @name: the interned id it was named by (0: @name written whole); and a
 * slice's end.
 */
uint64_t pf_begin(struct perfetto *pf, struct pf_thread *t,
		  unsigned int kind, uint64_t ts, const char *name,
		  uint64_t iid);
void pf_end(struct perfetto *pf, struct pf_thread *t, unsigned int kind,
	    uint64_t ts);
/* @t's thread track named @name anew (its exit gave another name). */
void pf_name_thread(struct perfetto *pf, struct pf_thread *t,
		    const char *name);

#endif /* ISPOT_PERFETTO_INTERNAL_H */
