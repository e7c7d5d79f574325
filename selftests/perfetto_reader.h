/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader of the Perfetto traces ispotctl writes (user/lib/export/
 * perfetto.h), written from the protobuf wire format, not from the
 * writer's code: test_perfetto.c reads what the writer gives it, and
 * selftests/kmod/perfetto_dump prints a trace in the guest, which has no
 * protoc.  It keeps the fields the writer uses; perfetto_min.proto
 * (selftests/host) names the same for protoc.  Names given by an
 * interned id and times on an incremental clock are resolved as
 * trace_processor resolves them (Perfetto's proto_trace_reader.cc and
 * clock_synchronizer.h): an id from the sequence's interned event names,
 * a time from the clock the packet names or, failing that, its
 * trace_packet_defaults' clock, an incremental clock's times added up.
 */
#ifndef ISPOT_TEST_PERFETTO_READER_H
#define ISPOT_TEST_PERFETTO_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct pr_field {
	uint32_t num;
	unsigned int wire;
	uint64_t v;		/* varint or fixed64 */
	const uint8_t *p;	/* length-delimited */
	size_t len;
};

#define PR_MAX_FLOWS	16

/* One TrackEvent: type 1 begin, 2 end, 3 instant (TrackEvent.Type). */
struct pr_event {
	uint64_t ts;
	uint64_t track;
	unsigned int type;
	char name[128];
	size_t name_len;	/* its whole length, past what name[] keeps */
	uint64_t flows[PR_MAX_FLOWS];	/* flow_ids, the first ones */
	unsigned int nr_flows;
	uint64_t terminating;		/* the last, 0: none */
	/* Its time is MONOTONIC's, as it is or from an incremental clock */
	bool monotonic;
	bool needs_state;	/* sequence_flags: NEEDS_INCREMENTAL_STATE */
	uint64_t clock;		/* the clock its packet named, 0: none */
	uint64_t name_iid;	/* 0: its name was given whole, or none */
};

struct pr_track {
	uint64_t uuid, parent;
	uint64_t tid;		/* 0: not a thread's */
	char name[128];		/* its name, or its thread's */
};

/* An interned event name: EventName's iid and name. */
struct pr_name {
	uint64_t iid;
	char name[128];
	size_t len;		/* its whole length */
};

struct pr_trace {
	size_t nr_packets;
	bool first_cleared;	/* the first packet clears the state */
	bool all_sequenced;	/* every packet has a sequence id */
	bool clock_snapshot;
	bool descriptors_first;	/* tracks described before use */
	struct pr_event *ev;
	size_t nr_ev, cap_ev;
	struct pr_track *tr;
	size_t nr_tr, cap_tr;
	struct pr_name *names;
	size_t nr_names, cap_names;
	/*
	 * The clocks: the one trace_packet_defaults gives, and the
	 * snapshot's incremental one (0: none) with its running time and
	 * MONOTONIC's at the snapshot.
	 */
	uint64_t default_clock;
	uint64_t delta_clock, delta_now, delta_base, mono_base;
};

static inline int pr_varint(const uint8_t **p, const uint8_t *end,
			    uint64_t *v)
{
	int shift = 0;

	for (*v = 0; *p < end && shift < 64; shift += 7) {
		uint8_t c = *(*p)++;

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
	}
	return -1;
}

/* The next field of [*p, end) into @f: 1, 0 at the end, -1 if malformed. */
static inline int pr_next(const uint8_t **p, const uint8_t *end,
			  struct pr_field *f)
{
	uint64_t key, len;
	int i;

	if (*p >= end)
		return 0;
	if (pr_varint(p, end, &key))
		return -1;
	f->num = (uint32_t)(key >> 3);
	f->wire = key & 7;
	switch (f->wire) {
	case 0:
		return pr_varint(p, end, &f->v) ? -1 : 1;
	case 1:
		if (end - *p < 8)
			return -1;
		for (f->v = 0, i = 0; i < 8; i++)
			f->v |= (uint64_t)(*p)[i] << (8 * i);
		*p += 8;
		return 1;
	case 2:
		if (pr_varint(p, end, &len) || len > (uint64_t)(end - *p))
			return -1;
		f->p = *p;
		f->len = len;
		*p += len;
		return 1;
	default:
		return -1;	/* the writer uses no other wire type */
	}
}

static inline void pr_str(char *dst, size_t n, const struct pr_field *f)
{
	size_t len = f->len < n - 1 ? f->len : n - 1;

	memcpy(dst, f->p, len);
	dst[len] = 0;
}

static inline const struct pr_track *pr_find_track(const struct pr_trace *t,
						   uint64_t uuid)
{
	size_t i;

	for (i = 0; i < t->nr_tr; i++)
		if (t->tr[i].uuid == uuid)
			return &t->tr[i];
	return NULL;
}

/* Room for one more of @size bytes in *@arr; -1 without memory. */
static inline int pr_grow(void *arr, size_t nr, size_t *cap, size_t size)
{
	void **a = arr;
	void *n;

	if (nr < *cap)
		return 0;
	n = realloc(*a, (*cap ? 2 * *cap : 64) * size);
	if (!n)
		return -1;
	*a = n;
	*cap = *cap ? 2 * *cap : 64;
	return 0;
}

/*
 * A track's descriptor.  One that comes again for a uuid already
 * described names it anew (the writer names a thread at its exit when it
 * could not at its first event), as trace_processor takes it, which
 * refuses one whose parent or thread differs.
 */
static inline int pr_descriptor(struct pr_trace *t, const struct pr_field *f)
{
	const uint8_t *p = f->p, *end = f->p + f->len, *q, *qend;
	struct pr_field g, h;
	struct pr_track got = { 0 }, *tr = &got, *known;
	int r, s;

	while ((r = pr_next(&p, end, &g)) > 0) {
		if (g.num == 1 && g.wire == 0)
			tr->uuid = g.v;
		else if (g.num == 5 && g.wire == 0)
			tr->parent = g.v;
		else if (g.num == 2 && g.wire == 2)
			pr_str(tr->name, sizeof(tr->name), &g);
		else if (g.num == 4 && g.wire == 2)
			for (q = g.p, qend = g.p + g.len;
			     (s = pr_next(&q, qend, &h)) != 0;) {
				if (s < 0)
					return -1;
				if (h.num == 2 && h.wire == 0)
					tr->tid = h.v;
				if (h.num == 5 && h.wire == 2)
					pr_str(tr->name, sizeof(tr->name), &h);
			}
	}
	known = (struct pr_track *)pr_find_track(t, got.uuid);
	if (known) {
		if (known->parent != got.parent || known->tid != got.tid)
			return -1;
		if (got.name[0])
			memcpy(known->name, got.name, sizeof(got.name));
		return r;
	}
	if (pr_grow(&t->tr, t->nr_tr, &t->cap_tr, sizeof(*t->tr)))
		return -1;
	t->tr[t->nr_tr++] = got;
	return r;
}

/* Interned name @iid: NULL if the sequence defined none. */
static inline const struct pr_name *pr_name_of(const struct pr_trace *t,
					       uint64_t iid)
{
	size_t i;

	for (i = 0; i < t->nr_names; i++)
		if (t->names[i].iid == iid)
			return &t->names[i];
	return NULL;
}

/* InternedData's event names; an id defined twice is malformed. */
static inline int pr_interned(struct pr_trace *t, const struct pr_field *f)
{
	const uint8_t *p = f->p, *end = f->p + f->len, *q, *qend;
	struct pr_field g, h;
	struct pr_name n;
	int r, s;

	while ((r = pr_next(&p, end, &g)) > 0) {
		if (g.num != 2 || g.wire != 2)
			continue;
		memset(&n, 0, sizeof(n));
		for (q = g.p, qend = g.p + g.len;
		     (s = pr_next(&q, qend, &h)) != 0;) {
			if (s < 0)
				return -1;
			if (h.num == 1 && h.wire == 0)
				n.iid = h.v;
			if (h.num == 2 && h.wire == 2) {
				pr_str(n.name, sizeof(n.name), &h);
				n.len = h.len;
			}
		}
		if (!n.iid || pr_name_of(t, n.iid) ||
		    pr_grow(&t->names, t->nr_names, &t->cap_names,
			    sizeof(*t->names)))
			return -1;
		t->names[t->nr_names++] = n;
	}
	return r;
}

/* A ClockSnapshot: MONOTONIC's time and the incremental clock's. */
static inline int pr_snapshot(struct pr_trace *t, const struct pr_field *f)
{
	const uint8_t *p = f->p, *end = f->p + f->len, *q, *qend;
	struct pr_field g, h;
	int r, s;

	t->clock_snapshot = true;
	while ((r = pr_next(&p, end, &g)) > 0) {
		uint64_t id = 0, ts = 0;
		bool incremental = false;

		if (g.num != 1 || g.wire != 2)
			continue;
		for (q = g.p, qend = g.p + g.len;
		     (s = pr_next(&q, qend, &h)) != 0;) {
			if (s < 0)
				return -1;
			if (h.num == 1 && h.wire == 0)
				id = h.v;
			if (h.num == 2 && h.wire == 0)
				ts = h.v;
			if (h.num == 3 && h.wire == 0)
				incremental = h.v;
		}
		if (id == 3)
			t->mono_base = ts;
		/* Only the sequence's own clocks may be incremental. */
		if (incremental && id >= 64 && id < 128) {
			t->delta_clock = id;
			t->delta_now = t->delta_base = ts;
		}
	}
	return r;
}

/* TracePacketDefaults: the clock of a packet that names none. */
static inline int pr_defaults(struct pr_trace *t, const struct pr_field *f)
{
	const uint8_t *p = f->p, *end = f->p + f->len;
	struct pr_field g;
	int r;

	while ((r = pr_next(&p, end, &g)) > 0)
		if (g.num == 58 && g.wire == 0)
			t->default_clock = g.v;
	return r;
}

/*
 * A packet's time on MONOTONIC, from the clock it names or the default:
 * whether it is.  An incremental clock's time is its running time.
 */
static inline bool pr_time(struct pr_trace *t, uint64_t clock, uint64_t *ts)
{
	if (!clock)
		clock = t->default_clock;
	if (clock == 3)
		return true;
	if (!clock || clock != t->delta_clock)
		return false;
	t->delta_now += *ts;
	*ts = t->delta_now - t->delta_base + t->mono_base;
	return true;
}

static inline int pr_event(struct pr_trace *t, const struct pr_field *f,
			   uint64_t ts, bool monotonic)
{
	const uint8_t *p = f->p, *end = f->p + f->len;
	struct pr_event *e;
	struct pr_field g;
	int r;

	if (pr_grow(&t->ev, t->nr_ev, &t->cap_ev, sizeof(*t->ev)))
		return -1;
	e = &t->ev[t->nr_ev++];
	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->monotonic = monotonic;
	while ((r = pr_next(&p, end, &g)) > 0) {
		if (g.num == 9 && g.wire == 0)
			e->type = (unsigned int)g.v;
		else if (g.num == 11 && g.wire == 0)
			e->track = g.v;
		else if (g.num == 23 && g.wire == 2) {
			pr_str(e->name, sizeof(e->name), &g);
			e->name_len = g.len;
		}
		else if (g.num == 10 && g.wire == 0)
			e->name_iid = g.v;
		else if (g.num == 47 && g.wire == 1 &&
			 e->nr_flows < PR_MAX_FLOWS)
			e->flows[e->nr_flows++] = g.v;
		else if (g.num == 48 && g.wire == 1)
			e->terminating = g.v;
	}
	if (e->name_iid) {
		const struct pr_name *n = pr_name_of(t, e->name_iid);

		/* trace_processor would keep the slice, nameless. */
		if (!n)
			return -1;
		memcpy(e->name, n->name, sizeof(e->name));
		e->name_len = n->len;
	}
	if (!pr_find_track(t, e->track))
		t->descriptors_first = false;
	return r;
}

/*
 * A packet, its parts taken in trace_processor's order: the sequence's
 * flags, its defaults, its interned data, a clock snapshot (which ends
 * the packet: an event beside it is not read), then the event.
 */
static inline int pr_packet(struct pr_trace *t, const struct pr_field *pk)
{
	const uint8_t *p = pk->p, *end = pk->p + pk->len;
	bool seq = false, cleared = false, needs = false, mono;
	struct pr_field f, ev = { 0 }, def = { 0 }, data = { 0 }, snap = { 0 };
	uint64_t ts = 0, clock = 0;
	int r;

	while ((r = pr_next(&p, end, &f)) > 0) {
		if (f.num == 10 && f.wire == 0)
			seq = f.v != 0;
		else if (f.num == 13 && f.wire == 0) {
			cleared = f.v & 1;
			needs = f.v & 2;
		} else if (f.num == 6 && f.wire == 2)
			snap = f;
		else if (f.num == 8 && f.wire == 0)
			ts = f.v;
		else if (f.num == 58 && f.wire == 0)
			clock = f.v;
		else if (f.num == 59 && f.wire == 2)
			def = f;
		else if (f.num == 12 && f.wire == 2)
			data = f;
		else if (f.num == 60 && f.wire == 2 && pr_descriptor(t, &f))
			return -1;
		else if (f.num == 11 && f.wire == 2)
			ev = f;
	}
	if (r < 0 || (def.num && pr_defaults(t, &def) < 0) ||
	    (data.num && pr_interned(t, &data) < 0) ||
	    (snap.num && pr_snapshot(t, &snap) < 0))
		return -1;
	if (ev.num && !snap.num) {
		mono = pr_time(t, clock, &ts);
		if (pr_event(t, &ev, ts, mono))
			return -1;
		t->ev[t->nr_ev - 1].needs_state = needs;
		t->ev[t->nr_ev - 1].clock = clock;
	}
	if (!t->nr_packets)
		t->first_cleared = cleared;
	if (!seq)
		t->all_sequenced = false;
	t->nr_packets++;
	return 0;
}

/* Read the trace in [buf, buf + len) into @t: 0, or -1 if malformed. */
static inline int pr_read(const void *buf, size_t len, struct pr_trace *t)
{
	const uint8_t *p = buf, *end = p + len;
	struct pr_field f;
	int r;

	memset(t, 0, sizeof(*t));
	t->all_sequenced = t->descriptors_first = true;
	while ((r = pr_next(&p, end, &f)) > 0)
		if (f.num != 1 || f.wire != 2 || pr_packet(t, &f))
			return -1;
	return r;
}

static inline void pr_free(struct pr_trace *t)
{
	free(t->ev);
	free(t->tr);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

#endif /* ISPOT_TEST_PERFETTO_READER_H */
