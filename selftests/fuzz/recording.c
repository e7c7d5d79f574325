// SPDX-License-Identifier: GPL-2.0
/*
 * The recording reader (user/lib/recording/) on any bytes: `ispotctl
 * report FILE` and --baseline read files that anyone may hand them.  The
 * input's first byte says how the rest is read:
 *
 *	0	as a file: recording_open(), then every event through
 *		recording_next() (format 1, or format 2 as its checks leave
 *		it: mostly damaged chunks, left out)
 *	1	the same, after every format 2 section head that fits is
 *		sealed again (its checks recomputed), so that the bytes
 *		reach the table decoders and the chunk decoder behind them
 *	other	as the bytes of one chunk of format 2 events, straight to
 *		the decoder (rec2_get()), every record held to what the
 *		drain takes
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
		check = rec2_check(p + off + REC2_SECTION_HEAD, len, type);
		hc = htole32(rec2_head_check(type, len, check));
		check = htole64(check);
		memcpy(p + off + 4, &hc, 4);
		memcpy(p + off + 16, &check, 8);
		off += REC2_SECTION_HEAD + len;
	}
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
	while ((n = recording_next(&rf, &cur, &ev)) > 0) {
		if (ev.type == INPUT_RECORD &&
		    !drain_record_ok(ev.rec->nslots, ev.rec->ts_ns))
			__builtin_trap();	/* passed what it refuses */
		if (ev.type == INPUT_FRAME)
			recording_frame_ok(&cur, ev.a ^ 1);
	}
	recording_cursor_free(&cur);
	recording_close(&rf);
}

static void as_chunk(const uint8_t *data, size_t size)
{
	static struct ispot_record slots[DRAIN_MAX_SLOTS];
	static struct rec2_state st;
	struct session_input ev;
	const char *why;
	size_t n;

	rec2_reset(&st);
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
		as_chunk(data + 1, size - 1);
	return 0;
}
