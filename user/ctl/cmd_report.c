// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl report FILE: the report of a recording, made again offline
 * through the live session's pipeline and report code, with the --key,
 * --json, --top and output options of now.
 */
#include "commands.h"
#include "trace/trace.h"

int cmd_report(int argc, char **argv)
{
	struct trace_opts o;
	int ret;

	ret = trace_opts_parse_report(argc, argv, &o);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	return trace_replay(&o) ? EXIT_RUNTIME : EXIT_OK;
}
