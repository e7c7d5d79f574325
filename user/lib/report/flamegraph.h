/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flame graphs for the HTML report (Documentation/usage.rst, "The HTML
 * report"), from folded stacks, the lines flamegraph.pl reads
 * ("outer;inner;leaf WEIGHT"): the loss-weighted call stacks of --folded
 * (report_folded()) and --auto's wall-clock profile (trace/
 * wall_folded.h).  Neither is folded again here: each is printed by its
 * own writer and read back as text.
 *
 * flamegraph.c merges the lines into a tree, one node per distinct path
 * from the root; flamegraph_svg.c lays it out and draws it in plain SVG
 * (svg.h's rules: no script, nothing fetched, every name escaped through
 * util/xml.h, since names come from the target).  The root ("all") is at
 * the bottom, every frame above its caller and as wide as its share of
 * the weight, callees sorted by name as flamegraph.pl sorts them, so the
 * picture does not depend on the order of the lines.
 *
 * Bounds, whatever the input: a stack deeper than FLAME_MAX_DEPTH, or one
 * that would grow the tree past FLAME_MAX_NODES, keeps its weight in the
 * last frame that fitted; a frame narrower than FLAME_MIN_PX is drawn as
 * part of its caller; at most FLAME_MAX_RECTS frames are drawn, whole
 * levels from the root.  The picture says which of these happened.
 */
#ifndef ISPOT_FLAMEGRAPH_H
#define ISPOT_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/strindex.h"

#define FLAME_MAX_DEPTH		64
#define FLAME_MAX_NODES		100000
#define FLAME_NAME_MAX		512	/* bytes of a frame's name kept */
#define FLAME_MIN_PX		1.0
#define FLAME_MAX_RECTS		4000
#define FLAME_WIDTH		1000	/* the canvas, px */
#define FLAME_FRAME_HEIGHT	16

/*
 * A line whose last frame starts so is off-CPU time: wall_folded.h's
 * "[off cpu: KIND]".  Its frames are drawn in cool colours.
 */
#define FLAME_OFF_CPU		"[off cpu"

struct flame_node {
	char *name;
	size_t parent;		/* the root is its own parent */
	uint64_t weight;	/* its lines' weights, its callees' included */
	uint64_t off;		/* of it, off-CPU */
	uint32_t depth;		/* the root 0 */
};

struct flame {
	struct flame_node *nodes;	/* [0] is the root, "all" */
	size_t nr, cap;
	struct strindex callee;		/* (name, caller) -> node */
	size_t bad_lines;		/* not "STACK WEIGHT": skipped */
	size_t cut_lines;		/* stopped at a bound: see above */
};

/* An empty graph: 0 or -ENOMEM.  flame_free() either way. */
int flame_init(struct flame *fg);
void flame_free(struct flame *fg);

/*
 * Add @weight along @stack, frames joined by ';', outermost first;
 * @off: off-CPU time.  Empty frames are skipped; a weight that would
 * take the total past 2^64 is refused (counted in bad_lines).  0, or
 * -ENOMEM.
 */
int flame_add(struct flame *fg, const char *stack, uint64_t weight,
	      bool off);

/*
 * Add every line of @text ("STACK WEIGHT\n"); a line is off-CPU time
 * when its last frame starts with FLAME_OFF_CPU.  0, or -ENOMEM.
 */
int flame_add_folded(struct flame *fg, const char *text);

/* What a graph shows: its weights' unit and words for its titles. */
enum flame_unit { FLAME_NS, FLAME_US };

struct flame_style {
	const char *id;		/* "loss": id="flame-loss", data-flame */
	const char *title;	/* the picture's */
	const char *of;		/* a frame's share "of the loss" */
	enum flame_unit unit;
};

/*
 * @fg as an <svg> element to inline in HTML, its frames laid out as the
 * header says.  0, -EINVAL if @fg holds no weight (nothing to draw), or
 * -errno if writing @f failed.
 */
int flame_svg(FILE *f, const struct flame *fg, const struct flame_style *st);

/* Prints folded lines to @f (report_folded(), wall_folded_print()). */
typedef int flame_fold_fn(FILE *f, const void *ctx);

/*
 * The flame graph of what @fold prints.  0 when drawn, 1 when there was
 * nothing to draw (no weight: nothing written), or -errno.
 */
int flame_draw_folded(FILE *f, flame_fold_fn *fold, const void *ctx,
		      const struct flame_style *st);

#endif /* ISPOT_FLAMEGRAPH_H */
