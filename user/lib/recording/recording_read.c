// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a recording back for `ispotctl report FILE` (recording.h, the
 * format in Documentation/recording.rst).  The file is hostile: every
 * read is bounded by its section, every count by its bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/drain.h"
#include "recording/recording.h"
#include "recording/recording_addrs.h"
#include "recording/recording_format.h"
#include "recording/recording_read.h"
#include "util/array.h"
#include "util/errors.h"

uint64_t cur_uint(struct rec_cur *c, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	if (c->bad || c->left < bytes) {
		c->bad = true;
		return 0;
	}
	for (i = 0; i < bytes; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += bytes;
	c->left -= bytes;
	return v;
}

/* Fields a reader of this version ignores: reserved, or kept for people. */
static void cur_skip(struct rec_cur *c, unsigned int bytes)
{
	cur_uint(c, bytes);
}

void cur_str_of(struct rec_cur *c, uint64_t n, char *buf, size_t len)
{
	if (c->bad || n >= len || n > c->left ||
	    memchr(c->p, '\0', n)) {
		c->bad = true;
		buf[0] = '\0';
		return;
	}
	memcpy(buf, c->p, n);
	buf[n] = '\0';
	c->p += n;
	c->left -= n;
}

void cur_str(struct rec_cur *c, char *buf, size_t len)
{
	uint32_t n = cur_u32(c);

	cur_str_of(c, n, buf, len);
}

char *cur_strdup(struct rec_cur *c)
{
	return cur_strdup_max(c, UINT32_MAX);
}

char *cur_strdup_max(struct rec_cur *c, uint32_t max)
{
	uint32_t n = cur_u32(c);
	char *s;

	if (c->bad || n > max || n > c->left || memchr(c->p, '\0', n)) {
		c->bad = true;
		return NULL;
	}
	s = strndup((const char *)c->p, n);
	if (!s)
		c->bad = true;
	c->p += n;
	c->left -= n;
	return s;
}

uint32_t cur_count(struct rec_cur *c, uint32_t max, uint64_t item)
{
	uint32_t n = cur_u32(c);

	if (n > max || (uint64_t)n * item > c->left)
		c->bad = true;
	return c->bad ? 0 : n;
}

void *cur_table(struct rec_cur *c, uint32_t max, uint64_t item,
		size_t size, uint32_t *n)
{
	void *p;

	*n = cur_count(c, max, item);
	p = calloc(*n + 1, size);
	if (!p) {
		c->bad = true;
		*n = 0;
	}
	return p;
}

int rec_bad(const struct recording_file *rf, const char *what)
{
	ispot_error("%s: %s: the recording is damaged; record again",
		    rf->path, what);
	return -1;
}

/*
 * The recording at @fd: a regular file is mapped; a pipe (or, when
 * @any_stream, anything else that is not a file: a socket, a device) is
 * kept whole by rec_read_pipe() (recording_pipe.c), then mapped alike.
 */
static int rec_map_fd(int fd, bool any_stream, struct recording_file *rf)
{
	struct stat st;

	if (fstat(fd, &st) ||
	    (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !any_stream)) {
		ispot_error("%s is not a regular file or a pipe: give the "
			    "file `ispotctl record -o` wrote", rf->path);
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		return rec_read_pipe(fd, rf);
	rf->size = (size_t)st.st_size;
	if (rf->size >= 8)
		rf->map = mmap(NULL, rf->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (rf->map == MAP_FAILED) {
		rf->map = NULL;
		ispot_error("cannot read %s (%s): check the file", rf->path,
			    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * "-": standard input, a file mapped as any (report - < FILE) or a
 * stream read whole.  Refused when it is a terminal: nobody types a
 * recording, and a read would wait for one.
 */
static int rec_stdin(struct recording_file *rf)
{
	if (isatty(STDIN_FILENO)) {
		ispot_error("standard input is a terminal: pipe a recording "
			    "in (... | ispotctl report -) or give its file");
		return -1;
	}
	return rec_map_fd(STDIN_FILENO, true, rf);
}

static int rec_map(const char *path, struct recording_file *rf)
{
	int fd, ret;

	if (!strcmp(path, "-"))
		return rec_stdin(rf);
	/*
	 * Non-blocking: a FIFO's open would wait for a writer.  A FIFO is
	 * read through this very descriptor, which keeps it open for its
	 * writer throughout (closed and opened again, the FIFO would lose
	 * what a writer that came at the first open wrote, or SIGPIPE it).
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ispot_error("cannot read %s (%s): give the file `ispotctl "
			    "record -o` wrote", path, strerror(errno));
		return -1;
	}
	ret = rec_map_fd(fd, false, rf);
	close(fd);
	return ret;
}

bool rec_events_left(const struct recording_file *rf,
		     struct recording_cursor *cur)
{
	while (cur->section < rf->nr_events &&
	       cur->off == rf->events[cur->section].len) {
		cur->section++;
		cur->off = 0;
	}
	return cur->section < rf->nr_events;
}

int rec_add_events(struct recording_file *rf, const unsigned char *p,
		   uint64_t len)
{
	if (rf->nr_events == RECORDING_MAX_SECTIONS)
		return rec_bad(rf, "too many sections");
	if (ARRAY_RESERVE(rf->events, rf->cap_events, rf->nr_events + 1))
		return rec_bad(rf, "out of memory");
	rf->events[rf->nr_events].p = p;
	rf->events[rf->nr_events].after_loss = rf->loss_pending;
	rf->events[rf->nr_events++].len = len;
	rf->loss_pending = false;
	return 0;
}

/* Format 1's sections after the header: the offset reached, or -1. */
static int64_t rec1_sections(struct recording_file *rf, unsigned int *seen,
			     bool *end)
{
	struct rec_cur c = { .p = rf->map + RECORDING_HEADER_SIZE,
			     .left = rf->size - RECORDING_HEADER_SIZE };

	while (c.left && !*end) {
		uint32_t type = cur_u32(&c);
		uint64_t len;

		cur_skip(&c, 4);
		len = cur_u64(&c);
		if (c.bad || len > c.left)
			break;
		if (type == REC_SEC_EVENTS) {
			if (rec_add_events(rf, c.p, len))
				return -1;
		} else if (type == REC_SEC_END) {
			*end = !len;
		} else if (type > REC_SEC_EVENTS && type < REC_SEC_END) {
			if (rec_table(rf, type, c.p, len, seen))
				return -1;
		}
		/* Unknown types are a later minor version's: skipped. */
		c.p += len;
		c.left -= len;
	}
	return c.p - rf->map;
}

/* The file's header: a recording, of a major version this reads. */
static int rec_header(const char *path, struct recording_file *rf)
{
	struct rec_cur c;

	if (!rf->size && rf->piped) {
		ispot_error("%s is empty, not a recording: pipe in what "
			    "`ispotctl record -o -` writes", path);
		return -1;
	}
	/* What a record killed before it began tracing leaves behind. */
	if (!rf->size) {
		ispot_error("%s is empty, not a recording (a record killed "
			    "before it traced leaves its temporary file so): "
			    "record again", path);
		return -1;
	}
	if (!rf->map || rf->size < 8 || memcmp(rf->map, RECORDING_MAGIC, 8)) {
		ispot_error("%s is not an ispot recording: give a file that "
			    "`ispotctl record -o` wrote", path);
		return -1;
	}
	if (rf->size < RECORDING_HEADER_SIZE)
		return rec_bad(rf, "it is cut short (no end section)");
	c = (struct rec_cur){ .p = rf->map + 8, .left = rf->size - 8 };
	rf->meta.major = cur_u16(&c);
	rf->meta.minor = cur_u16(&c);
	if (rf->meta.major < RECORDING_MAJOR_OLDEST ||
	    rf->meta.major > RECORDING_MAJOR) {
		ispot_error("%s is a recording of format %u.%u; this ispotctl "
			    "reads %u.x to %u.x: report it with the ispotctl "
			    "that recorded it", path, rf->meta.major,
			    rf->meta.minor, RECORDING_MAJOR_OLDEST,
			    RECORDING_MAJOR);
		return -1;
	}
	return 0;
}

/* Format 2: the damaged chunks left out, in one line. */
static void rec_note_lost(const struct recording_file *rf)
{
	char more[64] = "";

	if (!rf->lost)
		return;
	if (rf->lost > 1)
		snprintf(more, sizeof(more), ", and %u more damaged chunk%s",
			 rf->lost - 1, rf->lost > 2 ? "s" : "");
	ispot_error("%s: events chunk %zu (bytes %llu to %llu) is damaged: "
		    "the report leaves out its events%s; the other chunks are "
		    "whole", rf->path, rf->lost_chunk,
		    (unsigned long long)rf->lost_from,
		    (unsigned long long)rf->lost_to, more);
}

int recording_open(const char *path, struct recording_file *rf)
{
	unsigned int tables = ((1u << REC_SEC_END) - 1) &
			      ~((1u << REC_SEC_META) - 1);
	unsigned int seen = 0;
	bool end = false;
	uint64_t past_end = 0;
	int64_t off;

	memset(rf, 0, sizeof(*rf));
	rf->path = strcmp(path, "-") ? path : "standard input";
	if (rec_map(path, rf) || rec_header(rf->path, rf))
		return -1;
	off = rf->meta.major == 1 ? rec1_sections(rf, &seen, &end) :
				    rec2_sections(rf, &seen, &end);
	if (off < 0)
		return -1;
	/* Bytes after a whole recording (appended to it): left out. */
	if (end && (size_t)off != rf->size)
		past_end = rf->size - (uint64_t)off;
	if (!end && rec2_cut(rf, (uint64_t)off, seen))
		return -1;
	/* 2.1 on has START too. */
	if (rf->meta.major > 2 || (rf->meta.major == 2 && rf->meta.minor))
		tables |= 1u << REC_SEC_START;
	if (rec_format_has_profile(rf))
		tables |= 1u << REC_SEC_PROFILE;
	if (!rf->cut && (seen & tables) != tables)
		return rec_bad(rf, rf->lost ? "a table section is damaged" :
			       "a table section is missing");
	if (rf->sum.abi_major != ISPOT_ABI_MAJOR) {
		ispot_error("%s holds records of ispot ABI %u.%u; this "
			    "ispotctl reads ABI %d.x: report it with the "
			    "ispotctl that recorded it", rf->path,
			    rf->sum.abi_major, rf->sum.abi_minor,
			    ISPOT_ABI_MAJOR);
		return -1;
	}
	rec_note_lost(rf);
	rec2_note_cut(rf);
	if (rf->left_out)
		ispot_error("%s: %s: the report is made without them", rf->path,
			    rf->left_out);
	if (past_end)
		ispot_error("%s: %llu bytes after its end section are no part "
			    "of it (appended?): the report leaves them out",
			    rf->path, (unsigned long long)past_end);
	return 0;
}

/* A record event's slots, as long as @len, into the cursor's copy. */
static int rec_take_record(const struct recording_file *rf,
			   struct recording_cursor *cur,
			   const struct rec_cur *c, uint32_t len)
{
	if (len < ISPOT_SLOT_SIZE || len % ISPOT_SLOT_SIZE ||
	    len > sizeof(cur->slots))
		return rec_bad(rf, "a record has a bad size");
	memcpy(cur->slots, c->p, len);
	if (cur->slots[0].nslots != len / ISPOT_SLOT_SIZE)
		return rec_bad(rf, "a record's slots do not match its size");
	/* What the live drain would have refused (drain.h). */
	if (!drain_record_ok(cur->slots[0].nslots, cur->slots[0].ts_ns))
		return rec_bad(rf, "a record is malformed");
	return 0;
}

int rec_take_frame(const struct recording_file *rf,
		   struct recording_cursor *cur,
		   const struct session_input *ev)
{
	unsigned char *v;

	if (!cur->frames)
		cur->frames = calloc(1, sizeof(*cur->frames));
	if (!cur->frames || ev->b > 1 ||
	    !(v = rec_addrs_add(cur->frames, ev->a)))
		return rec_bad(rf, "a frame check is malformed");
	*v = FRAME_KNOWN | (ev->b ? FRAME_OK : 0);
	return 0;
}

/* Another event's fields from @p; a frame check's answer is kept. */
static int rec_take_payload(const struct recording_file *rf,
			    struct recording_cursor *cur, struct rec_cur *p,
			    struct session_input *ev)
{
	struct rec_payload pl = rec_payload(ev->type);

	if (!pl.a)
		return rec_bad(rf, "an event of an unknown type");
	ev->tid = (uint32_t)cur_uint(p, pl.tid);
	ev->a = cur_uint(p, pl.a);
	ev->b = cur_uint(p, pl.b);
	return ev->type == INPUT_FRAME ? rec_take_frame(rf, cur, ev) : 0;
}

int recording_next(const struct recording_file *rf,
		   struct recording_cursor *cur, struct session_input *ev)
{
	struct rec_cur c, p;
	uint32_t len;

	if (rf->meta.major != 1)
		return rec2_next(rf, cur, ev);
	if (!rec_events_left(rf, cur))
		return 0;
	c = (struct rec_cur){ rf->events[cur->section].p + cur->off,
			      rf->events[cur->section].len - cur->off, false };
	memset(ev, 0, sizeof(*ev));
	ev->type = cur_u8(&c);
	cur_skip(&c, 3);
	len = cur_u32(&c);
	if (c.bad || len > c.left)
		return rec_bad(rf, "an event runs past its section");
	p = (struct rec_cur){ c.p, len, false };
	if (ev->type == INPUT_RECORD) {
		if (rec_take_record(rf, cur, &c, len))
			return -1;
		ev->rec = cur->slots;
		p.left = 0;
	} else if (rec_take_payload(rf, cur, &p, ev)) {
		return -1;
	}
	if (p.bad || p.left)
		return rec_bad(rf, "an event is malformed");
	cur->off += RECORDING_EVENT_HEAD + len;
	return 1;
}

bool recording_frame_ok(void *ctx, uint64_t addr)
{
	struct recording_cursor *cur = ctx;
	const unsigned char *p;
	unsigned char v;

	if (!cur->frames)
		return true;
	p = rec_addrs_find(cur->frames, addr);
	v = p ? *p : 0;
	/* Never judged (past --max-size): taken, as with no maps. */
	return !(v & FRAME_KNOWN) || (v & FRAME_OK);
}

void recording_cursor_free(struct recording_cursor *c)
{
	if (c->frames)
		rec_addrs_free(c->frames);
	free(c->frames);
	c->frames = NULL;
	free(c->st);
	c->st = NULL;
	free(c->batch);
	c->batch = NULL;
}

void recording_close(struct recording_file *rf)
{
	uint32_t i;

	if (rf->map)
		munmap(rf->map, rf->size);
	for (i = 0; rf->meta.args && i < rf->meta.nr_args; i++)
		free(rf->meta.args[i]);
	free(rf->meta.args);
	free(rf->funcs);
	free(rf->probes);
	free(rf->events);
	elf_symbolizer_free(rf->names);
	rec_profile_free(rf);
	thread_names_free(&rf->threads);
	memset(rf, 0, sizeof(*rf));
}
