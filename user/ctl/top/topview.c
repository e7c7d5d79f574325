// SPDX-License-Identifier: GPL-2.0
/* One screen of `ispotctl top` as plain text; see topview.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/path.h"
#include "report/report.h"
#include "top/topview.h"

#define CELL_LEN	64
/* Below this, FUNCTION makes the optional columns go. */
#define FUNCTION_MIN	16
#define COL_GAP		2
/* Lines above the column titles: target, interval and keys, a blank. */
#define HEAD_LINES	3

enum col_id {
	COL_SCI,
	COL_LOSS,
	COL_CALLS,
	COL_P99,
	COL_CAUSE,
	COL_EXE,
	COL_FUNCTION,
	COL_OBJECT,
	NR_COLS,
};

struct topview_col {
	const char *title;
	int width;		/* 0: FUNCTION, which takes what is left */
	bool left;		/* aligned left (names) or right (figures) */
	int drop;		/* 0: always shown, else highest goes first */
};

static const struct topview_col cols[NR_COLS] = {
	[COL_SCI]	= { "SCI", 7, false, 0 },
	[COL_LOSS]	= { "LOSS/s", 9, false, 1 },
	[COL_CALLS]	= { "CALLS/s", 8, false, 2 },
	[COL_P99]	= { "P99", 8, false, 3 },
	[COL_CAUSE]	= { "CAUSE", 12, true, 4 },
	[COL_EXE]	= { "EXE", 16, true, 5 },
	[COL_FUNCTION]	= { "FUNCTION", 0, true, 0 },
	[COL_OBJECT]	= { "OBJECT", 20, true, 6 },
};

/* Which columns are shown, and how wide, for this frame. */
struct layout {
	bool on[NR_COLS];
	int width[NR_COLS];
	int last;		/* the last column shown: not padded */
};

static char *line_at(struct topview_frame *f, int i)
{
	return f->text + (size_t)i * (f->width + 1);
}

const char *topview_line(const struct topview_frame *f, int i)
{
	return f->text + (size_t)i * (f->width + 1);
}

void topview_free(struct topview_frame *f)
{
	free(f->text);
	memset(f, 0, sizeof(*f));
}

/* Append @s to line @i, cut at the usable width, control bytes as '?'. */
static void put(struct topview_frame *f, int i, const char *s)
{
	char *l = line_at(f, i);
	size_t n = strlen(l), max = f->width - 1;

	for (; *s && n < max; s++)
		l[n++] = (unsigned char)*s < 0x20 ||
			 (unsigned char)*s >= 0x7f ? '?' : *s;
	l[n] = '\0';
}

static void put_cell(struct topview_frame *f, int i, const char *s, int width,
		     bool left, bool last)
{
	char cell[CELL_LEN * 4];
	int len = strlen(s);

	if (len > width) {
		/* Cut, and say so: the end of a name is often what differs. */
		snprintf(cell, sizeof(cell), "%.*s~", width - 1, s);
	} else if (last && left) {
		snprintf(cell, sizeof(cell), "%s", s);
	} else {
		snprintf(cell, sizeof(cell), left ? "%-*s" : "%*s", width, s);
	}
	put(f, i, cell);
	if (!last)
		put(f, i, "  ");
}

static void cells_of(const struct rates_row *row, char cell[][CELL_LEN * 4])
{
	char tmp[CELL_LEN];

	if (isnan(row->sci))
		snprintf(cell[COL_SCI], CELL_LEN, "-");
	else
		report_format_pct(cell[COL_SCI], CELL_LEN, row->sci);
	if (isnan(row->loss_per_s))
		snprintf(cell[COL_LOSS], CELL_LEN, "-");
	else
		snprintf(cell[COL_LOSS], CELL_LEN, "%s/s",
			 format_ns(tmp, sizeof(tmp), row->loss_per_s));
	if (isnan(row->calls_per_s))
		snprintf(cell[COL_CALLS], CELL_LEN, "-");
	else
		format_count(cell[COL_CALLS], CELL_LEN, row->calls_per_s);
	if (isnan(row->p99_ns))
		snprintf(cell[COL_P99], CELL_LEN, "-");
	else
		format_ns(cell[COL_P99], CELL_LEN, row->p99_ns);
	if (row->cause < 0)
		snprintf(cell[COL_CAUSE], CELL_LEN, "-");
	else
		snprintf(cell[COL_CAUSE], CELL_LEN, "%s %.0f%%",
			 cause_names[row->cause].metric,
			 row->cause_share * 100);
	snprintf(cell[COL_EXE], CELL_LEN * 4, "%s", row->exe);
	snprintf(cell[COL_FUNCTION], CELL_LEN * 4, "%s", row->function);
	snprintf(cell[COL_OBJECT], CELL_LEN * 4, "%s", path_base(row->object));
}

/*
 * Fixed columns first; the optional ones go, highest drop first, while
 * FUNCTION would get less than FUNCTION_MIN; FUNCTION is as wide as its
 * longest name if OBJECT follows it, else it takes the rest.
 */
static void layout_of(struct layout *lo, int usable, bool show_exe,
		      const struct rates_view *v)
{
	int i, fixed, longest = (int)strlen(cols[COL_FUNCTION].title);
	size_t r;

	for (i = 0; i < NR_COLS; i++) {
		lo->on[i] = i != COL_EXE || show_exe;
		lo->width[i] = cols[i].width;
	}
	for (;;) {
		int drop = -1;

		fixed = 0;
		for (i = 0; i < NR_COLS; i++)
			if (lo->on[i] && i != COL_FUNCTION)
				fixed += lo->width[i] + COL_GAP;
		if (usable - fixed >= FUNCTION_MIN)
			break;
		for (i = 0; i < NR_COLS; i++)
			if (lo->on[i] && cols[i].drop &&
			    (drop < 0 || cols[i].drop > cols[drop].drop))
				drop = i;
		if (drop < 0)
			break;
		lo->on[drop] = false;
	}
	for (r = 0; r < v->nr_rows; r++) {
		int n = strlen(v->rows[r].function);

		if (n > longest)
			longest = n;
	}
	lo->width[COL_FUNCTION] = usable - fixed > 1 ? usable - fixed : 1;
	if (lo->on[COL_OBJECT] && longest < lo->width[COL_FUNCTION]) {
		lo->width[COL_OBJECT] += lo->width[COL_FUNCTION] - longest;
		lo->width[COL_FUNCTION] = longest;
	}
	for (i = 0; i < NR_COLS; i++)
		if (lo->on[i])
			lo->last = i;
}

static void head_lines(struct topview_frame *f, const struct topview_head *h,
		       const struct rates_view *v)
{
	char buf[512], up[32], rate[32], drops[32], span[32];

	format_ns(up, sizeof(up), h->elapsed_ns);
	format_count(rate, sizeof(rate), v->events_per_s);
	format_count(drops, sizeof(drops), v->dropped);
	snprintf(buf, sizeof(buf), "ispotctl top: %s  up %s  %s events/s  "
		 "%s dropped", h->target, up, rate, drops);
	put(f, 0, buf);
	if (f->nr_lines < 2)
		return;
	if (v->span_ns > 0)
		snprintf(span, sizeof(span), "last %s",
			 format_ns(up, sizeof(up), v->span_ns));
	else
		snprintf(span, sizeof(span), "last %s: first refresh",
			 format_ns(up, sizeof(up), h->window_ns));
	snprintf(buf, sizeof(buf), "%s%s  sort: %s  [s]ort [p]ause [q]uit",
		 h->paused ? "PAUSED  " : "", span, rates_sort_names[h->sort]);
	put(f, 1, buf);
}

int topview_render(struct topview_frame *f, int width, int height,
		   const struct topview_head *h, const struct rates_view *v)
{
	char cell[NR_COLS][CELL_LEN * 4];
	struct layout lo = { .last = COL_FUNCTION };
	int i, line;
	size_t r;

	if (width < 2)
		width = 2;
	if (height < 1)
		height = 1;
	if (f->width != width || f->height != height || !f->text) {
		char *text = malloc((size_t)height * (width + 1));

		if (!text)
			return -ENOMEM;
		free(f->text);
		f->text = text;
		f->width = width;
		f->height = height;
	}
	for (i = 0; i < height; i++)
		line_at(f, i)[0] = '\0';
	f->nr_lines = height;
	f->header_line = -1;
	head_lines(f, h, v);
	if (h->status && height > 2)
		put(f, 2, h->status);
	if (height <= HEAD_LINES) {
		f->nr_lines = height;
		return 0;
	}
	line = HEAD_LINES;
	f->header_line = line;
	layout_of(&lo, width - 1, h->show_exe, v);
	for (i = 0; i < NR_COLS; i++)
		if (lo.on[i])
			put_cell(f, line, cols[i].title, lo.width[i],
				 cols[i].left, i == lo.last);
	line++;
	if (!v->nr_rows && line < height)
		put(f, line++, "no probed call yet");
	for (r = 0; r < v->nr_rows && line < height; r++, line++) {
		cells_of(&v->rows[r], cell);
		for (i = 0; i < NR_COLS; i++)
			if (lo.on[i])
				put_cell(f, line, cell[i], lo.width[i],
					 cols[i].left, i == lo.last);
	}
	f->nr_lines = line;
	return 0;
}
