/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pairing entries with exits, per thread, by stack pointer.
 *
 * Each thread has a shadow stack of open entries.  An exit pairs with the
 * entry whose sp is 8 bytes below its own (the return address was popped),
 * so the pairing stays exact when the kernel skips returns (recursion
 * deeper than its limit) or a longjmp leaves frames behind: entries that
 * can no longer return are counted as unpaired, never guessed.
 * Records must be fed in time order per thread.
 */
#ifndef ISPOT_PAIR_H
#define ISPOT_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/ispot.h>

#include "analysis/shape.h"

#define PAIR_MAX_DEPTH	128
/* Words a caller may attach to an entry and get back with its exit. */
#define PAIR_AUX_WORDS	8

/* One paired execution. */
struct pair_exec {
	uint32_t tid;
	uint32_t tgid;
	uint32_t probe_id;
	uint32_t depth;		/* open entries below it in its thread */
	uint16_t entry_cpu;
	uint16_t exit_cpu;
	uint64_t entry_ts;
	uint64_t exit_ts;
	uint64_t callsite;
	uint64_t args[3];
	uint64_t retval;
	/* As given with its entry to pairer_feed_thread(). */
	uint64_t aux[PAIR_AUX_WORDS];
	/*
	 * The probed calls it made directly (entries while it was the
	 * innermost open frame of its thread), by callee id; a block's is
	 * empty: blocks are not frames, and their markers are not calls.
	 */
	struct shape shape;
	/*
	 * Perf counter deltas (ABI 1.3), when both records carried counters:
	 * bit i of counters_valid is set when delta i is this call's own,
	 * i.e. both reads were valid and the thread neither changed CPU nor
	 * was switched out in between (the counters are per CPU).
	 */
	uint32_t nr_counters;
	uint32_t counters_valid;
	uint64_t counter_delta[ISPOT_MAX_COUNTERS];	/* 0 unless valid */
};

struct pair_stats {
	uint64_t paired;
	uint64_t unpaired_entries;	/* never returned (skipped, longjmp) */
	uint64_t unpaired_exits;	/* no entry seen (attached mid-call) */
	uint64_t overflow;		/* entries dropped beyond PAIR_MAX_DEPTH */
	/* Returns of calls open when records were lost: not scored. */
	uint64_t open_at_loss;
};

typedef void (*pair_cb)(const struct pair_exec *exec, void *ctx);

struct pairer;
struct pair_frame;

/*
 * One thread's open entries and blocks.  A caller that keeps its own
 * per-thread state (the pipeline, the Perfetto writer) embeds one there,
 * zeroed, and feeds it with pairer_feed_thread(), so that the pairer
 * never looks the thread up; a zeroed one is a thread with nothing open.
 * The fields are pair.c's.  Frames grow on demand: most threads never
 * nest deeply.  Open blocks (begin markers without their end yet) have a
 * stack of their own: a block is not a call, so no return unwinds it,
 * and it may begin in one function and end in another.
 */
struct pair_thread {
	struct pair_frame *frames;	/* open entries, innermost last */
	size_t cap;
	uint32_t depth;
	uint32_t nr_blocks;
	struct pair_frame *blocks;
	size_t cap_blocks;
	uint64_t exit_ts;	/* pair_thread_exit_at(), 0: alive */
	/*
	 * The innermost frame shares the sp of a return just paired: a tail
	 * call's caller, whose return is the thread's next record (the
	 * chained uretprobes fire together), or a frame whose return was
	 * lost.  Anything else next ends it (pair.c, pair_settle()).
	 */
	bool chain_pending;
	/*
	 * Records of the thread were lost (pair_thread_lost()): a frame
	 * opened before this time may have lost its return, so the return
	 * that meets it may be another call's, and does not pair.
	 */
	uint64_t lost_before;
};

struct pairer *pairer_new(pair_cb cb, void *ctx);
/*
 * The target's uretprobe trampoline ([uprobes] in /proc/PID/maps).  An
 * entry whose call site is in it was reached by a tail call from another
 * probed function, so it shares its caller's sp without having unwound it.
 */
void pairer_set_trampoline(struct pairer *p, uint64_t start, uint64_t end);
/*
 * Block markers (USDT probes, see elf.h's elf_resolve_block()) are entry
 * probes whose ENTRY records open and close a block: @probe_id's records
 * begin (@end false) or end block number @block (< 2^30, the caller's
 * choice; several sites may share it).  An end closes the thread's
 * innermost open block of the same number, whatever functions returned
 * in between, and the execution carries the begin marker's probe id.
 * Returns 0, -EINVAL (@block too large) or -ENOMEM.
 */
int pairer_set_marker(struct pairer *p, uint32_t probe_id, uint32_t block,
		      bool end);

/*
 * Entries of @probe_id count as calls of callee @id in the shapes of
 * their callers (pair_exec.shape).  Without it, a probe is its own id.
 * Returns 0 or -ENOMEM.
 */
int pairer_set_callee(struct pairer *p, uint32_t probe_id, uint32_t id);

/*
 * Feed one ENTRY or EXIT record of the thread whose state is @t (other
 * kinds are ignored), attaching @aux (PAIR_AUX_WORDS, or NULL for zeros)
 * to an entry.  Returns 1 when @rec closed a call (*@out is that
 * execution, the callback is not called), 0 when not, or -ENOMEM.
 */
int pairer_feed_thread(struct pairer *p, struct pair_thread *t,
		       const struct ispot_record *rec, const uint64_t *aux,
		       struct pair_exec *out);
/*
 * The same for a caller that has told an ENTRY from an EXIT already (the
 * pipeline): a record's kind is as good as random from one record to the
 * next, so each test of it is a branch mispredicted a third of the time.
 */
int pairer_feed_entry(struct pairer *p, struct pair_thread *t,
		      const struct ispot_record *rec, const uint64_t *aux,
		      struct pair_exec *out);
int pairer_feed_exit(struct pairer *p, struct pair_thread *t,
		     const struct ispot_record *rec, struct pair_exec *out);
/*
 * @t's open entry @up frames out from the innermost (0): its probe (0 if
 * none), its return address read at entry (0 if none: a NO_CALLSITE
 * probe, whose call site only its exit tells, or no such entry), its
 * record's timestamp (0 if none).
 */
uint32_t pair_thread_open_probe(const struct pair_thread *t, uint32_t up);
uint64_t pair_thread_open_callsite(const struct pair_thread *t, uint32_t up);
uint64_t pair_thread_open_ts(const struct pair_thread *t, uint32_t up);
/* Its stack pointer at entry: where its return address is (0 if none). */
uint64_t pair_thread_open_sp(const struct pair_thread *t, uint32_t up);
/* The thread exited: its open entries will never return. */
void pairer_thread_ended(struct pairer *p, struct pair_thread *t);
/*
 * The same, at @ts, for a merged stream in which the EXIT of its last call
 * may come after its exit (another CPU's ring, published late): records
 * from before @ts still pair; the first one from @ts on (a reused tid)
 * counts the open entries as unpaired, as does pairer_flush().
 */
void pair_thread_exit_at(struct pair_thread *t, uint64_t ts);
/* Count @t's open entries as unpaired and free them (not @t itself). */
void pairer_thread_forget(struct pairer *p, struct pair_thread *t);
/*
 * Records of @t were lost, up to before @before (a recording's damaged
 * chunk, a full ring's drops): its frames opened before then stay open
 * (the thread is still inside them, as far as anyone can tell) but none
 * of them pairs: the return that closes one is counted as unpaired and
 * in stats.open_at_loss, as it may be a later call's whose entry was
 * lost, and the pair would be one call made of several and the lost
 * stretch.  pairer_all_lost() is the same for every thread at once.
 */
void pair_thread_lost(struct pair_thread *t, uint64_t before);
void pairer_all_lost(struct pairer *p, uint64_t before);
/* Records of @t may have been lost before this (of it or of every thread). */
uint64_t pair_lost_before(const struct pairer *p, const struct pair_thread *t);
/* End of trace for @t: count every open entry as unpaired. */
void pairer_thread_flush(struct pairer *p, struct pair_thread *t);

/*
 * The same by tid, for a caller without per-thread state: the pairer
 * keeps a map of its own, and calls the callback for each execution.
 * Feed one ENTRY or EXIT record; other kinds are ignored.
 */
int pairer_feed(struct pairer *p, const struct ispot_record *rec);
/* The thread exited: its open entries will never return. */
void pairer_thread_exit(struct pairer *p, uint32_t tid);
/* Forget @tid altogether (its open entries count as unpaired). */
void pairer_forget(struct pairer *p, uint32_t tid);
/* End of trace: count every open entry as unpaired. */
void pairer_flush(struct pairer *p);
const struct pair_stats *pairer_stats(const struct pairer *p);
void pairer_free(struct pairer *p);

#endif /* ISPOT_PAIR_H */
