// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl record: run a command (after "--") or attach to --pid as run
 * and attach do, and also write what the session saw to the recording
 * -o names, for `ispotctl report` (Documentation/recording.rst).
 */
#include "commands.h"
#include "trace/trace.h"

int cmd_record(int argc, char **argv)
{
	enum trace_mode mode;
	struct trace_opts o;
	int ret;

	ret = trace_opts_parse_record(argc, argv, &o, &mode);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	o.record_argv = argv;
	o.record_argc = argc;
	return traced(&o, mode);
}
