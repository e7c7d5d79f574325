// SPDX-License-Identifier: GPL-2.0
/*
 * The events of a format 2 to 6 recording, encoded and decoded by the
 * same state (recording_codec.h; Documentation/recording.rst, "Events,
 * formats 2 to 6").  A record is:
 *
 *	op		0x40 | slot (SMALL, format 3): an entry or exit of
 *			one slot whose call site and arguments are its
 *			probe's last in the thread (rec2_call_of()) and cpu
 *			the thread's last, then u32: bit 0 exit, bits 1-16 the
 *			time since the chunk's last record, bits 17-24 the
 *			stack pointer's difference from the thread's last
 *			plus 128, bits 25-31 probe_id; nothing else follows
 *			0x08 | (n - 1) (MEDIUM, format 4): a SMALL record but
 *			for argument k, then u8 slot | k << 6, the SMALL
 *			u32, and n bytes: the zigzag of data[k] minus its
 *			probe's last
 *			0x80 | EXIT 0x40 | slot: an entry or exit of one slot
 *			1 (RECORD): then u8 slot, u8 kind, u8 nslots
 *	u24 desc	seven 3-bit length codes (0 to 6 bytes, 7: 8 bytes) of
 *			ts, sp, probe_id, ip, data[0..2]; bit 21: cpu follows
 *	the seven	in those lengths, little-endian: ts as the zigzag
 *			difference from the chunk's last record, sp from the
 *			thread's last, ip and data[] from the thread's last
 *			of the same class (rec2_class()) or, format 5, an
 *			entry's or exit's from its probe's last call
 *			(rec2_body_call()), probe_id as it is
 *	[u16 cpu]
 *	words		RECORD only: the other slots' u64 words, varints
 *
 * Differences wrap, so every value round-trips.  A SMALL record is one
 * 4-byte store and no length codes: it is what most of a busy loop's
 * entries and exits are (Documentation/evaluation.rst, "Recordings,
 * format 3").  In a body, the writer stores each field as 8 bytes and
 * moves on by its length, the reader loads 8 bytes and masks: neither
 * branches on a length, which a busy host's branch predictor makes dear
 * (Documentation/evaluation.rst); a field of code 0 is passed over.
 */
#include <endian.h>
#include <string.h>

#include "recording/recording_codec.h"
#include "recording/recording_format.h"

#define NR_FIELDS	7
#define DESC_CPU	(1u << 21)
#define DESC_BAD	(~0u << 22)	/* reserved bits: 0 */

/*
 * A length code's bytes (0 to 6, and 8 for 7), by arithmetic: a table
 * load would lengthen the chain from one field's place to the next.
 */
static inline unsigned int code_len(unsigned int c)
{
	return c + (c == 7);
}

/*
 * The mask of @len bytes (0 to 8), in two shifts: one of 64 bits would
 * be undefined.
 */
static inline uint64_t bytes_mask(unsigned int len)
{
	unsigned int half = 4 * len;

	return ((1ull << half) << half) - 1;
}

/* A length code's mask. */
static inline uint64_t code_mask(unsigned int c)
{
	return bytes_mask(code_len(c));
}

void rec2_reset(struct rec2_state *st, unsigned int major)
{
	memset(st, 0, sizeof(*st));
	st->other_class = major >= 5 ? 2 : 0;
}

/* The code of the fewest bytes that hold @v. */
static inline unsigned int code_of(uint64_t v)
{
	unsigned int n = v ? (71 - __builtin_clzll(v)) >> 3 : 0;

	return n - (n == 8);
}

/* @v in the fewest bytes at @p, its code into *@d at @shift: past it. */
static inline unsigned char *put_field(unsigned char *p, uint64_t v,
				       unsigned int shift, uint32_t *d)
{
	unsigned int c = code_of(v);
	uint64_t w = htole64(v);

	*d |= c << shift;
	memcpy(p, &w, 8);
	return p + code_len(c);
}

/*
 * The fields every record has (the head comment); @t and @st updated.
 * A field that repeats its thread's (a call site, an argument) has code
 * 0 and no bytes: passed over, it costs a branch that a loop's records
 * predict, where its code costs a dozen instructions.
 */
static unsigned char *put_body(struct rec2_state *st, struct rec2_thread *t,
			       unsigned char *p, const struct ispot_record *r)
{
	struct rec2_call *c = rec2_body_call(st, t, r->probe_id, r->kind);
	uint64_t *last = c ? c->data : rec2_thread_data(st, t, r->kind);
	uint64_t *last_ip = c ? &c->ip : rec2_thread_ip(st, t, r->kind);
	uint64_t ip = rec2_zz(r->ip - *last_ip);
	uint64_t a0 = rec2_zz(r->data[0] - last[0]);
	uint64_t a1 = rec2_zz(r->data[1] - last[1]);
	uint64_t a2 = rec2_zz(r->data[2] - last[2]);
	uint32_t d = r->cpu != t->cpu ? DESC_CPU : 0;
	unsigned char *desc = p;

	p = put_field(p + 3, rec2_zz(r->ts_ns - st->ts), 0, &d);
	p = put_field(p, rec2_zz(r->sp - t->sp), 3, &d);
	p = put_field(p, r->probe_id, 6, &d);
	if (ip)
		p = put_field(p, ip, 9, &d);
	if (a0)
		p = put_field(p, a0, 12, &d);
	if (a1)
		p = put_field(p, a1, 15, &d);
	if (a2)
		p = put_field(p, a2, 18, &d);
	memcpy(last, r->data, sizeof(r->data));
	*last_ip = r->ip;
	rec2_call_keep(t, r);
	desc[0] = (unsigned char)d;
	desc[1] = (unsigned char)(d >> 8);
	desc[2] = (unsigned char)(d >> 16);
	if (d & DESC_CPU) {
		*p++ = (unsigned char)r->cpu;
		*p++ = (unsigned char)(r->cpu >> 8);
		t->cpu = r->cpu;
	}
	st->ts = r->ts_ns;
	t->sp = r->sp;
	return p;
}

size_t rec2_put_medium(struct rec2_state *st, struct rec2_thread *t,
		       struct rec2_call *c, unsigned char *p, unsigned int s,
		       const struct ispot_record *r, uint32_t w)
{
	uint64_t d0 = r->data[0] ^ c->data[0], d1 = r->data[1] ^ c->data[1];
	uint64_t d2 = r->data[2] ^ c->data[2], v;
	unsigned int k, len;

	/* One argument changed, and one only. */
	if (!!d0 + !!d1 + !!d2 != 1)
		return 0;
	k = d0 ? 0 : d1 ? 1 : 2;
	v = rec2_zz(r->data[k] - c->data[k]);
	len = (71 - __builtin_clzll(v)) >> 3;	/* 1 to 8: v is not 0 */
	p[0] = REC2_OP_MEDIUM | (len - 1);
	p[1] = (unsigned char)(s | k << 6);
	memcpy(p + 2, &w, 4);
	/* All 8 bytes, kept up to @len: no branch on the length. */
	v = htole64(v);
	memcpy(p + REC2_MEDIUM_HEAD, &v, 8);
	c->data[k] = r->data[k];
	rec2_small_kept(st, t, r);
	return REC2_MEDIUM_HEAD + len;
}

size_t rec2_put_other(struct rec2_state *st, unsigned char *p,
		      const struct ispot_record *rec)
{
	unsigned int s = rec2_slot_of(rec->tid);
	struct rec2_thread *t = &st->slot[s];
	unsigned char *start = p;
	const uint64_t *w;
	size_t i, n;

	if (!t->valid || t->tid != rec->tid || t->tgid != rec->tgid) {
		memset(t, 0, sizeof(*t));
		t->valid = true;
		t->tid = rec->tid;
		t->tgid = rec->tgid;
		*p++ = REC2_OP_THREAD;
		*p++ = (unsigned char)s;
		p = rec2_put_var(p, rec->tid);
		p = rec2_put_var(p, rec->tgid);
		/* rec2_put_if_compact() took only a thread it knew. */
		i = rec2_put_compact(st, t, p, s, rec);
		if (i)
			return p + i - start;
	}
	if (rec->nslots == 1 && (rec->kind == ISPOT_REC_ENTRY ||
				 rec->kind == ISPOT_REC_EXIT)) {
		*p++ = REC2_OP_SHORT | s |
		       (rec->kind == ISPOT_REC_EXIT ? REC2_OP_EXIT : 0);
		return put_body(st, t, p, rec) - start;
	}
	*p++ = REC2_OP_RECORD;
	*p++ = (unsigned char)s;
	*p++ = rec->kind;
	*p++ = rec->nslots;
	p = put_body(st, t, p, rec);
	/* The other slots, as the u64 words they are (frames, counters). */
	w = (const uint64_t *)(rec + 1);
	n = (size_t)(rec->nslots - 1) * (ISPOT_SLOT_SIZE / 8);
	for (i = 0; i < n; i++)
		p = rec2_put_var(p, w[i]);
	return p - start;
}

size_t rec2_put_input(unsigned char *p, const struct session_input *in)
{
	struct rec_payload pl = rec_payload(in->type);
	unsigned char *start = p;

	*p++ = in->type;
	if (pl.tid)
		p = rec2_put_var(p, in->tid);
	p = rec2_put_var(p, in->a);
	if (pl.b)
		p = rec2_put_var(p, in->b);
	return p - start;
}

/* A bounded view of a chunk: a read past its end marks it bad. */
struct rd {
	const unsigned char *p, *end;
	const char *why;
};

static uint64_t get_var(struct rd *r)
{
	uint64_t v;

	if (rec2_get_var(&r->p, r->end, &v))
		return v;
	r->why = "an event runs past its chunk or overflows";
	r->p = r->end;
	return 0;
}

static uint8_t get_u8(struct rd *r)
{
	if (r->p >= r->end) {
		r->why = "an event runs past its chunk";
		return 0;
	}
	return *r->p++;
}

/* A varint that must fit @max. */
static uint64_t get_max(struct rd *r, uint64_t max)
{
	uint64_t v = get_var(r);

	if (v > max && !r->why)
		r->why = "a field is out of its range";
	return v;
}

/* Readable bytes a body is decoded from: its longest, and a load past. */
#define BODY_ROOM	(3 + 8 * NR_FIELDS + 2 + 8)

/* The fields every record has (put_body()); @t and @st updated. */
static void get_body(struct rec2_state *st, struct rec2_thread *t,
		     struct rd *r, struct ispot_record *rec)
{
	size_t left = r->end - r->p, used;
	const unsigned char *q = r->p, *base;
	unsigned char tmp[BODY_ROOM];
	uint64_t v[NR_FIELDS], *last, *last_ip;
	struct rec2_call *call;
	unsigned int i, c;
	uint32_t d;

	/* Near the chunk's end: from a copy, so no load passes it. */
	if (left < BODY_ROOM) {
		memset(tmp, 0, sizeof(tmp));
		memcpy(tmp, r->p, left);
		q = tmp;
	}
	base = q;
	d = q[0] | q[1] << 8 | (uint32_t)q[2] << 16;
	q += 3;
	/*
	 * A field of code 0 (one that repeats its thread's: a call site, an
	 * argument) is passed over by a branch a loop's records predict.
	 */
#pragma GCC unroll 7
	for (i = 0; i < NR_FIELDS; i++) {
		c = (d >> (3 * i)) & 7;
		v[i] = 0;
		if (c) {
			v[i] = load64(q) & code_mask(c);
			q += code_len(c);
		}
	}
	rec->cpu = t->cpu;
	if (d & DESC_CPU) {
		rec->cpu = q[0] | q[1] << 8;
		q += 2;
	}
	used = q - base;
	if (used > left || (d & DESC_BAD) || v[2] > UINT32_MAX) {
		r->why = used > left ? "an event runs past its chunk" :
			 "a record's fields are malformed";
		r->p = r->end;
		return;
	}
	r->p += used;
	call = rec2_body_call(st, t, (uint32_t)v[2], rec->kind);
	last = call ? call->data : rec2_thread_data(st, t, rec->kind);
	last_ip = call ? &call->ip : rec2_thread_ip(st, t, rec->kind);
	rec->tid = t->tid;
	rec->tgid = t->tgid;
	rec->ts_ns = st->ts + rec2_unzz(v[0]);
	rec->sp = t->sp + rec2_unzz(v[1]);
	rec->probe_id = (uint32_t)v[2];
	rec->ip = *last_ip + rec2_unzz(v[3]);
	for (i = 0; i < 3; i++)
		last[i] = rec->data[i] = last[i] + rec2_unzz(v[4 + i]);
	st->ts = rec->ts_ns;
	t->sp = rec->sp;
	*last_ip = rec->ip;
	t->cpu = rec->cpu;
	rec2_call_keep(t, rec);
}

/*
 * A SMALL record (rec2_put_compact()) of thread @t, from its 4 bytes; its
 * class (rec2_class_keep()) is the caller's to keep, once: a MEDIUM
 * record changes an argument first.
 */
static inline struct rec2_call *small_of(struct rec2_state *st,
					 struct rec2_thread *t,
					 const unsigned char *p,
					 struct ispot_record *rec)
{
	struct rec2_call *c;
	uint32_t w;

	memcpy(&w, p, 4);
	w = le32toh(w);
	rec->nslots = 1;
	rec->kind = w & 1 ? ISPOT_REC_EXIT : ISPOT_REC_ENTRY;
	c = rec2_call_of(t, w >> 25, rec->kind);
	rec->tid = t->tid;
	rec->tgid = t->tgid;
	rec->ts_ns = st->ts += (w >> 1) & 0xffff;
	rec->sp = t->sp += (int64_t)((w >> 17) & 0xff) - REC2_SMALL_SP_BIAS;
	rec->probe_id = w >> 25;
	rec->cpu = t->cpu;
	rec->ip = c->ip;
	memcpy(rec->data, c->data, sizeof(rec->data));
	return c;
}

static void get_small(struct rec2_state *st, struct rec2_thread *t,
		      struct rd *r, struct ispot_record *rec)
{
	if (r->end - r->p < 4) {
		r->why = "an event runs past its chunk";
		r->p = r->end;
		return;
	}
	small_of(st, t, r->p, rec);
	rec2_class_keep(st, t, rec);
	r->p += 4;
}

/*
 * A MEDIUM record (rec2_put_medium()) after its op: slot and k, the SMALL
 * word, then argument k as its probe's last plus a difference of the
 * op's length.  The difference is loaded as 8 bytes and masked where the
 * chunk has them: copied byte by byte and loaded again, it stalls on the
 * stores.  The new argument goes to the record and to its call from one
 * register, for the same reason.
 */
static void get_medium(struct rec2_state *st, struct rd *r, uint8_t op,
		       struct ispot_record *rec)
{
	unsigned int len = (op & ~REC2_OP_MEDIUM_MASK) + 1, k;
	const size_t head = REC2_MEDIUM_HEAD - 1;	/* past the op */
	size_t left = r->end - r->p;
	struct rec2_thread *t;
	struct rec2_call *c;
	uint64_t diff, arg;

	if (left < head + len) {
		r->why = "an event runs past its chunk";
		r->p = r->end;
		return;
	}
	t = &st->slot[r->p[0] & (REC2_SLOTS - 1)];
	k = r->p[0] >> 6;
	if (k > 2) {
		r->why = "a record's fields are malformed";
		r->p = r->end;
		return;
	}
	if (!t->valid) {
		r->why = "a record names no thread";
		return;
	}
	/* The call the record's call site and arguments are read from. */
	c = small_of(st, t, r->p + 1, rec);
	if (left >= head + 8) {
		diff = load64(r->p + head) & bytes_mask(len);
	} else {
		unsigned char tail[8] = { 0 };

		memcpy(tail, r->p + head, len);
		diff = load64(tail);
	}
	arg = c->data[k] + rec2_unzz(diff);
	c->data[k] = arg;
	rec->data[k] = arg;
	rec2_class_keep(st, t, rec);
	r->p += head + len;
}

/* A record, small or short (@op's slot) or field by field. */
static void get_record(struct rec2_state *st, struct rd *r, uint8_t op,
		       struct ispot_record *slots)
{
	unsigned int s = op & (REC2_SLOTS - 1);
	uint8_t kind = op & REC2_OP_EXIT ? ISPOT_REC_EXIT : ISPOT_REC_ENTRY;
	uint8_t nslots = 1;
	uint64_t *w = (uint64_t *)(slots + 1);
	size_t i, n;

	if (rec2_op_is_medium(op))
		return get_medium(st, r, op, slots);
	if (op == REC2_OP_RECORD) {
		s = get_u8(r);
		kind = get_u8(r);
		nslots = get_u8(r);
		if (s >= REC2_SLOTS || !nslots || nslots > DRAIN_MAX_SLOTS) {
			r->why = r->why ? r->why : "a record has a bad size";
			return;
		}
	}
	if (!st->slot[s].valid) {
		r->why = "a record names no thread";
		return;
	}
	/* Every byte of the slot is a field, each set below. */
	slots->nslots = nslots;
	if (!(op & REC2_OP_SHORT) && op & REC2_OP_SMALL)
		return get_small(st, &st->slot[s], r, slots);
	slots->kind = kind;
	get_body(st, &st->slot[s], r, slots);
	n = (size_t)(nslots - 1) * (ISPOT_SLOT_SIZE / 8);
	for (i = 0; i < n; i++)
		w[i] = get_var(r);
}

static void get_thread(struct rec2_state *st, struct rd *r)
{
	unsigned int s = get_u8(r);
	uint32_t tid = (uint32_t)get_max(r, UINT32_MAX);
	uint32_t tgid = (uint32_t)get_max(r, UINT32_MAX);
	struct rec2_thread *t;

	if (s >= REC2_SLOTS) {
		r->why = r->why ? r->why : "a thread slot is out of range";
		return;
	}
	t = &st->slot[s];
	memset(t, 0, sizeof(*t));
	t->valid = true;
	t->tid = tid;
	t->tgid = tgid;
}

size_t rec2_get(struct rec2_state *st, const unsigned char *p, size_t left,
		struct session_input *ev,
		struct ispot_record slots[DRAIN_MAX_SLOTS], const char **why)
{
	struct rd r = { p, p + left, NULL };
	uint8_t op = get_u8(&r);
	struct rec_payload pl;

	memset(ev, 0, sizeof(*ev));
	ev->type = op & (REC2_OP_SHORT | REC2_OP_SMALL) ||
		   rec2_op_is_medium(op) ? INPUT_RECORD : op;
	if (ev->type == INPUT_RECORD) {
		get_record(st, &r, op, slots);
		ev->rec = slots;
	} else if (op == REC2_OP_THREAD) {
		get_thread(st, &r);
	} else if ((pl = rec_payload(op)).a) {
		ev->tid = pl.tid ? (uint32_t)get_max(&r, UINT32_MAX) : 0;
		ev->a = get_var(&r);
		ev->b = pl.b ? get_var(&r) : 0;
	} else {
		r.why = "an event of an unknown type";
	}
	*why = r.why;
	return r.why ? 0 : (size_t)(r.p - p);
}

size_t rec2_get_records(struct rec2_state *st, const unsigned char *p,
			size_t left, struct rec2_batch *b, const char **why)
{
	struct rd r = { p, p + left, NULL };
	const unsigned char *at = r.p;
	struct rec2_thread *t;
	struct ispot_record *rec;
	uint8_t op;

	for (; r.p < r.end; at = r.p) {
		op = *r.p;
		rec = b->slots + b->used;
		if (op == REC2_OP_THREAD) {
			r.p++;
			get_thread(st, &r);
			if (r.why)
				break;
			continue;
		}
		/* Not a record, or one that may not fit: the caller's. */
		if (!(op & (REC2_OP_SHORT | REC2_OP_SMALL) ||
		      op == REC2_OP_RECORD || rec2_op_is_medium(op)) ||
		    b->room - b->used < (op == REC2_OP_RECORD ?
					 DRAIN_MAX_SLOTS : 1))
			break;
		t = &st->slot[op & (REC2_SLOTS - 1)];
		/* Most are SMALL, whole, of a known thread: in line. */
		if ((op & REC2_OP_SHORT) == 0 && op & REC2_OP_SMALL &&
		    r.end - r.p >= 5 && t->valid) {
			small_of(st, t, r.p + 1, rec);
			rec2_class_keep(st, t, rec);
			r.p += 5;
		} else {
			r.p++;
			get_record(st, &r, op, rec);
			if (r.why)
				break;
		}
		/* What the live drain would have refused (drain.h). */
		if (!drain_record_ok(rec->nslots, rec->ts_ns)) {
			r.why = "a record is malformed";
			break;
		}
		b->used += rec->nslots;
		b->nr++;
		if (rec->ts_ns > b->last_ts)
			b->last_ts = rec->ts_ns;
	}
	*why = r.why;
	return at - p;
}
