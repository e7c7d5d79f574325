/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --html FILE: the report as one self-contained HTML page
 * (Documentation/usage.rst, "The HTML report"): the table with the text
 * report's columns and figures (report_table_rows()), the flame graphs
 * of the loss and of --auto's wall time (flamegraph.h), then per function
 * its pictures (pictures.h, inline SVG) and what the table prints under
 * its row (notes, call stacks), then the futex lines, the counters and
 * the footer (report_text_part()).
 *
 * Nothing is fetched: the style and the one small script are inline, and
 * a Content-Security-Policy forbids every other source; the script runs
 * only by its nonce.  Every string from the target is escaped
 * (util/xml.h), so a function named "<script>" is text.
 */
#ifndef ISPOT_HTML_H
#define ISPOT_HTML_H

#include <stdio.h>

struct report;
struct picture_source;

/* The page into @f; @src what its pictures are drawn from.  0 or -errno. */
int report_html(FILE *f, const struct report *r,
		const struct picture_source *src);

#endif /* ISPOT_HTML_H */
