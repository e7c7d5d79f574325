/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands of ispotctl, one file each (cmd_<name>.c). */
#ifndef ISPOT_COMMANDS_H
#define ISPOT_COMMANDS_H

#include "util/errors.h"

int cmd_attach(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_top(int argc, char **argv);

#endif /* ISPOT_COMMANDS_H */
