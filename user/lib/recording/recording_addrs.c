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

static size_t addrs_home(const struct rec_addrs *s, uint64_t a)
{
	return (size_t)hash_mix64(a ^ seed) & (s->cap - 1);
}

/* The slot holding @a, or the empty slot ending its run. */
static size_t addrs_probe(const struct rec_addrs *s, uint64_t a)
{
	size_t i;

	for (i = addrs_home(s, a); s->addr[i] && s->addr[i] != a;
	     i = (i + 1) & (s->cap - 1))
		;
	return i;
}

const unsigned char *rec_addrs_find(const struct rec_addrs *s, uint64_t a)
{
	size_t i;

	if (!a)
		return &s->zero;
	if (!s->cap)
		return NULL;
	i = addrs_probe(s, a);
	return s->addr[i] ? &s->val[i] : NULL;
}

/* Twice the slots, every address moved to its new home: 0 or -1. */
static int addrs_grow(struct rec_addrs *s)
{
	struct rec_addrs big = { .zero = s->zero, .refused = s->refused };
	size_t j, i;

	big.cap = s->cap ? 2 * s->cap : 1024;
	big.addr = calloc(big.cap, sizeof(*big.addr));
	big.val = calloc(big.cap, 1);
	if (!big.addr || !big.val) {
		free(big.addr);
		free(big.val);
		return -1;
	}
	for (j = 0; j < s->cap; j++) {
		if (!s->addr[j])
			continue;
		i = addrs_probe(&big, s->addr[j]);
		big.addr[i] = s->addr[j];
		big.val[i] = s->val[j];
	}
	big.n = s->n;
	free(s->addr);
	free(s->val);
	*s = big;
	return 0;
}

unsigned char *rec_addrs_add(struct rec_addrs *s, uint64_t a)
{
	size_t i;

	if (!a)
		return &s->zero;
	if (!seeded)
		seed_init();
	if (s->cap) {
		i = addrs_probe(s, a);
		if (s->addr[i])
			return &s->val[i];
	}
	/* A new address: within the bound, and the load at most half. */
	if (s->n >= REC_MAX_ADDRS ||
	    (2 * (s->n + 1) > s->cap && addrs_grow(s))) {
		s->refused++;
		return NULL;
	}
	i = addrs_probe(s, a);
	s->addr[i] = a;
	s->val[i] = 0;
	s->n++;
	return &s->val[i];
}

void rec_addrs_free(struct rec_addrs *s)
{
	free(s->addr);
	free(s->val);
	s->addr = NULL;
	s->val = NULL;
	s->n = s->cap = 0;
}
