/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the option table share (opttab.h has the API): the
 * bounds of its values, the check of a value by its kind (opt_kinds.c),
 * and the step from a parsed option to the front end's store that argv
 * (opt_parse.c) and the config file (opt_config.c) both take.  Nothing
 * outside user/lib/cli/opt*.c includes this.
 */
#ifndef ISPOT_OPTTAB_INTERNAL_H
#define ISPOT_OPTTAB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/opttab.h"

/*
 * A ring holds at least a page; --max-size and --perfetto-max-size are no
 * smaller either (the Perfetto writer's least, PERFETTO_MIN_SIZE).
 */
#define MIN_RING_BYTES		4096ull
#define MAX_RING_BYTES		(1ull << 30)
#define NS_PER_SEC		1000000000ull
/*
 * --auto's sampling, at most an hour: longer is a mistake (a bare 5000
 * is seconds), and the target runs untraced all the while.
 */
#define AUTO_TIME_MAX_NS	(3600 * NS_PER_SEC)

/*
 * Parse @v->str as @v->def->kind says, into @v's u64, fraction or rule;
 * false with the one-line message in @err when it is no such value.
 * @file: the value came from the config file (an example is spelled as
 * a line of it).
 */
bool opt_kind_parse(struct opt_val *v, bool file, char *err, size_t len);

/* The entry @name means for @cmd, else the first of that name, or NULL. */
const struct opt_def *opt_find(const char *name, unsigned int cmd);

/*
 * Check that @d is for @src's command, parse @v->str as @d says, then
 * hand it to @store; 0, or -1 after printing the error line.
 */
int opt_take(const struct opt_src *src, const struct opt_def *d,
	     struct opt_val *v, opt_store_fn store, void *ctx);

#endif /* ISPOT_OPTTAB_INTERNAL_H */
