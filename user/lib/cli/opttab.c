// SPDX-License-Identifier: GPL-2.0
/*
 * The option table of ispotctl and ispotd, the help printed from it and
 * the one error line every option error ends as; see opttab.h.  Values
 * are parsed by opt_units.c, opt_keys.c and opt_kinds.c, argv is read by
 * opt_parse.c and the config file by opt_config.c.
 */
#include <stdarg.h>
#include <string.h>

#include "cli/opttab.h"
#include "util/errors.h"

/* Who takes the options of a tracing session: ispotctl's and ispotd's. */
#define TRACERS		(OPT_ATTACH | OPT_RUN | OPT_RECORD | OPT_DAEMON | \
			 OPT_CONF)
#define REPORTS		(OPT_ATTACH | OPT_RUN | OPT_RECORD | OPT_REPORT)
#define ISPOTD		(OPT_DAEMON | OPT_CONF)

/*
 * In the order of the help.  A name may stand twice when two commands
 * mean different things by it (--window); never for the same command.
 * An option id stands once (opt_parse.c counts on OPT_NR names at most).
 */
const struct opt_def opt_table[] = {
	{ 0, NULL, 0, 0, NULL, "targets (at least one; each repeatable):",
	  OPT_DAEMON, NULL, 0 },
	{ OPT_PID, "pid", 'p', OPTK_PID, "PID",
	  "the process to trace", OPT_ATTACH | OPT_RECORD | OPT_TOP | ISPOTD,
	  NULL, 0 },
	{ OPT_EXE, "exe", 0, OPTK_TEXT, "PATH",
	  "processes running PATH (need not exist yet)", ISPOTD, "a path", 0 },
	{ OPT_CGROUP, "cgroup", 0, OPTK_TEXT, "PATH",
	  "processes in a cgroup2 group: /sys/fs/cgroup/a/b,\n"
	  "or a/b relative to the cgroup2 root", ISPOTD,
	  "a path, e.g. /system.slice/foo.service", 0 },
	{ 0, NULL, 0, 0, NULL, "what to trace:", OPT_DAEMON, NULL, 0 },
	{ OPT_FUNC, "func", 'f', OPTK_TEXT, "SPEC",
	  "function to trace: name, glob ('worker_*') or\n"
	  "OBJ:name ('libc:pthread_mutex_lock'), or\n"
	  "block:NAME (include/ispot.h markers); repeatable",
	  TRACERS | OPT_TOP, "a function name", 0 },
	{ OPT_BLOCK, "block", 0, OPTK_BLOCK, "NAME=[OBJ:]PROV:BEGIN,PROV:END",
	  "trace from one USDT probe to another as NAME", TRACERS, NULL, 0 },
	{ OPT_KEY, "key", 'k', OPTK_KEY, "FUNC=RULE",
	  "compare FUNC's executions only with those of the\n"
	  "same argN[:log2], callsite, shape (probed calls\n"
	  "made), or none; auto: the argument the work\n"
	  "follows, if any.  FUNC is any --func SPEC;\n"
	  "repeatable", TRACERS | OPT_TOP | OPT_REPORT, NULL, 0 },
	{ OPT_SYNC, "sync", 0, OPTK_FLAG, NULL,
	  "also trace pthread lock, wait and barrier calls",
	  TRACERS | OPT_TOP, NULL, 0 },
	{ OPT_AUTO, "auto", 0, OPTK_COUNT_OPT, "[=N]",
	  "sample the target first, then trace the functions\n"
	  "with >= 1% of the samples (or the top N)",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD, NULL, 0 },
	{ OPT_AUTO_TIME, "auto-time", 0, OPTK_DURATION, "TIME",
	  "how long --auto samples (default 2s, at most 1h)",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD, "2s or 500ms", 1 },
	{ OPT_DAUTO, "auto", 0, OPTK_COUNT_OPT, "[=N]",
	  "pick each target's functions from a profile of its\n"
	  "wall time (>= 1% of it, or the top N), and pick\n"
	  "again every --auto-every windows; with --func,\n"
	  "traced beside those", ISPOTD, NULL, 0 },
	{ OPT_DAUTO_TIME, "auto-time", 0, OPTK_DURATION, "TIME",
	  "how long --auto's profile samples (default 500ms,\n"
	  "at most 1h)", ISPOTD, "2s or 500ms", 1 },
	{ OPT_AUTO_EVERY, "auto-every", 0, OPTK_COUNT, "N",
	  "with --auto: profile and pick again every N\n"
	  "windows (default 10)", ISPOTD, "", 0 },
	{ OPT_WALL_FOLDED, "wall-folded", 0, OPTK_TEXT, "FILE",
	  "with --auto: write where the threads spent their\n"
	  "wall time, on and off the CPU, to FILE as folded\n"
	  "lines, 'a;b;func;[off cpu: futex] US', for flame graphs\n"
	  "(report: the profile a recording made with --auto holds)",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD | OPT_REPORT, "a file name", 0 },
	{ OPT_SAMPLE, "sample", 0, OPTK_COUNT, "N",
	  "record 1 in N calls of each function",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD | OPT_TOP, NULL, 0 },
	{ OPT_STACK_PERIOD, "stack-period", 0, OPTK_COUNT, "N",
	  "take the call stack of 1 in N calls (default\n"
	  "101) and of the first, for CALLED FROM",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD, " (1: every call)", 0 },
	{ OPT_SOLO_BLOCKS, "solo-blocks", 0, OPTK_PERCENT, "SHARE",
	  "let one thread at a time into the traced functions\n"
	  "for short random stretches costing at most SHARE\n"
	  "of the run (default 2%; ispotd: 3% of the armed\n"
	  "time), the reference INTERF needs; 0: off",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD | ISPOTD, NULL, 0 },
	{ OPT_DURATION, "duration", 'd', OPTK_DURATION, "TIME",
	  "stop tracing after TIME (e.g. 10, 10s, 500ms, 2m);\n"
	  "run reports then, and still waits for its command",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD, "10s or 500ms", 1 },
	{ 0, NULL, 0, 0, NULL, "options:", OPT_DAEMON, NULL, 0 },
	{ OPT_BUDGET, "budget", 0, OPTK_PERCENT, "PCT",
	  "overhead allowed, as a share of the targets' time\n"
	  "(e.g. 1%, 0.5%; default 1%; 0: always armed)", ISPOTD, NULL, 0 },
	{ OPT_DWINDOW, "window", 0, OPTK_DURATION, "TIME",
	  "length of a window (e.g. 60s, 5m; default 60s,\n"
	  "at least 1s)", ISPOTD, "60s or 5m", OPT_MIN_DWINDOW_NS },
	{ OPT_LOG, "log", 0, OPTK_TEXT, "FILE|-",
	  "write one JSON line per target per window to FILE\n"
	  "(default -: stdout)", ISPOTD, "a file name, or - for stdout", 0 },
	{ OPT_LISTEN, "listen", 0, OPTK_ADDR, "ADDR:PORT",
	  "serve Prometheus metrics at /metrics, e.g.\n"
	  "127.0.0.1:9464 or [::1]:9464 (default off)", ISPOTD, NULL, 0 },
	{ OPT_MAX_FUNCTIONS, "max-functions", 0, OPTK_COUNT, "N",
	  "functions per target before the rest are summed\n"
	  "as \"(other)\" (default 50)", ISPOTD, "", 0 },
	{ OPT_RING_SIZE, "ring-size", 0, OPTK_SIZE, "SIZE",
	  "ring buffer per CPU (e.g. 512K, 4M; default 2M)",
	  TRACERS | OPT_TOP, NULL, 0 },
	{ OPT_TOPN, "top", 0, OPTK_COUNT, "N",
	  "show the N functions with the highest SCI", REPORTS, "", 0 },
	{ OPT_WIDE, "wide", 0, OPTK_FLAG, NULL,
	  "C++ names whole (with parameters), never elided",
	  REPORTS | OPT_TOP, NULL, 0 },
	{ OPT_ALL_FUTEXES, "all-futexes", 0, OPTK_FLAG, NULL,
	  "every futex word and waker, also those no traced\n"
	  "function waited on or that name no one", REPORTS, NULL, 0 },
	{ OPT_COUNTERS, "counters", 0, OPTK_COUNTERS, "LIST",
	  "count perf events per call, e.g. cpu-clock,\n"
	  "page-faults,cycles,instructions,cache-misses",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD, NULL, 0 },
	{ OPT_RAW_EVENT, "raw-event", 0, OPTK_RAW_EVENT, "0xN",
	  "count a raw PMU event per call (e.g. a HITM event)",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD, NULL, 0 },
	{ OPT_JSON, "json", 'j', OPTK_FLAG, NULL,
	  "write the report as JSON", REPORTS | OPT_STATUS, NULL, 0 },
	{ OPT_OUTPUT, "output", 'o', OPTK_TEXT, "FILE",
	  "write the report to FILE", OPT_ATTACH | OPT_RUN | OPT_REPORT,
	  "a file name", 0 },
	{ OPT_RECORD_OUTPUT, "output", 'o', OPTK_TEXT, "FILE",
	  "write the recording to FILE (required), the\n"
	  "report to stdout; -o -: the recording to stdout,\n"
	  "the report to stderr", OPT_RECORD, "a file name", 0 },
	{ OPT_MAX_SIZE, "max-size", 0, OPTK_BYTES, "SIZE",
	  "stop recording records at SIZE (e.g. 100M, 2G;\n"
	  "default 1G); the report says when", OPT_RECORD, NULL, 0 },
	{ OPT_FOLDED, "folded", 0, OPTK_TEXT, "FILE",
	  "also write the sampled call stacks to FILE as\n"
	  "folded lines, 'a;b;func N', N the ns of loss, for\n"
	  "flamegraph.pl and speedscope", REPORTS, "a file name", 0 },
	{ OPT_PERFETTO, "perfetto", 0, OPTK_TEXT, "FILE",
	  "also write the calls, waits and wakes to FILE as a\n"
	  "Perfetto trace, for ui.perfetto.dev", REPORTS, "a file name", 0 },
	{ OPT_PERFETTO_MAX_SIZE, "perfetto-max-size", 0, OPTK_BYTES, "SIZE",
	  "stop the Perfetto trace's events at SIZE (default\n"
	  "1G): every slice still ends; the report says when",
	  REPORTS, NULL, 0 },
	{ OPT_SVG, "svg", 0, OPTK_TEXT, "DIR",
	  "also draw each function's sorted durations and\n"
	  "histogram as SVG files in DIR (made if missing);\n"
	  "plot: the scores over time", REPORTS | OPT_PLOT,
	  "a directory", 0 },
	{ OPT_HTML, "html", 0, OPTK_TEXT, "FILE",
	  "also write the report, its pictures, stacks and\n"
	  "notes as one self-contained HTML page", REPORTS,
	  "a file name", 0 },
	{ OPT_BASELINE, "baseline", 0, OPTK_TEXT, "FILE",
	  "judge each function's interference also against\n"
	  "its solo calls in FILE, a recording of the same\n"
	  "program with one worker (ispotctl record)",
	  REPORTS, "a recording", 0 },
	{ OPT_HEADER, "header", 0, OPTK_FLAG, NULL,
	  "print what the recording holds (what ran, where,\n"
	  "when, what was traced, its size, whether it is\n"
	  "whole) instead of its report; with --json, as\n"
	  "one JSON object", OPT_REPORT, NULL, 0 },
	{ OPT_WINDOWS, "windows", 0, OPTK_TEXT, "LOG",
	  "ispotd's window log (its --log FILE) to plot", OPT_PLOT,
	  "a file name", 0 },
	{ OPT_FROM, "from", 0, OPTK_ADDR, "ADDR:PORT",
	  "read a running ispotd's metrics (its --listen)\n"
	  "instead of tracing", OPT_TOP, NULL, 0 },
	{ OPT_REFRESH, "refresh", 0, OPTK_DURATION, "TIME",
	  "redraw every TIME (default 1s, at least 100ms)", OPT_TOP,
	  "1s", OPT_MIN_REFRESH_NS },
	{ OPT_WINDOW, "window", 0, OPTK_DURATION, "TIME",
	  "the figures cover the last TIME (default 5s)", OPT_TOP, "5s", 1 },
	{ OPT_CONFIG, "config", 0, OPTK_TEXT, "FILE",
	  "more options, one per line: 'exe /usr/bin/app',\n"
	  "'budget 0.5%', 'sync'; '#' comments; lists add\n"
	  "up, the command line's other values win;\n"
	  "SIGHUP re-reads it", ISPOTD, "a file name", 0 },
	{ OPT_HELP, "help", 'h', OPTK_HELP, NULL, "this help",
	  OPT_CTL | OPT_DAEMON, NULL, 0 },
};

const size_t opt_table_len = sizeof(opt_table) / sizeof(opt_table[0]);

int opt_error(const struct opt_src *src, const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (src->path && src->line)
		ispot_error("%s:%u: %s; %s", src->path, src->line, msg,
			    src->cmd->see);
	else if (src->path)
		ispot_error("%s: %s; %s", src->path, msg, src->cmd->see);
	else
		ispot_error("%s; %s", msg, src->cmd->see);
	return -1;
}

/* ---- help ---------------------------------------------------------- */

/* "  -p, --pid PID         the process..." and its further lines. */
static void usage_option(const struct opt_def *d, bool shorts, FILE *f)
{
	char head[64];
	const char *h = d->help;
	int n;

	if ((shorts || d->kind == OPTK_HELP) && d->short_name)
		n = snprintf(head, sizeof(head), "  -%c, --%s", d->short_name,
			     d->name);
	else
		n = snprintf(head, sizeof(head), "      --%s", d->name);
	if (d->arg)
		n += snprintf(head + n, sizeof(head) - n, "%s%s",
			      d->kind == OPTK_COUNT_OPT ? "" : " ", d->arg);
	if (n > 22)
		fprintf(f, "%s\n%-24s", head, "");
	else
		fprintf(f, "%-24s", head);
	while (*h) {
		size_t len = strcspn(h, "\n");

		fprintf(f, "%.*s\n", (int)len, h);
		h += len;
		if (*h && *++h)
			fprintf(f, "%-24s", "");
	}
}

void opt_usage(const struct opt_cmd_info *cmd, FILE *f)
{
	size_t i;

	fprintf(f, "%s\n\n", cmd->usage);
	if (cmd->intro)
		fprintf(f, "%s\n\n", cmd->intro);
	for (i = 0; i < opt_table_len; i++) {
		const struct opt_def *d = &opt_table[i];

		if (!(d->cmds & cmd->cmd))
			continue;
		if (!d->name)
			fprintf(f, "%s\n", d->help);
		else
			usage_option(d, cmd->cmd & OPT_CTL, f);
	}
	if (cmd->outro)
		fprintf(f, "\n%s\n", cmd->outro);
}
