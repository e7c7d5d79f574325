/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events of a format 2 to 6 recording (Documentation/recording.rst,
 * "Events, formats 2 to 6"): each EVENTS section is a chunk that decodes
 * on its own, as a stream of ops.  A record names its thread by one of 64 slots
 * that an op filled earlier in the chunk, its time as the difference from
 * the record before it, and its stack pointer, return address and
 * arguments as differences from the same thread's last record, each in
 * as many bytes as it needs, the lengths in a descriptor ahead of them:
 * an entry or an exit takes a few bytes where its ring slot takes 64, and
 * decodes without a branch on its lengths.  The writer
 * (recording_write.c) and the reader (recording_read.c) keep the same
 * state, through the same functions here, so the two cannot drift apart.
 */
#ifndef ISPOT_RECORDING_CODEC_H
#define ISPOT_RECORDING_CODEC_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/ispot.h>

#include "analysis/drain.h"
#include "recording/source.h"

/* 8 bytes at @p, little-endian, wherever they are. */
static inline uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* A format 2 section head: u32 type, u32 head check, u64 len, u64 check. */
#define REC2_SECTION_HEAD	24

/* Ops of a chunk; a record of one slot that is an entry or exit is 0x80+. */
#define REC2_OP_RECORD		INPUT_RECORD	/* any record, field by field */
#define REC2_OP_THREAD		6		/* fill a thread slot */
#define REC2_OP_SHORT		0x80		/* | EXIT bit | slot */
#define REC2_OP_SMALL		0x40		/* | slot: format 3 */
#define REC2_OP_MEDIUM		0x08		/* | length - 1: format 4 */
#define REC2_OP_MEDIUM_MASK	0xf8
#define REC2_OP_EXIT		0x40
#define REC2_SLOTS		64
#define REC2_SMALL_LEN		5	/* a SMALL record: op and u32 */
#define REC2_MEDIUM_HEAD	6	/* a MEDIUM's: op, slot and k, u32 */

/* The other ops are an input's type (source.h) or THREAD: all below. */
_Static_assert(INPUT_FRAME < REC2_OP_MEDIUM &&
	       REC2_OP_THREAD < REC2_OP_MEDIUM, "an input's type is no MEDIUM op");

static inline bool rec2_op_is_medium(uint8_t op)
{
	return (op & REC2_OP_MEDIUM_MASK) == REC2_OP_MEDIUM;
}

/*
 * The longest an event can encode to (a thread op, then a stack record),
 * and the bytes past it that the writer may store over.
 */
#define REC2_MAX_EVENT		(16 + 64 + 10 * 8 * (DRAIN_MAX_SLOTS - 1))
#define REC2_SLACK		8

/*
 * A SMALL or MEDIUM record's call site and arguments: its probe's last
 * (format 3); from format 5 the entry and exit bodies' too.
 */
struct rec2_call {
	uint64_t ip, data[3];
};

#define REC2_CALLS		16	/* a thread's, by probe id and kind */

/*
 * Formats 2 to 4 tell a body from its thread's last record of the same
 * class: entries (and the rest), exits.  From format 5 the rest are told
 * from their own class, and an entry's or exit's body from its probe's
 * call (rec2_body_call()): classes 0 and 1 are neither read nor kept.
 */
#define REC2_CLASSES		3

/* A signed difference as an unsigned number, small if it is small. */
static inline uint64_t rec2_zz(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline uint64_t rec2_unzz(uint64_t v)
{
	return (v >> 1) ^ -(v & 1);
}

/* The most bytes a varint of 64 bits takes. */
#define REC2_VAR_MAX		10

/* @v in 7-bit groups, low first, each but the last with bit 7 set. */
static inline unsigned char *rec2_put_var(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/*
 * rec2_put_var()'s @v from *@p, which it moves past it: false if it runs
 * to @end or past 64 bits (the tenth byte holds bit 63 only).
 */
static inline bool rec2_get_var(const unsigned char **p,
				const unsigned char *end, uint64_t *v)
{
	unsigned int i;

	*v = 0;
	for (i = 0; i < REC2_VAR_MAX && *p < end; i++) {
		unsigned char b = *(*p)++;

		if (i == REC2_VAR_MAX - 1 && b > 1)
			return false;
		*v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* What a chunk's ops predict a thread's next record from. */
struct rec2_thread {
	uint32_t tid, tgid;
	bool valid;
	uint16_t cpu;
	uint64_t sp;
	/*
	 * data[] by class (rec2_class()); the ip of entries and exits (a
	 * call's return address, both), and of the rest (rec2_thread_ip()).
	 */
	uint64_t ip[2];
	uint64_t data[REC2_CLASSES][3];
	/*
	 * The last entry or exit of each probe (of 8 a thread calls; more
	 * share), whatever its op: a nested call's entry repeats its own
	 * function's last arguments far more often than its caller's.
	 */
	struct rec2_call call[REC2_CALLS];
};

/* A chunk's state, the same in the writer and the reader. */
struct rec2_state {
	uint64_t ts;
	/*
	 * The file's format's classes: from format 5 a record that is no
	 * entry or exit (a solo gate's, a switch, a futex call) is told from
	 * the thread's last such record, its ip too (class 2); before, from
	 * its last entry's arguments and its last record's ip (class 0), so
	 * that a gate's record between two entries cost their arguments and
	 * addresses written whole, its own and the next entry's.
	 */
	uint8_t other_class;
	struct rec2_thread slot[REC2_SLOTS];
};

/*
 * Both sides begin every chunk from this, for a file of format @major:
 * it decodes alone.
 */
void rec2_reset(struct rec2_state *st, unsigned int major);

/* The class a record of @kind is told from (struct rec2_state). */
static inline unsigned int rec2_class(const struct rec2_state *st,
				      uint8_t kind)
{
	return kind == ISPOT_REC_EXIT ? 1 :
	       kind == ISPOT_REC_ENTRY ? 0 : st->other_class;
}

/* The slot a thread is kept in. */
static inline unsigned int rec2_slot_of(uint32_t tid)
{
	return (tid * 0x9e3779b1u) >> 26;
}

/* The thread's data[] a record of @kind is told from. */
static inline uint64_t *rec2_thread_data(const struct rec2_state *st,
					 struct rec2_thread *t, uint8_t kind)
{
	return t->data[rec2_class(st, kind)];
}

/*
 * The thread's ip a record of @kind is told from: an exit's is its
 * entry's (the call's return address), so the two classes share one.
 */
static inline uint64_t *rec2_thread_ip(const struct rec2_state *st,
				       struct rec2_thread *t, uint8_t kind)
{
	return &t->ip[rec2_class(st, kind) >> 1];
}

/* The entry's or exit's (@kind) of probe @probe, kept by thread @t. */
static inline struct rec2_call *rec2_call_of(struct rec2_thread *t,
					     uint32_t probe, uint8_t kind)
{
	return &t->call[(probe * 2 + (kind == ISPOT_REC_EXIT)) &
			(REC2_CALLS - 1)];
}

/*
 * Whether entries and exits keep their classes' data[] and ip: formats 2
 * to 4 tell the next body from them; from format 5 it is told from the
 * probe's call (rec2_body_call()), and they would only be written.
 */
static inline bool rec2_keeps_classes(const struct rec2_state *st)
{
	return !st->other_class;
}

/* A SMALL or MEDIUM record @r of thread @t into its class (formats 2-4). */
static inline void rec2_class_keep(const struct rec2_state *st,
				   struct rec2_thread *t,
				   const struct ispot_record *r)
{
	if (!rec2_keeps_classes(st))
		return;
	*rec2_thread_ip(st, t, r->kind) = r->ip;
	memcpy(rec2_thread_data(st, t, r->kind), r->data, sizeof(r->data));
}

/*
 * Format 5: the call an entry's or exit's body tells its ip and data[]
 * from, its probe's last of its kind in the thread, as a SMALL record's
 * are (a thread's last entry is often another function's, whose
 * arguments tell nothing of this one's); NULL before format 5 and for
 * the rest, told from their class's last.
 */
static inline struct rec2_call *rec2_body_call(const struct rec2_state *st,
					       struct rec2_thread *t,
					       uint32_t probe, uint8_t kind)
{
	if (rec2_keeps_classes(st) ||
	    (kind != ISPOT_REC_ENTRY && kind != ISPOT_REC_EXIT))
		return NULL;
	return rec2_call_of(t, probe, kind);
}

/* Every entry or exit, of any op, leaves its call site and arguments. */
static inline void rec2_call_keep(struct rec2_thread *t,
				  const struct ispot_record *r)
{
	struct rec2_call *c;

	if (r->kind != ISPOT_REC_ENTRY && r->kind != ISPOT_REC_EXIT)
		return;
	c = rec2_call_of(t, r->probe_id, r->kind);
	c->ip = r->ip;
	memcpy(c->data, r->data, sizeof(c->data));
}

#define REC2_SMALL_SP_BIAS	128	/* a SMALL sp step of -128 to 127 */

/*
 * A SMALL record's word (recording_codec.c): its exit bit, time step,
 * stack step and probe id, all in their bits if the caller found that
 * they fit.
 */
static inline uint32_t rec2_small_word(uint64_t dts, uint64_t dsp,
				       const struct ispot_record *r)
{
	return htole32((r->kind == ISPOT_REC_EXIT) | (uint32_t)dts << 1 |
		       (uint32_t)dsp << 17 | r->probe_id << 25);
}

/*
 * A SMALL or MEDIUM record's state: the chunk's time, the thread's sp,
 * and its class (rec2_class_keep()); its probe's call is told from it
 * (format 3's).
 */
static inline void rec2_small_kept(struct rec2_state *st,
				   struct rec2_thread *t,
				   const struct ispot_record *r)
{
	st->ts = r->ts_ns;
	t->sp = r->sp;
	rec2_class_keep(st, t, r);
}

/*
 * Out of line, for rec2_put_compact(): @r, of thread @t in slot @s, a
 * SMALL record but for its arguments, with the SMALL word @w, as a MEDIUM
 * record if one argument alone is not its call @c's: the bytes written
 * (7 to 14), else 0.
 */
size_t rec2_put_medium(struct rec2_state *st, struct rec2_thread *t,
		       struct rec2_call *c, unsigned char *p, unsigned int s,
		       const struct ispot_record *r, uint32_t w);

/*
 * @r, of thread @t in slot @s, as a SMALL record (5 bytes) or a MEDIUM
 * one (7 to 14) if it is one: the bytes written, else 0 and nothing
 * written.  In line, as most of a busy loop's records are SMALL: the
 * writer's whole cost for them is here, format 3's one branch on every
 * field.  A MEDIUM record costs a second test and a call that does not
 * test the rest again.
 */
static inline size_t rec2_put_compact(struct rec2_state *st,
				      struct rec2_thread *t, unsigned char *p,
				      unsigned int s,
				      const struct ispot_record *r)
{
	struct rec2_call *c = rec2_call_of(t, r->probe_id, r->kind);
	uint64_t dts = r->ts_ns - st->ts;
	uint64_t dsp = r->sp - t->sp + REC2_SMALL_SP_BIAS;
	uint64_t head = (dts >> 16) | (dsp >> 8) | (r->probe_id >> 7) |
			(r->ip ^ c->ip) | (r->cpu ^ t->cpu) | (r->nslots ^ 1) |
			(r->kind != ISPOT_REC_ENTRY &&
			 r->kind != ISPOT_REC_EXIT);
	uint64_t args = (r->data[0] ^ c->data[0]) |
			(r->data[1] ^ c->data[1]) | (r->data[2] ^ c->data[2]);
	uint32_t w;

	/* One branch: every field in its bits, the rest repeated. */
	if (head | args) {
		if (head)
			return 0;
		return rec2_put_medium(st, t, c, p, s, r,
				       rec2_small_word(dts, dsp, r));
	}
	w = rec2_small_word(dts, dsp, r);
	p[0] = REC2_OP_SMALL | s;
	memcpy(p + 1, &w, 4);
	rec2_small_kept(st, t, r);
	return REC2_SMALL_LEN;
}

/*
 * Encoding a record is rec2_put_if_compact(), then rec2_put_other() if
 * that gives 0; @p has REC2_MAX_EVENT + REC2_SLACK bytes of room, and
 * each returns the bytes written.  The writer calls them apart: a SMALL
 * record brings no address it has not noted, a MEDIUM one its new
 * argument alone (recording_write.c).
 *
 * @rec as a SMALL or MEDIUM record, if it is one, of a thread the chunk
 * knows: its bytes, else 0 and nothing written.
 */
static inline size_t rec2_put_if_compact(struct rec2_state *st,
					 unsigned char *p,
					 const struct ispot_record *rec)
{
	unsigned int s = rec2_slot_of(rec->tid);
	struct rec2_thread *t = &st->slot[s];

	if (!t->valid || t->tid != rec->tid || t->tgid != rec->tgid)
		return 0;
	return rec2_put_compact(st, t, p, s, rec);
}

/* Whether rec2_put_if_compact()'s @n bytes are a MEDIUM record. */
static inline bool rec2_is_medium_len(size_t n)
{
	return n > REC2_SMALL_LEN;
}

/* Any record that rec2_put_if_compact() did not take, all its slots. */
size_t rec2_put_other(struct rec2_state *st, unsigned char *p,
		      const struct ispot_record *rec);

/* Encode any other input (source.h) at @p: the bytes written. */
size_t rec2_put_input(unsigned char *p, const struct session_input *in);

/*
 * Decode the event at @p (@left bytes of its chunk) into @ev, a record's
 * slots into @slots: the bytes it took, or 0 if malformed, with *@why
 * saying how.  A thread op is taken into @st, and gives an event of type
 * REC2_OP_THREAD for the caller to skip.
 */
size_t rec2_get(struct rec2_state *st, const unsigned char *p, size_t left,
		struct session_input *ev,
		struct ispot_record slots[DRAIN_MAX_SLOTS], const char **why);

/* Records decoded together, back to back: each's slots follow it. */
struct rec2_batch {
	struct ispot_record *slots;
	size_t room;		/* slots at @slots */
	size_t used;		/* slots filled */
	uint32_t nr;		/* records */
	uint64_t last_ts;	/* the latest time among them */
};

/*
 * Decode the records at @p (@left bytes of its chunk) into @b, and the
 * thread ops between them, until @b is full or an event that is neither
 * comes: the bytes taken (that event's not among them).  A malformed
 * record or one the live drain refuses (drain_record_ok()) stops it with
 * *@why saying how, the records before it in @b.  One call a run of
 * records, where rec2_get() is one an event: the replay's (replay.c).
 */
size_t rec2_get_records(struct rec2_state *st, const unsigned char *p,
			size_t left, struct rec2_batch *b, const char **why);

/*
 * A section's check (recording_check.c), in a file of format @major: of
 * @len bytes at @p, that any change confined to one 8-byte word always
 * alters (the other changes, but for 2^-64).  Formats 3 on run four
 * chains side by side.
 */
uint64_t rec2_check(unsigned int major, const void *p, size_t len,
		    uint64_t seed);

/* A section head's own check, over its type, length and body check. */
uint32_t rec2_head_check(uint32_t type, uint64_t len, uint64_t body);

#endif /* ISPOT_RECORDING_CODEC_H */
