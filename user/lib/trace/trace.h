/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One tracing session, as `attach` and `run` share it: resolve the
 * functions, open /dev/ispot for a target, arm the probes, drain the rings
 * into the pipeline until a stop condition, then report.
 *
 * Thread lifetimes.  A thread counts from the moment it is known to exist
 * (attach, or the scan of /proc/PID/task that first lists it) until the
 * scan that no longer lists it, taken back to its last record when that
 * is later than the last scan that saw it alive: a thread cannot exit
 * before its own last record.  Scans run every TRACE_SCAN_NS, which bounds
 * the error of a lifetime; an exit is applied only once the drain has
 * emitted every record older than the scan that saw it, so no record of
 * the thread is still in flight when its open entries are declared
 * unpaired.
 */
#ifndef ISPOT_TRACE_H
#define ISPOT_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "trace/device.h"
#include "elf/elf.h"
#include "cli/options.h"
#include "analysis/pipeline.h"
#include "report/report.h"
#include "trace/tasks.h"
#include "util/afile.h"
#include "analysis/drain.h"

#define TRACE_SCAN_NS	(100 * 1000 * 1000ull)

/* A function, or a block (then sym holds its name, object, first site). */
struct trace_func {
	struct elf_target_sym sym;
	struct key_rule key;
	char key_desc[32];
	bool key_auto;			/* --key auto chose key (report time) */
	uint32_t probe_id;		/* a block's: its first begin site's */
	struct elf_block *block;	/* NULL for a function, and replayed */
	bool is_block;			/* a block, live or replayed */
};

/* A probe the session armed: which function it counts for, as what. */
enum trace_probe_role { TRACE_PROBE_FUNC, TRACE_PROBE_BEGIN, TRACE_PROBE_END };

struct trace_probe {
	uint32_t id;
	uint32_t func;		/* index in funcs */
	uint8_t role;		/* enum trace_probe_role */
	bool sync;		/* pipeline_set_sync() */
};

struct recording;
struct baseline;

struct trace_exit {
	uint32_t tid;
	uint64_t alive_ts;	/* the last scan that listed it, or its last
				 * record when its exit record was lost */
	uint64_t gone_ts;	/* the first scan that did not */
};

/* Polled once per round: true stops the trace (e.g. `run`'s child exited). */
typedef bool (*trace_stop_fn)(void *ctx);

struct trace {
	enum trace_mode mode;
	const struct trace_opts *opts;
	struct ispot_device dev;
	pid_t pid;
	char command[256];

	struct trace_func *funcs;
	size_t nr_funcs;
	struct trace_probe *probes;	/* as armed, for a recording */
	uint32_t nr_probes, cap_probes;

	uint32_t nr_rings;
	uint64_t ring_mmap_size;
	void **rings;
	struct drain *drain;
	struct pipeline *pipe;
	struct elf_symbolizer *sym;
	uint64_t frames_refreshed;	/* when a stack frame last re-read */
					/* the maps (trace_frame_in_code) */

	struct task_set alive;
	struct task_set scan;
	struct trace_exit *exits;
	size_t nr_exits, cap_exits;
	uint64_t last_scan;	/* when alive was taken */

	uint64_t t_enable;
	uint64_t t_end;
	bool enabled;
	bool tasks;		/* the module reports thread start and exit */
	bool waits;		/* and context switches and futex calls */
	/* --counters/--raw-event as the module answered, in the order given */
	struct report_counter counters[ISPOT_MAX_COUNTERS];
	bool trampoline;
	bool target_exited;
	bool interrupted;
	uint64_t dropped;
	uint32_t stop_reason;		/* ISPOT_STOP_*, from the last STATS */
	/* Entries still open when the trace stopped (in pair_stats too). */
	uint64_t open_at_stop;
	/* Threads closed by a scan because their exit record was lost. */
	uint64_t lost_exits;
	/* --perfetto: the trace written as records drain (trace_perfetto.c) */
	struct perfetto *perfetto;
	struct afile perfetto_file;	/* .f: NULL when none is open */

	/*
	 * `record`: the recording every input of the pipeline also goes to
	 * (trace_on_record() and the thread and trampoline calls).  When it
	 * stopped at --max-size: that size and the last record kept.
	 */
	struct recording *rec;
	bool rec_full;
	uint64_t rec_full_size, rec_full_ts;
	/* --baseline: solo calls the report takes as evidence too. */
	struct baseline *baseline;
	/* `report FILE`: no drain; its figures as the recording kept them. */
	struct drain_stats replayed;

	/*
	 * Set between trace_resolve() and trace_start() by a caller that
	 * keeps scores across sessions (ispotd): executions are scored into
	 * @engine, under @func_ids[i] for funcs[i].  NULL: the pipeline's
	 * own engine, under i.
	 */
	struct sci_engine *engine;
	const uint32_t *func_ids;
	/* And, with @engine, the shapes that name its shape keys. */
	struct shapes *shapes;
	/*
	 * And the argument buckets, and for each --key FUNC=auto function
	 * the first of the three ids its shadow scores go under (autokey.h;
	 * 0 or NULL: scored unkeyed only).  Without @func_ids the shadows
	 * sit above the session's own ids.
	 */
	struct argbuckets *args;
	const uint32_t *shadow_ids;
};

/*
 * The one place every record reaches, live from the drain and offline
 * from a recording (replay.c): the pipeline, then whatever else consumes
 * records (the recording).  A drain_record_fn: @ctx is the trace.
 */
void trace_on_record(void *ctx, const struct ispot_record *rec);

/*
 * The session's other inputs to the pipeline, which a recording replays
 * where they came: a thread seen by a /proc scan, one gone (alive at @ts,
 * missed by the scan at @gone_ts: pipeline_thread_gone()), the uprobe
 * trampoline's range.
 */
void trace_thread_seen(struct trace *t, uint32_t tid, uint64_t ts);
void trace_thread_exit(struct trace *t, uint32_t tid, uint64_t ts,
		       uint64_t gone_ts);
void trace_set_trampoline(struct trace *t, uint64_t start, uint64_t end);

/*
 * The session's pipeline, the same for a live trace and a replay:
 * stack frames are judged by @frame_ok (stacks.h), causes on if t->waits.
 * Returns 0 or prints one line and returns -1.
 */
int trace_new_pipeline(struct trace *t, stacks_frame_fn frame_ok,
		       void *ctx);

/*
 * Give probe @id of funcs[@func] to the pipeline, as a function or a
 * block's marker, keyed by the function's rule; and note it in
 * t->probes for the recording.  Returns 0 or prints one line and -1.
 */
int trace_pipe_probe(struct trace *t, uint32_t id, uint32_t func,
		     enum trace_probe_role role, bool sync);

/* The drain's figures; a replay has no drain, but what was recorded. */
const struct drain_stats *trace_drain_stats(const struct trace *t);

/*
 * Score and print the report of a stopped session (or a replayed one):
 * the table or JSON to stdout or --output, and --folded.
 */
int trace_print_report(struct trace *t);

/*
 * `report FILE`: replay the recording @o->recording names through the
 * session's pipeline and print its report.  Returns 0 or -1 after one
 * line.
 */
int trace_replay(const struct trace_opts *o);

/*
 * Replay @o->recording into @t up to the end of its pipeline, with @o's
 * --key rules (one naming no recorded function is no error here), and
 * no report: what --baseline reads (baseline.h).  @o must outlive @t;
 * its outputs are the caller's to clear.  Returns 0 or -1 after one
 * line; trace_free(@t) either way.
 */
int trace_replay_engine(struct trace_opts *o, struct trace *t);

/* Monotonic ns, the clock the module stamps records with. */
uint64_t trace_now(void);

/*
 * Open /dev/ispot (module present, ABI agreed) and check that --output
 * can be written, before any work is done.  Returns 0 or prints one line
 * and returns -1; trace_free() is needed either way.
 */
int trace_open(struct trace *t, const struct trace_opts *o,
	       enum trace_mode mode);

/*
 * Whether @pid can be attached to: it exists and this process may signal
 * it.  Returns 0 or prints one line and returns -1.
 */
int trace_check_pid(pid_t pid);

/*
 * Resolve every --func SPEC for @pid (0: not started) running @exe (may
 * be NULL when pid > 0).  With --auto, @pid must be running: it is
 * sampled for --auto-time first, and what was picked is printed on
 * stderr.  Returns 0 or prints one line and returns -1.
 */
int trace_resolve(struct trace *t, pid_t pid, const char *exe);

/*
 * After trace_resolve(): every --key names a traced function.  A key
 * that names none is an error (a typo, or a function not traced), a note
 * with --auto (whose picks the user could not know).  ispotd does not
 * call it: its targets may each lack some functions.  Returns 0 or prints
 * one line and returns -1.
 */
int trace_check_keys(const struct trace *t);

/*
 * Open a session on @pid, map its rings, arm and enable the probes.  For
 * `run`, @pid is the child still waiting to exec.  Returns 0 or prints one
 * line and returns -1.
 */
int trace_start(struct trace *t, pid_t pid);

/*
 * `run`: the child has exec'd.  Takes the maps snapshot that names futex
 * words and call sites while it is alive; rounds refresh it during the
 * first second (the exec may not have mapped every segment yet, and ld.so
 * maps the libraries after), and at the first futex wait on a word
 * outside it.
 */
void trace_exec_seen(struct trace *t);

/* Drain until Ctrl-C, --duration, the target's exit, or @stop says so. */
int trace_loop(struct trace *t, trace_stop_fn stop, void *ctx);

/*
 * One round of trace_loop() for a caller with its own poll loop: drain
 * what is older than the horizon, and rescan the threads when due.
 * Returns 0, or -1 after printing why.  POLLHUP on t->dev.fd means the
 * target exited: set t->target_exited.
 */
int trace_step(struct trace *t, uint64_t now);

/*
 * When a caller with its own poll loop should next call trace_step(), and
 * the events to poll t->dev.fd for until then (*@events: POLLIN, or 0
 * while records wait in the rings for the horizon: the device stays
 * readable as long as any record is there, so polling for POLLIN then
 * returns at once and the loop would spin).  POLLHUP is reported either
 * way.
 */
uint64_t trace_next_step(const struct trace *t, uint64_t now, short *events);

/*
 * Disable, drain what is left, close the lifetimes and read the drops:
 * what trace_report() does before it prints.  The scores are then in
 * t->pipe->sci (or t->engine).
 */
void trace_stop(struct trace *t);

/* Disable, drain what is left, close lifetimes, print the report. */
int trace_report(struct trace *t);

/*
 * A report @sr of the session's engine taken while it runs (ispotctl
 * top), as --key FUNC=auto keys it: each auto function scored as its
 * verdict so far says, the shadow scores dropped (autokey.h).  Again on
 * each report: the verdict may change.  0 or -ENOMEM.
 */
int trace_auto_keys(struct trace *t, struct sci_report *sr);

void trace_free(struct trace *t);

#endif /* ISPOT_TRACE_H */
