/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Draining the per-CPU rings and merging them into one time-ordered stream.
 *
 * Each ring is written by one CPU in time order, so the merge is a k-way
 * merge of the ring heads.  What it must not do is hand out a record while
 * an earlier one may still be on its way into another ring: a producer
 * reads the clock a little before it publishes the record.  So a round
 * only emits records older than a horizon, which the caller sets to
 * "when I started this round, minus a slack" (DRAIN_SLACK_NS); newer
 * records stay in their ring, unreleased, for the next round.  Records are
 * read in place in the mapping: the drain itself allocates nothing per
 * record, and its memory does not depend on the event rate.
 *
 * A record that still arrives behind the merged stream (published more
 * than the slack after its timestamp) is passed on anyway and counted as
 * late: pairing only needs each thread's own records in order, and a thread
 * cannot produce its next record before it has published the previous one.
 *
 * The rings need not come from the module: the pipeline benchmark and the
 * unit tests build them in ordinary memory and pass their own release
 * function in place of ISPOT_IOC_RING_CONSUME.
 */
#ifndef ISPOT_DRAIN_H
#define ISPOT_DRAIN_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <linux/ispot.h>

/* Generous: publication normally follows the clock read by ~1 us. */
#define DRAIN_SLACK_NS		(20 * 1000 * 1000ull)
/*
 * A record occupies at most this many slots: an off-CPU stack, its frames
 * and its words (ABI 1.8); a full call stack takes 1 + 4.
 */
#define DRAIN_MAX_SLOTS		(1 + (ISPOT_STACK_MAX_FRAMES + 7) / 8 + \
				 ISPOT_OFFCPU_MAX_WORDS / 8)

/*
 * A record's first slot as the drain takes it (@nslots and @ts_ns as read
 * once from it): 1 to DRAIN_MAX_SLOTS slots, and a time (no clock reads
 * UINT64_MAX, and no horizon would ever pass it).  A recording's reader
 * holds its records to the same.
 */
static inline bool drain_record_ok(uint32_t nslots, uint64_t ts_ns)
{
	return nslots && nslots <= DRAIN_MAX_SLOTS && ts_ns != UINT64_MAX;
}

/* A comm: at most 15 bytes and its NUL (TASK_COMM_LEN). */
#define RECORD_COMM_LEN		16

/*
 * The comm a TASK_EXIT record gives its thread (ABI 1.10: data[1..2],
 * bytes in memory order), into @name: false if it gives none (an older
 * module's 0).  Cut at its first NUL or 15 bytes, whatever the words hold.
 */
static inline bool record_exit_comm(const struct ispot_record *rec,
				    char name[RECORD_COMM_LEN])
{
	_Static_assert(RECORD_COMM_LEN == 2 * sizeof(rec->data[1]),
		       "a comm is data[1] and data[2]");
	if (rec->kind != ISPOT_REC_TASK_EXIT)
		return false;
	memcpy(name, &rec->data[1], RECORD_COMM_LEN);
	name[RECORD_COMM_LEN - 1] = 0;
	return name[0];
}

struct drain_stats {
	uint64_t records;	/* emitted */
	uint64_t late;		/* emitted behind the merged stream */
	uint64_t corrupt;	/* slots skipped as malformed */
	uint64_t rounds;
};

/* Give slots before @tail of ring @cpu back to the producer. */
typedef int (*drain_release_fn)(void *ctx, uint32_t cpu, uint64_t tail);
/*
 * One record.  A multi-slot record (a call stack) is contiguous in memory
 * even when it wrapped around the end of its ring.
 */
typedef void (*drain_record_fn)(void *ctx, const struct ispot_record *rec);

struct drain;

/*
 * @bases[i] is the start of ring i's mapping (control page, then data at
 * ctrl->data_offset).  Returns NULL on allocation failure or if a control
 * page is malformed (nr_slots not a power of two).
 */
struct drain *drain_new(void *const *bases, uint32_t nr_rings,
			drain_release_fn release, void *release_ctx);
void drain_free(struct drain *d);

/*
 * Emit, in time order, every published record with ts < @horizon, then
 * release the consumed slots.  @horizon = UINT64_MAX empties the rings.
 * Returns the number of records emitted, or a negative errno if a release
 * failed.
 */
long drain_round(struct drain *d, uint64_t horizon, drain_record_fn fn,
		 void *ctx);

/*
 * Show @fn each record published since the last peek, whatever its age,
 * without consuming it: drain_round() still emits it in time order.  Only
 * the first slot of a record is shown (what a STACK record's frames are
 * not part of).  For what cannot wait for the horizon: a futex word must
 * be named while the process that waits on it is alive.
 */
void drain_peek(struct drain *d, drain_record_fn fn, void *ctx);

/*
 * Slots published but not emitted, as of the last round (what the round
 * held back for the horizon); 0 before the first round.
 */
uint64_t drain_pending(const struct drain *d);
/* The oldest held-back timestamp, UINT64_MAX when nothing is. */
uint64_t drain_oldest_pending(const struct drain *d);
const struct drain_stats *drain_stats(const struct drain *d);
/*
 * Records the producers lost so far because a ring was full, summed over
 * the rings' control pages: read in place, so a live view can show drops
 * as they happen without asking the module.
 */
uint64_t drain_dropped(const struct drain *d);

#endif /* ISPOT_DRAIN_H */
