/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one integer hash of user/: the splitmix64 finaliser (Steele, Lea
 * and Flood, "Fast splittable pseudorandom number generators", 2014).  It
 * is a bijection of u64 whose every output bit depends on every input
 * bit, so keys far from uniform (tids, aligned addresses, call sites,
 * packed pairs of indices) spread over a power-of-two table's low bits.
 */
#ifndef ISPOT_HASH_H
#define ISPOT_HASH_H

#include <stdint.h>

static inline uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

#endif /* ISPOT_HASH_H */
