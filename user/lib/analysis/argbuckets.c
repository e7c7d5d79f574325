// SPDX-License-Identifier: GPL-2.0
/* Per-argument log2 buckets and the workload test; see argbuckets.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/argbuckets.h"
#include "util/format.h"
#include "util/array.h"

struct argbuckets *argbuckets_new(void)
{
	return calloc(1, sizeof(struct argbuckets));
}

void argbuckets_free(struct argbuckets *ab)
{
	uint32_t i;

	if (!ab)
		return;
	for (i = 0; i < ab->nr_funcs; i++)
		free(ab->funcs[i]);
	free(ab->funcs);
	free(ab);
}

static struct argb_func *argb_func_new(void)
{
	struct argb_func *f = calloc(1, sizeof(*f));
	unsigned int a, b;

	if (!f)
		return NULL;
	f->min = UINT64_MAX;
	for (a = 0; a < ARGB_NR_ARGS; a++)
		for (b = 0; b < ARGB_NR_BUCKETS; b++)
			f->b[a][b].min = UINT64_MAX;
	return f;
}

int argbuckets_add_first(struct argbuckets *ab, uint32_t func_id,
			 const uint64_t *args, uint64_t duration_ns)
{
	struct argb_func *f;

	if (func_id >= ab->nr_funcs &&
	    idarray_reserve(&ab->funcs, &ab->nr_funcs, sizeof(*ab->funcs),
			    func_id))
		return -ENOMEM;
	f = ab->funcs[func_id];
	if (!f) {
		f = argb_func_new();
		if (!f)
			return -ENOMEM;
		ab->funcs[func_id] = f;
	}
	argb_func_add(f, args, duration_ns);
	return 0;
}

const struct argb_func *argbuckets_of(const struct argbuckets *ab,
				      uint32_t func_id)
{
	return ab && func_id < ab->nr_funcs ? ab->funcs[func_id] : NULL;
}

static bool well_populated(const struct argb_func *f,
			   const struct argb_bucket *b)
{
	return b->n >= ARGB_MIN_CALLS &&
	       (double)b->n >= ARGB_MIN_SHARE * (double)f->n;
}

/* The verdict on argument @a alone; false if it has no two buckets. */
static bool judge_arg(const struct argb_func *f, unsigned int a,
		      struct argb_verdict *v)
{
	const struct argb_bucket *bk = f->b[a];
	uint64_t unkeyed = f->sum - f->n * f->min, keyed = 0;
	unsigned int b, lo = 0, hi = 0, well = 0;

	for (b = 0; b < ARGB_NR_BUCKETS; b++) {
		if (bk[b].n)
			keyed += bk[b].sum - bk[b].n * bk[b].min;
		if (!well_populated(f, &bk[b]))
			continue;
		if (!well++)
			lo = hi = b;
		if (bk[b].min < bk[lo].min)
			lo = b;
		if (bk[b].min > bk[hi].min)
			hi = b;
	}
	if (well < 2)
		return false;
	v->arg = a;
	v->lo_bucket = lo;
	v->hi_bucket = hi;
	v->lo_min = bk[lo].min;
	v->hi_min = bk[hi].min;
	v->ratio = bk[lo].min ? (double)bk[hi].min / (double)bk[lo].min :
		   bk[hi].min ? 1e9 : 1.0;
	v->cut = unkeyed ? 1.0 - (double)keyed / (double)unkeyed : 0.0;
	return true;
}

void argb_judge(const struct argb_func *f, struct argb_verdict *v)
{
	struct argb_verdict best = { 0 }, cand;
	bool compared = false, varied = false;
	unsigned int a, b, used;

	memset(v, 0, sizeof(*v));
	if (!f)
		return;
	for (a = 0; a < ARGB_NR_ARGS; a++) {
		for (b = 0, used = 0; b < ARGB_NR_BUCKETS; b++)
			used += f->b[a][b].n != 0;
		varied |= used >= 2;
		memset(&cand, 0, sizeof(cand));
		if (!judge_arg(f, a, &cand))
			continue;
		cand.dependent = cand.ratio >= ARGB_MIN_RATIO &&
				 cand.cut >= ARGB_MIN_CUT;
		/* A flagged argument first, then the one that cuts most. */
		if (!compared || cand.dependent > best.dependent ||
		    (cand.dependent == best.dependent && cand.cut > best.cut))
			best = cand;
		compared = true;
	}
	*v = best;
	v->compared = compared;
	v->calls = f->n;
	v->undecided = !compared && varied;
}

/* "arg0≈2^5", "arg0=0", "arg0=1" */
static int bucket_label(unsigned int arg, unsigned int b, char *buf,
			size_t len)
{
	if (b <= 1)
		return snprintf(buf, len, "arg%u=%u", arg, b);
	return snprintf(buf, len, "arg%u\u22482^%u", arg, b - 1);
}

int argb_evidence(const struct argb_verdict *v, char *buf, size_t len)
{
	unsigned int first = v->lo_bucket, second = v->hi_bucket;
	uint64_t m1 = v->lo_min, m2 = v->hi_min;
	char d1[32], d2[32], l1[32], l2[32];

	if (first > second) {
		first = v->hi_bucket;
		second = v->lo_bucket;
		m1 = v->hi_min;
		m2 = v->lo_min;
	}
	format_ns(d1, sizeof(d1), (double)m1);
	format_ns(d2, sizeof(d2), (double)m2);
	bucket_label(v->arg, first, l1, sizeof(l1));
	bucket_label(v->arg, second, l2, sizeof(l2));
	return snprintf(buf, len, "min %s at %s, %s at %s", d1, l1, d2, l2);
}

int argb_key_name(const struct argb_verdict *v, char *buf, size_t len)
{
	return snprintf(buf, len, "arg%u:log2", v->arg);
}
