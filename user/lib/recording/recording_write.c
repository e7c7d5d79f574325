// SPDX-License-Identifier: GPL-2.0
/*
 * Writing a recording during a session (recording.h, the format in
 * Documentation/recording.rst).  Every field is little-endian and of
 * fixed width; strings are a u32 length and that many bytes.  The file
 * is written through an afile (util/afile.h): a temporary file beside
 * the target, closed on exec (`record -- CMD` never hands it to the
 * target), synced and renamed into place when the session ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <ispot_version.h>

#include "analysis/drain.h"
#include "recording/recording.h"
#include "recording/recording_addrs.h"
#include "recording/recording_codec.h"
#include "recording/recording_format.h"
#include "util/afile.h"
#include "util/array.h"
#include "util/errors.h"

/* Events are written a section at a time, of about this much. */
#define REC_CHUNK		(1u << 20)

/* A growable byte buffer, written little-endian. */
struct rec_buf {
	unsigned char *p;
	size_t len, cap;
	bool nomem;
};

static void buf_put(struct rec_buf *b, const void *data, size_t len)
{
	if (b->nomem)
		return;
	if (ARRAY_RESERVE(b->p, b->cap, b->len + len)) {
		b->nomem = true;
		return;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void buf_uint(struct rec_buf *b, uint64_t v, unsigned int bytes)
{
	unsigned char le[8];
	unsigned int i;

	if (!bytes)
		return;
	for (i = 0; i < bytes; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	buf_put(b, le, bytes);
}

#define buf_u8(b, v)	buf_uint(b, v, 1)
#define buf_u16(b, v)	buf_uint(b, v, 2)
#define buf_u32(b, v)	buf_uint(b, v, 4)
#define buf_u64(b, v)	buf_uint(b, v, 8)

static void buf_str(struct rec_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	buf_u32(b, n);
	buf_put(b, s, n);
}

/* How an address is named at the end: as itself, or as a return address. */
#define NAME_AS_IS	1
#define NAME_RETURN	2

/* The addresses noted last, by a hash: spares the set most look-ups. */
#define NAMES_SEEN	256

struct names_seen {
	uint64_t addr;
	unsigned char bits;
};

/*
 * What an entry or exit of each thread slot noted last: most repeat it (a
 * loop's call site, its arguments).  0 is never noted: no mapping has it.
 */
struct names_last {
	uint64_t ip, data[3];
};

struct recording {
	struct afile out;
	uint64_t max_size;
	uint64_t written;
	struct rec_buf ev;
	struct rec2_state st;	/* the chunk's, reset at each */
	uint64_t records;
	bool full;
	uint64_t last_ts;
	/* Answers given, so that only a new one is an event. */
	struct rec_addrs frames;
	/*
	 * Addresses a report may name, named at the end; past REC_MAX_ADDRS
	 * more stay unnamed (hex in reports), as do their frame answers
	 * (taken, in a replay, as never judged).
	 */
	struct rec_addrs names;
	struct names_seen seen[NAMES_SEEN];
	struct names_last last[REC2_SLOTS];
	char *path;		/* for messages (afile_commit() frees out.path) */
	bool failed;
	/* The command line that made it. */
	char *const *argv;
	int argc;
};

static void rec_write(struct recording *r, const void *p, size_t len)
{
	if (r->failed)
		return;
	if (fwrite(p, 1, len, r->out.f) != len)
		r->failed = true;
	r->written += len;
}

/* A section: its head (with its checks, format 2) and @b's bytes. */
static void rec_section(struct recording *r, uint32_t type,
			const struct rec_buf *b)
{
	uint64_t len = b ? b->len : 0;
	uint64_t check = rec2_check(len ? b->p : NULL, len, type);
	unsigned char h[REC2_SECTION_HEAD];
	struct rec_buf hb = { h, 0, sizeof(h), false };

	buf_u32(&hb, type);
	buf_u32(&hb, rec2_head_check(type, len, check));
	buf_u64(&hb, len);
	buf_u64(&hb, check);
	if (b && b->nomem)
		r->failed = true;
	rec_write(r, h, sizeof(h));
	if (len)
		rec_write(r, b->p, len);
}

/* A chunk: it decodes on its own, so the next starts from nothing. */
static void rec_flush_events(struct recording *r)
{
	if (!r->ev.len)
		return;
	rec_section(r, REC_SEC_EVENTS, &r->ev);
	r->ev.len = 0;
	rec2_reset(&r->st);
}

struct recording *recording_create(const char *path, uint64_t max_size,
				   char *const *argv, int argc)
{
	struct recording *r = calloc(1, sizeof(*r));
	struct rec_buf h = { 0 };
	struct stat st;
	int ret;

	if (!r)
		goto nomem;
	/* Renamed onto at the end: refuse now what would refuse it then. */
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		ispot_error("cannot write %s (a directory): give -o a file "
			    "name", path);
		goto fail;
	}
	r->max_size = max_size;
	r->argv = argv;
	r->argc = argc;
	r->path = strdup(path);
	ret = r->path ? afile_open(&r->out, path) : -ENOMEM;
	if (ret == -ENOMEM)
		goto nomem;
	if (ret) {
		ispot_error("cannot write %s (%s): choose a writable -o path",
			    path, strerror(-ret));
		goto fail;
	}
	buf_put(&h, RECORDING_MAGIC, 8);
	buf_u16(&h, RECORDING_MAJOR);
	buf_u16(&h, RECORDING_MINOR);
	buf_u32(&h, 0);
	if (h.nomem)
		r->failed = true;
	rec_write(r, h.p, h.len);
	free(h.p);
	return r;
nomem:
	ispot_error("out of memory starting the recording");
fail:
	recording_free(r);
	return NULL;
}

/* Room in the chunk for any one event: NULL (and failed) if none. */
static unsigned char *rec_room(struct recording *r)
{
	if (r->full || r->ev.nomem)
		return NULL;
	if (ARRAY_RESERVE(r->ev.p, r->ev.cap,
			  r->ev.len + REC2_MAX_EVENT + REC2_SLACK)) {
		r->ev.nomem = r->failed = true;
		return NULL;
	}
	return r->ev.p + r->ev.len;
}

/*
 * Keep the @len bytes just encoded at rec_room(), if the file stays under
 * max_size with them: else it is full, and keeps nothing more.
 */
static bool rec_keep(struct recording *r, size_t len)
{
	if (r->written + REC2_SECTION_HEAD + r->ev.len + len > r->max_size) {
		r->full = true;
		return false;
	}
	r->ev.len += len;
	if (r->ev.len >= REC_CHUNK)
		rec_flush_events(r);
	return true;
}

/* The addresses a report may name: call sites, arguments, frames, words. */
static void names_or(struct recording *r, uint64_t a, unsigned char bits)
{
	struct names_seen *s = &r->seen[(a * 0x9e3779b97f4a7c15ull) >> 56];
	unsigned char *v;

	if (s->addr == a && (s->bits & bits) == bits)
		return;
	v = rec_addrs_add(&r->names, a);
	if (!v)
		return;		/* the set is full: not kept, not cached */
	*v |= bits;
	s->addr = a;
	s->bits = *v;
}

static void rec_note_addresses(struct recording *r,
			       const struct ispot_record *rec)
{
	const uint64_t *frames = (const uint64_t *)(rec + 1);
	uint64_t i, n;

	struct names_last *l = &r->last[rec2_slot_of(rec->tid)];

	switch (rec->kind) {
	case ISPOT_REC_ENTRY:
		for (i = 0; i < 3; i++)
			if (rec->data[i] != l->data[i]) {
				names_or(r, rec->data[i], NAME_AS_IS);
				l->data[i] = rec->data[i];
			}
		/* fall through */
	case ISPOT_REC_EXIT:
		if (rec->ip != l->ip) {
			names_or(r, rec->ip, NAME_AS_IS | NAME_RETURN);
			l->ip = rec->ip;
		}
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

static void rec_record(struct recording *r, const struct ispot_record *rec)
{
	unsigned char *p;

	/* Never from the drain (drain_record_ok()); and past the room. */
	if (!rec->nslots || rec->nslots > DRAIN_MAX_SLOTS)
		return;
	p = rec_room(r);
	if (!p || !rec_keep(r, rec2_put_record(&r->st, p, rec)))
		return;
	r->records++;
	r->last_ts = rec->ts_ns;
	rec_note_addresses(r, rec);
}

/* An input other than a record, as rec_payload() lays it out. */
static void rec_payload_event(struct recording *r,
			      const struct session_input *in)
{
	unsigned char *p = rec_room(r);

	if (p)
		rec_keep(r, rec2_put_input(p, in));
}

void recording_input(struct recording *r, const struct session_input *in)
{
	if (in->type == INPUT_RECORD)
		rec_record(r, in->rec);
	/* A frame's answer is recording_frame()'s, which keeps it once. */
	else if (in->type != INPUT_FRAME && rec_payload(in->type).a)
		rec_payload_event(r, in);
}

/* Only a new address, or a new answer for one, is an event. */
void recording_frame(struct recording *r, uint64_t addr, bool ok)
{
	unsigned char want = FRAME_KNOWN | (ok ? FRAME_OK : 0);
	unsigned char *v = rec_addrs_add(&r->frames, addr);
	const struct session_input in = {
		.type = INPUT_FRAME, .a = addr, .b = ok,
	};

	if (!v || *v == want || r->full)
		return;
	*v = want;
	rec_payload_event(r, &in);
}

bool recording_full(const struct recording *r, uint64_t *size,
		    uint64_t *last_ts)
{
	*size = r->max_size;
	*last_ts = r->last_ts;
	return r->full;
}

/*
 * What the tables are written from: the session's summary and tables,
 * and @img, the struct recording_file the reader will make of them.
 */
struct rec_tables {
	struct recording *r;
	const struct session_summary *s;
	const struct session_tables *tb;
	const struct recording_file *img;
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* @img's META and STATS fields, as the reader will read them back. */
static void rec_image(struct recording_file *img, const struct recording *r,
		      const struct session_summary *s)
{
	struct recording_meta *m = &img->meta;
	struct utsname u;
	uint64_t since;

	memset(img, 0, sizeof(*img));
	img->sum = *s;
	img->sum.rec_full = r->full;
	img->sum.rec_full_size = r->max_size;
	img->sum.rec_full_ts = r->last_ts;
	m->ctl_abi_major = ISPOT_ABI_MAJOR;
	m->ctl_abi_minor = ISPOT_ABI_MINOR;
	snprintf(m->version, sizeof(m->version), "%s", ISPOT_VERSION);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
	m->clock_id = CLOCK_MONOTONIC;
	/*
	 * When the session began on the wall clock, and on CLOCK_BOOTTIME,
	 * which Perfetto traces are timed by (monotonic: t_enable).
	 */
	since = clock_ns(CLOCK_MONOTONIC) - s->t_enable;
	m->start_realtime_ns = clock_ns(CLOCK_REALTIME) - since;
	m->start_boottime_ns = clock_ns(CLOCK_BOOTTIME) - since;
	m->max_size = r->max_size;
	m->records = r->records;
}

/* @fs's integers and strings, in their order, from w->img. */
static void buf_fields(struct rec_buf *b, const struct rec_tables *w,
		       const struct rec_fields *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		const struct rec_field *f = &fs->f[i];

		if (f->kind == REC_STR)
			buf_str(b, (const char *)w->img + f->off);
		else
			buf_uint(b, rec_field_get(w->img, f), f->bytes);
	}
}

static void put_meta(struct rec_buf *b, const struct rec_tables *w)
{
	const struct session_summary *s = w->s;
	size_t i;

	buf_fields(b, w, &rec_meta_fields);
	buf_u32(b, s->nr_counters);
	for (i = 0; i < s->nr_counters; i++) {
		const struct report_counter *c = &s->counters[i];

		buf_str(b, c->name);
		buf_u8(b, c->supported);
		buf_u8(b, c->hardware);
		buf_u8(b, c->time);
		buf_u32(b, (uint32_t)c->slot);
	}
	buf_u32(b, w->r->argc);
	for (i = 0; i < (size_t)w->r->argc; i++)
		buf_str(b, w->r->argv[i]);
}

static void put_funcs(struct rec_buf *b, const struct rec_tables *w)
{
	char id[160];
	size_t i;

	buf_u32(b, w->tb->nr_funcs);
	for (i = 0; i < w->tb->nr_funcs; i++) {
		const struct trace_func *f = &w->tb->funcs[i];

		if (elf_build_id(f->sym.obj, id, sizeof(id)))
			id[0] = '\0';
		buf_str(b, f->sym.name);
		buf_str(b, f->sym.linkage_name);
		buf_str(b, f->sym.obj);
		buf_str(b, id);
		buf_u64(b, f->sym.vaddr);
		buf_u64(b, f->sym.offset);
		buf_u64(b, f->sym.size);
		buf_u32(b, f->sym.flags);
		buf_u32(b, f->key.kind);
		buf_u32(b, f->key.arg);
		buf_u8(b, f->key.log2);
		buf_u8(b, f->is_block);
	}
}

static void put_probes(struct rec_buf *b, const struct rec_tables *w)
{
	const struct trace_probe *p = w->tb->probes;
	size_t i;

	buf_u32(b, w->tb->nr_probes);
	for (i = 0; i < w->tb->nr_probes; i++) {
		buf_u32(b, p[i].id);
		buf_u32(b, p[i].func);
		buf_u8(b, p[i].role);
		buf_u8(b, p[i].sync);
	}
}

static void put_name(struct rec_buf *b, struct elf_symbolizer *sym,
		     uint64_t addr, uint32_t *n)
{
	struct elf_addr_info info;

	/* Outside the snapshot: the report's own look-up finds none either. */
	if (!elf_symbolizer_knows(sym, addr) ||
	    elf_symbolize(sym, addr, &info, NULL, 0))
		return;
	buf_u64(b, addr);
	buf_u32(b, info.kind);
	buf_u8(b, info.sym_type);
	buf_u64(b, info.sym_off);
	buf_u64(b, info.sym_size);
	buf_u64(b, info.vaddr);
	buf_str(b, info.obj);
	buf_str(b, info.sym);
	(*n)++;
}

/*
 * Name now what a report may ask for, from the maps as they are now (one
 * re-read, as the report's first miss would do; a process gone keeps its
 * last snapshot), not one re-read per address: arguments that are plain
 * numbers are in no mapping, and there may be a million of them.
 */
static void put_names(struct rec_buf *b, const struct rec_tables *w)
{
	const struct rec_addrs *names = &w->r->names;
	struct elf_symbolizer *sym = w->tb->sym;
	const struct hashmap_entry *e;
	size_t count_at = b->len, i, pos;
	uint32_t n = 0;

	buf_u32(b, 0);
	if (sym)
		elf_symbolizer_refresh(sym, NULL, 0);
	hashmap_for_each(&names->map, e, pos) {
		uint64_t a = e->key;
		unsigned char bits = sym ? rec_addrs_byte(e) : 0;

		if (bits & NAME_AS_IS)
			put_name(b, sym, a, &n);
		/* A return address is named by its call (build.c). */
		if (bits & NAME_RETURN && a > 1)
			put_name(b, sym, a - 1, &n);
	}
	if (!b->nomem)
		for (i = 0; i < 4; i++)
			b->p[count_at + i] = (unsigned char)(n >> (8 * i));
}

static void put_maps(struct rec_buf *b, const struct rec_tables *w)
{
	const struct elf_map *m = NULL;
	size_t n = 0, i;

	if (w->tb->sym)
		m = elf_symbolizer_maps(w->tb->sym, &n);
	buf_u32(b, n);
	for (i = 0; i < n; i++) {
		buf_u64(b, m[i].start);
		buf_u64(b, m[i].end);
		buf_u64(b, m[i].offset);
		buf_put(b, m[i].perms, 4);
		buf_str(b, m[i].path);
	}
}

static void put_stats(struct rec_buf *b, const struct rec_tables *w)
{
	buf_fields(b, w, &rec_stats_fields);
}

/* The tables, in the order the file has them (after the events). */
static void (*const put_table[])(struct rec_buf *b,
				 const struct rec_tables *w) = {
	[REC_SEC_META] = put_meta,
	[REC_SEC_FUNCS] = put_funcs,
	[REC_SEC_PROBES] = put_probes,
	[REC_SEC_NAMES] = put_names,
	[REC_SEC_MAPS] = put_maps,
	[REC_SEC_STATS] = put_stats,
};

int recording_finish(struct recording *r, const struct session_summary *s,
		     const struct session_tables *tb)
{
	struct recording_file img;
	const struct rec_tables w = { r, s, tb, &img };
	struct rec_buf b = { 0 };
	int i, ret;

	rec_image(&img, r, s);
	rec_flush_events(r);
	for (i = REC_SEC_META; i < REC_SEC_END; i++) {
		b.len = 0;
		put_table[i](&b, &w);
		rec_section(r, i, &b);
	}
	free(b.p);
	rec_section(r, REC_SEC_END, NULL);
	if (r->failed) {
		afile_abort(&r->out);
		ret = -EIO;
	} else {
		ret = afile_commit(&r->out);
	}
	if (ret) {
		ispot_error("cannot write %s (%s): check the disk; no "
			    "recording was left", r->path, r->failed ?
			    "write error" : strerror(-ret));
		return -1;
	}
	return 0;
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
