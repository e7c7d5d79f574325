// SPDX-License-Identifier: GPL-2.0
/*
 * The recording reader (user/lib/recording/) on any bytes: `ispotctl
 * report FILE` and --baseline read files that anyone may hand them.  The
 * input's first byte says how the rest is read:
 *
 *	0	as a file: recording_open(), its header (report --header,
 *		its text and its --json form,
 *		to /dev/null), then every event through
 *		recording_next() (format 1, or 2 to 6 as their checks leave
 *		them: mostly damaged chunks, left out), and again as a
 *		replay reads them (recording_next_records())
 *	1	the same, after every format 2 section head that fits is
 *		sealed again (its checks recomputed), so that the bytes
 *		reach the table decoders and the chunk decoder behind them
 *	other	as the bytes of one chunk of events, straight to the
 *		decoder (rec2_get(), and rec2_get_records()), every record
 *		held to what the drain takes: of format 4 (its classes are
 *		formats 2 and 3's) for an even byte, of format 5 for an odd
 *
 * The file lives in fuzz_scratch.h's directory, as the elf harness's.
 */
#include <endian.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recording/recording.h"
#include "recording/recording_codec.h"
#include "fuzz_scratch.h"

static char dir[64], path[80];
static unsigned char *copy;
static FILE *devnull;		/* where the headers go */

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_scratch_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/rec", dir);
	atexit(cleanup);
	return 0;
}

/* Every format 2 section head of @p that fits, sealed again. */
static void reseal(unsigned char *p, size_t size)
{
	size_t off = RECORDING_HEADER_SIZE;

	while (off + REC2_SECTION_HEAD <= size) {
		uint32_t type, hc;
		uint64_t len, check;

		memcpy(&type, p + off, 4);
		memcpy(&len, p + off + 8, 8);
		type = le32toh(type);
		len = le64toh(len);
		if (len > size - off - REC2_SECTION_HEAD)
			return;
		check = rec2_check(p[8] | p[9] << 8, p + off + REC2_SECTION_HEAD,
				   len, type);
		hc = htole32(rec2_head_check(type, len, check));
		check = htole64(check);
		memcpy(p + off + 4, &hc, 4);
		memcpy(p + off + 16, &check, 8);
		off += REC2_SECTION_HEAD + len;
	}
}

/* The events as a replay reads them: runs of records, and the rest. */
static void as_runs(const struct recording_file *rf)
{
	struct recording_cursor cur = { 0 };
	const struct ispot_record *r;
	struct session_input ev;
	uint32_t i;

	while (recording_next_records(rf, &cur, &ev) > 0)
		for (i = 0, r = ev.rec; ev.type == INPUT_RECORDS &&
		     i < ev.nr; i++, r += r->nslots)
			if (!drain_record_ok(r->nslots, r->ts_ns))
				__builtin_trap();
	recording_cursor_free(&cur);
}

static void as_file(const uint8_t *data, size_t size, bool sealed)
{
	struct recording_cursor cur = { 0 };
	struct recording_file rf;
	struct session_input ev;
	FILE *out;
	int n;

	copy = realloc(copy, size + 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	if (sealed)
		reseal(copy, size);
	out = fopen(path, "we");
	if (!out || fwrite(copy, 1, size, out) != size || fclose(out))
		abort();
	if (recording_open(path, &rf)) {
		recording_close(&rf);
		return;
	}
	if (!devnull)
		devnull = fopen("/dev/null", "we");
	if (!devnull || recording_header(devnull, &rf) ||
	    recording_header_json(devnull, &rf))
		abort();
	while ((n = recording_next(&rf, &cur, &ev)) > 0) {
		if (ev.type == INPUT_RECORD &&
		    !drain_record_ok(ev.rec->nslots, ev.rec->ts_ns))
			__builtin_trap();	/* passed what it refuses */
		if (ev.type == INPUT_FRAME)
			recording_frame_ok(&cur, ev.a ^ 1);
	}
	recording_cursor_free(&cur);
	as_runs(&rf);
	recording_close(&rf);
}

/* A chunk as a replay decodes it: runs of records, then one event. */
static void as_chunk_runs(const uint8_t *data, size_t size,
			  unsigned int major)
{
	static struct ispot_record slots[256];
	static struct rec2_state st;
	struct rec2_batch b = { slots, 256, 0, 0, 0 };
	const char *why;
	size_t n;

	rec2_reset(&st, major);
	n = rec2_get_records(&st, data, size, &b, &why);
	if (n > size || b.used > b.room)
		__builtin_trap();		/* read or wrote past the end */
}

static void as_chunk(const uint8_t *data, size_t size, unsigned int major)
{
	static struct ispot_record slots[DRAIN_MAX_SLOTS];
	static struct rec2_state st;
	struct session_input ev;
	const char *why;
	size_t n;

	as_chunk_runs(data, size, major);
	rec2_reset(&st, major);
	while (size) {
		n = rec2_get(&st, data, size, &ev, slots, &why);
		if (!n) {
			if (!why)
				__builtin_trap();	/* refused, no reason */
			return;
		}
		if (n > size)
			__builtin_trap();		/* read past the end */
		if (ev.type == INPUT_RECORD &&
		    (!slots->nslots || slots->nslots > DRAIN_MAX_SLOTS))
			__builtin_trap();
		data += n;
		size -= n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] < 2)
		as_file(data + 1, size - 1, data[0] == 1);
	else
		as_chunk(data + 1, size - 1, data[0] & 1 ? 5 : 4);
	return 0;
}
