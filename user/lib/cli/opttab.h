/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one option table of both front ends (Documentation/design.rst,
 * "Options"): every option of ispotctl's commands, of ispotd's command
 * line and of ispotd's config file, listed once with its long name, what
 * its value is, its help line and the commands that take it.  One parser
 * reads argv for any of them, and one reads the config file's "key value"
 * lines, both through the same function per kind of value; one printer
 * writes a command's help from the table; one function writes every
 * error line.  A front end only stores what a value parses to (a store
 * callback, a flat switch on the option) and checks what needs several
 * options at once.
 */
#ifndef ISPOT_OPTTAB_H
#define ISPOT_OPTTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/pipeline.h"

/* The commands an option is for: a bit each, in opt_def.cmds. */
enum opt_cmd {
	OPT_ATTACH	= 1 << 0,	/* ispotctl attach */
	OPT_RUN		= 1 << 1,	/* ispotctl run */
	OPT_TOP		= 1 << 2,	/* ispotctl top */
	OPT_RECORD	= 1 << 3,	/* ispotctl record */
	OPT_REPORT	= 1 << 4,	/* ispotctl report */
	OPT_DAEMON	= 1 << 5,	/* ispotd's command line */
	OPT_CONF	= 1 << 6,	/* ispotd's --config file */
	OPT_PLOT	= 1 << 7,	/* ispotctl plot */
	OPT_STATUS	= 1 << 8,	/* ispotctl status */
};

#define OPT_CTL		(OPT_ATTACH | OPT_RUN | OPT_TOP | OPT_RECORD | \
			 OPT_REPORT | OPT_PLOT | OPT_STATUS)

/* The options, one per meaning: top's --window is not ispotd's. */
enum opt_id {
	OPT_PID, OPT_EXE, OPT_CGROUP, OPT_FUNC, OPT_BLOCK, OPT_KEY, OPT_SYNC,
	OPT_AUTO, OPT_AUTO_TIME, OPT_WALL_FOLDED, OPT_SAMPLE, OPT_STACK_PERIOD, OPT_DURATION,
	OPT_BUDGET, OPT_DWINDOW, OPT_LOG, OPT_LISTEN, OPT_MAX_FUNCTIONS,
	OPT_RING_SIZE, OPT_TOPN, OPT_WIDE, OPT_ALL_FUTEXES, OPT_COUNTERS,
	OPT_RAW_EVENT, OPT_JSON, OPT_OUTPUT, OPT_RECORD_OUTPUT, OPT_MAX_SIZE,
	OPT_FOLDED, OPT_PERFETTO, OPT_PERFETTO_MAX_SIZE, OPT_BASELINE,
	OPT_HEADER, OPT_SVG, OPT_HTML, OPT_WINDOWS,
	OPT_FROM, OPT_REFRESH, OPT_WINDOW, OPT_CONFIG, OPT_SOLO_BLOCKS,
	OPT_DAUTO, OPT_DAUTO_TIME, OPT_AUTO_EVERY,
	OPT_HELP,
	OPT_NR
};

/* What an option's value is; one parsing function each (opt_kinds.c). */
enum opt_kind {
	OPTK_FLAG,		/* no value */
	OPTK_COUNT_OPT,		/* --auto[=N]: N >= 1, or nothing */
	OPTK_PID,		/* a process id */
	OPTK_TEXT,		/* a non-empty string: a path, a SPEC */
	OPTK_COUNT,		/* a whole number >= 1 */
	OPTK_DURATION,		/* 10s, 500ms, 2m: at least opt_def.min */
	OPTK_SIZE,		/* a ring size: a power of two, 4K to 1G */
	OPTK_BYTES,		/* a size: 4K or more, K/M/G suffixes */
	OPTK_PERCENT,		/* 1%, 0.5%, 0 */
	OPTK_KEY,		/* FUNC=RULE */
	OPTK_BLOCK,		/* NAME=[OBJ:]PROV:BEGIN,PROV:END */
	OPTK_COUNTERS,		/* cycles,page-faults...: the store checks */
	OPTK_RAW_EVENT,		/* 0xN: the store checks */
	OPTK_ADDR,		/* HOST:PORT, [V6ADDR]:PORT */
	OPTK_HELP,
};

/*
 * A --func spec that names a block of USDT markers rather than a
 * function: "block:NAME" (include/ispot.h's markers) or, as ispotd passes
 * its --block on, "block:NAME=[OBJ:]PROV:BEGIN,PROV:END"; OPTK_BLOCK
 * refuses a NAME=... that would not fit.
 */
#define OPT_BLOCK_PREFIX	"block:"
#define OPT_BLOCK_SPEC_MAX	1024

/* top's --refresh: a redraw at most ten times a second. */
#define OPT_MIN_REFRESH_NS	(100 * 1000 * 1000ull)
/* ispotd's --window: a window of less than a second says nothing. */
#define OPT_MIN_DWINDOW_NS	(1000 * 1000 * 1000ull)
/* --solo-blocks' largest share. */
#define OPT_MAX_SOLO_SHARE	0.5

struct opt_def {
	enum opt_id id;
	const char *name;	/* long name; NULL: a heading line of help */
	char short_name;	/* ispotctl's -p etc.; ispotd takes -h only */
	enum opt_kind kind;
	const char *arg;	/* in the help: "PID", "TIME" */
	/* Help, '\n' between its lines; a heading's text. */
	const char *help;
	unsigned int cmds;	/* OPT_ATTACH | ...: who takes it */
	/*
	 * What an error names: OPTK_TEXT "a function name"; OPTK_DURATION
	 * "10s or 500ms"; OPTK_COUNT an addition such as "(1: every call)".
	 */
	const char *what;
	uint64_t min;		/* OPTK_DURATION: the shortest, ns */
};

/* A value as its kind parses it, for the front end's store. */
struct opt_val {
	const struct opt_def *def;
	const char *opt;	/* as spelled where it came from: "--budget", */
				/* "budget" in the file */
	char *str;		/* as given (writable); NULL: a flag */
	uint64_t u64;		/* count, pid, duration ns, size in bytes */
	double fraction;	/* OPTK_PERCENT: 0.01 is 1% */
	struct key_rule rule;	/* OPTK_KEY; FUNC is str[0, func_len) */
	size_t func_len;
	unsigned int line;	/* its line in the file; 0: the command line */
};

/*
 * Store @v; 0, or -1 with the one-line message in @err (without the
 * usage suffix, which the caller adds), or -1 with @err empty when the
 * store printed its own line.
 */
typedef int (*opt_store_fn)(void *ctx, const struct opt_val *v, char *err,
			    size_t errlen);

/* A command: how its help starts and ends, and what its errors end with. */
struct opt_cmd_info {
	unsigned int cmd;		/* one OPT_* bit */
	const char *name;		/* "attach", "ispotd" */
	const char *usage;		/* "usage: ...", may be two lines */
	const char *intro;		/* after the usage, or NULL */
	const char *outro;		/* after the options, or NULL */
	/* After "MSG; " in an error: the usage line, or "see ispotd --help" */
	const char *see;
};

/* Where values come from, for the error line: argv, or FILE:LINE. */
struct opt_src {
	const struct opt_cmd_info *cmd;
	const char *path;		/* NULL: the command line */
	unsigned int line;		/* 0: the file as a whole */
};

extern const struct opt_def opt_table[];
extern const size_t opt_table_len;

/*
 * Parse argv (argv[0] is the command) for @cmd, calling @store for each
 * option.  Stops at the first operand, or after "--", and says where in
 * *@next.  Returns 0, 1 when --help was printed on stdout, or -1 after
 * printing one error line.
 */
int opt_parse_argv(const struct opt_cmd_info *cmd, int argc, char **argv,
		   opt_store_fn store, void *ctx, int *next);

/*
 * Read @path's "key value" lines ('#' comments, blank lines) as the
 * options of OPT_CONF, with the file's errors at FILE:LINE.  Returns 0,
 * or -1 after printing one error line.
 */
int opt_parse_file(const struct opt_cmd_info *cmd, const char *path,
		   opt_store_fn store, void *ctx);

/* @cmd's help, from the table. */
void opt_usage(const struct opt_cmd_info *cmd, FILE *f);

/* One error line, "[FILE[:LINE]: ]MSG; SEE".  Returns -1. */
int opt_error(const struct opt_src *src, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Value parsers, for every program to read a time, a size or a count the
 * same way.
 *
 * options_parse_duration: "10", "10s", "1.5s", "500ms", "2m", "250us",
 * "1h" -> ns; 0 if @s is not a positive time.
 * options_parse_ring_size: "4096", "512K", "4M", "1G" (optionally "KiB",
 * "MB"...) -> bytes; 0 unless it is a power of two from 4K to 1G.
 * options_parse_bytes: the same spellings -> bytes, any size from @min;
 * 0 if it is not one (or does not fit 64 bits).
 * options_parse_u32: a whole decimal number from @min to UINT32_MAX.
 * options_parse_percent: "1%", "0.5%", "1" (a percentage too), "0" ->
 * 0.01, 0.005, 0.01, 0; digits and a point only, from 0 to 100.
 */
uint64_t options_parse_duration(const char *s);
uint64_t options_parse_ring_size(const char *s);
uint64_t options_parse_bytes(const char *s, uint64_t min);
bool options_parse_u32(const char *s, uint32_t min, uint32_t *out);
bool options_parse_percent(const char *s, double *out);

/* "arg1:log2" and friends; false if @s is not a key rule. */
bool key_rule_parse(const char *s, struct key_rule *rule);
void key_rule_format(const struct key_rule *rule, char *buf, size_t len);

#endif /* ISPOT_OPTTAB_H */
