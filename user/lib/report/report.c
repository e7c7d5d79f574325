// SPDX-License-Identifier: GPL-2.0
/*
 * The report printers; see report.h.
 *
 * The table's columns are data (columns.h, as uftrace's display fields
 * are): every row is first laid out as cells, a measuring pass finds each
 * column's width and a second pass prints, so names of any length stay
 * aligned without storing the rows.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "elf/demangle.h"
#include "trace/device.h"
#include "util/format.h"
#include "util/json.h"
#include "util/path.h"
#include "report/columns.h"
#include "report/names.h"
#include "report/report.h"

#define NAME_LEN	64
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

/* ---- naming what the engine numbers ---- */

static const struct report_func *func_of(const struct report *r, uint32_t id)
{
	if (r->funcs && id < r->nr_funcs && r->funcs[id].name)
		return &r->funcs[id];
	return NULL;
}

/* The note under a function's rows about its shapes, NULL if none. */
static const char *func_shape_note(const struct report *r, uint32_t id)
{
	const struct report_func *fn = func_of(r, id);

	return fn ? fn->shape_note : NULL;
}

/* An id the caller did not name still gets a stable, greppable label. */
static const char *func_name(const struct report *r, uint32_t id, char *buf,
			     size_t len)
{
	const struct report_func *fn = func_of(r, id);

	if (fn && r->labels && r->labels[id])
		return r->labels[id];
	if (fn)
		return fn->name;
	snprintf(buf, len, "func#%" PRIu32, id);
	return buf;
}

static const char *func_linkage_name(const struct report *r, uint32_t id,
				     const char *name)
{
	const struct report_func *fn = func_of(r, id);

	return fn && fn->linkage_name && fn->linkage_name[0] ?
	       fn->linkage_name : name;
}

static const char *func_object(const struct report *r, uint32_t id)
{
	const struct report_func *fn = func_of(r, id);

	return fn && fn->object ? fn->object : "";
}

static const char *func_key(const struct report *r, uint32_t id)
{
	const struct report_func *fn = func_of(r, id);

	return fn && fn->key ? fn->key : "";
}

static bool func_key_auto(const struct report *r, uint32_t id)
{
	const struct report_func *fn = func_of(r, id);

	return fn && fn->key_auto;
}

static void key_label(const struct report *r, uint32_t id, uint64_t key,
		      char *buf, size_t len)
{
	if (!r->key_name || r->key_name(r->key_ctx, id, key, buf, len) < 0)
		snprintf(buf, len, "0x%" PRIx64, key);
}

const char *report_func_name(const struct report *r, uint32_t id,
			     char *buf, size_t len)
{
	return func_name(r, id, buf, len);
}

void report_key_name(const struct report *r, uint32_t id, uint64_t key,
		     char *buf, size_t len)
{
	key_label(r, id, key, buf, len);
}

static double share(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* JSON numbers have no NaN or infinity, and a consumer wants a number. */
static double finite_or_zero(double v)
{
	return isfinite(v) ? v : 0.0;
}

static uint64_t rounded(double v)
{
	return isfinite(v) && v > 0 ? (uint64_t)(v + 0.5) : 0;
}

static size_t nr_results(const struct report *r)
{
	return r->sci ? r->sci->nr_funcs : 0;
}

/* Declared function ids, for "N of M probed functions were called". */
static size_t nr_declared(const struct report *r)
{
	size_t i, n = 0;

	for (i = 0; r->funcs && i < r->nr_funcs; i++)
		n += r->funcs[i].name != NULL;
	return n;
}

static int stream_status(FILE *f)
{
	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	return errno ? -errno : -EIO;
}

/* ---- warnings ---- */

static bool above_threshold(uint64_t part, uint64_t total)
{
	return total && (double)part > REPORT_WARN_RATIO * (double)total;
}

size_t report_warnings(const struct report *r,
		       char (*out)[REPORT_WARNING_LEN], size_t max)
{
	uint64_t total = r->recorded + r->dropped;
	size_t n = 0;

	if (n < max && above_threshold(r->dropped, total))
		snprintf(out[n++], REPORT_WARNING_LEN,
			 "%.1f%% of events were dropped (%" PRIu64 " of %"
			 PRIu64 "), so scores miss those calls: use "
			 "--ring-size to enlarge the rings or --sample N",
			 share(r->dropped, total), r->dropped, total);
	if (n < max && above_threshold(r->unpaired, total))
		snprintf(out[n++], REPORT_WARNING_LEN,
			 "%.1f%% of events were unpaired (%" PRIu64 " of %"
			 PRIu64 "): functions left by longjmp/exceptions, or "
			 "a trace that started inside a call",
			 share(r->unpaired, total), r->unpaired, total);
	return n;
}

/* ---- the table ---- */

char *report_format_pct(char *buf, size_t len, double ratio)
{
	double pct = finite_or_zero(ratio) * 100.0;

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
 */
static void cause_cell(const struct sci_result *res, char *buf, size_t len)
{
	double share[NR_CAUSES];
	bool done[NR_CAUSES] = { false };
	size_t used = 0;
	int k, best;

	buf[0] = '\0';
	if (!res->caused_calls || !res->loss_ns)
		return;
	for (k = 0; k < SCI_NR_CAUSES; k++)
		share[k] = (double)res->cause_loss_ns[k] / (double)res->loss_ns;
	share[CAUSE_UNKNOWN] = (double)res->unknown_loss_ns /
			       (double)res->loss_ns;
	for (;;) {
		best = -1;
		for (k = 0; k < NR_CAUSES; k++)
			if (!done[k] && (best < 0 || share[k] > share[best]))
				best = k;
		if (best < 0 || share[best] < 0.05 || used >= len)
			break;
		done[best] = true;
		used += snprintf(buf + used, len - used, "%s%s %.0f%%",
				 used ? ", " : "", cause_names[best].text,
				 share[best] * 100.0);
	}
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
		key_label(r, b->func_id, b->key, label, sizeof(label));
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
	if (func_shape_note(r, fn->func_id))
		report_wrap(f, r, indent, "note: ",
			    func_shape_note(r, fn->func_id));
	report_interference_text(f, r, fn, indent);
	report_workload_text(f, r, fn, indent);
	report_stacks_text(f, r, fn, indent);
}

/* A function's row; in the printing pass, the notes that hang under it. */
static void function_row(struct table *t, const struct report *r,
			 const struct sci_result *fn)
{
	const char *key = func_key(r, fn->func_id);
	char name[NAME_LEN], label[COLUMN_CELL_LEN];
	column_cell cell[NR_COLS];
	int indent;

	snprintf(label, sizeof(label),
		 func_key_auto(r, fn->func_id) ? "%s [%s (auto)]" :
		 key[0] ? "%s [%s]" : "%s",
		 func_name(r, fn->func_id, name, sizeof(name)),
		 key[0] ? key : "none");
	columns_cells(&t->cols, &(struct report_line){
		fn, label, func_object(r, fn->func_id) }, cell);
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

static void text_header(FILE *f, const struct report *r)
{
	char dur[32];
	size_t called = nr_results(r), declared = nr_declared(r);

	format_ns(dur, sizeof(dur), (double)r->duration_ns);
	fprintf(f, "Traced %s (pid %d) for %s: ",
		r->command && r->command[0] ? r->command : "?", r->pid, dur);
	if (declared && declared >= called)
		fprintf(f, "%zu of %zu probed functions called\n", called,
			declared);
	else
		fprintf(f, "%zu functions called\n", called);
}

/* "cpu-clock, page-faults" : the requested counters that are (not) counted. */
static bool counter_list(FILE *f, const struct report *r, bool supported,
			 int hardware, const char *lead)
{
	bool any = false;
	size_t i;

	for (i = 0; i < r->nr_counters; i++) {
		const struct report_counter *c = &r->counters[i];

		if (c->supported != supported ||
		    (hardware >= 0 && c->hardware != hardware))
			continue;
		fprintf(f, "%s%s", any ? ", " : lead, c->name);
		any = true;
	}
	return any;
}

static void text_counters(FILE *f, const struct report *r)
{
	if (counter_list(f, r, true, -1, "counters: "))
		fputc('\n', f);
	/* The one a demanding user needs to see: no PMU, no such numbers. */
	if (counter_list(f, r, false, 1, "hardware counters: unsupported ("))
		fputs(")\n", f);
	if (counter_list(f, r, false, 0, "counters unsupported: "))
		fputc('\n', f);
}

#define EXCESS_COLS	(2 + ISPOT_MAX_COUNTERS)
#define EXCESS_CELL	80

/* "+1.25us (3.40us)": the excess per call over the fastest calls' mean. */
static void excess_cell(const struct report_counter *c,
			const struct excess_counter *x, char *buf, size_t len)
{
	double extra = x->mean - x->fastest_mean;
	char a[32], b[32];

	if (!x->valid_calls) {
		snprintf(buf, len, "-");
	} else if (c->time) {
		format_ns(a, sizeof(a), fabs(extra));
		format_ns(b, sizeof(b), x->fastest_mean);
		snprintf(buf, len, "%s%s (%s)", extra < 0 ? "-" : "+", a, b);
	} else {
		snprintf(buf, len, "%+.3g (%.3g)", extra, x->fastest_mean);
	}
}

/* One row of the excess table; false when the function has no counters. */
static bool excess_row(const struct report *r, const struct sci_result *fn,
		       char (*cell)[EXCESS_CELL])
{
	struct excess_result x;
	char name[NAME_LEN];
	size_t i, col = 2;

	if (excess_result(r->excess, fn->func_id, 0, true, &x) || !x.calls)
		return false;
	snprintf(cell[0], EXCESS_CELL, "%s",
		 func_name(r, fn->func_id, name, sizeof(name)));
	for (i = 0; i < r->nr_counters; i++) {
		const struct report_counter *c = &r->counters[i];

		if (c->slot < 0)
			continue;
		/* Valid calls of the first counter: the others' differ only
		 * if perf could not keep one of them on the CPU. */
		if (col == 2)
			snprintf(cell[1], EXCESS_CELL, "%" PRIu64 "/%" PRIu64,
				 x.c[c->slot].valid_calls, x.calls);
		excess_cell(c, &x.c[c->slot], cell[col++], EXCESS_CELL);
	}
	if (col == 2)
		return false;
	return true;
}

/*
 * What the counters say about the on-CPU part: per function, the valid
 * calls and, per counter, the excess per call over the fastest calls, with
 * the fastest calls' own mean in parentheses.
 */
static void text_excess(FILE *f, const struct report *r, size_t rows)
{
	char cell[EXCESS_COLS][EXCESS_CELL];
	int width[EXCESS_COLS] = { 8, 5 };
	size_t i, c, ncols = 2, shown = 0;
	int pass;

	if (!r->excess)
		return;
	for (i = 0; i < r->nr_counters; i++)
		if (r->counters[i].slot >= 0)
			width[ncols++] = strlen(r->counters[i].name);
	for (pass = 0; pass < 2; pass++) {
		if (pass && !shown)
			return;
		if (pass) {
			fprintf(f, "\nON-CPU EXCESS PER CALL over the fastest "
				"%.0f%% (mean of those in parentheses), calls "
				"that stayed on one CPU:\n",
				100 * EXCESS_FASTEST_SHARE);
			fprintf(f, "%-*s  %*s", width[0], "FUNCTION", width[1],
				"VALID");
			for (i = 0, c = 2; i < r->nr_counters; i++)
				if (r->counters[i].slot >= 0)
					fprintf(f, "  %*s", width[c++],
						r->counters[i].name);
			fputc('\n', f);
		}
		for (i = 0; i < rows; i++) {
			if (!excess_row(r, &r->sci->funcs[i], cell))
				continue;
			shown++;
			for (c = 0; c < ncols; c++) {
				int w = strlen(cell[c]);

				if (!pass && w > width[c])
					width[c] = w;
				if (pass)
					fprintf(f, c ? "  %*s" : "%-*s",
						width[c], cell[c]);
			}
			if (pass)
				fputc('\n', f);
		}
	}
	fputc('\n', f);	/* the lines below are not rows of it */
}

static void text_footer(FILE *f, const struct report *r)
{
	char warn[4][REPORT_WARNING_LEN], dur[32], life[32];
	uint64_t total = r->recorded + r->dropped, calls = 0;
	size_t i, n;

	for (i = 0; i < nr_results(r); i++)
		calls += r->sci->funcs[i].calls;
	if (nr_results(r)) {
		format_ns(life, sizeof(life),
			  (double)r->sci->total_lifetime_ns);
		fprintf(f, "total: %" PRIu64 " calls in %" PRIu64 " threads, "
			"%s of thread time\n", calls,
			(uint64_t)r->sci->nr_threads + r->sci->folded_threads,
			life);
	}
	format_ns(dur, sizeof(dur), (double)r->duration_ns);
	fprintf(f, "duration %s, events: %" PRIu64 " recorded, %" PRIu64
		" dropped (%.2f%%), %" PRIu64 " unpaired (%.2f%%)\n", dur,
		r->recorded, r->dropped, share(r->dropped, total),
		r->unpaired, share(r->unpaired, total));
	n = report_warnings(r, warn, 4);
	for (i = 0; i < n; i++)
		report_wrap(f, r, 0, "warning: ", warn[i]);
	for (i = 0; i < r->nr_notes; i++)
		report_wrap(f, r, 0, "", r->notes[i]);
}

/* The width the text should fit in, 0 for none (see report.h). */
static int text_width(FILE *f, const struct report *r)
{
	struct winsize ws;
	int fd = fileno(f);

	if (r->width)
		return r->width > 0 ? r->width : 0;
	if (fd >= 0 && isatty(fd) && !ioctl(fd, TIOCGWINSZ, &ws))
		return ws.ws_col;
	return 0;
}

/* The names the text shows, by func_id (r->labels); whole if no memory. */
static void text_labels(const struct report *r, struct report_labels *l)
{
	const char **names = calloc(r->nr_funcs + 1, sizeof(*names));
	size_t i;

	memset(l, 0, sizeof(*l));
	for (i = 0; names && r->funcs && i < r->nr_funcs; i++)
		names[i] = r->funcs[i].name;
	if (names && r->funcs)
		report_labels_make(l, names, r->nr_funcs, r->wide);
	free(names);
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

static void text_body(FILE *f, const struct report *r, size_t max_rows)
{
	struct table t = { .f = f };
	size_t rows = nr_results(r);

	columns_init(&t.cols, columns, NR_COLS, true, false);
	text_header(f, r);
	if (max_rows && max_rows < rows)
		rows = max_rows;
	if (!rows) {
		fputs("no probed function was called while tracing\n", f);
	} else {
		table_walk(&t, r, rows);
		fit_names(&t, r->wide ? 0 : text_width(f, r));
		t.print = true;
		table_walk(&t, r, rows);
		if (rows < nr_results(r))
			fprintf(f, "(+%zu more functions, see --json)\n",
				nr_results(r) - rows);
	}
	text_excess(f, r, rows);
	report_text_futexes(f, r);
	text_counters(f, r);
	text_footer(f, r);
}

void report_table_rows(const struct report *r, size_t max_rows,
		       report_row_fn *emit, void *ctx)
{
	struct report view = *r;
	struct report_labels l;
	struct table t = { .emit = emit, .emit_ctx = ctx };
	size_t rows = nr_results(r);

	if (max_rows && max_rows < rows)
		rows = max_rows;
	if (!rows)
		return;
	text_labels(r, &l);
	view.labels = l.label;
	columns_init(&t.cols, columns, NR_COLS, true, false);
	table_walk(&t, &view, rows);
	report_labels_free(&l);
}

int report_text_part(FILE *f, const struct report *r,
		     enum report_part part)
{
	struct report view = *r;
	struct report_labels l;

	text_labels(r, &l);
	view.labels = l.label;
	view.note_width = REPORT_NOTE_WIDTH;
	switch (part) {
	case REPORT_PART_HEADER:
		text_header(f, &view);
		break;
	case REPORT_PART_EXCESS:
		text_excess(f, &view, nr_results(r));
		break;
	case REPORT_PART_FUTEXES:
		report_text_futexes(f, &view);
		break;
	case REPORT_PART_COUNTERS:
		text_counters(f, &view);
		break;
	case REPORT_PART_FOOTER:
		text_footer(f, &view);
		break;
	}
	report_labels_free(&l);
	return stream_status(f);
}

int report_text(FILE *f, const struct report *r, size_t max_rows)
{
	struct report view = *r;
	struct report_labels l;

	text_labels(r, &l);
	view.labels = l.label;
	view.note_width = text_width(f, r);
	text_body(f, &view, max_rows);
	report_labels_free(&l);
	return stream_status(f);
}

/* ---- JSON ---- */

/* The distribution and scores, shared by functions and their keys. */
static void json_result(struct json *j, const struct sci_result *res)
{
	json_u64(j, "calls", res->calls);
	json_u64(j, "threads", res->threads);
	json_u64(j, "min_ns", res->min_ns);
	json_u64(j, "p50_ns", res->p50_ns);
	json_u64(j, "p99_ns", res->p99_ns);
	json_u64(j, "max_ns", res->max_ns);
	json_u64(j, "mean_ns", rounded(res->mean_ns));
	json_u64(j, "loss_ns", res->loss_ns);
	json_double(j, "sci", finite_or_zero(res->sci));
	json_double(j, "sci_worst_thread",
		    finite_or_zero(res->sci_worst_thread));
	json_u64(j, "worst_tid", res->worst_tid);
	report_interference_json(j, res);
}

static void json_keys(struct json *j, const struct report *r,
		      const struct sci_result *fn)
{
	char label[COLUMN_CELL_LEN];
	size_t i;

	json_array_begin(j, "keys");
	for (i = 0; i < r->sci->nr_blocks; i++) {
		const struct sci_result *b = &r->sci->blocks[i];

		if (b->func_id != fn->func_id)
			continue;
		key_label(r, b->func_id, b->key, label, sizeof(label));
		json_object_begin(j, NULL);
		json_string(j, "key", label);
		json_result(j, b);
		json_object_end(j);
	}
	json_array_end(j);
}

/* Per counted event: valid calls, means, and the excess per call. */
static void json_excess(struct json *j, const struct report *r,
			const struct sci_result *fn)
{
	struct excess_result x;
	size_t i;

	if (!r->excess || excess_result(r->excess, fn->func_id, 0, true, &x))
		return;
	json_u64(j, "counted_calls", x.calls);
	json_object_begin(j, "counters");
	for (i = 0; i < r->nr_counters; i++) {
		const struct report_counter *c = &r->counters[i];
		const struct excess_counter *e;

		if (c->slot < 0)
			continue;
		e = &x.c[c->slot];
		json_object_begin(j, c->name);
		json_u64(j, "valid_calls", e->valid_calls);
		json_double(j, "mean", finite_or_zero(e->mean));
		json_double(j, "fastest_mean", finite_or_zero(e->fastest_mean));
		json_double(j, "excess_per_call",
			    finite_or_zero(e->mean - e->fastest_mean));
		json_object_end(j);
	}
	json_object_end(j);
}

static void json_function(struct json *j, const struct report *r,
			  const struct sci_result *fn)
{
	const char *key = func_key(r, fn->func_id);
	char name[NAME_LEN];
	int k;

	json_object_begin(j, NULL);
	json_string(j, "name", func_name(r, fn->func_id, name, sizeof(name)));
	json_string(j, "linkage_name",
		    func_linkage_name(r, fn->func_id,
				      func_name(r, fn->func_id, name,
						sizeof(name))));
	json_string(j, "object", func_object(r, fn->func_id));
	json_string(j, "key", key);
	if (func_key_auto(r, fn->func_id))
		json_bool(j, "key_auto", true);
	json_u64(j, "nr_keys", fn->nr_keys);
	json_result(j, fn);
	json_u64(j, "caused_calls", fn->caused_calls);
	/* Signed: a cause can be negative when another one grew (sci.h). */
	json_object_begin(j, "causes");
	for (k = 0; k < SCI_NR_CAUSES; k++)
		json_i64(j, cause_names[k].json, fn->cause_loss_ns[k]);
	json_i64(j, cause_names[CAUSE_UNKNOWN].json, fn->unknown_loss_ns);
	json_object_end(j);
	json_excess(j, r, fn);
	if (key[0])
		json_keys(j, r, fn);
	report_workload_json(j, r, fn);
	json_bool(j, "shapes_differ", func_of(r, fn->func_id) &&
				      func_of(r, fn->func_id)->shapes_differ);
	if (func_shape_note(r, fn->func_id))
		json_string(j, "shape_note", func_shape_note(r, fn->func_id));
	report_stacks_json(j, r, fn);
	json_object_end(j);
}

void report_json_functions(struct json *j, const struct report *r)
{
	size_t i;

	json_array_begin(j, "functions");
	for (i = 0; i < nr_results(r); i++)
		json_function(j, r, &r->sci->funcs[i]);
	json_array_end(j);
}

int report_json(FILE *f, const struct report *r)
{
	char warn[4][REPORT_WARNING_LEN];
	struct json j;
	size_t i, n;

	json_init(&j, f);
	json_object_begin(&j, NULL);
	json_string(&j, "ispot_version", ISPOTCTL_VERSION);
	json_object_begin(&j, "target");
	json_i64(&j, "pid", r->pid);
	json_string(&j, "command", r->command);
	json_object_end(&j);
	json_u64(&j, "duration_ns", r->duration_ns);
	json_object_begin(&j, "events");
	json_u64(&j, "recorded", r->recorded);
	json_u64(&j, "dropped", r->dropped);
	json_u64(&j, "unpaired", r->unpaired);
	json_object_end(&j);

	report_json_functions(&j, r);

	json_array_begin(&j, "threads");
	for (i = 0; r->sci && i < r->sci->nr_threads; i++) {
		const struct sci_thread_life *t = &r->sci->threads[i];

		json_object_begin(&j, NULL);
		json_u64(&j, "tid", t->tid);
		json_u64(&j, "lifetime_ns", t->lifetime_ns);
		json_bool(&j, "exited", t->exited);
		json_object_end(&j);
	}
	json_array_end(&j);

	report_json_futexes(&j, r);

	json_object_begin(&j, "counters");
	for (i = 0; i < r->nr_counters; i++) {
		const struct report_counter *c = &r->counters[i];

		json_string(&j, c->name ? c->name : "",
			    c->supported ? "supported" : "unsupported");
	}
	json_object_end(&j);

	n = report_warnings(r, warn, 4);
	json_array_begin(&j, "warnings");
	for (i = 0; i < n; i++)
		json_string(&j, NULL, warn[i]);
	json_array_end(&j);
	json_array_begin(&j, "notes");
	for (i = 0; i < r->nr_notes; i++)
		json_string(&j, NULL, r->notes[i]);
	json_array_end(&j);

	json_object_end(&j);
	json_finish(&j);
	return stream_status(f);
}
