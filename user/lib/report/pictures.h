/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's pictures, per traced function (or block), in plain SVG
 * (svg.h): what `--svg DIR` writes as files and `--html` inlines
 * (Documentation/usage.rst, "Pictures").
 *
 *  - sorted: the durations of its calls sorted ascending, log scale, one
 *    line per key (the SCI paper's figure of a critical section's sorted
 *    durations): the flat left end is the fastest call, the reference,
 *    and everything above it is loss;
 *  - hist: how many calls took how long, log-spaced bins, with the
 *    fastest call and the mean marked, the loss, SCI and INTERF written.
 *
 * Both are drawn from the engine's per-block histograms (hist.h), which
 * every traced call already lands in: a sorted curve read off a
 * histogram is within HIST_REL_ERROR (0.4%) of the exact one at every
 * rank, so the pictures cost the trace nothing, whatever its length.
 */
#ifndef ISPOT_PICTURES_H
#define ISPOT_PICTURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/flamegraph.h"

struct durations;
struct report;
struct sci_engine;
struct sci_result;

/* What a picture is drawn from, beside the report. */
struct picture_source {
	const struct sci_engine *sci;	/* the engine @r was computed from */
	/* Per-thread samples (analysis/durations.h); NULL: none kept. */
	const struct durations *durations;
	/*
	 * --auto's wall-clock profile as folded lines (trace/
	 * wall_folded.h), for the HTML report's flame graph; NULL: none.
	 */
	flame_fold_fn *wall_folded;
	const void *wall_ctx;
};

/* Lines of a sorted picture; the keys beyond share the last one. */
#define PICTURE_LINES		8
/* A file's base name: at most this many bytes of the function's name. */
#define PICTURE_NAME_MAX	64
/* The room a base name needs: the name, '-', a hash or an id, NUL. */
#define PICTURE_BASE_LEN	(PICTURE_NAME_MAX + 24)

/*
 * A file name for function @name, safe in any directory: letters, digits
 * and "_.+-" kept, every run of anything else ('/', '<', ':', blanks,
 * non-ASCII) one '_', no leading '.', at most PICTURE_NAME_MAX bytes; if
 * anything was changed or cut, "-" and a hash of the whole name follow,
 * so two names that read the same once cleaned keep apart.  "acquire"
 * stays "acquire".  Returns @buf.
 */
char *picture_base(const char *name, char *buf, size_t len);

/*
 * The pictures of function @fn of @r (a row of r->sci->funcs), its
 * durations from @src, as a document (@inline_svg false) or as an <svg>
 * element for HTML.  A function of several keys gets a sorted line per
 * key; one of a single key, a line per thread when @src has samples of
 * two threads or more, else one line.  0 or -errno.
 */
int picture_sorted(FILE *f, const struct report *r,
		   const struct picture_source *src,
		   const struct sci_result *fn, bool inline_svg);
int picture_hist(FILE *f, const struct report *r,
		 const struct picture_source *src,
		 const struct sci_result *fn, bool inline_svg);

/*
 * --svg DIR: BASE.sorted.svg and BASE.hist.svg in @dir for every function
 * of @r.  Each file is written under a temporary name and renamed when
 * complete; on an error, what this call wrote is removed, the error is
 * said in one line, and -1 is returned.
 */
int pictures_write(const char *dir, const struct report *r,
		   const struct picture_source *src);

#endif /* ISPOT_PICTURES_H */
