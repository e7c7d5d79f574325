/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-built records for the tests of the timeline and of what it feeds
 * (test_timeline.c, test_interference.c): one slot, tgid 1.
 */
#ifndef ISPOT_TEST_WAIT_RECORDS_H
#define ISPOT_TEST_WAIT_RECORDS_H

#include <stdint.h>
#include <string.h>
#include <linux/ispot.h>

static inline struct ispot_record wait_record(uint8_t kind, uint32_t tid,
					      uint16_t cpu, uint64_t ts,
					      uint64_t d0, uint64_t d1)
{
	struct ispot_record r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.tid = tid;
	r.tgid = 1;
	r.cpu = cpu;
	r.ts_ns = ts;
	r.nslots = 1;
	r.data[0] = d0;
	r.data[1] = d1;
	return r;
}

#endif /* ISPOT_TEST_WAIT_RECORDS_H */
