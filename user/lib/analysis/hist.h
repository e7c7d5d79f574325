/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A log-linear histogram of u64 nanosecond durations (the HdrHistogram
 * layout).
 *
 * Values below 2^(HIST_SUB_BITS + 1) get one bucket each and are exact.
 * Above that, every power of two [2^e, 2^(e+1)) is cut into
 * HIST_SUB = 2^HIST_SUB_BITS equal buckets of width 2^(e - HIST_SUB_BITS).
 * A bucket is therefore never wider than 1/HIST_SUB of its lower bound, and
 * its midpoint is within HIST_REL_ERROR (1/256, about 0.4%) of every value
 * it holds.
 *
 * The whole u64 range fits in HIST_NR_BUCKETS counters held in the structure
 * itself: recording never allocates and the memory of a histogram does not
 * depend on what it has seen (sizeof(struct hist) is about 58 KiB).  That is
 * why the SCI engine keeps one histogram per block, not per (block, thread).
 *
 * Count, min, max and the sum are kept exactly; the sum is 128-bit so a mean
 * cannot overflow however long the trace.
 */
#ifndef ISPOT_HIST_H
#define ISPOT_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS	7
#define HIST_SUB	(1U << HIST_SUB_BITS)
/* Group 0 holds [0, 2 * HIST_SUB); groups 1..63-HIST_SUB_BITS one octave. */
#define HIST_NR_GROUPS	(64 - HIST_SUB_BITS)
#define HIST_NR_BUCKETS	((HIST_NR_GROUPS + 1) * HIST_SUB)
/* Worst relative distance between a reported value and the true one. */
#define HIST_REL_ERROR	(1.0 / (2.0 * HIST_SUB))

struct hist {
	uint64_t count;
	uint64_t min;		/* UINT64_MAX while empty */
	uint64_t max;
	uint64_t sum_lo;	/* 128-bit sum of the values */
	uint64_t sum_hi;
	uint64_t buckets[HIST_NR_BUCKETS];
};

void hist_init(struct hist *h);
/* Record @n copies of @v. */
void hist_record_n(struct hist *h, uint64_t v, uint64_t n);
/* dst += src; the result is what recording both inputs would give. */
void hist_merge(struct hist *dst, const struct hist *src);

static inline uint64_t hist_count(const struct hist *h)
{
	return h->count;
}

/* Exact; 0 for an empty histogram. */
static inline uint64_t hist_min(const struct hist *h)
{
	return h->count ? h->min : 0;
}

static inline uint64_t hist_max(const struct hist *h)
{
	return h->max;
}

/* The sum's low 64 bits: a plain u64 sum of the values, wrapping alike. */
static inline uint64_t hist_sum_u64(const struct hist *h)
{
	return h->sum_lo;
}

/* Exact up to double rounding; 0 for an empty histogram. */
double hist_mean(const struct hist *h);

/*
 * The nearest-rank percentile: the smallest recorded value v such that at
 * least ceil(p/100 * count) values are <= v, reported as the midpoint of
 * v's bucket clamped to [min, max].  It is within HIST_REL_ERROR of the
 * exact nearest-rank value; p <= 0 gives min and p >= 100 gives max exactly.
 * Returns 0 for an empty histogram.  O(HIST_NR_BUCKETS).
 */
uint64_t hist_percentile(const struct hist *h, double p);

/*
 * Classic cumulative buckets, as Prometheus' "le" wants them: @out[k] is
 * the number of values <= @le[k], for @n ascending bounds.  Each bucket is
 * counted whole at its midpoint, so a value within HIST_REL_ERROR of a
 * bound may fall on the other side of it; values below 2 * HIST_SUB are
 * exact.  O(HIST_NR_BUCKETS).
 */
void hist_cumulative(const struct hist *h, const uint64_t *le, size_t n,
		     uint64_t *out);

/*
 * Bucket geometry, exposed for tests and for exporting the histogram.
 *
 * Group g >= 1 holds the values whose top bit is bit g + HIST_SUB_BITS; its
 * buckets are indexed by the HIST_SUB_BITS + 1 top bits of the value (which
 * lie in [HIST_SUB, 2 * HIST_SUB)), offset by g * HIST_SUB so that the
 * groups are laid out back to back.  Group 0 is the identity on
 * [0, 2 * HIST_SUB), which continues the same formula with g = 0.
 */
static inline size_t hist_bucket_index(uint64_t v)
{
	unsigned int g;

	if (v < 2 * HIST_SUB)
		return v;
	g = 63 - __builtin_clzll(v) - HIST_SUB_BITS;
	return (size_t)g * HIST_SUB + (v >> g);
}
uint64_t hist_bucket_lower(size_t idx);
uint64_t hist_bucket_upper(size_t idx);	/* inclusive */

/*
 * O(1): one clz, one shift, one increment.  Inline: the SCI engine
 * records every execution.
 */
static inline void hist_record(struct hist *h, uint64_t v)
{
	h->buckets[hist_bucket_index(v)]++;
	h->count++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	/* The 128-bit sum: a carry out of the low word. */
	h->sum_hi += h->sum_lo + v < v;
	h->sum_lo += v;
}

#endif /* ISPOT_HIST_H */
