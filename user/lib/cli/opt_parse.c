// SPDX-License-Identifier: GPL-2.0
/*
 * The command line through the option table (opttab.h): getopt_long over
 * the table's names, each option found, checked for the command and
 * parsed by its kind, then handed to the front end's store.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/opttab.h"
#include "cli/opttab_internal.h"

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

int opt_take(const struct opt_src *src, const struct opt_def *d,
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
	if (!opt_kind_parse(v, src->path, err, sizeof(err)))
		return opt_error(src, "%s", err);
	if (!store(ctx, v, err, sizeof(err)))
		return 0;
	return err[0] ? opt_error(src, "%s", err) : -1;
}

const struct opt_def *opt_find(const char *name, unsigned int cmd)
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
 * in the table, and the short letters for ispotctl's commands.  An
 * option id stands once in the table, so OPT_NR names fill @longs but
 * for the terminating entry.
 */
static void getopt_tables(unsigned int cmd, struct option *longs,
			  char *shorts, size_t slen)
{
	size_t i, n = 0, s = 0;

	s += snprintf(shorts, slen, "+:%s", cmd & OPT_CTL ? "" : "h");
	for (i = 0; i < opt_table_len && n < OPT_NR; i++) {
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
	struct option longs[OPT_NR + 1];
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
