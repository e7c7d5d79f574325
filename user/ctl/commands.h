/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands of ispotctl, one file each (cmd_<name>.c). */
#ifndef ISPOT_COMMANDS_H
#define ISPOT_COMMANDS_H

#include "cli/options.h"
#include "util/errors.h"

int cmd_attach(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);

/*
 * What run and attach do once their options are read; record does the
 * same with a recording open.  An exit code.
 */
int run_traced(const struct trace_opts *o);
int attach_traced(const struct trace_opts *o);

/* (traced.c) The one of the two for @mode: an exit code. */
int traced(const struct trace_opts *o, enum trace_mode mode);
/* Read @mode's options from @argv, then traced(): an exit code. */
int cmd_traced(enum trace_mode mode, int argc, char **argv);

#endif /* ISPOT_COMMANDS_H */
