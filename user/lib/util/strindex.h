/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An index from a string and a number (a function and its pid, a file's
 * base name and 0) to a position in the caller's array, on the one hash
 * map (util/hashmap.h): a look-up costs O(1) on average however many
 * entries it holds.  Entries are never removed.  A zeroed struct strindex
 * is empty.
 */
#ifndef ISPOT_STRINDEX_H
#define ISPOT_STRINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

#define STRINDEX_NONE	((size_t)-1)

struct strindex {
	struct hashmap map;	/* (key, tag) -> its entry (strindex.c) */
};

/* What (@key, @tag) was put with, or STRINDEX_NONE. */
size_t strindex_get(const struct strindex *x, const char *key, int64_t tag);
/* (@key, @tag) -> @val, replacing any earlier one: 0 or -ENOMEM. */
int strindex_put(struct strindex *x, const char *key, int64_t tag,
		 size_t val);
void strindex_free(struct strindex *x);

#endif /* ISPOT_STRINDEX_H */
