// SPDX-License-Identifier: GPL-2.0
/* ispotctl attach: trace functions of a process that is already running. */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "commands.h"
#include "trace.h"

int cmd_attach(int argc, char **argv)
{
	struct trace_opts o;
	struct trace t;
	int ret;

	ret = trace_opts_parse(MODE_ATTACH, argc, argv, &o);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;

	if (trace_open(&t, &o, MODE_ATTACH))
		goto fail;
	if (kill(o.pid, 0) && errno == ESRCH) {
		ispot_error("no process with pid %d: check it with ps",
			    (int)o.pid);
		goto fail;
	}
	if (kill(o.pid, 0) && errno == EPERM) {
		ispot_error("no permission to trace pid %d: run as root, or "
			    "with CAP_PERFMON as its user", (int)o.pid);
		goto fail;
	}
	if (trace_resolve(&t, o.pid, NULL) || trace_start(&t, o.pid) ||
	    trace_loop(&t, NULL, NULL) || trace_report(&t))
		goto fail;
	trace_free(&t);
	return EXIT_OK;
fail:
	trace_free(&t);
	return EXIT_RUNTIME;
}
