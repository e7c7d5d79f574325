// SPDX-License-Identifier: GPL-2.0
/* The one hash map: linear probing, backward-shift deletion; hashmap.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"

#define HASHMAP_MIN_CAP		16

void hashmap_init(struct hashmap *map, hashmap_hash_fn hash_fn,
		  hashmap_equal_fn equal_fn, const void *ctx)
{
	memset(map, 0, sizeof(*map));
	map->hash_fn = hash_fn;
	map->equal_fn = equal_fn;
	map->ctx = ctx;
}

void hashmap_free(struct hashmap *map)
{
	free(map->entries);
	free(map->used);
	map->entries = NULL;
	map->used = NULL;
	map->cap = 0;
	map->size = 0;
}

static void hm_set_used(struct hashmap *map, size_t i, bool used)
{
	uint64_t bit = 1ull << (i % HASHMAP_WORD_BITS);

	if (used)
		map->used[i / HASHMAP_WORD_BITS] |= bit;
	else
		map->used[i / HASHMAP_WORD_BITS] &= ~bit;
}

size_t hashmap_probe_fn(const struct hashmap *map, uint64_t key)
{
	size_t mask = map->cap - 1, i = hashmap_hash(map, key) & mask;

	while (hashmap_slot_used(map, i) &&
	       !map->equal_fn(map->entries[i].key, key, map->ctx))
		i = (i + 1) & mask;
	return i;
}

/* A table of @cap slots, every entry moved to its home there. */
static int hm_resize(struct hashmap *map, size_t cap)
{
	struct hashmap big = *map;
	size_t i, j;

	if (cap > SIZE_MAX / sizeof(*big.entries))
		return -ENOMEM;
	big.cap = cap;
	big.entries = malloc(cap * sizeof(*big.entries));
	big.used = calloc((cap + HASHMAP_WORD_BITS - 1) / HASHMAP_WORD_BITS,
			  sizeof(*big.used));
	if (!big.entries || !big.used) {
		free(big.entries);
		free(big.used);
		return -ENOMEM;
	}
	/* In slot order: the same table always grows into the same one. */
	for (i = 0; i < map->cap; i++) {
		if (!hashmap_slot_used(map, i))
			continue;
		j = hashmap_probe(&big, map->entries[i].key);
		big.entries[j] = map->entries[i];
		hm_set_used(&big, j, true);
	}
	free(map->entries);
	free(map->used);
	*map = big;
	return 0;
}

int hashmap_reserve(struct hashmap *map, size_t n)
{
	size_t cap = map->cap ? map->cap : HASHMAP_MIN_CAP;

	while (cap / 2 < n) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	return cap == map->cap ? 0 : hm_resize(map, cap);
}

int hashmap_insert(struct hashmap *map, uint64_t key, uint64_t value)
{
	size_t i;

	if (map->size && hashmap_slot_used(map, hashmap_probe(map, key)))
		return -EEXIST;
	/* At most half full: probe runs stay short. */
	if ((map->size + 1) * 2 > map->cap &&
	    hashmap_reserve(map, map->size + 1))
		return -ENOMEM;
	i = hashmap_probe(map, key);
	map->entries[i].key = key;
	map->entries[i].value = value;
	hm_set_used(map, i, true);
	map->size++;
	return 0;
}

/*
 * Walking the run after a @hole, the entry found at slot @j whose home
 * slot is @home may move into the hole unless its home lies cyclically in
 * (hole, j]: there its probe sequence does not pass through the hole.
 */
static bool hm_may_fill(size_t home, size_t hole, size_t j)
{
	return j > hole ? (home <= hole || home > j) :
			  (home <= hole && home > j);
}

bool hashmap_delete(struct hashmap *map, uint64_t key, uint64_t *value)
{
	size_t mask = map->cap - 1, hole, j;

	if (!map->size)
		return false;
	hole = hashmap_probe(map, key);
	if (!hashmap_slot_used(map, hole))
		return false;
	if (value)
		*value = map->entries[hole].value;
	for (j = (hole + 1) & mask; hashmap_slot_used(map, j);
	     j = (j + 1) & mask) {
		if (hm_may_fill(hashmap_hash(map, map->entries[j].key) & mask,
				hole, j)) {
			map->entries[hole] = map->entries[j];
			hole = j;
		}
	}
	hm_set_used(map, hole, false);
	map->size--;
	return true;
}

size_t hashmap_mem_bytes(const struct hashmap *map)
{
	return map->cap * sizeof(*map->entries) +
	       (map->cap + HASHMAP_WORD_BITS - 1) / HASHMAP_WORD_BITS *
	       sizeof(*map->used);
}

const struct hashmap_entry *hashmap_next(const struct hashmap *map,
					 size_t *pos)
{
	for (; *pos < map->cap; (*pos)++)
		if (hashmap_slot_used(map, *pos))
			return &map->entries[(*pos)++];
	return NULL;
}
