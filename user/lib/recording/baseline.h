/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --baseline FILE (Documentation/usage.rst, "A baseline"): the solo calls
 * of another recording as evidence for the interference figure's
 * reference, the way ispotd's windows hand theirs on (interference.h,
 * struct interf_seed).  A function that never runs alone in the program
 * traced, e.g. workers that start and end together, has no reference of
 * its own and gets only a bound; a recording of the same program with
 * one worker gives it one.
 *
 * The baseline is replayed through the session's own pipeline with the
 * report's --key rules, so its blocks are keyed as the report's are, and
 * each block of a function is matched to the traced function of the same
 * name in an object of the same file name and keyed by the same rule, key
 * by key.  A --key auto function takes none: its key is chosen at report
 * time and scored apart (autokey.h).  Only the solo calls are taken: SCI
 * stays the paper's, from the calls traced.
 */
#ifndef ISPOT_BASELINE_H
#define ISPOT_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/interference.h"
#include "analysis/pipeline.h"
#include "recording/session.h"

struct baseline_block {
	char *name;		/* the function's display name */
	char *obj;		/* the file name of its object */
	uint64_t offset;	/* its file offset there: which build */
	struct key_rule rule;	/* how its calls were keyed */
	uint64_t key;
	struct interf_seed solo;
};

struct baseline {
	const char *path;
	struct baseline_block *blocks;	/* those with solo calls */
	size_t nr_blocks;
};

/*
 * A baseline of @path (kept, not copied): the blocks of @sci, scored for
 * @funcs (@nr_funcs, by index), that have solo calls, under their
 * function's name.  Replaying the recording into @sci is the caller's
 * (trace/trace_replay.c, baseline_load()).  NULL without memory.
 */
struct baseline *baseline_take(const char *path,
			       const struct trace_func *funcs,
			       size_t nr_funcs,
			       const struct sci_engine *sci);
void baseline_free(struct baseline *b);

/*
 * How many of @funcs the baseline has solo calls of.  None is an error
 * the caller reports (trace_check_keys()).  *@other_build, if not NULL,
 * gets how many of those sit at another file offset in their object
 * than the traced one: another build, whose time may differ.
 */
size_t baseline_matches(const struct baseline *b,
			const struct trace_func *funcs, size_t nr_funcs,
			size_t *other_build);

/*
 * Seed @sci, which scores @funcs by index, with the solo calls of every
 * matching block, before its report.  Returns 0 or -ENOMEM.
 */
int baseline_seed(const struct baseline *b, const struct trace_func *funcs,
		  size_t nr_funcs, struct sci_engine *sci);

#endif /* ISPOT_BASELINE_H */
