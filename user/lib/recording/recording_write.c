// SPDX-License-Identifier: GPL-2.0
/*
 * Writing a recording during a session (recording.h, the format in
 * Documentation/recording.rst).  Every field of the tables is
 * little-endian and of fixed width, strings a u32 length and that many
 * bytes, but format 6's NAMES (varints, recording_names.c).  The file
 * is written through an afile (util/afile.h): a temporary file beside
 * the target, closed on exec (`record -- CMD` never hands it to the
 * target), synced and renamed into place when the session ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/drain.h"
#include "recording/recording.h"
#include "recording/recording_addrs.h"
#include "recording/recording_codec.h"
#include "recording/recording_format.h"
#include "recording/recording_write.h"
#include "util/afile.h"
#include "util/errors.h"

/* Events are written a section at a time, of about this much. */
#define REC_CHUNK		(1u << 20)

/*
 * The addresses a set (names, frames) was asked for last, by a hash, with
 * their bytes as the set holds them: spares the set most look-ups.
 */
#define ADDRS_SEEN	256

struct addr_seen {
	uint64_t addr;
	unsigned char bits;
};

static inline struct addr_seen *addr_seen(struct addr_seen *seen, uint64_t a)
{
	return &seen[(a * 0x9e3779b97f4a7c15ull) >> 56];
}

struct recording {
	struct afile out;
	uint64_t max_size;
	uint64_t written;
	struct rec_buf ev;	/* the chunk, room for one event past it */
	size_t chunk;		/* a chunk is flushed at this many bytes */
	/*
	 * The length an event may take the chunk to without a second look:
	 * short of the flush, and of --max-size.  One compare a record.
	 */
	size_t ev_fast;
	bool taking;		/* the buffer is there, and the file not full */
	struct rec2_state st;	/* the chunk's, reset at each */
	uint64_t records;
	uint64_t chunks_out;	/* chunks of events flushed without error */
	bool full;
	uint64_t last_ts;
	/* Answers given, so that only a new one is an event. */
	struct rec_addrs frames;
	struct addr_seen frames_seen[ADDRS_SEEN];
	/*
	 * Addresses a report may name, named at the end; past REC_MAX_ADDRS
	 * more stay unnamed (hex in reports), as do their frame answers
	 * (taken, in a replay, as never judged).
	 */
	struct rec_addrs names;
	struct addr_seen names_seen[ADDRS_SEEN];
	char *path;		/* for messages (afile_commit() frees out.path) */
	bool failed;
	int error;		/* the first failure's errno */
	bool begun;		/* the tables a replay needs are written */
	const volatile sig_atomic_t *give_up;	/* recording_set_give_up() */
	/* The command line that made it. */
	char *const *argv;
	int argc;
};

/* Where rec_keep() must look again: each write moves it. */
static void rec_set_fast(struct recording *r)
{
	uint64_t used = r->written + REC2_SECTION_HEAD;
	uint64_t room = r->max_size > used ? r->max_size - used : 0;

	r->ev_fast = room < r->chunk - 1 ? room : r->chunk - 1;
}

/* The first failure, @err its errno, is what the error line names. */
static void rec_fail(struct recording *r, int err)
{
	if (!r->failed)
		r->error = err ? err : EIO;
	r->failed = true;
}

/* The line that says the recording failed with @err. */
static void rec_say_failed(const struct recording *r, int err,
			   const char *otherwise)
{
	ispot_error("cannot write %s (%s): %s", r->path, strerror(err),
		    rec_dest_advice(err, otherwise));
}

/*
 * @iov's @n pieces, whole (rec_dest_writev()), unless it failed before.
 * A reader gone (EPIPE) is said at once, not with the report: an attached
 * session goes on until it is stopped, and its user should know now that
 * nothing more is recorded.
 */
static void rec_writev(struct recording *r, struct iovec *iov, int n)
{
	int i, err;

	if (r->failed)
		return;
	for (i = 0; i < n; i++)
		r->written += iov[i].iov_len;
	rec_set_fast(r);
	err = rec_dest_writev(&r->out, iov, n, r->give_up);
	if (!err)
		return;
	rec_fail(r, err);
	if (err == EPIPE)
		rec_say_failed(r, err, NULL);
}

static void rec_write(struct recording *r, const void *p, size_t len)
{
	struct iovec iov = { .iov_base = (void *)p, .iov_len = len };

	rec_writev(r, &iov, 1);
}

/* A section: its head (with its checks, format 2) and @b's bytes. */
static void rec_section(struct recording *r, uint32_t type,
			const struct rec_buf *b)
{
	uint64_t len = b ? b->len : 0;
	void *body = len ? b->p : NULL;
	uint64_t check = rec2_check(RECORDING_MAJOR, body, len, type);
	unsigned char h[REC2_SECTION_HEAD];
	struct rec_buf hb = { h, 0, sizeof(h), false };
	struct iovec iov[2] = { { h, sizeof(h) }, { body, len } };

	buf_u32(&hb, type);
	buf_u32(&hb, rec2_head_check(type, len, check));
	buf_u64(&hb, len);
	buf_u64(&hb, check);
	if (b && b->nomem)
		rec_fail(r, ENOMEM);
	rec_writev(r, iov, len ? 2 : 1);
}

/*
 * A chunk: it decodes on its own, so the next starts from nothing.  It
 * goes out now, whole (rec_writev()): a crash keeps every chunk before it.
 */
static void rec_flush_events(struct recording *r)
{
	if (!r->ev.len)
		return;
	rec_section(r, REC_SEC_EVENTS, &r->ev);
	if (!r->failed)
		r->chunks_out++;
	r->ev.len = 0;
	rec2_reset(&r->st, RECORDING_MAJOR);
}

void recording_sync(struct recording *r)
{
	/* Never an event ahead of the tables a replay needs. */
	if (r->begun)
		rec_flush_events(r);
}

/*
 * The chunk's buffer, once: a chunk is flushed when it reaches r->chunk,
 * so it never holds more than that and one event (and the slack the
 * encoder stores over).  No event is taken without it.
 */
static void rec_ev_alloc(struct recording *r)
{
	size_t cap = r->chunk + REC2_MAX_EVENT + REC2_SLACK;
	unsigned char *p = realloc(r->ev.p, cap);

	r->taking = p && !r->full;
	if (!p) {
		r->ev.nomem = true;
		rec_fail(r, ENOMEM);
		return;
	}
	r->ev.p = p;
	r->ev.cap = cap;
	rec_set_fast(r);
}

void recording_set_chunk(struct recording *r, size_t bytes)
{
	r->chunk = bytes ? bytes : REC_CHUNK;
	rec_ev_alloc(r);
}

void recording_set_give_up(struct recording *r,
			   const volatile sig_atomic_t *flag)
{
	r->give_up = flag;
}

struct recording *recording_create(const char *path, uint64_t max_size,
				   char *const *argv, int argc)
{
	struct recording *r = calloc(1, sizeof(*r));
	struct rec_buf h = { 0 };

	if (!r || !(r->path = strdup(rec_dest_name(path))))
		goto nomem;
	r->max_size = max_size;
	r->chunk = REC_CHUNK;
	r->argv = argv;
	r->argc = argc;
	if (rec_dest_open(&r->out, path))
		goto fail;
	buf_put(&h, RECORDING_MAGIC, 8);
	buf_u16(&h, RECORDING_MAJOR);
	buf_u16(&h, RECORDING_MINOR);
	buf_u32(&h, 0);
	if (h.nomem)
		rec_fail(r, ENOMEM);
	rec_write(r, h.p, h.len);
	free(h.p);
	rec2_reset(&r->st, RECORDING_MAJOR);
	rec_ev_alloc(r);
	return r;
nomem:
	ispot_error("out of memory starting the recording");
fail:
	recording_free(r);
	return NULL;
}

/* Room in the chunk for any one event: NULL if none is taken. */
static inline unsigned char *rec_room(struct recording *r)
{
	return r->taking ? r->ev.p + r->ev.len : NULL;
}

/* rec_keep() past ev_fast: the chunk is flushed, or the file full. */
static bool rec_keep_past(struct recording *r, size_t len)
{
	if (r->written + REC2_SECTION_HEAD + r->ev.len + len > r->max_size) {
		r->full = true;
		r->taking = false;
		return false;
	}
	r->ev.len += len;
	if (r->ev.len >= r->chunk)
		rec_flush_events(r);
	return true;
}

/*
 * Keep the @len bytes just encoded at rec_room(), if the file stays under
 * max_size with them: else it is full, and keeps nothing more.
 */
static inline bool rec_keep(struct recording *r, size_t len)
{
	if (r->ev.len + len > r->ev_fast)
		return rec_keep_past(r, len);
	r->ev.len += len;
	return true;
}

/* names_or() past its look-aside: @a is new to it, or its bits are. */
static __attribute__((noinline)) void
names_add(struct recording *r, struct addr_seen *s, uint64_t a,
	  unsigned char bits)
{
	unsigned char *v = rec_addrs_add(&r->names, a);

	if (!v)
		return;		/* the set is full: not kept, not cached */
	*v |= bits;
	s->addr = a;
	s->bits = *v;
}

/*
 * The addresses a report may name: call sites, arguments, frames, words.
 * In line: nearly every one was noted just before, and found beside the
 * set for less than a call costs.
 */
static inline void names_or(struct recording *r, uint64_t a,
			    unsigned char bits)
{
	struct addr_seen *s = addr_seen(r->names_seen, a);

	/* 0 is no address a mapping holds (an argument of 0, mostly). */
	if (!a || (s->addr == a && (s->bits & bits) == bits))
		return;
	names_add(r, s, a, bits);
}

/*
 * Note the addresses a report may name that @rec brings.  Not called for
 * a SMALL or MEDIUM record: its call site and arguments are those of its
 * probe's last entry or exit in the thread (rec2_call_of()), noted then,
 * but for a MEDIUM entry's one new argument (rec_medium_arg()).
 */
static void rec_note_addresses(struct recording *r,
			       const struct ispot_record *rec)
{
	const uint64_t *frames = (const uint64_t *)(rec + 1);
	uint64_t i, n;

	switch (rec->kind) {
	case ISPOT_REC_ENTRY:
		for (i = 0; i < 3; i++)
			names_or(r, rec->data[i], NAME_AS_IS);
		/* fall through */
	case ISPOT_REC_EXIT:
		names_or(r, rec->ip, NAME_AS_IS | NAME_RETURN);
		break;
	case ISPOT_REC_STACK:
		n = rec->data[0];
		if (n > (uint64_t)(rec->nslots - 1) * 8)
			n = (uint64_t)(rec->nslots - 1) * 8;
		for (i = 0; i < n; i++)
			names_or(r, frames[i], NAME_RETURN);
		break;
	case ISPOT_REC_FUTEX_ENTER:
		names_or(r, rec->data[0], NAME_AS_IS);
		names_or(r, rec->ip, NAME_AS_IS | NAME_RETURN);
		break;
	}
}

/*
 * Of @rec, written as the @n bytes at @at, the argument to note: a
 * MEDIUM entry's one new argument (its other addresses are those of its
 * probe's last call, noted then), else -1.  Read from its bytes before a
 * flush empties the chunk they are in.
 */
static inline int rec_medium_arg(const struct ispot_record *rec,
				 const unsigned char *at, size_t n)
{
	if (!rec2_is_medium_len(n) || rec->kind != ISPOT_REC_ENTRY)
		return -1;
	return at[1] >> 6;
}

/*
 * A record that is neither SMALL nor MEDIUM, or one that reaches the
 * chunk's flush or --max-size: @n bytes of it already written SMALL or
 * MEDIUM, or none.
 */
static __attribute__((noinline)) void
rec_record_other(struct recording *r, const struct ispot_record *rec,
		 size_t n)
{
	unsigned char *at = r->ev.p + r->ev.len;
	int arg = rec_medium_arg(rec, at, n);
	bool compact = n;

	/* Never from the drain (drain_record_ok()); and past the room. */
	if (!r->taking || !rec->nslots || rec->nslots > DRAIN_MAX_SLOTS)
		return;
	if (!compact)
		n = rec2_put_other(&r->st, at, rec);
	if (!rec_keep(r, n))
		return;
	r->records++;
	r->last_ts = rec->ts_ns;
	if (arg >= 0)
		names_or(r, rec->data[arg], NAME_AS_IS);
	else if (!compact)
		rec_note_addresses(r, rec);
}

/*
 * Most records are SMALL or MEDIUM and kept here, in line: a SMALL one
 * with no call on its way, a MEDIUM one with rec2_put_medium()'s.  The
 * rest, and a record that reaches the chunk's end, go out of line.
 */
static inline void rec_record(struct recording *r,
			      const struct ispot_record *rec)
{
	unsigned char *at = r->ev.p + r->ev.len;
	size_t n;
	int arg;

	if (!r->taking)
		return;
	n = rec2_put_if_compact(&r->st, at, rec);
	if (!n || r->ev.len + n > r->ev_fast)
		return rec_record_other(r, rec, n);
	arg = rec_medium_arg(rec, at, n);
	r->ev.len += n;
	r->records++;
	r->last_ts = rec->ts_ns;
	if (arg >= 0)
		names_or(r, rec->data[arg], NAME_AS_IS);
}

/* An input other than a record, as rec_payload() lays it out. */
static void rec_payload_event(struct recording *r,
			      const struct session_input *in)
{
	unsigned char *p = rec_room(r);

	if (p)
		rec_keep(r, rec2_put_input(p, in));
}

/* Any input but a record: out of line, as rec_record() (its comment). */
static __attribute__((noinline)) void
rec_input_other(struct recording *r, const struct session_input *in)
{
	/* A frame's answer is recording_frame()'s, which keeps it once. */
	if (in->type != INPUT_FRAME && rec_payload(in->type).a)
		rec_payload_event(r, in);
}

void recording_input(struct recording *r, const struct session_input *in)
{
	if (in->type != INPUT_RECORD)
		return rec_input_other(r, in);
	rec_record(r, in->rec);
}

/*
 * Only a new address, or a new answer for one, is an event.  A call stack
 * asks again for the frames the last ones asked for: most answers are
 * found in frames_seen, without the set's hash.
 */
void recording_frame(struct recording *r, uint64_t addr, bool ok)
{
	unsigned char want = FRAME_KNOWN | (ok ? FRAME_OK : 0);
	struct addr_seen *s = addr_seen(r->frames_seen, addr);
	const struct session_input in = {
		.type = INPUT_FRAME, .a = addr, .b = ok,
	};
	unsigned char *v;

	if (s->addr == addr && s->bits == want)
		return;
	v = rec_addrs_add(&r->frames, addr);
	if (!v)
		return;		/* the set is full: not kept, not cached */
	if (*v != want && !r->full) {
		*v = want;
		rec_payload_event(r, &in);
	}
	s->addr = addr;
	s->bits = *v;
}

bool recording_full(const struct recording *r, uint64_t *size,
		    uint64_t *last_ts)
{
	*size = r->max_size;
	*last_ts = r->last_ts;
	return r->full;
}

/* The tables of @types, in that order, each a section. */
static void rec_tables(struct recording *r, const struct session_summary *s,
		       const struct session_tables *tb,
		       const uint32_t *types, size_t n)
{
	struct recording_file img;
	const struct rec_tables w = { s, tb, &r->names, r->argv, r->argc,
				      &img };
	struct rec_buf b = { 0 };
	size_t i;

	rec_image(&w, r->full, r->max_size, r->last_ts, r->records);
	for (i = 0; i < n; i++) {
		/* Optional: a file without it marks no pick. */
		if (types[i] == REC_SEC_UNLOADED &&
		    !rec_unloaded_picks(tb->picked))
			continue;
		b.len = 0;
		rec_put_table(&b, types[i], &w);
		rec_section(r, types[i], &b);
	}
	free(b.p);
}

/*
 * What a replay needs before any event, known once the probes are armed:
 * a file cut short after them reports its whole chunks.
 */
static const uint32_t early[] = {
	REC_SEC_META, REC_SEC_FUNCS, REC_SEC_PROBES, REC_SEC_START,
	REC_SEC_PROFILE, REC_SEC_UNLOADED,
};

/* What is known only at the end. */
static const uint32_t late[] = {
	REC_SEC_NAMES, REC_SEC_MAPS, REC_SEC_THREADS, REC_SEC_STATS,
};

int recording_begin(struct recording *r, const struct session_summary *s,
		    const struct session_tables *tb)
{
	if (r->begun)
		return 0;
	r->begun = true;
	/* On the disk's way now (rec_writev()): a crash keeps it. */
	rec_tables(r, s, tb, early, sizeof(early) / sizeof(early[0]));
	/*
	 * A reader (of `-o -`, a FIFO) already gone costs the recording, as
	 * one that goes later does, not the session (said once, at once).
	 */
	if (r->failed && r->error != EPIPE) {
		rec_say_failed(r, r->error, "check the disk");
		return -1;
	}
	return 0;
}

/*
 * The disk filled (or the file reached a size limit) after whole chunks
 * of events went out: the file is a recording cut short, which report
 * reads (its tables came first), so it is kept under its temporary name
 * rather than the whole trace lost.  Whether it was.
 */
static bool rec_keep_cut(struct recording *r)
{
	char *kept;

	if ((r->error != ENOSPC && r->error != EDQUOT && r->error != EFBIG) ||
	    !r->chunks_out || !r->out.tmp)
		return false;
	kept = afile_keep(&r->out);
	ispot_error("cannot write %s in full (%s): the %llu chunk%s of events "
		    "written before %s kept in %s, which `ispotctl report` "
		    "reads as a recording cut short; free space or lower "
		    "--max-size", r->path, strerror(r->error),
		    (unsigned long long)r->chunks_out,
		    r->chunks_out == 1 ? "" : "s",
		    r->chunks_out == 1 ? "is" : "are", kept);
	free(kept);
	return true;
}

int recording_finish(struct recording *r, const struct session_summary *s,
		     const struct session_tables *tb)
{
	/* Standard output, a FIFO, a device: what it took stays there. */
	bool in_place = !r->out.tmp;
	int ret;

	if (!r->begun) {
		r->begun = true;
		rec_tables(r, s, tb, early, sizeof(early) / sizeof(early[0]));
	}
	rec_flush_events(r);
	rec_tables(r, s, tb, late, sizeof(late) / sizeof(late[0]));
	rec_section(r, REC_SEC_END, NULL);
	/* A failure in the last tables keeps the cut as a chunk's does. */
	if (r->failed && rec_keep_cut(r))
		return -1;
	if (r->failed) {
		afile_abort(&r->out);
		ret = -r->error;
	} else {
		ret = afile_commit(&r->out);
	}
	/* A reader gone was said when it went (rec_writev()). */
	if (ret && !(r->failed && r->error == EPIPE))
		rec_say_failed(r, -ret, in_place ?
			       "check the disk; what it took reads as a "
			       "recording cut short" :
			       "check the disk; no recording was left");
	return ret ? -1 : 0;
}

void recording_free(struct recording *r)
{
	if (!r)
		return;
	/* Not finished (or failed): nothing is left, not even the temp. */
	if (r->out.f)
		afile_abort(&r->out);
	free(r->path);
	free(r->ev.p);
	rec_addrs_free(&r->frames);
	rec_addrs_free(&r->names);
	free(r);
}
