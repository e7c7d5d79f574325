// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's PROFILE section (format 3.1): what `record --auto` picked
 * its functions from, so that `report FILE` gives the JSON's "auto"
 * object, the HTML report's wall-time flame graph and --wall-folded as
 * the live report did.  The layout is in Documentation/recording.rst;
 * the reader holds it to the bounds of a hostile file.
 */
#include <stdlib.h>
#include <string.h>

#include "recording/recording_read.h"
#include "recording/recording_write.h"
#include "trace/autopick.h"

/* A pick's least bytes: a function (buf_sym()), its figures, a partner. */
#define PICK_MIN_BYTES	(4 * 4 + 3 * 8 + 4 + 8 + 8 * WALL_NR_KINDS + 4 + 1 + 8)
#define STACK_MIN_BYTES	(4 + 8)

static void put_kinds(struct rec_buf *b, const uint64_t *ns)
{
	int k;

	for (k = 0; k < WALL_NR_KINDS; k++)
		buf_u64(b, ns[k]);
}

void rec_put_profile(struct rec_buf *b, const struct rec_tables *w)
{
	const struct autopick *a = w->tb->picked;
	size_t i;

	buf_u64(b, a->duration_ns);
	buf_u64(b, a->samples);
	buf_u64(b, a->unprobeable);
	buf_u32(b, a->top);
	buf_u8(b, a->offcpu);
	buf_str(b, a->offcpu_note);
	buf_u32(b, WALL_NR_KINDS);
	put_kinds(b, a->off_ns);
	buf_u64(b, a->off_unnamed_ns);
	buf_u64(b, a->off_stacks);
	buf_u64(b, a->wall_ns);
	buf_u32(b, a->nr);
	for (i = 0; i < a->nr; i++) {
		const struct autopick_func *f = &a->funcs[i];

		buf_sym(b, &f->sym);
		buf_u64(b, f->samples);
		put_kinds(b, f->off_ns);
		buf_str(b, f->partner);
		buf_u8(b, f->waits);
		buf_u64(b, f->wall_ns);
	}
	buf_u32(b, a->wall.nr);
	for (i = 0; i < a->wall.nr; i++) {
		buf_str(b, a->wall.lines[i].stack);
		buf_u64(b, a->wall.lines[i].us);
	}
}

static void get_kinds(struct rec_cur *c, uint64_t *ns)
{
	int k;

	for (k = 0; k < WALL_NR_KINDS; k++)
		ns[k] = cur_u64(c);
}

static uint8_t get_bool(struct rec_cur *c)
{
	uint8_t v = cur_u8(c);

	if (v > 1)
		c->bad = true;
	return v;
}

static void get_pick(struct rec_cur *c, struct autopick_func *f)
{
	cur_sym(c, &f->sym);
	f->samples = cur_u64(c);
	get_kinds(c, f->off_ns);
	cur_str(c, f->partner, sizeof(f->partner));
	f->waits = get_bool(c);
	f->wall_ns = cur_u64(c);
	if (!f->sym.name[0])
		c->bad = true;
}

/*
 * The folded lines: each a stack as the live profile makes them (shorter
 * than WALL_FOLDED_MAX, one line: no newline), in strictly rising order,
 * as wall_folded_build() sorts them.
 */
static void get_stacks(struct rec_cur *c, struct wall_lines *w)
{
	uint32_t n, i;

	w->lines = cur_table(c, RECORDING_MAX_STACKS, STACK_MIN_BYTES,
			     sizeof(*w->lines), &n);
	w->nr = w->cap = n;
	for (i = 0; i < n && !c->bad; i++) {
		struct wall_line *l = &w->lines[i];

		l->stack = cur_strdup(c);
		l->us = cur_u64(c);
		if (!l->stack || !l->stack[0] ||
		    strlen(l->stack) >= WALL_FOLDED_MAX ||
		    strchr(l->stack, '\n') ||
		    (i && strcmp(w->lines[i - 1].stack, l->stack) >= 0))
			c->bad = true;
	}
}

void rec_get_profile(struct rec_cur *c, struct recording_file *rf)
{
	struct autopick *a = calloc(1, sizeof(*a));
	uint32_t n;

	rf->picked = a;
	if (!a) {
		c->bad = true;
		return;
	}
	a->duration_ns = cur_u64(c);
	a->samples = cur_u64(c);
	a->unprobeable = cur_u64(c);
	a->top = cur_u32(c);
	a->offcpu = get_bool(c);
	cur_str(c, a->offcpu_note, sizeof(a->offcpu_note));
	/* Another count of kinds is another writer's: not this reader's. */
	if (cur_u32(c) != WALL_NR_KINDS)
		c->bad = true;
	get_kinds(c, a->off_ns);
	a->off_unnamed_ns = cur_u64(c);
	a->off_stacks = cur_u64(c);
	a->wall_ns = cur_u64(c);
	a->funcs = cur_table(c, RECORDING_MAX_PICKS, PICK_MIN_BYTES,
			     sizeof(*a->funcs), &n);
	a->nr = n;
	for (n = 0; n < a->nr && !c->bad; n++)
		get_pick(c, &a->funcs[n]);
	if (!c->bad)
		get_stacks(c, &a->wall);
	if (a->unprobeable > a->samples)
		c->bad = true;
}

void rec_profile_free(struct recording_file *rf)
{
	if (rf->picked)
		autopick_free(rf->picked);
	free(rf->picked);
	rf->picked = NULL;
}
