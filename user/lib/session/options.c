// SPDX-License-Identifier: GPL-2.0
/* Options shared by `ispotctl attach` and `ispotctl run`; see options.h. */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/demangle.h"
#include "util/errors.h"
#include "util/netaddr.h"
#include "session/options.h"

#define MIN_RING_BYTES		4096ull
#define MAX_RING_BYTES		(1ull << 30)

static const char *const usage_attach =
	"usage: ispotctl attach --pid PID (--func SPEC [--func SPEC]... | --auto[=N]) [OPTIONS]";
static const char *const usage_run =
	"usage: ispotctl run (--func SPEC [--func SPEC]... | --auto[=N]) [OPTIONS] -- CMD [ARG]...";
static const char *const usage_top =
	"usage: ispotctl top (--pid PID --func SPEC... | --from ADDR:PORT) [OPTIONS]";

static const char *usage_line(enum trace_mode mode)
{
	return mode == MODE_ATTACH ? usage_attach :
	       mode == MODE_RUN ? usage_run : usage_top;
}

static void top_usage(FILE *f)
{
	fprintf(f, "%s\n\n", usage_top);
	fprintf(f,
		"  -p, --pid PID         the process to watch, with --func\n"
		"  -f, --func SPEC       function to trace: name, glob ('worker_*') or\n"
		"                        OBJ:name ('libc:pthread_mutex_lock'); repeatable\n"
		"  -k, --key FUNC=RULE   compare FUNC's executions only with those of the\n"
		"                        same argN[:log2], callsite, shape (probed calls\n"
		"                        made), or none\n"
		"      --sync            also trace pthread lock, wait and barrier calls\n"
		"      --sample N        record 1 in N calls of each function\n"
		"      --ring-size SIZE  ring buffer per CPU (e.g. 512K, 4M; default 2M)\n"
		"      --from ADDR:PORT  read a running ispotd's metrics (its --listen)\n"
		"                        instead of tracing\n"
		"      --refresh TIME    redraw every TIME (default 1s, at least 100ms)\n"
		"      --window TIME     the figures cover the last TIME (default 5s)\n"
		"  -h, --help            this help\n"
		"\nKeys: q quits, s changes the sort (SCI, loss, calls, p99), p pauses.\n"
		"Needs a terminal; ends with the process (or ispotd), q or Ctrl-C.\n");
}

void trace_opts_usage(enum trace_mode mode, FILE *f)
{
	if (mode == MODE_TOP) {
		top_usage(f);
		return;
	}
	fprintf(f, "%s\n\n", usage_line(mode));
	if (mode == MODE_ATTACH)
		fprintf(f, "  -p, --pid PID         the process to trace\n");
	fprintf(f,
		"  -f, --func SPEC       function to trace: name, glob ('worker_*') or\n"
		"                        OBJ:name ('libc:pthread_mutex_lock'), or\n"
		"                        block:NAME (include/ispot.h markers); repeatable\n"
		"      --block NAME=[OBJ:]PROV:BEGIN,PROV:END\n"
		"                        trace from one USDT probe to another as NAME\n"
		"  -k, --key FUNC=RULE   compare FUNC's executions only with those of the\n"
		"                        same argN[:log2], callsite, shape (probed calls\n"
		"                        made), or none; auto: the argument the report\n"
		"                        finds the work follows\n"
		"      --sync            also trace pthread lock, wait and barrier calls\n"
		"      --auto[=N]        sample the target first, then trace the functions\n"
		"                        with >= 1%% of the samples (or the top N)\n"
		"      --auto-time TIME  how long --auto samples (default 2s)\n"
		"      --sample N        record 1 in N calls of each function\n"
		"      --stack-period N  take the call stack of 1 in N calls (default\n"
		"                        10000) and of the first, for CALLED FROM\n"
		"  -d, --duration TIME   stop after TIME (e.g. 10, 10s, 500ms, 2m)\n"
		"      --ring-size SIZE  ring buffer per CPU (e.g. 512K, 4M; default 2M)\n"
		"      --top N           show the N functions with the highest SCI\n"
		"      --counters LIST   count perf events per call, e.g. cpu-clock,\n"
		"                        page-faults,cycles,instructions,cache-misses\n"
		"      --raw-event 0xN   count a raw PMU event per call (e.g. a HITM event)\n"
		"  -j, --json            write the report as JSON\n"
		"  -o, --output FILE     write the report to FILE\n"
		"  -h, --help            this help\n");
	if (mode == MODE_ATTACH)
		fprintf(f, "\nTraces until --duration, Ctrl-C, or the process exits.\n");
	else
		fprintf(f, "\nProbes are armed before CMD's first instruction; exits with CMD's status.\n");
}

static int usage_error(enum trace_mode mode, const char *fmt, const char *arg)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, arg);
	ispot_error("%s; %s", msg, usage_line(mode));
	return -1;
}

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

/* "4096", "512K", "4M", "1G" -> bytes; 0 on error. */
static uint64_t parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return 0;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
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

bool key_rule_parse(const char *s, struct key_rule *rule)
{
	memset(rule, 0, sizeof(*rule));
	if (!strcmp(s, "none")) {
		rule->kind = KEY_NONE;
		return true;
	}
	if (!strcmp(s, "callsite")) {
		rule->kind = KEY_CALLSITE;
		return true;
	}
	if (!strcmp(s, "auto")) {
		rule->kind = KEY_AUTO;
		return true;
	}
	if (!strcmp(s, "shape")) {
		rule->kind = KEY_SHAPE;
		return true;
	}
	if (strncmp(s, "arg", 3) || s[3] < '0' || s[3] > '2')
		return false;
	rule->kind = KEY_ARG;
	rule->arg = s[3] - '0';
	if (!s[4])
		return true;
	if (!strcmp(s + 4, ":log2")) {
		rule->log2 = true;
		return true;
	}
	return false;
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

/*
 * Calls whose duration depends on which object or how many bytes they are
 * given, so that comparing them across objects would blame interference
 * for work (Documentation/design.rst, "Keys by default").
 */
static const struct {
	const char *glob;
	struct key_rule rule;
} default_keys[] = {
	{ "pthread_mutex_*lock", { KEY_ARG, 0, false } },
	{ "pthread_rwlock_*lock", { KEY_ARG, 0, false } },
	{ "pthread_spin_*lock", { KEY_ARG, 0, false } },
	{ "pthread_cond_*wait", { KEY_ARG, 0, false } },
	{ "pthread_barrier_wait", { KEY_ARG, 0, false } },
	{ "sem_*wait", { KEY_ARG, 0, false } },
	{ "pthread_join", { KEY_ARG, 0, false } },
	{ "read", { KEY_ARG, 2, true } },
	{ "write", { KEY_ARG, 2, true } },
	{ "pread*", { KEY_ARG, 2, true } },
	{ "pwrite*", { KEY_ARG, 2, true } },
	{ "recv", { KEY_ARG, 2, true } },
	{ "send", { KEY_ARG, 2, true } },
};

/*
 * Whether --key's @glob names function @name: "foo@GLIBC_2.2.5" is keyed
 * like "foo", and "ns::f(int)" like "ns::f", as --func takes it.
 */
static bool key_glob_matches(const char *glob, const char *name)
{
	char base[512], bare[512];

	snprintf(base, sizeof(base), "%s", name);
	base[strcspn(base, "@")] = '\0';
	snprintf(bare, sizeof(bare), "%s", base);
	bare[demangle_bare_len(bare)] = '\0';
	return !fnmatch(glob, base, 0) || !fnmatch(glob, bare, 0) ||
	       !fnmatch(glob, name, 0);
}

struct key_rule trace_opts_key(const struct trace_opts *o, const char *name,
			       char *desc, size_t desclen)
{
	struct key_rule rule = { .kind = KEY_NONE };
	char base[512];
	size_t i;

	snprintf(base, sizeof(base), "%s", name);
	base[strcspn(base, "@")] = '\0';
	for (i = 0; i < sizeof(default_keys) / sizeof(default_keys[0]); i++)
		if (!fnmatch(default_keys[i].glob, base, 0))
			rule = default_keys[i].rule;
	for (i = 0; i < o->nr_keys; i++)
		if (key_glob_matches(o->keys[i].func, name))
			rule = o->keys[i].rule;
	key_rule_format(&rule, desc, desclen);
	return rule;
}

size_t trace_opts_unmatched_key(const struct trace_opts *o,
				const char *const *names, size_t n,
				char *err, size_t len)
{
	char rule[32], list[256] = "";
	size_t i, j, used = 0;

	for (i = 0; i < o->nr_keys; i++) {
		for (j = 0; j < n; j++)
			if (key_glob_matches(o->keys[i].func, names[j]))
				break;
		if (j < n)
			continue;
		for (j = 0; j < n && used < sizeof(list); j++)
			used += snprintf(list + used, sizeof(list) - used,
					 "%s%s", j ? ", " : "", names[j]);
		if (used >= sizeof(list))
			snprintf(list + sizeof(list) - 5, 5, "...");
		key_rule_format(&o->keys[i].rule, rule, sizeof(rule));
		snprintf(err, len, "--key '%s=%s': '%s' matches no traced "
			 "function (traced: %s); key one of those, or trace it "
			 "with --func", o->keys[i].func, rule[0] ? rule : "none",
			 o->keys[i].func, n ? list : "none");
		return i + 1;
	}
	return 0;
}

static int parse_key(enum trace_mode mode, char *arg, struct trace_opts *o)
{
	char *eq = strchr(arg, '=');

	if (o->nr_keys == OPT_MAX_KEYS)
		return usage_error(mode, "too many --key options (max %s)", "64");
	if (!eq || eq == arg)
		return usage_error(mode, "--key '%s' needs FUNC=RULE, e.g. "
				   "--key 'worker=arg0:log2'", arg);
	*eq = '\0';
	if (!key_rule_parse(eq + 1, &o->keys[o->nr_keys].rule)) {
		*eq = '=';
		return usage_error(mode, "--key '%s': the rule must be argN "
				   "(N = 0-2), argN:log2, callsite, shape, auto "
				   "or none", arg);
	}
	o->keys[o->nr_keys++].func = arg;
	return 0;
}

static const char *opt_name(const struct option *opts, int c)
{
	for (; opts->name; opts++)
		if (opts->val == c)
			return opts->name;
	return "?";
}

/* top watches a process of its own, or reads ispotd: one or the other. */
static int top_opts_check(struct trace_opts *o, int argc, char **argv)
{
	if (optind < argc)
		return usage_error(MODE_TOP, "unexpected argument '%s'",
				   argv[optind]);
	if (o->window_ns < o->refresh_ns)
		return usage_error(MODE_TOP, "--window must be at least "
				   "--refresh%s", "");
	if (o->from) {
		if (o->pid || o->nr_funcs || o->nr_keys || o->sync ||
		    o->sample)
			return usage_error(MODE_TOP, "--from reads what a "
					   "running ispotd traces: leave out "
					   "--pid, --func, --key, --sync and "
					   "--sample%s", "");
		return 0;
	}
	if (!o->pid && !o->nr_funcs && !o->sync)
		return usage_error(MODE_TOP, "top needs --pid PID with --func "
				   "SPEC, or --from ADDR:PORT%s", "");
	if (!o->nr_funcs && !o->sync)
		return usage_error(MODE_TOP, "nothing to trace: give --func "
				   "SPEC (e.g. --func 'worker_*')%s", "");
	if (!o->pid)
		return usage_error(MODE_TOP, "top needs --pid PID (or --from "
				   "ADDR:PORT)%s", "");
	return 0;
}

int trace_opts_parse(enum trace_mode mode, int argc, char **argv,
		     struct trace_opts *o)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "func", required_argument, NULL, 'f' },
		{ "block", required_argument, NULL, 'B' },
		{ "key", required_argument, NULL, 'k' },
		{ "sync", no_argument, NULL, 'S' },
		{ "auto", optional_argument, NULL, 'A' },
		{ "auto-time", required_argument, NULL, 'a' },
		{ "sample", required_argument, NULL, 's' },
		{ "stack-period", required_argument, NULL, 'P' },
		{ "duration", required_argument, NULL, 'd' },
		{ "ring-size", required_argument, NULL, 'r' },
		{ "top", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "counters", required_argument, NULL, 'C' },
		{ "raw-event", required_argument, NULL, 'R' },
		{ "from", required_argument, NULL, 'F' },
		{ "refresh", required_argument, NULL, 'I' },
		{ "window", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char host[256];
	const char *problem;
	uint16_t port;
	char err[400];
	uint32_t v;
	size_t i;
	int c;

	memset(o, 0, sizeof(*o));
	o->ring_bytes = OPT_DEFAULT_RING_BYTES;
	o->auto_time_ns = OPT_DEFAULT_AUTO_TIME_NS;
	o->refresh_ns = OPT_DEFAULT_REFRESH_NS;
	o->window_ns = OPT_DEFAULT_WINDOW_NS;
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option, so CMD's own options are its. */
	while ((c = getopt_long(argc, argv, "+p:f:k:d:jo:h", opts,
				NULL)) != -1) {
		/* A report's options mean nothing to a live view, and back. */
		if (mode == MODE_TOP && strchr("dtjoCRAaBP", c))
			return usage_error(mode, "--%s is for attach and run, "
					   "not top", opt_name(opts, c));
		if (mode != MODE_TOP && strchr("FIW", c))
			return usage_error(mode, "--%s is for top",
					   opt_name(opts, c));
		switch (c) {
		case 'p':
			if (mode == MODE_RUN)
				return usage_error(mode, "run starts its own "
						   "process: --pid%s is for "
						   "attach", "");
			if (!options_parse_u32(optarg, 1, &v) || v > INT_MAX)
				return usage_error(mode, "--pid '%s' is not a "
						   "process id", optarg);
			o->pid = v;
			break;
		case 'f':
			if (!*optarg)
				return usage_error(mode, "--func needs a "
						   "function name%s", "");
			if (o->nr_funcs == OPT_MAX_FUNCS)
				return usage_error(mode, "too many --func "
						   "options (max %s)", "256");
			o->funcs[o->nr_funcs++] = optarg;
			break;
		case 'B':
			if (!strchr(optarg, '='))
				return usage_error(mode, "--block wants NAME=[OBJ:]"
						   "PROV:BEGIN,PROV:END, not "
						   "'%s'", optarg);
			if (o->nr_blocks == OPT_MAX_FUNCS)
				return usage_error(mode, "too many --block "
						   "options (max %s)", "256");
			o->blocks[o->nr_blocks++] = optarg;
			break;
		case 'k':
			if (parse_key(mode, optarg, o))
				return -1;
			break;
		case 'S':
			o->sync = true;
			break;
		case 'A':
			o->auto_pick = true;
			if (optarg && !options_parse_u32(optarg, 1,
							 &o->auto_top))
				return usage_error(mode, "--auto=%s: N must be "
						   "a whole number >= 1",
						   optarg);
			break;
		case 'a':
			o->auto_time_ns = options_parse_duration(optarg);
			if (!o->auto_time_ns)
				return usage_error(mode, "--auto-time '%s' is "
						   "not a time such as 2s or "
						   "500ms", optarg);
			break;
		case 's':
			if (!options_parse_u32(optarg, 1, &o->sample))
				return usage_error(mode, "--sample '%s' must be "
						   "a whole number >= 1",
						   optarg);
			break;
		case 'P':
			if (!options_parse_u32(optarg, 1, &o->stack_period))
				return usage_error(mode, "--stack-period '%s' "
						   "must be a whole number >= 1 "
						   "(1: every call)", optarg);
			break;
		case 'd':
			o->duration_ns = options_parse_duration(optarg);
			if (!o->duration_ns)
				return usage_error(mode, "--duration '%s' is "
						   "not a time such as 10s or "
						   "500ms", optarg);
			break;
		case 'r':
			o->ring_bytes = options_parse_ring_size(optarg);
			if (!o->ring_bytes)
				return usage_error(mode, "--ring-size '%s' must "
						   "be a power of two from 4K "
						   "to 1G", optarg);
			break;
		case 't':
			if (!options_parse_u32(optarg, 1, &v))
				return usage_error(mode, "--top '%s' must be a "
						   "whole number >= 1", optarg);
			o->top = v;
			break;
		case 'j':
			o->json = true;
			break;
		case 'o':
			if (!*optarg)
				return usage_error(mode, "--output needs a file "
						   "name%s", "");
			o->output = optarg;
			break;
		case 'C':
			if (events_parse(optarg, o->counters, &o->nr_counters,
					 ISPOT_MAX_COUNTERS, err, sizeof(err)))
				return usage_error(mode, "%s", err);
			break;
		case 'R':
			if (events_parse_raw(optarg, o->counters,
					     &o->nr_counters,
					     ISPOT_MAX_COUNTERS, err,
					     sizeof(err)))
				return usage_error(mode, "%s", err);
			break;
		case 'F':
			problem = netaddr_split(optarg, host, sizeof(host),
						&port);
			if (problem) {
				snprintf(err, sizeof(err), "--from '%s' %s",
					 optarg, problem);
				return usage_error(mode, "%s", err);
			}
			o->from = optarg;
			break;
		case 'I':
			o->refresh_ns = options_parse_duration(optarg);
			if (o->refresh_ns < OPT_MIN_REFRESH_NS)
				return usage_error(mode, "--refresh '%s' must "
						   "be a time of 100ms or more",
						   optarg);
			break;
		case 'W':
			o->window_ns = options_parse_duration(optarg);
			if (!o->window_ns)
				return usage_error(mode, "--window '%s' is not "
						   "a time such as 5s", optarg);
			break;
		case 'h':
			trace_opts_usage(mode, stdout);
			return 1;
		default:
			if (optopt)
				return usage_error(mode, "option '-%c' is "
						   "unknown or lacks its value",
						   (const char[]){ optopt, 0 });
			return usage_error(mode, "option '%s' is unknown or "
					   "lacks its value",
					   argv[optind - 1]);
		}
	}
	if (mode == MODE_TOP)
		return top_opts_check(o, argc, argv);
	/*
	 * Sampling drops each probe's calls on its own, so an execution's
	 * recorded callees would be a random subset of its calls.
	 */
	for (i = 0; o->sample > 1 && i < o->nr_keys; i++)
		if (o->keys[i].rule.kind == KEY_SHAPE)
			return usage_error(mode, "--key '%s=shape' needs every "
					   "call recorded: drop --sample",
					   o->keys[i].func);
	if (!o->nr_funcs && !o->nr_blocks && !o->sync && !o->auto_pick)
		return usage_error(mode, "nothing to trace: give --func SPEC "
				   "(e.g. --func 'worker_*'), --block or --auto%s",
				   "");
	if (mode == MODE_ATTACH) {
		if (!o->pid)
			return usage_error(mode, "attach needs --pid PID%s",
					   "");
		if (optind < argc)
			return usage_error(mode, "unexpected argument '%s'",
					   argv[optind]);
		return 0;
	}
	if (optind >= argc)
		return usage_error(mode, "run needs a command after '--'%s",
				   "");
	o->cmd = argv + optind;
	return 0;
}
