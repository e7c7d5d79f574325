/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's outputs, chosen from one table of writers (writers.c): the
 * text table or the JSON object (to --output, else stdout), --folded
 * stacks, the --html page, the --svg pictures, and the --perfetto trace,
 * which streams while the session runs.  Each writer names its option,
 * where it goes and how it is written.  A session, live or replayed,
 * checks every output it is asked for before its work (output_check())
 * and writes them at its report (output_write()): a new output is a row
 * of the table, not a change to each front end.
 *
 * Every file is written whole or not at all (util/afile.h): a file that
 * was at the path stays as it was when writing it fails.
 */
#ifndef ISPOT_OUTPUT_WRITERS_H
#define ISPOT_OUTPUT_WRITERS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/options.h"
#include "util/afile.h"

struct report;
struct picture_source;

/* What a report's writers draw from. */
struct output_doc {
	const struct report *r;
	const struct picture_source *pic;	/* the engine, for pictures */
	size_t top;				/* --top N rows, 0: all */
};

/*
 * Whether every output @o asks for can be written (a directory made if
 * need be), said in one line for the first that cannot: before the
 * work, so a session never runs to fail at its end.  0 or -1.
 */
int output_check(const struct trace_opts *o);

/*
 * Write every output @o asks for from @d, in the table's order, the one
 * that may go to stdout last.  One that cannot be written (a full disk)
 * is said in one line and the others are written all the same: a long
 * trace's report is not lost for its HTML.  The streamed ones are the
 * session's (output_stream_open()).  0, or -1 if any failed.
 */
int output_write(const struct trace_opts *o, const struct output_doc *d);
/*
 * Whether a report on stdout failed and output_write() said so, so that
 * the caller's last check of stdout says nothing more.
 */
bool output_stdout_said(void);
/* Say that stdout could not take the report (@err an errno), once. */
void output_stdout_failed(int err);

/* Ask @o for no output at all (a replay read for its figures only). */
void output_none(struct trace_opts *o);

/*
 * Streamed output @name ("perfetto"): if @o asks for it, open its file
 * (the temporary beside the path, util/afile.h) into @f.  0 (@f->f is
 * NULL when not asked), or -1 after one line.
 */
int output_stream_open(const struct trace_opts *o, const char *name,
		       struct afile *f);

/*
 * End it: with @keep and no @error (0 or -errno: the writer's), rename it
 * over the path, else remove it.  0, or -1 after one line when it was to
 * be kept and could not be.
 */
int output_stream_close(const struct trace_opts *o, const char *name,
			struct afile *f, bool keep, int error);

#endif /* ISPOT_OUTPUT_WRITERS_H */
