// SPDX-License-Identifier: GPL-2.0
/*
 * The perf counters in the text report (report.h): the table of each
 * function's on-CPU excess per call over its fastest calls, and the line
 * that says which counters were counted and which the machine lacks.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "util/format.h"
#include "report/report.h"
#include "report/report_internal.h"

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

void report_text_counters(FILE *f, const struct report *r)
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
	char name[REPORT_NAME_LEN];
	size_t i, col = 2;

	if (excess_result(r->excess, fn->func_id, 0, true, &x) || !x.calls)
		return false;
	snprintf(cell[0], EXCESS_CELL, "%s",
		 report_func_name(r, fn->func_id, name, sizeof(name)));
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
void report_text_excess(FILE *f, const struct report *r, size_t rows)
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
