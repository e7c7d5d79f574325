// SPDX-License-Identifier: GPL-2.0
/*
 * What attach, run and record share: a command's options read for its
 * mode, then the session of that mode (run_traced(), attach_traced()).
 */
#include "commands.h"
#include "trace/trace.h"

int traced(const struct trace_opts *o, enum trace_mode mode)
{
	return mode == MODE_RUN ? run_traced(o) : attach_traced(o);
}

int cmd_traced(enum trace_mode mode, int argc, char **argv)
{
	struct trace_opts o;
	int ret;

	ret = trace_opts_parse(mode, argc, argv, &o);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	return traced(&o, mode);
}
