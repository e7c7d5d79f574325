// SPDX-License-Identifier: GPL-2.0
/* Plain SVG 1.1 pictures: axes, lines, bars, labels; see svg.h. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/format.h"
#include "util/xml.h"
#include "report/svg.h"

/*
 * Numbers go out through printf: ispotctl never calls setlocale(), so the
 * C locale's '.' is the decimal point, as SVG's syntax needs.
 */

/* The plot area inside the canvas: room for the title, ticks, legend. */
#define PLOT_LEFT	84
#define PLOT_TOP	48
#define PLOT_WIDTH	430
#define PLOT_HEIGHT	280
#define LEGEND_LEFT	(PLOT_LEFT + PLOT_WIDTH + 18)
#define LEGEND_CHARS	26	/* a legend label is cut after this */
#define LEGEND_ROWS	16
#define TITLE_CHARS	90
#define LINEAR_TICKS	5
#define FONT		"font-family=\"sans-serif\""

void svg_begin(FILE *f, const char *title, bool inline_svg)
{
	if (!inline_svg)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\">\n<title>", SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH,
		SVG_HEIGHT);
	xml_escape(f, title, 0);
	fprintf(f, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"#ffffff\"/>\n<text x=\"%d\" y=\"26\" " FONT
		" font-size=\"15\" font-weight=\"bold\" "
		"text-anchor=\"middle\">", SVG_WIDTH, SVG_HEIGHT,
		SVG_WIDTH / 2);
	xml_escape(f, title, TITLE_CHARS);
	fputs("</text>\n", f);
}

int svg_end(FILE *f)
{
	fputs("</svg>\n", f);
	errno = 0;
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

static double axis_pos(const struct svg_axis *a, double v)
{
	double lo = a->min, hi = a->max;

	if (a->log) {
		v = v > 0 ? log10(v) : log10(lo);
		lo = log10(lo);
		hi = log10(hi);
	}
	v = (v - lo) / (hi - lo);
	return v < 0 ? 0 : v > 1 ? 1 : v;
}

double svg_x(const struct svg_plot *p, double v)
{
	return p->left + axis_pos(&p->x, v) * p->width;
}

double svg_y(const struct svg_plot *p, double v)
{
	return p->top + p->height - axis_pos(&p->y, v) * p->height;
}

static void tick_label(const struct svg_axis *a, double v, char *buf,
		       size_t len)
{
	switch (a->unit) {
	case SVG_NS:
		/* Ticks fall on round values: "10us", never "10.0us". */
		if (v >= 1e9)
			snprintf(buf, len, "%gs", v / 1e9);
		else if (v >= 1e6)
			snprintf(buf, len, "%gms", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, len, "%gus", v / 1e3);
		else
			snprintf(buf, len, "%gns", v);
		break;
	case SVG_PCT:
		snprintf(buf, len, "%.0f%%", v * 100.0);
		break;
	case SVG_COUNT:
		format_count(buf, len, v);
		break;
	case SVG_SECONDS:
		snprintf(buf, len, "%gs", v);
		break;
	}
}

/*
 * Whole decades around [min, max] for a log axis (one more each way when
 * all values are equal); a linear axis keeps @min and rounds @max up to
 * a whole number of steps of 1, 2 or 5 times a power of ten.
 */
static double axis_fit(struct svg_axis *a)
{
	double step, mag;

	if (a->log) {
		if (!(a->min > 0))
			a->min = 1;
		if (a->max < a->min)
			a->max = a->min;
		a->min = pow(10, floor(log10(a->min)));
		a->max = pow(10, ceil(log10(a->max)));
		if (a->max <= a->min)
			a->max = a->min * 10;
		return 10;
	}
	if (!(a->max > a->min))
		a->max = a->min + 1;
	step = (a->max - a->min) / LINEAR_TICKS;
	mag = pow(10, floor(log10(step)));
	step = step <= mag ? mag : step <= 2 * mag ? 2 * mag :
	       step <= 5 * mag ? 5 * mag : 10 * mag;
	a->max = a->min + ceil((a->max - a->min) / step - 1e-9) * step;
	return step;
}

/* One tick: a grid line across the plot and its number beside the axis. */
static void tick_draw(struct svg_plot *p, double pos, bool vertical,
		      const char *label)
{
	double x1 = vertical ? p->left : pos, x2 = vertical ?
		    p->left + p->width : pos;
	double y1 = vertical ? pos : p->top, y2 = vertical ? pos :
		    p->top + p->height;

	fprintf(p->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#dddddd\"/>\n", x1, y1, x2, y2);
	fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\" "
		"text-anchor=\"%s\">%s</text>\n",
		vertical ? p->left - 6 : pos,
		vertical ? pos + 4 : p->top + p->height + 16,
		vertical ? "end" : "middle", label);
}

/* The axis's ticks, grid lines and numbers; @vertical: the y axis. */
static void axis_draw(struct svg_plot *p, const struct svg_axis *a,
		      double step, bool vertical)
{
	double v;
	char label[32];
	int i;

	for (i = 0, v = a->min; v <= a->max * (1 + 1e-9) && i < 64;
	     i++, v = a->log ? v * step : a->min + i * step) {
		tick_label(a, v, label, sizeof(label));
		tick_draw(p, vertical ? svg_y(p, v) : svg_x(p, v), vertical,
			  label);
	}
}

void svg_plot_begin(struct svg_plot *p, FILE *f, const struct svg_axis *x,
		    const struct svg_axis *y)
{
	double xstep, ystep;

	memset(p, 0, sizeof(*p));
	p->f = f;
	p->left = PLOT_LEFT;
	p->top = PLOT_TOP;
	p->width = PLOT_WIDTH;
	p->height = PLOT_HEIGHT;
	p->x = *x;
	p->y = *y;
	xstep = axis_fit(&p->x);
	ystep = axis_fit(&p->y);
	axis_draw(p, &p->x, xstep, false);
	axis_draw(p, &p->y, ystep, true);
	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#333333\"/>\n", PLOT_LEFT, PLOT_TOP,
		PLOT_WIDTH, PLOT_HEIGHT);
	fprintf(f, "<text x=\"%d\" y=\"%d\" " FONT " font-size=\"12\" "
		"text-anchor=\"middle\">", PLOT_LEFT + PLOT_WIDTH / 2,
		PLOT_TOP + PLOT_HEIGHT + 34);
	xml_escape(f, p->x.label, 0);
	fprintf(f, "</text>\n<text x=\"16\" y=\"%d\" " FONT " font-size=\"12\" "
		"text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">",
		PLOT_TOP + PLOT_HEIGHT / 2, PLOT_TOP + PLOT_HEIGHT / 2);
	xml_escape(f, p->y.label, 0);
	fputs("</text>\n", f);
}

const char *svg_color(int i)
{
	/* Okabe and Ito's palette, told apart by colour-blind readers too. */
	static const char *const colors[] = {
		"#0072b2", "#d55e00", "#009e73", "#cc79a7",
		"#e69f00", "#56b4e9", "#000000", "#999933",
	};

	return colors[(unsigned int)i % 8];
}

void svg_polyline(struct svg_plot *p, const double *xs, const double *ys,
		  size_t n, const char *color, bool dashed)
{
	size_t i;

	if (!n)
		return;
	fprintf(p->f, "<polyline fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"2\"%s points=\"", color,
		dashed ? " stroke-dasharray=\"6,3\"" : "");
	for (i = 0; i < n; i++)
		fprintf(p->f, "%s%.1f,%.1f", i ? " " : "", svg_x(p, xs[i]),
			svg_y(p, ys[i]));
	/* A single point is a dot, not an invisible line. */
	if (n == 1)
		fprintf(p->f, " %.1f,%.1f", svg_x(p, xs[0]) + 2,
			svg_y(p, ys[0]));
	fputs("\"/>\n", p->f);
}

void svg_bar(struct svg_plot *p, double x0, double x1, double y,
	     const char *color)
{
	double left = svg_x(p, x0), right = svg_x(p, x1), top = svg_y(p, y);

	fprintf(p->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"%s\"/>\n", left, top,
		right - left > 1 ? right - left : 1,
		p->top + p->height - top, color);
}

void svg_vmarker(struct svg_plot *p, double v, const char *color,
		 const char *label, int row)
{
	double x = svg_x(p, v);

	fprintf(p->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"4,3\"/>\n"
		"<text x=\"%.1f\" y=\"%.1f\" " FONT " font-size=\"11\" "
		"fill=\"%s\">", x, p->top, x, p->top + p->height, color, x + 4,
		p->top + 14 + 14 * row, color);
	xml_escape(p->f, label, LEGEND_CHARS * 2);
	fputs("</text>\n", p->f);
}

void svg_legend(struct svg_plot *p, const char *color, const char *label)
{
	double y = p->top + 8 + 18 * p->nr_legend;

	if (p->nr_legend++ >= LEGEND_ROWS)
		return;
	fprintf(p->f, "<rect x=\"%d\" y=\"%.1f\" width=\"14\" height=\"4\" "
		"fill=\"%s\"/>\n<text x=\"%d\" y=\"%.1f\" " FONT
		" font-size=\"11\">", LEGEND_LEFT, y, color, LEGEND_LEFT + 20,
		y + 5);
	xml_escape(p->f, label, LEGEND_CHARS);
	fputs("</text>\n", p->f);
}

void svg_caption(struct svg_plot *p, int row, const char *text)
{
	fprintf(p->f, "<text x=\"%d\" y=\"%.1f\" " FONT " font-size=\"12\">",
		PLOT_LEFT - 60, p->top + p->height + 56 + 16 * row);
	xml_escape(p->f, text, 0);
	fputs("</text>\n", p->f);
}
