// SPDX-License-Identifier: GPL-2.0
/* See strindex.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/strindex.h"

/* FNV-1a over the string, then the tag mixed in. */
static uint64_t strindex_hash(const char *key, int64_t tag)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*key)
		h = (h ^ (unsigned char)*key++) * 0x100000001b3ull;
	h ^= (uint64_t)tag * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static size_t strindex_slot_of(const struct strindex_slot *slot, size_t cap,
			       const char *key, int64_t tag)
{
	size_t i = strindex_hash(key, tag) & (cap - 1);

	while (slot[i].key && (slot[i].tag != tag || strcmp(slot[i].key, key)))
		i = (i + 1) & (cap - 1);
	return i;
}

size_t strindex_get(const struct strindex *x, const char *key, int64_t tag)
{
	size_t i;

	if (!x->cap)
		return STRINDEX_NONE;
	i = strindex_slot_of(x->slot, x->cap, key, tag);
	return x->slot[i].key ? x->slot[i].val : STRINDEX_NONE;
}

int strindex_put(struct strindex *x, const char *key, int64_t tag,
		 size_t val)
{
	size_t i;

	if ((x->nr + 1) * 2 > x->cap) {
		size_t j, cap = x->cap ? 2 * x->cap : 64;
		struct strindex_slot *s = calloc(cap, sizeof(*s));

		if (!s)
			return -ENOMEM;
		for (j = 0; j < x->cap; j++)
			if (x->slot[j].key)
				s[strindex_slot_of(s, cap, x->slot[j].key,
						   x->slot[j].tag)] =
					x->slot[j];
		free(x->slot);
		x->slot = s;
		x->cap = cap;
	}
	i = strindex_slot_of(x->slot, x->cap, key, tag);
	if (!x->slot[i].key) {
		x->slot[i].key = strdup(key);
		if (!x->slot[i].key)
			return -ENOMEM;
		x->slot[i].tag = tag;
		x->nr++;
	}
	x->slot[i].val = val;
	return 0;
}

void strindex_free(struct strindex *x)
{
	size_t i;

	for (i = 0; i < x->cap; i++)
		free(x->slot[i].key);
	free(x->slot);
	memset(x, 0, sizeof(*x));
}
