// SPDX-License-Identifier: GPL-2.0
/*
 * The interference figure in the report (analysis/interference.h): the
 * INTERF cell beside SCI, the one-line notes under a function that say
 * why SCI and INTERF differ, and the "interference",
 * "interference_bound", "solo_calls", "external_ns",
 * "interference_reference_weak" and "seeded_solo_calls" members
 * (among others) of a function's or a key's JSON object
 * (Documentation/usage.rst, "Reading SCI next to INTERF").
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/format.h"
#include "util/json.h"
#include "analysis/solo.h"
#include "report/report.h"

/* Below this SCI, a gap between SCI and INTERF is not worth a line. */
#define NOTE_MIN_SCI		0.05
/* INTERF under this share of SCI reads as "mostly its own variance". */
#define NOTE_OWN_SHARE		0.5
/* Solo calls at least this share of the mean read as "as slow alone". */
#define NOTE_AS_SLOW		0.9
/* External time worth a line: this share of the threads' time. */
#define NOTE_MIN_EXTERNAL	0.02

static const char *const ref_names[] = {
	[INTERF_REF_NONE] = "none",
	[INTERF_REF_SOLO] = "solo",
	[INTERF_REF_FIT] = "fit",
	[INTERF_REF_GATED] = "gated",
};

/*
 * Where a reference came from, as the JSON names it: "baseline" when a
 * --baseline recording's calls made up the evidence it needed, else its
 * kind.
 */
static const char *ref_source(const struct report *r,
			      const struct interf_estimate *x)
{
	if (r->baseline &&
	    ((x->ref == INTERF_REF_SOLO &&
	      x->solo_calls - x->seeded_solo_calls < INTERF_MIN_EVIDENCE) ||
	     (x->ref == INTERF_REF_GATED &&
	      x->gated_calls - x->seeded_gated_calls < INTERF_MIN_EVIDENCE)))
		return "baseline";
	return ref_names[x->ref];
}

static bool bounded(const struct sci_result *res)
{
	return res->interf.ref == INTERF_REF_NONE &&
	       res->interf.bound_ns > res->interf.loss_ns;
}

void report_interference_cell(const struct sci_result *res, char *buf,
			      size_t len)
{
	char pct[16];

	if (!res->has_interference) {
		snprintf(buf, len, "-");
		return;
	}
	if (bounded(res)) {
		report_format_pct(pct, sizeof(pct), res->interference_bound);
		snprintf(buf, len, "<=%s", pct);
		return;
	}
	report_format_pct(buf, len, res->interference);
}

static const char *label_of(const struct report *r, uint32_t id)
{
	if (r->labels && id < r->nr_funcs && r->labels[id])
		return r->labels[id];
	if (r->funcs && id < r->nr_funcs && r->funcs[id].name)
		return r->funcs[id].name;
	return "it";
}

/* Why a high SCI is not interference, or what INTERF cannot say. */
static void note_own_variance(FILE *f, const struct report *r,
			      const struct sci_result *fn, int indent)
{
	const struct interf_estimate *x = &fn->interf;
	char line[REPORT_NOTE_LEN], mean[32], solo[32];
	double above = fn->min_ns ? 100.0 * (fn->mean_ns / fn->min_ns - 1) :
			0.0;

	if (fn->sci < NOTE_MIN_SCI ||
	    fn->interference >= NOTE_OWN_SHARE * fn->sci)
		return;
	format_ns(mean, sizeof(mean), fn->mean_ns);
	format_ns(solo, sizeof(solo), x->solo_mean_ns);
	if (x->solo_calls && x->solo_calls == x->calls)
		snprintf(line, sizeof(line), "%s: %.0f%% above its fastest "
			 "call, but no other thread of the program was active "
			 "during any of its %" PRIu64 " calls%s: its own work "
			 "varies, not interference; --key shape or argN may "
			 "help", label_of(r, fn->func_id), above, x->calls,
			 /* CALLS also counts those in solo blocks. */
			 x->calls < fn->calls ? " outside solo blocks" : "");
	else if (x->ref == INTERF_REF_GATED) {
		format_ns(solo, sizeof(solo), x->gated_mean_ns);
		snprintf(line, sizeof(line), "%s: %.0f%% above its fastest "
			 "call, but with the other threads held out of the "
			 "traced functions it takes %s on average (%" PRIu64
			 " calls in solo blocks) against %s for all calls: "
			 "INTERF counts only what other threads add to that, "
			 "the rest is its own variance",
			 label_of(r, fn->func_id), above, solo,
			 x->gated_calls, mean);
	} else if (x->ref == INTERF_REF_SOLO &&
		 x->solo_mean_ns >= NOTE_AS_SLOW * fn->mean_ns)
		snprintf(line, sizeof(line), "%s: %.0f%% above its fastest "
			 "call, but as slow when it runs alone (%" PRIu64
			 " solo calls, mean %s; all calls %s): its own work "
			 "varies, not interference; --key shape or argN may "
			 "help", label_of(r, fn->func_id), above,
			 x->solo_calls, solo, mean);
	else if (x->ref == INTERF_REF_SOLO)
		snprintf(line, sizeof(line), "%s: %.0f%% above its fastest "
			 "call, but alone it takes %s on average (%" PRIu64
			 " solo calls) against %s for all calls: INTERF counts "
			 "only what other threads add to that, the rest is its "
			 "own variance", label_of(r, fn->func_id), above, solo,
			 x->solo_calls, mean);
	else if (x->ref == INTERF_REF_FIT)
		snprintf(line, sizeof(line), "%s: %.0f%% above its fastest "
			 "call, but its time does not grow with the threads "
			 "active beside it (fit over its %" PRIu64 " calls with "
			 "at most two beside): its own work varies, not "
			 "interference", label_of(r, fn->func_id), above,
			 x->fit_calls);
	else	/* no reference, and nothing above the floor to bound */
		return;
	report_wrap(f, r, indent, "note: ", line);
}

/*
 * What a note on a weak reference says to do (@bound: the figure is only
 * a bound): with --baseline, what it gave too little of or nothing of
 * (a recording without solo calls of this function keyed so); without,
 * what solo blocks would give: turned on, longer, or nothing because
 * every block timed out.
 */
static const char *reference_advice(const struct report *r,
				   const struct interf_estimate *x, bool bound)
{
	if (r->baseline && x->seeded_solo_calls)
		return bound ? "a longer --baseline gives it more" :
		       "a longer --baseline gives a steadier reference";
	if (r->baseline)
		return "--baseline has none of it, keyed as here";
	if (!r->solo)
		return bound ? "solo blocks (--solo-blocks, on by default) "
		       "give it a reference" :
		       "solo blocks (--solo-blocks, on by default) give a "
		       "steadier reference";
	if (r->solo->blocks && r->solo->contaminated == r->solo->blocks)
		return "every solo block timed out (see the warning)";
	if (solo_crowded_out(r->solo))
		return "no call in the solo blocks ran alone (see the warning)";
	return bound ? "a longer run, or a larger --solo-blocks share, gives "
		       "it more calls in solo blocks" :
		       "a longer run, or a larger --solo-blocks share, gives "
		       "a steadier reference";
}

/*
 * A reference that rests on a small slice of the run's own calls
 * (struct interf_estimate's weak), counted over the weak keys.  Not when
 * 30 solo calls were handed in (--baseline, ispotd's earlier windows).
 */
static void note_thin_reference(FILE *f, const struct report *r,
				const struct sci_result *fn, int indent)
{
	const struct interf_estimate *x = &fn->interf;
	char line[REPORT_NOTE_LEN], what[128];
	const char *when;
	double pct;

	if (fn->sci < NOTE_MIN_SCI || x->ref == INTERF_REF_NONE || !x->weak ||
	    !x->weak_calls)
		return;
	if (x->weak_ref == INTERF_REF_FIT) {
		snprintf(what, sizeof(what), "takes its own time from a line "
			 "anchored by %" PRIu64 " calls with at most one other "
			 "thread beside on average", x->ref_calls);
		when = "while few workers ran";
	} else {
		snprintf(what, sizeof(what), "judges its calls against %"
			 PRIu64 " solo calls", x->ref_calls);
		when = "the last worker's, after the others ended";
	}
	/* Rounded down: 299 of 6,000 must not read as 5.0%. */
	pct = floor(1000.0 * (double)x->ref_calls / (double)x->weak_calls) /
	      10;
	snprintf(line, sizeof(line), "%s: INTERF %s, %.1f%% of its %" PRIu64
		 ": a stretch of the run (in a pool, %s) that may not be "
		 "typical; %s", label_of(r, fn->func_id), what, pct,
		 x->weak_calls, when, reference_advice(r, x, false));
	report_wrap(f, r, indent, "note: ", line);
}

void report_interference_text(FILE *f, const struct report *r,
			      const struct sci_result *fn, int indent)
{
	char line[REPORT_NOTE_LEN], lo[16], hi[16], ext[16];
	double life = (double)fn->lifetime_ns;

	if (!fn->has_interference)
		return;
	if (bounded(fn)) {
		report_format_pct(lo, sizeof(lo), fn->interference);
		report_format_pct(hi, sizeof(hi), fn->interference_bound);
		snprintf(line, sizeof(line), "INTERF %s%s%s%s: %" PRIu64
			 " calls in solo blocks and %" PRIu64 " solo calls are "
			 "too few (%d needed) to tell its own variance from "
			 "interference; %s",
			 strcmp(lo, hi) ? "between " : "about ", lo,
			 strcmp(lo, hi) ? " (waits that other threads ended) "
					  "and " : "",
			 strcmp(lo, hi) ? hi : "", fn->interf.gated_calls,
			 fn->interf.solo_calls, INTERF_MIN_EVIDENCE,
			 reference_advice(r, &fn->interf, true));
		report_wrap(f, r, indent, "note: ", line);
	} else {
		note_own_variance(f, r, fn, indent);
		note_thin_reference(f, r, fn, indent);
	}
	if (life && fn->interf.external_ns / life >= NOTE_MIN_EXTERNAL) {
		report_format_pct(ext, sizeof(ext),
				  fn->interf.external_ns / life);
		snprintf(line, sizeof(line), "%s of its threads' time went "
			 "waiting for CPUs that other processes held "
			 "(external, not interference)", ext);
		report_wrap(f, r, indent, "note: ", line);
	}
}

void report_interference_json(struct json *j, const struct report *r,
			      const struct sci_result *res)
{
	const struct interf_estimate *x = &res->interf;

	if (!res->has_interference) {
		json_null(j, "interference");
		return;
	}
	json_double(j, "interference", isfinite(res->interference) ?
					res->interference : 0.0);
	if (bounded(res))
		json_double(j, "interference_bound",
			    isfinite(res->interference_bound) ?
			    res->interference_bound : 0.0);
	json_u64(j, "solo_calls", x->solo_calls);
	json_u64(j, "external_ns", x->external_ns);
	json_u64(j, "interference_ns", x->loss_ns);
	json_u64(j, "waited_on_threads_ns", x->direct_ns);
	json_string(j, "interference_reference", ref_source(r, x));
	json_bool(j, "interference_reference_weak", x->weak);
	json_u64(j, "seeded_solo_calls", x->seeded_solo_calls);
	json_u64(j, "reference_calls", x->gated_calls);
	json_u64(j, "seeded_reference_calls", x->seeded_gated_calls);
	/* ispotd: how long ago the carried reference calls began. */
	if (r->now_ns && x->seeded_gated_calls && x->seeded_since_ns &&
	    r->now_ns > x->seeded_since_ns)
		json_double(j, "reference_age_s",
			    (double)(r->now_ns - x->seeded_since_ns) / 1e9);
}

void report_solo_json(struct json *j, const struct report *r)
{
	const struct solo_stats *s = r->solo;

	if (!s)
		return;
	json_object_begin(j, "solo_blocks");
	json_double(j, "share", r->duration_ns ?
			(double)s->admitting_ns / (double)r->duration_ns : 0);
	json_u64(j, "blocks", s->blocks);
	json_u64(j, "contaminated", s->contaminated);
	json_u64(j, "timeouts", s->timeouts);
	json_u64(j, "gate_waits", s->gate_waits);
	json_u64(j, "gate_wait_ns", s->gate_wait_ns);
	json_u64(j, "gated_calls", s->gated_calls);
	json_u64(j, "reference_calls", s->reference_calls);
	json_u64(j, "crowded", s->crowded);
	json_object_end(j);
}
