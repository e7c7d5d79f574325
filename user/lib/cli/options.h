/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of ispotctl's commands (Documentation/usage.rst,
 * "Commands"), read through the option table that ispotd shares
 * (opttab.h), so every command and ispotd accept exactly the same
 * spelling and give the same errors.
 */
#ifndef ISPOT_OPTIONS_H
#define ISPOT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli/events.h"
#include "cli/opttab.h"
#include "analysis/pipeline.h"

struct elf_target_sym;

#define OPT_MAX_FUNCS	256
/* A bit for each --func (i) and --block (OPT_MAX_FUNCS + i): trace.h. */
#define OPT_SPEC_BITS		(2 * OPT_MAX_FUNCS)
#define OPT_SPEC_WORDS		(OPT_SPEC_BITS / 64)
#define OPT_MAX_KEYS	64
/* 2 MiB per CPU holds ~25 ms of a million records per second. */
#define OPT_DEFAULT_RING_BYTES	(2u << 20)

/*
 * OPT_BLOCK_PREFIX ("block:NAME" as a --func spec), OPT_BLOCK_SPEC_MAX
 * and OPT_MIN_REFRESH_NS are the option table's (opttab.h).
 */

/*
 * --key FUNC=argN[:log2] | callsite | shape | auto | none, split at the
 * last '='; FUNC is any --func SPEC (elf_spec_matches()).
 */
struct key_opt {
	char *func;
	struct key_rule rule;
};

struct trace_opts {
	pid_t pid;			/* attach: --pid */
	const char *funcs[OPT_MAX_FUNCS];
	size_t nr_funcs;
	/* --block NAME=[OBJ:]PROV:BEGIN,PROV:END, as given */
	const char *blocks[OPT_MAX_FUNCS];
	size_t nr_blocks;
	struct key_opt keys[OPT_MAX_KEYS];
	size_t nr_keys;
	bool sync;			/* --sync: pthread waits too */
	bool auto_pick;			/* --auto[=N]: sample, then choose */
	uint32_t auto_top;		/* N of --auto=N, 0: the 1% rule */
	uint64_t auto_time_ns;		/* --auto-time: how long to sample */
	const char *wall_folded;	/* --wall-folded FILE, with --auto */
	/* Functions chosen already (ispotd --auto's picks), after funcs. */
	const struct elf_target_sym *syms;
	size_t nr_syms;
	uint32_t sample;		/* --sample N: 1 in N, 0 = all */
	uint32_t stack_period;		/* --stack-period N, 0 = module's; */
					/* ispotctl: OPT_DEFAULT_STACK_PERIOD */
	uint64_t duration_ns;		/* --duration: 0 = until the end */
	uint64_t ring_bytes;		/* --ring-size: per CPU */
	bool json;
	const char *output;		/* --output FILE */
	const char *folded;		/* --folded FILE */
	const char *perfetto;		/* --perfetto FILE */
	uint64_t perfetto_max_size;	/* --perfetto-max-size */
	const char *svg;		/* --svg DIR */
	const char *html;		/* --html FILE */
	const char *record;		/* record: its --output FILE */
	uint64_t max_size;		/* record: --max-size */
	const char *recording;		/* report: the FILE it reads */
	const char *baseline;		/* --baseline FILE: a recording */
	bool header;			/* report --header: no report */
	double solo_share;		/* --solo-blocks: share of the run */
	/* The most of the run blocks cover; 0: solo_sched's default. */
	double solo_cover;
	/* ispotd's bursts: the first block unpaid (solo_sched_burst()). */
	bool solo_burst;
	char **record_argv;		/* record: its command line, kept */
	int record_argc;		/* in the recording */
	size_t top;			/* --top N rows, 0 = all */
	bool wide;			/* --wide: C++ names whole */
	bool all_futexes;		/* --all-futexes */
	/*
	 * ispotd: a --func or --block the target lacks is left out (trace.h's
	 * unresolved says which), not an error; one --func is for every
	 * target, and each program has its own functions.  Those set in
	 * skip_specs (OPT_SPEC_BIT()), found lacking before, are taken as
	 * lacking again without a search.
	 */
	bool funcs_optional;
	const uint64_t *skip_specs;
	/*
	 * ispotd: a target that ends before it is traced is routine (the
	 * short-lived processes an --exe finds), no line; ispotctl's one
	 * target ending so is an error it says.
	 */
	bool gone_quiet;
	/* --counters NAME,... and --raw-event 0xN, in the order given */
	struct event_spec counters[ISPOT_MAX_COUNTERS];
	size_t nr_counters;
	char **cmd;			/* run: what follows "--" */
	/* top */
	const char *from;		/* --from ADDR:PORT: ispotd's metrics */
	uint64_t refresh_ns;		/* --refresh: redraw period */
	uint64_t window_ns;		/* --window: what the figures cover */
};

/*
 * record's --max-size, and --perfetto-max-size, unless given: a bound no
 * one hits by surprise, that keeps a long trace from filling a disk.
 */
#define OPT_DEFAULT_MAX_SIZE		(1ull << 30)

/* MODE_TOP is an attach as far as the session goes, with a live view. */
enum trace_mode { MODE_ATTACH, MODE_RUN, MODE_TOP };

#define OPT_DEFAULT_AUTO_TIME_NS	(2 * 1000 * 1000 * 1000ull)
/*
 * --solo-blocks: a pool of n threads that spend all their time in traced
 * functions runs about 1/n as fast during a block, so its threads' waits
 * at the gate, which the share bounds, are what the program loses.
 * Measured, a block costs a sleeping pool up to about 1.2 times its waits
 * (Documentation/solo-blocks.rst, "Cost"): 2% keeps the slowdown within
 * 3%, the most a default may cost, with room for that.  ispotd's bursts
 * have --budget over them, and keep ISPOTD_DEFAULT_SOLO_SHARE.
 */
#define OPT_DEFAULT_SOLO_SHARE		0.02
/*
 * ispotctl's --stack-period: enough stacks for CALLED FROM to show paths
 * in a short trace, at a hundredth of a stack walk per call
 * (Documentation/usage.rst, "Call stacks").  A prime, so that a loop's
 * rhythm (three calls from here, one from there) does not lock the
 * samples onto one of its calls.  ispotd and top show no stacks and leave
 * the module's 10000.
 */
#define OPT_DEFAULT_STACK_PERIOD	101
#define OPT_DEFAULT_REFRESH_NS	(1000 * 1000 * 1000ull)
#define OPT_DEFAULT_WINDOW_NS	(5 * 1000 * 1000 * 1000ull)

/*
 * Parse argv (argv[0] is the subcommand).  Returns 0, 1 when --help was
 * printed, or -1 after printing a one-line usage error.
 */
int trace_opts_parse(enum trace_mode mode, int argc, char **argv,
		     struct trace_opts *o);
void trace_opts_usage(enum trace_mode mode, FILE *f);

/*
 * `record`: run's options and the command after "--", or attach's
 * --pid and no command; *@mode says which.  `report`: the recording's
 * path and the options that shape a report.  Both return as
 * trace_opts_parse().
 */
int trace_opts_parse_record(int argc, char **argv, struct trace_opts *o,
			    enum trace_mode *mode);
int trace_opts_parse_report(int argc, char **argv, struct trace_opts *o);

/* What a --key is matched against: one traced function or block. */
struct key_target {
	const char *obj;	/* canonical path of its object */
	const char *name;	/* display name: "foo@V1", "ns::f(int)" */
	const char *linkage;	/* C++ mangled name, else "" or NULL */
};

/*
 * The key rule for @f: the last matching --key wins, else the defaults
 * for calls whose work depends on an argument (the object of a pthread
 * lock, wait or barrier; the size of a read or write).  Writes the
 * rule's name ("arg0", "arg2:log2", "callsite", "" for none) to @desc.
 */
struct key_rule trace_opts_key(const struct trace_opts *o,
			       const struct key_target *f, char *desc,
			       size_t desclen);

/*
 * The last --key that matches @f into *@rule, if any: whether one did.
 * `report FILE --key` re-keys a recording's functions by it.
 */
bool trace_opts_key_given(const struct trace_opts *o,
			  const struct key_target *f, struct key_rule *rule);

/*
 * A --key that names none of the @n traced functions @fs is a typo or
 * a function that was not traced: its index + 1, with the one-line
 * message for it in @err ("--key 'wrker=shape': 'wrker' matches no traced
 * function (traced: worker, flush); ..."), or 0 when every key matches.
 */
size_t trace_opts_unmatched_key(const struct trace_opts *o,
				const struct key_target *fs, size_t n,
				char *err, size_t len);

#endif /* ISPOT_OPTIONS_H */
