/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ispotd --auto: the wall-clock profile that picks a target's functions
 * (trace/autopick.h, as ispotctl --auto), taken in a thread of its own so
 * that the daemon's loop goes on draining the other targets and serving
 * HTTP while it samples: autopick_sample() blocks for the profile's whole
 * length.  The thread owns nothing the loop touches until it is joined;
 * it says it is done by making picker_fd() readable.
 *
 *	picker_start(&p, pid, 500 ms, 8);
 *	... poll picker_fd(&p) for POLLIN ...
 *	if (picker_done(&p)) { picker_join(&p); use p.result or p.err }
 */
#ifndef ISPOTD_PICKER_H
#define ISPOTD_PICKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/autopick.h"

struct picker {
	pthread_t thread;
	int fds[2];		/* the thread writes one byte to fds[1] */
	bool running;		/* started and not joined */
	pid_t pid;
	uint64_t duration_ns;
	uint32_t top;
	/* Written by the thread, read after picker_join(). */
	int ret;		/* autopick_sample()'s */
	struct autopick result;
	char err[512];
	uint64_t thread_cpu_ns;	/* what the profile cost the daemon */
};

/* Zero state: nothing running, picker_fd() is -1. */
void picker_init(struct picker *p);

/*
 * Profile @pid for @duration_ns and choose @top functions (0: the 1%
 * rule) in a new thread.  0, or -1 with errno when no thread could start.
 */
int picker_start(struct picker *p, pid_t pid, uint64_t duration_ns,
		 uint32_t top);

/* What to poll for POLLIN while the profile runs, else -1. */
int picker_fd(const struct picker *p);

/* Whether the running profile has finished (never blocks). */
bool picker_done(const struct picker *p);

/*
 * Wait for the thread (at once if picker_done()) and close the pipe: the
 * result, ret and err are the caller's to read until picker_release().
 */
void picker_join(struct picker *p);

/* Free the result; a profile still running is joined first. */
void picker_release(struct picker *p);

#endif /* ISPOTD_PICKER_H */
