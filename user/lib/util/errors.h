/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exit codes and one-line errors, shared by both front ends: ispotctl and
 * ispotd promise the same codes (Documentation/usage.rst, "Commands";
 * Documentation/ispotd.rst, "Running it").
 */
#ifndef ISPOT_ERRORS_H
#define ISPOT_ERRORS_H

#define EXIT_OK		0
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

/* The prefix of every error line; each front end sets its own name. */
extern const char *ispot_progname;

/* One line on stderr, prefixed with the program name. */
void ispot_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * An informational line, where errors go and in their form ("PROG: ..."):
 * a daemon's journal reads stderr.  No hook runs: it is not an error.
 */
void ispot_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Run @fn(@ctx) before each error line is printed, so that whatever owns
 * the terminal gives it back first: a status line erases itself, a live
 * view leaves its screen, and the error stays readable.  One hook at a
 * time; NULL removes it.
 */
void ispot_error_hook(void (*fn)(void *ctx), void *ctx);

#endif /* ISPOT_ERRORS_H */
