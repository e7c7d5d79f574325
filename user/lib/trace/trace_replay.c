// SPDX-License-Identifier: GPL-2.0
/*
 * A recorded session played again through the live session's own code:
 * `ispotctl report FILE`, and the solo calls --baseline FILE lends.  The
 * recording's summary is the session's (recording/session.h), its probe
 * table arms the pipeline as trace_arm() did (trace_pipe_probe()), its
 * events reach trace_feed() through a record source (recording/replay.c)
 * as the drained rings do live, stack frames are judged as they were
 * judged then, and trace_print_report() writes the report, naming
 * addresses as the target named them; --perfetto's trace is written from
 * the same records.  No device, no target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/writers.h"
#include "recording/baseline.h"
#include "recording/recording.h"
#include "trace/autopick.h"
#include "trace/trace_internal.h"
#include "trace/wall_folded.h"
#include "util/errors.h"
#include "util/same_file.h"

/* A session with no device, to replay with @o. */
static void replay_init(struct trace *t, const struct trace_opts *o)
{
	memset(t, 0, sizeof(*t));
	t->live.dev.fd = -1;
	t->opts = o;
}

/*
 * The recorded functions, keyed as recorded unless a --key of the
 * report names them.
 */
static int replay_funcs(struct trace *t, struct recording_file *rf,
			bool check_keys)
{
	uint32_t i;

	t->funcs = rf->funcs;
	t->nr_funcs = t->cap_funcs = rf->nr_funcs;
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

/*
 * As trace_start() built it: the counters the module supported, and the
 * probes as trace_arm() gave them.  Frames are judged by the answers
 * @src gives as it is read.
 */
static int replay_pipeline(struct trace *t, const struct recording_file *rf,
			   struct recording_source *src)
{
	bool counted = false;
	uint32_t i;

	if (trace_new_pipeline(t, recording_frame_ok, &src->cur))
		return -1;
	for (i = 0; i < t->sum.nr_counters; i++)
		counted |= t->sum.counters[i].supported;
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

/*
 * Play @rf into @t up to the end of its pipeline; the Perfetto trace, if
 * asked, is written (one that cannot be is said, and the replay goes on
 * with t->outputs_failed set, as a live session's report still comes).
 * With @check_keys, a --key naming no recorded function is an error, as
 * live.
 */
static int replay_into(struct trace *t, struct recording_file *rf,
		       bool check_keys)
{
	struct recording_source src;
	struct perfetto_clock clock;
	long records;
	int ret = -1;

	t->sum = rf->sum;
	t->sum.rec_cut = rf->cut;
	t->sum.rec_cut_at = rf->cut_at;
	t->sum.rec_cut_damaged = rf->tail_damage != NULL;
	t->sum.rec_cut_stats = rf->cut_missing & (1u << REC_SEC_STATS);
	t->sum.rec_cut_names = rf->cut_missing & (1u << REC_SEC_NAMES);
	t->sum.rec_lost = rf->lost;
	/* Its threads' names, for the Perfetto tracks (4.1 on). */
	t->threads = rf->threads;
	memset(&rf->threads, 0, sizeof(rf->threads));
	clock.monotonic_ns = t->sum.t_enable;
	clock.boottime_ns = rf->meta.start_boottime_ns;
	recording_source_init(&src, rf);
	if (replay_funcs(t, rf, check_keys) ||
	    replay_pipeline(t, rf, &src) || trace_perfetto_open(t, &clock))
		goto out;
	records = trace_feed(t, &src.src, UINT64_MAX);
	if (records < 0)
		goto out;
	/* The records the file holds, which the report counts. */
	t->sum.drain.records = records;
	/* Cut short before its STATS: the session ran to its last event. */
	if (rf->cut_missing & (1u << REC_SEC_STATS))
		t->sum.t_end = src.last_ts > t->sum.t_enable ?
			       src.last_ts : t->sum.t_enable;
	/*
	 * Stopped at --max-size: the file holds the session to its last
	 * record kept, so the report's time ends there (the threads' time,
	 * the duration, the call rates), as its note says; its drops stay
	 * the whole session's, a share of the session's records.
	 */
	else if (t->sum.rec_full) {
		t->sum.t_end = session_kept_end(&t->sum);
		t->sum.rec_session_records = rf->sum.drain.records;
	}
	trace_close_pipeline(t);
	if (trace_perfetto_close(t, true))
		t->outputs_failed = true;
	ret = 0;
out:
	/* The frame check reads the source: no stack is judged after. */
	if (t->pipe)
		stacks_set_check(t->pipe->stacks, NULL, NULL);
	recording_source_free(&src);
	return ret;
}

/*
 * --auto's profile, if the session took one: the JSON's "auto" object and
 * the HTML report's wall-time flame graph come from it, as live.  With
 * --wall-folded there must be one: 0, or -1 after one line.
 */
static int replay_profile(struct trace *t, struct recording_file *rf)
{
	t->picked = rf->picked;
	rf->picked = NULL;
	if (!t->opts->wall_folded || t->picked)
		return 0;
	if (rec_format_has_profile(rf))
		ispot_error("%s holds no wall-clock profile (it was recorded "
			    "without --auto): drop --wall-folded", rf->path);
	else
		ispot_error("%s is a recording of format %u.%u, which keeps no "
			    "wall-clock profile (3.1 on do): drop "
			    "--wall-folded", rf->path, rf->meta.major,
			    rf->meta.minor);
	return -1;
}

/* --wall-folded: the profile's lines, once the replay has succeeded. */
static int replay_wall_folded(const struct trace *t)
{
	char err[512];

	if (!t->opts->wall_folded)
		return 0;
	if (wall_folded_write(t->opts->wall_folded, &t->picked->wall, err,
			      sizeof(err))) {
		ispot_error("%s", err);
		return -1;
	}
	return 0;
}

/* report --header: the recording's tables, no record replayed. */
static int replay_header(const struct trace_opts *o)
{
	struct recording_file rf = { 0 };
	int ret = recording_open(o->recording, &rf);

	if (!ret)
		ret = o->json ? recording_header_json(stdout, &rf) :
				recording_header(stdout, &rf);
	if (ret > 0) {
		output_stdout_failed(ret);
		ret = -1;
	}
	recording_close(&rf);
	return ret;
}

int trace_replay(const struct trace_opts *o)
{
	struct recording_file rf = { 0 };
	struct trace t;
	int ret = -1;

	if (o->header)
		return replay_header(o);
	replay_init(&t, o);
	/* Refused before the work, as a live session refuses them. */
	if (output_check(o) || recording_open(o->recording, &rf) ||
	    trace_load_baseline(&t))
		goto out;
	/* Before the replay: the Perfetto trace names keys as it goes. */
	t.sym = rf.names;
	rf.names = NULL;
	if (replay_profile(&t, &rf) || replay_into(&t, &rf, true))
		goto out;
	if (replay_wall_folded(&t))
		t.outputs_failed = true;
	ret = trace_print_report(&t);
	if (t.outputs_failed)
		ret = -1;
out:
	recording_close(&rf);
	trace_free(&t);
	return ret;
}

/*
 * Replay @ro->baseline with @ro's --key rules (one naming no recorded
 * function is no error here), for its engine's solo calls.  Returns the
 * baseline, or NULL after one line (not a recording, damaged, out of
 * memory).
 */
static struct baseline *baseline_load(const struct trace_opts *ro)
{
	struct recording_file rf = { 0 };
	struct trace_opts o = *ro;
	struct baseline *b = NULL;
	struct trace t;

	/* Its report's figures only: no file is written, none re-read. */
	o.recording = ro->baseline;
	o.baseline = NULL;
	output_none(&o);
	replay_init(&t, &o);
	if (!recording_open(o.recording, &rf) && !replay_into(&t, &rf, false)) {
		b = baseline_take(ro->baseline, t.funcs, t.nr_funcs,
				  t.pipe->sci);
		if (!b)
			ispot_error("out of memory reading --baseline %s",
				    ro->baseline);
	}
	recording_close(&rf);
	trace_free(&t);
	return b;
}

/*
 * --baseline's solo calls, as the reference of this session's figures;
 * refused when it is the recording read or written here.
 */
int trace_load_baseline(struct trace *t)
{
	const struct trace_opts *o = t->opts;

	if (!o->baseline)
		return 0;
	/* Its solo calls would count twice; record -o would replace it. */
	if (same_file(o->baseline, o->recording) ||
	    same_file(o->baseline, o->record)) {
		ispot_error("--baseline %s is the recording this command %s: "
			    "give a recording of another run", o->baseline,
			    o->recording ? "reports" : "writes");
		return -1;
	}
	t->baseline = baseline_load(t->opts);
	return t->baseline ? 0 : -1;
}
