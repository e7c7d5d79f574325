// SPDX-License-Identifier: GPL-2.0
/*
 * The report as ispotctl's JSON object (report.h; Documentation/usage.rst,
 * "JSON output"), and its "functions" member for ispotd's windows.
 */
#include <math.h>

#include "trace/device.h"
#include "util/json.h"
#include "report/columns.h"
#include "report/names.h"
#include "report/report.h"
#include "report/report_internal.h"

static uint64_t rounded(double v)
{
	return isfinite(v) && v > 0 ? (uint64_t)(v + 0.5) : 0;
}

static const char *func_linkage_name(const struct report *r, uint32_t id,
				     const char *name)
{
	const struct report_func *fn = report_func_of(r, id);

	return fn && fn->linkage_name && fn->linkage_name[0] ?
	       fn->linkage_name : name;
}

/* The distribution and scores, shared by functions and their keys. */
static void json_result(struct json *j, const struct report *r,
			const struct sci_result *res)
{
	json_u64(j, "calls", res->calls);
	json_u64(j, "threads", res->threads);
	json_u64(j, "min_ns", res->min_ns);
	json_u64(j, "p50_ns", res->p50_ns);
	json_u64(j, "p99_ns", res->p99_ns);
	json_u64(j, "max_ns", res->max_ns);
	json_u64(j, "mean_ns", rounded(res->mean_ns));
	json_u64(j, "loss_ns", res->loss_ns);
	json_double(j, "sci", report_finite_or_zero(res->sci));
	json_double(j, "sci_worst_thread",
		    report_finite_or_zero(res->sci_worst_thread));
	json_u64(j, "worst_tid", res->worst_tid);
	report_interference_json(j, r, res);
}

static void json_keys(struct json *j, const struct report *r,
		      const struct sci_result *fn)
{
	char label[COLUMN_CELL_LEN];
	size_t i;

	json_array_begin(j, "keys");
	for (i = 0; i < r->sci->nr_blocks; i++) {
		const struct sci_result *b = &r->sci->blocks[i];

		if (b->func_id != fn->func_id)
			continue;
		report_key_name(r, b->func_id, b->key, label, sizeof(label));
		json_object_begin(j, NULL);
		json_string(j, "key", label);
		json_result(j, r, b);
		json_object_end(j);
	}
	json_array_end(j);
}

/* Per counted event: valid calls, means, and the excess per call. */
static void json_excess(struct json *j, const struct report *r,
			const struct sci_result *fn)
{
	struct excess_result x;
	size_t i;

	if (!r->excess || excess_result(r->excess, fn->func_id, 0, true, &x))
		return;
	json_u64(j, "counted_calls", x.calls);
	json_object_begin(j, "counters");
	for (i = 0; i < r->nr_counters; i++) {
		const struct report_counter *c = &r->counters[i];
		const struct excess_counter *e;

		if (c->slot < 0)
			continue;
		e = &x.c[c->slot];
		json_object_begin(j, c->name);
		json_u64(j, "valid_calls", e->valid_calls);
		json_double(j, "mean", report_finite_or_zero(e->mean));
		json_double(j, "fastest_mean",
			    report_finite_or_zero(e->fastest_mean));
		json_double(j, "excess_per_call",
			    report_finite_or_zero(e->mean - e->fastest_mean));
		json_object_end(j);
	}
	json_object_end(j);
}

static void json_function(struct json *j, const struct report *r,
			  const struct sci_result *fn)
{
	const struct report_func *rf = report_func_of(r, fn->func_id);
	const char *key = report_func_key(r, fn->func_id);
	const char *note = report_func_shape_note(r, fn->func_id);
	char buf[REPORT_NAME_LEN];
	const char *name = report_func_name(r, fn->func_id, buf, sizeof(buf));
	int k;

	json_object_begin(j, NULL);
	json_string(j, "name", name);
	json_string(j, "linkage_name",
		    func_linkage_name(r, fn->func_id, name));
	json_string(j, "object", report_func_object(r, fn->func_id));
	json_string(j, "key", key);
	if (report_func_key_auto(r, fn->func_id))
		json_bool(j, "key_auto", true);
	json_u64(j, "nr_keys", fn->nr_keys);
	json_result(j, r, fn);
	json_u64(j, "caused_calls", fn->caused_calls);
	/* Signed: a cause can be negative when another one grew (sci.h). */
	json_object_begin(j, "causes");
	for (k = 0; k < SCI_NR_CAUSES; k++)
		json_i64(j, cause_names[k].json, fn->cause_loss_ns[k]);
	json_i64(j, cause_names[CAUSE_UNKNOWN].json, fn->unknown_loss_ns);
	json_object_end(j);
	json_excess(j, r, fn);
	if (key[0])
		json_keys(j, r, fn);
	report_workload_json(j, r, fn);
	json_bool(j, "shapes_differ", rf && rf->shapes_differ);
	if (note)
		json_string(j, "shape_note", note);
	report_stacks_json(j, r, fn);
	json_object_end(j);
}

void report_json_functions(struct json *j, const struct report *r)
{
	size_t i;

	json_array_begin(j, "functions");
	for (i = 0; i < report_nr_results(r); i++)
		json_function(j, r, &r->sci->funcs[i]);
	json_array_end(j);
}

int report_json(FILE *f, const struct report *r)
{
	char warn[4][REPORT_WARNING_LEN];
	struct json j;
	size_t i, n;

	json_init(&j, f);
	json_object_begin(&j, NULL);
	json_string(&j, "ispot_version", ISPOTCTL_VERSION);
	json_object_begin(&j, "target");
	json_i64(&j, "pid", r->pid);
	json_string(&j, "command", r->command);
	json_object_end(&j);
	json_u64(&j, "duration_ns", r->duration_ns);
	json_object_begin(&j, "events");
	json_u64(&j, "recorded", r->recorded);
	json_u64(&j, "dropped", r->dropped);
	json_u64(&j, "unpaired", r->unpaired);
	/* Only from a module that tells where its rings dropped records. */
	if (r->drop_bursts) {
		json_u64(&j, "drop_bursts", r->drop_bursts);
		json_u64(&j, "dropped_told", r->dropped_told);
		json_u64(&j, "open_at_drops", r->open_at_drops);
		json_u64(&j, "dropped_time_ns", r->dropped_time_ns);
	}
	/*
	 * A recording cut before its statistics: "dropped" stays a number,
	 * as readers expect, and this says it is not a count.  Only then,
	 * so that every other report is as it was.
	 */
	if (r->dropped_unknown)
		json_bool(&j, "dropped_known", false);
	json_object_end(&j);

	report_json_functions(&j, r);

	json_array_begin(&j, "threads");
	for (i = 0; r->sci && i < r->sci->nr_threads; i++) {
		const struct sci_thread_life *t = &r->sci->threads[i];

		json_object_begin(&j, NULL);
		json_u64(&j, "tid", t->tid);
		json_u64(&j, "lifetime_ns", t->lifetime_ns);
		json_bool(&j, "exited", t->exited);
		json_object_end(&j);
	}
	json_array_end(&j);

	report_json_futexes(&j, r);
	report_solo_json(&j, r);
	if (r->json_extra)
		r->json_extra(&j, r->json_extra_ctx);

	json_object_begin(&j, "counters");
	for (i = 0; i < r->nr_counters; i++) {
		const struct report_counter *c = &r->counters[i];

		json_string(&j, c->name ? c->name : "",
			    c->supported ? "supported" : "unsupported");
	}
	json_object_end(&j);

	n = report_warnings(r, warn, 4);
	json_array_begin(&j, "warnings");
	for (i = 0; i < n; i++)
		json_string(&j, NULL, warn[i]);
	json_array_end(&j);
	json_array_begin(&j, "notes");
	for (i = 0; i < r->nr_notes; i++)
		json_string(&j, NULL, r->notes[i]);
	json_array_end(&j);

	json_object_end(&j);
	json_finish(&j);
	return report_stream_status(f);
}
