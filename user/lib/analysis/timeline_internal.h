/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the timeline's two halves share: thread and CPU state (timeline.c:
 * off-CPU time by cause, activity, who runs where) and futex tracking
 * (timeline_futex.c: the futex words, their waits and their wakers).
 * Nothing outside those two files includes this.
 */
#ifndef ISPOT_TIMELINE_INTERNAL_H
#define ISPOT_TIMELINE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/timeline.h"
#include "util/hashmap.h"

/* A thread's activity (timeline.h, "Context"). */
enum tl_act {
	TL_ACT_UNSEEN,		/* nothing recorded yet: not counted */
	TL_ACT_ACTIVE,
	TL_ACT_WAITING,		/* in a futex wait */
	TL_ACT_IDLE,		/* asleep outside every traced call */
	TL_ACT_GONE,		/* exited */
};

/* Which traced thread a CPU runs, and for how long it ran any so far. */
struct tl_cpu {
	uint32_t tid;		/* 0: none (tid 0 is the idle task) */
	/*
	 * The thread of @tid, to tell it it lost the CPU (a lost
	 * SWITCH_OUT): the timeline keeps no map of the caller's threads.
	 * A thread leaves its CPU before it is freed (tl_vacate()).
	 */
	struct tl_thread *thread;
	uint64_t since;
	uint64_t acc;
	bool used;		/* a traced thread ran on it at some time */
};

struct tl_thread {
	uint32_t tid;
	uint8_t act;		/* enum tl_act */
	uint32_t on_cpu;	/* the CPU it runs on + 1, 0 = none known */
	uint32_t rq_cpu;	/* where it was preempted */
	uint64_t rq_mark;	/* that CPU's traced time then */
	uint64_t over_mark;	/* and the oversubscribed time then */
	bool demand;		/* on a CPU, or runnable: counted in nr_demand */
	uint64_t futex_mark;	/* cum[TL_FUTEX] when its wait began */
	uint64_t self_acc;	/* its own active time, up to self_since */
	uint64_t self_since;
	bool off;		/* switched out, not back yet */
	bool off_preempted;
	bool off_in_futex;
	bool in_futex;
	bool futex_lost;	/* records lost in its wait: not counted */
	uint32_t futex_op;
	uint32_t futex_func;
	uint64_t off_since;
	uint64_t futex_uaddr;
	uint64_t futex_since;
	uint64_t cum[TL_NR_TOTALS];	/* TL_OTHERS: unused, computed */
	uint64_t waited_exact;	/* bit i: waited on futex word i */
	size_t last_waited;	/* the word of its latest wait, + 1 */
};

struct timeline {
	/* tid -> struct tl_thread *, for the callers by tid only. */
	struct hashmap threads;
	/* In the order first seen: a line's index is its waited_exact bit. */
	struct timeline_futex *futexes;
	size_t nr_futexes, cap_futexes;
	struct hashmap futex_lines;	/* uaddr -> index in futexes */
	/* Active threads, and their count's integral up to act_since. */
	uint32_t nr_active;
	uint64_t act_acc, act_since;
	uint64_t last_ts;
	struct tl_cpu *cpus;		/* by CPU number */
	size_t nr_cpus;
	/*
	 * Threads on a CPU or waiting for one (demand), the CPUs traced
	 * threads ran on so far (what the program may use), and the
	 * integral up to over_since of the time when the first exceeded
	 * the second: when the program's own threads outnumbered its CPUs.
	 */
	uint32_t nr_demand, nr_cpus_used;
	/* Every thread's records were lost before this (timeline_all_lost). */
	uint64_t lost_before;
	uint64_t over_acc, over_since;
	/* timeline_futexes()'s order; the lines keep theirs (waited_exact). */
	struct timeline_futex *sorted;
	struct timeline_stats st;
};

/* timeline.c: @t is now @act, at @ts (the active count follows). */
void tl_set_act(struct timeline *tl, struct tl_thread *t, enum tl_act act,
		uint64_t ts);

/* timeline_futex.c: @t's FUTEX_ENTER and FUTEX_EXIT records. */
int tl_futex_enter(struct timeline *tl, struct tl_thread *t,
		   const struct ispot_record *rec, uint32_t open_func,
		   uint64_t callsite);
int tl_futex_exit(struct timeline *tl, struct tl_thread *t, uint64_t ts,
		  int64_t ret);
/* The futex words and what they hold. */
void tl_futexes_free(struct timeline *tl);

#endif /* ISPOT_TIMELINE_INTERNAL_H */
