// SPDX-License-Identifier: GPL-2.0
/* One screen of `ispotctl top` as plain text; see topview.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"
#include "util/path.h"
#include "report/columns.h"
#include "report/names.h"
#include "report/report.h"
#include "top/topview.h"

/* Below this, FUNCTION makes the optional columns go. */
#define FUNCTION_MIN	16
/* Lines above the column titles: target, interval and keys, a blank. */
#define HEAD_LINES	3

enum col_id {
	COL_INTERF,
	COL_SCI,
	COL_LOSS,
	COL_CALLS,
	COL_P99,
	COL_CAUSE,
	COL_AUTO,
	COL_EXE,
	COL_FUNCTION,
	COL_OBJECT,
	NR_COLS,
};

static column_print_fn print_figure, print_name;

/* Width 0: FUNCTION, which takes what is left (layout_of()). */
static const struct column cols[NR_COLS] = {
	COLUMN(COL_INTERF, "INTERF", 7, false, 0, print_figure),
	COLUMN(COL_SCI, "SCI", 7, false, 0, print_figure),
	COLUMN(COL_LOSS, "LOSS/s", 9, false, 1, print_figure),
	COLUMN(COL_CALLS, "CALLS/s", 8, false, 2, print_figure),
	COLUMN(COL_P99, "P99", 8, false, 3, print_figure),
	COLUMN(COL_CAUSE, "CAUSE", 12, true, 4, print_name),
	/* ispotd --auto's picks, from --from's metrics: their wall share. */
	COLUMN(COL_AUTO, "AUTO", 6, false, 5, print_figure),
	COLUMN(COL_EXE, "EXE", 16, true, 6, print_name),
	COLUMN(COL_FUNCTION, "FUNCTION", 0, true, 0, print_name),
	COLUMN(COL_OBJECT, "OBJECT", 20, true, 7, print_name),
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

/* The figures over the interval; "-" where it has nothing to say. */
static void print_figure(const struct column *c, const void *row, char *buf,
			 size_t len)
{
	const struct rates_row *r = row;
	double v = c->id == COL_INTERF ? r->interference :
		   c->id == COL_AUTO ? r->pick_share :
		   c->id == COL_SCI ? r->sci : c->id == COL_LOSS ?
		   r->loss_per_s : c->id == COL_CALLS ? r->calls_per_s :
		   r->p99_ns;
	char tmp[32];

	if (c->id == COL_AUTO && !(v > 0))
		snprintf(buf, len, " ");	/* not picked: blank */
	else if (isnan(v))
		snprintf(buf, len, "-");
	else if (c->id == COL_SCI || c->id == COL_INTERF ||
		 c->id == COL_AUTO)
		report_format_pct(buf, len, v);
	else if (c->id == COL_LOSS)
		snprintf(buf, len, "%s/s", format_ns(tmp, sizeof(tmp), v));
	else if (c->id == COL_CALLS)
		format_count(buf, len, v);
	else
		format_ns(buf, len, v);
}

static void print_name(const struct column *c, const void *row, char *buf,
		       size_t len)
{
	const struct rates_row *r = row;

	if (c->id == COL_CAUSE && r->cause < 0)
		snprintf(buf, len, "-");
	else if (c->id == COL_CAUSE)
		snprintf(buf, len, "%s %.0f%%",
			 cause_names[r->cause].metric, r->cause_share * 100);
	else
		snprintf(buf, len, "%s", c->id == COL_EXE ? r->exe :
			 c->id == COL_FUNCTION ? r->function :
			 path_base(r->object));
}

/*
 * Fixed columns first; the optional ones go, highest drop first, while
 * FUNCTION would get less than FUNCTION_MIN; FUNCTION is as wide as its
 * longest name if OBJECT follows it, else it takes the rest.
 */
static void layout_of(struct columns *t, int usable, bool show_exe,
		      const struct rates_view *v, const char *const *names)
{
	int i, rest, longest = (int)strlen(cols[COL_FUNCTION].header);
	size_t r;

	columns_init(t, cols, NR_COLS, false, true);
	t->on[COL_EXE] = show_exe;
	/* Only where ispotd --auto picked what is shown. */
	t->on[COL_AUTO] = false;
	for (r = 0; r < v->nr_rows; r++)
		if (v->rows[r].pick_share > 0)
			t->on[COL_AUTO] = true;
	for (;;) {
		int drop = -1;

		rest = usable - columns_offset(t, NR_COLS) +
		       t->width[COL_FUNCTION] + COLUMN_GAP;
		if (rest >= FUNCTION_MIN)
			break;
		for (i = 0; i < NR_COLS; i++)
			if (t->on[i] && cols[i].drop &&
			    (drop < 0 || cols[i].drop > cols[drop].drop))
				drop = i;
		if (drop < 0)
			break;
		t->on[drop] = false;
	}
	for (r = 0; r < v->nr_rows; r++) {
		int n = strlen(names[r]);

		if (n > longest)
			longest = n;
	}
	t->width[COL_FUNCTION] = rest > 1 ? rest : 1;
	if (t->on[COL_OBJECT] && longest < t->width[COL_FUNCTION]) {
		t->width[COL_OBJECT] += t->width[COL_FUNCTION] - longest;
		t->width[COL_FUNCTION] = longest;
	}
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

/* Size @f for @width x @height (at least 2 x 1), its lines empty. */
static int frame_reset(struct topview_frame *f, int width, int height)
{
	int i;

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
	return 0;
}

/*
 * The rows' names as the report's table shows them (report.h): short C++
 * names unless two rows would read the same, or --wide.  NULL: no memory.
 */
static const char **row_names(const struct rates_view *v, bool wide,
			      struct report_labels *l)
{
	const char **names = calloc(v->nr_rows + 1, sizeof(*names));
	size_t r;

	for (r = 0; names && r < v->nr_rows; r++)
		names[r] = v->rows[r].function;
	if (names && !report_labels_make(l, names, v->nr_rows, wide))
		memcpy(names, l->label, v->nr_rows * sizeof(*names));
	return names;
}

/* The column titles, then a row per function while the height lasts. */
static int table_lines(struct topview_frame *f, const struct topview_head *h,
		       const struct rates_view *v)
{
	struct report_labels l = { 0 };
	const char **names = row_names(v, h->wide, &l);
	char text[COLUMNS_LINE_LEN];
	column_cell cell[NR_COLS];
	struct rates_row row;
	struct columns t;
	int line = HEAD_LINES;
	size_t r;

	if (!names)
		return -ENOMEM;
	f->header_line = line;
	layout_of(&t, f->width - 1, h->show_exe, v, names);
	columns_headers(&t, cell);
	put(f, line++, columns_line(&t, cell, text, sizeof(text)));
	if (!v->nr_rows && line < f->height)
		put(f, line++, "no probed call yet");
	for (r = 0; r < v->nr_rows && line < f->height; r++) {
		row = v->rows[r];
		row.function = names[r];
		columns_cells(&t, &row, cell);
		put(f, line++, columns_line(&t, cell, text, sizeof(text)));
	}
	f->nr_lines = line;
	report_labels_free(&l);
	free(names);
	return 0;
}

int topview_render(struct topview_frame *f, int width, int height,
		   const struct topview_head *h, const struct rates_view *v)
{
	if (frame_reset(f, width, height))
		return -ENOMEM;
	head_lines(f, h, v);
	if (h->status && f->height > 2)
		put(f, 2, h->status);
	if (f->height > HEAD_LINES)
		return table_lines(f, h, v);
	return 0;
}
