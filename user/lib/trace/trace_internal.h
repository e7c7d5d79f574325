/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the parts of one trace session (trace.h lists its files).  Not
 * for front ends.
 */
#ifndef ISPOT_TRACE_INTERNAL_H
#define ISPOT_TRACE_INTERNAL_H

#include <signal.h>

#include "export/perfetto.h"
#include "trace/trace.h"

/* --- the device (trace_live.c) ------------------------------------------ */

/*
 * Set up a session on @pid: map its rings, the drain that reads them as
 * t->live.src.  Returns 0 or prints one line and returns -1.
 */
int trace_live_setup(struct trace *t, pid_t pid);
/*
 * --counters/--raw-event: count those this machine has, before ENABLE.
 * Returns 0 or prints one line and returns -1.
 */
int trace_live_counters(struct trace *t);
/* Enable the armed probes.  Returns 0 or prints one line and -1. */
int trace_live_enable(struct trace *t);
/* Stop the probes' producers, if they run. */
void trace_live_disable(struct trace *t);
/* Read the drops and why the module stopped into t->sum. */
void trace_live_stats(struct trace *t);
/* Unmap the rings and close the device. */
void trace_live_free(struct trace *t);

/* --- the rounds (trace_rounds.c) ---------------------------------------- */

/*
 * The first scan, at enable: threads that exist now count from now.
 * Returns 0 or prints one line and returns -1.
 */
int trace_first_scan(struct trace *t);

/*
 * With task records, after a scan: thread @tid, which the engine holds
 * open and whose last record is at @last, has its exit queued if the
 * scan did not list it and its own /proc entry is gone (a listing can
 * skip a live thread, tasks.h).  Called for each open thread by the scan
 * (trace_rounds.c); its own declaration so that the guard has a test.
 */
void trace_scan_lost_exit(void *ctx, uint32_t tid, uint64_t last);

/*
 * ispotctl's Ctrl-C, SIGTERM and SIGHUP (unless nohup ignores it) from
 * --auto's sampling until the recording's last tables are written:
 * trace_signal set, the session ended in order, not killed.  Caught once
 * (a second catch is none), and given back as they were by
 * trace_release_signals(), before the report is printed (trace_report())
 * or by trace_free() when the session failed.  Not ispotd's, which reads
 * a signalfd.
 */
extern volatile sig_atomic_t trace_signal;
/* A second of them: stop now, amid a blocked write too (recording.h). */
extern volatile sig_atomic_t trace_signal_again;
void trace_catch_signals(void);
/*
 * From now on a third of them ends ispotctl at once, by the signal's
 * default action, with one line: trace_loop() arms it once its status
 * line is gone, for the last round and the recording's end.  Before, a
 * third is only noted: the terminal's scroll region, and a command run
 * --auto still untraced, must be put right first.
 */
void trace_arm_third_signal(void);
void trace_release_signals(void);
/*
 * Disable, drain what is left and apply every exit, set t->sum.t_end,
 * close the pipeline.
 */
void trace_last_round(struct trace *t);

/* --- the target's maps (trace_maps.c) ------------------------------------ */

/*
 * A live session's stacks_frame_fn (@ctx: the trace): whether @addr is in
 * the target's code by the maps snapshot, noted in the recording if any.
 */
bool trace_frame_in_code(void *ctx, uint64_t addr);
/*
 * Whether the maps snapshot holds @addr; one it does not re-reads them
 * first, at most once every 10 ms (trace_maps.c).  False with none yet.
 */
bool trace_maps_hold(struct trace *t, uint64_t addr);
/*
 * While a live Perfetto trace is written with keys labelled from
 * addresses, the maps read once a second (@now: trace_now()), so that
 * the names it keeps follow a library replaced at the same address even
 * where no miss reads them.
 */
void trace_maps_follow(struct trace *t, uint64_t now);
/*
 * For the report, which names every key it has (most maybe numbers in no
 * mapping): the maps read once now, while the target may live, and named
 * from for the rest of the session without a read for each miss.
 */
void trace_maps_for_report(struct trace *t);
/* Read the target's maps now, while it lives (a first snapshot, or anew). */
void trace_snapshot_maps(struct trace *t);
/*
 * Re-read the maps, if the rings hold a futex wait on a word outside them,
 * and name those words while the target lives to lend their objects.
 */
void trace_peek_futexes(struct trace *t);

/* --- the pipeline (trace_input.c) ----------------------------------------- */

/* pipeline_finish() at t->sum.t_end, counting the entries left open. */
void trace_close_pipeline(struct trace *t);

/* --- what it probes (trace_funcs.c) --------------------------------------- */

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

/* Free what trace_resolve() gathered. */
void trace_funcs_free(struct trace *t);

/* --- recordings (trace_session.c, trace_replay.c) ------------------------ */

/*
 * `record`: the probes are armed and tracing has begun; write the tables
 * a replay needs ahead of the events.  0, or -1 after one line.
 */
int trace_begin_recording(struct trace *t);

/*
 * `record`: the session has stopped; write its summary and tables into
 * t->out.rec and put the file in place.  0, or -1 after one line.
 */
int trace_finish_recording(struct trace *t);

/*
 * --baseline FILE, if given: load it into t->baseline before the session's
 * work (refused when it names the recording the command reads or
 * writes).  Returns 0 or -1 after one line.
 */
int trace_load_baseline(struct trace *t);

/* --- what it writes (trace_perfetto.c, trace_workload.c) ------------------ */

/*
 * --perfetto: open the file and start the trace once the session has its
 * pid and command; @clock is when a replayed session began (NULL for a
 * live one: now).  Returns 0 or prints one line and returns -1.
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

/*
 * "process N exited before tracing started", unless the options say a
 * target's end is routine (trace_opts.gone_quiet: ispotd).
 */
void trace_say_gone(const struct trace *t, pid_t pid);

#endif /* ISPOT_TRACE_INTERNAL_H */
