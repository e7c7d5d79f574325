/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one hash map of user/, after libbpf's hashmap.h in its interface:
 * u64 keys and u64 values, the keys either integers (a zeroed map, or
 * hashmap_init() without callbacks: hashed by hash_u64(), compared with
 * ==) or pointers to the caller's key structures, hashed and compared by
 * the callbacks given to hashmap_init().  A value is an index or a pointer
 * (hashmap_find_ptr()).  A key is in the map at most once.
 *
 * Open addressing with linear probing in a power-of-two table kept at
 * most half full, so a look-up is O(1) expected and touches one or two
 * cache lines.  Deletion shifts the entries after the hole back (Knuth,
 * TAOCP vol. 3, 6.4, Algorithm R) instead of leaving a tombstone, so a
 * map whose keys come and go for ever (threads) stays as short to probe
 * as a fresh one, and its size follows the keys it holds.
 *
 *	struct hashmap threads = { 0 };	(tid -> struct thread *)
 *
 *	t = hashmap_find_ptr(&threads, tid);
 *	if (!t && (!(t = calloc(1, sizeof(*t))) ||
 *		   hashmap_insert(&threads, tid, (uintptr_t)t)))
 *		...
 *
 * Entries move when the table grows or loses an entry: keep no pointer
 * into it, and neither insert nor delete while iterating.
 */
#ifndef ISPOT_HASHMAP_H
#define ISPOT_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

struct hashmap_entry {
	uint64_t key;
	uint64_t value;
};

/*
 * For keys that point to the caller's structures.  The hash's low bits
 * pick the slot, so they must be well mixed (util/hash.h).  @stored is a
 * key in the map, @key the one looked for.
 */
typedef size_t (*hashmap_hash_fn)(uint64_t key, const void *ctx);
typedef bool (*hashmap_equal_fn)(uint64_t stored, uint64_t key,
				 const void *ctx);

struct hashmap {
	hashmap_hash_fn hash_fn;	/* NULL: integer keys */
	hashmap_equal_fn equal_fn;
	const void *ctx;
	struct hashmap_entry *entries;
	uint64_t *used;			/* a bit per slot */
	size_t cap;			/* 0, or a power of two */
	size_t size;
};

/* An empty map of keys hashed and compared by the callbacks. */
void hashmap_init(struct hashmap *map, hashmap_hash_fn hash_fn,
		  hashmap_equal_fn equal_fn, const void *ctx);
/* Free the table (the values are the caller's); the map is then empty. */
void hashmap_free(struct hashmap *map);
/* Room for @n keys without growing: 0 or -ENOMEM. */
int hashmap_reserve(struct hashmap *map, size_t n);

/* The bits of hashmap.used's words. */
#define HASHMAP_WORD_BITS	64

/* Whether slot @i holds an entry. */
static inline bool hashmap_slot_used(const struct hashmap *map, size_t i)
{
	return map->used[i / HASHMAP_WORD_BITS] >> (i % HASHMAP_WORD_BITS) & 1;
}

static inline size_t hashmap_hash(const struct hashmap *map, uint64_t key)
{
	return map->hash_fn ? map->hash_fn(key, map->ctx) :
			      (size_t)hash_u64(key);
}

/* hashmap_probe() for keys compared by a callback. */
size_t hashmap_probe_fn(const struct hashmap *map, uint64_t key);

/* The slot holding @key, or the free slot that ends its run (cap > 0). */
static inline size_t hashmap_probe(const struct hashmap *map, uint64_t key)
{
	size_t mask = map->cap - 1, i;

	if (map->equal_fn)
		return hashmap_probe_fn(map, key);
	for (i = hash_u64(key) & mask;
	     hashmap_slot_used(map, i) && map->entries[i].key != key;
	     i = (i + 1) & mask)
		;
	return i;
}

/*
 * Whether @key is in the map; its value into *@value (may be NULL).
 * Inline: a tracer looks a thread up at every record.
 */
static inline bool hashmap_find(const struct hashmap *map, uint64_t key,
				uint64_t *value)
{
	size_t i;

	if (!map->size)
		return false;
	i = hashmap_probe(map, key);
	if (!hashmap_slot_used(map, i))
		return false;
	if (value)
		*value = map->entries[i].value;
	return true;
}
/* Add @key with @value: 0, -EEXIST (it is there already) or -ENOMEM. */
/*
 * @key's entry, to read or change its value in place, or NULL.  The
 * pointer is good until the next insert or delete.
 */
static inline struct hashmap_entry *hashmap_entry_of(struct hashmap *map,
						     uint64_t key)
{
	size_t i;

	if (!map->size)
		return NULL;
	i = hashmap_probe(map, key);
	return hashmap_slot_used(map, i) ? &map->entries[i] : NULL;
}

int hashmap_insert(struct hashmap *map, uint64_t key, uint64_t value);
/* Remove @key; its value into *@value (may be NULL).  False if absent. */
bool hashmap_delete(struct hashmap *map, uint64_t key, uint64_t *value);

/* The pointer kept under @key, NULL if absent. */
static inline void *hashmap_find_ptr(const struct hashmap *map, uint64_t key)
{
	uint64_t v;

	return hashmap_find(map, key, &v) ? (void *)(uintptr_t)v : NULL;
}

static inline size_t hashmap_size(const struct hashmap *map)
{
	return map->size;
}

/* What the table takes, in bytes. */
size_t hashmap_mem_bytes(const struct hashmap *map);

/*
 * The entry at or after *@pos (start at 0), in slot order, and *@pos past
 * it; NULL at the end.
 */
const struct hashmap_entry *hashmap_next(const struct hashmap *map,
					 size_t *pos);

#define hashmap_for_each(map, entry, pos)				\
	for ((pos) = 0; ((entry) = hashmap_next((map), &(pos))); )

#endif /* ISPOT_HASHMAP_H */
