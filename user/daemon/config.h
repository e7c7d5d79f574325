/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ispotd's options (Documentation/ispotd.rst, "Running it"), from argv and
 * from the file named by --config, which takes the same options one per
 * line:
 *
 *	# comment
 *	exe /usr/bin/app
 *	func acquire		# a comment after whitespace
 *	budget 0.5%
 *	sync
 *
 * Merging: the lists (pid, exe, cgroup, func, key) are the union, the
 * command line's first, without duplicates; a scalar given on the command
 * line wins over the file's, which is still checked.  A key for exactly
 * the same FUNC as a command-line --key is dropped, so that the command
 * line wins there too (the last matching key would otherwise decide).
 *
 * SIGHUP re-reads the file: the daemon keeps what ispotd_config_parse_args()
 * gave (the command line) for its whole life and calls ispotd_config_load()
 * again; a bad file leaves the running config as it was:
 *
 *	struct ispotd_config next;
 *
 *	if (!ispotd_config_load(&cli, &next)) {
 *		ispotd_config_free(&cur);
 *		cur = next;
 *	}
 */
#ifndef ISPOTD_CONFIG_H
#define ISPOTD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cli/options.h"

/* Of each kind: pids, exes, cgroups. */
#define ISPOTD_MAX_TARGETS		64
#define ISPOTD_DEFAULT_BUDGET		0.01	/* 1% */
#define ISPOTD_DEFAULT_WINDOW_NS	(60 * 1000000000ull)
#define ISPOTD_MIN_WINDOW_NS		1000000000ull
#define ISPOTD_DEFAULT_MAX_FUNCTIONS	50
/*
 * --solo-blocks: ispotd's blocks' waits count inside --budget, which
 * bounds the whole; 3% of the armed time gives a pool a gated reference
 * within its first windows (Documentation/ispotd.rst).
 */
#define ISPOTD_DEFAULT_SOLO_SHARE	0.03
/*
 * --auto's profile: half a second at 1 kHz a thread is 500 samples of a
 * busy thread, enough for the 1% rule, and at a sample's cost (about a
 * probed call's) it is a small part of a window's budget
 * (Documentation/ispotd.rst, "Picking the functions").
 */
#define ISPOTD_DEFAULT_AUTO_TIME_NS	(500 * 1000000ull)
#define ISPOTD_DEFAULT_AUTO_EVERY	10

/* Bits of ispotd_config.set: the scalars given explicitly. */
enum ispotd_config_scalar {
	ISPOTD_SET_BUDGET	 = 1 << 0,
	ISPOTD_SET_WINDOW	 = 1 << 1,
	ISPOTD_SET_LOG		 = 1 << 2,
	ISPOTD_SET_LISTEN	 = 1 << 3,
	ISPOTD_SET_MAX_FUNCTIONS = 1 << 4,
	ISPOTD_SET_RING_SIZE	 = 1 << 5,
	ISPOTD_SET_SOLO_BLOCKS	 = 1 << 6,
	ISPOTD_SET_AUTO		 = 1 << 7,
	ISPOTD_SET_AUTO_TIME	 = 1 << 8,
	ISPOTD_SET_AUTO_EVERY	 = 1 << 9,
};

/*
 * Every string is owned (malloc'd) by the config and released by
 * ispotd_config_free(), so a reloaded config can replace an old one.
 */
struct ispotd_config {
	char *config_path;		/* --config, NULL if none */
	pid_t pids[ISPOTD_MAX_TARGETS];
	size_t nr_pids;
	char *exes[ISPOTD_MAX_TARGETS];	/* as given; need not exist yet */
	size_t nr_exes;
	/*
	 * Relative to the cgroup2 root with a leading "/", e.g.
	 * "/system.slice/foo.service"; "/" is the root itself.
	 */
	char *cgroups[ISPOTD_MAX_TARGETS];
	size_t nr_cgroups;
	char *funcs[OPT_MAX_FUNCS];	/* SPECs, as ispotctl's --func */
	size_t nr_funcs;
	struct key_opt keys[OPT_MAX_KEYS];
	size_t nr_keys;
	bool sync;			/* on if given anywhere */
	double budget;			/* a fraction: 0.01 is 1%; 0: always */
	uint64_t window_ns;
	char *log_path;			/* "-" is stdout */
	char *listen;			/* "ADDR:PORT"; NULL: off */
	uint32_t max_functions;
	unsigned int max_functions_line; /* its line in the file; 0: none */
	uint64_t ring_bytes;		/* per CPU */
	double solo_share;		/* --solo-blocks: of the armed time */
	bool auto_pick;			/* --auto[=N] */
	uint32_t auto_top;		/* its N; 0: the 1% rule */
	unsigned int auto_line;		/* its line in the file; 0: none */
	uint64_t auto_time_ns;		/* --auto-time */
	uint32_t auto_every;		/* --auto-every: windows */
	/*
	 * ISPOTD_SET_*: for parse_args' result, the scalars the command
	 * line gave (they win over the file); after load, those the command
	 * line or the file gave.
	 */
	unsigned int set;
};

/*
 * Parse the command line into @cli (defaults for what is not given).
 * Returns 0, 1 when --help was printed on stdout, or -1 after printing a
 * one-line usage error (exit 2).  Without --config, a missing target or
 * function is an error here; with it, ispotd_config_load() decides once
 * the file is merged.  ispotd_config_free(@cli) is safe after any return.
 */
int ispotd_config_parse_args(int argc, char **argv, struct ispotd_config *cli);

/*
 * @out = @cli merged with the file @cli->config_path, if any (re-read on
 * every call).  Returns 0, or -1 after printing one line that names the
 * FILE:LINE at fault, or the file when it cannot be read or lacks a
 * target or a function (exit 2).  @out is written only on success, and
 * then owns its own copy of everything.
 */
int ispotd_config_load(const struct ispotd_config *cli,
		       struct ispotd_config *out);

/* Free every string and zero @c; safe on a zeroed or freed config. */
void ispotd_config_free(struct ispotd_config *c);

void ispotd_config_usage(FILE *f);

/*
 * The options of one tracing session (user/lib/trace/trace.h) for @c's
 * functions, keys, --sync and ring size: for attach mode (the caller sets
 * @t->pid), no duration, no JSON, no output file.  @t borrows @c's
 * strings: it is valid while @c is.
 */
void ispotd_config_trace_opts(const struct ispotd_config *c,
			      struct trace_opts *t);

#endif /* ISPOTD_CONFIG_H */
