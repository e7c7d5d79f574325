/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workload-dependent functions (paper §3.4, "False positives"): some
 * executions are slower because they are given more work, not because
 * another thread got in the way.  Every entry record carries the first
 * three integer arguments, so per function and argument the pipeline
 * keeps, for each log2 bucket of the argument's value (bucket 0 holds 0,
 * bucket b holds [2^(b-1), 2^b)), the number of executions, the fastest
 * one and the sum of durations: 3 x 65 x 24 bytes per function, whatever
 * the number of events.
 *
 * At report time a function is judged workload-dependent on argument k
 * when both hold:
 *   - two well-populated buckets of k (ARGB_MIN_CALLS executions and
 *     ARGB_MIN_SHARE of the function's calls each) have fastest
 *     executions ARGB_MIN_RATIO apart or more: the work follows k;
 *   - keying by k:log2 cuts the function's loss by ARGB_MIN_CUT or more:
 *     unkeyed loss = S - n*min, keyed loss = sum_b (S_b - n_b*min_b).
 *     (A loss is a sum over threads of S_t - n_t*min, so the thread
 *     split does not change either figure.)
 * The first test keeps away a function whose time does not follow its
 * argument however widely the argument varies (the paper's DC example:
 * small writes whose time is the system call's have equal minima per
 * size); the second, one whose slow calls are slow for another reason.
 * Of several arguments the one that cuts most is suggested.
 */
#ifndef ISPOT_ARGBUCKETS_H
#define ISPOT_ARGBUCKETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARGB_NR_ARGS		3
#define ARGB_NR_BUCKETS		65
#define ARGB_MIN_CALLS		8
#define ARGB_MIN_SHARE		0.01
#define ARGB_MIN_RATIO		2.0
#define ARGB_MIN_CUT		0.5

struct argb_bucket {
	uint64_t n;
	uint64_t min;		/* UINT64_MAX while empty */
	uint64_t sum;
};

struct argb_func {
	struct argb_bucket b[ARGB_NR_ARGS][ARGB_NR_BUCKETS];
	uint64_t n;
	uint64_t sum;
	uint64_t min;
};

/*
 * Here, not in argbuckets.c, for argbuckets_add() alone: the pipeline adds
 * every call, and the call's prologue cost as much as the sums.
 */
struct argbuckets {
	struct argb_func **funcs;	/* by function id, NULL = never ran */
	uint32_t nr_funcs;
};

struct argbuckets *argbuckets_new(void);
void argbuckets_free(struct argbuckets *ab);

/* The log2 bucket of @v: 0 for 0, else floor(log2(v)) + 1. */
static inline unsigned int argb_bucket_of(uint64_t v)
{
	return v ? 64 - (unsigned int)__builtin_clzll(v) : 0;
}

/* One execution of @f's function with arguments @args, of @d. */
static inline void argb_func_add(struct argb_func *f, const uint64_t *args,
				 uint64_t d)
{
	unsigned int a;

	f->n++;
	f->sum += d;
	if (d < f->min)
		f->min = d;
	for (a = 0; a < ARGB_NR_ARGS; a++) {
		struct argb_bucket *b = &f->b[a][argb_bucket_of(args[a])];

		b->n++;
		b->sum += d;
		if (d < b->min)
			b->min = d;
	}
}

/* argbuckets_add()'s rare path, out of line: the function's first call. */
int argbuckets_add_first(struct argbuckets *ab, uint32_t func_id,
			 const uint64_t *args, uint64_t duration_ns);

/* One execution of @func_id with arguments @args.  0 or -ENOMEM. */
static inline int argbuckets_add(struct argbuckets *ab, uint32_t func_id,
				 const uint64_t *args, uint64_t duration_ns)
{
	struct argb_func *f = func_id < ab->nr_funcs ? ab->funcs[func_id] :
			      NULL;

	if (!f)
		return argbuckets_add_first(ab, func_id, args, duration_ns);
	argb_func_add(f, args, duration_ns);
	return 0;
}

/* The buckets of @func_id, NULL if it never ran.  @ab may be NULL. */
const struct argb_func *argbuckets_of(const struct argbuckets *ab,
				      uint32_t func_id);

/*
 * What the buckets say about one function: the flagged argument, or when
 * none is, the compared argument that would cut the loss most (its
 * figures say why it was not flagged).
 */
struct argb_verdict {
	bool dependent;		/* flagged: key by arg @arg, log2 */
	bool compared;		/* some argument had two buckets to compare:
				 * the figures below are its */
	bool undecided;		/* an argument varied, but no argument had
				 * two well-populated buckets to compare */
	unsigned int arg;
	double cut;		/* share of the loss keying would remove */
	double ratio;		/* min_hi / min_lo */
	unsigned int lo_bucket, hi_bucket;	/* of the fastest minima */
	uint64_t lo_min, hi_min;
	uint64_t calls;
};

/* Judge @f (may be NULL: nothing ran, nothing flagged). */
void argb_judge(const struct argb_func *f, struct argb_verdict *v);

/*
 * "min 410ns at arg0≈2^5, 21.0us at arg0≈2^11": the two buckets whose
 * minima are furthest apart, the smaller argument first.
 */
int argb_evidence(const struct argb_verdict *v, char *buf, size_t len);

/* "arg0:log2" */
int argb_key_name(const struct argb_verdict *v, char *buf, size_t len);

#endif /* ISPOT_ARGBUCKETS_H */
