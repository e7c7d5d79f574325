// SPDX-License-Identifier: GPL-2.0
/* The sorted-durations and histogram pictures of a function; pictures.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/durations.h"
#include "analysis/hist.h"
#include "analysis/sci.h"
#include "util/afile.h"
#include "util/errors.h"
#include "util/format.h"
#include "util/strindex.h"
#include "report/pictures.h"
#include "report/report.h"
#include "report/svg.h"

/* Histogram bins per decade of duration. */
#define BINS_PER_DECADE		10
#define LABEL_LEN		160
#define TITLE_LEN		600
#define DURATIONS_CAP_TEXT	"4096"
_Static_assert(DURATIONS_CAP == 4096, "DURATIONS_CAP_TEXT says 4096");

static bool name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '+' ||
	       c == '-';
}

/* FNV-1a, 32 bits: short, and stable from one run to the next. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

char *picture_base(const char *name, char *buf, size_t len)
{
	char clean[PICTURE_NAME_MAX + 1];
	const char *s;
	size_t n = 0;
	bool changed = false;

	for (s = name; *s && n < PICTURE_NAME_MAX; s++) {
		/* No leading '.', no "..": a name, never a path. */
		if (name_char((unsigned char)*s) &&
		    !(*s == '.' && (n == 0 || clean[n - 1] == '.'))) {
			clean[n++] = *s;
			continue;
		}
		changed = true;
		if (!n || clean[n - 1] != '_')
			clean[n++] = '_';
	}
	changed |= *s != '\0' || !n;
	clean[n] = '\0';
	if (changed)
		snprintf(buf, len, "%s-%08" PRIx32, n ? clean : "func",
			 name_hash(name));
	else
		snprintf(buf, len, "%s", clean);
	return buf;
}

/* "acquire [arg0]": the function as its row in the table names it. */
static void picture_title(const struct report *r, const struct sci_result *fn,
			  const char *what, char *buf, size_t len)
{
	char name[LABEL_LEN];
	const char *key = fn->func_id < r->nr_funcs && r->funcs &&
			  r->funcs[fn->func_id].key ?
			  r->funcs[fn->func_id].key : "";

	snprintf(buf, len, key[0] ? "%s [%s]: %s" : "%s%s: %s",
		 report_func_name(r, fn->func_id, name, sizeof(name)), key,
		 what);
}

/*
 * The sorted durations of @h as a step line: each bucket's calls share
 * its value (the bucket's middle, within [min, max]), from the share of
 * the calls before them to the share after.  Returns the points, at
 * most twice the buckets in use; the caller frees *@xs and *@ys.
 */
static size_t sorted_curve(const struct hist *h, double **xs, double **ys)
{
	size_t i, n = 0, used = 0;
	uint64_t before = 0;
	double v;

	*xs = *ys = NULL;
	for (i = 0; i < HIST_NR_BUCKETS; i++)
		used += h->buckets[i] != 0;
	if (!used || !h->count)
		return 0;
	*xs = malloc(2 * used * sizeof(double));
	*ys = malloc(2 * used * sizeof(double));
	if (!*xs || !*ys)
		return 0;
	for (i = 0; i < HIST_NR_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		v = (hist_bucket_lower(i) + (double)hist_bucket_upper(i)) / 2;
		v = v < h->min ? h->min : v > h->max ? h->max : v;
		(*xs)[n] = (double)before / h->count;
		(*ys)[n++] = v;
		before += h->buckets[i];
		(*xs)[n] = (double)before / h->count;
		(*ys)[n++] = v;
	}
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The sorted durations of sample @s: its values, sorted, evenly across
 * [0, 1], the ends its exact fastest and slowest call.
 */
static size_t sample_curve(const struct duration_sample *s, double **xs,
			   double **ys)
{
	uint64_t *v;
	size_t i;

	*xs = *ys = NULL;
	if (!s->nr)
		return 0;
	v = malloc(s->nr * sizeof(*v));
	*xs = malloc(s->nr * sizeof(double));
	*ys = malloc(s->nr * sizeof(double));
	if (!v || !*xs || !*ys) {
		free(v);
		return 0;
	}
	memcpy(v, s->ns, s->nr * sizeof(*v));
	qsort(v, s->nr, sizeof(*v), cmp_u64);
	v[0] = s->min;
	v[s->nr - 1] = s->max;
	for (i = 0; i < s->nr; i++) {
		(*xs)[i] = s->nr > 1 ? (double)i / (s->nr - 1) : 0;
		(*ys)[i] = (double)v[i];
	}
	free(v);
	return s->nr;
}

/* One line of the sorted picture: a key's histogram or a thread's sample. */
struct sorted_line {
	const struct hist *h;
	const struct duration_sample *s;
	char label[LABEL_LEN];
};

/*
 * A function of one key: a line per thread sampled, when two or more
 * were; 0 otherwise (one line from the histogram says more then).
 */
static int thread_lines(const struct picture_source *src,
			const struct sci_result *fn, struct sorted_line *line,
			bool *sampled)
{
	const struct duration_sample *s;
	size_t n = durations_of(src->durations, fn->func_id, &s), i;

	if (fn->nr_keys > 1 || n < 2)
		return 0;
	for (i = 0; i < n && i < PICTURE_LINES; i++) {
		line[i].h = NULL;
		line[i].s = &s[i];
		if (s[i].tid == DURATIONS_OTHER)
			snprintf(line[i].label, LABEL_LEN, "other threads "
				 "(%" PRIu64 ")", s[i].calls);
		else
			snprintf(line[i].label, LABEL_LEN, "tid %" PRIu32
				 " (%" PRIu64 ")", s[i].tid, s[i].calls);
		*sampled |= s[i].calls > s[i].nr;
	}
	return (int)i;
}

/*
 * The lines of @fn: one per key, the first PICTURE_LINES - 1 in the
 * report's order, then the rest merged into @rest.  Returns how many.
 */
static int sorted_lines(const struct report *r,
			const struct picture_source *src,
			const struct sci_result *fn, struct sorted_line *line,
			struct hist *rest)
{
	const struct sci_report *sr = r->sci;
	uint32_t merged = 0;
	char key[LABEL_LEN - 32];
	size_t i;
	int n = 0;

	hist_init(rest);
	for (i = 0; i < sr->nr_blocks; i++) {
		const struct sci_result *b = &sr->blocks[i];
		const struct hist *h;

		if (b->func_id != fn->func_id)
			continue;
		h = sci_block_hist(src->sci, b->func_id, b->key);
		if (!h || !h->count)
			continue;
		if (n < PICTURE_LINES - 1 || fn->nr_keys <= PICTURE_LINES) {
			line[n].h = h;
			line[n].s = NULL;
			if (fn->nr_keys > 1) {
				report_key_name(r, b->func_id, b->key, key,
						sizeof(key));
			} else {
				snprintf(key, sizeof(key), "all calls");
			}
			snprintf(line[n].label, LABEL_LEN, "%s (%" PRIu64 ")",
				 key, h->count);
			n++;
			continue;
		}
		hist_merge(rest, h);
		merged++;
	}
	if (merged) {
		line[n].h = rest;
		line[n].s = NULL;
		snprintf(line[n].label, LABEL_LEN, "%" PRIu32 " other keys "
			 "(%" PRIu64 ")", merged, rest->count);
		n++;
	}
	return n;
}

static void no_calls(struct svg_plot *p)
{
	svg_caption(p, 0, "no call of it completed while tracing");
}

int picture_sorted(FILE *f, const struct report *r,
		   const struct picture_source *src,
		   const struct sci_result *fn, bool inline_svg)
{
	struct sorted_line line[PICTURE_LINES];
	struct svg_axis x = { 0, 1, false, SVG_PCT,
			      "share of its calls, fastest first" };
	struct svg_axis y = { 0, 0, true, SVG_NS, "duration (log scale)" };
	char title[TITLE_LEN], text[2 * LABEL_LEN], fast[32];
	struct svg_plot p;
	struct hist *rest = malloc(sizeof(*rest));
	bool sampled = false;
	int n = 0, i;

	if (!rest)
		return -ENOMEM;
	n = thread_lines(src, fn, line, &sampled);
	if (!n)
		n = sorted_lines(r, src, fn, line, rest);
	y.min = fn->min_ns ? (double)fn->min_ns : 1;
	y.max = fn->max_ns > fn->min_ns ? (double)fn->max_ns : y.min;
	picture_title(r, fn, "its durations, sorted", title, sizeof(title));
	svg_begin(f, title, inline_svg);
	svg_plot_begin(&p, f, &x, &y);
	for (i = 0; i < n; i++) {
		double *xs, *ys;
		size_t pts = line[i].h ? sorted_curve(line[i].h, &xs, &ys) :
			     sample_curve(line[i].s, &xs, &ys);

		svg_polyline(&p, xs, ys, pts, svg_color(i), false);
		svg_legend(&p, svg_color(i), line[i].label);
		free(xs);
		free(ys);
	}
	if (!n) {
		no_calls(&p);
	} else {
		format_ns(fast, sizeof(fast), (double)fn->min_ns);
		snprintf(text, sizeof(text), "%" PRIu64 " calls.  The flat "
			 "left end is the fastest call (%s%s), SCI's "
			 "reference;",
			 fn->calls, fast, fn->nr_keys > 1 ? " of its fastest "
			 "key" : "");
		svg_caption(&p, 0, text);
		svg_caption(&p, 1, "the area between a line and its left end "
			    "is the loss (each key against its own fastest).");
		if (sampled)
			svg_caption(&p, 2, "Per thread: " DURATIONS_CAP_TEXT
				    " calls at most, a uniform sample of "
				    "the rest; the ends are exact.");
	}
	free(rest);
	return svg_end(f);
}

/* The calls of @h in log-spaced bins from decade 10^@lo: @bins of them. */
static void hist_bins(const struct hist *h, double lo, uint64_t *bin,
		      int bins)
{
	size_t i;
	double v;
	int k;

	memset(bin, 0, bins * sizeof(*bin));
	for (i = 0; i < HIST_NR_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		v = (hist_bucket_lower(i) + (double)hist_bucket_upper(i)) / 2;
		v = v < h->min ? h->min : v > h->max ? h->max : v;
		k = (int)floor((log10(v > 1 ? v : 1) - lo) * BINS_PER_DECADE);
		bin[k < 0 ? 0 : k >= bins ? bins - 1 : k] += h->buckets[i];
	}
}

/* Under the histogram: the loss, SCI and INTERF, as the table says them. */
static void hist_captions(struct svg_plot *p, const struct sci_result *fn)
{
	char loss[32], sci[16], interf[24], text[2 * LABEL_LEN];

	format_ns(loss, sizeof(loss), (double)fn->loss_ns);
	report_format_pct(sci, sizeof(sci), fn->sci);
	report_interference_cell(fn, interf, sizeof(interf));
	/* With one key, the loss is the gap between the two markers. */
	snprintf(text, sizeof(text), "loss %s: the time its %" PRIu64 " calls "
		 "spent above the fastest%s;", loss, fn->calls,
		 fn->nr_keys > 1 ? " of their key" :
		 " (calls x (mean - fastest))");
	svg_caption(p, 0, text);
	if (fn->has_interference)
		snprintf(text, sizeof(text), "SCI %s of the threads' time; "
			 "INTERF %s (the share other threads cost it).", sci,
			 interf);
	else
		snprintf(text, sizeof(text), "SCI %s of the threads' time; "
			 "INTERF not measured (no wait records).", sci);
	svg_caption(p, 1, text);
}

int picture_hist(FILE *f, const struct report *r,
		 const struct picture_source *src,
		 const struct sci_result *fn, bool inline_svg)
{
	struct svg_axis x = { 0, 0, true, SVG_NS, "duration (log scale)" };
	struct svg_axis y = { 0, 1, false, SVG_COUNT, "calls" };
	char title[TITLE_LEN], label[LABEL_LEN], ns[32];
	struct hist *h = malloc(sizeof(*h));
	uint64_t *bin = NULL, top = 1;
	struct svg_plot p;
	double lo;
	int bins, k;

	if (!h)
		return -ENOMEM;
	sci_func_hist(src->sci, fn->func_id, h);
	x.min = fn->min_ns ? (double)fn->min_ns : 1;
	x.max = fn->max_ns > fn->min_ns ? (double)fn->max_ns : x.min;
	/* The axis widens to whole decades; the bins follow it. */
	lo = floor(log10(x.min));
	bins = (int)(ceil(log10(x.max)) - lo) * BINS_PER_DECADE;
	if (bins < BINS_PER_DECADE)
		bins = BINS_PER_DECADE;
	bin = calloc(bins, sizeof(*bin));
	if (!bin) {
		free(h);
		return -ENOMEM;
	}
	hist_bins(h, lo, bin, bins);
	for (k = 0; k < bins; k++)
		top = bin[k] > top ? bin[k] : top;
	y.max = (double)top;
	picture_title(r, fn, "how long its calls took", title, sizeof(title));
	svg_begin(f, title, inline_svg);
	svg_plot_begin(&p, f, &x, &y);
	for (k = 0; k < bins; k++)
		if (bin[k])
			svg_bar(&p, pow(10, lo + (double)k / BINS_PER_DECADE),
				pow(10, lo + (k + 0.9) / BINS_PER_DECADE),
				(double)bin[k], svg_color(0));
	if (!h->count) {
		no_calls(&p);
	} else {
		snprintf(label, sizeof(label), "fastest %s",
			 format_ns(ns, sizeof(ns), (double)fn->min_ns));
		svg_vmarker(&p, (double)fn->min_ns, svg_color(2), label, 0);
		snprintf(label, sizeof(label), "mean %s",
			 format_ns(ns, sizeof(ns), fn->mean_ns));
		svg_vmarker(&p, fn->mean_ns, svg_color(1), label, 1);
		svg_legend(&p, svg_color(0), "calls per bin");
		svg_legend(&p, svg_color(2), "fastest call");
		svg_legend(&p, svg_color(1), "mean");
		hist_captions(&p, fn);
	}
	free(bin);
	free(h);
	return svg_end(f);
}

/* ---- --svg DIR ---- */

/* The files this call wrote, to take back on an error. */
struct written {
	char **path;
	size_t nr;
	struct strindex bases;	/* the bases taken: O(1) a look-up */
};

typedef int picture_fn(FILE *f, const struct report *r,
		       const struct picture_source *src,
		       const struct sci_result *fn, bool inline_svg);

struct picture_pass {
	picture_fn *draw;
	const struct report *r;
	const struct picture_source *src;
	const struct sci_result *fn;
};

static int picture_draw_to(FILE *f, void *ctx)
{
	const struct picture_pass *pp = ctx;

	return pp->draw(f, pp->r, pp->src, pp->fn, false);
}

/* @dir/@base.@kind.svg, whole or not at all (util/afile.h). */
static int picture_file(const char *dir, const char *base, const char *kind,
			picture_fn *draw, const struct report *r,
			const struct picture_source *src,
			const struct sci_result *fn, struct written *w)
{
	struct picture_pass pp = { draw, r, src, fn };
	char *path = NULL, **grown;
	int ret;

	grown = realloc(w->path, (w->nr + 1) * sizeof(*w->path));
	if (grown)
		w->path = grown;
	if (!grown || asprintf(&path, "%s/%s.%s.svg", dir, base, kind) < 0) {
		path = NULL;
		ret = -ENOMEM;
	} else {
		ret = afile_write(path, picture_draw_to, &pp);
	}
	if (ret) {
		ispot_error("cannot write %s (%s): choose a writable --svg "
			    "directory", path ? path : dir, strerror(-ret));
		free(path);
		return ret;
	}
	w->path[w->nr++] = path;
	return 0;
}

int pictures_write(const char *dir, const struct report *r,
		   const struct picture_source *src)
{
	struct written w = { .path = NULL };
	char name[LABEL_LEN], base[PICTURE_BASE_LEN];
	size_t i;
	int ret = 0;

	for (i = 0; !ret && r->sci && i < r->sci->nr_funcs; i++) {
		const struct sci_result *fn = &r->sci->funcs[i];
		size_t len;

		picture_base(report_func_name(r, fn->func_id, name,
					      sizeof(name)),
			     base, sizeof(base));
		/* Two functions of one name (two objects): ids part them. */
		if (strindex_get(&w.bases, base, 0) != STRINDEX_NONE) {
			len = strlen(base);
			snprintf(base + len, sizeof(base) - len, "-%" PRIu32,
				 fn->func_id);
		}
		if (strindex_put(&w.bases, base, 0, i)) {
			ispot_error("out of memory writing the pictures");
			ret = -ENOMEM;
			break;
		}
		ret = picture_file(dir, base, "sorted", picture_sorted, r, src,
				   fn, &w) ||
		      picture_file(dir, base, "hist", picture_hist, r, src,
				   fn, &w);
	}
	for (i = 0; i < w.nr; i++) {
		if (ret)
			unlink(w.path[i]);
		free(w.path[i]);
	}
	free(w.path);
	strindex_free(&w.bases);
	return ret ? -1 : 0;
}
