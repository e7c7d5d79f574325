/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The integer hashes of user/, for tables whose slot is a hash's low bits.
 *
 * hash_u64(): Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4), the product's
 * high half folded onto its low half, where a power-of-two table looks.
 * One multiplication: the hash map's (util/hashmap.h), on the hot path
 * of every record.
 *
 * hash_mix64(): the splitmix64 finaliser (Steele, Lea and Flood, "Fast
 * splittable pseudorandom number generators", 2014), a bijection of u64
 * whose every output bit depends on every input bit: for keys mixed with
 * a secret seed, which a file's author must not be able to make collide
 * (recording/recording_addrs.c), and for combining keys.
 */
#ifndef ISPOT_HASH_H
#define ISPOT_HASH_H

#include <stdint.h>

static inline uint64_t hash_u64(uint64_t x)
{
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 32);
}

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
