/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One tracing session, as `attach` and `run` share it: resolve the
 * functions, open /dev/ispot for a target, arm the probes, drain the rings
 * into the pipeline until a stop condition, then report.
 *
 * Thread lifetimes.  A thread counts from the moment it is known to exist
 * (attach, or the scan of /proc/PID/task that first lists it) until the
 * scan that no longer lists it and finds its /proc/PID/task/TID gone (a
 * listing can skip a live thread: tasks.h), taken back to its last
 * record when that is later than the last scan that saw it alive: a
 * thread cannot exit before its own last record.  Scans run every
 * TRACE_SCAN_NS, which bounds the error of a lifetime; an exit is applied
 * only once the drain has emitted every record older than the scan that
 * saw it, so no record of the thread is still in flight when its open
 * entries are declared unpaired.
 *
 * The session's files, one job each: trace_session.c (its life: open,
 * start, stop, report, free), trace_live.c (the device: rings, counters,
 * the drained rings as a record source), trace_rounds.c (the rounds and
 * the /proc scans), trace_maps.c (the target's maps: frames, futex
 * words), trace_input.c (the pipeline and the one path into it),
 * trace_funcs.c (what it probes), trace_replay.c (a recording played
 * through it), trace_report.c, trace_workload.c and trace_perfetto.c
 * (what it reports and writes).
 */
#ifndef ISPOT_TRACE_H
#define ISPOT_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "analysis/drain.h"
#include "analysis/pipeline.h"
#include "cli/options.h"
#include "elf/elf.h"
#include "recording/session.h"
#include "recording/source.h"
#include "recording/thread_names.h"
#include "trace/device.h"
#include "trace/solo_sched.h"
#include "trace/tasks.h"
#include "util/afile.h"

#define TRACE_SCAN_NS	(100 * 1000 * 1000ull)
/* A recording's events go out to its file at least this often. */
#define TRACE_SYNC_NS	(1000 * 1000 * 1000ull)

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

/*
 * The device side of a live session (trace_live.c, trace_rounds.c): the
 * module's rings, drained as the session's record source, and the /proc
 * scans that tell thread lifetimes.  A replay has none of it.
 */
struct trace_live {
	struct record_source src;	/* the drained rings */
	struct ispot_device dev;
	struct ispot_rings rings;
	struct drain *drain;
	bool enabled;
	bool trampoline;		/* its range was found in the maps */
	/* When the maps were last re-read (a miss, to follow, or early). */
	uint64_t maps_reread_ns;
	struct solo_sched solo;	/* solo blocks: when they start, end */
	struct task_set alive;
	struct task_set scan;
	struct trace_exit *exits;
	size_t nr_exits, cap_exits;
	uint64_t last_scan;	/* when alive was taken */
	uint64_t last_sync;	/* when the recording's events went out */
};

/* What the session writes while it runs, input by input. */
struct trace_writers {
	/*
	 * `record`: the recording every input of the pipeline also goes to
	 * (trace_input()), with the frame checks' answers.
	 */
	struct recording *rec;
	/* --perfetto: the trace written as records drain (trace_perfetto.c) */
	struct perfetto *perfetto;
	struct afile perfetto_file;	/* .f: NULL when none is open */
	/*
	 * Whether the trace stopped at --perfetto-max-size, and the time of
	 * the first record it left out: for the report's note.
	 */
	bool perfetto_full;
	uint64_t perfetto_full_ts;
};

/*
 * Set between trace_resolve() and trace_start() by a caller that keeps
 * scores across sessions (ispotd): executions are scored into @engine,
 * under @func_ids[i] for funcs[i].  NULL: the pipeline's own engine,
 * under i.
 */
struct trace_borrowed {
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
 * One session, live or replayed: its parts each do one job, and what a
 * recording keeps of it is @sum and the function and probe tables.
 */
struct trace {
	const struct trace_opts *opts;
	/* The target, the module's answers, the figures (session.h). */
	struct session_summary sum;

	/* What it traces (trace_funcs.c), and the probes armed for them. */
	struct trace_func *funcs;
	size_t nr_funcs, cap_funcs;
	struct trace_probe *probes;
	size_t nr_probes, cap_probes;

	/*
	 * The target's start time (util/procstat.h), where the caller knows
	 * it as (pid, start time) before trace_start(): a pid given to
	 * another process since is refused before a probe is armed, what
	 * was read of it discarded.  0: no check (the process that has the
	 * pid then; a start time of 0, the first tick after boot, is none
	 * a target of ispotd's has).
	 */
	uint64_t pid_start;

	/* Where every input goes (trace_input.c), and what names them. */
	struct pipeline *pipe;
	struct elf_symbolizer *sym;
	/* Entries still open when the trace stopped (in pair_stats too). */
	uint64_t open_at_stop;

	struct trace_live live;
	struct trace_writers out;
	/* --baseline: solo calls the report takes as evidence too. */
	struct baseline *baseline;
	/* --auto: what was sampled and picked, for the JSON report. */
	struct autopick *picked;
	/*
	 * With opts->funcs_optional: the --func and --block the target lacks
	 * (-ENOENT; bits as options.h's OPT_SPEC_BITS), how many, and what
	 * the first one searched said ("" if every one was skipped); the
	 * caller says it, once.
	 */
	uint64_t unresolved[OPT_SPEC_WORDS];
	size_t nr_unresolved;
	char unresolved_msg[1024];
	/*
	 * With opts->funcs_optional: the specs of which some functions were
	 * left out, since a probe could not step over them, and the rest
	 * traced (bits as unresolved's), how many specs so, and the first
	 * one's line; the caller says it, once.
	 */
	uint64_t left_out[OPT_SPEC_WORDS];
	size_t nr_left_out;
	char left_out_msg[1024];
	/* A side output (a trace, --wall-folded) could not be written. */
	bool outputs_failed;
	struct trace_borrowed borrowed;
	/*
	 * The threads' names: read live as each is first seen when a
	 * recording keeps them (its THREADS table); a replay's, the
	 * recording's, which name its Perfetto tracks.
	 */
	struct thread_names threads;
};

/*
 * The one place every input of the session reaches, live (the drained
 * rings, the scans) and replayed (a recording): the pipeline, and what
 * else consumes inputs (the Perfetto trace, the recording).  A
 * session_input_fn: @ctx is the trace.
 */
void trace_input(void *ctx, const struct session_input *in);

/*
 * The inputs that do not come from the rings, as trace_input() takes
 * them: a thread seen by a /proc scan, one gone (alive at @ts, missed by
 * the scan at @gone_ts: pipeline_thread_gone()), the uprobe trampoline's
 * range; and one record.
 */
void trace_on_record(struct trace *t, const struct ispot_record *rec);
void trace_thread_seen(struct trace *t, uint32_t tid, uint64_t ts);
void trace_thread_exit(struct trace *t, uint32_t tid, uint64_t ts,
		       uint64_t gone_ts);
void trace_set_trampoline(struct trace *t, uint64_t start, uint64_t end);

/*
 * Give trace_input() what @src holds older than @horizon.  Returns how
 * many records, or -1 after one line.
 */
long trace_feed(struct trace *t, struct record_source *src,
		uint64_t horizon);

/*
 * The session's pipeline, the same for a live trace and a replay:
 * stack frames are judged by @frame_ok (stacks.h), causes on if
 * sum.waits.  Returns 0 or prints one line and returns -1.
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

/*
 * Score and print the report of a stopped session (or a replayed one):
 * the table or JSON to stdout or --output, and every other output the
 * options ask for (output/writers.h).
 */
int trace_print_report(struct trace *t);

/*
 * `report FILE`: replay the recording @o->recording names through the
 * session's pipeline and print its report.  Returns 0 or -1 after one
 * line.
 */
int trace_replay(const struct trace_opts *o);

/* Monotonic ns, the clock the module stamps records with. */
uint64_t trace_now(void);
/*
 * How long the probes of a stopped live session were armed: from ENABLE
 * to its end (trace_last_round(): when DISABLE was asked for, not its
 * return, or the last record).
 */
uint64_t trace_armed_ns(const struct trace *t);

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
 * stderr.  Returns 0 or prints one line and returns -1; with
 * opts->funcs_optional, -ENOENT without a line when nothing was left to
 * trace but specs the target lacks (t->unresolved).
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
 * `run`, @pid is the child still waiting to exec.  With t->pid_start, a
 * pid that is another process's by then is refused before any probe is
 * armed.  Returns 0 or prints one line and returns -1.
 */
int trace_start(struct trace *t, pid_t pid);

/*
 * A symbolizer of the target (elf.h), the process t->pid_start names if
 * set: NULL if there is none (gone, or its pid another's).
 */
struct elf_symbolizer *trace_symbolizer_new(const struct trace *t);

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
 * Returns 0, or -1 after printing why.  POLLHUP on t->live.dev.fd means
 * the target exited: set t->sum.target_exited.
 */
int trace_step(struct trace *t, uint64_t now);

/*
 * When a caller with its own poll loop should next call trace_step(), and
 * the events to poll t->live.dev.fd for until then (*@events: POLLIN, or 0
 * while records wait in the rings for the horizon: the device stays
 * readable as long as any record is there, so polling for POLLIN then
 * returns at once and the loop would spin).  POLLHUP is reported either
 * way.
 */
uint64_t trace_next_step(const struct trace *t, uint64_t now, short *events);

/*
 * Disable, drain what is left, close the lifetimes and read the drops:
 * what trace_report() does before it prints.  The scores are then in
 * t->pipe->sci (or t->borrowed.engine), the figures in t->sum.
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

/*
 * Whether uprobes can single-step @sym's first instruction: not one with
 * a LOCK prefix, or an ES, CS, SS or DS override (the kernel's
 * is_prefix_bad()), also after a REX prefix.  The module refuses such a
 * probe at ENABLE only where the file is mapped already (attach); armed
 * before run's exec or a dlopen, the kernel skips it when the file is
 * mapped, silently, and the function would read as never called, so
 * trace_arm() refuses it by name first.
 * An object that cannot be read is left to the module to judge (true).
 * --auto leaves such functions out of its picks with it.
 */
bool trace_sym_steppable(const struct elf_target_sym *sym);

/*
 * Why a probe on @name (and @more other functions of spec @spec like it)
 * would never fire, into @buf: the one wording of every caller, which
 * adds what to do.
 */
void trace_unsteppable_why(char *buf, size_t len, const char *name,
			   size_t more, const char *spec);

#endif /* ISPOT_TRACE_H */
