/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands of ispotctl, one file each (cmd_<name>.c). */
#ifndef ISPOT_COMMANDS_H
#define ISPOT_COMMANDS_H

#include "util/errors.h"

struct trace_opts;

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

#endif /* ISPOT_COMMANDS_H */
