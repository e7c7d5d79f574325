// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's tables, decoded (the format in Documentation/recording.rst):
 * META, FUNCS, PROBES, STATS, START and THREADS into the recording_file,
 * NAMES through recording_names.c, PROFILE and UNLOADED through
 * recording_profile.c.
 * Each is read to its exact length, every count bounded, every string by
 * what is left: a table that is not is "malformed", and the file
 * refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recording/recording.h"
#include "recording/recording_format.h"
#include "recording/recording_read.h"

/* The META section's counters: what the module answered for each. */
static void get_counters(struct rec_cur *c, struct recording_file *rf)
{
	struct session_summary *s = &rf->sum;
	struct recording_meta *m = &rf->meta;
	uint32_t i, j;

	s->nr_counters = cur_count(c, ISPOT_MAX_COUNTERS, 11);
	for (i = 0; i < s->nr_counters; i++) {
		struct report_counter *rc = &s->counters[i];

		cur_str(c, m->counter_names[i], sizeof(m->counter_names[i]));
		rc->name = m->counter_names[i];
		rc->supported = cur_u8(c);
		rc->hardware = cur_u8(c);
		rc->time = cur_u8(c);
		rc->slot = (int32_t)cur_u32(c);
		if (rc->slot < -1 || rc->slot >= ISPOT_MAX_COUNTERS)
			c->bad = true;
	}
	/*
	 * ispotctl counts a counter asked twice once, so no file of its
	 * names one twice; the reports' JSON keys counters by name.
	 */
	for (i = 0; i < s->nr_counters; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(s->counters[i].name, s->counters[j].name))
				c->bad = true;
}

/* The integers and strings of @fs, in their order, into @rf. */
static void cur_fields(struct rec_cur *c, struct recording_file *rf,
		       const struct rec_fields *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		const struct rec_field *f = &fs->f[i];

		if (f->kind == REC_STR)
			cur_str(c, (char *)rf + f->off, f->size);
		else
			rec_field_set(rf, f, cur_uint(c, f->bytes));
	}
}

static void get_meta(struct rec_cur *c, struct recording_file *rf)
{
	struct recording_meta *m = &rf->meta;
	uint32_t i;

	cur_fields(c, rf, &rec_meta_fields);
	get_counters(c, rf);
	m->args = cur_table(c, RECORDING_MAX_ARGS, 4, sizeof(*m->args),
			    &m->nr_args);
	for (i = 0; i < m->nr_args && !c->bad; i++)
		m->args[i] = cur_strdup(c);
	if (rf->sum.mode != MODE_ATTACH && rf->sum.mode != MODE_RUN)
		c->bad = true;
}

void cur_sym(struct rec_cur *c, struct elf_target_sym *sym)
{
	char id[REC_BUILD_ID_MAX];

	cur_str(c, sym->name, sizeof(sym->name));
	cur_str(c, sym->linkage_name, sizeof(sym->linkage_name));
	cur_str(c, sym->obj, sizeof(sym->obj));
	cur_str(c, id, sizeof(id));	/* kept for people */
	sym->vaddr = cur_u64(c);
	sym->offset = cur_u64(c);
	sym->size = cur_u64(c);
	sym->flags = cur_u32(c);
}

static void get_funcs(struct rec_cur *c, struct recording_file *rf)
{
	uint8_t is_block;
	uint32_t i;

	rf->funcs = cur_table(c, RECORDING_MAX_FUNCS, 54, sizeof(*rf->funcs),
			      &rf->nr_funcs);
	for (i = 0; i < rf->nr_funcs && !c->bad; i++) {
		struct trace_func *f = &rf->funcs[i];

		cur_sym(c, &f->sym);
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
	uint32_t i;

	rf->probes = cur_table(c, RECORDING_MAX_PROBES, 10,
			       sizeof(*rf->probes), &rf->nr_probes);
	for (i = 0; i < rf->nr_probes && !c->bad; i++) {
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

static void get_stats(struct rec_cur *c, struct recording_file *rf)
{
	cur_fields(c, rf, &rec_stats_fields);
	if (rf->sum.t_end < rf->sum.t_enable)
		c->bad = true;
}

/*
 * THREADS (4.1): tid -> name.  Its count is bounded by the bytes left (8
 * a thread at least: its tid and its name's length) and THREAD_NAMES_MAX,
 * each name by a comm's length; a tid given twice keeps its last name.
 */
static void get_threads(struct rec_cur *c, struct recording_file *rf)
{
	char name[THREAD_NAME_LEN];
	uint32_t i, n = cur_count(c, THREAD_NAMES_MAX, 8), tid;

	for (i = 0; i < n && !c->bad; i++) {
		tid = cur_u32(c);
		cur_str(c, name, sizeof(name));
		if (!c->bad && thread_names_set(&rf->threads, tid, name))
			c->bad = true;
	}
}

/* START (2.1): kept apart, as STATS gives the same time when it is there. */
static void get_start(struct rec_cur *c, struct recording_file *rf)
{
	rf->start_ns = cur_u64(c);
}

/* The table sections: what a message calls each, how it is decoded. */
static const struct {
	const char *name;
	void (*get)(struct rec_cur *c, struct recording_file *rf);
} tables[] = {
	[REC_SEC_META] = { "its session section", get_meta },
	[REC_SEC_FUNCS] = { "its function table", get_funcs },
	[REC_SEC_PROBES] = { "its probe table", get_probes },
	[REC_SEC_NAMES] = { "its address names", rec_get_names },
	[REC_SEC_MAPS] = { "its maps", NULL },	/* kept for people */
	[REC_SEC_STATS] = { "its statistics", get_stats },
	[REC_SEC_START] = { "its start section", get_start },
	[REC_SEC_PROFILE] = { "its --auto profile", rec_get_profile },
	[REC_SEC_THREADS] = { "its thread names", get_threads },
	[REC_SEC_UNLOADED] = { "its list of unloaded picks",
			       rec_get_unloaded },
};

int rec_table(struct recording_file *rf, uint32_t type,
	      const unsigned char *p, uint64_t len, unsigned int *seen)
{
	struct rec_cur c = { .p = p, .left = len };

	if (*seen & (1u << type))
		return rec_bad(rf, "a section appears twice");
	*seen |= 1u << type;
	rf->table_bytes[type] = len;
	/*
	 * The function table comes first: probes refer to it.  Not seen
	 * when its head was damaged (passed over to the probes' head):
	 * then say that.
	 */
	if (type == REC_SEC_PROBES && !(*seen & (1u << REC_SEC_FUNCS)))
		return rec_bad(rf, rf->lost ? "a table section is damaged" :
			       "probes before functions");
	/* So does the profile: the unloaded picks are its picks' indexes. */
	if (type == REC_SEC_UNLOADED && !(*seen & (1u << REC_SEC_PROFILE)))
		return rec_bad(rf, rf->lost ? "a table section is damaged" :
			       "unloaded picks with no profile before them");
	if (!tables[type].get)
		return 0;	/* no report reads it */
	tables[type].get(&c, rf);
	if (c.bad || c.left) {
		char what[64];

		snprintf(what, sizeof(what), "%s is malformed",
			 tables[type].name);
		return rec_bad(rf, what);
	}
	return 0;
}
