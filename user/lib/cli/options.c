// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl's options: what each command is in the option table's terms,
 * where its values go, the checks that span several options, and which
 * --key a traced function takes; see options.h.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf.h"
#include "util/errors.h"
#include "cli/options.h"

#define USAGE_ATTACH \
	"usage: ispotctl attach --pid PID (--func SPEC [--func SPEC]... | " \
	"--auto[=N]) [OPTIONS]"
#define USAGE_RUN \
	"usage: ispotctl run (--func SPEC [--func SPEC]... | --auto[=N]) " \
	"[OPTIONS] -- CMD [ARG]..."
#define USAGE_TOP \
	"usage: ispotctl top (--pid PID --func SPEC... | --from ADDR:PORT) " \
	"[OPTIONS]"

#define USAGE_RECORD \
	"usage: ispotctl record -o FILE|- (--func SPEC... | --auto[=N]) " \
	"[OPTIONS] (-- CMD [ARG]... | --pid PID)"
#define USAGE_REPORT \
	"usage: ispotctl report FILE|- [--key FUNC=RULE]... [OPTIONS]"

/* An error ends with the command's usage line. */
static const struct opt_cmd_info cmd_infos[] = {
	[MODE_ATTACH] = { OPT_ATTACH, "attach", USAGE_ATTACH, NULL,
		"Traces until --duration, Ctrl-C, or the process exits.",
		USAGE_ATTACH },
	[MODE_RUN] = { OPT_RUN, "run", USAGE_RUN, NULL,
		"Probes are armed before CMD's first instruction; exits with "
		"CMD's status.", USAGE_RUN },
	[MODE_TOP] = { OPT_TOP, "top", USAGE_TOP, NULL,
		"Keys: q quits, s changes the sort (SCI, loss, calls, p99), p "
		"pauses.\nNeeds a terminal; ends with the process (or ispotd), "
		"q or Ctrl-C.", USAGE_TOP },
};

static const struct opt_cmd_info record_info = {
	OPT_RECORD, "record", USAGE_RECORD, NULL,
	"Traces as run (with -- CMD) or attach (with --pid) do, prints the "
	"same report,\nand writes the records and what names them to FILE "
	"for `ispotctl report`.", USAGE_RECORD
};

static const struct opt_cmd_info report_info = {
	OPT_REPORT, "report", USAGE_REPORT, NULL,
	"Re-analyses a recording of `ispotctl record`: no module, no "
	"target.\nFILE - reads it from standard input.",
	USAGE_REPORT
};

void trace_opts_usage(enum trace_mode mode, FILE *f)
{
	opt_usage(&cmd_infos[mode], f);
}

static int add_ptr(const char **list, size_t *nr, const char *opt,
		   const char *val, char *err, size_t len)
{
	if (*nr == OPT_MAX_FUNCS) {
		snprintf(err, len, "too many %s options (max %d)", opt,
			 OPT_MAX_FUNCS);
		return -1;
	}
	list[(*nr)++] = val;
	return 0;
}

static int add_key(struct trace_opts *o, const struct opt_val *v, char *err,
		   size_t len)
{
	if (o->nr_keys == OPT_MAX_KEYS) {
		snprintf(err, len, "too many %s options (max %d)", v->opt,
			 OPT_MAX_KEYS);
		return -1;
	}
	/* FUNC=RULE split in place: the rule is parsed already. */
	v->str[v->func_len] = '\0';
	o->keys[o->nr_keys].func = v->str;
	o->keys[o->nr_keys++].rule = v->rule;
	return 0;
}

/*
 * Where an option that only sets one member goes in a trace_opts, and as
 * what: the table below, checked by the compiler against the member's
 * type, since a wrong one would write past it.
 */
enum slot_type { SLOT_NONE, SLOT_FLAG, SLOT_TEXT, SLOT_U32, SLOT_U64,
		 SLOT_SIZE, SLOT_PID };

struct slot {
	enum slot_type type;
	size_t offset;
};

/* 0, or a compile error unless @member of a trace_opts is a @ctype. */
#define MEMBER_IS(member, ctype)					\
	(sizeof(char[__builtin_types_compatible_p(			\
		typeof(((struct trace_opts *)0)->member), ctype) ? 1 : -1]) - 1)
#define SLOT(member, type, ctype)					\
	{ type, offsetof(struct trace_opts, member) + MEMBER_IS(member, ctype) }
#define AS_FLAG(member)	SLOT(member, SLOT_FLAG, bool)
#define AS_TEXT(member)	SLOT(member, SLOT_TEXT, const char *)
#define AS_U32(member)	SLOT(member, SLOT_U32, uint32_t)
#define AS_U64(member)	SLOT(member, SLOT_U64, uint64_t)
#define AS_SIZE(member)	SLOT(member, SLOT_SIZE, size_t)
#define AS_PID(member)	SLOT(member, SLOT_PID, pid_t)

static const struct slot slots[OPT_NR] = {
	[OPT_PID] = AS_PID(pid),
	[OPT_SYNC] = AS_FLAG(sync),
	[OPT_AUTO_TIME] = AS_U64(auto_time_ns),
	[OPT_WALL_FOLDED] = AS_TEXT(wall_folded),
	[OPT_SAMPLE] = AS_U32(sample),
	[OPT_STACK_PERIOD] = AS_U32(stack_period),
	[OPT_DURATION] = AS_U64(duration_ns),
	[OPT_RING_SIZE] = AS_U64(ring_bytes),
	[OPT_TOPN] = AS_SIZE(top),
	[OPT_WIDE] = AS_FLAG(wide),
	[OPT_ALL_FUTEXES] = AS_FLAG(all_futexes),
	[OPT_JSON] = AS_FLAG(json),
	[OPT_OUTPUT] = AS_TEXT(output),
	[OPT_RECORD_OUTPUT] = AS_TEXT(record),
	[OPT_MAX_SIZE] = AS_U64(max_size),
	[OPT_FOLDED] = AS_TEXT(folded),
	[OPT_PERFETTO] = AS_TEXT(perfetto),
	[OPT_PERFETTO_MAX_SIZE] = AS_U64(perfetto_max_size),
	[OPT_SVG] = AS_TEXT(svg),
	[OPT_HTML] = AS_TEXT(html),
	[OPT_BASELINE] = AS_TEXT(baseline),
	[OPT_HEADER] = AS_FLAG(header),
	[OPT_FROM] = AS_TEXT(from),
	[OPT_REFRESH] = AS_U64(refresh_ns),
	[OPT_WINDOW] = AS_U64(window_ns),
};

/* @v into its slot of @o; -1 for an option without one. */
static int slot_store(struct trace_opts *o, const struct opt_val *v,
		      char *err, size_t len)
{
	const struct slot *s = &slots[v->def->id];
	void *member = (char *)o + s->offset;

	switch (s->type) {
	case SLOT_FLAG:
		*(bool *)member = true;
		return 0;
	case SLOT_TEXT:
		*(const char **)member = v->str;
		return 0;
	case SLOT_U32:
		*(uint32_t *)member = v->u64;
		return 0;
	case SLOT_U64:
		*(uint64_t *)member = v->u64;
		return 0;
	case SLOT_SIZE:
		*(size_t *)member = v->u64;
		return 0;
	case SLOT_PID:
		*(pid_t *)member = v->u64;
		return 0;
	case SLOT_NONE:
		break;
	}
	/* An option the table gives this command without a place. */
	snprintf(err, len, "%s is not handled", v->opt);
	return -1;
}

/* Where each option of the table goes in a trace_opts. */
static int trace_opts_store(void *ctx, const struct opt_val *v, char *err,
			    size_t len)
{
	struct trace_opts *o = ctx;

	switch (v->def->id) {
	case OPT_RECORD_OUTPUT:
		/*
		 * record's -o is the recording: a second one (a report file,
		 * as run's -o is) would silently move the recording there.
		 */
		if (o->record) {
			snprintf(err, len, "%s is given twice ('%s', then "
				 "'%s'): record's -o names the recording, and "
				 "its report goes to stdout (redirect it)",
				 v->opt, o->record, v->str);
			return -1;
		}
		return slot_store(o, v, err, len);
	case OPT_FUNC:
		return add_ptr(o->funcs, &o->nr_funcs, v->opt, v->str, err,
			       len);
	case OPT_BLOCK:
		return add_ptr(o->blocks, &o->nr_blocks, v->opt, v->str, err,
			       len);
	case OPT_KEY:
		return add_key(o, v, err, len);
	case OPT_AUTO:
		o->auto_pick = true;
		o->auto_top = v->u64;
		return 0;
	case OPT_SOLO_BLOCKS:
		o->solo_share = v->fraction;
		return 0;
	case OPT_COUNTERS:
		return events_parse(v->str, o->counters, &o->nr_counters,
				    ISPOT_MAX_COUNTERS, err, len) ? -1 : 0;
	case OPT_RAW_EVENT:
		return events_parse_raw(v->str, o->counters, &o->nr_counters,
					ISPOT_MAX_COUNTERS, err, len) ? -1 : 0;
	default:
		return slot_store(o, v, err, len);
	}
}

/* top watches a process of its own, or reads ispotd: one or the other. */
static int top_opts_check(const struct opt_src *src, struct trace_opts *o)
{
	if (o->window_ns < o->refresh_ns)
		return opt_error(src, "--window must be at least --refresh");
	if (o->from) {
		if (o->pid || o->nr_funcs || o->nr_keys || o->sync ||
		    o->sample)
			return opt_error(src, "--from reads what a running "
					 "ispotd traces: leave out --pid, "
					 "--func, --key, --sync and --sample");
		return 0;
	}
	if (!o->pid && !o->nr_funcs && !o->sync)
		return opt_error(src, "top needs --pid PID with --func SPEC, "
				 "or --from ADDR:PORT");
	if (!o->nr_funcs && !o->sync)
		return opt_error(src, "nothing to trace: give --func SPEC (e.g. "
				 "--func 'worker_*')");
	if (!o->pid)
		return opt_error(src, "top needs --pid PID (or --from "
				 "ADDR:PORT)");
	return 0;
}

/* --perfetto-max-size bounds a trace: one to bound, else its default. */
static int perfetto_opts_check(const struct opt_src *src,
			       struct trace_opts *o)
{
	/* 0: not given (the parser refuses a size under 4K). */
	if (o->perfetto_max_size && !o->perfetto)
		return opt_error(src, "--perfetto-max-size bounds the "
				 "--perfetto trace: add --perfetto FILE");
	if (!o->perfetto_max_size)
		o->perfetto_max_size = OPT_DEFAULT_MAX_SIZE;
	return 0;
}

/* attach and run: something to trace, and the process to trace it in. */
static int trace_opts_check(const struct opt_src *src, struct trace_opts *o,
			    int argc, char **argv, int next, bool run)
{
	int ret = perfetto_opts_check(src, o);
	size_t i;

	if (ret)
		return ret;
	/*
	 * Sampling drops each probe's calls on its own, so an execution's
	 * recorded callees would be a random subset of its calls.
	 */
	for (i = 0; o->sample > 1 && i < o->nr_keys; i++)
		if (o->keys[i].rule.kind == KEY_SHAPE)
			return opt_error(src, "--key '%s=shape' needs every "
					 "call recorded: drop --sample",
					 o->keys[i].func);
	if (o->wall_folded && !o->auto_pick)
		return opt_error(src, "--wall-folded writes what --auto "
				 "samples: add --auto");
	/* 0: not given (the parser refuses --auto-time 0). */
	if (o->auto_time_ns && !o->auto_pick)
		return opt_error(src, "--auto-time is how long --auto "
				 "samples: add --auto");
	if (!o->auto_time_ns)
		o->auto_time_ns = OPT_DEFAULT_AUTO_TIME_NS;
	if (!o->nr_funcs && !o->nr_blocks && !o->sync && !o->auto_pick)
		return opt_error(src, "nothing to trace: give --func SPEC "
				 "(e.g. --func 'worker_*'), --block or --auto");
	if (run) {
		if (next >= argc)
			return opt_error(src, "%s needs a command after '--'%s",
					 src->cmd->name, src->cmd->cmd ==
					 OPT_RUN ? "" : " (or --pid PID)");
		o->cmd = argv + next;
		return 0;
	}
	if (!o->pid)
		return opt_error(src, "attach needs --pid PID");
	return 0;
}

/* @o as given on @src's command line; returns as opt_parse_argv(). */
static int parse_with_defaults(const struct opt_src *src, enum trace_mode mode,
			       int argc, char **argv, struct trace_opts *o,
			       int *next)
{
	*o = (struct trace_opts){
		.ring_bytes = OPT_DEFAULT_RING_BYTES,
		/* Set by trace_opts_check() unless given: it says if it was. */
		.auto_time_ns = 0,
		.refresh_ns = OPT_DEFAULT_REFRESH_NS,
		.window_ns = OPT_DEFAULT_WINDOW_NS,
		.max_size = OPT_DEFAULT_MAX_SIZE,
		.stack_period = mode == MODE_TOP ? 0 : OPT_DEFAULT_STACK_PERIOD,
		/* top shows live figures, not references: no blocks. */
		.solo_share = mode == MODE_TOP ? 0 : OPT_DEFAULT_SOLO_SHARE,
	};
	return opt_parse_argv(src->cmd, argc, argv, trace_opts_store, o, next);
}

int trace_opts_parse_record(int argc, char **argv, struct trace_opts *o,
			    enum trace_mode *mode)
{
	const struct opt_src src = { .cmd = &record_info };
	const char *why;
	int next, ret;

	ret = parse_with_defaults(&src, MODE_RUN, argc, argv, o, &next);
	if (ret)
		return ret;
	if (!o->record)
		return opt_error(&src, "record needs -o FILE, the recording "
				 "to write");
	/* Else the report, written there too, would end up in the stream. */
	if (!strcmp(o->record, "/dev/stdout"))
		o->record = "-";
	/*
	 * On a terminal its bytes would only garble it; closed, fd 1 would
	 * be the next file opened (the device), taken for standard output.
	 */
	why = strcmp(o->record, "-") ? NULL :
	      fcntl(STDOUT_FILENO, F_GETFD) < 0 ? "closed" :
	      isatty(STDOUT_FILENO) ? "a terminal" : NULL;
	if (why)
		return opt_error(&src, "-o -: standard output is %s: pipe "
				 "the recording (-o - | ...) or give -o a "
				 "file", why);
	if (o->pid && next < argc)
		return opt_error(&src, "give a command after '--' or --pid, "
				 "not both");
	*mode = o->pid ? MODE_ATTACH : MODE_RUN;
	/* As run or attach checks it; the error names record. */
	return trace_opts_check(&src, o, argc, argv, next, *mode == MODE_RUN);
}

/*
 * --header prints what the recording holds and makes no report: an
 * option that shapes or writes a report would be silently ignored.
 * --json gives the same as JSON.
 */
static int header_check(const struct opt_src *src,
			const struct trace_opts *o)
{
	const char *with = o->output ? "--output" :
			   o->folded ? "--folded" :
			   o->perfetto ? "--perfetto" :
			   o->perfetto_max_size ? "--perfetto-max-size" :
			   o->svg ? "--svg" :
			   o->html ? "--html" : o->baseline ? "--baseline" :
			   o->wall_folded ? "--wall-folded" :
			   o->nr_keys ? "--key" : o->top ? "--top" :
			   o->wide ? "--wide" :
			   o->all_futexes ? "--all-futexes" : NULL;

	if (o->header && with)
		return opt_error(src, "--header prints what the recording "
				 "holds, not a report: give %s without it",
				 with);
	return 0;
}

int trace_opts_parse_report(int argc, char **argv, struct trace_opts *o)
{
	const struct opt_src src = { .cmd = &report_info };
	int next, ret;

	ret = parse_with_defaults(&src, MODE_RUN, argc, argv, o, &next);
	if (ret)
		return ret;
	if (next >= argc)
		return opt_error(&src, "report needs the recording to read");
	o->recording = argv[next];
	/* Options may follow FILE too: FILE stands where argv[0] would. */
	argc -= next;
	argv += next;
	ret = opt_parse_argv(src.cmd, argc, argv, trace_opts_store, o, &next);
	if (ret)
		return ret;
	if (next < argc)
		return opt_error(&src, "unexpected argument '%s'", argv[next]);
	/* --header first: its line names whatever shapes a report. */
	ret = header_check(&src, o);
	if (ret)
		return ret;
	return perfetto_opts_check(&src, o);
}

int trace_opts_parse(enum trace_mode mode, int argc, char **argv,
		     struct trace_opts *o)
{
	const struct opt_src src = { .cmd = &cmd_infos[mode] };
	int next, ret;

	ret = parse_with_defaults(&src, mode, argc, argv, o, &next);
	if (ret)
		return ret;
	if (mode != MODE_RUN && next < argc)
		return opt_error(&src, "unexpected argument '%s'", argv[next]);
	if (mode == MODE_TOP)
		return top_opts_check(&src, o);
	return trace_opts_check(&src, o, argc, argv, next, mode == MODE_RUN);
}

/*
 * Calls whose duration depends on which object or how many bytes they are
 * given, so that comparing them across objects would blame interference
 * for work (Documentation/design.rst, "Keys by default").
 */
#define BY_OBJECT	{ KEY_ARG, 0, false }	/* arg0: the lock, the thread */
#define BY_SIZE		{ KEY_ARG, 2, true }	/* arg2:log2: the byte count */

static const struct {
	const char *glob;
	struct key_rule rule;
} default_keys[] = {
	{ "pthread_mutex_*lock", BY_OBJECT },
	{ "pthread_rwlock_*lock", BY_OBJECT },
	{ "pthread_spin_*lock", BY_OBJECT },
	{ "pthread_cond_*wait", BY_OBJECT },
	{ "pthread_barrier_wait", BY_OBJECT },
	{ "sem_*wait", BY_OBJECT },
	{ "pthread_join", BY_OBJECT },
	{ "read", BY_SIZE },
	{ "write", BY_SIZE },
	{ "pread*", BY_SIZE },
	{ "pwrite*", BY_SIZE },
	{ "recv", BY_SIZE },
	{ "send", BY_SIZE },
};

struct key_rule trace_opts_key(const struct trace_opts *o,
			       const struct key_target *f, char *desc,
			       size_t desclen)
{
	struct key_rule rule = { .kind = KEY_NONE };
	char base[512];
	size_t i;

	snprintf(base, sizeof(base), "%s", f->name);
	base[strcspn(base, "@")] = '\0';
	for (i = 0; i < sizeof(default_keys) / sizeof(default_keys[0]); i++)
		if (!fnmatch(default_keys[i].glob, base, 0))
			rule = default_keys[i].rule;
	trace_opts_key_given(o, f, &rule);
	key_rule_format(&rule, desc, desclen);
	return rule;
}

bool trace_opts_key_given(const struct trace_opts *o,
			  const struct key_target *f, struct key_rule *rule)
{
	bool given = false;
	size_t i;

	for (i = 0; i < o->nr_keys; i++) {
		if (elf_spec_matches(o->keys[i].func, f->obj, f->name,
				     f->linkage)) {
			*rule = o->keys[i].rule;
			given = true;
		}
	}
	return given;
}

size_t trace_opts_unmatched_key(const struct trace_opts *o,
				const struct key_target *fs, size_t n,
				char *err, size_t len)
{
	char rule[32], list[256] = "";
	size_t i, j, used = 0;

	for (i = 0; i < o->nr_keys; i++) {
		for (j = 0; j < n; j++)
			if (elf_spec_matches(o->keys[i].func, fs[j].obj,
					     fs[j].name, fs[j].linkage))
				break;
		if (j < n)
			continue;
		for (j = 0; j < n && used < sizeof(list); j++)
			used += snprintf(list + used, sizeof(list) - used,
					 "%s%s", j ? ", " : "", fs[j].name);
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
