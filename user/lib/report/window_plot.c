// SPDX-License-Identifier: GPL-2.0
/* ispotd's window log as scores over time; see window_plot.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/afile.h"
#include "util/array.h"
#include "util/errors.h"
#include "util/strindex.h"
#include "report/pictures.h"
#include "report/svg.h"
#include "report/window_plot.h"
#include "wire/window_log.h"

#define NAME_LEN	300

/* A function's scores, one point per window it appears in. */
struct series {
	char *function;
	int64_t pid;
	size_t nr, cap;
	struct series_point {
		double t;	/* seconds since the first window */
		double sci;
		double interf;	/* NAN where the window had none */
	} *pt;
	double peak_sci, peak_interf;
	bool has_interf;	/* some window gave its INTERF */
};

struct plot {
	const char *log;
	struct series *s;
	size_t nr, cap;
	struct strindex by_name;	/* (function, pid) -> its series */
	double t0;		/* the first window's time, epoch seconds */
	double t_end;
	size_t windows;
	bool any_interf;
	bool several_pids;
};

static struct series *series_of(struct plot *p, const char *function,
				int64_t pid)
{
	struct series *s;
	size_t i = strindex_get(&p->by_name, function, pid);

	/* O(1) a look-up: a long log names every function every window. */
	if (i != STRINDEX_NONE)
		return &p->s[i];
	if (ARRAY_RESERVE(p->s, p->cap, p->nr + 1))
		return NULL;
	s = &p->s[p->nr];
	memset(s, 0, sizeof(*s));
	s->function = strdup(function);
	if (!s->function)
		return NULL;
	if (strindex_put(&p->by_name, function, pid, p->nr)) {
		free(s->function);
		return NULL;
	}
	s->pid = pid;
	p->nr++;
	return s;
}

static int series_add(struct series *s, double t, double sci, double interf)
{
	if (ARRAY_RESERVE(s->pt, s->cap, s->nr + 1))
		return -ENOMEM;
	s->pt[s->nr++] = (struct series_point){ t, sci, interf };
	if (sci > s->peak_sci)
		s->peak_sci = sci;
	if (!isnan(interf)) {
		s->has_interf = true;
		if (interf > s->peak_interf)
			s->peak_interf = interf;
	}
	return 0;
}

static const char plot_oom[] = "out of memory";

/* One window of the log (wire/window_log.h); NULL, or plot_oom. */
static const char *window_add(struct plot *p, const struct window_log_line *w)
{
	struct window_log_func f;
	double t = w->time;
	size_t i;

	if (!p->windows++)
		p->t0 = t;
	t -= p->t0;
	if (t > p->t_end)
		p->t_end = t;
	for (i = 0; i < w->nr_funcs; i++) {
		struct series *s;

		window_log_func(w, i, &f);
		s = series_of(p, f.name, w->pid);
		if (!s || series_add(s, t, f.sci, f.interference))
			return plot_oom;
		p->any_interf |= !isnan(f.interference);
		if (s->pid != p->s[0].pid)
			p->several_pids = true;
	}
	return NULL;
}

static int plot_read(struct plot *p)
{
	FILE *f = fopen(p->log, "re");
	char *line = NULL;
	size_t cap = 0, nr = 0;
	const char *why = NULL;
	ssize_t len;

	if (!f) {
		ispot_error("cannot read %s (%s): give ispotd's --log file",
			    p->log, strerror(errno));
		return -1;
	}
	while (!why && (len = getline(&line, &cap, f)) >= 0) {
		struct window_log_line w;

		nr++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (!len)
			continue;
		why = window_log_read(line, len, &w);
		if (!why)
			why = window_add(p, &w);
		window_log_line_free(&w);
	}
	free(line);
	fclose(f);
	/* Ours or json_parse()'s: not the log's fault. */
	if (why && !strcmp(why, plot_oom)) {
		ispot_error("out of memory reading %s (at line %zu)", p->log,
			    nr);
		return -1;
	}
	if (why) {
		ispot_error("%s:%zu: not a window of ispotd's log (%s)",
			    p->log, nr, why);
		return -1;
	}
	if (!p->windows) {
		ispot_error("%s holds no window: give ispotd's --log file "
			    "once a window has been written", p->log);
		return -1;
	}
	return 0;
}

static double peak(const struct series *s, bool interf)
{
	return interf ? s->peak_interf : s->peak_sci;
}

/* The series drawn: the PICTURE_LINES highest peaks, into @pick. */
static size_t plot_pick(const struct plot *p, bool interf, size_t *pick)
{
	size_t i, k, n = 0;

	for (i = 0; i < p->nr; i++) {
		if (interf && !p->s[i].has_interf)
			continue;
		for (k = n; k > 0 && peak(&p->s[pick[k - 1]], interf) <
				     peak(&p->s[i], interf); k--)
			if (k < PICTURE_LINES)
				pick[k] = pick[k - 1];
		if (k < PICTURE_LINES) {
			pick[k] = i;
			if (n < PICTURE_LINES)
				n++;
		}
	}
	return n;
}

/* The picture into @f: 0, -ENOMEM, or svg_end()'s error. */
static int plot_draw(FILE *f, const struct plot *p, bool interf)
{
	struct svg_axis x = { 0, 0, false, SVG_SECONDS,
			      "time since the first window" };
	struct svg_axis y = { 0, 0, false, SVG_PCT, "" };
	size_t pick[PICTURE_LINES], n, i, k;
	char label[NAME_LEN + 8], text[160];
	struct svg_plot plot;

	n = plot_pick(p, interf, pick);
	x.max = p->t_end > 0 ? p->t_end : 1;
	y.label = interf ? "INTERF (share of the threads' time)" :
		  "SCI (share of the threads' time)";
	for (i = 0; i < n; i++)
		if (peak(&p->s[pick[i]], interf) > y.max)
			y.max = peak(&p->s[pick[i]], interf);
	if (!(y.max > 0))
		y.max = 0.01;
	svg_begin(f, interf ? "INTERF over time, per function (ispotd)" :
		  "SCI over time, per function (ispotd)", false);
	svg_plot_begin(&plot, f, &x, &y);
	for (i = 0; i < n; i++) {
		const struct series *s = &p->s[pick[i]];
		double *xs = malloc(s->nr * sizeof(double));
		double *ys = malloc(s->nr * sizeof(double));
		size_t m = 0;

		/* Never a legend without its line. */
		if (!xs || !ys) {
			free(xs);
			free(ys);
			return -ENOMEM;
		}
		for (k = 0; k < s->nr; k++) {
			double v = interf ? s->pt[k].interf : s->pt[k].sci;

			if (isnan(v))	/* no INTERF that window */
				continue;
			xs[m] = s->pt[k].t;
			ys[m++] = v;
		}
		svg_polyline(&plot, xs, ys, m, svg_color(i), false);
		snprintf(label, sizeof(label), p->several_pids ?
			 "%s (pid %" PRId64 ")" : "%s", s->function, s->pid);
		svg_legend(&plot, svg_color(i), label);
		free(xs);
		free(ys);
	}
	snprintf(text, sizeof(text), "%zu windows over %.0fs; each point is "
		 "one window's score, over its armed time.", p->windows,
		 p->t_end);
	svg_caption(&plot, 0, text);
	if (p->nr > n) {
		snprintf(text, sizeof(text), "%zu more functions, with lower "
			 "peaks, are not drawn.", p->nr - n);
		svg_caption(&plot, 1, text);
	}
	return svg_end(f);
}

struct plot_pass {
	const struct plot *p;
	bool interf;
};

static int plot_draw_to(FILE *f, void *ctx)
{
	const struct plot_pass *pp = ctx;

	return plot_draw(f, pp->p, pp->interf);
}

static int plot_file(const struct plot *p, const char *dir, bool interf,
		     char **written)
{
	struct plot_pass pp = { p, interf };
	int ret;

	if (asprintf(written, "%s/windows.%s.svg", dir,
		     interf ? "interf" : "sci") < 0) {
		*written = NULL;
		ret = -ENOMEM;
	} else {
		ret = afile_write(*written, plot_draw_to, &pp);
	}
	if (ret == -ENOMEM)
		ispot_error("out of memory drawing %s",
			    *written ? *written : dir);
	else if (ret)
		ispot_error("cannot write %s (%s): choose a writable --svg "
			    "directory", *written, strerror(-ret));
	if (ret) {
		free(*written);
		*written = NULL;
	}
	return ret;
}

int window_plot(const char *log, const char *dir)
{
	struct plot p = { .log = log };
	char *written[2] = { NULL, NULL };
	size_t i;
	int ret = plot_read(&p);

	/* The directory only once there is something to draw in it. */
	if (!ret) {
		ret = afile_dir(dir);
		if (ret)
			ispot_error("cannot write in %s (%s): choose a "
				    "writable --svg directory", dir,
				    strerror(-ret));
	}
	if (!ret)
		ret = plot_file(&p, dir, false, &written[0]);
	if (!ret && p.any_interf)
		ret = plot_file(&p, dir, true, &written[1]);
	for (i = 0; i < 2; i++) {
		if (ret && written[i])
			unlink(written[i]);
		free(written[i]);
	}
	for (i = 0; i < p.nr; i++) {
		free(p.s[i].function);
		free(p.s[i].pt);
	}
	free(p.s);
	strindex_free(&p.by_name);
	return ret ? -1 : 0;
}
