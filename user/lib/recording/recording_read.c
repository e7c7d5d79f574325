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
#include "util/errors.h"

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
	uint8_t is_block;
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
		is_block = cur_u8(c);
		f->is_block = is_block == 1;
		if (f->key.kind > KEY_SHAPE || f->key.arg > 2 || is_block > 1)
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

int recording_next(const struct recording_file *rf,
		   struct recording_cursor *cur, struct recording_event *ev)
{
	struct rec_cur c, p;
	unsigned char *v;
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
		return rec_bad(rf, "an event runs past its section");
	p = (struct rec_cur){ c.p, len, false };
	switch (ev->type) {
	case REC_EV_RECORD:
		if (len < ISPOT_SLOT_SIZE || len % ISPOT_SLOT_SIZE ||
		    len > sizeof(cur->slots))
			return rec_bad(rf, "a record has a bad size");
		memcpy(cur->slots, c.p, len);
		if (cur->slots[0].nslots != len / ISPOT_SLOT_SIZE)
			return rec_bad(rf, "a record's slots do not match "
					 "its size");
		/* What the live drain would have refused (drain.h). */
		if (!drain_record_ok(cur->slots[0].nslots,
				     cur->slots[0].ts_ns))
			return rec_bad(rf, "a record is malformed");
		ev->rec = cur->slots;
		p.left = 0;
		break;
	case REC_EV_THREAD_SEEN:
		ev->tid = cur_u32(&p);
		ev->a = cur_u64(&p);
		break;
	case REC_EV_THREAD_EXIT:
		ev->tid = cur_u32(&p);
		ev->a = cur_u64(&p);
		ev->b = cur_u64(&p);
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
		    !(v = rec_addrs_add(cur->frames, ev->a)))
			return rec_bad(rf, "a frame check is malformed");
		*v = FRAME_KNOWN | (ev->b ? FRAME_OK : 0);
		break;
	default:
		return rec_bad(rf, "an event of an unknown type");
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
