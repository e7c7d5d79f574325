// SPDX-License-Identifier: GPL-2.0
/* Applying --key FUNC=auto to a report; see autokey.h. */
#include <stdio.h>

#include "analysis/autokey.h"

int autokey_base_shadow(const void *ctx, uint32_t id, uint32_t *func)
{
	uint32_t base = *(const uint32_t *)ctx;

	if (id < base)
		return -1;
	*func = (id - base) / 3;
	return (int)((id - base) % 3);
}

int autokey_choose(const struct argb_verdict *v, struct key_rule *rule)
{
	if (!v->dependent) {
		*rule = (struct key_rule){ .kind = KEY_NONE };
		return AUTOKEY_NONE;
	}
	*rule = (struct key_rule){ .kind = KEY_ARG, .arg = v->arg,
				   .log2 = true };
	return (int)v->arg;
}

/* Whether result @res stays, and under which function id. */
static bool autokey_keep(struct sci_result *res, const int *choice,
			 size_t nr, autokey_shadow_fn *shadow, const void *ctx)
{
	uint32_t id = res->func_id, f;
	int arg = shadow(ctx, id, &f);

	if (arg < 0)
		return id >= nr || choice[id] < 0;
	if (f >= nr || choice[f] != arg)
		return false;
	res->func_id = f;
	return true;
}

static size_t autokey_filter(struct sci_result *res, size_t n,
			     const int *choice, size_t nr,
			     autokey_shadow_fn *shadow, const void *ctx)
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++)
		if (autokey_keep(&res[i], choice, nr, shadow, ctx))
			res[kept++] = res[i];
	return kept;
}

void autokey_apply(struct sci_report *r, const int *choice, size_t nr,
		   autokey_shadow_fn *shadow, const void *ctx)
{
	r->nr_funcs = autokey_filter(r->funcs, r->nr_funcs, choice, nr,
				     shadow, ctx);
	r->nr_blocks = autokey_filter(r->blocks, r->nr_blocks, choice, nr,
				      shadow, ctx);
}

int autokey_sparse_note(char *buf, size_t len, const char *func,
			const struct argb_verdict *v, const char *remedy)
{
	return snprintf(buf, len, "--key %.96s=auto kept no key: its %llu "
			"recorded calls fill no two argument buckets with %d "
			"each; %s", func, (unsigned long long)v->calls,
			ARGB_MIN_CALLS, remedy);
}
