/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a process's threads wait, and for how long: the off-CPU half of a
 * wall-clock profile, from the module's records of a session with
 * ISPOT_SETUP_OFFCPU (Documentation/abi.rst, "Off-CPU stacks").
 *
 * Each off-CPU period of a thread runs from its SWITCH_OUT to its next
 * SWITCH_IN, and has a kind:
 *   futex   the thread blocked inside a futex call (a lock, a condition
 *           variable): FUTEX_ENTER came, and no FUTEX_EXIT yet;
 *   io      it blocked uninterruptibly (the disk, a page fault);
 *   runq    it was preempted, still runnable: it waited for a CPU;
 *   sleep   any other blocking: poll, epoll_wait, accept, nanosleep, a
 *           socket read.  Such a wait is the thread being idle, which the
 *           profile shows but which is no reason to trace a function.
 * The SWITCH records give every period; the module samples stacks of a
 * few of them (OFF_STACK, in time: about one per period of each thread's
 * off-CPU time).  A sample stands for its weight's worth of the thread's
 * switches; its share of the thread's measured off-CPU time of its kind
 * is its weight times its own period over the sum of those of the
 * thread's samples of that kind.  Sharing the measured time out, rather
 * than summing weight times period, keeps the totals exact where taking a
 * stack changes the period it is taken in (in an emulated guest, a
 * partner's wake-up comes sooner after a slow stack walk).
 */
#ifndef ISPOT_WALLPROF_H
#define ISPOT_WALLPROF_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ispot.h>

#include "util/hashmap.h"

enum wall_kind {
	WALL_FUTEX,
	WALL_IO,
	WALL_RUNQ,
	WALL_SLEEP,
	WALL_NR_KINDS,
};

extern const char *const wall_kind_names[WALL_NR_KINDS];

/* One sampled stack and the off-CPU time it stands for. */
struct wallprof_sample {
	uint32_t tid;
	enum wall_kind kind;
	uint64_t ts;		/* when it left its CPU */
	uint64_t ip, sp;	/* the user registers as it left */
	uint32_t nframes, nwords;
	uint64_t frames[ISPOT_STACK_MAX_FRAMES];
	uint64_t words[ISPOT_OFFCPU_MAX_WORDS];
	uint64_t weight;
	uint64_t period_ns;	/* its own period; 0 until it ends */
	uint64_t off_ns;	/* its share, after wallprof_finish() */
};

struct wallprof {
	struct hashmap threads;		/* tid -> struct wallprof_thread * */
	struct wallprof_sample *samples;
	size_t nr_samples, cap_samples;
	uint64_t off_ns[WALL_NR_KINDS];	/* measured, every thread */
	uint64_t periods;		/* off-CPU periods measured */
	uint64_t malformed;		/* OFF_STACK records refused */
	uint64_t nomem;
};

void wallprof_init(struct wallprof *wp);
void wallprof_free(struct wallprof *wp);
/*
 * A record of the session, in time order (drain.h); other kinds are
 * ignored.  A multi-slot OFF_STACK is contiguous, as the drain gives it.
 */
void wallprof_record(struct wallprof *wp, const struct ispot_record *rec);
/* Share each thread's measured time out to its samples (off_ns). */
void wallprof_finish(struct wallprof *wp);

#endif /* ISPOT_WALLPROF_H */
