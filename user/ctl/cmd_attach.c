// SPDX-License-Identifier: GPL-2.0
/* ispotctl attach: trace functions of a process that is already running. */
#include "commands.h"
#include "trace/trace.h"

int cmd_attach(int argc, char **argv)
{
	return cmd_traced(MODE_ATTACH, argc, argv);
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
