// SPDX-License-Identifier: GPL-2.0
/* Workload verdicts and --key auto in ispotd's windows; see window.h. */
#include <stdlib.h>

#include "analysis/autokey.h"
#include "window.h"

/* autokey_shadow_fn over the set's ids: a shadow entry names its own. */
static int window_shadow(const void *ctx, uint32_t id, uint32_t *func)
{
	const struct window_set *w = ctx;

	if (id >= w->nr_funcs || w->funcs[id].shadow_arg < 0)
		return -1;
	*func = w->funcs[id].owner;
	return w->funcs[id].shadow_arg;
}

const struct key_rule *window_func_rule(const struct window_func *f)
{
	return f->key.kind == KEY_AUTO ? &f->chosen : &f->key;
}

struct argb_verdict *window_workload(struct window_set *w,
				     struct sci_report *sr)
{
	struct argb_verdict *v = calloc(w->nr_funcs + 1, sizeof(*v));
	int *choice = calloc(w->nr_funcs + 1, sizeof(*choice));
	uint32_t i;

	if (!v || !choice) {
		free(v);
		free(choice);
		return NULL;
	}
	for (i = 0; i < w->nr_funcs; i++) {
		struct window_func *f = &w->funcs[i];

		choice[i] = AUTOKEY_NOT_AUTO;
		if (f->shadow_arg >= 0)
			continue;
		argb_judge(argbuckets_of(w->args, i), &v[i]);
		if (f->key.kind != KEY_AUTO)
			continue;
		/* Without its shadows (no memory) it was scored unkeyed. */
		choice[i] = f->shadow ? autokey_choose(&v[i], &f->chosen) :
			    autokey_choose(&(struct argb_verdict){ 0 },
					   &f->chosen);
		key_rule_format(&f->chosen, f->chosen_desc,
				sizeof(f->chosen_desc));
	}
	autokey_apply(sr, choice, w->nr_funcs, window_shadow, w);
	free(choice);
	return v;
}
