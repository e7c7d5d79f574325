/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --key FUNC=auto: key FUNC by the argument the workload test suggests
 * (argbuckets.h), or by nothing, decided at report time and applied
 * exactly.  The SCI engine keeps only minima per key, so a key cannot be
 * chosen after the fact from one set of blocks.  Instead an auto function
 * is scored four times over: unkeyed under its own id, and keyed by
 * arg0:log2, arg1:log2 and arg2:log2 under three shadow ids,
 *
 *	shadow(f, a) = base + 3 * f + a,
 *
 * where base is above every real function id.  The report keeps the
 * scoring the verdict picks under f's id and drops the other three, so
 * the scores are exactly those of a trace run with the chosen --key.
 * Memory: the shadows hold at most 3 x 65 more blocks per auto function,
 * and none for other functions.
 */
#ifndef ISPOT_AUTOKEY_H
#define ISPOT_AUTOKEY_H

#include <stddef.h>
#include <stdint.h>

#include "sci.h"

/* What an auto function was given, per function id. */
#define AUTOKEY_NOT_AUTO	(-2)	/* not keyed by auto */
#define AUTOKEY_NONE		(-1)	/* auto, kept no key */

static inline uint32_t autokey_shadow_id(uint32_t base, uint32_t func_id,
					 unsigned int arg)
{
	return base + 3 * func_id + arg;
}

/*
 * Rewrite @r: for function f with @choice[f] = a (0..2), f's results
 * become those of shadow(f, a); every shadow result is dropped
 * otherwise.  @nr is the number of real function ids (@base <= ids of
 * shadows).  Thread scores stay where they are: only the result arrays
 * shrink, in their order.
 */
void autokey_apply(struct sci_report *r, uint32_t base, const int *choice,
		   size_t nr);

#endif /* ISPOT_AUTOKEY_H */
