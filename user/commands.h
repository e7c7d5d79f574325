/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands of ispotctl, one file each (cmd_<name>.c). */
#ifndef ISPOT_COMMANDS_H
#define ISPOT_COMMANDS_H

/* Exit codes, part of the CLI contract. */
#define EXIT_OK		0
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

int cmd_attach(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_status(int argc, char **argv);

/* One line on stderr, prefixed with the program name. */
void ispot_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* ISPOT_COMMANDS_H */
