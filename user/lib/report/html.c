// SPDX-License-Identifier: GPL-2.0
/* The report as one self-contained HTML page; see html.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "analysis/sci.h"
#include "util/xml.h"
#include "report/flamegraph.h"
#include "report/html.h"
#include "report/pictures.h"
#include "report/report.h"

#define NONCE_BYTES	16
#define NAME_LEN	512

static const char style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#111;"
	"background:#fff;max-width:80em}"
	"table{border-collapse:collapse;margin:1em 0}"
	"th,td{border:1px solid #ccc;padding:.2em .5em;"
	"vertical-align:top}"
	"thead th{background:#eef2f7}"
	"td.num{text-align:right;white-space:nowrap}"
	"tr.key td{color:#444;font-size:90%}"
	"pre{background:#f6f6f6;padding:.6em;overflow-x:auto}"
	"figure{display:inline-block;margin:.5em}"
	"svg{max-width:100%;height:auto}"
	"section{border-top:1px solid #ccc;margin-top:1.5em}";

/*
 * The one script: it marks the page as loaded, writes any script error
 * into the page, and where each flame graph was laid out (x,y,width,
 * height in the page), so a reader (and the test, selftests/host/
 * pictures_test.sh) can tell the page ran whole and drew them.  The page
 * needs it for nothing else.
 */
static const char script[] =
	"window.onerror=function(m){document.documentElement.setAttribute("
	"'data-script-error',String(m));};"
	"window.addEventListener('load',function(){"
	"document.querySelectorAll('svg[data-flame]').forEach(function(s){"
	"var b=s.getBoundingClientRect();s.setAttribute('data-box',"
	"[b.left+scrollX,b.top+scrollY,b.width,b.height].map(Math.round)"
	".join(','));});"
	"document.documentElement.setAttribute('data-ispot-loaded','yes');"
	"});";

/* A nonce for the script; false (and no script) without randomness. */
static bool make_nonce(char *buf, size_t len)
{
	unsigned char raw[NONCE_BYTES];
	size_t i;

	if (len < 2 * NONCE_BYTES + 1 ||
	    getrandom(raw, sizeof(raw), GRND_NONBLOCK) != sizeof(raw))
		return false;
	for (i = 0; i < NONCE_BYTES; i++)
		snprintf(buf + 2 * i, 3, "%02x", raw[i]);
	return true;
}

static void html_head(FILE *f, const struct report *r)
{
	char nonce[2 * NONCE_BYTES + 1];
	bool scripted = make_nonce(nonce, sizeof(nonce));

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\""
	      "default-src 'none'; style-src 'unsafe-inline'; ", f);
	if (scripted)
		fprintf(f, "script-src 'nonce-%s'; ", nonce);
	fputs("base-uri 'none'; form-action 'none'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n"
	      "<title>ISPOT report: ", f);
	xml_escape(f, r->command && r->command[0] ? r->command : "?", 0);
	fprintf(f, "</title>\n<style>%s</style>\n", style);
	if (scripted)
		fprintf(f, "<script nonce=\"%s\">%s</script>\n", nonce,
			script);
	fputs("</head>\n<body>\n", f);
}

/*
 * What @part (or the notes under function @fn, when @fn) prints in the
 * text report, as an escaped <pre> block; nothing when that is empty,
 * and then false.
 */
static bool html_text(FILE *f, const struct report *r,
		      const struct sci_result *fn, enum report_part part,
		      const char *label)
{
	struct report view = *r;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return false;
	view.note_width = REPORT_NOTE_WIDTH;
	if (fn)
		report_function_notes(m, &view, fn, 0);
	else
		report_text_part(m, &view, part);
	if (fclose(m) || !len) {
		free(buf);
		return false;
	}
	fputs("<pre aria-label=\"", f);
	xml_escape(f, label, 0);
	fputs("\">", f);
	xml_escape(f, buf, 0);
	fputs("</pre>\n", f);
	free(buf);
	return true;
}

/* The table's state while report_table_rows() hands it the rows. */
struct html_table {
	FILE *f;
	bool shown[32];		/* the text leaves the others blank */
	int nr;
};

/* A cell; a <th> heads its row (the function's name). */
static void html_cell(FILE *f, const char *tag, const char *cls,
		      const char *text, const char *href)
{
	fprintf(f, "<%s%s%s%s%s>", tag, cls ? " class=\"" : "",
		cls ? cls : "", cls ? "\"" : "",
		strcmp(tag, "th") ? "" : " scope=\"row\"");
	if (href)
		fprintf(f, "<a href=\"%s\">", href);
	xml_escape(f, text, 0);
	if (href)
		fputs("</a>", f);
	fprintf(f, "</%s>", tag);
}

static void html_row(void *ctx, enum report_row_kind kind,
		     const struct sci_result *res, const char *const *cells,
		     const bool *left, int nr)
{
	struct html_table *t = ctx;
	char href[32];
	int i, name = -1;

	if (kind == REPORT_ROW_HEAD) {
		t->nr = nr < 32 ? nr : 32;
		fputs("<thead><tr>", t->f);
		for (i = 0; i < t->nr; i++) {
			t->shown[i] = cells[i][0] != '\0';
			if (!t->shown[i])
				continue;
			/* Constant today, escaped all the same. */
			fputs("<th scope=\"col\">", t->f);
			xml_escape(t->f, cells[i], 0);
			fputs("</th>", t->f);
		}
		fputs("</tr></thead>\n<tbody>\n", t->f);
		return;
	}
	/* The first name column is the function's: it links to its part. */
	for (i = 0; i < t->nr && name < 0; i++)
		if (left[i])
			name = i;
	fprintf(t->f, "<tr%s>", kind == REPORT_ROW_FUNCTION ? "" :
		" class=\"key\"");
	for (i = 0; i < t->nr; i++) {
		if (!t->shown[i])
			continue;
		if (i == name && kind == REPORT_ROW_FUNCTION) {
			snprintf(href, sizeof(href), "#f%" PRIu32,
				 res->func_id);
			html_cell(t->f, "th", NULL, cells[i], href);
			continue;
		}
		html_cell(t->f, "td", left[i] ? NULL : "num", cells[i], NULL);
	}
	fputs("</tr>\n", t->f);
}

static void html_table(FILE *f, const struct report *r)
{
	struct html_table t = { .f = f };

	if (!r->sci || !r->sci->nr_funcs) {
		fputs("<p>No probed function was called while tracing.</p>\n",
		      f);
		return;
	}
	fputs("<table>\n<caption>The traced functions, ranked as in the text "
	      "report.  SCI (Slowdown Caused by Interference): the share of "
	      "their threads' time spent above each function's fastest call; "
	      "INTERF: the share the program's other threads cost it."
	      "</caption>\n", f);
	report_table_rows(r, 0, html_row, &t);
	fputs("</tbody>\n</table>\n", f);
}

static int loss_folded(FILE *f, const void *r)
{
	return report_folded(f, r);
}

/* Whether a stack of any traced function was sampled. */
static bool stacks_sampled(const struct report *r)
{
	const struct stack_func *sf;
	size_t i;

	for (i = 0; r->stacks && r->sci && i < r->sci->nr_funcs; i++) {
		sf = stacks_of(r->stacks, r->sci->funcs[i].func_id);
		if (sf && sf->sampled)
			return true;
	}
	return false;
}

static const struct flame_style loss_style = {
	.id = "loss", .of = "of the loss", .unit = FLAME_NS,
	.title = "Where the loss is: the sampled call stacks, by loss",
};

static const struct flame_style wall_style = {
	.id = "wall", .of = "of the wall time", .unit = FLAME_US,
	.title = "Where the wall time goes: --auto's profile, on and off CPU",
};

/* A flame graph and its caption, or @empty when it had no weight. */
static int html_flame(FILE *f, flame_fold_fn *fold, const void *ctx,
		      const struct flame_style *st, const char *caption,
		      const char *empty)
{
	int ret;

	fputs("<figure>\n", f);
	ret = flame_draw_folded(f, fold, ctx, st);
	if (ret == 1)
		fprintf(f, "<p>%s</p>\n", empty);
	else if (!ret)
		fprintf(f, "<figcaption>%s</figcaption>\n", caption);
	fputs("</figure>\n", f);
	return ret < 0 ? ret : 0;
}

/*
 * The flame graphs: of the loss, from the stacks --folded writes, when
 * stacks were sampled; of the wall time, from --wall-folded's lines,
 * when --auto took a profile.
 */
static int html_flames(FILE *f, const struct report *r,
		       const struct picture_source *src)
{
	bool loss = stacks_sampled(r), wall = src && src->wall_folded;
	int ret = 0;

	fputs("<section id=\"flames\">\n<h2>Where the time goes</h2>\n", f);
	if (!loss && !wall)
		fputs("<p>No flame graph: no call stack was sampled, and no "
		      "wall-clock profile was taken (--auto takes one).</p>\n",
		      f);
	if (loss)
		ret = html_flame(f, loss_folded, r, &loss_style,
				 "The loss of the traced functions (the "
				 "traced function on top), over the call "
				 "stacks sampled: what --folded writes.",
				 "The sampled stacks carry no loss.");
	if (!ret && wall)
		ret = html_flame(f, src->wall_folded, src->wall_ctx,
				 &wall_style,
				 "Where every thread's time went while --auto "
				 "sampled, on CPU (warm) and off CPU waiting "
				 "(blue): what --wall-folded writes.",
				 "The wall-clock profile holds no time.");
	fputs("</section>\n", f);
	return ret;
}

/* A function's part: its name, its pictures, the notes under its row. */
static int html_function(FILE *f, const struct report *r,
			 const struct picture_source *src,
			 const struct sci_result *fn)
{
	const char *object = fn->func_id < r->nr_funcs && r->funcs ?
			     r->funcs[fn->func_id].object : NULL;
	char name[NAME_LEN];
	int ret;

	fprintf(f, "<section id=\"f%" PRIu32 "\">\n<h2>", fn->func_id);
	xml_escape(f, report_func_name(r, fn->func_id, name, sizeof(name)),
		   0);
	fputs("</h2>\n", f);
	if (object && object[0]) {
		fputs("<p>in ", f);
		xml_escape(f, object, 0);
		fputs("</p>\n", f);
	}
	fputs("<figure>\n", f);
	ret = picture_sorted(f, r, src, fn, true);
	fputs("<figcaption>Its calls' durations, sorted: the flat left end "
	      "is the fastest call, SCI's reference.</figcaption>\n"
	      "</figure>\n<figure>\n", f);
	if (!ret)
		ret = picture_hist(f, r, src, fn, true);
	fputs("<figcaption>How long its calls took, the fastest and the mean "
	      "marked.</figcaption>\n</figure>\n", f);
	html_text(f, r, fn, 0, "notes and call stacks");
	fputs("</section>\n", f);
	return ret;
}

int report_html(FILE *f, const struct report *r,
		const struct picture_source *src)
{
	size_t i;
	int ret = 0;

	html_head(f, r);
	fputs("<header>\n<h1>ISPOT report</h1>\n", f);
	html_text(f, r, NULL, REPORT_PART_HEADER, "what was traced");
	fputs("</header>\n<main>\n", f);
	html_table(f, r);
	html_text(f, r, NULL, REPORT_PART_EXCESS, "counters per call");
	ret = html_flames(f, r, src);
	for (i = 0; !ret && r->sci && i < r->sci->nr_funcs; i++)
		ret = html_function(f, r, src, &r->sci->funcs[i]);
	fputs("<section id=\"futexes\">\n<h2>Futex words</h2>\n", f);
	if (!html_text(f, r, NULL, REPORT_PART_FUTEXES, "futex words"))
		fputs("<p>No futex word was waited on (or waits were not "
		      "traced).</p>\n", f);
	fputs("</section>\n<section id=\"footer\">\n<h2>Totals, warnings and "
	      "notes</h2>\n", f);
	html_text(f, r, NULL, REPORT_PART_COUNTERS, "counters");
	html_text(f, r, NULL, REPORT_PART_FOOTER, "totals and notes");
	fputs("</section>\n</main>\n</body>\n</html>\n", f);
	errno = 0;
	if (!ret && (fflush(f) || ferror(f)))
		ret = errno ? -errno : -EIO;
	return ret;
}
