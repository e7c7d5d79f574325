/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Signals a write can raise (SIGXFSZ past `ulimit -f`, SIGPIPE when a
 * reader exits), caught so that the write fails with its error (EFBIG,
 * EPIPE), which the caller says in one line, instead of killing the
 * process unsaid.
 */
#ifndef ISPOT_SIGCATCH_H
#define ISPOT_SIGCATCH_H

/*
 * Catch @sig with a handler that does nothing (SA_RESTART: no other call
 * is cut short by it).  Only in place of the default, so that a caller's
 * choice (SIG_IGN, a handler) stands; a handler, not SIG_IGN, because a
 * handler is reset at an exec (record's command gets the default back).
 */
void sig_catch_default(int sig);

#endif /* ISPOT_SIGCATCH_H */
