// SPDX-License-Identifier: GPL-2.0
/* Solo blocks' records into run figures; see solo.h. */
#include "analysis/solo.h"

/* Admission ran from the begin to the deadline or the end, if earlier. */
static void solo_close(struct solo_stats *s, uint64_t end_ts)
{
	uint64_t end = end_ts < s->open_deadline ? end_ts : s->open_deadline;

	if (end > s->open_begin_ts)
		s->admitting_ns += end - s->open_begin_ts;
	s->open_block = 0;
}

void solo_block_record(struct solo_stats *s, const struct ispot_record *rec)
{
	if (rec->kind == ISPOT_REC_SOLO_BEGIN) {
		/* A BEGIN whose block's END was lost ends that block. */
		if (s->open_block)
			solo_close(s, rec->ts_ns);
		s->blocks++;
		if (rec->data[1] > rec->ts_ns &&
		    rec->data[1] - rec->ts_ns > s->longest_block_ns)
			s->longest_block_ns = rec->data[1] - rec->ts_ns;
		s->open_block = (uint32_t)rec->data[0];
		s->open_begin_ts = rec->ts_ns;
		s->open_deadline = rec->data[1];
		return;
	}
	if (rec->data[1] & ISPOT_SOLO_CONTAMINATED)
		s->contaminated++;
	if (s->open_block && s->open_block == (uint32_t)rec->data[0])
		solo_close(s, rec->ts_ns);
}

void solo_gate_record(struct solo_stats *s, const struct ispot_record *rec)
{
	if (rec->data[2] & ISPOT_GATE_WAITED) {
		s->gate_waits++;
		s->gate_wait_ns += rec->data[1];
	}
	/* Each wait that timed out says so, even one past its block's END. */
	if (rec->data[2] & ISPOT_GATE_TIMEOUT)
		s->timeouts++;
}

void solo_finish(struct solo_stats *s, uint64_t end_ts)
{
	if (s->open_block)
		solo_close(s, end_ts);
}

void solo_stats_add(struct solo_stats *sum, const struct solo_stats *b)
{
	sum->blocks += b->blocks;
	sum->contaminated += b->contaminated;
	sum->timeouts += b->timeouts;
	sum->admitting_ns += b->admitting_ns;
	sum->gate_waits += b->gate_waits;
	sum->gate_wait_ns += b->gate_wait_ns;
	sum->gated_calls += b->gated_calls;
	sum->reference_calls += b->reference_calls;
	sum->crowded += b->crowded;
	if (b->longest_block_ns > sum->longest_block_ns)
		sum->longest_block_ns = b->longest_block_ns;
}
