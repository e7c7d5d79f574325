/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Solo blocks as the records tell them (ABI 1.6, Documentation/
 * solo-blocks.rst): the blocks' SOLO_BEGIN and SOLO_END, and the GATE
 * record the module writes before the ENTRY of a call that met the gate.
 *
 * What a run cost and gave: how much of it the blocks covered, how long
 * threads waited at the gate, how many waits timed out, which blocks were
 * contaminated, and how many calls were gated and how many of those are
 * references (clean: see solo_call_clean()).
 */
#ifndef ISPOT_SOLO_H
#define ISPOT_SOLO_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/ispot.h>

/*
 * A call's gate word, carried from its ENTRY to its EXIT: the GATE
 * record's ISPOT_GATE_* flags, and these.
 */
#define SOLO_GATE_SEEN		(1ull << 32)	/* its ENTRY had a GATE */
/* No other thread was inside a traced call when it entered. */
#define SOLO_GATE_ALONE		(1ull << 33)

struct solo_stats {
	uint64_t blocks;		/* SOLO_BEGIN records */
	uint64_t contaminated;		/* blocks a gate wait timed out in */
	uint64_t timeouts;		/* gate waits that timed out */
	uint64_t admitting_ns;		/* the blocks' admission time */
	uint64_t gate_waits;		/* calls that waited at the gate */
	uint64_t gate_wait_ns;		/* and how long, in all */
	uint64_t gated_calls;		/* paired calls the gate admitted */
	uint64_t reference_calls;	/* of those, clean: references */
	/*
	 * Blocks that began with a thread already inside a traced call: the
	 * gate lets it finish, and no other thread's call is alone until it
	 * returns (solo_call_clean()); and the longest block's admission.
	 */
	uint64_t crowded;
	uint64_t longest_block_ns;
	/* The block whose END has not come yet (0: none). */
	uint32_t open_block;
	uint64_t open_begin_ts;
	uint64_t open_deadline;
};

void solo_block_record(struct solo_stats *s, const struct ispot_record *rec);
void solo_gate_record(struct solo_stats *s, const struct ispot_record *rec);
/*
 * The end of the records: a block without its END (a recording cut
 * short) admitted until its deadline or @end_ts, whichever came first.
 */
void solo_finish(struct solo_stats *s, uint64_t end_ts);
/* Add @b's figures to @sum (ispotd's windows, its bursts). */
void solo_stats_add(struct solo_stats *sum, const struct solo_stats *b);

/*
 * Whether a paired call whose entry carried @gate_word is a reference
 * call: admitted by the gate (or nested in the holder's call), with no
 * other thread inside a traced call when it entered, and, when the
 * timeline says (@waited_ns), no wait in it that another thread ended.
 * Not the call that took the gate (ABI 1.7's TAKEN), the first of its
 * holder's in the block: it follows other threads' work on whatever they
 * share, as no call of a thread alone does.  Decided from its start and
 * its own waits, never from its length, so that long calls are not left
 * out more often than short ones.
 */
static inline bool solo_call_clean(uint64_t gate_word, uint64_t waited_ns)
{
	return (gate_word & SOLO_GATE_SEEN) && (gate_word & SOLO_GATE_ALONE) &&
	       (gate_word & (ISPOT_GATE_ADMITTED | ISPOT_GATE_NESTED)) &&
	       !(gate_word & ISPOT_GATE_TAKEN) && !waited_ns;
}

/*
 * Blocks admitted calls, not all timed out, and still none was clean,
 * with at least half of those that did not time out begun with a thread
 * inside a traced call: the calls under way across the blocks kept
 * every other call from running alone (report.c, warn_solo_crowded()).
 */
static inline bool solo_crowded_out(const struct solo_stats *s)
{
	return s && s->blocks && s->gated_calls && !s->reference_calls &&
	       s->contaminated < s->blocks && s->crowded &&
	       2 * s->crowded >= s->blocks - s->contaminated;
}

#endif /* ISPOT_SOLO_H */
