/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --key FUNC=auto: key FUNC by the argument the workload test suggests
 * (argbuckets.h), or by nothing, decided at report time and applied
 * exactly.  The SCI engine keeps only minima per key, so a key cannot be
 * chosen after the fact from one set of blocks.  Instead an auto function
 * is scored four times over: unkeyed under its own id, and keyed by
 * arg0:log2, arg1:log2 and arg2:log2 under three shadow ids.  The report
 * keeps the scoring the verdict picks under the function's id and drops
 * the other three, so the scores are exactly those of a trace run with
 * the chosen --key.  Memory: the shadows hold at most 3 x 65 more blocks
 * per auto function, and none for other functions.
 *
 * Who numbers the functions places the shadows.  A session knows all its
 * functions before the first record, so its shadows sit above them:
 *
 *	shadow(f, a) = base + 3 * f + a		(autokey_base_shadow())
 *
 * ispotd's function ids grow as bursts find functions, so its window set
 * reserves three ids next to each auto function instead (window.h).
 */
#ifndef ISPOT_AUTOKEY_H
#define ISPOT_AUTOKEY_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/argbuckets.h"
#include "analysis/pipeline.h"
#include "analysis/sci.h"

/* What an auto function was given, per function id. */
#define AUTOKEY_NOT_AUTO	(-2)	/* not keyed by auto */
#define AUTOKEY_NONE		(-1)	/* auto, kept no key */

static inline uint32_t autokey_shadow_id(uint32_t base, uint32_t func_id,
					 unsigned int arg)
{
	return base + 3 * func_id + arg;
}

/*
 * Whether @id is a shadow: the argument it is keyed by (0..2), with the
 * function it shadows in *@func; -1 for a function's own id.
 */
typedef int autokey_shadow_fn(const void *ctx, uint32_t id, uint32_t *func);

/* The session's numbering above; @ctx points to the base (uint32_t). */
int autokey_base_shadow(const void *ctx, uint32_t id, uint32_t *func);

/*
 * An auto function's choice from its verdict: the flagged argument
 * (0..2, *@rule set to argN:log2) or AUTOKEY_NONE (*@rule unkeyed).
 */
int autokey_choose(const struct argb_verdict *v, struct key_rule *rule);

/*
 * The note for auto function @func whose verdict is undecided (too few
 * calls recorded to fill two buckets): what it kept, and @remedy, what
 * records more ("trace longer or lower --sample", ...).
 */
int autokey_sparse_note(char *buf, size_t len, const char *func,
			const struct argb_verdict *v, const char *remedy);

/*
 * Rewrite @r: for function f with @choice[f] = a (0..2), f's results
 * become those of its shadow keyed by argument a; every other shadow
 * result is dropped.  @nr is the number of entries in @choice; @shadow
 * tells the shadows apart.  Thread scores stay where they are: only the
 * result arrays shrink, in their order.
 */
void autokey_apply(struct sci_report *r, const int *choice, size_t nr,
		   autokey_shadow_fn *shadow, const void *ctx);

#endif /* ISPOT_AUTOKEY_H */
