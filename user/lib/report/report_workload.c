// SPDX-License-Identifier: GPL-2.0
/*
 * Workload-dependent functions in the report (argbuckets.h): the line
 * under a flagged function in the table, and the "workload_dependent",
 * "suggested_key", "workload_evidence", "workload_ratio" and
 * "key_loss_cut" members of its JSON object.
 */
#include <stdlib.h>
#include <string.h>

#include "elf/demangle.h"
#include "util/json.h"
#include "report/report.h"

static const struct argb_verdict *verdict_of(const struct report *r,
					     uint32_t func_id)
{
	if (!r->verdicts || func_id >= r->nr_funcs)
		return NULL;
	return &r->verdicts[func_id];
}

/* Whether the function is already keyed the way the verdict suggests. */
static bool keyed_as_suggested(const struct report *r, uint32_t func_id,
			       const struct argb_verdict *v)
{
	char want[32];

	argb_key_name(v, want, sizeof(want));
	return r->funcs && r->funcs[func_id].key &&
	       !strcmp(r->funcs[func_id].key, want);
}

/*
 * FUNC of the suggested --key: a shortened name without its parameter
 * list, which --key takes for one traced function (a short name may have
 * lost the template arguments a spec needs); else the name shown.
 */
static int key_func(const struct report *r, const char *name)
{
	const char *shown = report_label(r, name);

	return shown != name && strcmp(shown, name) ?
	       (int)demangle_bare_len(name) : (int)strlen(name);
}

void report_workload_text(FILE *f, const struct report *r,
			  const struct sci_result *fn, int indent)
{
	const struct argb_verdict *v = verdict_of(r, fn->func_id);
	const char *name;
	char ev[128], key[32], *line = NULL;
	size_t len = 0;
	FILE *m;
	int n;

	if (!v || !v->dependent)
		return;
	name = r->funcs && r->funcs[fn->func_id].name ?
	       r->funcs[fn->func_id].name : "FUNC";
	n = key_func(r, name);
	argb_evidence(v, ev, sizeof(ev));
	argb_key_name(v, key, sizeof(key));
	m = open_memstream(&line, &len);
	if (!m)
		return;
	fprintf(m, "WORKLOAD-DEPENDENT on arg%u: %s; keyed by %s, the loss "
		"is %.0f%% smaller", v->arg, ev, key, 100.0 * v->cut);
	if (keyed_as_suggested(r, fn->func_id, v))
		fputs(" (so keyed)", m);
	else
		fprintf(m, ": --key '%.*s=%s' or '%.*s=auto'", n, name, key,
			n, name);
	if (!fclose(m))
		report_wrap(f, r, indent, "", line);
	free(line);
}

void report_workload_json(struct json *j, const struct report *r,
			  const struct sci_result *fn)
{
	const struct argb_verdict *v = verdict_of(r, fn->func_id);
	char buf[128];

	/* A report without verdicts (ispotd's windows) says nothing. */
	if (!r->verdicts)
		return;
	json_bool(j, "workload_dependent", v && v->dependent);
	if (v && v->dependent)
		argb_key_name(v, buf, sizeof(buf));
	else
		buf[0] = '\0';
	json_string(j, "suggested_key", buf);
	/* The closest an argument came, flagged or not (argbuckets.h). */
	if (!v || !v->compared)
		return;
	argb_evidence(v, buf, sizeof(buf));
	json_string(j, "workload_evidence", buf);
	json_double(j, "workload_ratio", v->ratio);
	json_double(j, "key_loss_cut", v->cut);
}
