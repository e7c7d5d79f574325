// SPDX-License-Identifier: GPL-2.0
/* Workload verdicts and --key auto for one trace; see trace_internal.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/autokey.h"
#include "trace/trace_internal.h"

/* One auto function's choice: the verdict's argument, or no key. */
static int trace_auto_choose(struct trace_func *f,
			     const struct argb_verdict *v)
{
	int choice = autokey_choose(v, &f->key);

	f->key_auto = true;
	key_rule_format(&f->key, f->key_desc, sizeof(f->key_desc));
	return choice;
}

struct argb_verdict *trace_workload(struct trace *t, struct sci_report *sr,
				    char (*notes)[256], size_t *nr_notes,
				    size_t max)
{
	struct argb_verdict *v = calloc(t->nr_funcs + 1, sizeof(*v));
	int *choice = calloc(t->nr_funcs + 1, sizeof(*choice));
	const uint32_t *ids = t->borrowed.func_ids;
	uint32_t base = t->nr_funcs;
	bool any = false;
	size_t i;

	if (!v || !choice) {
		free(v);
		free(choice);
		return NULL;
	}
	for (i = 0; i < t->nr_funcs; i++) {
		struct trace_func *f = &t->funcs[i];

		/* ispotd numbers functions its own way (t->borrowed). */
		argb_judge(argbuckets_of(t->pipe->args, ids ? ids[i] : i),
			   &v[i]);
		choice[i] = AUTOKEY_NOT_AUTO;
		/* key_auto: chosen by an earlier report (ispotctl top). */
		if (f->key.kind != KEY_AUTO && !f->key_auto)
			continue;
		choice[i] = trace_auto_choose(f, &v[i]);
		any = true;
		if (v[i].undecided && *nr_notes < max)
			autokey_sparse_note(notes[(*nr_notes)++], 256,
					    f->sym.name, &v[i],
					    "trace longer or lower --sample");
	}
	/* Under ispotd's ids the window set applies the choice (window.h). */
	if (any && !ids)
		autokey_apply(sr, choice, t->nr_funcs, autokey_base_shadow,
			      &base);
	free(choice);
	return v;
}

int trace_auto_keys(struct trace *t, struct sci_report *sr)
{
	size_t nr_notes = 0;
	struct argb_verdict *v = trace_workload(t, sr, NULL, &nr_notes, 0);

	if (!v)
		return -ENOMEM;
	free(v);
	return 0;
}
