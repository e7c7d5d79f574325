// SPDX-License-Identifier: GPL-2.0
/*
 * `ispotctl report FILE`: a recorded session played again through the
 * live session's own code.  The recording's probe table arms the
 * pipeline as trace_arm() did (trace_pipe_probe()), every record goes
 * through trace_on_record(), thread lifetimes and the trampoline come
 * back where the session gave them, stack frames are judged as they were
 * judged then, and trace_print_report() writes the report, naming
 * addresses as the target named them; --perfetto's trace is written from
 * the same records.  No device, no target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recording/baseline.h"
#include "recording/recording.h"
#include "trace/trace.h"
#include "trace/trace_internal.h"
#include "util/errors.h"

/*
 * The recorded functions, keyed as recorded unless a --key of the
 * report names them.
 */
static int replay_funcs(struct trace *t, struct recording_file *rf,
			bool check_keys)
{
	uint32_t i;

	t->funcs = rf->funcs;
	t->nr_funcs = rf->nr_funcs;
	rf->funcs = NULL;
	for (i = 0; i < t->nr_funcs; i++) {
		struct trace_func *f = &t->funcs[i];
		struct key_target kt = { f->sym.obj, f->sym.name,
					 f->sym.linkage_name };

		trace_opts_key_given(t->opts, &kt, &f->key);
		key_rule_format(&f->key, f->key_desc, sizeof(f->key_desc));
	}
	return check_keys ? trace_check_keys(t) : 0;
}

/* As trace_setup(), trace_counters() and trace_arm() built it. */
static int replay_pipeline(struct trace *t, struct recording_file *rf,
			   struct recording_cursor *cur)
{
	const struct recording_meta *m = &rf->meta;
	bool counted = false;
	uint32_t i;

	if (trace_new_pipeline(t, recording_frame_ok, cur))
		return -1;
	for (i = 0; i < m->nr_counters; i++) {
		t->counters[i] = m->counters[i];
		counted |= m->counters[i].supported;
	}
	if (counted && pipeline_enable_counters(t->pipe)) {
		ispot_error("out of memory setting up the counters");
		return -1;
	}
	for (i = 0; i < rf->nr_probes; i++) {
		const struct trace_probe *p = &rf->probes[i];

		if (trace_pipe_probe(t, p->id, p->func, p->role, p->sync))
			return -1;
		/* A function's probe, a block's first site: as trace_arm(). */
		if (p->func < t->nr_funcs && !t->funcs[p->func].probe_id)
			t->funcs[p->func].probe_id = p->id;
	}
	return 0;
}

/* Every event, in the order the session gave it to its pipeline. */
static int replay_events(struct trace *t, const struct recording_file *rf,
			 struct recording_cursor *cur)
{
	struct recording_event ev;
	int n;

	while ((n = recording_next(rf, cur, &ev)) > 0) {
		switch (ev.type) {
		case REC_EV_RECORD:
			trace_on_record(t, ev.rec);
			t->replayed.records++;
			break;
		case REC_EV_THREAD_SEEN:
			trace_thread_seen(t, ev.tid, ev.a);
			break;
		case REC_EV_THREAD_EXIT:
			trace_thread_exit(t, ev.tid, ev.a, ev.b);
			break;
		case REC_EV_TRAMPOLINE:
			trace_set_trampoline(t, ev.a, ev.b);
			break;
		}
	}
	return n;
}

/* The session's figures, as it ended. */
static void replay_session(struct trace *t, struct recording_file *rf)
{
	const struct recording_meta *m = &rf->meta;
	const struct recording_stats *s = &rf->stats;

	t->mode = m->mode;
	t->pid = m->pid;
	snprintf(t->command, sizeof(t->command), "%s", m->command);
	t->tasks = m->tasks;
	t->waits = m->waits;
	t->replayed.late = s->drain.late;
	t->replayed.corrupt = s->drain.corrupt;
	t->replayed.rounds = s->drain.rounds;
	t->dropped = s->dropped;
	t->lost_exits = s->lost_exits;
	t->stop_reason = s->stop_reason;
	t->t_enable = s->t_enable;
	t->t_end = s->t_end;
	t->target_exited = s->target_exited;
	t->interrupted = s->interrupted;
	t->rec_full = s->full;
	t->rec_full_size = s->full_size;
	t->rec_full_ts = s->full_ts;
}

/*
 * Play @rf into @t, whose opts are set, up to the end of its pipeline;
 * the Perfetto trace, if asked, is written.  With @check_keys, a --key
 * naming no recorded function is an error, as live.
 */
static int replay_into(struct trace *t, struct recording_file *rf,
		       bool check_keys)
{
	struct recording_cursor cur = { 0 };
	struct perfetto_clock clock;
	int ret = -1;

	replay_session(t, rf);
	clock.monotonic_ns = t->t_enable;
	clock.boottime_ns = rf->meta.start_boottime_ns;
	if (replay_funcs(t, rf, check_keys) ||
	    replay_pipeline(t, rf, &cur) ||
	    trace_perfetto_open(t, &clock) || replay_events(t, rf, &cur))
		goto out;
	trace_close_pipeline(t);
	ret = trace_perfetto_close(t, true);
out:
	/* The frame check reads the cursor: no stack is judged after. */
	if (t->pipe)
		stacks_set_check(t->pipe->stacks, NULL, NULL);
	recording_cursor_free(&cur);
	return ret;
}

/* The recorded session's report options, which a replay reports by. */
static void replay_opts(struct trace_opts *o, const struct recording_file *rf)
{
	o->sample = rf->meta.sample;
	o->stack_period = rf->meta.stack_period;
	o->nr_counters = rf->meta.nr_counters;
}

int trace_replay_engine(struct trace_opts *o, struct trace *t)
{
	struct recording_file rf = { 0 };
	int ret = -1;

	memset(t, 0, sizeof(*t));
	t->dev.fd = -1;
	t->opts = o;
	if (recording_open(o->recording, &rf))
		goto out;
	replay_opts(o, &rf);
	ret = replay_into(t, &rf, false);
out:
	recording_close(&rf);
	return ret;
}

int trace_replay(const struct trace_opts *ro)
{
	struct recording_file rf = { 0 };
	struct trace_opts o = *ro;
	struct trace t;
	int ret = -1;

	memset(&t, 0, sizeof(t));
	t.dev.fd = -1;
	t.opts = &o;
	/* Refused before the work, as a live session refuses them. */
	if (trace_check_outputs(&o) || recording_open(ro->recording, &rf) ||
	    trace_load_baseline(&t))
		goto out;
	/* What the recorded session's report said of its options. */
	replay_opts(&o, &rf);
	if (replay_into(&t, &rf, true))
		goto out;
	t.sym = rf.names;
	rf.names = NULL;
	ret = trace_print_report(&t);
out:
	recording_close(&rf);
	trace_free(&t);
	return ret;
}
