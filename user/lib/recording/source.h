/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a session's inputs come from, as one stream: the records, and the
 * inputs that came from elsewhere at their point in it (a thread seen or
 * gone by a /proc scan, the uprobe trampoline's range).  A live session
 * reads its drained rings through this interface (trace/trace_live.c), a
 * replay reads a recording through it (recording/replay.c); the session
 * takes both the same way (trace_feed()), so a replay goes exactly the
 * path of a live session.
 *
 * The drain hands records out in rounds, each up to a horizon, by a
 * callback (analysis/drain.h): a source does the same.
 */
#ifndef ISPOT_SOURCE_H
#define ISPOT_SOURCE_H

#include <stdint.h>
#include <linux/ispot.h>

/*
 * One input; the numbers are also a recording's event types
 * (Documentation/recording.rst), and must stay below 8: 8 to 15 are a
 * recording's MEDIUM ops (recording_codec.h).
 */
enum session_input_type {
	INPUT_RECORD = 1,	/* @rec: one ring record, all its slots */
	INPUT_THREAD_SEEN,	/* @tid alive at @a: pipeline_thread_seen */
	INPUT_THREAD_EXIT,	/* @tid alive at @a, gone at @b */
	INPUT_TRAMPOLINE,	/* [@a, @b): pairer_set_trampoline */
	INPUT_FRAME,		/* a recording's: frame @a is code if @b */
	/*
	 * Never in a file: a replay's run of @nr records at @rec, back to
	 * back (each's slots after it), the latest time among them @a.
	 * As many INPUT_RECORDs, in one call instead of one each.
	 */
	INPUT_RECORDS = 16,
	/*
	 * Never in a file: a replay's damaged chunk (or chunks) left out,
	 * from the last time read before, @a (or the trace's start), to
	 * the first record after, @b (or the end of the kept time): time no
	 * record of it tells.
	 */
	INPUT_LOST,
};

struct session_input {
	uint8_t type;			/* enum session_input_type */
	const struct ispot_record *rec;
	uint32_t tid;
	uint32_t nr;			/* INPUT_RECORDS */
	uint64_t a, b;
};

typedef void (*session_input_fn)(void *ctx, const struct session_input *in);

struct record_source {
	/*
	 * Hand @fn, in the order the session must take them, the inputs
	 * older than @horizon (UINT64_MAX: all that are left).  Returns how
	 * many records it gave, or -1 after one line saying why.
	 */
	long (*read)(struct record_source *src, uint64_t horizon,
		     session_input_fn fn, void *ctx);
};

#endif /* ISPOT_SOURCE_H */
