/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `ispotctl top`: one live view (cmd_top.c: keys, signals, refreshes, the
 * screen) over one of two sources of running totals, behind one ops
 * struct:
 *
 *	top_session.c	a session of its own on --pid, through the same
 *			trace/trace.h as `ispotctl attach`
 *	top_remote.c	a running ispotd's /metrics (--from ADDR:PORT)
 */
#ifndef ISPOT_TOP_H
#define ISPOT_TOP_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli/options.h"
#include "top/rates.h"

#define TOP_STATUS_LEN	256

struct top_source;

struct top_source_ops {
	/*
	 * Work between refreshes (draining rings): @pfd is what to poll
	 * for it (fd -1: nothing), set before each poll; @revents what the
	 * poll said.  Returns 0, 1 when the source has ended (the target
	 * exited: end_message() says so), or -1 after printing why.
	 */
	void (*prepare)(struct top_source *s, struct pollfd *pfd,
			int *timeout_ms);
	int (*step)(struct top_source *s, uint64_t now, short revents);
	/* A sample of every function's totals into @r; return as step(). */
	int (*sample)(struct top_source *s, uint64_t now, struct rates *r);
	/* Why it ended, printed once the terminal is given back. */
	void (*end_message)(struct top_source *s, uint64_t now);
	void (*close)(struct top_source *s);
};

struct top_source {
	/* What the header says, set by open(). */
	char target[320];
	bool show_exe;		/* several programs: an EXE column */
	char status[TOP_STATUS_LEN];	/* a note for the view, or "" */

	const struct top_source_ops *ops;
	void *priv;
};

/* Both return 0, or -1 after printing one line, before any screen. */
int top_session_open(struct top_source *s, const struct trace_opts *o,
		     uint64_t now, struct rates *r);
int top_remote_open(struct top_source *s, const struct trace_opts *o,
		    uint64_t now, struct rates *r);

#endif /* ISPOT_TOP_H */
