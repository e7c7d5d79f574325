// SPDX-License-Identifier: GPL-2.0
/* Applying --key FUNC=auto to a report; see autokey.h. */
#include "autokey.h"

/* Whether result @res stays, and under which function id. */
static bool autokey_keep(struct sci_result *res, uint32_t base,
			 const int *choice, size_t nr)
{
	uint32_t id = res->func_id, f;

	if (id < base)
		return id >= nr || choice[id] < 0;
	f = (id - base) / 3;
	if (f >= nr || choice[f] != (int)((id - base) % 3))
		return false;
	res->func_id = f;
	return true;
}

static size_t autokey_filter(struct sci_result *res, size_t n, uint32_t base,
			     const int *choice, size_t nr)
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++)
		if (autokey_keep(&res[i], base, choice, nr))
			res[kept++] = res[i];
	return kept;
}

void autokey_apply(struct sci_report *r, uint32_t base, const int *choice,
		   size_t nr)
{
	r->nr_funcs = autokey_filter(r->funcs, r->nr_funcs, base, choice, nr);
	r->nr_blocks = autokey_filter(r->blocks, r->nr_blocks, base, choice,
				      nr);
}
