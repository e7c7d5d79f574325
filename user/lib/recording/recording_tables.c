// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's sections other than its events, written
 * (recording_write.h; the layout in Documentation/recording.rst): the
 * session (META), what it traced (FUNCS, PROBES), when it began (START),
 * the target's maps (MAPS) and how it ended (STATS); the names of the
 * addresses its records carry (NAMES) are recording_names.c's, --auto's
 * profile (PROFILE, UNLOADED) recording_profile.c's.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <ispot_version.h>

#include "recording/recording_format.h"
#include "recording/recording_write.h"
#include "util/array.h"

void buf_put(struct rec_buf *b, const void *data, size_t len)
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

void buf_uint(struct rec_buf *b, uint64_t v, unsigned int bytes)
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

void buf_str(struct rec_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	buf_u32(b, n);
	buf_put(b, s, n);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void rec_image(const struct rec_tables *w, bool full, uint64_t max_size,
	       uint64_t last_ts, uint64_t records)
{
	const struct session_summary *s = w->s;
	struct recording_file *img = w->img;
	struct recording_meta *m = &img->meta;
	struct utsname u;
	uint64_t since;

	memset(img, 0, sizeof(*img));
	img->sum = *s;
	img->sum.rec_full = full;
	img->sum.rec_full_size = max_size;
	img->sum.rec_full_ts = last_ts;
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
	m->max_size = max_size;
	m->records = records;
}

/* @fs's integers and strings, in their order, from @w->img. */
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
	buf_u32(b, w->argc);
	for (i = 0; i < (size_t)w->argc; i++)
		buf_str(b, w->argv[i]);
}

void buf_sym(struct rec_buf *b, const struct elf_target_sym *sym)
{
	char id[REC_BUILD_ID_MAX];

	if (elf_build_id(sym->obj, id, sizeof(id)))
		id[0] = '\0';
	buf_str(b, sym->name);
	buf_str(b, sym->linkage_name);
	buf_str(b, sym->obj);
	buf_str(b, id);
	buf_u64(b, sym->vaddr);
	buf_u64(b, sym->offset);
	buf_u64(b, sym->size);
	buf_u32(b, sym->flags);
}

static void put_funcs(struct rec_buf *b, const struct rec_tables *w)
{
	size_t i;

	buf_u32(b, w->tb->nr_funcs);
	for (i = 0; i < w->tb->nr_funcs; i++) {
		const struct trace_func *f = &w->tb->funcs[i];

		buf_sym(b, &f->sym);
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

/* 4.1: u32 count, then each thread's u32 tid and name (a string). */
static void put_threads(struct rec_buf *b, const struct rec_tables *w)
{
	const struct thread_names *tn = w->tb->threads;
	size_t i, n = tn ? tn->n : 0;

	buf_u32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		buf_u32(b, tn->v[i].tid);
		buf_str(b, tn->v[i].name);
	}
}

/* When tracing began: what a file cut short before its STATS times from. */
static void put_start(struct rec_buf *b, const struct rec_tables *w)
{
	buf_u64(b, w->s->t_enable);
}

void rec_put_table(struct rec_buf *b, uint32_t type,
		   const struct rec_tables *w)
{
	static void (*const put[])(struct rec_buf *b,
				   const struct rec_tables *w) = {
		[REC_SEC_META] = put_meta,
		[REC_SEC_FUNCS] = put_funcs,
		[REC_SEC_PROBES] = put_probes,
		[REC_SEC_NAMES] = rec_put_names,
		[REC_SEC_MAPS] = put_maps,
		[REC_SEC_STATS] = put_stats,
		[REC_SEC_START] = put_start,
		[REC_SEC_PROFILE] = rec_put_profile,
		[REC_SEC_THREADS] = put_threads,
		[REC_SEC_UNLOADED] = rec_put_unloaded,
	};

	put[type](b, w);
}
