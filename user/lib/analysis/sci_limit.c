// SPDX-License-Identifier: GPL-2.0
/*
 * The SCI engine's bound on blocks (sci.h, sci_limit_blocks()): which new
 * block a key is refused, by the blocks of its function and of the
 * engine, and the executions refused.  block_get() asks before it makes
 * a block.
 */
#include <errno.h>

#include "analysis/sci_internal.h"

void sci_limit_blocks(struct sci_engine *e, size_t max, size_t per_func)
{
	e->max_blocks = max;
	e->max_blocks_per_func = per_func;
}

/* The blocks of function @func_id, counted as block_get() makes them. */
static uint32_t func_blocks(const struct sci_engine *e, uint32_t func_id)
{
	return func_id < e->nr_func_blocks ? e->func_blocks[func_id] : 0;
}

/*
 * Whether a new block of @func_id is refused: never its first, so that a
 * function picked late is scored whatever the keys of the others; past
 * its own share or the engine's bound, the others.  Else its count has
 * room, for sci_block_made(): 0, or -ENOMEM.
 */
int sci_block_admit(struct sci_engine *e, uint32_t func_id)
{
	uint32_t have = func_blocks(e, func_id);

	if (have && ((e->max_blocks && e->nr_blocks >= e->max_blocks) ||
		     (e->max_blocks_per_func &&
		      have >= e->max_blocks_per_func)))
		return -ENOSPC;
	if (func_id >= e->nr_func_blocks &&
	    sci_reserve(e, &e->func_blocks, &e->nr_func_blocks,
			(size_t)func_id + 1, sizeof(*e->func_blocks)))
		return -ENOMEM;
	return 0;
}

void sci_block_made(struct sci_engine *e, uint32_t func_id)
{
	e->func_blocks[func_id]++;
}

uint64_t sci_unscored(const struct sci_engine *e)
{
	return e->unscored;
}
