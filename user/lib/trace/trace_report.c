// SPDX-License-Identifier: GPL-2.0
/*
 * The report of a session, live or replayed from a recording: the
 * functions as the report builder takes them, the session's header
 * figures and footer notes; the table, the JSON, the folded stacks, the
 * pictures and the HTML page are then written by the table of outputs
 * (output/writers.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/writers.h"
#include "recording/baseline.h"
#include "report/pictures.h"
#include "report/report.h"
#include "trace/autopick.h"
#include "trace/trace_internal.h"
#include "util/errors.h"
#include "util/format.h"

/* Footer notes: eleven of the session's, the rest --key auto's. */
#define TRACE_NOTES		16
#define TRACE_SESSION_NOTES	11
/*
 * Calls a second past which a function's probes are said to slow its
 * program: two traps a call, 1 to 3 us on hardware, are 2 to 6% of a
 * CPU at this rate (and --auto picks by time, not by calls).
 */
#define TRACE_HOT_CALLS_PER_S	20000
/* A rate needs some length to be one: not a burst of a few calls. */
#define TRACE_HOT_MIN_NS	(100 * 1000000ull)

/* The session's functions as the report builder takes them (report.h). */
static struct report_source_func *trace_source_funcs(const struct trace *t)
{
	struct report_source_func *sf = calloc(t->nr_funcs + 1, sizeof(*sf));
	size_t i;

	for (i = 0; sf && i < t->nr_funcs; i++) {
		const struct trace_func *f = &t->funcs[i];

		sf[i].name = f->sym.name;
		sf[i].linkage_name = f->sym.linkage_name;
		sf[i].object = f->sym.obj;
		sf[i].key_desc = f->key_desc;
		sf[i].key_auto = f->key_auto;
		sf[i].rule = &f->key;
	}
	return sf;
}

/* Append one footer note to @r, of @note's TRACE_NOTES at most. */
static void __attribute__((format(printf, 3, 4)))
trace_note(struct report *r, char (*note)[256], const char *fmt, ...)
{
	va_list ap;

	if (r->nr_notes >= TRACE_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(note[r->nr_notes], sizeof(note[0]), fmt, ap);
	va_end(ap);
	r->nr_notes++;
}

/* Which functions --baseline gave solo calls, and whether it matches. */
static void trace_baseline_note(const struct trace *t, struct report *r,
				char (*note)[256])
{
	size_t other, n = baseline_matches(t->baseline, t->funcs, t->nr_funcs,
					   &other);

	if (other)
		trace_note(r, note, "the solo calls of %zu function(s) in "
			   "--baseline %s are part of their interference "
			   "reference; %zu of them sit elsewhere in their "
			   "object there: another build, whose times may "
			   "differ", n, t->baseline->path, other);
	else
		trace_note(r, note, "the solo calls of %zu function(s) in "
			   "--baseline %s are part of their interference "
			   "reference", n, t->baseline->path);
}

/* The most called function, if its calls came fast enough to cost. */
static void trace_hot_note(const struct trace *t,
			   const struct sci_report *sr, struct report *r,
			   char (*note)[256])
{
	const struct session_summary *s = &t->sum;
	double secs = session_traced_ns(s) / 1e9;
	const struct sci_result *hot = NULL;
	size_t i;

	if (s->t_end < s->t_enable + TRACE_HOT_MIN_NS || s->sample > 1)
		return;
	for (i = 0; i < sr->nr_funcs; i++)
		if (sr->funcs[i].func_id < t->nr_funcs &&
		    (!hot || sr->funcs[i].calls > hot->calls))
			hot = &sr->funcs[i];
	if (!hot || hot->calls / secs < TRACE_HOT_CALLS_PER_S)
		return;
	trace_note(r, note, "%s was called %.0f times a second: two traps "
		   "a call slowed the program; probe its callers with --func, "
		   "or record 1 in N calls with --sample N",
		   t->funcs[hot->func_id].sym.name, hot->calls / secs);
}

/*
 * A traced function that was entered and never returned while traced (a
 * thread's loop, which --auto may pick by its wall time): it has no row,
 * and its time is in what it calls.
 */
static void trace_open_note(const struct trace *t,
			    const struct sci_report *sr, struct report *r,
			    char (*note)[256])
{
	size_t i, j, n = 0, first = 0;
	uint32_t open, first_open = 0;

	for (i = 0; i < t->nr_funcs; i++) {
		if (t->funcs[i].is_block)
			continue;
		for (j = 0; j < sr->nr_funcs; j++)
			if (sr->funcs[j].func_id == i && sr->funcs[j].calls)
				break;
		open = pipeline_open_at_end(t->pipe, i);
		if (j < sr->nr_funcs || !open)
			continue;
		if (!n++) {
			first = i;
			first_open = open;
		}
	}
	if (!n)
		return;
	trace_note(r, note, "%s%s was entered and never returned while "
		   "traced (%u call%s still open at the end: a loop that "
		   "outlives the trace, or a thread that ended inside it), so "
		   "it has no row; its time is in what it calls: trace those",
		   t->funcs[first].sym.name, n > 1 ? " (and others)" : "",
		   first_open, first_open == 1 ? "" : "s");
}

/*
 * The notes on the files: where the recording or the Perfetto trace
 * stopped at its bound, a recording read cut short or damaged.
 */
static void trace_file_notes(const struct trace *t, struct report *r,
			     char (*note)[256])
{
	const struct session_summary *s = &t->sum;
	unsigned long long open_at_loss = t->pipe ?
		pairer_stats(t->pipe->pairer)->open_at_loss : 0;
	char size[32], when[32], lost_time[96] = "", open_calls[64] = "";

	if (s->rec_full)
		trace_note(r, note, "the recording stopped at %s (--max-size) "
			   "after %s of tracing: a report of it covers that "
			   "time only%s", format_bytes(size, sizeof(size),
						       s->rec_full_size),
			   format_ns(when, sizeof(when), s->rec_full_ts >
				     s->t_enable ? s->rec_full_ts -
				     s->t_enable : 0),
			   s->dropped && s->rec_session_records ?
			   " (its drops are the whole session's)" : "");
	if (t->out.perfetto_full)
		trace_note(r, note, "the Perfetto trace stopped at %s "
			   "(--perfetto-max-size) after %s of tracing: its "
			   "slices end there; the report covers the whole "
			   "session", format_bytes(size, sizeof(size),
						   t->opts->perfetto_max_size),
			   format_ns(when, sizeof(when),
				     t->out.perfetto_full_ts > s->t_enable ?
				     t->out.perfetto_full_ts - s->t_enable :
				     0));
	if (s->rec_cut)
		trace_note(r, note, "the recording was %s: this reports its "
			   "whole chunks, to byte %llu%s%s",
			   s->rec_cut_damaged ? "damaged after its events" :
			   "cut short (a crash or a kill of record, or it is "
			   "still being written)",
			   (unsigned long long)s->rec_cut_at,
			   s->rec_cut_stats ? "; the drops are unknown (not 0) "
			   "and the duration runs to its last event kept" : "",
			   s->rec_cut_names ? "; its addresses are unnamed" :
			   "");
	if (s->rec_lost_ns)
		snprintf(lost_time, sizeof(lost_time), ", and the threads' "
			 "time leaves out the %s %s spanned",
			 format_ns(when, sizeof(when), (double)s->rec_lost_ns),
			 s->rec_lost == 1 ? "it" : "they");
	if (s->rec_lost && open_at_loss)
		snprintf(open_calls, sizeof(open_calls), " and the %llu call%s "
			 "open when %s began", open_at_loss,
			 open_at_loss == 1 ? "" : "s",
			 s->rec_lost == 1 ? "it" : "they");
	if (s->rec_lost)
		trace_note(r, note, "%u chunk%s of the recording's events %s "
			   "damaged and left out (see the line on stderr): the "
			   "figures miss their calls%s%s", s->rec_lost,
			   s->rec_lost == 1 ? "" : "s",
			   s->rec_lost == 1 ? "was" : "were", open_calls,
			   lost_time);
}

/*
 * The session's own notes, after the workload's: functions found in a
 * library, late records, --sample, the files' (trace_file_notes()), a
 * secure exec, a command --auto's sampling left little of, a
 * function called too often to trace cheaply, one that never returned, a
 * baseline.
 */
static void trace_session_notes(const struct trace *t,
				const struct sci_report *sr, struct report *r,
				char (*note)[256])
{
	const struct session_summary *s = &t->sum;
	const struct drain_stats *ds = &s->drain;
	unsigned long long open_at_loss = t->pipe ?
		pairer_stats(t->pipe->pairer)->open_at_loss : 0;
	char size[32], when[32];

	if (r->nr_notes < TRACE_NOTES &&
	    trace_lib_note(t, note[r->nr_notes], sizeof(note[0])))
		r->nr_notes++;

	if (ds->late)
		trace_note(r, note, "%llu records reached a ring late (after "
			   "%llu ms); they were still paired",
			   (unsigned long long)ds->late,
			   DRAIN_SLACK_NS / 1000000);
	if (s->sample > 1)
		trace_note(r, note, "sampling 1 in %u calls: calls are counted "
			   "as recorded, losses scale with it", s->sample);
	trace_file_notes(t, r, note);
	if (t->pipe && t->pipe->stats.ring_losses)
		trace_note(r, note, "full rings dropped records %llu time%s "
			   "(%llu records): the %llu call%s open in their "
			   "threads then went unscored, as their returns may "
			   "be among them; %.1f ms whose calls they took was "
			   "left out of the threads' lifetimes",
			   (unsigned long long)t->pipe->stats.ring_losses,
			   t->pipe->stats.ring_losses == 1 ? "" : "s",
			   (unsigned long long)t->pipe->stats.ring_lost_records,
			   open_at_loss, open_at_loss == 1 ? "" : "s",
			   t->pipe->stats.ring_lost_ns / 1e6);
	if (s->stop_reason == ISPOT_STOP_SECURE_EXEC)
		trace_note(r, note, "tracing stopped when pid %d executed a "
			   "set-user-ID, set-group-ID or file-capability "
			   "program (as perf does); the report covers the time "
			   "before", (int)s->pid);
	/* run --auto: the command's run went to the sampling, not tracing. */
	if (s->mode == MODE_RUN && t->picked && s->target_exited &&
	    s->t_end - s->t_enable < t->picked->duration_ns / 4)
		trace_note(r, note, "the command exited %s after --auto's %s "
			   "of sampling: most of its run was sampled, not "
			   "traced; give a shorter --auto-time, or name the "
			   "functions with --func",
			   format_ns(when, sizeof(when),
				     session_traced_ns(s)),
			   format_ns(size, sizeof(size),
				     t->picked->duration_ns));
	trace_hot_note(t, sr, r, note);
	trace_open_note(t, sr, r, note);
	if (t->baseline) {
		/* The notes under a function say what it gave that one. */
		r->baseline = t->baseline->path;
		trace_baseline_note(t, r, note);
	}
}

/* The session's header figures and the sections only ispotctl shows. */
static void trace_auto_json(struct json *j, const void *picked)
{
	autopick_json(j, picked);
}

/* Whether --sync's lock calls were traced, live or in the recording. */
static bool trace_has_sync_probes(const struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nr_probes; i++)
		if (t->probes[i].sync)
			return true;
	return false;
}

static void trace_report_header(const struct trace *t, struct report *r)
{
	const struct pair_stats *ps = pairer_stats(t->pipe->pairer);
	const struct session_summary *s = &t->sum;

	r->pid = s->pid;
	r->command = s->command;
	r->duration_ns = s->t_end - s->t_enable;
	r->recorded = s->drain.records;
	r->drop_base = s->rec_session_records;
	r->dropped = s->dropped;
	r->dropped_unknown = s->rec_cut && s->rec_cut_stats;
	r->unpaired = ps->unpaired_entries + ps->unpaired_exits;
	r->drop_bursts = t->pipe->stats.ring_losses;
	r->dropped_told = t->pipe->stats.ring_lost_records;
	r->open_at_drops = ps->open_at_loss;
	r->dropped_time_ns = t->pipe->stats.ring_lost_ns;
	r->counters = s->counters;
	r->nr_counters = s->nr_counters;
	r->excess = t->pipe->excess;
	r->stacks = t->pipe->stacks;
	r->wide = t->opts->wide;
	r->all_futexes = t->opts->all_futexes;
	r->sync = trace_has_sync_probes(t);
	/*
	 * Blocks that were made, live or in a recording alike (a recording
	 * does not keep the option), so that both give the same report.
	 */
	if (t->pipe->solo.blocks)
		r->solo = &t->pipe->solo;
	if (t->picked) {
		r->json_extra = trace_auto_json;
		r->json_extra_ctx = t->picked;
	}
}

/* --auto's profile, for the HTML report's wall-time flame graph. */
static int trace_wall_folded(FILE *f, const void *picked)
{
	const struct autopick *a = picked;

	return wall_folded_print(f, &a->wall);
}

/* Every output the options ask for, drawn from @r and the engine. */
static int trace_write_report(const struct trace *t, const struct report *r)
{
	const struct picture_source pic = {
		.sci = t->pipe->sci,
		.durations = t->pipe->durations,
		.wall_folded = t->picked ? trace_wall_folded : NULL,
		.wall_ctx = t->picked,
	};
	const struct output_doc doc = { r, &pic, t->opts->top };

	return output_write(t->opts, &doc);
}

static int trace_print(struct trace *t, struct sci_report *sr)
{
	const struct timeline_futex *futexes = NULL;
	struct report_source src = {
		.nr_funcs = t->nr_funcs,
		.shapes = t->pipe->shapes,
		.sym = t->sym,
	};
	struct report r = { .sci = sr };
	struct report_source_func *funcs = NULL;
	struct argb_verdict *verdicts;
	struct report_build b = { 0 };
	char note[TRACE_NOTES][256];
	const char *notes[TRACE_NOTES];
	size_t i;
	int ret = -1;

	/* First: an auto function's key is the verdict's (trace_workload.c). */
	verdicts = trace_workload(t, sr, note, &r.nr_notes, TRACE_NOTES -
				  TRACE_SESSION_NOTES);
	if (verdicts)
		funcs = trace_source_funcs(t);
	src.funcs = funcs;
	if (t->pipe->tl)
		src.nr_futexes = timeline_futexes(t->pipe->tl, &futexes);
	src.futexes = futexes;
	trace_maps_for_report(t);
	if (!funcs || report_build(&b, &src, &r)) {
		ispot_error("out of memory writing the report");
		goto out;
	}
	trace_report_header(t, &r);
	r.verdicts = verdicts;
	trace_session_notes(t, sr, &r, note);
	for (i = 0; i < r.nr_notes; i++)
		notes[i] = note[i];
	r.notes = notes;
	ret = trace_write_report(t, &r);
out:
	report_build_free(&b);
	free(funcs);
	free(verdicts);
	return ret;
}

int trace_print_report(struct trace *t)
{
	struct sci_report *sr = NULL;
	int ret;

	/* Seeded last: a block the trace never ran stays out of the report. */
	if (!t->baseline || !baseline_seed(t->baseline, t->funcs, t->nr_funcs,
					   t->pipe->sci))
		sr = sci_report(t->pipe->sci, t->sum.t_end);
	if (!sr) {
		ispot_error("out of memory computing the scores");
		return -1;
	}
	ret = trace_print(t, sr);
	sci_report_free(sr);
	return ret;
}
