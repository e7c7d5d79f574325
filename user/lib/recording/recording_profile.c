// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's PROFILE section (format 3.1): what `record --auto` picked
 * its functions from, so that `report FILE` gives the JSON's "auto"
 * object, the HTML report's wall-time flame graph and --wall-folded as
 * the live report did; and its UNLOADED section (6.1), which of the
 * picks are of a library unloaded during the sampling.  The layout is in
 * Documentation/recording.rst; the reader holds it to the bounds of a
 * hostile file.
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

static int cmp_us_down(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? 1 : a > b ? -1 : 0;
}

/*
 * The time of the RECORDING_MAX_STACKS-th heaviest line of @w, under which
 * lines are left out (0: all are kept; UINT64_MAX: out of memory, none).
 */
static uint64_t stacks_cut(const struct wall_lines *w)
{
	uint64_t *us, cut;
	size_t i;

	if (w->nr <= RECORDING_MAX_STACKS)
		return 0;
	us = malloc(w->nr * sizeof(*us));
	if (!us)
		return UINT64_MAX;
	for (i = 0; i < w->nr; i++)
		us[i] = w->lines[i].us;
	qsort(us, w->nr, sizeof(*us), cmp_us_down);
	cut = us[RECORDING_MAX_STACKS - 1];
	free(us);
	return cut;
}

/*
 * The folded lines, at most RECORDING_MAX_STACKS of them, the heaviest,
 * in their order (the reader's bound; a profile of a million distinct
 * stacks keeps its million heaviest).
 */
static void put_stacks(struct rec_buf *b, const struct wall_lines *w)
{
	uint64_t cut = stacks_cut(w);
	size_t i, n = 0, at_cut;

	/* Lines above the cut, then as many at it as the bound leaves. */
	for (i = 0; i < w->nr; i++)
		n += !cut || w->lines[i].us > cut;
	at_cut = cut && cut != UINT64_MAX ? RECORDING_MAX_STACKS - n : 0;
	buf_u32(b, n + at_cut);
	for (i = 0; i < w->nr; i++) {
		const struct wall_line *l = &w->lines[i];

		if (cut && l->us < cut)
			continue;
		if (cut && l->us == cut) {
			if (!at_cut)
				continue;
			at_cut--;
		}
		buf_str(b, l->stack);
		buf_u64(b, l->us);
	}
}

/* The picks PROFILE holds: heaviest first, so the bound keeps those. */
static size_t picks_kept(const struct autopick *a)
{
	return a->nr < RECORDING_MAX_PICKS ? a->nr : RECORDING_MAX_PICKS;
}

void rec_put_profile(struct rec_buf *b, const struct rec_tables *w)
{
	const struct autopick *a = w->tb->picked;
	size_t i, nr;

	/* Always there in 3.1: a reader can tell "none" from "lost". */
	buf_u8(b, !!a);
	if (!a)
		return;
	nr = picks_kept(a);
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
	buf_u32(b, nr);
	for (i = 0; i < nr; i++) {
		const struct autopick_func *f = &a->funcs[i];

		buf_sym(b, &f->sym);
		buf_u64(b, f->samples);
		put_kinds(b, f->off_ns);
		buf_str(b, f->partner);
		buf_u8(b, f->waits);
		buf_u64(b, f->wall_ns);
	}
	put_stacks(b, &a->wall);
}

size_t rec_unloaded_picks(const struct autopick *a)
{
	size_t i, n = 0;

	for (i = 0; a && i < picks_kept(a); i++)
		n += a->funcs[i].unloaded;
	return n;
}

/*
 * UNLOADED (6.1): u32 n, then the index of each pick PROFILE holds whose
 * library was unloaded during the sampling, rising.  Not a field of
 * PROFILE's picks: a 3.1 to 6.0 reader reads PROFILE to its exact end
 * and takes its flags for 0 or 1 only, but skips a section it does not
 * know.
 */
void rec_put_unloaded(struct rec_buf *b, const struct rec_tables *w)
{
	const struct autopick *a = w->tb->picked;
	size_t i;

	buf_u32(b, rec_unloaded_picks(a));
	for (i = 0; a && i < picks_kept(a); i++)
		if (a->funcs[i].unloaded)
			buf_u32(b, i);
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

		l->stack = cur_strdup_max(c, WALL_FOLDED_MAX - 1);
		l->us = cur_u64(c);
		if (!l->stack || !l->stack[0] || strchr(l->stack, '\n') ||
		    (i && strcmp(w->lines[i - 1].stack, l->stack) >= 0))
			c->bad = true;
	}
}

void rec_get_profile(struct rec_cur *c, struct recording_file *rf)
{
	struct autopick *a;
	uint32_t n;

	/* 0: the session took no profile (no --auto). */
	if (!get_bool(c))
		return;
	a = calloc(1, sizeof(*a));
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

/*
 * The picks UNLOADED names, marked.  rec_table() read PROFILE first; a
 * profile of none has no picks to mark.  The writer leaves the section
 * out rather than write none, and writes each index once, rising: an
 * index past the picks, repeated or out of order, or a count past the
 * picks or of none, is another writer's, and malformed.
 */
void rec_get_unloaded(struct rec_cur *c, struct recording_file *rf)
{
	struct autopick *a = rf->picked;
	uint32_t n, i, at, next = 0;

	if (!a) {
		c->bad = true;
		return;
	}
	n = cur_count(c, a->nr, 4);
	if (!n)
		c->bad = true;
	for (i = 0; i < n && !c->bad; i++) {
		at = cur_u32(c);
		if (c->bad || at < next || at >= a->nr) {
			c->bad = true;
			return;
		}
		a->funcs[at].unloaded = true;
		next = at + 1;
	}
}

void rec_profile_free(struct recording_file *rf)
{
	if (rf->picked)
		autopick_free(rf->picked);
	free(rf->picked);
	rf->picked = NULL;
}
