// SPDX-License-Identifier: GPL-2.0
/* See strindex.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/strindex.h"

/* What the map's keys point to: the looked-for pair, or an entry's. */
struct strindex_key {
	const char *key;
	int64_t tag;
};

struct strindex_entry {
	struct strindex_key id;		/* id.key is name */
	size_t val;
	char name[];
};

/* FNV-1a over the string, then the tag mixed in. */
static size_t strindex_hash(uint64_t key, const void *ctx)
{
	const struct strindex_key *k = (const void *)(uintptr_t)key;
	uint64_t h = 0xcbf29ce484222325ull;
	const char *c;

	(void)ctx;
	for (c = k->key; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
	h ^= (uint64_t)k->tag * 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ (h >> 29));
}

static bool strindex_equal(uint64_t stored, uint64_t key, const void *ctx)
{
	const struct strindex_key *a = (const void *)(uintptr_t)stored;
	const struct strindex_key *b = (const void *)(uintptr_t)key;

	(void)ctx;
	return a->tag == b->tag && !strcmp(a->key, b->key);
}

static struct strindex_entry *strindex_find(const struct strindex *x,
					    const char *key, int64_t tag)
{
	struct strindex_key id = { .key = key, .tag = tag };

	return hashmap_find_ptr(&x->map, (uintptr_t)&id);
}

size_t strindex_get(const struct strindex *x, const char *key, int64_t tag)
{
	const struct strindex_entry *e = strindex_find(x, key, tag);

	return e ? e->val : STRINDEX_NONE;
}

int strindex_put(struct strindex *x, const char *key, int64_t tag,
		 size_t val)
{
	struct strindex_entry *e;
	size_t len;

	/* A zeroed index is empty: its callbacks are set on first use. */
	if (!x->map.hash_fn)
		hashmap_init(&x->map, strindex_hash, strindex_equal, NULL);
	e = strindex_find(x, key, tag);
	if (e) {
		e->val = val;
		return 0;
	}
	len = strlen(key) + 1;
	e = malloc(sizeof(*e) + len);
	if (!e)
		return -ENOMEM;
	memcpy(e->name, key, len);
	e->id.key = e->name;
	e->id.tag = tag;
	e->val = val;
	if (hashmap_insert(&x->map, (uintptr_t)&e->id, (uintptr_t)e)) {
		free(e);
		return -ENOMEM;
	}
	return 0;
}

void strindex_free(struct strindex *x)
{
	const struct hashmap_entry *e;
	size_t pos;

	hashmap_for_each(&x->map, e, pos)
		free((void *)(uintptr_t)e->value);
	hashmap_free(&x->map);
}
