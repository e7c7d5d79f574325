// SPDX-License-Identifier: GPL-2.0
/* The layout of a recording's sections; see recording_format.h. */
#include <stdbool.h>
#include <string.h>

#include "recording/recording.h"
#include "recording/recording_format.h"

#define FIELD(member, width, kind)					\
	{ offsetof(struct recording_file, member),			\
	  sizeof(((struct recording_file *)0)->member), width, kind }
#define INT(member, width)	FIELD(member, width, REC_INT)
#define BOOL(member)		FIELD(member, 1, REC_BOOL)
#define STR(member)		FIELD(member, 0, REC_STR)

/* Documentation/recording.rst, "META" (its counters and args follow). */
static const struct rec_field meta[] = {
	INT(sum.abi_major, 4), INT(sum.abi_minor, 4),	/* the module's */
	INT(meta.ctl_abi_major, 4), INT(meta.ctl_abi_minor, 4),
	STR(meta.version), STR(meta.kernel),
	INT(sum.nr_rings, 4), INT(meta.clock_id, 4),
	INT(sum.mode, 4), INT(sum.pid, 4), STR(sum.command),
	INT(meta.start_realtime_ns, 8), INT(meta.start_boottime_ns, 8),
	BOOL(sum.tasks), BOOL(sum.waits),
	INT(sum.sample, 4), INT(sum.stack_period, 4), INT(meta.max_size, 8),
};

/* Documentation/recording.rst, "STATS". */
static const struct rec_field stats[] = {
	INT(sum.drain.records, 8), INT(sum.drain.late, 8),
	INT(sum.drain.corrupt, 8), INT(sum.drain.rounds, 8),
	INT(meta.records, 8),				/* in the file */
	INT(sum.dropped, 8), INT(sum.lost_exits, 8), INT(sum.stop_reason, 4),
	INT(sum.t_enable, 8), INT(sum.t_end, 8),
	BOOL(sum.target_exited), BOOL(sum.interrupted),
	BOOL(sum.rec_full), INT(sum.rec_full_size, 8), INT(sum.rec_full_ts, 8),
};

const struct rec_fields rec_meta_fields = {
	meta, sizeof(meta) / sizeof(meta[0])
};
const struct rec_fields rec_stats_fields = {
	stats, sizeof(stats) / sizeof(stats[0])
};

uint64_t rec_field_get(const void *rf, const struct rec_field *f)
{
	const unsigned char *p = (const unsigned char *)rf + f->off;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (f->size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

void rec_field_set(void *rf, const struct rec_field *f, uint64_t v)
{
	unsigned char *p = (unsigned char *)rf + f->off;
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	if (f->kind == REC_BOOL)
		*(bool *)p = v != 0;
	else if (f->size == 1)
		memcpy(p, &u8, 1);
	else if (f->size == 2)
		memcpy(p, &u16, 2);
	else if (f->size == 4)
		memcpy(p, &u32, 4);
	else
		memcpy(p, &v, 8);
}

struct rec_payload rec_payload(uint8_t type)
{
	static const struct rec_payload payloads[] = {
		[INPUT_THREAD_SEEN] = { 4, 8, 0 },
		[INPUT_THREAD_EXIT] = { 4, 8, 8 },
		[INPUT_TRAMPOLINE] = { 0, 8, 8 },
		[INPUT_FRAME] = { 0, 8, 1 },
	};

	if (type >= sizeof(payloads) / sizeof(payloads[0]))
		return (struct rec_payload){ 0, 0, 0 };
	return payloads[type];
}
