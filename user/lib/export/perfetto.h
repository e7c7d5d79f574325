/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records of a trace as a Perfetto trace (ui.perfetto.dev,
 * trace_processor): the native protobuf format, a stream of TracePackets
 * of TrackEvents, encoded by hand (util/protobuf.h).  Streaming: fed every
 * record in drain order, it writes as it goes and keeps only what is open
 * (each thread's open calls and wait, each futex word's latest wake).
 *
 * Tracks.  The traced process is a process track; each thread that records
 * something is a thread track under it (ThreadDescriptor: pid, tid, and its
 * name where the caller knows it at its first event; described again
 * with the comm its TASK_EXIT gives, ABI 1.10, where that differs), with
 * one child track, "waits".
 *
 *  - The thread track holds the traced calls, as slices named by the
 *    caller (the function, and its key when the entry tells it).  Entries
 *    are paired with exits by the pairer (analysis/pair.h), as the scores
 *    pair them: a frame it gives up (longjmp, a skipped return) closes
 *    when it does; an exit with no entry opens nothing.
 *  - The waits track holds each futex wait (FUTEX_ENTER of a waiting op to
 *    its FUTEX_EXIT, "futex wait") and each stretch off the CPU, named by
 *    its cause as the report names causes: "futex" (inside a futex call),
 *    "blocked", "runqueue" (preempted).  Off-CPU stretches nest inside
 *    futex waits.  Why a track of their own: the calls come from uprobes
 *    and the waits from the scheduler, and each stream is repaired on its
 *    own (a frame the pairer gives up late, a lost SWITCH_IN), so a repair
 *    of one never cuts a slice of the other.
 *  - A futex wake is an instant, "futex wake", on the thread track, inside
 *    the call that issued it, and starts flows (flow_ids).  A wait that the
 *    timeline counts as woken by another traced thread (the latest wake on
 *    its word, after it began, and it returned 0: timeline.h,
 *    timeline_wake_ended_wait()) ends one of them (terminating_flow_ids on
 *    its end), so an arrow goes from the waker's call to the wait it
 *    ended.  A wake starts one flow per waiter it may wake (its val), at
 *    most PERFETTO_WAKE_FLOWS: a broadcast's first waiters get arrows.
 *
 * Time.  Records are stamped with CLOCK_MONOTONIC.  The first packet is
 * a ClockSnapshot of MONOTONIC, BOOTTIME and an incremental clock of the
 * sequence that starts at the same instant, makes MONOTONIC the trace's
 * clock and the incremental one every packet's default
 * (trace_packet_defaults).  An event's time is then the difference from
 * the last one's, two or three bytes where MONOTONIC's takes seven; one
 * before the last (another ring's record, read late) is written whole,
 * on MONOTONIC, which leaves the incremental clock's running time alone.
 * Events of one thread never go back in time: a record behind its
 * thread's latest counts at that latest time, so every slice ends after
 * it begins.
 *
 * Names.  A slice's or instant's name is interned: defined once, in the
 * packet of its first use (interned_data), and given by its id after
 * (name_iid).  Every event says it needs the sequence's state, which the
 * first packet clears, as the Perfetto SDK writes them.  The table holds
 * at most PF_NAMES_MAX names (names carry keys, which the target picks);
 * names past it are written whole.  A call's name is formatted once per
 * probe and key where the caller says it cannot change
 * (perfetto_names.call_key), and again when what it is made from does
 * (perfetto_names.generation).
 *
 * Balance.  Every slice that begins ends: at its end record; when its
 * thread exits (its TASK_EXIT, or an exit the caller learnt otherwise:
 * perfetto_thread_exit()), records of it that come later are left out;
 * where records were lost (perfetto_lost()); and at perfetto_close(), at
 * the latest timestamp written.
 *
 * Size.  A trace takes some 16 to 25 bytes a record (a call's begin and
 * end, each a packet with its time and track; Documentation/
 * evaluation.rst), so a busy target fills a disk in hours: it stops at a
 * bound (perfetto_set_max_size()).  Room for the end of every
 * slice still open is kept, so the file stays whole and balanced: the
 * slices open when it stops end at the latest timestamp written, and the
 * records after are left out.
 */
#ifndef ISPOT_PERFETTO_H
#define ISPOT_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/ispot.h>

/* Flows a wake may start: the waits it ends get one each, in turn. */
#define PERFETTO_WAKE_FLOWS	8
/*
 * Futex words whose wakes are remembered (the target picks how many it
 * wakes): a wake on a word past these still gets its instant, no arrows.
 */
#define PERFETTO_WORDS_MAX	(1u << 18)
/*
 * The least bound perfetto_set_max_size() takes: the first packets and
 * one record's worth fit in it (perfetto_internal.h, PF_RECORD_MAX).
 */
#define PERFETTO_MIN_SIZE	4096

struct perfetto_names {
	/*
	 * The name of the call @entry (an ENTRY record) opens, into @buf:
	 * its function, and its key where the entry tells it.  Returns
	 * the length, or -1 when the probe is no traced function (a block's
	 * marker, an unknown probe): its records are left out.
	 */
	int (*call)(void *ctx, const struct ispot_record *entry, char *buf,
		    size_t len);
	/*
	 * Optional: what call() names @entry by beside its probe, into
	 * *@key, *@keyed false when it names it by its function alone.
	 * Returns 1 if call() would give the same name for every entry of
	 * the probe with that key (while generation() says the same), 0 if
	 * it may not, -1 if call() would give -1.  With it, the writer
	 * formats a probe's name once per key, not once per call.
	 */
	int (*call_key)(void *ctx, const struct ispot_record *entry,
			uint64_t *key, bool *keyed);
	/*
	 * Optional, with call_key: a number that changes when what call()
	 * names from does (a live target's maps).  A name kept under another
	 * is formatted again.
	 */
	uint64_t (*generation)(void *ctx);
	/* Thread @tid's name into @buf; -1 if unknown (no name is given). */
	int (*thread)(void *ctx, uint32_t tid, char *buf, size_t len);
	void *ctx;
};

/* CLOCK_MONOTONIC and CLOCK_BOOTTIME read together. */
struct perfetto_clock {
	uint64_t monotonic_ns;
	uint64_t boottime_ns;
};

struct perfetto;

/*
 * Start a trace of process @pid, named @process, on @out (the caller's,
 * which it closes after perfetto_close()).  @clock: when the records were
 * taken, NULL for now (a live trace).  Returns NULL without memory.
 */
struct perfetto *perfetto_open(FILE *out, uint32_t pid, const char *process,
			       const struct perfetto_names *names,
			       const struct perfetto_clock *clock);
/*
 * The target's uretprobe trampoline, as pairer_set_trampoline() takes it,
 * so that tail calls pair here as they do for the scores.
 */
void perfetto_set_trampoline(struct perfetto *pf, uint64_t start,
			     uint64_t end);
/* Feed one record, in drain order; other processes' records too. */
void perfetto_record(struct perfetto *pf, const struct ispot_record *rec);
/* @tid exited at @ts: what it has open ends there. */
void perfetto_thread_exit(struct perfetto *pf, uint32_t tid, uint64_t ts);
/*
 * Records were lost from @ts on (a damaged chunk of a recording): every
 * thread's open calls end there, as the pipeline scores none of them
 * (pipeline_lost()); a return after the loss ends nothing.  A LOST
 * record (perfetto_record()) does the same for its thread.
 */
void perfetto_lost(struct perfetto *pf, uint64_t ts);
/*
 * Write no record that could take the file past @bytes (0: no bound; a
 * bound under PERFETTO_MIN_SIZE is taken as that): the first that could
 * stops the trace (Size, above).
 */
void perfetto_set_max_size(struct perfetto *pf, uint64_t bytes);
/*
 * Whether the trace stopped at its bound, and if so the time of the
 * first record it left out in *@ts.
 */
bool perfetto_full(const struct perfetto *pf, uint64_t *ts);
/*
 * End every open slice at the latest timestamp written and free @pf.
 * Returns 0, -ENOMEM (an event could not be encoded) or -EIO (a write
 * failed: ferror(@out) says more); the file is then not a whole trace.
 */
int perfetto_close(struct perfetto *pf);

#endif /* ISPOT_PERFETTO_H */
