/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the report printers share (report.h has the API):
 * the names of what the engine numbers (report.c), the table
 * (report_table.c) and the counters (report_counters.c) that the text
 * report (report.c) puts together.  Nothing outside user/lib/report/
 * includes this.
 */
#ifndef ISPOT_REPORT_INTERNAL_H
#define ISPOT_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct report;
struct report_func;
struct report_labels;

/* A function's name as a cell or a JSON string holds it. */
#define REPORT_NAME_LEN		64

/*
 * What the report says about function @id, NULL if it is unnamed; its
 * object ("" if none), its key kind ("" for none), whether --key
 * FUNC=auto chose it, and the note about its shapes (NULL for none).
 */
const struct report_func *report_func_of(const struct report *r, uint32_t id);
const char *report_func_object(const struct report *r, uint32_t id);
const char *report_func_key(const struct report *r, uint32_t id);
bool report_func_key_auto(const struct report *r, uint32_t id);
const char *report_func_shape_note(const struct report *r, uint32_t id);

/* The functions r->sci scored (0 without scores). */
size_t report_nr_results(const struct report *r);
/* JSON numbers have no NaN or infinity, and a consumer wants a number. */
double report_finite_or_zero(double v);
/* 0, or -errno if writing @f failed. */
int report_stream_status(FILE *f);

/* The names the text shows, by func_id (r->labels); whole if no memory. */
void report_text_labels(const struct report *r, struct report_labels *l);

/*
 * The table of @r's first @rows functions, FUNCTION narrowed for the
 * columns up to OBJECT to fit in @width (0: no limit), with the notes
 * under each function (report_table.c).
 */
void report_table_text(FILE *f, const struct report *r, size_t rows,
		       int width);

/*
 * The counters' part of the text (report_counters.c): the excess table of
 * the first @rows functions, and the line of counted and unsupported
 * counters.
 */
void report_text_excess(FILE *f, const struct report *r, size_t rows);
void report_text_counters(FILE *f, const struct report *r);

#endif /* ISPOT_REPORT_INTERNAL_H */
