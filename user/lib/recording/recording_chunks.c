// SPDX-License-Identifier: GPL-2.0
/*
 * Format 2's sections and events, read (recording_read.h; the layout in
 * Documentation/recording.rst).  Each section's head carries a check of
 * itself and one of its bytes.  A chunk of events whose bytes fail their
 * check is left out, and the report says which; a head that fails its
 * own is passed over to the next head that passes, the bytes between
 * counted as one damaged chunk.  A table the events need that fails
 * refuses the file: no report can be made without it.  Damage after
 * whole chunks, in a late table or its head, reads as a cut there
 * (rec2_cut()); a damaged MAPS, THREADS or UNLOADED is left out, its
 * head's damage too where UNLOADED's is told (rec2_damaged_unloaded()).
 * A chunk that passes is still read as hostile, every field against its
 * bounds (recording_codec.c).  A 2.1 file cut short after its first
 * tables is reported from its whole chunks (rec2_cut()).
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recording/recording_read.h"
#include "util/errors.h"

/* A section head at @p, if it passes its own check. */
struct rec2_head {
	uint32_t type;
	uint64_t len, check;
};

static bool rec2_head_at(const unsigned char *p, struct rec2_head *h)
{
	uint32_t type, hc;
	uint64_t len, check;

	memcpy(&type, p, 4);
	memcpy(&hc, p + 4, 4);
	memcpy(&len, p + 8, 8);
	memcpy(&check, p + 16, 8);
	h->type = le32toh(type);
	h->len = le64toh(len);
	h->check = le64toh(check);
	return le32toh(hc) == rec2_head_check(h->type, h->len, h->check);
}

/* The next offset after @off holding a sound head, or the file's size. */
static uint64_t rec2_resync(const struct recording_file *rf, uint64_t off)
{
	struct rec2_head h;

	for (off++; off + REC2_SECTION_HEAD <= rf->size; off++)
		if (rec2_head_at(rf->map + off, &h) &&
		    h.len <= rf->size - off - REC2_SECTION_HEAD)
			return off;
	return rf->size;
}

/*
 * Whether a damaged section of @type, after the events read so far, ends
 * what a report can take: a table written at the end (or the end
 * section itself) after whole chunks of events, so that the file reads
 * as if cut there, as a file cut before it would.
 */
static bool rec2_damage_is_a_cut(const struct recording_file *rf,
				 uint32_t type)
{
	return rf->nr_events && (type == REC_SEC_NAMES ||
				 type == REC_SEC_MAPS ||
				 type == REC_SEC_THREADS ||
				 type == REC_SEC_STATS ||
				 type == REC_SEC_END);
}

/*
 * Whether bytes whose head is damaged, up to @next (rec2_resync()), end
 * what a report can take: after whole chunks of events, followed by the
 * end of the file or by a section written after the events, so that
 * they were one of those (or the last chunk's tail): read as a cut at
 * their start, as for a damaged table of those.
 */
static bool rec2_damaged_head_is_a_cut(const struct recording_file *rf,
				       uint64_t next)
{
	struct rec2_head h;

	if (next == rf->size)
		return rf->nr_events;
	return rec2_head_at(rf->map + next, &h) &&
	       rec2_damage_is_a_cut(rf, h.type);
}

/* A damaged chunk, counted; the first is named in recording_open(). */
static void rec2_lost(struct recording_file *rf, size_t chunk,
		      uint64_t from, uint64_t to)
{
	rf->loss_pending = true;
	if (!rf->lost++) {
		rf->lost_chunk = chunk;
		rf->lost_from = from;
		rf->lost_to = to;
	}
}

static const char *const table_name[] = {
	[REC_SEC_META] = "its session section is damaged",
	[REC_SEC_FUNCS] = "its function table is damaged",
	[REC_SEC_PROBES] = "its probe table is damaged",
	[REC_SEC_NAMES] = "its address names are damaged",
	[REC_SEC_MAPS] = "its maps are damaged",
	[REC_SEC_STATS] = "its statistics are damaged",
	[REC_SEC_END] = "its end section is damaged",
	[REC_SEC_START] = "its start section is damaged",
	[REC_SEC_PROFILE] = "its --auto profile is damaged",
	[REC_SEC_THREADS] = "its thread names are damaged",
	[REC_SEC_UNLOADED] = "its list of unloaded picks is damaged",
};

/* A damaged table no report needs (rec2_section()): said, and left out. */
static void rec2_left_out(struct recording_file *rf, uint32_t type,
			  unsigned int *seen)
{
	rf->left_out = table_name[type];
	*seen |= 1u << type;
}

/*
 * Whether the bytes from @off to @next, whose head is damaged, were the
 * UNLOADED table: the one table before the events that a file may lack
 * (it is written only where a pick's library was unloaded), so the one
 * that a damaged head right after PROFILE may be, besides the first
 * chunk.  Told where the damage is confined to one of the head's fields:
 * its type and length as the bytes between say, or its body's check as
 * written.  Its damage then costs its marks alone, as a damaged body's
 * does, and the chunks after it keep their numbers.
 */
static bool rec2_damaged_unloaded(const struct recording_file *rf,
				  uint64_t off, uint64_t next,
				  unsigned int seen, size_t chunk)
{
	const unsigned char *body = rf->map + off + REC2_SECTION_HEAD;
	struct rec2_head h;
	uint64_t len;

	if (chunk || rf->nr_events || !rec_format_has_profile(rf) ||
	    !(seen & (1u << REC_SEC_PROFILE)) ||
	    (seen & (1u << REC_SEC_UNLOADED)) ||
	    next - off < REC2_SECTION_HEAD)
		return false;
	len = next - off - REC2_SECTION_HEAD;
	/* Its fields as written, though their own check failed. */
	rec2_head_at(rf->map + off, &h);
	return (h.type == REC_SEC_UNLOADED && h.len == len) ||
	       rec2_check(rf->meta.major, body, len, REC_SEC_UNLOADED) ==
	       h.check;
}

/*
 * One section that passed its head's check: 0, 1 if its damage ends the
 * file as a cut would (rec2_damage_is_a_cut()), or -1 after one line.
 */
static int rec2_section(struct recording_file *rf, const struct rec2_head *h,
			const unsigned char *body, size_t *chunk,
			unsigned int *seen, bool *end)
{
	bool sound = rec2_check(rf->meta.major, body, h->len, h->type) ==
		     h->check;

	if (h->type == REC_SEC_EVENTS) {
		++*chunk;
		if (sound)
			return rec_add_events(rf, body, h->len);
		rec2_lost(rf, *chunk, body - rf->map - REC2_SECTION_HEAD,
			  body - rf->map + h->len);
		return 0;
	}
	/* Unknown types are a later minor version's: skipped. */
	if (h->type < REC_SEC_META || h->type > REC_SEC_LAST)
		return 0;
	/*
	 * A table no report reads (the maps, kept for people), that only
	 * names Perfetto tracks (the threads') or only marks picks (the
	 * unloaded ones'): its damage costs it alone, not the rest.
	 */
	if (!sound && (h->type == REC_SEC_MAPS ||
		       h->type == REC_SEC_THREADS ||
		       h->type == REC_SEC_UNLOADED)) {
		rec2_left_out(rf, h->type, seen);
		return 0;
	}
	if (!sound && rec2_damage_is_a_cut(rf, h->type)) {
		rf->tail_damage = table_name[h->type];
		return 1;
	}
	if (!sound)
		return rec_bad(rf, table_name[h->type]);
	if (h->type == REC_SEC_END) {
		*end = !h->len;
		return 0;
	}
	return rec_table(rf, h->type, body, h->len, seen);
}

int64_t rec2_sections(struct recording_file *rf, unsigned int *seen,
		      bool *end)
{
	uint64_t off = RECORDING_HEADER_SIZE, next;
	size_t chunk = 0;
	struct rec2_head h;
	int ret;

	while (off < rf->size && !*end) {
		if (rf->size - off < REC2_SECTION_HEAD)
			break;		/* cut short */
		if (!rec2_head_at(rf->map + off, &h)) {
			next = rec2_resync(rf, off);
			if (rec2_damaged_head_is_a_cut(rf, next)) {
				rf->tail_damage = "a section head is damaged";
				break;
			}
			if (rec2_damaged_unloaded(rf, off, next, *seen,
						  chunk)) {
				rec2_left_out(rf, REC_SEC_UNLOADED, seen);
				off = next;
				continue;
			}
			rec2_lost(rf, ++chunk, off, next);
			/* Damaged to the end: not a cut a report takes. */
			rf->lost_tail = next == rf->size;
			off = next;
			continue;
		}
		if (h.len > rf->size - off - REC2_SECTION_HEAD)
			break;		/* cut short */
		ret = rec2_section(rf, &h, rf->map + off + REC2_SECTION_HEAD,
				   &chunk, seen, end);
		if (ret < 0)
			return -1;
		if (ret)
			break;		/* damaged from here: a cut */
		off += REC2_SECTION_HEAD + h.len;
	}
	return (int64_t)off;
}

#define SEC(type)	(1u << REC_SEC_##type)

int rec2_cut(struct recording_file *rf, uint64_t off, unsigned int seen)
{
	unsigned int need = SEC(META) | SEC(FUNCS) | SEC(PROBES) |
			    SEC(START);
	char what[128];

	if (rec_format_has_profile(rf))
		need |= SEC(PROFILE);

	if (rf->meta.major == 1 || (rf->lost && rf->lost_tail))
		return rec_bad(rf, rf->lost ? "a section head is damaged" :
			       "it is cut short (no end section)");
	if ((seen & need) != need) {
		/* Not cut but damaged (a 2.0 file's late tables): say so. */
		if (rf->tail_damage)
			return rec_bad(rf, rf->tail_damage);
		snprintf(what, sizeof(what), "it is cut short at byte %zu, "
			 "before the tables a report needs", rf->size);
		return rec_bad(rf, what);
	}
	if (!rf->nr_events) {
		snprintf(what, sizeof(what), "it is cut short at byte %zu, "
			 "and holds no whole chunk of events", rf->size);
		return rec_bad(rf, what);
	}
	/* Unnamed addresses, as a symbolizer that knows none names them. */
	if (!(seen & SEC(NAMES)) && !(rf->names = elf_symbolizer_frozen()))
		return rec_bad(rf, "out of memory");
	if (!(seen & SEC(STATS)))
		rf->sum.t_enable = rf->start_ns;
	rf->cut = true;
	rf->cut_at = off;
	rf->cut_missing = (SEC(NAMES) | SEC(STATS)) & ~seen;
	return 0;
}

void rec2_note_cut(const struct recording_file *rf)
{
	static const char *const missing[] = {
		"only its end section",
		"its address names (addresses are unnamed)",
		"the session's statistics (drops; the duration runs to the "
		"last event kept)",
		"its address names and the session's statistics (addresses "
		"are unnamed, drops unknown, the duration runs to the last "
		"event kept)",
	};

	unsigned int i = (rf->cut_missing & SEC(NAMES) ? 1 : 0) |
			 (rf->cut_missing & SEC(STATS) ? 2 : 0);

	if (!rf->cut)
		return;
	if (rf->tail_damage)
		ispot_error("%s: %s at byte %llu, after its events: the report "
			    "holds the events of its %zu whole chunk%s; "
			    "missing: %s", rf->path, rf->tail_damage,
			    (unsigned long long)rf->cut_at, rf->nr_events,
			    rf->nr_events == 1 ? "" : "s", missing[i]);
	else
		ispot_error("%s: the recording is cut short at byte %zu: the "
			    "report holds the events of its %zu whole chunk%s "
			    "(to byte %llu); missing: %s", rf->path, rf->size,
			    rf->nr_events, rf->nr_events == 1 ? "" : "s",
			    (unsigned long long)rf->cut_at, missing[i]);
}

/* A chunk's first event is next: its state from nothing. */
static void rec2_chunk_begins(const struct recording_file *rf,
			      struct recording_cursor *cur)
{
	rec2_reset(cur->st, rf->meta.major);
	if (rf->events[cur->section].after_loss)
		cur->loss_pending = true;
}

int rec2_next(const struct recording_file *rf, struct recording_cursor *cur,
	      struct session_input *ev)
{
	const struct ispot_record *r = cur->slots;
	const char *why;
	size_t n;

	for (;;) {
		if (!rec_events_left(rf, cur))
			return 0;
		if (!cur->st && !(cur->st = malloc(sizeof(*cur->st))))
			return rec_bad(rf, "out of memory");
		/* Each chunk decodes from nothing. */
		if (!cur->off)
			rec2_chunk_begins(rf, cur);
		n = rec2_get(cur->st, rf->events[cur->section].p + cur->off,
			     rf->events[cur->section].len - cur->off, ev,
			     cur->slots, &why);
		if (!n)
			return rec_bad(rf, why);
		cur->off += n;
		if (ev->type != REC2_OP_THREAD)
			break;
	}
	/* What the live drain would have refused (drain.h). */
	if (ev->type == INPUT_RECORD && !drain_record_ok(r->nslots, r->ts_ns))
		return rec_bad(rf, "a record is malformed");
	if (ev->type == INPUT_FRAME && rec_take_frame(rf, cur, ev))
		return -1;
	return 1;
}

/* A batch's slots: its records' bytes stay in the first level cache. */
#define REC2_BATCH_SLOTS	256
/* An empty batch takes any record: a run never stops at its first. */
_Static_assert(REC2_BATCH_SLOTS >= DRAIN_MAX_SLOTS, "a batch holds a record");

static int rec2_next_records(const struct recording_file *rf,
			     struct recording_cursor *cur,
			     struct session_input *ev)
{
	struct rec2_batch b = { cur->batch, REC2_BATCH_SLOTS, 0, 0, 0 };
	const char *why;

	if (!rec_events_left(rf, cur))
		return 0;
	if (!cur->st && !(cur->st = malloc(sizeof(*cur->st))))
		return rec_bad(rf, "out of memory");
	if (!b.slots &&
	    !(b.slots = cur->batch = malloc(REC2_BATCH_SLOTS *
					     sizeof(*b.slots))))
		return rec_bad(rf, "out of memory");
	/* Each chunk decodes from nothing. */
	if (!cur->off)
		rec2_chunk_begins(rf, cur);
	cur->off += rec2_get_records(cur->st,
				     rf->events[cur->section].p + cur->off,
				     rf->events[cur->section].len - cur->off,
				     &b, &why);
	if (why)
		return rec_bad(rf, why);
	if (!b.nr)
		return rec2_next(rf, cur, ev);	/* another event, or none */
	memset(ev, 0, sizeof(*ev));
	ev->type = INPUT_RECORDS;
	ev->rec = b.slots;
	ev->nr = b.nr;
	ev->a = b.last_ts;
	return 1;
}

int recording_next_records(const struct recording_file *rf,
			   struct recording_cursor *cur,
			   struct session_input *ev)
{
	return rf->meta.major == 1 ? recording_next(rf, cur, ev) :
				     rec2_next_records(rf, cur, ev);
}
