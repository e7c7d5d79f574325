// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl: find the functions of a multi-threaded program that lose the
 * most time to other threads.  This file only dispatches to cmd_*.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output/writers.h"
#include "trace/device.h"
#include "util/sigcatch.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "attach", cmd_attach, "trace functions of a running process, then report" },
	{ "plot", cmd_plot, "draw ispotd's scores over time from its window log" },
	{ "run", cmd_run, "run a command with functions traced, then report" },
	{ "status", cmd_status, "show the module, ABI, sessions and limits" },
	{ "top", cmd_top, "live view of a process's functions, or of ispotd" },
	{ "record", cmd_record, "run or attach, and also write a recording" },
	{ "report", cmd_report, "report a recording again, offline" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: ispotctl COMMAND [OPTIONS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'ispotctl COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
	int ret = -1;
	size_t i;

	ispot_progname = "ispotctl";
	/*
	 * Past `ulimit -f`, an output (a report, --html, a recording, the
	 * stream report - keeps) fails with EFBIG and is said in one line,
	 * rather than SIGXFSZ killing ispotctl unsaid.
	 */
	sig_catch_default(SIGXFSZ);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ispotctl %s (ABI %d.%d)\n", ISPOTCTL_VERSION,
		       ISPOT_ABI_MAJOR, ISPOT_ABI_MINOR);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			ret = commands[i].fn(argc - 1, argv + 1);
			break;
		}
	}
	if (ret < 0) {
		ispot_error("unknown command '%s'; run 'ispotctl --help'",
			    argv[1]);
		return EXIT_USAGE;
	}
	/*
	 * A report that could not be written is a failure, as in perf; said
	 * here unless its writer said it already.
	 */
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		if (!output_stdout_said())
			ispot_error("cannot write the output: %s",
				    strerror(errno ? errno : EIO));
		return EXIT_RUNTIME;
	}
	return ret;
}
