// SPDX-License-Identifier: GPL-2.0
/*
 * A window's JSON line, its own members: the envelope (times, budget,
 * target, events), --auto's picks, the notes and the run's totals
 * (window.c writes the report's functions, futexes and solo blocks
 * between them); see window.h.
 */
#include <time.h>

#include "analysis/autokey.h"
#include "trace/autopick.h"
#include "util/json.h"
#include "wire/window_log.h"
#include "window.h"

void window_json_totals(struct json *j, const struct window_set *w)
{
	uint32_t i;

	json_array_begin(j, "totals");
	for (i = 0; i < w->nr_funcs; i++) {
		const struct window_func *f = &w->funcs[i];

		if (!f->total_calls)
			continue;
		json_object_begin(j, NULL);
		json_string(j, "name", f->name);
		json_string(j, "object", f->object);
		json_u64(j, "calls", f->total_calls);
		json_u64(j, "loss_ns", f->total_loss_ns);
		json_u64(j, "observed_ns", f->total_observed_ns);
		json_double(j, "sci", f->total_observed_ns ?
			    (double)f->total_loss_ns / f->total_observed_ns :
			    0.0);
		if (f->has_interference) {
			/*
			 * Over the time outside solo blocks, as each window's
			 * figure (analysis/sci.h): the blocks' calls are
			 * neither reference nor loss.
			 */
			uint64_t outside =
				f->total_aside_ns < f->total_observed_ns ?
				f->total_observed_ns - f->total_aside_ns : 0;

			json_u64(j, "interference_ns",
				 f->total_interference_ns);
			json_u64(j, "external_ns", f->total_external_ns);
			json_u64(j, "solo_block_ns", f->total_aside_ns);
			json_double(j, "interference", outside ?
				    (double)f->total_interference_ns /
				    outside : 0.0);
		}
		json_object_end(j);
	}
	json_array_end(j);
}

/* What a reader of the window should know: auto keys it could not choose. */
void window_json_notes(struct json *j, const struct window_set *w,
		       const struct argb_verdict *verdicts)
{
	char note[256];
	uint32_t i;

	json_array_begin(j, "notes");
	for (i = 0; i < w->nr_funcs; i++) {
		if (w->funcs[i].key.kind != KEY_AUTO ||
		    !verdicts[i].undecided)
			continue;
		autokey_sparse_note(note, sizeof(note), w->funcs[i].name,
				    &verdicts[i], "a longer --window or a "
				    "larger --budget records more");
		json_string(j, NULL, note);
	}
	json_array_end(j);
}

/*
 * @w's armed time as the window's figures give it: at most its length,
 * since its last burst's disarm is timed after the window's end was read.
 */
uint64_t window_armed_ns(const struct window_set *w, uint64_t now)
{
	uint64_t len = now > w->start_ns ? now - w->start_ns : 0;

	return w->armed_ns < len ? w->armed_ns : len;
}

/* The line's own members, before the report's "functions". */
void window_json_envelope(struct json *j, const struct window_set *w,
			  const struct window_target *tg, uint64_t now,
			  double duty, double overhead)
{
	char when[64];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	window_log_time(when, sizeof(when), &ts);
	json_string(j, "time", when);
	json_u64(j, "window_ns", now - w->start_ns);
	json_u64(j, "armed_ns", window_armed_ns(w, now));
	json_double(j, "duty_cycle", duty);
	json_double(j, "overhead_estimate", overhead);
	json_u64(j, "bursts", w->bursts);
	json_u64(j, "calls_armed", w->calls);
	json_u64(j, "target_cpu_ns", w->cpu_ns);
	json_double(j, "call_cost_ns", w->call_cost_ns);
	json_u64(j, "daemon_cpu_ns", w->daemon_ns);
	json_object_begin(j, "target");
	json_i64(j, "pid", tg->pid);
	json_string(j, "exe", tg->exe);
	json_string(j, "cgroup", tg->cgroup);
	json_object_end(j);
	json_object_begin(j, "events");
	json_u64(j, "recorded", w->recorded);
	json_u64(j, "dropped", w->dropped);
	/* Left out of the threads' lifetimes, as the report's (usage.rst). */
	json_u64(j, "dropped_time_ns", w->dropped_time_ns);
	json_u64(j, "unpaired", w->unpaired);
	/* Calls cut by the end of a burst: sampling, not a fault. */
	json_u64(j, "open_at_disarm", w->open_at_stop);
	/* Threads whose exit record a full ring dropped, closed by scans. */
	json_u64(j, "exits_lost", w->lost_exits);
	json_object_end(j);
}

/*
 * --auto: what the last profile picked and why, how many windows ago,
 * and what the profiles of this window cost (in overhead_estimate too).
 */
void window_json_picks(struct json *j, const struct window_target *tg)
{
	if (!tg->picked)
		return;
	json_object_begin(j, "auto");
	json_u64(j, "picked_windows_ago", tg->picked_windows_ago);
	json_string(j, "why", tg->profile_why);
	json_u64(j, "profile_cost_ns", tg->profile_cost_ns);
	if (tg->pick_error)
		json_string(j, "error", tg->pick_error);
	autopick_json_members(j, tg->picked);
	json_object_end(j);
}
