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

struct trace;
struct trace_opts;

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
 * Replay @o->baseline with @o's --key rules.  Returns the baseline, or
 * NULL after one line (not a recording, damaged, out of memory).
 */
struct baseline *baseline_load(const struct trace_opts *o);
void baseline_free(struct baseline *b);

/*
 * --baseline FILE, if given: load it into t->baseline before the session's
 * work (refused when it names the recording the command reads or
 * writes).  Returns 0 or -1 after one line.
 */
int trace_load_baseline(struct trace *t);

/*
 * How many of @t's functions the baseline has solo calls of.  None is an
 * error the caller reports (trace_check_keys()).  *@other_build, if not
 * NULL, gets how many of those sit at another file offset in their
 * object than the traced one: another build, whose time may differ.
 */
size_t baseline_matches(const struct baseline *b, const struct trace *t,
			size_t *other_build);

/*
 * Seed @t's engine with the solo calls of every matching block, before
 * its report.  Returns 0 or -ENOMEM.
 */
int baseline_seed(const struct baseline *b, struct trace *t);

#endif /* ISPOT_BASELINE_H */
