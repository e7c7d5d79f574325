// SPDX-License-Identifier: GPL-2.0
/* Workload verdicts and --key auto for one trace; see trace_internal.h. */
#include <stdio.h>
#include <stdlib.h>

#include "autokey.h"
#include "trace_internal.h"

/* One auto function's choice: the verdict's argument, or no key. */
static int trace_auto_choose(struct trace_func *f,
			     const struct argb_verdict *v)
{
	f->key_auto = true;
	if (!v->dependent) {
		f->key = (struct key_rule){ .kind = KEY_NONE };
		f->key_desc[0] = '\0';
		return AUTOKEY_NONE;
	}
	f->key = (struct key_rule){ .kind = KEY_ARG, .arg = v->arg,
				    .log2 = true };
	key_rule_format(&f->key, f->key_desc, sizeof(f->key_desc));
	return (int)v->arg;
}

struct argb_verdict *trace_workload(struct trace *t, struct sci_report *sr,
				    char (*notes)[256], size_t *nr_notes,
				    size_t max)
{
	struct argb_verdict *v = calloc(t->nr_funcs + 1, sizeof(*v));
	int *choice = calloc(t->nr_funcs + 1, sizeof(*choice));
	bool any = false;
	size_t i;

	if (!v || !choice) {
		free(v);
		free(choice);
		return NULL;
	}
	for (i = 0; i < t->nr_funcs; i++) {
		struct trace_func *f = &t->funcs[i];

		/* ispotd numbers functions its own way (t->func_ids). */
		argb_judge(argbuckets_of(t->pipe->args,
					 t->func_ids ? t->func_ids[i] : i),
			   &v[i]);
		choice[i] = AUTOKEY_NOT_AUTO;
		if (f->key.kind != KEY_AUTO)
			continue;
		choice[i] = trace_auto_choose(f, &v[i]);
		any = true;
		if (v[i].undecided && *nr_notes < max)
			snprintf(notes[(*nr_notes)++], 256,
				 "--key %.96s=auto kept no key: its %llu "
				 "recorded calls fill no two argument buckets "
				 "with %d each; trace longer or lower --sample",
				 f->sym.name, (unsigned long long)v[i].calls,
				 ARGB_MIN_CALLS);
	}
	if (any && t->pipe->shadow_base)
		autokey_apply(sr, t->pipe->shadow_base, choice, t->nr_funcs);
	free(choice);
	return v;
}
