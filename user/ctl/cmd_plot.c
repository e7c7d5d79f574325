// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl plot --windows LOG --svg DIR: ispotd's scores over time, from
 * its window log, as pictures (report/window_plot.h).  Nothing is traced:
 * it reads a file and writes pictures, so it needs no module.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "report/window_plot.h"
#include "cli/opttab.h"

#define USAGE_PLOT "usage: ispotctl plot --windows LOG --svg DIR"

static const struct opt_cmd_info plot_info = {
	OPT_PLOT, "plot", USAGE_PLOT,
	"Draws each function's SCI and INTERF over the windows of an\n"
	"ispotd window log.",
	"Writes DIR/windows.sci.svg and, when the windows had wait\n"
	"records, DIR/windows.interf.svg.", USAGE_PLOT,
};

struct plot_opts {
	const char *windows;
	const char *svg;
};

static int plot_store(void *ctx, const struct opt_val *v, char *err,
		      size_t len)
{
	struct plot_opts *o = ctx;

	(void)err;
	(void)len;
	if (v->def->id == OPT_WINDOWS)
		o->windows = v->str;
	else if (v->def->id == OPT_SVG)
		o->svg = v->str;
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	const struct opt_src src = { .cmd = &plot_info };
	struct plot_opts o = { NULL, NULL };
	int next, ret;

	ret = opt_parse_argv(&plot_info, argc, argv, plot_store, &o, &next);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	if (next < argc) {
		opt_error(&src, "unexpected argument '%s'", argv[next]);
		return EXIT_USAGE;
	}
	if (!o.windows || !o.svg) {
		opt_error(&src, "plot needs --windows LOG and --svg DIR");
		return EXIT_USAGE;
	}
	return window_plot(o.windows, o.svg) ? EXIT_RUNTIME : EXIT_OK;
}
