/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From records to scores: the drain's record callback finds the record's
 * thread (once: one map of per-thread state, to which each analysis
 * attaches its part), and the record passes through the analyses in one
 * direction: the engine holds the thread, the timeline gives its totals,
 * the pairer pairs, and each paired execution gets its function and key
 * and lands in the SCI engine and the other tallies.  Nothing here touches
 * the device, so the pipeline benchmark and the unit tests drive the very
 * code that ispotctl runs.
 */
#ifndef ISPOT_PIPELINE_H
#define ISPOT_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/ispot.h>

#include "analysis/argbuckets.h"
#include "analysis/durations.h"
#include "analysis/excess.h"
#include "analysis/pair.h"
#include "analysis/sci.h"
#include "analysis/shape.h"
#include "analysis/solo.h"
#include "analysis/stacks.h"
#include "analysis/timeline.h"
#include "util/fifo.h"
#include "util/hashmap.h"

/*
 * How executions of one function are told apart (Documentation/design.rst,
 * "The metric: SCI" and "Keys by default").
 */
enum key_kind {
	KEY_NONE,
	KEY_ARG,	/* the value of argument N (0-2) */
	KEY_CALLSITE,	/* the return address at entry */
	KEY_AUTO,	/* chosen at report time (autokey.h) */
	KEY_SHAPE,	/* the probed calls it made (shape.h) */
};

/* CPUs whose last thread the pipeline remembers (struct pipeline). */
#define PIPE_LAST_CPUS	64

/* The aux words an entry carries to its exit (struct pipeline's now). */
enum {
	PIPE_AUX_VALID = TL_NR_TOTALS,
	PIPE_AUX_GATE,
	PIPE_AUX_WORDS,
};

struct key_rule {
	enum key_kind kind;
	unsigned int arg;	/* KEY_ARG: 0..2 */
	bool log2;		/* KEY_ARG: bucket by floor(log2(value)) */
};

/*
 * Whether @k's keys are addresses, labelled from the maps: a call site,
 * an argument taken as it is (report_key_address(), trace_maps.c).
 */
static inline bool key_rule_by_address(const struct key_rule *k)
{
	return k->kind == KEY_CALLSITE || (k->kind == KEY_ARG && !k->log2);
}

struct pipeline_stats {
	uint64_t entries;
	uint64_t exits;
	uint64_t stacks;
	uint64_t bad_stacks;	/* STACK records of no probe, or cut short */
	uint64_t unknown_probe;	/* a probe id that was never declared */
	uint64_t unknown_kind;
	uint64_t nomem;		/* executions the engine could not store */
	uint64_t waits;		/* SWITCH_* and FUTEX_* records */
	uint64_t tasks;		/* TASK_NEW and TASK_EXIT records */
	uint64_t forgotten;	/* exited threads folded and freed */
	uint64_t ring_losses;	/* LOST records: drops a ring told of */
	uint64_t ring_lost_records;	/* the records they told of */
	/* The time they left out of the threads' lifetimes, summed (ns). */
	uint64_t ring_lost_ns;
};

struct pipeline_exit {
	uint32_t tid;
	uint64_t ts;
};

struct pipeline {
	struct pairer *pairer;
	struct sci_engine *sci;
	/* sci_folds(sci): whether a thread's handle may have gone stale. */
	const uint64_t *sci_folds;
	uint32_t nr_probes;		/* probe ids 1..nr_probes-1 */
	struct pipeline_probe *probes;	/* indexed by probe id */
	struct timeline *tl;		/* NULL unless causes are on */
	struct excess *excess;		/* NULL unless counters are on */
	struct durations *durations;	/* NULL unless pictures are asked */
	struct stacks *stacks;		/* sampled call stacks per function */
	struct argbuckets *args;	/* per-argument log2 buckets */
	struct shapes *shapes;		/* what calls executions made */
	/*
	 * What an entry carries to its exit (pair.h's aux words): the fed
	 * record's thread totals, read by the pair callback; a word that is
	 * 1 when they are real (PIPE_AUX_VALID; 0: the timeline could not
	 * keep the thread, and the call gets no causes); and its gate word
	 * (PIPE_AUX_GATE, solo.h).
	 */
	uint64_t now[PIPE_AUX_WORDS];
	struct pipeline_stats stats;
	struct solo_stats solo;		/* solo blocks and the gate */
	uint32_t inside;		/* threads inside a traced call */
	/*
	 * A solo block's BEGIN came and no END since: a thread inside a
	 * call then takes its share of the block from that call's return
	 * (sci_solo_inside()).
	 */
	bool solo_window;
	bool sci_borrowed;		/* p->sci belongs to the caller */
	bool shapes_borrowed;		/* and so does p->shapes */
	bool args_borrowed;		/* and p->args */
	/* No interference figures (pipeline_bench: what they cost). */
	bool no_interference;
	/*
	 * Entries are recorded 1 in N (--sample): a call not recorded may
	 * hold a stack's trampoline word, so none is put back
	 * (stacks_wait.h).
	 */
	bool calls_sampled;

	/* tid -> struct pipeline_thread *: each analysis's part of it. */
	struct hashmap threads;
	/*
	 * The thread of each CPU's last record (pipeline_internal.h): a
	 * CPU runs one thread for many records, so most records skip the
	 * map.
	 */
	struct pipeline_last {
		uint32_t tid;
		struct pipeline_thread *th;	/* NULL: none */
	} last[PIPE_LAST_CPUS];

	/* Exits waiting to be forgotten, oldest first. */
	uint64_t forget_delay_ns;	/* 0: every thread is kept */
	struct fifo exits;		/* of struct pipeline_exit */
	/*
	 * Told of each thread as its state is made (its first record, or
	 * again after it was forgotten): a live session names it then,
	 * while it may still be there to read.  NULL: nobody asks.
	 */
	void (*thread_made)(void *ctx, uint32_t tid);
	void *thread_made_ctx;
	/*
	 * Told of the comm a TASK_EXIT gives its thread (ABI 1.10), with
	 * thread_made_ctx: a thread gone before it could be named is named
	 * at its exit.  NULL: nobody asks.
	 */
	void (*thread_named)(void *ctx, uint32_t tid, const char *comm);
};

struct pipeline *pipeline_new(void);
void pipeline_free(struct pipeline *p);

/*
 * Score into @sci from now on instead of the pipeline's own engine, which
 * is freed.  @sci is the caller's and outlives the pipeline: ispotd keeps
 * one engine per window across the pipelines of its armed bursts.
 */
void pipeline_borrow_engine(struct pipeline *p, struct sci_engine *sci);

/*
 * The same for the shapes seen (@shapes outlives the pipeline), so that
 * shape keys scored into a borrowed engine keep their names.
 */
void pipeline_borrow_shapes(struct pipeline *p, struct shapes *shapes);

/*
 * And for the argument buckets (@args outlives the pipeline): ispotd
 * judges a function on every burst since the target was found.
 */
void pipeline_borrow_args(struct pipeline *p, struct argbuckets *args);

/* Executions of @probe_id count for function @func_id, keyed by @rule. */
int pipeline_add_probe(struct pipeline *p, uint32_t probe_id,
		       uint32_t func_id, const struct key_rule *rule);

/*
 * @probe_id is keyed by KEY_AUTO: score its executions keyed by
 * argN:log2 under function id @shadow + N too (autokey.h), ids no other
 * function uses.  Without this an auto probe is scored unkeyed only.
 * Call after pipeline_add_probe(), before the first record.  Returns 0
 * or -EINVAL (an unknown probe).
 */
int pipeline_set_shadows(struct pipeline *p, uint32_t probe_id,
			 uint32_t shadow);

/*
 * @probe_id is a block's begin (@end false) or end marker: the block's
 * executions, from a begin to the end that closes it, count for @func_id
 * (pair.h, pairer_set_marker()).
 */
int pipeline_add_marker(struct pipeline *p, uint32_t probe_id,
			uint32_t func_id, bool end, const struct key_rule *rule);

/*
 * What @probe_id counts for, in O(1): its function id and whether it is
 * a block's marker.  False for a probe never added.
 */
bool pipeline_probe_func(const struct pipeline *p, uint32_t probe_id,
			 uint32_t *func_id, bool *marker);

/*
 * @probe_id is a synchronisation call (pthread_mutex_unlock, cond_wait,
 * ...): a futex wake issued inside it is credited to the innermost traced
 * function outside it, the critical section that called it.  Call after
 * pipeline_add_probe().  Returns 0 or -EINVAL (an unknown probe).
 */
int pipeline_set_sync(struct pipeline *p, uint32_t probe_id);

/*
 * Split every execution into futex wait, other blocked time, run-queue
 * wait and on-CPU time, from the module's wait records.  Call before the
 * first record.  Returns 0 or -ENOMEM.
 */
int pipeline_enable_causes(struct pipeline *p);

/*
 * Keep the counter deltas of executions whose records carry counters, for
 * the on-CPU excess per call.  Returns 0 or -ENOMEM.
 */
int pipeline_enable_counters(struct pipeline *p);

/*
 * Keep a bounded sample of each function's call durations per thread,
 * for the pictures (durations.h).  Returns 0 or -ENOMEM.
 */
int pipeline_enable_durations(struct pipeline *p);

/* A drain_record_fn: @ctx is the pipeline. */
void pipeline_record(void *ctx, const struct ispot_record *rec);

/* Thread lifetimes, forwarded to the analyses. */
int pipeline_thread_seen(struct pipeline *p, uint32_t tid, uint64_t ts);
int pipeline_thread_exit(struct pipeline *p, uint32_t tid, uint64_t ts);
/*
 * An exit a scan of /proc found: the thread was alive at @alive_ts and
 * gone at @gone_ts.  Its lifetime ends at @alive_ts, but a record of it
 * dated before @gone_ts (one that reached its ring late) is its own and
 * still pairs.
 */
int pipeline_thread_gone(struct pipeline *p, uint32_t tid, uint64_t alive_ts,
			 uint64_t gone_ts);

/*
 * The records between @from and @to are lost (a damaged chunk of a
 * recording): their time leaves the threads' lifetimes (sci_lost()), and
 * no call or block open at @from is scored (the pairer's
 * stats.open_at_loss): its return may be among the lost records, and a
 * return after them at the same frame would then be a later call's, one
 * call made of several and the lost stretch (pairer_all_lost()).  The
 * threads stay inside what they had open, as far as anyone can tell.  A
 * futex wait under way is not counted either (timeline_all_lost()).
 * Returns 0 or -ENOMEM.
 */
int pipeline_lost(struct pipeline *p, uint64_t from, uint64_t to);
/*
 * A LOST record (ISPOT_SETUP_LOST): a full ring dropped records about
 * rec->tid (and others: ISPOT_LOST_SEVERAL) from rec->ts_ns to
 * rec->data[1].  As pipeline_lost() for that thread (or every thread),
 * up to the last drop: no call of theirs begun before it is scored, and
 * that time, with the calls it cut where no call beside them is scored
 * (pipeline_losses.c), leaves their lifetimes, so that their SCI is not
 * diluted by time whose calls are gone.
 */
void pipeline_ring_lost(struct pipeline *p, const struct ispot_record *rec);

/* End of trace at @ts: open entries become unpaired, threads close. */
void pipeline_finish(struct pipeline *p, uint64_t ts);
/*
 * After pipeline_finish(): the calls of function @func_id still open
 * then (a thread's loop that never returned while traced).
 */
uint32_t pipeline_open_at_end(const struct pipeline *p, uint32_t func_id);

/*
 * For a tracer that runs for ever: @delay_ns after a thread's exit (in
 * record time: its last records may come later from another CPU's ring,
 * and the kernel switches a dead thread out after its exit) fold it into
 * the engine's totals (sci_fold_thread) and free its pairing and wait
 * state, so that memory follows the live threads.  pipeline_finish()
 * forgets every exit still waiting.  Call before the first record.
 */
void pipeline_forget_exited(struct pipeline *p, uint64_t delay_ns);

/* The key value of one execution under @rule. */
uint64_t key_value(const struct key_rule *rule, const struct pair_exec *e);

#endif /* ISPOT_PIPELINE_H */
