/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Plain SVG 1.1 for the report's pictures (pictures.c): a canvas, a plot
 * area with linear or logarithmic axes, ticks in the report's units,
 * lines, bars, labels and a legend.  No script, no external reference, no
 * font file: any SVG viewer (rsvg-convert, a browser, an image viewer)
 * draws it, and it can be inlined in an HTML page as it is.
 *
 * Text taken from the target (function names, key labels) goes through
 * xml_escape() (util/xml.h), which writes XML-safe UTF-8 whatever the
 * bytes were.
 */
#ifndef ISPOT_SVG_H
#define ISPOT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What an axis counts, which says how its ticks are labelled. */
enum svg_unit {
	SVG_NS,		/* durations: "10us" (format_ns) */
	SVG_PCT,	/* shares 0..1: "25%" */
	SVG_COUNT,	/* counts: "1.2k" (format_count) */
	SVG_SECONDS,	/* seconds since a start: "30s" */
};

struct svg_axis {
	double min, max;	/* the range shown; log: both > 0 */
	bool log;		/* decades, ticks at powers of ten */
	enum svg_unit unit;
	const char *label;	/* e.g. "duration" */
};

struct svg_plot {
	FILE *f;
	double left, top, width, height;	/* the plot area, in px */
	struct svg_axis x, y;
	int nr_legend;		/* legend entries drawn so far */
};

/* The canvas every picture uses, in px. */
#define SVG_WIDTH	720
#define SVG_HEIGHT	440

/*
 * The document's start: the XML declaration unless @inline (inside HTML),
 * the <svg> element of SVG_WIDTH x SVG_HEIGHT with @title as its <title>
 * (what a screen reader and a browser's tooltip say) and drawn on top.
 */
void svg_begin(FILE *f, const char *title, bool inline_svg);
/* The end of the document; 0, or -errno if writing @f failed. */
int svg_end(FILE *f);

/*
 * A plot area below the title, room left for the axes' labels and on the
 * right for a legend; a log axis's range is widened to whole decades, a
 * linear one's starts at @min.  Draws the frame, grid, ticks and labels.
 */
void svg_plot_begin(struct svg_plot *p, FILE *f, const struct svg_axis *x,
		    const struct svg_axis *y);

/* Where value @v lands, in px; clamped to the plot area. */
double svg_x(const struct svg_plot *p, double v);
double svg_y(const struct svg_plot *p, double v);

/* The colour of line @i of a plot, distinguishable up to eight. */
const char *svg_color(int i);

/* A line through @n points (@xs[i], @ys[i]), in data units. */
void svg_polyline(struct svg_plot *p, const double *xs, const double *ys,
		  size_t n, const char *color, bool dashed);
/* A filled bar from x0 to x1 (data units), from the x axis up to @y. */
void svg_bar(struct svg_plot *p, double x0, double x1, double y,
	     const char *color);
/* A vertical marker at x = @v across the plot, labelled @label (escaped). */
void svg_vmarker(struct svg_plot *p, double v, const char *color,
		 const char *label, int row);
/* The next legend entry: a swatch of @color and @label (escaped). */
void svg_legend(struct svg_plot *p, const char *color, const char *label);
/* One line of text (escaped) under the plot, @row from 0. */
void svg_caption(struct svg_plot *p, int row, const char *text);

#endif /* ISPOT_SVG_H */
