// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's events as a session's record source (source.h): what
 * `ispotctl report FILE` and --baseline play through the live session's
 * own code (trace/trace_replay.c).  The frame checks' answers are kept
 * in the cursor as they come (recording_frame_ok() answers from it), the
 * other events go to the session in the order it once took them.
 */
#include <stdint.h>
#include <string.h>

#include "recording/recording.h"

/*
 * Time no record tells, from @from to @to: a damaged chunk's (or more
 * in a row), between the records around it.  Its calls are missing from
 * the report; the threads' time then leaves it out too, or every SCI
 * would be diluted by time whose losses it cannot see.
 */
static void replay_lost(uint64_t from, uint64_t to, session_input_fn fn,
			void *ctx)
{
	/*
	 * Even when the first record after is dated before the last one
	 * read (a late one): no time is lost then, but calls may be.
	 */
	const struct session_input in = { .type = INPUT_LOST, .a = from,
					  .b = to > from ? to : from };

	fn(ctx, &in);
}

/* Where a loss met now began: the last time read, or the trace's start. */
static uint64_t replay_loss_start(const struct recording_source *s)
{
	if (s->loss_since_set)
		return s->loss_since_ns;
	return s->last_ts ? s->last_ts : s->rf->sum.t_enable;
}

/*
 * @in, the first input since the cursor began a chunk after a loss, or a
 * later one before the chunk's first record: the loss starts at the time
 * read before the chunk (its inputs before a record do not move it), and
 * ends at that first record.
 */
static void replay_after_loss(struct recording_source *s,
			      const struct session_input *in,
			      session_input_fn fn, void *ctx)
{
	if (!s->loss_since_set) {
		s->loss_since_ns = replay_loss_start(s);
		s->loss_since_set = true;
	}
	if (in->type != INPUT_RECORDS && in->type != INPUT_RECORD)
		return;
	s->cur.loss_pending = false;
	s->loss_since_set = false;
	replay_lost(s->loss_since_ns, in->rec->ts_ns, fn, ctx);
}

static long replay_read(struct record_source *src, uint64_t horizon,
			session_input_fn fn, void *ctx)
{
	struct recording_source *s = (struct recording_source *)src;
	const struct recording_file *rf = s->rf;
	struct session_input in;
	long records = 0;
	int n;

	/* A recording holds only what was drained: no horizon holds it. */
	(void)horizon;
	while ((n = recording_next_records(rf, &s->cur, &in)) > 0) {
		if (in.type == INPUT_FRAME)
			continue;
		if (s->cur.loss_pending)
			replay_after_loss(s, &in, fn, ctx);
		if (in.type == INPUT_RECORDS) {
			records += in.nr;
			if (in.a > s->last_ts)
				s->last_ts = in.a;
		} else if (in.type == INPUT_RECORD) {
			records++;
			if (in.rec->ts_ns > s->last_ts)
				s->last_ts = in.rec->ts_ns;
		} else if (in.type != INPUT_TRAMPOLINE && in.a > s->last_ts) {
			s->last_ts = in.a;	/* a thread alive then */
		}
		fn(ctx, &in);
	}
	/*
	 * Lost after the last whole chunk, to the session's end: known when
	 * the statistics are (cut before them, the session ends at its last
	 * record kept, and nothing is lost after it).
	 */
	if (!n && (rf->loss_pending || s->cur.loss_pending) &&
	    !s->tail_loss_told &&
	    !(rf->cut_missing & (1u << REC_SEC_STATS))) {
		s->tail_loss_told = true;
		replay_lost(replay_loss_start(s), session_kept_end(&rf->sum),
			    fn, ctx);
	}
	return n < 0 ? -1 : records;
}

void recording_source_init(struct recording_source *s,
			   const struct recording_file *rf)
{
	memset(s, 0, sizeof(*s));
	s->src.read = replay_read;
	s->rf = rf;
}

void recording_source_free(struct recording_source *s)
{
	recording_cursor_free(&s->cur);
}
