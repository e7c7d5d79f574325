/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-CPU excess from perf counter deltas: what the slow executions of a
 * block did more of than its fastest ones (extra cache misses, page faults,
 * CPU time per call), in the spirit of Eklov et al.'s speedup stacks and
 * Plastic's HITM counts (Nanavati et al.; both in Documentation/design.rst,
 * References).
 *
 * Only executions whose delta is valid count (they stayed on one CPU and
 * were never switched out, pair.h), so their duration is on-CPU time.
 * Per block (function, key), as the SCI engine compares executions only
 * within a block, each counter's deltas are summed into duration buckets
 * (EXCESS_SUB per octave).  The baseline is the mean delta over the
 * fastest buckets that together hold at least EXCESS_FASTEST_SHARE of the
 * block's valid executions (whole buckets, so a little more at times), and
 *
 *	excess per call = mean delta - baseline.
 *
 * A function's figures weigh its keys by their valid executions: each
 * execution is compared with the fastest executions of its own key.
 * Memory grows with blocks and never with events.
 */
#ifndef ISPOT_EXCESS_H
#define ISPOT_EXCESS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/ispot.h>

#include "analysis/pair.h"

#define EXCESS_SUB_BITS		2
#define EXCESS_SUB		(1u << EXCESS_SUB_BITS)
#define EXCESS_BUCKETS		(64 * EXCESS_SUB)
#define EXCESS_FASTEST_SHARE	0.10

struct excess_counter {
	uint64_t valid_calls;
	double mean;		/* delta per call, over the valid calls */
	double fastest_mean;	/* the same over the fastest of them */
	uint64_t fastest_calls;
};

struct excess_result {
	uint64_t calls;		/* executions whose records had counters */
	uint32_t nr_counters;
	struct excess_counter c[ISPOT_MAX_COUNTERS];
};

struct excess;

struct excess *excess_new(void);
void excess_free(struct excess *x);
/* One execution of block (func_id, key); 0 or -ENOMEM. */
int excess_add(struct excess *x, uint32_t func_id, uint64_t key,
	       const struct pair_exec *e);
/* Block (func_id, key) or, with @all_keys, the function; 0 or -ENOENT. */
int excess_result(const struct excess *x, uint32_t func_id, uint64_t key,
		  bool all_keys, struct excess_result *out);
/* The bucket of a duration; exposed for the unit test. */
unsigned int excess_bucket(uint64_t ns);

#endif /* ISPOT_EXCESS_H */
