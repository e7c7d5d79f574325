/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Feeding synthetic ring records to a pipeline in the unit tests: one
 * slot, the entry's first three arguments (or none), thread @tid of
 * process @tgid on CPU tid & 1.
 */
#ifndef ISPOT_TEST_PIPELINE_FEED_H
#define ISPOT_TEST_PIPELINE_FEED_H

#include <stdint.h>
#include <string.h>

#include "analysis/pipeline.h"

static inline void pipeline_feed_fill(struct ispot_record *r, uint64_t ts,
				      uint8_t kind, uint32_t tgid,
				      uint32_t tid, uint32_t probe,
				      uint64_t sp, const uint64_t *args)
{
	memset(r, 0, sizeof(*r));
	r->ts_ns = ts;
	r->tid = tid;
	r->tgid = tgid;
	r->probe_id = probe;
	r->cpu = tid & 1;
	r->kind = kind;
	r->nslots = 1;
	r->sp = sp;
	if (args)
		memcpy(r->data, args, sizeof(r->data));
}

static inline void pipeline_feed_record(struct pipeline *p, uint64_t ts,
					uint8_t kind, uint32_t tgid,
					uint32_t tid, uint32_t probe,
					uint64_t sp, const uint64_t *args)
{
	struct ispot_record r;

	pipeline_feed_fill(&r, ts, kind, tgid, tid, probe, sp, args);
	pipeline_record(p, &r);
}

#endif /* ISPOT_TEST_PIPELINE_FEED_H */
