// SPDX-License-Identifier: GPL-2.0
/*
 * The recording format: writing it during a session, reading it back for
 * `ispotctl report`; see recording.h and Documentation/recording.rst.
 * Every field is little-endian and of fixed width; strings are a u32
 * length and that many bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "analysis/drain.h"
#include "session/recording.h"
#include "util/errors.h"
#include "util/openaddr.h"

/* Events are written a section at a time, of about this much. */
#define REC_CHUNK		(1u << 20)
/* Addresses named at the end: more are left unnamed (hex in reports). */
#define REC_MAX_ADDRS		(1u << 20)
#define REC_EVENT_HEAD		8

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
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->nomem = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void buf_uint(struct rec_buf *b, uint64_t v, unsigned int bytes)
{
	unsigned char le[8];
	unsigned int i;

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

/* A set of addresses with a byte each, open addressing. */
struct rec_addrs {
	uint64_t *addr;		/* 0: empty slot */
	unsigned char *val;
	size_t n, cap;
	unsigned char zero;	/* address 0's byte, kept aside */
};

static size_t addrs_home(const struct rec_addrs *s, uint64_t a)
{
	return (size_t)((a * 0x9e3779b97f4a7c15ull) >> 20) & (s->cap - 1);
}

/* The slot of @a, or of where it would go; SIZE_MAX when full. */
static size_t addrs_slot(struct rec_addrs *s, uint64_t a)
{
	size_t i;

	if (s->n + 1 > s->cap / 2) {
		struct rec_addrs big = { 0 };
		size_t cap = s->cap ? 2 * s->cap : 1024, j;

		if (s->n >= REC_MAX_ADDRS)
			goto probe;
		big.addr = calloc(cap, sizeof(*big.addr));
		big.val = calloc(cap, 1);
		if (!big.addr || !big.val) {
			free(big.addr);
			free(big.val);
			goto probe;
		}
		big.cap = cap;
		for (j = 0; j < s->cap; j++) {
			if (!s->addr[j])
				continue;
			i = addrs_home(&big, s->addr[j]);
			while (big.addr[i])
				i = (i + 1) & (cap - 1);
			big.addr[i] = s->addr[j];
			big.val[i] = s->val[j];
		}
		big.n = s->n;
		free(s->addr);
		free(s->val);
		*s = big;
	}
probe:
	if (!s->cap || s->n + 1 >= s->cap)
		return SIZE_MAX;
	for (i = addrs_home(s, a); s->addr[i] && s->addr[i] != a;
	     i = (i + 1) & (s->cap - 1))
		;
	return i;
}

/* @a's byte, added as 0 if new; NULL when full. */
static unsigned char *addrs_get(struct rec_addrs *s, uint64_t a)
{
	size_t i;

	if (!a)
		return &s->zero;
	i = addrs_slot(s, a);
	if (i == SIZE_MAX)
		return NULL;
	if (!s->addr[i]) {
		s->addr[i] = a;
		s->n++;
	}
	return &s->val[i];
}

static void addrs_or(struct rec_addrs *s, uint64_t a, unsigned char bits)
{
	unsigned char *v = addrs_get(s, a);

	if (v)
		*v |= bits;
}

/* 0, or -1 when the table cannot hold @a. */
static int addrs_set(struct rec_addrs *s, uint64_t a, unsigned char val)
{
	unsigned char *v = addrs_get(s, a);

	if (!v)
		return -1;
	*v = val;
	return 0;
}

static void addrs_free(struct rec_addrs *s)
{
	free(s->addr);
	free(s->val);
}

/* How an address is named at the end: as itself, or as a return address. */
#define NAME_AS_IS	1
#define NAME_RETURN	2
/* A frame-check answer: known, and true. */
#define FRAME_KNOWN	1
#define FRAME_OK	2

struct recording {
	FILE *f;
	char *path, *tmp;
	uint64_t max_size;
	uint64_t written;
	struct rec_buf ev;
	uint64_t records;
	bool full;
	uint64_t last_ts;
	struct rec_addrs frames;
	struct rec_addrs names;
	bool failed;
	bool done;
};

static void rec_write(struct recording *r, const void *p, size_t len)
{
	if (r->failed)
		return;
	if (fwrite(p, 1, len, r->f) != len)
		r->failed = true;
	r->written += len;
}

static void rec_section(struct recording *r, uint32_t type,
			const struct rec_buf *b)
{
	struct rec_buf h = { 0 };

	buf_u32(&h, type);
	buf_u32(&h, 0);
	buf_u64(&h, b ? b->len : 0);
	if (h.nomem || (b && b->nomem))
		r->failed = true;
	rec_write(r, h.p, h.len);
	if (b && b->len)
		rec_write(r, b->p, b->len);
	free(h.p);
}

static void rec_flush_events(struct recording *r)
{
	if (!r->ev.len)
		return;
	rec_section(r, REC_SEC_EVENTS, &r->ev);
	r->ev.len = 0;
}

struct recording *recording_create(const char *path, uint64_t max_size)
{
	struct recording *r = calloc(1, sizeof(*r));
	char *dir_copy = strdup(path), *base_copy = strdup(path);
	struct rec_buf h = { 0 };
	struct stat st;
	int fd;

	if (!r || !dir_copy || !base_copy)
		goto nomem;
	/* Renamed onto at the end: refuse now what would refuse it then. */
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		ispot_error("cannot write %s (a directory): give -o a file "
			    "name", path);
		goto fail;
	}
	r->max_size = max_size;
	r->path = strdup(path);
	if (!r->path ||
	    asprintf(&r->tmp, "%s/.%s.XXXXXX", dirname(dir_copy),
		     basename(base_copy)) < 0) {
		r->tmp = NULL;
		goto nomem;
	}
	fd = mkstemp(r->tmp);
	if (fd < 0) {
		ispot_error("cannot write %s (%s): choose a writable -o path",
			    path, strerror(errno));
		free(r->tmp);
		r->tmp = NULL;
		goto fail;
	}
	r->f = fdopen(fd, "w");
	if (!r->f) {
		close(fd);
		goto nomem;
	}
	buf_put(&h, RECORDING_MAGIC, 8);
	buf_u16(&h, RECORDING_MAJOR);
	buf_u16(&h, RECORDING_MINOR);
	buf_u32(&h, 0);
	rec_write(r, h.p, h.len);
	free(h.p);
	free(dir_copy);
	free(base_copy);
	return r;
nomem:
	ispot_error("out of memory starting the recording");
fail:
	free(dir_copy);
	free(base_copy);
	recording_free(r);
	return NULL;
}

/* Room for an event of @len payload bytes under max_size, else full. */
static bool rec_room(struct recording *r, size_t len)
{
	if (r->full)
		return false;
	if (r->written + RECORDING_SECTION_HEAD + r->ev.len + REC_EVENT_HEAD +
	    len > r->max_size) {
		r->full = true;
		return false;
	}
	return true;
}

static void rec_event(struct recording *r, uint8_t type, const void *p,
		      size_t len)
{
	if (!rec_room(r, len))
		return;
	buf_u8(&r->ev, type);
	buf_u8(&r->ev, 0);
	buf_u16(&r->ev, 0);
	buf_u32(&r->ev, len);
	buf_put(&r->ev, p, len);
	if (r->ev.len >= REC_CHUNK)
		rec_flush_events(r);
}

/* The addresses a report may name: call sites, arguments, frames, words. */
static void rec_note_addresses(struct recording *r,
			       const struct ispot_record *rec)
{
	const uint64_t *frames = (const uint64_t *)(rec + 1);
	uint64_t i, n;

	switch (rec->kind) {
	case ISPOT_REC_ENTRY:
		for (i = 0; i < 3; i++)
			addrs_or(&r->names, rec->data[i], NAME_AS_IS);
		/* fall through */
	case ISPOT_REC_EXIT:
		addrs_or(&r->names, rec->ip, NAME_AS_IS | NAME_RETURN);
		break;
	case ISPOT_REC_STACK:
		n = rec->data[0];
		if (n > (uint64_t)(rec->nslots - 1) * 8)
			n = (uint64_t)(rec->nslots - 1) * 8;
		for (i = 0; i < n; i++)
			addrs_or(&r->names, frames[i], NAME_RETURN);
		break;
	case ISPOT_REC_FUTEX_ENTER:
		addrs_or(&r->names, rec->data[0], NAME_AS_IS);
		addrs_or(&r->names, rec->ip, NAME_AS_IS | NAME_RETURN);
		break;
	}
}

void recording_record(struct recording *r, const struct ispot_record *rec)
{
	size_t len = (size_t)rec->nslots * ISPOT_SLOT_SIZE;

	if (!rec_room(r, len))
		return;
	rec_event(r, REC_EV_RECORD, rec, len);
	r->records++;
	r->last_ts = rec->ts_ns;
	rec_note_addresses(r, rec);
}

void recording_thread(struct recording *r, bool exit, uint32_t tid,
		      uint64_t ts)
{
	struct rec_buf b = { 0 };

	buf_u32(&b, tid);
	buf_u64(&b, ts);
	if (!b.nomem)
		rec_event(r, exit ? REC_EV_THREAD_EXIT : REC_EV_THREAD_SEEN,
			  b.p, b.len);
	free(b.p);
}

void recording_trampoline(struct recording *r, uint64_t start, uint64_t end)
{
	struct rec_buf b = { 0 };

	buf_u64(&b, start);
	buf_u64(&b, end);
	if (!b.nomem)
		rec_event(r, REC_EV_TRAMPOLINE, b.p, b.len);
	free(b.p);
}

/* Only a new address, or a new answer for one, is an event. */
void recording_frame(struct recording *r, uint64_t addr, bool ok)
{
	unsigned char want = FRAME_KNOWN | (ok ? FRAME_OK : 0);
	unsigned char *v = addrs_get(&r->frames, addr);
	struct rec_buf b = { 0 };

	if (!v || *v == want || r->full)
		return;
	*v = want;
	buf_u64(&b, addr);
	buf_u8(&b, ok);
	if (!b.nomem)
		rec_event(r, REC_EV_FRAME, b.p, b.len);
	free(b.p);
}

bool recording_full(const struct recording *r, uint64_t *size,
		    uint64_t *last_ts)
{
	*size = r->max_size;
	*last_ts = r->last_ts;
	return r->full;
}

static void put_meta(struct rec_buf *b, const struct trace *t)
{
	const struct trace_opts *o = t->opts;
	struct utsname u;
	struct timespec ts, boot;
	size_t i, argc = 0;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	clock_gettime(CLOCK_REALTIME, &ts);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	buf_u32(b, t->dev.version.abi_major);
	buf_u32(b, t->dev.version.abi_minor);
	buf_u32(b, ISPOT_ABI_MAJOR);
	buf_u32(b, ISPOT_ABI_MINOR);
	buf_str(b, ISPOTCTL_VERSION);
	buf_str(b, u.release);
	buf_u32(b, t->nr_rings);
	buf_u32(b, CLOCK_MONOTONIC);
	buf_u32(b, t->mode);
	buf_u32(b, (uint32_t)t->pid);
	buf_str(b, t->command);
	/* When the session began, on the wall clock (monotonic: t_enable). */
	buf_u64(b, (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec -
		   (trace_now() - t->t_enable));
	/* And on CLOCK_BOOTTIME, which Perfetto traces are timed by. */
	buf_u64(b, (uint64_t)boot.tv_sec * 1000000000ull + boot.tv_nsec -
		   (trace_now() - t->t_enable));
	buf_u8(b, t->tasks);
	buf_u8(b, t->waits);
	buf_u32(b, o->sample);
	buf_u32(b, o->stack_period);
	buf_u64(b, o->max_size);
	buf_u32(b, o->nr_counters);
	for (i = 0; i < o->nr_counters; i++) {
		const struct report_counter *c = &t->counters[i];

		buf_str(b, c->name);
		buf_u8(b, c->supported);
		buf_u8(b, c->hardware);
		buf_u8(b, c->time);
		buf_u32(b, (uint32_t)c->slot);
	}
	argc = o->record_argc;
	buf_u32(b, argc);
	for (i = 0; i < argc; i++)
		buf_str(b, o->record_argv[i]);
}

static void put_funcs(struct rec_buf *b, const struct trace *t)
{
	char id[160];
	size_t i;

	buf_u32(b, t->nr_funcs);
	for (i = 0; i < t->nr_funcs; i++) {
		const struct trace_func *f = &t->funcs[i];

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
		buf_u8(b, f->block != NULL);
	}
}

static void put_probes(struct rec_buf *b, const struct trace *t)
{
	size_t i;

	buf_u32(b, t->nr_probes);
	for (i = 0; i < t->nr_probes; i++) {
		buf_u32(b, t->probes[i].id);
		buf_u32(b, t->probes[i].func);
		buf_u8(b, t->probes[i].role);
		buf_u8(b, t->probes[i].sync);
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
static void put_names(struct rec_buf *b, struct recording *r,
		      struct elf_symbolizer *sym)
{
	size_t count_at = b->len, i;
	uint32_t n = 0;

	buf_u32(b, 0);
	if (sym)
		elf_symbolizer_refresh(sym, NULL, 0);
	for (i = 0; sym && i < r->names.cap; i++) {
		uint64_t a = r->names.addr[i];

		if (!a)
			continue;
		if (r->names.val[i] & NAME_AS_IS)
			put_name(b, sym, a, &n);
		/* A return address is named by its call (build.c). */
		if (r->names.val[i] & NAME_RETURN && a > 1)
			put_name(b, sym, a - 1, &n);
	}
	if (!b->nomem)
		for (i = 0; i < 4; i++)
			b->p[count_at + i] = (unsigned char)(n >> (8 * i));
}

static void put_maps(struct rec_buf *b, const struct trace *t)
{
	const struct elf_map *m = NULL;
	size_t n = 0, i;

	if (t->sym)
		m = elf_symbolizer_maps(t->sym, &n);
	buf_u32(b, n);
	for (i = 0; i < n; i++) {
		buf_u64(b, m[i].start);
		buf_u64(b, m[i].end);
		buf_u64(b, m[i].offset);
		buf_put(b, m[i].perms, 4);
		buf_str(b, m[i].path);
	}
}

static void put_stats(struct rec_buf *b, const struct recording *r,
		      const struct trace *t)
{
	const struct drain_stats *ds = trace_drain_stats(t);

	buf_u64(b, ds->records);
	buf_u64(b, ds->late);
	buf_u64(b, ds->corrupt);
	buf_u64(b, ds->rounds);
	buf_u64(b, r->records);
	buf_u64(b, t->dropped);
	buf_u64(b, t->lost_exits);
	buf_u32(b, t->stop_reason);
	buf_u64(b, t->t_enable);
	buf_u64(b, t->t_end);
	buf_u8(b, t->target_exited);
	buf_u8(b, t->interrupted);
	buf_u8(b, r->full);
	buf_u64(b, r->max_size);
	buf_u64(b, r->last_ts);
}

int recording_finish(struct recording *r, const struct trace *t)
{
	struct rec_buf b = { 0 };
	int i;

	rec_flush_events(r);
	for (i = REC_SEC_META; i < REC_SEC_END; i++) {
		b.len = 0;
		switch (i) {
		case REC_SEC_META:
			put_meta(&b, t);
			break;
		case REC_SEC_FUNCS:
			put_funcs(&b, t);
			break;
		case REC_SEC_PROBES:
			put_probes(&b, t);
			break;
		case REC_SEC_NAMES:
			put_names(&b, r, t->sym);
			break;
		case REC_SEC_MAPS:
			put_maps(&b, t);
			break;
		case REC_SEC_STATS:
			put_stats(&b, r, t);
			break;
		}
		rec_section(r, i, &b);
	}
	free(b.p);
	rec_section(r, REC_SEC_END, NULL);
	if (fflush(r->f) || fsync(fileno(r->f)))
		r->failed = true;
	if (fclose(r->f))
		r->failed = true;
	r->f = NULL;
	if (r->failed || rename(r->tmp, r->path)) {
		ispot_error("cannot write %s (%s): check the disk; no "
			    "recording was left", r->path, r->failed ?
			    "write error" : strerror(errno));
		return -1;
	}
	r->done = true;
	return 0;
}

void recording_free(struct recording *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	if (r->tmp && !r->done)
		unlink(r->tmp);
	free(r->tmp);
	free(r->path);
	free(r->ev.p);
	addrs_free(&r->frames);
	addrs_free(&r->names);
	free(r);
}

/* --- reading ------------------------------------------------------------ */

/* A bounded view of a section: a read past its end marks it bad. */
struct rec_cur {
	const unsigned char *p;
	uint64_t left;
	bool bad;
};

static uint64_t cur_uint(struct rec_cur *c, unsigned int bytes)
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

#define cur_u8(c)	((uint8_t)cur_uint(c, 1))
#define cur_u16(c)	((uint16_t)cur_uint(c, 2))
#define cur_u32(c)	((uint32_t)cur_uint(c, 4))
#define cur_u64(c)	cur_uint(c, 8)

/* A string into @buf, which it must fit with its NUL. */
static void cur_str(struct rec_cur *c, char *buf, size_t len)
{
	uint32_t n = cur_u32(c);

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

/* A string of any length the section holds, malloc'd; NULL if bad. */
static char *cur_strdup(struct rec_cur *c)
{
	uint32_t n = cur_u32(c);
	char *s;

	if (c->bad || n > c->left || memchr(c->p, '\0', n)) {
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

/* A count of items of at least @item bytes each, at most @max. */
static uint32_t cur_count(struct rec_cur *c, uint32_t max, uint64_t item)
{
	uint32_t n = cur_u32(c);

	if (n > max || (uint64_t)n * item > c->left)
		c->bad = true;
	return c->bad ? 0 : n;
}

static int rec_bad(const struct recording_file *rf, const char *what)
{
	ispot_error("%s: %s: the recording is damaged; record again",
		    rf->path, what);
	return -1;
}

static void get_meta(struct rec_cur *c, struct recording_file *rf)
{
	struct recording_meta *m = &rf->meta;
	uint32_t i;

	m->abi_major = cur_u32(c);
	m->abi_minor = cur_u32(c);
	m->ctl_abi_major = cur_u32(c);
	m->ctl_abi_minor = cur_u32(c);
	cur_str(c, m->version, sizeof(m->version));
	cur_str(c, m->kernel, sizeof(m->kernel));
	m->nr_cpus = cur_u32(c);
	m->clock_id = cur_u32(c);
	m->mode = cur_u32(c);
	m->pid = (int32_t)cur_u32(c);
	cur_str(c, m->command, sizeof(m->command));
	m->start_realtime_ns = cur_u64(c);
	m->start_boottime_ns = cur_u64(c);
	m->tasks = cur_u8(c);
	m->waits = cur_u8(c);
	m->sample = cur_u32(c);
	m->stack_period = cur_u32(c);
	m->max_size = cur_u64(c);
	m->nr_counters = cur_count(c, ISPOT_MAX_COUNTERS, 11);
	for (i = 0; i < m->nr_counters; i++) {
		struct report_counter *rc = &m->counters[i];

		cur_str(c, m->counter_names[i], sizeof(m->counter_names[i]));
		rc->name = m->counter_names[i];
		rc->supported = cur_u8(c);
		rc->hardware = cur_u8(c);
		rc->time = cur_u8(c);
		rc->slot = (int32_t)cur_u32(c);
		if (rc->slot < -1 || rc->slot >= ISPOT_MAX_COUNTERS)
			c->bad = true;
	}
	m->nr_args = cur_count(c, RECORDING_MAX_ARGS, 4);
	m->args = calloc(m->nr_args + 1, sizeof(*m->args));
	if (!m->args) {
		c->bad = true;
		return;
	}
	for (i = 0; i < m->nr_args && !c->bad; i++)
		m->args[i] = cur_strdup(c);
	if (m->mode != MODE_ATTACH && m->mode != MODE_RUN)
		c->bad = true;
}

static void get_funcs(struct rec_cur *c, struct recording_file *rf)
{
	uint32_t n = cur_count(c, RECORDING_MAX_FUNCS, 54), i;
	char id[160];

	rf->funcs = calloc(n + 1, sizeof(*rf->funcs));
	if (!rf->funcs) {
		c->bad = true;
		return;
	}
	rf->nr_funcs = n;
	for (i = 0; i < n && !c->bad; i++) {
		struct trace_func *f = &rf->funcs[i];

		cur_str(c, f->sym.name, sizeof(f->sym.name));
		cur_str(c, f->sym.linkage_name, sizeof(f->sym.linkage_name));
		cur_str(c, f->sym.obj, sizeof(f->sym.obj));
		cur_str(c, id, sizeof(id));
		f->sym.vaddr = cur_u64(c);
		f->sym.offset = cur_u64(c);
		f->sym.size = cur_u64(c);
		f->sym.flags = cur_u32(c);
		f->key.kind = cur_u32(c);
		f->key.arg = cur_u32(c);
		f->key.log2 = cur_u8(c);
		cur_skip(c, 1);	/* a block: its probes say which markers */
		if (f->key.kind > KEY_SHAPE || f->key.arg > 2)
			c->bad = true;
	}
}

static void get_probes(struct rec_cur *c, struct recording_file *rf)
{
	uint32_t n = cur_count(c, RECORDING_MAX_PROBES, 10), i;

	rf->probes = calloc(n + 1, sizeof(*rf->probes));
	if (!rf->probes) {
		c->bad = true;
		return;
	}
	rf->nr_probes = n;
	for (i = 0; i < n && !c->bad; i++) {
		struct trace_probe *p = &rf->probes[i];

		p->id = cur_u32(c);
		p->func = cur_u32(c);
		p->role = cur_u8(c);
		p->sync = cur_u8(c);
		if (!p->id || p->id >= RECORDING_MAX_PROBES ||
		    p->func >= rf->nr_funcs || p->role > TRACE_PROBE_END)
			c->bad = true;
	}
}

static void get_names(struct rec_cur *c, struct recording_file *rf)
{
	uint32_t n = cur_count(c, RECORDING_MAX_NAMES, 45), i;
	struct elf_addr_info *info = malloc(sizeof(*info));

	rf->names = elf_symbolizer_frozen();
	if (!rf->names || !info) {
		c->bad = true;
		free(info);
		return;
	}
	for (i = 0; i < n && !c->bad; i++) {
		uint64_t addr = cur_u64(c);

		memset(info, 0, sizeof(*info));
		info->kind = cur_u32(c);
		info->sym_type = cur_u8(c);
		info->sym_off = cur_u64(c);
		info->sym_size = cur_u64(c);
		info->vaddr = cur_u64(c);
		cur_str(c, info->obj, sizeof(info->obj));
		cur_str(c, info->sym, sizeof(info->sym));
		if (info->kind > ELF_ADDR_ANON)
			c->bad = true;
		if (!c->bad && elf_symbolizer_add(rf->names, addr, info))
			c->bad = true;
	}
	free(info);
}

static void get_stats(struct rec_cur *c, struct recording_file *rf)
{
	struct recording_stats *s = &rf->stats;

	s->drain.records = cur_u64(c);
	s->drain.late = cur_u64(c);
	s->drain.corrupt = cur_u64(c);
	s->drain.rounds = cur_u64(c);
	s->records = cur_u64(c);
	s->dropped = cur_u64(c);
	s->lost_exits = cur_u64(c);
	s->stop_reason = cur_u32(c);
	s->t_enable = cur_u64(c);
	s->t_end = cur_u64(c);
	s->target_exited = cur_u8(c);
	s->interrupted = cur_u8(c);
	s->full = cur_u8(c);
	s->full_size = cur_u64(c);
	s->full_ts = cur_u64(c);
	if (s->t_end < s->t_enable)
		c->bad = true;
}

static const char *const section_names[] = {
	[REC_SEC_META] = "its session section",
	[REC_SEC_FUNCS] = "its function table",
	[REC_SEC_PROBES] = "its probe table",
	[REC_SEC_NAMES] = "its address names",
	[REC_SEC_MAPS] = "its maps",
	[REC_SEC_STATS] = "its statistics",
};

/* Decode one table section; each must come exactly once. */
static int rec_table(struct recording_file *rf, uint32_t type,
		     const unsigned char *p, uint64_t len, unsigned int *seen)
{
	struct rec_cur c = { .p = p, .left = len };

	if (*seen & (1u << type))
		return rec_bad(rf, "a section appears twice");
	*seen |= 1u << type;
	switch (type) {
	case REC_SEC_META:
		get_meta(&c, rf);
		break;
	case REC_SEC_FUNCS:
		get_funcs(&c, rf);
		break;
	case REC_SEC_PROBES:
		/* The function table comes first: probes refer to it. */
		if (!(*seen & (1u << REC_SEC_FUNCS)))
			return rec_bad(rf, "probes before functions");
		get_probes(&c, rf);
		break;
	case REC_SEC_NAMES:
		get_names(&c, rf);
		break;
	case REC_SEC_MAPS:
		return 0;	/* kept for people; no report reads it */
	case REC_SEC_STATS:
		get_stats(&c, rf);
		break;
	}
	if (c.bad || c.left) {
		char what[64];

		snprintf(what, sizeof(what), "%s is malformed",
			 section_names[type]);
		return rec_bad(rf, what);
	}
	return 0;
}

static int rec_map(const char *path, struct recording_file *rf)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		ispot_error("cannot read %s (%s): give the file `ispotctl "
			    "record -o` wrote", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ispot_error("%s is not a regular file: give the file "
			    "`ispotctl record -o` wrote", path);
		close(fd);
		return -1;
	}
	rf->size = (size_t)st.st_size;
	if (rf->size >= 8)
		rf->map = mmap(NULL, rf->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (rf->map == MAP_FAILED) {
		rf->map = NULL;
		ispot_error("cannot read %s (%s): check the file", path,
			    strerror(errno));
		return -1;
	}
	return 0;
}

int recording_open(const char *path, struct recording_file *rf)
{
	const unsigned int tables = ((1u << REC_SEC_END) - 1) &
				    ~((1u << REC_SEC_META) - 1);
	unsigned int seen = 0;
	struct rec_cur c;
	bool end = false;

	memset(rf, 0, sizeof(*rf));
	rf->path = path;
	if (rec_map(path, rf))
		return -1;
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
	cur_skip(&c, 4);
	if (rf->meta.major != RECORDING_MAJOR) {
		ispot_error("%s is a recording of format %u.%u; this ispotctl "
			    "reads %u.x: report it with the ispotctl that "
			    "recorded it", path, rf->meta.major,
			    rf->meta.minor, RECORDING_MAJOR);
		return -1;
	}
	while (c.left && !end) {
		uint32_t type = cur_u32(&c);
		uint64_t len;

		cur_skip(&c, 4);
		len = cur_u64(&c);
		if (c.bad || len > c.left)
			break;
		if (type == REC_SEC_EVENTS) {
			void *ev;

			if (rf->nr_events == RECORDING_MAX_SECTIONS)
				return rec_bad(rf, "too many sections");
			ev = realloc(rf->events, (rf->nr_events + 1) *
				     sizeof(*rf->events));
			if (!ev)
				return rec_bad(rf, "out of memory");
			rf->events = ev;
			rf->events[rf->nr_events].p = c.p;
			rf->events[rf->nr_events++].len = len;
		} else if (type == REC_SEC_END) {
			end = !len;
		} else if (type > REC_SEC_EVENTS && type < REC_SEC_END) {
			if (rec_table(rf, type, c.p, len, &seen))
				return -1;
		}
		/* Unknown types are a later minor version's: skipped. */
		c.p += len;
		c.left -= len;
	}
	if (!end || c.left)
		return rec_bad(rf, end ? "data after its end" :
			       "it is cut short (no end section)");
	if ((seen & tables) != tables)
		return rec_bad(rf, "a table section is missing");
	if (rf->meta.abi_major != ISPOT_ABI_MAJOR) {
		ispot_error("%s holds records of ispot ABI %u.%u; this "
			    "ispotctl reads ABI %d.x: report it with the "
			    "ispotctl that recorded it", path,
			    rf->meta.abi_major, rf->meta.abi_minor,
			    ISPOT_ABI_MAJOR);
		return -1;
	}
	return 0;
}

static int event_bad(const struct recording_file *rf, const char *what)
{
	return rec_bad(rf, what);
}

int recording_next(const struct recording_file *rf,
		   struct recording_cursor *cur, struct recording_event *ev)
{
	struct rec_cur c, p;
	uint32_t len;

	while (cur->section < rf->nr_events &&
	       cur->off == rf->events[cur->section].len) {
		cur->section++;
		cur->off = 0;
	}
	if (cur->section == rf->nr_events)
		return 0;
	c = (struct rec_cur){ rf->events[cur->section].p + cur->off,
			      rf->events[cur->section].len - cur->off, false };
	memset(ev, 0, sizeof(*ev));
	ev->type = cur_u8(&c);
	cur_skip(&c, 3);
	len = cur_u32(&c);
	if (c.bad || len > c.left)
		return event_bad(rf, "an event runs past its section");
	p = (struct rec_cur){ c.p, len, false };
	switch (ev->type) {
	case REC_EV_RECORD:
		if (len < ISPOT_SLOT_SIZE || len % ISPOT_SLOT_SIZE ||
		    len > sizeof(cur->slots))
			return event_bad(rf, "a record has a bad size");
		memcpy(cur->slots, c.p, len);
		if (cur->slots[0].nslots != len / ISPOT_SLOT_SIZE)
			return event_bad(rf, "a record's slots do not match "
					 "its size");
		ev->rec = cur->slots;
		p.left = 0;
		break;
	case REC_EV_THREAD_SEEN:
	case REC_EV_THREAD_EXIT:
		ev->tid = cur_u32(&p);
		ev->a = cur_u64(&p);
		break;
	case REC_EV_TRAMPOLINE:
		ev->a = cur_u64(&p);
		ev->b = cur_u64(&p);
		break;
	case REC_EV_FRAME:
		ev->a = cur_u64(&p);
		ev->b = cur_u8(&p);
		if (!cur->frames)
			cur->frames = calloc(1, sizeof(*cur->frames));
		if (!cur->frames || ev->b > 1 ||
		    addrs_set(cur->frames, ev->a,
			      FRAME_KNOWN | (ev->b ? FRAME_OK : 0)))
			return event_bad(rf, "a frame check is malformed");
		break;
	default:
		return event_bad(rf, "an event of an unknown type");
	}
	if (p.bad || p.left)
		return event_bad(rf, "an event is malformed");
	cur->off += REC_EVENT_HEAD + len;
	return 1;
}

bool recording_frame_ok(void *ctx, uint64_t addr)
{
	struct recording_cursor *cur = ctx;
	unsigned char v = 0;
	size_t i;

	if (!cur->frames)
		return true;
	if (!addr) {
		v = cur->frames->zero;
	} else {
		i = addrs_slot(cur->frames, addr);
		if (i != SIZE_MAX && cur->frames->addr[i] == addr)
			v = cur->frames->val[i];
	}
	/* Never judged (past --max-size): taken, as with no maps. */
	return !(v & FRAME_KNOWN) || (v & FRAME_OK);
}

void recording_cursor_free(struct recording_cursor *c)
{
	if (c->frames)
		addrs_free(c->frames);
	free(c->frames);
	c->frames = NULL;
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
	memset(rf, 0, sizeof(*rf));
}
