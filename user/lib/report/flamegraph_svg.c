// SPDX-License-Identifier: GPL-2.0
/* A flame graph's tree laid out and drawn as SVG; see flamegraph.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/xml.h"
#include "report/flamegraph.h"

#define TOP		34	/* the title's room */
#define SIDE		10
#define NOTE_HEIGHT	16
#define MAX_NOTES	6
#define NOTE_LEN	256
/* A monospace font: a label's width is its length times this. */
#define FONT		"font-family=\"monospace\" font-size=\"11\""
#define CHAR_PX		6.6
#define LABEL_MIN	4	/* fewer characters: no label */

struct flame_layout {
	const struct flame *fg;
	size_t *order;		/* every node but the root, callers first */
	double *x;		/* left edges, in weight from the root's */
	bool *drawn;
	double scale;		/* px per unit of weight */
	uint32_t levels;	/* depths 0..levels-1 are drawn */
	size_t rects, merged, shown_levels_cut;
	uint64_t merged_weight;
	char notes[MAX_NOTES][NOTE_LEN];
	int nr_notes;
};

/* By caller, then by name: a caller's callees are adjacent, in order. */
static int by_caller_name(const void *a, const void *b, void *ctx)
{
	const struct flame_node *n = ((const struct flame *)ctx)->nodes;
	const struct flame_node *x = &n[*(const size_t *)a];
	const struct flame_node *y = &n[*(const size_t *)b];

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Each node's left edge: its caller's, plus the weight of the callees of
 * that caller sorted before it.  A caller's index is below its callees'
 * (it was made first), so its edge is known when theirs are placed.
 */
static int layout_place(struct flame_layout *l)
{
	const struct flame *fg = l->fg;
	double *next = calloc(fg->nr, sizeof(*next));
	size_t i, c, p;

	if (!next)
		return -ENOMEM;
	for (i = 1; i < fg->nr; i++)
		l->order[i - 1] = i;
	/* next[c]: where c's next callee goes. */
	qsort_r(l->order, fg->nr - 1, sizeof(*l->order), by_caller_name,
		(void *)fg);
	l->drawn[0] = true;
	for (i = 0; i + 1 < fg->nr; i++) {
		c = l->order[i];
		p = fg->nodes[c].parent;
		l->x[c] = next[p];
		next[p] += (double)fg->nodes[c].weight;
		next[c] = l->x[c];
		l->drawn[c] = l->drawn[p] &&
			      fg->nodes[c].weight * l->scale >= FLAME_MIN_PX;
		if (l->drawn[p] && !l->drawn[c]) {
			l->merged++;
			l->merged_weight += fg->nodes[c].weight;
		}
	}
	free(next);
	return 0;
}

/* Whole levels from the root, at most FLAME_MAX_RECTS frames in all. */
static void layout_levels(struct flame_layout *l)
{
	size_t per_depth[FLAME_MAX_DEPTH + 1] = { 0 }, sum = 0, i;
	uint32_t d, deepest = 0;

	for (i = 0; i < l->fg->nr; i++) {
		if (!l->drawn[i])
			continue;
		per_depth[l->fg->nodes[i].depth]++;
		if (l->fg->nodes[i].depth > deepest)
			deepest = l->fg->nodes[i].depth;
	}
	for (d = 0; d <= deepest && sum + per_depth[d] <= FLAME_MAX_RECTS;
	     d++)
		sum += per_depth[d];
	l->levels = d;
	l->rects = sum;
	for (i = 0; d <= deepest && i < l->fg->nr; i++)
		if (l->drawn[i] && l->fg->nodes[i].depth >= d) {
			l->drawn[i] = false;
			l->shown_levels_cut++;
		}
}

static void layout_note(struct flame_layout *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void layout_note(struct flame_layout *l, const char *fmt, ...)
{
	va_list ap;

	if (l->nr_notes >= MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(l->notes[l->nr_notes++], NOTE_LEN, fmt, ap);
	va_end(ap);
}

/* What the picture says under it: how to read it, and what it bounded. */
static void layout_notes(struct flame_layout *l, const struct flame_style *st)
{
	const struct flame *fg = l->fg;
	double total = (double)fg->nodes[0].weight;

	layout_note(l, "Each box is a function, as wide as its share %s; "
		    "above it, the functions it called.  Hover over a box "
		    "for its name and figures.", st->of);
	if (fg->nodes[0].off)
		layout_note(l, "Warm colours: on CPU.  Blue: off CPU, "
			    "waiting; the top box says why ([off cpu: futex, "
			    "io, runq or sleep]).");
	if (l->merged)
		layout_note(l, "%zu frames narrower than %.0f px (%.1f%% in "
			    "all) are drawn as part of their caller.",
			    l->merged, FLAME_MIN_PX,
			    100.0 * (double)l->merged_weight / total);
	if (l->shown_levels_cut)
		layout_note(l, "Only the first %" PRIu32 " levels are drawn "
			    "(%d frames at most).", l->levels,
			    FLAME_MAX_RECTS);
	if (fg->cut_lines)
		layout_note(l, "%zu stacks were cut at %d frames (or at %d "
			    "in all): the rest is in the last frame kept.",
			    fg->cut_lines, FLAME_MAX_DEPTH, FLAME_MAX_NODES);
	if (fg->bad_lines)
		layout_note(l, "%zu lines were not folded stacks and were "
			    "skipped.", fg->bad_lines);
}

static int layout_make(struct flame_layout *l, const struct flame *fg,
		       const struct flame_style *st)
{
	memset(l, 0, sizeof(*l));
	l->fg = fg;
	l->order = calloc(fg->nr, sizeof(*l->order));
	l->x = calloc(fg->nr, sizeof(*l->x));
	l->drawn = calloc(fg->nr, sizeof(*l->drawn));
	if (!l->order || !l->x || !l->drawn)
		return -ENOMEM;
	l->scale = fg->nodes[0].weight ?
		   (FLAME_WIDTH - 2 * SIDE) / (double)fg->nodes[0].weight : 0;
	if (layout_place(l))
		return -ENOMEM;
	layout_levels(l);
	layout_notes(l, st);
	return 0;
}

static void layout_free(struct flame_layout *l)
{
	free(l->order);
	free(l->x);
	free(l->drawn);
}

/* FNV-1a: a name keeps its colour from one run and one graph to another. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* flamegraph.pl's palettes: "hot" on CPU, "blue" off it. */
static void frame_color(const struct flame_node *n, char *buf, size_t len)
{
	uint32_t h = name_hash(n->name);
	unsigned int v1 = h & 0xff, v2 = (h >> 8) & 0xff, v3 = (h >> 16) & 0xff;

	if (2 * n->off > n->weight)
		snprintf(buf, len, "rgb(%u,%u,%u)", 60 + 60 * v1 / 255,
			 110 + 70 * v2 / 255, 190 + 55 * v3 / 255);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 205 + 50 * v3 / 255,
			 230 * v1 / 255, 55 * v2 / 255);
}

/* The tooltip: the whole name, the weight, its share, off CPU if any. */
static void frame_title(FILE *f, const struct flame *fg,
			const struct flame_node *n,
			const struct flame_style *st)
{
	double total = (double)fg->nodes[0].weight;
	double w = (double)n->weight * (st->unit == FLAME_US ? 1000 : 1);
	char amount[32];

	fputs("<title>", f);
	xml_escape(f, n->name, 0);
	fprintf(f, "\n%s, %.2f%% %s", format_ns(amount, sizeof(amount), w),
		100.0 * (double)n->weight / total, st->of);
	if (fg->nodes[0].off)
		fprintf(f, ", %.0f%% of it off CPU",
			100.0 * (double)n->off / (double)n->weight);
	fputs("</title>", f);
}

static void frame_draw(FILE *f, const struct flame_layout *l, size_t i,
		       const struct flame_style *st)
{
	const struct flame_node *n = &l->fg->nodes[i];
	double x = SIDE + l->x[i] * l->scale, w = n->weight * l->scale;
	double y = TOP + (double)(l->levels - 1 - n->depth) *
		   FLAME_FRAME_HEIGHT;
	size_t fit = w > 6 ? (size_t)((w - 6) / CHAR_PX) : 0;
	char color[32];

	frame_color(n, color, sizeof(color));
	fputs("<g>", f);
	frame_title(f, l->fg, n, st);
	fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
		"height=\"%d\" fill=\"%s\" stroke=\"#ffffff\" "
		"stroke-width=\"0.5\"/>", x, y, w, FLAME_FRAME_HEIGHT - 1,
		color);
	if (fit >= LABEL_MIN) {
		fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" " FONT ">", x + 3,
			y + FLAME_FRAME_HEIGHT - 4.5);
		/* xml_escape() adds "..." after the cut: within @fit. */
		xml_escape(f, n->name, strlen(n->name) > fit ? fit - 3 : 0);
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
}

int flame_svg(FILE *f, const struct flame *fg, const struct flame_style *st)
{
	struct flame_layout l;
	double notes_top, height;
	size_t i;
	int k, ret;

	if (!fg->nodes[0].weight)
		return -EINVAL;
	ret = layout_make(&l, fg, st);
	if (ret) {
		layout_free(&l);
		return ret;
	}
	notes_top = TOP + (double)l.levels * FLAME_FRAME_HEIGHT + 8;
	height = notes_top + NOTE_HEIGHT * l.nr_notes + 4;
	fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	      "id=\"flame-", f);
	xml_escape(f, st->id, 0);
	fputs("\" data-flame=\"", f);
	xml_escape(f, st->id, 0);
	fprintf(f, "\" data-frames=\"%zu\" width=\"%d\" height=\"%.0f\" "
		"viewBox=\"0 0 %d %.0f\" role=\"img\">\n<title>", l.rects,
		FLAME_WIDTH, height, FLAME_WIDTH, height);
	xml_escape(f, st->title, 0);
	fprintf(f, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" "
		"height=\"%.0f\" fill=\"#ffffff\"/>\n<text x=\"%d\" y=\"22\" "
		"font-family=\"sans-serif\" font-size=\"15\" "
		"font-weight=\"bold\" text-anchor=\"middle\">", FLAME_WIDTH,
		height, FLAME_WIDTH / 2);
	xml_escape(f, st->title, 0);
	fputs("</text>\n", f);
	frame_draw(f, &l, 0, st);
	for (i = 0; i + 1 < fg->nr; i++)
		if (l.drawn[l.order[i]])
			frame_draw(f, &l, l.order[i], st);
	for (k = 0; k < l.nr_notes; k++) {
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" "
			"font-family=\"sans-serif\" font-size=\"12\">", SIDE,
			notes_top + NOTE_HEIGHT * (k + 1) - 4);
		xml_escape(f, l.notes[k], 0);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
	layout_free(&l);
	errno = 0;
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}
