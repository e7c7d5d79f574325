/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shapes: the sequence of probed calls an execution made, for `--key
 * FUNC=shape` (Documentation/design.rst, "Shape keys").  This is the online
 * form of the paper's repetitive sequences (§3.3): instead of finding the
 * sequences in a stored trace afterwards, each open frame folds the ids of
 * its direct probed callees, in order, into a 64-bit hash as they enter, so
 * an execution is compared only with executions that made the same calls and
 * the memory per open frame is constant, however many calls it makes.
 *
 * Repeats are kept (f>g>g is not f>g: a loop that ran three times is more
 * work than one that ran once).  The hash covers the whole sequence; only
 * the first SHAPE_SHOWN ids are kept to name it.
 */
#ifndef ISPOT_SHAPE_H
#define ISPOT_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

#define SHAPE_SHOWN	8
/* The hash of no calls: not 0, which reads "unkeyed" (pipeline.h). */
#define SHAPE_EMPTY	0x9e3779b97f4a7c15ull
/*
 * The key of a shape-keyed function's executions past its first
 * SHAPE_KEYS_MAX distinct shapes (or past SHAPES_MAX in all): a function
 * whose number of calls follows its input would otherwise make a key per
 * count, and the engine's memory would follow the input, not functions x
 * keys x threads.
 */
#define SHAPE_OTHER	0x7f4a7c159e3779b9ull
#define SHAPE_KEYS_MAX	64

struct shape {
	uint64_t hash;			/* every direct callee, in order */
	uint32_t nr;			/* direct callees, all of them */
	uint32_t ids[SHAPE_SHOWN];	/* the first ones */
};

static inline void shape_init(struct shape *s)
{
	s->hash = SHAPE_EMPTY;
	s->nr = 0;
}

/*
 * A bijective mix (the murmur3 finaliser) of the hash so far with the
 * callee: order matters, and f>g>h does not collide with f>h>g the way
 * a sum or a xor would.
 */
static inline void shape_add(struct shape *s, uint32_t id)
{
	uint64_t h = s->hash ^ (((uint64_t)id + 1) * 0xff51afd7ed558ccdull);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	s->hash = h;
	if (s->nr < SHAPE_SHOWN)
		s->ids[s->nr] = id;
	s->nr++;
}

/* The name of callee @id, NULL if unknown. */
typedef const char *(*shape_name_fn)(const void *ctx, uint32_t id);

/*
 * "f>g>g" for function @self with shape @s, "f>g>g>g>g>g>g>g>g>...+3"
 * past SHAPE_SHOWN callees, "f (no probed calls)" without any.  Returns
 * what snprintf would.
 */
int shape_format(const struct shape *s, const char *self, shape_name_fn name,
		 const void *ctx, char *buf, size_t len);

/*
 * What one function's executions looked like: enough to tell whether
 * keying it by shape would change anything, in constant memory.
 */
struct shape_summary {
	uint64_t execs;
	uint64_t with_calls;	/* executions that made a probed call */
	bool differ;		/* two shapes at least: first and other */
	uint32_t kept;		/* its shapes kept as keys, <= SHAPE_KEYS_MAX */
	struct shape first;
	struct shape other;
};

/* Distinct shapes kept for naming keys; more are named by their hash. */
#define SHAPES_MAX	4096

/*
 * Here, not in shape.c, for shapes_add() alone: the pipeline adds every
 * call, and the call's prologue cost as much as the summary's update.
 */
struct shapes {
	struct shape *kept;		/* in the order first kept */
	size_t nr_kept, cap_kept;
	struct hashmap by_hash;		/* shape hash -> index in kept */
	struct shape_summary *funcs;	/* by function id */
	uint32_t nr_funcs;
};

struct shapes *shapes_new(void);
void shapes_free(struct shapes *t);

/*
 * shapes_add()'s rare paths, out of line: room for @func_id's summary
 * (0 or -ENOMEM), and keeping @s for a function keyed by shape.
 */
int shapes_grow(struct shapes *t, uint32_t func_id);
int shapes_keep(struct shapes *t, struct shape_summary *sum,
		const struct shape *s);

/*
 * An execution of @func_id had shape @s.  @keep: the function is keyed
 * by shape, so remember @s to name its key later.  Returns 0, 1 when @s
 * is keyed as SHAPE_OTHER (the function has SHAPE_KEYS_MAX shapes kept
 * already), or -ENOMEM.
 */
static inline int shapes_add(struct shapes *t, uint32_t func_id,
			     const struct shape *s, bool keep)
{
	struct shape_summary *sum;

	/* The call only when the array grows: this runs for every call. */
	if (func_id >= t->nr_funcs) {
		int err = shapes_grow(t, func_id);

		if (err)
			return err;
	}
	sum = &t->funcs[func_id];
	if (!sum->execs++) {
		sum->first = *s;
	} else if (!sum->differ && s->hash != sum->first.hash) {
		sum->differ = true;
		sum->other = *s;
	}
	if (s->nr)
		sum->with_calls++;
	return keep ? shapes_keep(t, sum, s) : 0;
}

/* The kept shape of hash @hash, NULL if none. */
const struct shape *shapes_find(const struct shapes *t, uint64_t hash);
/* @func_id's executions so far, NULL if it had none. */
const struct shape_summary *shapes_summary(const struct shapes *t,
					   uint32_t func_id);

/*
 * The label of key @key of function @self keyed by shape: its shape as
 * shape_format() writes it when @t kept it, else "shape 0x…".
 */
int shape_key_label(const struct shapes *t, uint64_t key, const char *self,
		    shape_name_fn name, const void *ctx, char *buf,
		    size_t len);

#define SHAPE_NOTE_LEN	512

/*
 * The note the report prints under function @func_id (named @self),
 * keyed by shape (@keyed) or not, into @buf: "f made no probed calls;
 * --key f=shape has nothing to compare", or "f made different probed
 * calls from one execution to another (f>g, f>g>g): --key f=shape
 * compares like with like" for an unkeyed one (@unkeyed).  Returns true
 * if there is a note; sets *@differ when two shapes were seen.
 */
bool shape_note(const struct shapes *t, uint32_t func_id, const char *self,
		bool keyed, bool unkeyed, shape_name_fn name, const void *ctx,
		bool *differ, char *buf, size_t len);

#endif /* ISPOT_SHAPE_H */
