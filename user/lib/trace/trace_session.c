// SPDX-License-Identifier: GPL-2.0
/*
 * One tracing session's life, shared by attach, run, record, top and
 * ispotd: open the device and check the outputs, start on a target,
 * stop, report, free.  See trace.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output/writers.h"
#include "recording/baseline.h"
#include "recording/recording.h"
#include "trace/autopick.h"
#include "trace/trace_internal.h"
#include "util/errors.h"
#include "util/path.h"
#include "util/procstat.h"

uint64_t trace_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t trace_armed_ns(const struct trace *t)
{
	return session_traced_ns(&t->sum);
}

/* What the summary holds of the options: a recording keeps them. */
static void trace_summary_opts(struct session_summary *s,
			       const struct trace_opts *o)
{
	s->sample = o->sample;
	s->stack_period = o->stack_period;
	s->nr_counters = o->nr_counters;
}

int trace_open(struct trace *t, const struct trace_opts *o,
	       enum trace_mode mode)
{
	char err[256];

	memset(t, 0, sizeof(*t));
	t->opts = o;
	t->sum.mode = mode;
	trace_summary_opts(&t->sum, o);
	if (ispot_device_open(&t->live.dev, err, sizeof(err))) {
		ispot_error("%s", err);
		return -1;
	}
	t->sum.abi_major = t->live.dev.version.abi_major;
	t->sum.abi_minor = t->live.dev.version.abi_minor;
	/* Fail before tracing, not after; an existing file is kept as is. */
	if (output_check(o) || trace_load_baseline(t))
		return -1;
	if (o->record) {
		t->out.rec = recording_create(o->record, o->max_size,
					      o->record_argv, o->record_argc);
		if (!t->out.rec)
			return -1;
		recording_set_give_up(t->out.rec, &trace_signal_again);
	}
	return 0;
}

int trace_check_pid(pid_t pid)
{
	if (kill(pid, 0) && errno == ESRCH) {
		ispot_error("no process with pid %d: check it with ps",
			    (int)pid);
		return -1;
	}
	if (kill(pid, 0) && errno == EPERM) {
		ispot_error("no permission to trace pid %d: run as root, or "
			    "with CAP_PERFMON as its user", (int)pid);
		return -1;
	}
	return 0;
}

/*
 * After the session's setup bound a process: whether it is the one
 * t->pid_start names.  While the pid has that start time it was never
 * another process's, so the setup bound the target (0), else -1.
 */
static int trace_still_target(const struct trace *t)
{
	enum proc_state st;

	if (!t->pid_start)
		return 0;
	st = proc_state(t->sum.pid, t->pid_start);
	if (st == PROC_IS)
		return 0;
	if (st == PROC_OTHER)
		ispot_error("pid %d is another process now (the one to trace "
			    "exited): not traced", (int)t->sum.pid);
	else
		ispot_error("pid %d exited: not traced", (int)t->sum.pid);
	return -1;
}

/*
 * A thread the pipeline has just made a state for, named while it may
 * still be there to read (its comm), for the recording's THREADS table.
 * One that is gone, or no memory, leaves it unnamed.
 */
static void trace_thread_made(void *ctx, uint32_t tid)
{
	struct trace *t = ctx;
	char name[THREAD_NAME_LEN];

	task_comm((pid_t)tid, name, sizeof(name));
	if (strcmp(name, "?"))
		thread_names_set(&t->threads, tid, name);
}

/*
 * A thread's comm as it exited (ABI 1.10): the name of one that was gone
 * before trace_thread_made() could read it.  Taken always: a tid reused
 * keeps its later thread's name (thread_names.h), so a thread that
 * renamed itself after it was first seen is kept by its last name.
 */
static void trace_thread_named(void *ctx, uint32_t tid, const char *comm)
{
	struct trace *t = ctx;

	thread_names_set(&t->threads, tid, comm);
}

int trace_start(struct trace *t, pid_t pid)
{
	t->sum.pid = pid;
	/* A child still waiting to exec is a copy of ispotctl. */
	if (t->sum.mode == MODE_RUN)
		snprintf(t->sum.command, sizeof(t->sum.command), "%s",
			 path_base(t->opts->cmd[0]));
	else
		task_comm(pid, t->sum.command, sizeof(t->sum.command));
	if (trace_live_setup(t, pid) || trace_still_target(t) ||
	    trace_new_pipeline(t, trace_frame_in_code, t) ||
	    trace_live_counters(t) || trace_arm(t) ||
	    trace_perfetto_open(t, NULL) || trace_live_enable(t))
		return -1;
	t->sum.t_enable = trace_now();
	if (t->out.rec && trace_begin_recording(t))
		return -1;
	if (t->out.rec) {
		t->pipe->thread_made = trace_thread_made;
		t->pipe->thread_named = trace_thread_named;
		t->pipe->thread_made_ctx = t;
	}
	/* Run's child has not exec'd yet: trace_exec_seen() comes later. */
	if (t->sum.mode != MODE_RUN)
		trace_snapshot_maps(t);
	return trace_first_scan(t);
}

void trace_stop(struct trace *t)
{
	struct trace_writers *out = &t->out;

	trace_last_round(t);
	t->sum.drain = *drain_stats(t->live.drain);
	trace_live_stats(t);
	if (out->rec)
		t->sum.rec_full = recording_full(out->rec,
						 &t->sum.rec_full_size,
						 &t->sum.rec_full_ts);
}

/* What a recording keeps of what the session traced. */
static struct session_tables trace_tables(const struct trace *t)
{
	return (struct session_tables){
		t->funcs, t->nr_funcs, t->probes, t->nr_probes, t->sym,
		t->picked, &t->threads,
	};
}

int trace_begin_recording(struct trace *t)
{
	const struct session_tables tb = trace_tables(t);

	return recording_begin(t->out.rec, &t->sum, &tb);
}

int trace_finish_recording(struct trace *t)
{
	const struct session_tables tb = trace_tables(t);

	return recording_finish(t->out.rec, &t->sum, &tb);
}

int trace_report(struct trace *t)
{
	const struct session_summary *s = &t->sum;

	/*
	 * The signals stay caught while a recording's last chunks may wait
	 * for a slow reader.  A trace that ended on its own (its target
	 * exited, --duration) was asked by no signal: the first that comes
	 * then gives the write up (a lone SIGTERM of timeout(1) must end
	 * it); after a stop a signal asked, it takes a second
	 * (trace_signal_again).  Without a recording, nothing waits.
	 */
	if (!t->out.rec)
		trace_release_signals();	/* no write to wait for */
	else if (!trace_signal)
		recording_set_give_up(t->out.rec, &trace_signal);
	trace_stop(t);
	/* A trace that cannot be written is said; the report still comes. */
	if (trace_perfetto_close(t, true))
		t->outputs_failed = true;
	if (s->stop_reason == ISPOT_STOP_SECURE_EXEC)
		ispot_error("pid %d executed a privileged (set-user-ID, "
			    "set-group-ID or file-capability) program: tracing "
			    "stopped there, as perf does; attach to it as root "
			    "once it runs instead", (int)s->pid);
	else if (s->target_exited && s->mode == MODE_ATTACH)
		ispot_error("process %d exited after %.2fs of tracing; the "
			    "report covers that time", (int)s->pid,
			    (s->t_end - s->t_enable) / 1e9);
	/*
	 * Named now, before the report's own look-ups re-read any maps.  A
	 * reader slow to take the last chunk and tables may be waited for,
	 * the signals still caught: one gives the write up (above), and the
	 * report still comes.
	 */
	if (t->out.rec && trace_finish_recording(t))
		t->outputs_failed = true;
	trace_release_signals();
	if (trace_print_report(t))
		return -1;
	return t->outputs_failed ? -1 : 0;
}

void trace_free(struct trace *t)
{
	/* A session that failed before its report gives them back here. */
	trace_release_signals();
	trace_live_disable(t);
	trace_perfetto_close(t, false);
	trace_live_free(t);
	pipeline_free(t->pipe);
	elf_symbolizer_free(t->sym);
	free(t->probes);
	recording_free(t->out.rec);
	baseline_free(t->baseline);
	if (t->picked)
		autopick_free(t->picked);
	free(t->picked);
	thread_names_free(&t->threads);
	trace_funcs_free(t);
	memset(t, 0, sizeof(*t));
	t->live.dev.fd = -1;
}
