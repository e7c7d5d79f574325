// SPDX-License-Identifier: GPL-2.0
/* The recording's address set; see recording_addrs.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "recording/recording_addrs.h"
#include "util/hash.h"

/* Drawn at the first insert (ispotctl records on one thread). */
static uint64_t seed;
static bool seeded;

static void seed_init(void)
{
	struct timespec ts;
	uint64_t s;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != sizeof(s)) {
		/* No entropy yet: still not knowable from a file. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = hash_mix64((uint64_t)ts.tv_nsec ^
			       ((uint64_t)ts.tv_sec << 30) ^
			       ((uint64_t)getpid() << 48) ^ (uintptr_t)&ts);
	}
	seed = s;
	seeded = true;
}

static size_t addrs_hash(uint64_t a, const void *ctx)
{
	(void)ctx;
	return (size_t)hash_mix64(a ^ seed);
}

static bool addrs_equal(uint64_t stored, uint64_t a, const void *ctx)
{
	(void)ctx;
	return stored == a;
}

const unsigned char *rec_addrs_find(const struct rec_addrs *s, uint64_t a)
{
	struct hashmap_entry *e;

	if (!a)
		return &s->zero;
	/* hashmap_entry_of() changes nothing; it only lends the entry. */
	e = hashmap_entry_of((struct hashmap *)&s->map, a);
	return e ? (const unsigned char *)&e->value : NULL;
}

unsigned char *rec_addrs_add(struct rec_addrs *s, uint64_t a)
{
	struct hashmap_entry *e;

	if (!a)
		return &s->zero;
	if (!seeded)
		seed_init();
	/* A zeroed set takes its seeded hash at the first insert. */
	if (!s->map.hash_fn)
		hashmap_init(&s->map, addrs_hash, addrs_equal, NULL);
	e = hashmap_entry_of(&s->map, a);
	if (e)
		return (unsigned char *)&e->value;
	if (hashmap_size(&s->map) >= REC_MAX_ADDRS ||
	    hashmap_insert(&s->map, a, 0)) {
		s->refused++;
		return NULL;
	}
	return (unsigned char *)&hashmap_entry_of(&s->map, a)->value;
}

void rec_addrs_free(struct rec_addrs *s)
{
	hashmap_free(&s->map);
}
