/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sampled stack whose return addresses return probes took, completed
 * when the calls that hold them return.
 *
 * A uretprobe replaces its call's return address on the user stack with
 * the address of the uprobe trampoline ([uprobes]) until the call returns.
 * A stack walked inside a probed call therefore reads the trampoline
 * where the probed call's return address was (a traced function calling
 * another, or tail-calling it: then the call site itself), and the walk
 * would be cut there (stacks.h, cut_tramp).  The frame pointers past it
 * are whole, so only those words are missing.  The module does not read
 * a call site at entry (ISPOT_PROBE_NO_CALLSITE: the EXIT record carries
 * it), so the words are known when the calls that hold them return: the
 * stack waits for them, and is counted once complete.  A thread holds up
 * to STACKS_WAIT_MAX waiting stacks; alike ones (the same frames waiting
 * for the same calls) are held as one with their count, so that a loop
 * inside one long call holds one stack per call site.
 *
 * The k-th trampoline word of a walk, innermost first, is matched with the
 * k-th innermost open call's, the calls that share a stack pointer (a
 * tail call and its caller: the kernel chains their return probes on one
 * slot) taken as one.  Only where the words are exactly as many as those
 * slots: more show a return probe that is none of the pairer's calls
 * (another tracer's); fewer, a slot the walk did not read (a traced
 * function without a frame pointer of its own, passed over, or a walk
 * that ended first), after which the match would be off by one.  Not
 * where entries are sampled (a call not recorded has a return probe
 * too), nor where records of the thread were lost since its outermost
 * open call began (an entry lost in it).  A word is put back only from
 * the return the pairer pairs with the very call it was matched with (its
 * entry time): not after a longjmp, a loss told before that return, the
 * thread's end or the tid's reuse.  Otherwise the stack is counted as it
 * is, cut at its first word not put back, as it was before.
 *
 * What the matching cannot see, and where it goes wrong: a slot it does
 * not know of and one the walk passes over together (another tracer's
 * return probe inside the pairer's calls, with the walk ending right
 * after its slot or passing over a traced function without a frame
 * pointer; a call past the kernel's 64 nested return probes), which
 * match the words one slot off; and a drop of the thread's records told
 * by its ring after the return that meets the awaited call (a ring tells
 * a drop at its next record, and the thread may have moved to another
 * CPU): a later call at that place, its entry dropped, returns in its
 * stead, as the pairer pairs it.  Each puts one of the thread's return
 * addresses at the wrong place.
 */
#ifndef ISPOT_STACKS_WAIT_H
#define ISPOT_STACKS_WAIT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/ispot.h>

#include "analysis/pair.h"
#include "analysis/stacks.h"

#define STACKS_WAIT_MAX		16

/* One stack waiting, for @calls sampled entries that had it. */
struct stack_waiter {
	uint32_t func_id;
	uint32_t nr;		/* frames */
	uint32_t next;		/* the trampoline word the return gives */
	uint32_t base;		/* the awaited calls' outermost, in the pairer */
	bool chain;		/* more than one call: a tail call's chain */
	uint64_t sp;		/* their stack pointer at entry */
	uint64_t entry_ts;	/* the outermost's entry time */
	uint64_t last_ts;	/* when an alike stack was last added */
	uint64_t calls;
	uint64_t frames[STACKS_MAX_FRAMES];
};

/*
 * A thread's stacks waiting: @nr of them in @v (@cap allocated), and the
 * largest of their bases: records of calls deeper than that move none.
 */
struct stacks_wait {
	uint32_t nr, cap;
	uint32_t deepest;
	struct stack_waiter *v;
};

/*
 * A stack of @func_id, @nr @frames taken at @ts by a thread whose open
 * calls are @t, whose records may have been lost before @lost_before
 * (pair_lost_before()): counted in @st now, or, where trampoline words
 * in it wait for calls to return, held in *@w (allocated on first use;
 * past STACKS_WAIT_MAX, the one added to least recently is counted as it
 * is).  0, or -ENOMEM (the stack counted as it is, if it could be).
 */
int stacks_wait_add(struct stacks *st, struct stacks_wait **w,
		    const struct pair_thread *t, uint32_t func_id,
		    const uint64_t *frames, uint32_t nr, uint64_t ts,
		    uint64_t lost_before);

/*
 * After the pairer took @rec, an ENTRY or EXIT of @w's thread (@t), and
 * paired it into @e (NULL: it paired nothing): each return a stack waits
 * for puts its word back, and a stack complete or left without its return
 * is counted.  0 or -ENOMEM.
 */
int stacks_wait_step(struct stacks *st, struct stacks_wait *w,
		     const struct pair_thread *t,
		     const struct ispot_record *rec,
		     const struct pair_exec *e);

/* The stacks @w holds, counted as they are (cut at what is missing). */
int stacks_wait_flush(struct stacks *st, struct stacks_wait *w);
/* Free @w (NULL: nothing), whose stacks stacks_wait_flush() counted. */
void stacks_wait_free(struct stacks_wait *w);

static inline bool stacks_wait_held(const struct stacks_wait *w)
{
	return w && w->nr;
}

#endif /* ISPOT_STACKS_WAIT_H */
