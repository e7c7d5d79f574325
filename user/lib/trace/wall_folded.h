/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `--auto`'s wall-clock profile as folded stacks, the input of
 * flamegraph.pl, inferno and speedscope: one line per distinct stack,
 * outermost frame first, frames joined by ';', then a space and the
 * microseconds it stands for.  The last frame says where the time went:
 * "[on cpu]" for the cpu-clock samples (1 ms each), or "[off cpu: KIND]"
 * (futex, io, runq, sleep) for the off-CPU stacks' shares
 * (analysis/wallprof.h), idle sleeps included: a flame graph of it shows
 * where every thread's time went, where the loss-weighted `--folded`
 * shows where the interference was.
 *
 * Frames are named as the reports name them; an address no function
 * covers is OBJ+0xOFF, or [unknown]; a ';' in a name becomes ','.
 */
#ifndef ISPOT_WALL_FOLDED_H
#define ISPOT_WALL_FOLDED_H

#include <stdio.h>

#include "analysis/wallprof.h"
#include "elf/elf.h"
#include "trace/sampler.h"

/* The longest stack a line holds, its NUL included. */
#define WALL_FOLDED_MAX	8192

struct wall_line {
	char *stack;		/* "a;b;func;[off cpu: futex]" */
	uint64_t us;
};

/* A profile's lines, sorted by stack. */
struct wall_lines {
	struct wall_line *lines;
	size_t nr, cap;
};

/* The lines of @r's and @wp's (NULL: none) stacks: 0 or -ENOMEM. */
int wall_folded_build(struct wall_lines *out, struct elf_symbolizer *sz,
		      const struct sampler_result *r,
		      const struct wallprof *wp);
/* Write them as folded lines: 0, or -EIO (a write error). */
int wall_folded_print(FILE *f, const struct wall_lines *w);
/*
 * Write them to @path, whole or not at all: 0, or -errno with a line in
 * @err that says to give --wall-folded a writable path.
 */
int wall_folded_write(const char *path, const struct wall_lines *w,
		      char *err, size_t errlen);
void wall_lines_free(struct wall_lines *w);

#endif /* ISPOT_WALL_FOLDED_H */
