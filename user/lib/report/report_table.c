// SPDX-License-Identifier: GPL-2.0
/*
 * The report's table (report.h): a row per function, its key rows and
 * the notes under them, for the text and, cell by cell, for the HTML
 * report (report_table_rows()).
 *
 * The table's columns are data (columns.h, as uftrace's display fields
 * are): every row is first laid out as cells, a measuring pass finds each
 * column's width and a second pass prints, so names of any length stay
 * aligned without storing the rows.
 */
#include <inttypes.h>
#include <string.h>

#include "elf/demangle.h"
#include "util/format.h"
#include "util/path.h"
#include "report/columns.h"
#include "report/names.h"
#include "report/report.h"
#include "report/report_internal.h"

/* A function name is not elided below this, whatever the width. */
#define NAME_MIN_WIDTH	24

enum report_col {
	COL_SCI,
	COL_INTERF,
	COL_LOSS,
	COL_CALLS,
	COL_THREADS,
	COL_MIN,
	COL_P50,
	COL_P99,
	COL_MAX,
	COL_WORST,
	COL_FUNCTION,
	COL_OBJECT,
	COL_CAUSES,
	NR_COLS,
};

/* A row of the table: a function's, or one of its keys'. */
struct report_line {
	const struct sci_result *res;
	const char *function;	/* the FUNCTION cell */
	const char *object;
};

static column_print_fn print_pct, print_count, print_ns, print_name,
		       print_causes;

/* Widths are measured, names are left, figures right. */
static const struct column columns[NR_COLS] = {
	COLUMN(COL_SCI, "SCI", 0, false, 0, print_pct),
	COLUMN(COL_INTERF, "INTERF", 0, false, 0, print_pct),
	COLUMN(COL_LOSS, "LOSS", 0, false, 0, print_ns),
	COLUMN(COL_CALLS, "CALLS", 0, false, 0, print_count),
	COLUMN(COL_THREADS, "THREADS", 0, false, 0, print_count),
	COLUMN(COL_MIN, "MIN", 0, false, 0, print_ns),
	COLUMN(COL_P50, "P50", 0, false, 0, print_ns),
	COLUMN(COL_P99, "P99", 0, false, 0, print_ns),
	COLUMN(COL_MAX, "MAX", 0, false, 0, print_ns),
	COLUMN(COL_WORST, "WORST@TID", 0, false, 0, print_pct),
	COLUMN(COL_FUNCTION, "FUNCTION", 0, true, 0, print_name),
	COLUMN(COL_OBJECT, "OBJECT", 0, true, 0, print_name),
	COLUMN(COL_CAUSES, "LOSS BY CAUSE", 0, true, 0, print_causes),
};

struct table {
	FILE *f;
	bool print;		/* false: only measure the widths */
	struct columns cols;
	int name_max;		/* longer FUNCTION cells are elided; 0: none */
	/* report_table_rows(): rows go to @emit, not to @f; no notes. */
	report_row_fn *emit;
	void *emit_ctx;
	enum report_row_kind kind;	/* of the row table_row() gets */
	const struct sci_result *res;	/* its figures, NULL for others */
};

char *report_format_pct(char *buf, size_t len, double ratio)
{
	double pct = report_finite_or_zero(ratio) * 100.0;

	/* Two decimals below 1% so a small but real score is not "0.0%". */
	if (pct == 0.0 || pct >= 0.995)
		snprintf(buf, len, "%.1f%%", pct);
	else if (pct >= 0.005)
		snprintf(buf, len, "%.2f%%", pct);
	else
		snprintf(buf, len, "<0.01%%");
	return buf;
}

/*
 * Shorten a name to max columns: a C++ parameter list goes first
 * ("ns::A::f(...)"), then the middle, keeping the scope it starts with
 * and the function it ends with.
 */
static void elide(char *s, size_t max)
{
	size_t len = strlen(s), bare, head;

	if (len <= max || max < 8)
		return;
	bare = demangle_bare_len(s);
	if (bare < len && bare + 5 <= max) {
		memcpy(s + bare, "(...)", 6);
		return;
	}
	head = (max - 3) / 2;
	memmove(s + head + 3, s + len - (max - 3 - head), max - 3 - head + 1);
	memcpy(s + head, "...", 3);
}

static void table_row(struct table *t, column_cell *cell)
{
	char line[COLUMNS_LINE_LEN];

	if (t->emit) {
		const char *text[NR_COLS];
		bool left[NR_COLS];
		int i;

		for (i = 0; i < NR_COLS; i++) {
			text[i] = cell[i];
			left[i] = columns[i].left;
		}
		t->emit(t->emit_ctx, t->kind, t->res, text, left, NR_COLS);
		return;
	}
	if (t->name_max)
		elide(cell[COL_FUNCTION], (size_t)t->name_max);
	if (t->print)
		fprintf(t->f, "%s\n", columns_line(&t->cols, cell, line,
						   sizeof(line)));
	else
		columns_measure(&t->cols, cell);
}

/*
 * "futex 91%, on-cpu 9%": the causes that make up at least 5% of the loss,
 * largest first; "?" is loss of executions that carried no causes.  Empty
 * when no execution carried causes (no wait tracing).
 *
 * A cause's part is negative when the slower executions spent less time
 * in it than the fastest one (sci.h, "Causes"): they blocked less, say,
 * and ran longer.  Shares of the loss would then add up to more than all
 * of it ("futex 137%, on-cpu 150%"), so they are shares of the parts
 * above the fastest execution, which add up to 100%, and the causes
 * below it are named after them: "on-cpu 94% (futex less than the
 * fastest call)".  The JSON keeps the signed parts.
 */
static void cause_cell(const struct sci_result *res, char *buf, size_t len)
{
	double part[NR_CAUSES], over = 0.0;
	bool done[NR_CAUSES] = { false };
	const char *sep = " (";
	size_t used = 0;
	int k, best;

	buf[0] = '\0';
	if (!res->caused_calls || !res->loss_ns)
		return;
	for (k = 0; k < SCI_NR_CAUSES; k++)
		part[k] = (double)res->cause_loss_ns[k];
	part[CAUSE_UNKNOWN] = (double)res->unknown_loss_ns;
	for (k = 0; k < NR_CAUSES; k++)
		if (part[k] > 0)
			over += part[k];
	for (;;) {
		best = -1;
		for (k = 0; k < NR_CAUSES; k++)
			if (!done[k] && (best < 0 || part[k] > part[best]))
				best = k;
		if (best < 0 || part[best] < 0.05 * over || used >= len)
			break;
		done[best] = true;
		used += snprintf(buf + used, len - used, "%s%s %.0f%%",
				 used ? ", " : "", cause_names[best].text,
				 part[best] / over * 100.0);
	}
	for (k = 0; k < SCI_NR_CAUSES && used < len; k++) {
		if (part[k] > -0.05 * over)
			continue;
		used += snprintf(buf + used, len - used, "%s%s", sep,
				 cause_names[k].text);
		sep = ", ";
	}
	if (sep[0] == ',' && used < len)
		snprintf(buf + used, len - used, " less than the fastest call)");
}

/* The cells of the figures, the same for a function and for its keys. */
static void print_pct(const struct column *c, const void *row, char *buf,
		      size_t len)
{
	const struct sci_result *res = ((const struct report_line *)row)->res;
	char pct[16];

	if (c->id == COL_SCI) {
		report_format_pct(buf, len, res->sci);
		return;
	}
	if (c->id == COL_INTERF) {
		report_interference_cell(res, buf, len);
		return;
	}
	report_format_pct(pct, sizeof(pct), res->sci_worst_thread);
	snprintf(buf, len, "%s@%" PRIu32, pct, res->worst_tid);
}

static void print_count(const struct column *c, const void *row, char *buf,
			size_t len)
{
	const struct sci_result *res = ((const struct report_line *)row)->res;

	snprintf(buf, len, "%" PRIu64,
		 c->id == COL_CALLS ? res->calls : (uint64_t)res->threads);
}

static void print_ns(const struct column *c, const void *row, char *buf,
		     size_t len)
{
	const struct sci_result *res = ((const struct report_line *)row)->res;
	const uint64_t ns[NR_COLS] = {
		[COL_LOSS] = res->loss_ns, [COL_MIN] = res->min_ns,
		[COL_P50] = res->p50_ns, [COL_P99] = res->p99_ns,
		[COL_MAX] = res->max_ns,
	};

	format_ns(buf, len, (double)ns[c->id]);
}

static void print_name(const struct column *c, const void *row, char *buf,
		       size_t len)
{
	const struct report_line *l = row;

	snprintf(buf, len, "%s", c->id == COL_FUNCTION ? l->function :
		 path_base(l->object));
}

static void print_causes(const struct column *c, const void *row, char *buf,
			 size_t len)
{
	(void)c;
	cause_cell(((const struct report_line *)row)->res, buf, len);
}

/* Up to REPORT_TEXT_KEYS key rows, in the engine's SCI order. */
static void key_rows(struct table *t, const struct report *r,
		     const struct sci_result *fn)
{
	const struct sci_report *sci = r->sci;
	char label[COLUMN_CELL_LEN - 2], name[COLUMN_CELL_LEN];
	column_cell cell[NR_COLS];
	size_t i, shown = 0;

	for (i = 0; i < sci->nr_blocks; i++) {
		const struct sci_result *b = &sci->blocks[i];

		if (b->func_id != fn->func_id)
			continue;
		if (shown++ == REPORT_TEXT_KEYS)
			break;
		report_key_name(r, b->func_id, b->key, label, sizeof(label));
		/* Indented by two under its function. */
		snprintf(name, sizeof(name), "  %s", label);
		columns_cells(&t->cols, &(struct report_line){ b, name, "" },
			      cell);
		t->kind = REPORT_ROW_KEY;
		t->res = b;
		table_row(t, cell);
	}
	if (fn->nr_keys > REPORT_TEXT_KEYS) {
		memset(cell, 0, sizeof(cell));
		snprintf(cell[COL_FUNCTION], COLUMN_CELL_LEN, "  (+%" PRIu32
			 " more keys, see --json)",
			 fn->nr_keys - REPORT_TEXT_KEYS);
		t->kind = REPORT_ROW_MORE;
		t->res = NULL;
		table_row(t, cell);
	}
}

/* The titles; without wait tracing there is nothing to say about causes. */
static void table_head(struct table *t, const struct report *r, size_t rows)
{
	column_cell cell[NR_COLS];
	size_t i;

	columns_headers(&t->cols, cell);
	cell[COL_CAUSES][0] = '\0';
	for (i = 0; i < rows; i++)
		if (r->sci->funcs[i].caused_calls)
			snprintf(cell[COL_CAUSES], COLUMN_CELL_LEN, "%s",
				 columns[COL_CAUSES].header);
	t->kind = REPORT_ROW_HEAD;
	t->res = NULL;
	table_row(t, cell);
}

void report_function_notes(FILE *f, const struct report *r,
			   const struct sci_result *fn, int indent)
{
	if (report_func_shape_note(r, fn->func_id))
		report_wrap(f, r, indent, "note: ",
			    report_func_shape_note(r, fn->func_id));
	report_interference_text(f, r, fn, indent);
	report_workload_text(f, r, fn, indent);
	report_stacks_text(f, r, fn, indent);
}

/* A function's row; in the printing pass, the notes that hang under it. */
static void function_row(struct table *t, const struct report *r,
			 const struct sci_result *fn)
{
	const char *key = report_func_key(r, fn->func_id);
	char name[REPORT_NAME_LEN], label[COLUMN_CELL_LEN];
	column_cell cell[NR_COLS];
	int indent;

	snprintf(label, sizeof(label),
		 report_func_key_auto(r, fn->func_id) ? "%s [%s (auto)]" :
		 key[0] ? "%s [%s]" : "%s",
		 report_func_name(r, fn->func_id, name, sizeof(name)),
		 key[0] ? key : "none");
	columns_cells(&t->cols, &(struct report_line){
		fn, label, report_func_object(r, fn->func_id) }, cell);
	t->kind = REPORT_ROW_FUNCTION;
	t->res = fn;
	table_row(t, cell);
	/* One key is the function itself: nothing to break down. */
	if (key[0] && fn->nr_keys > 1)
		key_rows(t, r, fn);
	if (!t->print)
		return;
	/* Under the FUNCTION column. */
	indent = columns_offset(&t->cols, COL_FUNCTION) + 2;
	report_function_notes(t->f, r, fn, indent);
}

static void table_walk(struct table *t, const struct report *r, size_t rows)
{
	size_t i;

	table_head(t, r, rows);
	for (i = 0; i < rows; i++)
		function_row(t, r, &r->sci->funcs[i]);
}

/*
 * After the measuring pass: narrow FUNCTION so that the columns up to
 * OBJECT fit in limit.  The causes after them are short and may wrap.
 */
static void fit_names(struct table *t, int limit)
{
	int *width = t->cols.width, used, room;

	if (!limit)
		return;
	used = columns_offset(&t->cols, COL_OBJECT) + width[COL_OBJECT];
	if (used <= limit)
		return;
	room = width[COL_FUNCTION] - (used - limit);
	if (room < NAME_MIN_WIDTH)
		room = NAME_MIN_WIDTH;
	if (room < width[COL_FUNCTION]) {
		t->name_max = room;
		width[COL_FUNCTION] = room;
	}
}

void report_table_text(FILE *f, const struct report *r, size_t rows,
		       int width)
{
	struct table t = { .f = f };

	columns_init(&t.cols, columns, NR_COLS, true, false);
	table_walk(&t, r, rows);
	fit_names(&t, width);
	t.print = true;
	table_walk(&t, r, rows);
}

void report_table_rows(const struct report *r, size_t max_rows,
		       report_row_fn *emit, void *ctx)
{
	struct report view = *r;
	struct report_labels l;
	struct table t = { .emit = emit, .emit_ctx = ctx };
	size_t rows = report_nr_results(r);

	if (max_rows && max_rows < rows)
		rows = max_rows;
	if (!rows)
		return;
	report_text_labels(r, &l);
	view.labels = l.label;
	columns_init(&t.cols, columns, NR_COLS, true, false);
	table_walk(&t, &view, rows);
	report_labels_free(&l);
}
