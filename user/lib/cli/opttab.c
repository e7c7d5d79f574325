// SPDX-License-Identifier: GPL-2.0
/*
 * The option table of ispotctl and ispotd, its parsers, its help printer
 * and its error lines; see opttab.h.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "cli/opttab.h"
#include "util/errors.h"
#include "util/netaddr.h"

#define MIN_RING_BYTES		4096ull
#define MAX_RING_BYTES		(1ull << 30)
#define NS_PER_SEC		1000000000ull

/* Who takes the options of a tracing session: ispotctl's and ispotd's. */
#define TRACERS		(OPT_ATTACH | OPT_RUN | OPT_RECORD | OPT_DAEMON | \
			 OPT_CONF)
#define REPORTS		(OPT_ATTACH | OPT_RUN | OPT_RECORD | OPT_REPORT)
#define ISPOTD		(OPT_DAEMON | OPT_CONF)

/*
 * In the order of the help.  A name may stand twice when two commands
 * mean different things by it (--window); never for the same command.
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
	  "how long --auto samples (default 2s)",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD, "2s or 500ms", 1 },
	{ OPT_SAMPLE, "sample", 0, OPTK_COUNT, "N",
	  "record 1 in N calls of each function",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD | OPT_TOP, NULL, 0 },
	{ OPT_STACK_PERIOD, "stack-period", 0, OPTK_COUNT, "N",
	  "take the call stack of 1 in N calls (default\n"
	  "101) and of the first, for CALLED FROM",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD, " (1: every call)", 0 },
	{ OPT_DURATION, "duration", 'd', OPTK_DURATION, "TIME",
	  "stop after TIME (e.g. 10, 10s, 500ms, 2m)",
	  OPT_ATTACH | OPT_RUN | OPT_RECORD, "10s or 500ms", 1 },
	{ 0, NULL, 0, 0, NULL, "options:", OPT_DAEMON, NULL, 0 },
	{ OPT_BUDGET, "budget", 0, OPTK_PERCENT, "PCT",
	  "overhead allowed, as a share of the targets' time\n"
	  "(e.g. 1%, 0.5%; default 1%; 0: always armed)", ISPOTD, NULL, 0 },
	{ OPT_DWINDOW, "window", 0, OPTK_DURATION, "TIME",
	  "length of a window (e.g. 60s, 5m; default 60s,\n"
	  "at least 1s)", ISPOTD, "60s or 5m", NS_PER_SEC },
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
	  "write the report as JSON", REPORTS, NULL, 0 },
	{ OPT_OUTPUT, "output", 'o', OPTK_TEXT, "FILE",
	  "write the report to FILE", OPT_ATTACH | OPT_RUN | OPT_REPORT,
	  "a file name", 0 },
	{ OPT_RECORD_OUTPUT, "output", 'o', OPTK_TEXT, "FILE",
	  "write the recording to FILE (required); the\n"
	  "report goes to stdout", OPT_RECORD, "a file name", 0 },
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

/* ---- one function per kind of value ---------------------------------- */

uint64_t options_parse_duration(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || v > 1e7)
		return 0;
	if (!*end || !strcmp(end, "s"))
		v *= 1e9;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else if (!strcmp(end, "us"))
		v *= 1e3;
	else if (!strcmp(end, "m"))
		v *= 60e9;
	else if (!strcmp(end, "h"))
		v *= 3600e9;
	else
		return 0;
	return v < 1 ? 1 : (uint64_t)v;
}

/* "4096", "512K", "4M", "1G" -> bytes; 0 on error or overflow. */
static uint64_t parse_size(const char *s)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (v > UINT64_MAX >> shift)
		return 0;
	v <<= shift;
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	return *end ? 0 : v;
}

uint64_t options_parse_ring_size(const char *s)
{
	uint64_t v = parse_size(s);

	if (v < MIN_RING_BYTES || v > MAX_RING_BYTES || (v & (v - 1)))
		return 0;
	return v;
}

uint64_t options_parse_bytes(const char *s, uint64_t min)
{
	uint64_t v = parse_size(s);

	return v < min ? 0 : v;
}

bool options_parse_u32(const char *s, uint32_t min, uint32_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min ||
	    v > UINT32_MAX)
		return false;
	*out = v;
	return true;
}

bool options_parse_percent(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || strspn(s, "0123456789.") != (size_t)(end - s))
		return false;
	if (*end == '%')
		end++;
	if (*end || !(v >= 0 && v <= 100))
		return false;
	*out = v / 100;
	return true;
}

bool key_rule_parse(const char *s, struct key_rule *rule)
{
	static const struct {
		const char *name;
		enum key_kind kind;
	} words[] = {
		{ "none", KEY_NONE }, { "callsite", KEY_CALLSITE },
		{ "auto", KEY_AUTO }, { "shape", KEY_SHAPE },
	};
	size_t i;

	memset(rule, 0, sizeof(*rule));
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strcmp(s, words[i].name)) {
			rule->kind = words[i].kind;
			return true;
		}
	}
	if (strncmp(s, "arg", 3) || s[3] < '0' || s[3] > '2')
		return false;
	rule->kind = KEY_ARG;
	rule->arg = s[3] - '0';
	if (!strcmp(s + 4, ":log2"))
		rule->log2 = true;
	return !s[4] || rule->log2;
}

void key_rule_format(const struct key_rule *rule, char *buf, size_t len)
{
	switch (rule->kind) {
	case KEY_ARG:
		snprintf(buf, len, "arg%u%s", rule->arg,
			 rule->log2 ? ":log2" : "");
		break;
	case KEY_CALLSITE:
		snprintf(buf, len, "callsite");
		break;
	case KEY_AUTO:
		snprintf(buf, len, "auto");
		break;
	case KEY_SHAPE:
		snprintf(buf, len, "shape");
		break;
	default:
		snprintf(buf, len, "%s", "");
	}
}

/* Each writes the one-line message for a bad @v->str to @err. */
typedef bool (*kind_fn)(struct opt_val *v, bool file, char *err,
			size_t len);

static bool kind_none(struct opt_val *v, bool file, char *err, size_t len)
{
	(void)v, (void)file, (void)err, (void)len;
	return true;
}

static bool kind_count_opt(struct opt_val *v, bool file, char *err,
			   size_t len)
{
	uint32_t n = 0;

	(void)file;
	if (v->str && !options_parse_u32(v->str, 1, &n)) {
		snprintf(err, len, "%s=%s: N must be a whole number >= 1",
			 v->opt, v->str);
		return false;
	}
	v->u64 = n;
	return true;
}

static bool kind_pid(struct opt_val *v, bool file, char *err, size_t len)
{
	uint32_t n;

	(void)file;
	if (!options_parse_u32(v->str, 1, &n) || n > INT_MAX) {
		snprintf(err, len, "%s '%s' is not a process id (a whole "
			 "number >= 1)", v->opt, v->str);
		return false;
	}
	v->u64 = n;
	return true;
}

static bool kind_text(struct opt_val *v, bool file, char *err, size_t len)
{
	(void)file;
	if (!*v->str) {
		snprintf(err, len, "%s needs %s", v->opt, v->def->what);
		return false;
	}
	return true;
}

static bool kind_count(struct opt_val *v, bool file, char *err, size_t len)
{
	uint32_t n;

	(void)file;
	if (!options_parse_u32(v->str, 1, &n)) {
		snprintf(err, len, "%s '%s' must be a whole number >= 1%s",
			 v->opt, v->str, v->def->what ? v->def->what : "");
		return false;
	}
	v->u64 = n;
	return true;
}

static bool kind_duration(struct opt_val *v, bool file, char *err,
			  size_t len)
{
	const struct opt_def *d = v->def;

	(void)file;
	v->u64 = options_parse_duration(v->str);
	if (v->u64 >= d->min)
		return true;
	if (d->min >= NS_PER_SEC)
		snprintf(err, len, "%s '%s' must be a time of at least %llus, "
			 "e.g. %s", v->opt, v->str,
			 (unsigned long long)(d->min / NS_PER_SEC), d->what);
	else if (d->min > 1)
		snprintf(err, len, "%s '%s' must be a time of %llums or more",
			 v->opt, v->str,
			 (unsigned long long)(d->min / 1000000));
	else
		snprintf(err, len, "%s '%s' is not a time such as %s", v->opt,
			 v->str, d->what);
	return false;
}

static bool kind_size(struct opt_val *v, bool file, char *err, size_t len)
{
	(void)file;
	v->u64 = options_parse_ring_size(v->str);
	if (!v->u64)
		snprintf(err, len, "%s '%s' must be a power of two from 4K "
			 "to 1G", v->opt, v->str);
	return v->u64;
}

static bool kind_bytes(struct opt_val *v, bool file, char *err, size_t len)
{
	(void)file;
	v->u64 = options_parse_bytes(v->str, MIN_RING_BYTES);
	if (!v->u64)
		snprintf(err, len, "%s '%s' must be a size of 4K or more, e.g. "
			 "100M or 2G", v->opt, v->str);
	return v->u64;
}

static bool kind_percent(struct opt_val *v, bool file, char *err,
			 size_t len)
{
	(void)file;
	if (options_parse_percent(v->str, &v->fraction))
		return true;
	snprintf(err, len, "%s '%s' must be a percentage from 0 to 100, e.g. "
		 "1%% or 0.5%% (0: always armed)", v->opt, v->str);
	return false;
}

/*
 * FUNC=RULE, split at the last '=': no rule holds one, and a C++
 * "operator=" or "operator==" does, so "operator===shape" keys
 * operator==.  FUNC is checked against the traced functions later.
 */
static bool kind_key(struct opt_val *v, bool file, char *err, size_t len)
{
	const char *eq = strrchr(v->str, '=');

	if (!eq || eq == v->str) {
		snprintf(err, len, "%s '%s' needs FUNC=RULE, e.g. %s",
			 v->opt, v->str, file ? "key worker=arg0:log2" :
			 "--key 'worker=arg0:log2'");
		return false;
	}
	if (!key_rule_parse(eq + 1, &v->rule)) {
		snprintf(err, len, "%s '%s': the rule must be argN (N = 0-2), "
			 "argN:log2, callsite, shape, auto or none", v->opt,
			 v->str);
		return false;
	}
	v->func_len = eq - v->str;
	return true;
}

static bool kind_block(struct opt_val *v, bool file, char *err, size_t len)
{
	(void)file;
	if (!strchr(v->str, '=')) {
		snprintf(err, len, "%s wants NAME=[OBJ:]PROV:BEGIN,PROV:END, "
			 "not '%s'", v->opt, v->str);
		return false;
	}
	if (strlen(OPT_BLOCK_PREFIX) + strlen(v->str) >= OPT_BLOCK_SPEC_MAX) {
		snprintf(err, len, "%s '%.40s...' is too long", v->opt, v->str);
		return false;
	}
	return true;
}

static bool kind_addr(struct opt_val *v, bool file, char *err, size_t len)
{
	const char *problem;
	char host[256];
	uint16_t port;

	(void)file;
	problem = netaddr_split(v->str, host, sizeof(host), &port);
	if (problem)
		snprintf(err, len, "%s '%s' %s", v->opt, v->str, problem);
	return !problem;
}

static const kind_fn kind_fns[] = {
	[OPTK_FLAG] = kind_none,
	[OPTK_COUNT_OPT] = kind_count_opt,
	[OPTK_PID] = kind_pid,
	[OPTK_TEXT] = kind_text,
	[OPTK_COUNT] = kind_count,
	[OPTK_DURATION] = kind_duration,
	[OPTK_SIZE] = kind_size,
	[OPTK_BYTES] = kind_bytes,
	[OPTK_PERCENT] = kind_percent,
	[OPTK_KEY] = kind_key,
	[OPTK_BLOCK] = kind_block,
	[OPTK_COUNTERS] = kind_none,
	[OPTK_RAW_EVENT] = kind_none,
	[OPTK_ADDR] = kind_addr,
	[OPTK_HELP] = kind_none,
};

/* ---- from either source to the store --------------------------------- */

/* "attach and run", "attach, run and ispotd": who takes @cmds. */
static void cmd_list(unsigned int cmds, char *buf, size_t len)
{
	static const char *const names[] = {
		"attach", "run", "top", "record", "report", "ispotd",
	};
	size_t i, n = 0, used = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(cmds & (1u << i)))
			continue;
		/* Commas until the last one, which "and" introduces. */
		cmds &= ~(1u << i);
		used += snprintf(buf + used, len - used, "%s%s",
				 !n ? "" : (cmds & ((1u << 6) - 1)) ? ", " :
				 " and ", names[i]);
		n++;
		if (used >= len)
			return;
	}
}

/* Parse @v->str as @d says, then hand it to the store; 0 or -1. */
static int opt_take(const struct opt_src *src, const struct opt_def *d,
		    struct opt_val *v, opt_store_fn store, void *ctx)
{
	char err[640] = "";

	v->def = d;
	if (!(d->cmds & src->cmd->cmd)) {
		cmd_list(d->cmds & (OPT_CTL | OPT_DAEMON), err, sizeof(err));
		return opt_error(src, "%s is for %s%s, not %s", v->opt,
				 src->cmd->cmd & OPT_CTL ? "" : "ispotctl ",
				 err, src->cmd->name);
	}
	if (!kind_fns[d->kind](v, src->path, err, sizeof(err)))
		return opt_error(src, "%s", err);
	if (!store(ctx, v, err, sizeof(err)))
		return 0;
	return err[0] ? opt_error(src, "%s", err) : -1;
}

/* The entry @name means for @cmd, else the first of that name. */
static const struct opt_def *opt_find(const char *name, unsigned int cmd)
{
	const struct opt_def *first = NULL;
	size_t i;

	for (i = 0; i < opt_table_len; i++) {
		const struct opt_def *d = &opt_table[i];

		if (!d->name || strcmp(d->name, name))
			continue;
		if (d->cmds & cmd)
			return d;
		if (!first)
			first = d;
	}
	return first;
}

/*
 * getopt_long's view of the table: every name once, the value its index
 * in the table, and the short letters for ispotctl's commands.
 */
static void getopt_tables(unsigned int cmd, struct option *longs,
			  char *shorts, size_t slen)
{
	size_t i, n = 0, s = 0;

	s += snprintf(shorts, slen, "+:%s", cmd & OPT_CTL ? "" : "h");
	for (i = 0; i < opt_table_len; i++) {
		const struct opt_def *d = &opt_table[i];

		if (!d->name || opt_find(d->name, cmd) != d)
			continue;
		longs[n++] = (struct option){
			d->name,
			d->kind == OPTK_FLAG || d->kind == OPTK_HELP ?
			no_argument : d->kind == OPTK_COUNT_OPT ?
			optional_argument : required_argument,
			NULL, (int)(256 + i),
		};
		if ((cmd & OPT_CTL) && d->short_name && s + 3 < slen)
			s += snprintf(shorts + s, slen - s, "%c%s",
				      d->short_name, longs[n - 1].has_arg ?
				      ":" : "");
	}
	longs[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* getopt_long's value @c as the table entry it stands for, or NULL. */
static const struct opt_def *opt_by_getopt(int c, unsigned int cmd)
{
	size_t i;

	if (c >= 256)
		return &opt_table[c - 256];
	/* A letter means what its long name means for @cmd (-o). */
	for (i = 0; i < opt_table_len; i++)
		if (opt_table[i].name && opt_table[i].short_name == c)
			return opt_find(opt_table[i].name, cmd);
	return NULL;
}

/* What getopt_long refused: a value missing, an unknown option. */
static int opt_bad(const struct opt_src *src, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return opt_error(src, "%s needs a value", arg[1] == '-' ? arg :
				 (const char[]){ '-', optopt, 0 });
	if (optopt > 0 && optopt < 256)
		return opt_error(src, "unknown option '-%c'", optopt);
	return opt_error(src, "option '%s' is unknown or takes no value", arg);
}

int opt_parse_argv(const struct opt_cmd_info *cmd, int argc, char **argv,
		   opt_store_fn store, void *ctx, int *next)
{
	const struct opt_src src = { .cmd = cmd };
	struct option longs[sizeof(opt_table) / sizeof(opt_table[0]) + 1];
	const struct opt_def *d;
	char shorts[64], spelled[64];
	struct opt_val v;
	int c;

	getopt_tables(cmd->cmd, longs, shorts, sizeof(shorts));
	/* 0, not 1: a full reset, for a caller (a test) that parses again. */
	optind = 0;
	opterr = 0;
	/*
	 * '+': stop at the first operand (run's CMD keeps its own options);
	 * ':': tell an option that lacks its value from an unknown one.
	 */
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		d = opt_by_getopt(c, cmd->cmd);
		if (!d)
			return opt_bad(&src, c, argv);
		if (d->kind == OPTK_HELP) {
			opt_usage(cmd, stdout);
			return 1;
		}
		snprintf(spelled, sizeof(spelled), "--%s", d->name);
		v = (struct opt_val){ .opt = spelled, .str = optarg };
		if (opt_take(&src, d, &v, store, ctx))
			return -1;
	}
	*next = optind;
	return 0;
}

/* Strip a "#" comment (at the start or after whitespace) and trim. */
static char *line_strip(char *line)
{
	char *p, *end;

	for (p = line; *p; p++) {
		if (*p == '#' && (p == line || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			break;
		}
	}
	while (isspace((unsigned char)*line))
		line++;
	end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return line;
}

/* One line of the file: "key value", "flag", a comment or nothing. */
static int opt_line(const struct opt_src *src, char *line, opt_store_fn store,
		    void *ctx)
{
	char *key = line_strip(line), *val;
	const struct opt_def *d;
	struct opt_val v;

	if (!*key)
		return 0;
	val = key + strcspn(key, " \t\r\n\v\f");
	if (*val) {
		*val++ = '\0';
		val += strspn(val, " \t\r\n\v\f");
	}
	d = opt_find(key, OPT_CONF);
	if (!d || !(d->cmds & OPT_CONF)) {
		if (key[0] == '-')
			return opt_error(src, "unknown option '%s': write it "
					 "without the leading dashes, e.g. "
					 "'pid 1234'", key);
		if (strchr(key, '='))
			return opt_error(src, "unknown option '%s': put a space "
					 "between the option and its value, "
					 "e.g. 'budget 1%%'", key);
		return opt_error(src, "unknown option '%s'", key);
	}
	if (d->kind == OPTK_FLAG && *val)
		return opt_error(src, "'%s' takes no value: write '%s' alone",
				 key, key);
	if (d->kind != OPTK_FLAG && !*val)
		return opt_error(src, "'%s' needs a value", key);
	v = (struct opt_val){ .opt = key, .str = d->kind == OPTK_FLAG ?
			      NULL : val };
	return opt_take(src, d, &v, store, ctx);
}

int opt_parse_file(const struct opt_cmd_info *cmd, const char *path,
		   opt_store_fn store, void *ctx)
{
	struct opt_src src = { .cmd = cmd, .path = path };
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		ispot_error("cannot read %s: %s; check the --config path",
			    path, strerror(errno));
		return -1;
	}
	errno = 0;
	while (getline(&line, &cap, f) >= 0) {
		src.line++;
		ret = opt_line(&src, line, store, ctx);
		if (ret)
			break;
		errno = 0;
	}
	/* A directory opens, then fails to read (EISDIR). */
	if (!ret && ferror(f)) {
		ispot_error("cannot read %s: %s; check the --config path",
			    path, strerror(errno ? errno : EIO));
		ret = -1;
	}
	free(line);
	fclose(f);
	return ret;
}
