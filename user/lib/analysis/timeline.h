/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where each thread's time goes while it is off the CPU, from the module's
 * SWITCH_OUT/SWITCH_IN and FUTEX_ENTER/FUTEX_EXIT records.
 *
 * Per thread it keeps running totals of off-CPU time by cause: inside a
 * futex wait, otherwise blocked (I/O, sleep), or preempted while runnable
 * (run-queue wait).  An execution's causes are the difference of the
 * totals between its exit and its entry, so no per-execution timeline is
 * ever stored: a thread switches out and in many times inside one call,
 * and nested calls share its switches.
 *
 * A lost SWITCH_IN (a full ring) is repaired by the thread's next own
 * record: a thread that records something is running.  Off-CPU time is
 * attributed when the thread comes back, so an interval is never split.
 *
 * Context.  Besides the causes, each thread's totals carry what the
 * interference figure needs (interference.h): off-CPU futex time of waits
 * that another traced thread's wake ended (TL_WAITED); run-queue time
 * during which the CPU the thread was preempted on ran another traced
 * thread, and the program had more threads running or runnable than the
 * CPUs its threads have run on (TL_RQ_PROGRAM: with no more than that,
 * each would have had a CPU but for other processes; a thread woken but
 * not yet running is not counted, so the rule leans to external, and
 * early in a trace, before the threads have used every CPU, to the
 * program); and the integral, in ns x threads, of how many *other*
 * traced threads were active (TL_OTHERS).  A thread is active
 * from its first record (or TASK_NEW) to its TASK_EXIT, except inside a
 * futex wait, and in an interruptible sleep (nanosleep, poll, epoll_wait,
 * accept) taken outside every traced call: a thread parked on a lock, a
 * condition variable or an idle event loop can slow no one, while one
 * that runs, waits for a CPU, does I/O (an uninterruptible sleep) or
 * sleeps inside a traced call (holding, perhaps, the spinlock that call
 * takes) may hold what another needs.  A thread that records nothing in
 * the trace (blocked since before attach) is not counted.  The counts are
 * kept as running integrals, updated at each thread's own transitions, so
 * a call's context is the difference of its thread's totals at exit and
 * entry, like its causes.
 *
 * It also keeps the contended-futex report: per futex word, the time spent
 * in futex wait operations on it, how many waits and by which threads, and
 * which probed functions were open when they waited; and who woke them:
 * per futex word, the function each waking thread was in when it issued
 * the wake that ended a wait (the critical section that held the lock),
 * with the wait time it ended.  A wait is credited to the latest wake on
 * its word between the wait's start and its end; one that timed out or
 * was interrupted is credited to no one.
 */
#ifndef ISPOT_TIMELINE_H
#define ISPOT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/ispot.h>

enum timeline_cause {
	TL_FUTEX,	/* off CPU inside a futex wait */
	TL_BLOCKED,	/* off CPU, blocked elsewhere */
	TL_RUNQUEUE,	/* off CPU but runnable: preempted */
	TL_NR_CAUSES,
};

/* The context totals follow the causes in a thread's totals. */
enum timeline_context {
	TL_WAITED = TL_NR_CAUSES,	/* futex time others' wakes ended */
	TL_RQ_PROGRAM,		/* run-queue time behind traced threads */
	TL_OTHERS,		/* other active threads, ns x threads */
	TL_NR_TOTALS,
};

#define TL_NO_FUNC	UINT32_MAX
/* The wakers past the first TL_WAKERS of a futex word, counted as one. */
#define TL_WAKER_OTHER	(UINT32_MAX - 1)
/* Distinct waking functions kept per futex word, besides TL_WAKER_OTHER. */
#define TL_WAKERS	8
/*
 * A futex word's waiting threads are counted, not listed: a server that
 * starts a thread per request would grow a list for ever (ispotd keeps a
 * burst's timeline as long as the target runs when always armed).  Each
 * thread remembers which of the first TL_FUTEX_EXACT words it waited on,
 * in a bitmap freed with the thread, so their counts are exact.  On a
 * later word, a thread counts again whenever it comes back to it from a
 * different word: an upper bound, exact for threads that use one lock.
 */
#define TL_FUTEX_EXACT	64

/*
 * Wait time ended by wakes from @func (TL_NO_FUNC: untraced, or unseen),
 * or, when @callsite is not 0 (and @func is TL_NO_FUNC), from inside a
 * lock call (pthread_mutex_unlock, ...) with no traced function outside
 * it: @callsite is that call's return address, which names its caller.
 */
struct timeline_waker {
	uint32_t func;
	uint64_t wait_ns;
	uint64_t callsite;
};

/* A futex word's wakers: @nr used, the last one may be TL_WAKER_OTHER. */
struct timeline_wakers {
	uint32_t nr;
	struct timeline_waker w[TL_WAKERS + 1];
};

struct timeline_futex {
	uint64_t uaddr;
	uint64_t wait_ns;
	uint64_t waits;
	uint32_t threads;	/* that waited on it: see TL_FUTEX_EXACT */
	uint32_t nr_funcs;
	uint32_t *funcs;	/* distinct, TL_NO_FUNC excluded */
	size_t cap_funcs;
	struct timeline_wakers woken_from;
	/* The latest wake on the word, for the next wait that ends. */
	bool woken;
	uint32_t last_waker;
	uint64_t last_waker_callsite;
	uint64_t last_wake_ts;
};

struct timeline_stats {
	uint64_t switches;
	uint64_t futex_calls;
	uint64_t lost_switch_in;	/* repaired by a later record */
	uint64_t stray;			/* an IN or EXIT with nothing open */
};

struct timeline;

struct timeline *timeline_new(void);
void timeline_free(struct timeline *tl);

/*
 * Feed a SWITCH_OUT, SWITCH_IN, FUTEX_ENTER, FUTEX_EXIT or TASK_NEW
 * record (others are ignored; a TASK_EXIT goes to timeline_thread_exit(),
 * which a caller also needs when it learns of an exit some other way).
 * @open_func is the function the thread is inside at a FUTEX_ENTER or a
 * SWITCH_OUT, TL_NO_FUNC if none; at a wake, the one to credit with the
 * waits it ends.  Returns 0 or -ENOMEM.
 */
int timeline_record(struct timeline *tl, const struct ispot_record *rec,
		    uint32_t open_func);
/*
 * The same, for a wake issued inside a lock call that no traced function
 * encloses: @callsite is the lock call's return address (0: unknown), to
 * credit its caller with (struct timeline_waker).
 */
int timeline_record_callsite(struct timeline *tl,
			     const struct ispot_record *rec,
			     uint32_t open_func, uint64_t callsite);
/*
 * @tid recorded something at @ts on @cpu, so it is running there, and
 * its totals as of @ts into @out.  Returns 0 or -ENOMEM (the thread is
 * new and could not be kept: @out is then zeros).
 */
int timeline_running_totals(struct timeline *tl, uint32_t tid, uint16_t cpu,
			    uint64_t ts, uint64_t out[TL_NR_TOTALS]);
/*
 * @tid's totals so far (zeros for an unknown thread); TL_OTHERS as of the
 * latest timestamp the timeline was given.
 */
void timeline_totals(const struct timeline *tl, uint32_t tid,
		     uint64_t out[TL_NR_TOTALS]);
/*
 * @tid exited at @ts (its TASK_EXIT record, or a scan of /proc that found
 * it gone): it is no longer active and runs on no CPU.
 */
void timeline_thread_exit(struct timeline *tl, uint32_t tid, uint64_t ts);
/* Traced threads active now (see "Context"). */
uint32_t timeline_active(const struct timeline *tl);
/*
 * The futexes waited on, by wait time descending (words only woken: not),
 * valid until the next call or record; none if out of memory.
 */
size_t timeline_futexes(struct timeline *tl,
			const struct timeline_futex **out);
const struct timeline_stats *timeline_stats(const struct timeline *tl);
/* Forget @tid's state (a thread gone for good: ispotd's folding). */
void timeline_forget(struct timeline *tl, uint32_t tid);

/*
 * The same by thread, for a caller that keeps its own per-thread state
 * (the pipeline): it keeps each thread's part of the timeline there, made
 * by timeline_thread_new() when the thread's first record for the
 * timeline comes (what the calls by tid make on first sight), and the
 * timeline never looks the thread up.  timeline_thread_free() is
 * timeline_forget(); timeline_thread_exited() takes NULL for a thread
 * the timeline never saw.
 */
struct tl_thread;

struct tl_thread *timeline_thread_new(uint32_t tid);
void timeline_thread_free(struct timeline *tl, struct tl_thread *t);
int timeline_thread_record(struct timeline *tl, struct tl_thread *t,
			   const struct ispot_record *rec,
			   uint32_t open_func, uint64_t callsite);
int timeline_thread_running(struct timeline *tl, struct tl_thread *t,
			    uint16_t cpu, uint64_t ts,
			    uint64_t out[TL_NR_TOTALS]);
void timeline_thread_exited(struct timeline *tl, struct tl_thread *t,
			    uint64_t ts);
/*
 * Records of @t (timeline_all_lost(): of every thread) may have been lost
 * before @before (a damaged chunk of a recording, a full ring's drops):
 * a futex wait begun before then is not counted when an exit ends it, as
 * that exit may be a later wait's whose entry was lost.
 */
void timeline_thread_lost(struct tl_thread *t, uint64_t before);
void timeline_all_lost(struct timeline *tl, uint64_t before);

/* Whether futex op @op (FUTEX_* with flags) makes the caller wait. */
int timeline_futex_op_waits(uint32_t op);
/* Whether futex op @op wakes waiters on its uaddr. */
int timeline_futex_op_wakes(uint32_t op);

/*
 * Whether a futex wait that began at @wait_since and returned @ret was
 * ended by the latest wake on its word, issued at @wake_ts: only a wait
 * that returned 0 was woken (not timed out, interrupted or turned away
 * because the word changed), and only by a wake issued after it began.
 * The waited time (TL_WAITED), the wakers and the Perfetto trace's flows
 * (export/perfetto.h) all judge by it.
 */
bool timeline_wake_ended_wait(uint64_t wake_ts, uint64_t wait_since,
			      int64_t ret);

/*
 * Credit @wait_ns to @func (or, with @func TL_NO_FUNC, to the caller at
 * @callsite; 0 for none) in @w: a new waker takes a free slot, and once
 * the TL_WAKERS are taken the rest go to TL_WAKER_OTHER, so memory stays
 * fixed.  Also merges tables (ispotd's windows).
 */
void timeline_wakers_add(struct timeline_wakers *w, uint32_t func,
			 uint64_t callsite, uint64_t wait_ns);

#endif /* ISPOT_TIMELINE_H */
