// SPDX-License-Identifier: GPL-2.0
/*
 * The sections' checks of a format 2 to 6 recording (recording_codec.h,
 * rec2_check(); Documentation/recording.rst, "Checks"): hashes whose
 * every step is a bijection of the running value for a given 8-byte
 * word, so a change confined to one word always changes the result.
 */
#include <endian.h>
#include <string.h>

#include "recording/recording_codec.h"

static inline uint64_t rotl(uint64_t v, unsigned int k)
{
	return (v << k) | (v >> (64 - k));
}

#define CHECK_MUL	0xbf58476d1ce4e5b9ull

/*
 * One word into a running check: a bijection of the running value for a
 * given word (an xor, a rotation, a multiplication by an odd number), so
 * two inputs that differ in one word differ after it, and stay different
 * to the end.
 */
static inline uint64_t check_step(uint64_t h, const unsigned char *b)
{
	return rotl(h ^ load64(b), 29) * CHECK_MUL;
}

static inline uint64_t check_end(uint64_t h)
{
	h ^= h >> 31;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 29);
}

/* The last @len (< 8) bytes at @b, as a word padded with zeros. */
static inline uint64_t check_tail(uint64_t h, const unsigned char *b,
				  size_t len)
{
	unsigned char w[8] = { 0 };

	memcpy(w, b, len);
	return check_step(h, w);
}

/* Format 2's: one chain, a step (5 cycles of latency) a word. */
static uint64_t check_chain(const unsigned char *b, size_t len,
			    uint64_t seed)
{
	uint64_t h = seed ^ (len * 0x9e3779b97f4a7c15ull);

	for (; len >= 8; b += 8, len -= 8)
		h = check_step(h, b);
	if (len)
		h = check_tail(h, b, len);
	return check_end(h);
}

/*
 * Formats 3 and 4: word i into chain i % 4, the four joined at the end,
 * each through a rotation and an xor (a bijection of each chain for the
 * others fixed): the same property, and the chains run side by side,
 * where the one chain's latency was what it cost
 * (Documentation/evaluation.rst).
 * The whole rounds keep the chains in four variables: from an array, GCC
 * stored and loaded each step's value, which doubled the chain's latency.
 */
static uint64_t check_chains(const unsigned char *b, size_t len,
			     uint64_t seed)
{
	uint64_t start = seed ^ (len * 0x9e3779b97f4a7c15ull);
	uint64_t h0 = start, h1 = start + 0xd6e8feb86659fd93ull;
	uint64_t h2 = start + 2 * 0xd6e8feb86659fd93ull;
	uint64_t h3 = start + 3 * 0xd6e8feb86659fd93ull;
	uint64_t h[4];
	unsigned int i;

	for (; len >= 32; b += 32, len -= 32) {
		h0 = check_step(h0, b);
		h1 = check_step(h1, b + 8);
		h2 = check_step(h2, b + 16);
		h3 = check_step(h3, b + 24);
	}
	h[0] = h0;
	h[1] = h1;
	h[2] = h2;
	h[3] = h3;
	for (i = 0; len >= 8; b += 8, len -= 8, i++)
		h[i] = check_step(h[i], b);
	if (len)
		h[i] = check_tail(h[i], b, len);
	return check_end(h[0] ^ rotl(h[1], 16) ^ rotl(h[2], 32) ^
			 rotl(h[3], 48));
}

uint64_t rec2_check(unsigned int major, const void *p, size_t len,
		    uint64_t seed)
{
	return major >= 3 ? check_chains(p, len, seed) :
			    check_chain(p, len, seed);
}

uint32_t rec2_head_check(uint32_t type, uint64_t len, uint64_t body)
{
	uint64_t w[3] = { htole64(type), htole64(len), htole64(body) };

	/* The same in every format. */
	return (uint32_t)check_chain((const unsigned char *)w, sizeof(w),
				     0x1590e7ull);
}
