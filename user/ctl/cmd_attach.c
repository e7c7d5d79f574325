// SPDX-License-Identifier: GPL-2.0
/* ispotctl attach: trace functions of a process that is already running. */
#include "commands.h"
#include "trace/trace.h"

int cmd_attach(int argc, char **argv)
{
	struct trace_opts o;
	int ret;

	ret = trace_opts_parse(MODE_ATTACH, argc, argv, &o);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	return attach_traced(&o);
}

int attach_traced(const struct trace_opts *o)
{
	struct trace t;

	if (trace_open(&t, o, MODE_ATTACH) || trace_check_pid(o->pid))
		goto fail;
	if (trace_resolve(&t, o->pid, NULL) || trace_check_keys(&t) ||
	    trace_start(&t, o->pid) || trace_loop(&t, NULL, NULL) ||
	    trace_report(&t))
		goto fail;
	trace_free(&t);
	return EXIT_OK;
fail:
	trace_free(&t);
	return EXIT_RUNTIME;
}
