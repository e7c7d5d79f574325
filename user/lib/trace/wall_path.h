/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An off-CPU stack (analysis/wallprof.h) as the functions it went
 * through, innermost first, for --auto's choice (autopick_wall.c) and its
 * folded profile (wall_folded.c).
 */
#ifndef ISPOT_WALL_PATH_H
#define ISPOT_WALL_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/wallprof.h"
#include "elf/elf.h"
#include "util/hashmap.h"

/*
 * Addresses named once each: a profile's stacks hold the same return
 * addresses over and over, and naming one costs a maps and symbol look-up
 * (tens of microseconds in an emulated guest).
 */
struct wall_names {
	struct elf_symbolizer *sz;
	struct hashmap map;		/* address -> index, or WALL_UNNAMED */
	struct elf_addr_info *infos;
	size_t nr, cap;
};

#define WALL_UNNAMED	UINT64_MAX

void wall_names_init(struct wall_names *wn, struct elf_symbolizer *sz);
void wall_names_free(struct wall_names *wn);

/* Whether @info names a function a probe can sit on at all. */
bool wall_probeable(const struct elf_addr_info *info);
/* Whether @obj is the C or C++ runtime's or the loader's. */
bool wall_runtime_object(const char *obj);
/*
 * @s's stack as named functions, innermost first, at most @max: the one
 * it waits in, the runtime's frames and the program's first from the raw
 * words, the program's further frames in the words, then the
 * frame-pointer walk.  Their count.
 */
size_t wall_path(struct wall_names *wn, const struct wallprof_sample *s,
		 struct elf_addr_info *out, size_t max);

#endif /* ISPOT_WALL_PATH_H */
