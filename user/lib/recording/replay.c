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

static long replay_read(struct record_source *src, uint64_t horizon,
			session_input_fn fn, void *ctx)
{
	struct recording_source *s = (struct recording_source *)src;
	struct session_input in;
	long records = 0;
	int n;

	/* A recording holds only what was drained: no horizon holds it. */
	(void)horizon;
	while ((n = recording_next_records(s->rf, &s->cur, &in)) > 0) {
		if (in.type == INPUT_FRAME)
			continue;
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
