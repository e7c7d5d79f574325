// SPDX-License-Identifier: GPL-2.0
/* Log-linear histogram of durations; see hist.h for the layout and bounds. */
#include <math.h>
#include <string.h>

#include "analysis/hist.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

static unsigned int bucket_group(size_t idx)
{
	return idx < 2 * HIST_SUB ? 0 : idx / HIST_SUB - 1;
}

uint64_t hist_bucket_lower(size_t idx)
{
	unsigned int g = bucket_group(idx);

	return (uint64_t)(idx - (size_t)g * HIST_SUB) << g;
}

uint64_t hist_bucket_upper(size_t idx)
{
	/* Cannot overflow: the last bucket ends exactly at UINT64_MAX. */
	return hist_bucket_lower(idx) + ((1ULL << bucket_group(idx)) - 1);
}

void hist_record_n(struct hist *h, uint64_t v, uint64_t n)
{
	unsigned __int128 add;
	uint64_t lo;

	if (!n)
		return;
	h->buckets[hist_bucket_index(v)] += n;
	h->count += n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	add = (unsigned __int128)v * n;
	lo = h->sum_lo + (uint64_t)add;
	h->sum_hi += (uint64_t)(add >> 64) + (lo < h->sum_lo);
	h->sum_lo = lo;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	uint64_t lo;
	size_t i;

	if (!src->count)
		return;
	for (i = 0; i < HIST_NR_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	lo = dst->sum_lo + src->sum_lo;
	dst->sum_hi += src->sum_hi + (lo < dst->sum_lo);
	dst->sum_lo = lo;
}

double hist_mean(const struct hist *h)
{
	long double sum;

	if (!h->count)
		return 0.0;
	sum = ldexpl((long double)h->sum_hi, 64) + (long double)h->sum_lo;
	return (double)(sum / h->count);
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, lo, hi, mid;
	long double r;
	size_t i;

	if (!h->count)
		return 0;
	if (p <= 0.0)
		return h->min;
	if (p >= 100.0)
		return h->max;
	/*
	 * Multiply before dividing so that an integral p over an integral
	 * count gives an exact rank (99 * 1000 / 100 is 990, not 990.0001).
	 */
	r = ceill((long double)p * h->count / 100.0L);
	rank = r < 1 ? 1 : (r > h->count ? h->count : (uint64_t)r);

	for (i = 0; i < HIST_NR_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	lo = hist_bucket_lower(i);
	hi = hist_bucket_upper(i);
	mid = lo + (hi - lo) / 2;
	/* min and max are exact, so they tighten the first and last bucket. */
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}

void hist_cumulative(const struct hist *h, const uint64_t *le, size_t n,
		     uint64_t *out)
{
	size_t i, k = 0;
	uint64_t seen = 0;

	for (i = 0; i < HIST_NR_BUCKETS && k < n; i++) {
		uint64_t lo = hist_bucket_lower(i);
		uint64_t mid = lo + (hist_bucket_upper(i) - lo) / 2;

		/* Close every bound below this bucket before counting it. */
		while (k < n && le[k] < mid)
			out[k++] = seen;
		seen += h->buckets[i];
	}
	while (k < n)
		out[k++] = seen;
}
