/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When solo blocks start and end in a live session (ISPOT_IOC_SOLO,
 * Documentation/solo-blocks.rst): short blocks at random times, each as
 * long as a few dozen of the traced calls seen so far, with a holder's
 * hold bounded by a few of them.  The share the user asks for bounds what
 * the blocks cost the program: the time its threads wait at the gate, per
 * thread, over the run.  Blocks come as often as that allows, up to
 * SOLO_MAX_COVER of the run: a program whose threads seldom meet in the
 * traced functions pays little for a block, and gets many.
 * "A call" is the longest mean call of a traced function: when traced
 * functions nest, the outermost one is what the gate holds.
 * The session's rounds ask solo_sched_next() when to wake, and
 * solo_sched_act() does what is due.
 */
#ifndef ISPOT_SOLO_SCHED_H
#define ISPOT_SOLO_SCHED_H

#include <stdbool.h>
#include <stdint.h>

/* A block holds about this many mean calls... */
#define SOLO_CALLS_PER_BLOCK	32
/* ...within these bounds. */
#define SOLO_MIN_BLOCK_NS	(5 * 1000 * 1000ull)
#define SOLO_MAX_BLOCK_NS	(200 * 1000 * 1000ull)
/*
 * A gate wait lasts at most this many mean calls, within these bounds:
 * past it, the holder is taken to wait for another thread of the gate.
 */
#define SOLO_WAIT_CALLS		8
#define SOLO_MIN_WAIT_NS	(1000 * 1000ull)
#define SOLO_MAX_WAIT_NS	(10 * 1000 * 1000ull)
/*
 * Blocks cover at most this share of the run, however little they cost:
 * most calls stay the program's own, with its interference.
 */
#define SOLO_MAX_COVER		0.25
/*
 * With no call seen yet, look again this much later: soon, as ispotd's
 * first burst of a target lasts 200 ms.
 */
#define SOLO_RETRY_NS		(10 * 1000 * 1000ull)

struct ispot_solo;
/* ISPOT_IOC_SOLO on the session: 0, or -1 with errno set. */
typedef int (*solo_ioctl_fn)(void *ctx, struct ispot_solo *arg);

struct solo_sched {
	solo_ioctl_fn ioctl;
	void *ctx;
	double share;		/* the cost bound, of the run; 0: no blocks */
	bool on;		/* a block is on */
	bool stopped;		/* the module refused: no more blocks */
	uint64_t next_ns;	/* when the next start or end is due */
	uint64_t block_ns;	/* the last block's length */
	uint64_t rng;		/* xorshift64 state, never 0 */
	uint64_t blocks;	/* started */
	uint64_t started_ns;	/* when the block on started */
	uint64_t on_ns;		/* how long the blocks ended were on */
	bool burst;		/* solo_sched_burst() */
	uint64_t t0;		/* the session's start */
	uint64_t postponed;	/* starts put off for the cost bound */
	double cover;		/* the most of the run blocks cover; 0: */
				/* SOLO_MAX_COVER, or share if more */
	unsigned int threads;	/* the program's, seen so far; 0: unknown */
};

/*
 * Blocks costing at most @share of the run from @now on, started and
 * ended with @fn(@ctx, ...); @share 0 turns them off.
 */
void solo_sched_init(struct solo_sched *s, double share, uint64_t now,
		     uint64_t seed, solo_ioctl_fn fn, void *ctx);
/*
 * Blocks cover at most @cover of the run, however little they cost.
 * ispotd sets its share: its budget pays for the gate's waits against the
 * target's CPU time, which a blocked pool hardly uses.
 */
void solo_sched_cap(struct solo_sched *s, double cover);
/*
 * The session is one of ispotd's bursts, shorter than the run a block's
 * cost needs: its first block starts before the session has paid for it,
 * at a random moment (solo_sched_init()), and the daemon's budget, which
 * counts the gate's waits across bursts, pays.  Any other session pays
 * ahead for each block, the first included.
 */
void solo_sched_burst(struct solo_sched *s);
/*
 * The program has @threads threads so far, the count the cost passed to
 * solo_sched_act() is divided by: a first block is paid ahead at the most
 * it can cost them, (threads - 1) / threads of its length.
 */
void solo_sched_threads(struct solo_sched *s, unsigned int threads);
/* When solo_sched_act() is next due; UINT64_MAX if never. */
uint64_t solo_sched_next(const struct solo_sched *s);
/*
 * Start or end a block if one is due at @now, sized from the traced
 * calls' mean duration so far (@mean_call_ns, 0: none seen), unless the
 * blocks so far cost the program more than its share (@cost_ns: its
 * threads' waits at the gate over how many threads it has): then the
 * start waits until the run has grown enough.  A module that refuses (the
 * target gone) stops the blocks quietly; the report says how many were
 * made.
 */
void solo_sched_act(struct solo_sched *s, uint64_t now,
		    uint64_t mean_call_ns, uint64_t cost_ns);

#endif /* ISPOT_SOLO_SCHED_H */
