// SPDX-License-Identifier: GPL-2.0
/* Shapes of executions: naming them and summing them up; see shape.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/hashmap.h"
#include "analysis/shape.h"

/*
 * shape_format(), or with @whole, one that ends after the last callee
 * that fits whole and then ">..." (a note names no half a name).
 */
static int shape_write(const struct shape *s, const char *self,
		       shape_name_fn name, const void *ctx, char *buf,
		       size_t len, bool whole)
{
	size_t n = (size_t)snprintf(buf, len, "%s", self), tl, after;
	uint32_t i, shown = s->nr < SHAPE_SHOWN ? s->nr : SHAPE_SHOWN;
	const char *callee;

	if (!s->nr)
		return snprintf(buf, len, "%s (no probed calls)", self);
	for (i = 0; i < shown; i++) {
		callee = name ? name(ctx, s->ids[i]) : NULL;
		tl = callee ? 1 + strlen(callee) :
		     (size_t)snprintf(NULL, 0, ">#%u", s->ids[i]);
		/* Room for it, and for the ">..." that may follow it. */
		after = i + 1 < s->nr ? sizeof(">...") - 1 : 0;
		if (whole && n + tl + after >= len) {
			if (n + sizeof(">...") <= len)
				n += snprintf(buf + n, len - n, ">...");
			return (int)n;
		}
		if (callee)
			n += snprintf(n < len ? buf + n : NULL,
				      n < len ? len - n : 0, ">%s", callee);
		else
			n += snprintf(n < len ? buf + n : NULL,
				      n < len ? len - n : 0, ">#%u",
				      s->ids[i]);
	}
	if (s->nr <= SHAPE_SHOWN)
		return (int)n;
	tl = (size_t)snprintf(NULL, 0, ">...+%u", s->nr - SHAPE_SHOWN);
	if (whole && n + tl >= len)
		return (int)(n + snprintf(buf + n, len - n, ">..."));
	n += snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,
		      ">...+%u", s->nr - SHAPE_SHOWN);
	return (int)n;
}

int shape_format(const struct shape *s, const char *self, shape_name_fn name,
		 const void *ctx, char *buf, size_t len)
{
	return shape_write(s, self, name, ctx, buf, len, false);
}

struct shapes *shapes_new(void)
{
	return calloc(1, sizeof(struct shapes));
}

void shapes_free(struct shapes *t)
{
	if (!t)
		return;
	free(t->kept);
	hashmap_free(&t->by_hash);
	free(t->funcs);
	free(t);
}

int shapes_grow(struct shapes *t, uint32_t func_id)
{
	return idarray_reserve(&t->funcs, &t->nr_funcs, sizeof(*t->funcs),
			       func_id);
}

/*
 * Remember @s for naming and as a key of @sum's function, unless it has
 * SHAPE_KEYS_MAX already or SHAPES_MAX are kept in all: then 1, its
 * executions go to SHAPE_OTHER.
 */
int shapes_keep(struct shapes *t, struct shape_summary *sum,
		const struct shape *s)
{
	if (!s->hash || s->hash == SHAPE_OTHER)
		return 1;	/* never a real shape's hash */
	if (hashmap_find(&t->by_hash, s->hash, NULL))
		return 0;
	if (t->nr_kept == SHAPES_MAX || sum->kept == SHAPE_KEYS_MAX)
		return 1;
	if (ARRAY_RESERVE(t->kept, t->cap_kept, t->nr_kept + 1) ||
	    hashmap_insert(&t->by_hash, s->hash, t->nr_kept))
		return -ENOMEM;
	t->kept[t->nr_kept++] = *s;
	sum->kept++;
	return 0;
}

const struct shape *shapes_find(const struct shapes *t, uint64_t hash)
{
	uint64_t i;

	return hashmap_find(&t->by_hash, hash, &i) ? &t->kept[i] : NULL;
}

const struct shape_summary *shapes_summary(const struct shapes *t,
					   uint32_t func_id)
{
	return func_id < t->nr_funcs && t->funcs[func_id].execs ?
	       &t->funcs[func_id] : NULL;
}

int shape_key_label(const struct shapes *t, uint64_t key, const char *self,
		    shape_name_fn name, const void *ctx, char *buf, size_t len)
{
	const struct shape *s = t ? shapes_find(t, key) : NULL;

	if (key == SHAPE_OTHER)
		return snprintf(buf, len, "%s (other shapes)", self);
	if (!s)
		return snprintf(buf, len, "shape 0x%llx",
				(unsigned long long)key);
	return shape_format(s, self, name, ctx, buf, len);
}

bool shape_note(const struct shapes *t, uint32_t func_id, const char *self,
		bool keyed, bool unkeyed, shape_name_fn name, const void *ctx,
		bool *differ, char *buf, size_t len)
{
	const struct shape_summary *sum = t ? shapes_summary(t, func_id) :
					      NULL;
	char a[128], b[128];

	*differ = sum && sum->differ;
	if (keyed && sum && !sum->with_calls) {
		snprintf(buf, len, "%s made no probed calls; --key %s=shape "
			 "has nothing to compare", self, self);
		return true;
	}
	if (!unkeyed || !*differ)
		return false;
	/* Whole if they fit, else cut between two callees. */
	if (shape_format(&sum->first, self, name, ctx, a, sizeof(a)) >=
	    (int)sizeof(a))
		shape_write(&sum->first, self, name, ctx, a, sizeof(a), true);
	if (shape_format(&sum->other, self, name, ctx, b, sizeof(b)) >=
	    (int)sizeof(b))
		shape_write(&sum->other, self, name, ctx, b, sizeof(b), true);
	snprintf(buf, len, "%s made different probed calls from one execution "
		 "to another (%s, %s): --key %s=shape compares like with like",
		 self, a, b, self);
	return true;
}
