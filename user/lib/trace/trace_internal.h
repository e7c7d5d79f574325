/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the parts of one trace session (trace.c: the session and its
 * rounds; trace_funcs.c: what it probes; trace_report.c: its report;
 * replay.c: a recording's session).  Not for front ends.
 */
#ifndef ISPOT_TRACE_INTERNAL_H
#define ISPOT_TRACE_INTERNAL_H

#include "export/perfetto.h"
#include "trace/trace.h"

/*
 * Add every resolved function and block to the session: one probe pair
 * per function, one entry probe per marker site of a block.  After SETUP,
 * before ENABLE.  Returns 0 or prints one line and returns -1.
 */
int trace_arm(struct trace *t);

/*
 * The footer note for functions a bare --func name found in a library
 * the program loads, not in it: "NAME found in OBJ; ..." into @buf.
 * Returns whether there is one.
 */
bool trace_lib_note(const struct trace *t, char *buf, size_t len);

/*
 * --perfetto (trace_perfetto.c): open the file and start the trace once
 * the session has its pid and command; @clock is when a replayed session
 * began (NULL for a live one: now).  Returns 0 or prints one line and
 * returns -1.
 */
int trace_perfetto_open(struct trace *t, const struct perfetto_clock *clock);
/*
 * End it: with @keep, complete the trace (open slices end at the last
 * timestamp) and rename it over the path, else (the session failed)
 * remove it.  A trace that could not be written whole is removed too:
 * then a file that was at the path stays as it was.  Returns 0 or prints
 * one line and returns -1.
 */
int trace_perfetto_close(struct trace *t, bool keep);

/*
 * A live session's stacks_frame_fn (@ctx: the trace): whether @addr is in
 * the target's code by the maps snapshot, noted in the recording if any.
 */
bool trace_frame_in_code(void *ctx, uint64_t addr);

/* Whether @path (NULL: none) can be written, said in one line if not. */
int trace_can_write(const char *path, const char *option);
/*
 * Whether every output the options name (--output, --folded, --perfetto,
 * --html, --svg) can be written: checked before the work, live or replayed.
 */
int trace_check_outputs(const struct trace_opts *o);

/* pipeline_finish() at t->t_end, counting the entries left open. */
void trace_close_pipeline(struct trace *t);

/* Free what trace_resolve() gathered. */
void trace_funcs_free(struct trace *t);

/*
 * At report time (trace_workload.c): judge every function's arguments
 * (argbuckets.h), key each --key FUNC=auto function as its verdict says
 * (autokey.h: @sr is rewritten, and the function's key and key_desc set
 * to the choice), and write a one-line note into @notes for each auto
 * function too sparsely recorded to judge, at most @max.  Returns the
 * verdicts by function id (free() them), or NULL without memory.
 */
struct argb_verdict *trace_workload(struct trace *t, struct sci_report *sr,
				    char (*notes)[256], size_t *nr_notes,
				    size_t max);

#endif /* ISPOT_TRACE_INTERNAL_H */
