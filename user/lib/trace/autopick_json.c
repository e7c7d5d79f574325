// SPDX-License-Identifier: GPL-2.0
/*
 * --auto's choice in the JSON report (Documentation/usage.rst, "JSON
 * output"): what was sampled, each pick with why, and the wall-clock
 * profile's heaviest stacks, on and off the CPU.
 */
#include <stdlib.h>
#include <string.h>

#include "trace/autopick.h"
#include "util/json.h"

/* Off-CPU nanoseconds by kind, as an object. */
static void json_kinds(struct json *j, const char *key, const uint64_t *ns)
{
	int k;

	json_object_begin(j, key);
	for (k = 0; k < WALL_NR_KINDS; k++)
		json_u64(j, wall_kind_names[k], ns[k]);
	json_object_end(j);
}

static void json_pick(struct json *j, const struct autopick *a,
		      const struct autopick_func *f)
{
	const char *base = strrchr(f->sym.obj, '/');

	json_object_begin(j, NULL);
	json_string(j, "name", f->sym.name);
	json_string(j, "object", base ? base + 1 : f->sym.obj);
	json_double(j, "wall_share", a->wall_ns ?
		    (double)f->wall_ns / a->wall_ns : 0.0);
	json_u64(j, "on_cpu_ns", f->samples * SAMPLER_PERIOD_NS);
	json_kinds(j, "off_cpu_ns", f->off_ns);
	if (f->partner[0]) {
		json_string(j, f->waits ? "via" : "waiting_in", f->partner);
	}
	if (f->unloaded)
		json_bool(j, "unloaded", true);
	json_object_end(j);
}

/* The index of @w's line with the most time not yet taken, or -1. */
static long heaviest(const struct wall_lines *w, const bool *taken)
{
	long best = -1;
	size_t i;

	for (i = 0; i < w->nr; i++)
		if (!taken[i] && w->lines[i].us &&
		    (best < 0 || w->lines[i].us > w->lines[best].us))
			best = (long)i;
	return best;
}

static void json_stacks(struct json *j, const struct wall_lines *w)
{
	bool *taken = calloc(w->nr + 1, sizeof(*taken));
	long b;
	int n;

	json_array_begin(j, "stacks");
	for (n = 0; taken && n < AUTOPICK_JSON_STACKS; n++) {
		b = heaviest(w, taken);
		if (b < 0)
			break;
		taken[b] = true;
		json_object_begin(j, NULL);
		json_string(j, "stack", w->lines[b].stack);
		json_u64(j, "us", w->lines[b].us);
		json_object_end(j);
	}
	json_array_end(j);
	free(taken);
}

void autopick_json(struct json *j, const struct autopick *a)
{
	json_object_begin(j, "auto");
	autopick_json_members(j, a);
	json_object_end(j);
}

void autopick_json_members(struct json *j, const struct autopick *a)
{
	size_t i;

	json_u64(j, "duration_ns", a->duration_ns);
	json_u64(j, "samples", a->samples);
	json_u64(j, "unprobeable_samples", a->unprobeable);
	json_bool(j, "off_cpu", a->offcpu);
	if (!a->offcpu && a->offcpu_note[0])
		json_string(j, "off_cpu_note", a->offcpu_note);
	json_kinds(j, "off_cpu_ns", a->off_ns);
	json_u64(j, "off_cpu_stacks", a->off_stacks);
	json_u64(j, "wall_ns", a->wall_ns);
	json_array_begin(j, "picks");
	for (i = 0; i < a->nr; i++)
		json_pick(j, a, &a->funcs[i]);
	json_array_end(j);
	json_stacks(j, &a->wall);
}
