/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SCI engine: online Slowdown-Caused-by-Interference scores.
 *
 * Definitions (Documentation/design.rst, "The metric: SCI"; the paper's
 * §2, References there).  A block b is a (function id, key) pair; the key
 * is whatever the caller uses to separate executions that do different
 * work (call site, argument bucket, shape hash), and 0 means "no key".
 * Executions are only ever compared with executions of the same block,
 * i.e. the same key.
 *
 *	d_min(b)   = the fastest execution of b in any thread
 *	loss(b,t)  = S(b,t) - n(b,t) * d_min(b)
 *	SCI(b,t)   = loss(b,t) / T_t
 *	SCI(b)     = sum_t loss(b,t) / sum_{t ran b} T_t
 *	gain(b)    = SCI(b): the share of the time of the threads that ran b
 *		     that would be saved if every execution took d_min(b)
 *
 * Only n, S, min and max are kept per (block, thread), so memory grows with
 * blocks x threads and never with events.  Sums are u64 nanoseconds: they
 * overflow after 584 years of summed duration per block, which a trace
 * cannot reach (executions of one block in one thread only overlap under
 * recursion).  Since n * d_min <= S, the loss never overflows either.
 *
 * Thread lifetime T_t.  A thread's observed time is the union of the
 * intervals during which it was known to be alive: it opens at
 * sci_thread_seen() (call it at attach for threads that already exist, and
 * at creation for new ones) or, failing that, at the start of its first
 * execution, and closes at sci_thread_exit() or sci_finish().  An execution
 * that starts before its thread's interval extends the interval backwards;
 * one that ends after the thread exited (a reused tid) reopens it, so a
 * reused tid counts as one thread whose lifetime is the sum of its
 * intervals.  A thread still open when a report is made is counted up to
 * the report's "now".  Time no record tells is left out of it: a
 * replay's damaged chunk (sci_lost()), and a full ring's drops of the
 * thread's records (sci_thread_lost()).
 *
 * Causes.  An execution may carry a split of its duration into futex wait,
 * other blocked time, run-queue wait and on-CPU time.  The engine makes the
 * parts sum to the duration: on-CPU is recomputed as the remainder, and if
 * the off-CPU parts exceed the duration (tracepoint timestamps racing the
 * probe's) they are clamped, run-queue first, then blocked, then futex.
 * Per block the engine keeps, for each cause k, S_k (the sum of c_k over
 * the executions that carried causes, n_c of them) and the reference
 * vector r = the causes of the fastest such execution, rescaled to sum to
 * d_min(b) when that execution is slower than d_min(b) (only possible when
 * the fastest execution overall came without causes).  Then
 *
 *	loss_k(b)     = S_k - n_c * r_k
 *	loss_unknown  = loss(b) - sum_k loss_k(b)
 *
 * sums to loss(b) exactly; loss_unknown is the loss of the executions that
 * carried no causes (plus integer rounding of the rescaling).  A loss_k is
 * negative when the slow executions spent less time in cause k than the
 * fastest one did (e.g. less on-CPU time because they blocked instead);
 * the sum is what is meaningful, so the signs are kept rather than hidden.
 *
 * Functions.  Besides one result per (function, key) block, a report has
 * one aggregate per function: loss is the sum of its keys' losses (each
 * key against its own d_min, never the function-wide minimum, so the work
 * a key stands for is never counted as interference), the threads are the
 * distinct threads that ran any key, and SCI = loss / sum of those threads'
 * lifetimes.  The worst thread is the one with the largest sum of its
 * per-key losses over its lifetime.  The distribution (p50/p99) is that of
 * all the function's executions; min_ns is the smallest key's d_min.
 */
#ifndef ISPOT_SCI_H
#define ISPOT_SCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/interference.h"

struct sci_engine;

struct sci_engine *sci_new(void);
void sci_free(struct sci_engine *e);

enum sci_cause {
	SCI_CAUSE_FUTEX,	/* off CPU inside a futex syscall */
	SCI_CAUSE_BLOCKED,	/* other off-CPU time: I/O, sleep */
	SCI_CAUSE_RUNQUEUE,	/* runnable but preempted */
	SCI_CAUSE_ONCPU,	/* running */
	SCI_NR_CAUSES,
};

struct sci_causes {
	uint64_t futex_ns;
	uint64_t blocked_ns;
	uint64_t runqueue_ns;
	uint64_t oncpu_ns;	/* recomputed as the remainder, see above */
	/*
	 * What the program's other threads did meanwhile (interference.h),
	 * when @context: the futex wait they ended, the run-queue time
	 * behind them, and how many of them were active (ns x threads).
	 */
	bool context;
	uint64_t waited_ns;
	uint64_t rq_program_ns;
	uint64_t others_ns;
	/*
	 * A clean call of a solo block (solo.h): the reference for the
	 * interference figure, not a call that can lose to interference.
	 */
	bool reference;
	/*
	 * A call a solo block's gate admitted that is no reference (the
	 * call that took the gate, one that met another thread inside):
	 * part of the block, set aside like its time (below).
	 */
	bool aside;
};

/*
 * All return 0 or -ENOMEM.  Allocation only happens the first time a
 * block, thread or (block, thread) pair is seen, and when a table doubles.
 */
int sci_thread_seen(struct sci_engine *e, uint32_t tid, uint64_t ts);
int sci_thread_exit(struct sci_engine *e, uint32_t tid, uint64_t ts);
/*
 * A record of @tid at @ts made its caller keep state for it (pairing,
 * waits): a thread the engine does not have opens at @ts, so that its
 * exit, a record's or a scan's (sci_each_open_thread()), reaches the
 * engine and the caller frees that state when it folds.  A thread the
 * engine has is left as it is.
 */
int sci_thread_hold(struct sci_engine *e, uint32_t tid, uint64_t ts);
/*
 * The same for a caller that keeps per-thread state of its own (the
 * pipeline), with the engine's handle of the thread in *@ref (0 at
 * first): while it is the thread's, the engine does not look it up.
 * A handle that folding made stale is noticed and renewed.
 */
int sci_thread_hold_ref(struct sci_engine *e, uint32_t *ref, uint32_t tid,
			uint64_t ts);
/*
 * The number of threads folded so far (sci_nr_folded_threads()), read in
 * place: only a fold makes a handle stale, so a handle that
 * sci_thread_hold_ref() gave or kept while this read N is still the
 * thread's, and the thread still held, while it reads N.  A pointer, not
 * a call: the pipeline checks it for every record.
 */
const uint64_t *sci_folds(const struct sci_engine *e);

/*
 * Folding, for a tracer that runs for ever (ispotd): memory bounded by the
 * live threads, not by every thread that ever ran.  A closed thread is
 * folded into what each of its blocks and functions keeps of folded
 * threads (their number, the sum of their lifetimes, the worst of their
 * per-thread scores), then its thread and pairs are freed.  Every score
 * comes out as if the thread were still held, except that a folded
 * thread's per-thread SCI, which only the worst-thread figure uses, is
 * taken against d_min as it was at the fold, and that a folded thread is
 * not listed in a report's threads.  A tid that comes back after its fold
 * is a new thread.  The one table folding does not shrink is the hot
 * table of recent pairs (sci_hot_slots()): it stays sized for the most
 * pairs held at once, at most 2 MiB.
 *
 * sci_fold_thread() folds @tid if it is closed and its last exit is still
 * @exit_ts (not reopened since): 1 if folded, 0 if not, -ENOMEM.
 * sci_fold_closed() folds every closed thread, for a caller that has just
 * reopened every thread still alive (sci_thread_seen): the number folded
 * or -ENOMEM (those folded so far stay folded).
 */
int sci_fold_thread(struct sci_engine *e, uint32_t tid, uint64_t exit_ts);
long sci_fold_closed(struct sci_engine *e);
/* One execution of block (func_id, key) in @tid, ending at @ts_end. */
int sci_add(struct sci_engine *e, uint32_t func_id, uint64_t key,
	    uint32_t tid, uint64_t duration_ns, uint64_t ts_end,
	    const struct sci_causes *causes);

/* A block an execution counts for (sci_add_held()). */
struct sci_key {
	uint32_t func_id;
	uint64_t key;
};

/*
 * One execution of the thread whose handle is @ref (sci_thread_hold_ref(),
 * still the thread's: see sci_folds()), counted in each of the blocks
 * @keys[0..@n): what sci_add() for each would give, but the thread is not
 * looked up, and its interval, the execution's causes and its
 * interference figures are worked out once, not once a block (a --key
 * auto function counts for its own block and three shadows').  Returns
 * the number of blocks it could not store for want of memory.
 */
unsigned int sci_add_held(struct sci_engine *e, uint32_t ref,
			  const struct sci_key *keys, unsigned int n,
			  uint64_t duration_ns, uint64_t ts_end,
			  const struct sci_causes *causes);
/*
 * End of trace: close every open thread at @end_ts.  A later
 * sci_thread_seen() or execution reopens a thread, so a caller that traces
 * in intervals (ispotd's armed bursts) calls this at the end of each one
 * and the lifetimes are the sum of the intervals.
 */
void sci_finish(struct sci_engine *e, uint64_t end_ts);

/*
 * Solo blocks (Documentation/solo-blocks.rst).  While a block admits,
 * from its BEGIN at @ts to @deadline or its END, whichever is first, the
 * gate makes the program run otherwise than it does: one thread in the
 * traced functions, the others waiting at the gate, outside any call.
 * That time is set aside: per thread, the part of its lifetime that
 * falls in it is kept (struct sci_thread_score's aside_ns), and the
 * interference figure is a share of the rest (struct sci_result).  The
 * blocks fall at random times, so the rest of the run is a fair sample
 * of the program as it runs unhindered; over the whole lifetime, a run
 * whose blocks covered a share b of it would read (1 - b) times the
 * interference, the blocks' own having gone into gate waits (between
 * calls) and reference calls (counted as no loss).  sci_finish() ends
 * an open block.  A thread's interval that an execution later widens
 * backwards over a block already ended does not take that block's
 * share.
 */
void sci_solo_begin(struct sci_engine *e, uint64_t ts, uint64_t deadline);
void sci_solo_end(struct sci_engine *e, uint64_t ts);
/*
 * Thread @tid (handle @ref: nothing if that is another's now) is inside
 * a traced call at the BEGIN of the block now admitting: that call met
 * no gate and counts whole in the figure (a 300 ms wait in lzma_code
 * across a block of 200 ms), so the block is no share of this thread's
 * until the call returns, at @ts (sci_solo_outside()); else the figure
 * would count time its share of the lifetimes does not hold, and could
 * pass 100%.
 */
void sci_solo_inside(struct sci_engine *e, uint32_t ref, uint32_t tid);
void sci_solo_outside(struct sci_engine *e, uint32_t ref, uint32_t tid,
		      uint64_t ts);
/* The block @from is in, if any, goes on in @to (ispotd's next window). */
void sci_solo_carry(struct sci_engine *to, const struct sci_engine *from);

/*
 * A replay's damaged chunk: from @from to @to no record is known.  Each
 * thread alive then has that time left out of its lifetime, so that its
 * SCI is the share of the time the file holds, as a recording stopped at
 * --max-size reports the time it holds.  A call that spans the lost time
 * keeps it in its duration.  Spans come in rising order; one that meets
 * a thread's own (sci_thread_lost()) takes that time once.  0 or -ENOMEM.
 */
int sci_lost(struct sci_engine *e, uint64_t from, uint64_t to);

/*
 * A full ring dropped records of thread @tid from @from to @to, and none
 * of its calls then is scored (a LOST record, live or replayed:
 * pipeline_losses.c).
 * That time leaves the thread's lifetime, so that its SCI is the share of
 * the time its kept records tell, not that share diluted by the time
 * they do not; and the time solo blocks admitted, where it was in one.
 * A thread's spans come in rising order: one that overlaps the last
 * counts from that one's end, and a replay's lost time (sci_lost()) is
 * not left out twice.  Only while the thread is open: one not held, or
 * exited, keeps its lifetime; and its exit is dated no earlier than the
 * end of this time (thread_close()).  The time left out.
 */
uint64_t sci_thread_lost(struct sci_engine *e, uint32_t tid, uint64_t from,
			 uint64_t to);

/*
 * The fastest execution of a block, as another engine knew it: ispotd
 * starts each window's engine with the minima of the windows before, so
 * d_min(b) is the fastest execution since the daemon started.  @ref_dur
 * and @ref_cause are the fastest execution that carried causes
 * (UINT64_MAX when none did).  @solo is what the earlier engines saw of
 * its solo calls, evidence for the interference figure's reference
 * (interference.h).  @idle_windows counts the engines in a row, the last
 * included, that took executions (stored, or refused by the bound on
 * blocks) but none of the block's, for a caller to let go of seeds that
 * no longer run.  A seeded block with no execution appears
 * in no report.  Returns 0, -ENOMEM, or -ENOSPC (sci_limit_blocks()).
 */
struct sci_block_min {
	uint32_t func_id;
	uint32_t idle_windows;
	uint64_t key;
	uint64_t min;
	uint64_t ref_dur;
	uint64_t ref_cause[SCI_NR_CAUSES];
	struct interf_seed solo;
};

int sci_seed(struct sci_engine *e, const struct sci_block_min *m);
/*
 * At most @max blocks in @e, and @per_func of one function id (0, as at
 * first: no bound), but a function's first block is never refused, so
 * that one function's keys cannot keep another from being scored.  A key
 * past them is given no block: its executions are not stored (sci_add()
 * returns -ENOSPC, sci_add_held() counts them as failed, sci_unscored()
 * counts them), nor is its seed (-ENOSPC).  What a caller whose keys a
 * traced program chooses (ispotd) bounds its memory by: a block holds a
 * histogram of 58 KiB.
 */
void sci_limit_blocks(struct sci_engine *e, size_t max, size_t per_func);
/* The executions sci_limit_blocks()'s bound refused. */
uint64_t sci_unscored(const struct sci_engine *e);
/* Every block's minimum into @out (sci_nr_blocks() entries). */
void sci_minima(const struct sci_engine *e, struct sci_block_min *out);

/*
 * The durations of every execution of function @func_id, all keys merged,
 * into @out (overwritten): what ispotd's metrics and ispotctl top turn
 * into buckets.
 */
struct hist;
void sci_func_hist(const struct sci_engine *e, uint32_t func_id,
		   struct hist *out);

/*
 * The durations of block (@func_id, @key), NULL if it never ran: what the
 * pictures draw a key's sorted durations from (report/pictures.h).
 * Linear in the blocks: meant for a report, not for the hot path.
 */
const struct hist *sci_block_hist(const struct sci_engine *e,
				  uint32_t func_id, uint64_t key);

/* Sizes, for the "memory does not grow with events" check and stats. */
size_t sci_nr_blocks(const struct sci_engine *e);
/* Threads and (block, thread) pairs held; folded ones are not. */
size_t sci_nr_threads(const struct sci_engine *e);
size_t sci_nr_block_threads(const struct sci_engine *e);
uint64_t sci_nr_folded_threads(const struct sci_engine *e);
uint64_t sci_nr_events(const struct sci_engine *e);
/* Bytes currently allocated by the engine (tables, blocks, histograms). */
size_t sci_mem_bytes(const struct sci_engine *e);
/* The slots of the hot table (sci_internal.h), which grows with the pairs. */
size_t sci_hot_slots(const struct sci_engine *e);
/* The latest timestamp the engine has been given. */
uint64_t sci_last_ts(const struct sci_engine *e);
/*
 * The longest mean duration of a block (function and key) scored so far,
 * 0 if none: the outermost calls' when traced functions nest.
 */
uint64_t sci_longest_mean(const struct sci_engine *e);
/*
 * Call @fn for each thread open in @e (seen, no exit since), with the
 * latest timestamp attributed to it.  @fn must not add or remove threads
 * (sci_thread_lost() it may call).
 */
void sci_each_open_thread(const struct sci_engine *e,
			  void (*fn)(void *ctx, uint32_t tid, uint64_t last),
			  void *ctx);
/* Whether @tid is open in @e. */
bool sci_thread_is_open(const struct sci_engine *e, uint32_t tid);

/* One (block, thread) or (function, thread) pair of a report. */
struct sci_thread_score {
	uint32_t tid;
	uint64_t calls;
	uint64_t sum_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t loss_ns;
	uint64_t lifetime_ns;	/* T_t */
	uint64_t aside_ns;	/* of T_t, while solo blocks admitted */
	double sci;		/* loss_ns / lifetime_ns */
};

/* A block, or the aggregate of a function over its keys. */
struct sci_result {
	uint32_t func_id;
	uint64_t key;		/* 0 for a function aggregate */
	uint32_t nr_keys;	/* 1 for a block */
	uint64_t calls;
	uint32_t threads;	/* that ran it, folded ones included */
	uint64_t min_ns;	/* d_min */
	uint64_t p50_ns;	/* within HIST_REL_ERROR */
	uint64_t p99_ns;
	uint64_t max_ns;
	double mean_ns;
	uint64_t sum_ns;
	uint64_t loss_ns;
	uint64_t lifetime_ns;	/* sum of T_t over the threads that ran it */
	uint64_t aside_ns;	/* of that, while solo blocks admitted */
	double sci;		/* loss_ns / lifetime_ns = estimated gain */
	double sci_worst_thread;
	uint32_t worst_tid;
	uint64_t worst_loss_ns;
	uint64_t caused_calls;	/* executions that carried causes */
	int64_t cause_loss_ns[SCI_NR_CAUSES];
	int64_t unknown_loss_ns;
	/*
	 * Interference (interference.h), over the same lifetimes as sci
	 * but for the time solo blocks admitted (sci_solo_begin()):
	 * interference is interf.loss_ns / (lifetime_ns - aside_ns), which
	 * counts no call of a block either, a lower bound when
	 * interf.ref is INTERF_REF_NONE, and then interference_bound the
	 * upper one (else equal); has_interference is false when no
	 * execution carried a context (no wait records).  rank is what
	 * reports sort by: the figure where its evidence suffices, the
	 * bound where it does not, SCI without a context.
	 */
	bool has_interference;
	struct interf_estimate interf;
	double interference;
	double interference_bound;
	double rank;
	/* Per-thread scores of the threads not folded away:
	 * report->scores[first_score .. + nr_scores), by SCI descending. */
	size_t first_score;
	uint32_t nr_scores;
};

struct sci_thread_life {
	uint32_t tid;
	uint64_t first_ns;	/* start of its first observed interval */
	uint64_t last_ns;	/* exit, or latest timestamp if still open */
	uint64_t lifetime_ns;	/* T_t */
	bool exited;		/* closed by sci_thread_exit() or sci_finish() */
};

struct sci_report {
	uint64_t now_ns;
	uint64_t events;
	/*
	 * Both sorted by rank (struct sci_result) descending, then SCI,
	 * then loss, then id.
	 */
	size_t nr_blocks;
	struct sci_result *blocks;
	size_t nr_funcs;
	struct sci_result *funcs;
	/* Block scores first, then function scores. */
	struct sci_thread_score *scores;
	/* By tid; threads folded away are not listed. */
	size_t nr_threads;
	struct sci_thread_life *threads;
	uint64_t folded_threads;
	uint64_t total_lifetime_ns;	/* sum of every thread's T_t */
};

/*
 * Compute every score as of @now; threads still open are counted up to
 * @now (or to their latest event, if later).  @now = 0 means the latest
 * timestamp the engine has seen.  Returns NULL on allocation failure.
 */
struct sci_report *sci_report(const struct sci_engine *e, uint64_t now);
void sci_report_free(struct sci_report *r);

/* Lookups by id; NULL when absent.  Linear: meant for tests and tools. */
const struct sci_result *sci_report_block(const struct sci_report *r,
					  uint32_t func_id, uint64_t key);
const struct sci_result *sci_report_func(const struct sci_report *r,
					 uint32_t func_id);
const struct sci_thread_score *
sci_result_thread(const struct sci_report *r, const struct sci_result *res,
		  uint32_t tid);

/*
 * Ideal gain of one block in one thread (paper Fig. 1): if each of the @n
 * executions @d[] had taken min(d), a thread of @thread_ns would have been
 * shorter by (sum(d) - n * min(d)); the gain is that over @thread_ns.
 * A trace cannot say how much shorter a multi-threaded program would be
 * (that depends on its critical path), which is why the engine reports the
 * same ratio per thread and lifetime-weighted over threads instead.
 */
double sci_ideal_gain(const uint64_t *d, size_t n, uint64_t thread_ns);

#endif /* ISPOT_SCI_H */
