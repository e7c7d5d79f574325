/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One screen of `ispotctl top`, laid out as plain text for a given size:
 *
 *   ispotctl top: app (pid 97)  up 12.3s  45.1k events/s  0 dropped
 *   last 5.00s  sort: SCI  [s]ort [p]ause [q]uit
 *   <a status note, or blank>
 *       SCI     LOSS/s   CALLS/s       P99  CAUSE         FUNCTION  OBJECT
 *     31.7%    154ms/s     12.3k    25.0us  futex 92%     acquire   app
 *
 * Columns are data (struct column, report/columns.h), as in a perf or
 * uftrace report.  When the terminal is narrow, columns go (OBJECT, EXE,
 * AUTO, CAUSE, P99, CALLS/s, LOSS/s: SCI and FUNCTION stay) before FUNCTION
 * shrinks below 16 characters, and every line
 * is cut to the width; rows that do not fit the height are left out.  No
 * line holds a control character: names that come from outside (ELF
 * symbols, or labels read from a metrics endpoint) cannot move the
 * cursor.  The terminal code (term.h) only writes the lines out.
 */
#ifndef ISPOT_TOPVIEW_H
#define ISPOT_TOPVIEW_H

#include <stdbool.h>

#include "top/rates.h"

struct topview_head {
	const char *target;	/* "lock_contention (pid 97)" */
	double elapsed_ns;
	double window_ns;	/* what was asked: the view says what it had */
	enum rates_sort sort;
	bool paused;
	bool show_exe;		/* several programs: an EXE column */
	bool wide;		/* --wide: C++ names whole (report.h) */
	const char *status;	/* a note above the columns, or NULL */
};

struct topview_frame {
	int width, height;
	int nr_lines;
	int header_line;	/* the column titles, to highlight */
	char *text;		/* nr_lines lines of width + 1 bytes */
};

/*
 * Lay out @v under @h for a @width x @height terminal (at least 1 x 1).
 * @f is reused from call to call.  Returns 0 or -ENOMEM.
 */
int topview_render(struct topview_frame *f, int width, int height,
		   const struct topview_head *h, const struct rates_view *v);
/* Line @i, NUL-terminated, at most width - 1 characters. */
const char *topview_line(const struct topview_frame *f, int i);
void topview_free(struct topview_frame *f);

#endif /* ISPOT_TOPVIEW_H */
