/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording's bytes, for the tests that break them: read and write a
 * whole file, find a format 2 section, seal one again after a change
 * (its checks recomputed), so that the change reaches the decoder behind
 * them (recording/recording_codec.h), and expect a file refused.  The
 * includer defines TEST_DIR_TEMPLATE first (scratch_dir.h).
 */
#ifndef ISPOT_TEST_RECORDING_FILE_H
#define ISPOT_TEST_RECORDING_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ispot_test.h"
#include "scratch_dir.h"
#include "stderr_capture.h"
#include "recording/recording.h"
#include "recording/recording_codec.h"

static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc(n + 1);
	ASSERT_TRUE(buf != NULL);
	ASSERT_EQ(fread(buf, 1, n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

static inline void spit(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(fwrite(p, 1, len, f), len);
	ASSERT_EQ(fclose(f), 0);
}

/* The format 2 section at @off: its type and length. */
static inline void rec2_section_head(const char *buf, size_t off,
				     uint32_t *type, uint64_t *len)
{
	memcpy(type, buf + off, 4);
	memcpy(len, buf + off + 8, 8);
}

/* The offset of the @nth (from 0) format 2 section of @type, or 0. */
static inline size_t rec2_nth_section(const char *buf, size_t len,
				      uint32_t type, unsigned int nth)
{
	size_t off = RECORDING_HEADER_SIZE;

	while (off + REC2_SECTION_HEAD <= len) {
		uint32_t t;
		uint64_t l;

		rec2_section_head(buf, off, &t, &l);
		if (t == type && !nth--)
			return off;
		off += REC2_SECTION_HEAD + l;
	}
	return 0;
}

static inline size_t section_at(const char *buf, size_t len, uint32_t type)
{
	return rec2_nth_section(buf, len, type, 0);
}

/* The section at @off sealed again: its checks fit its bytes. */
static inline void rec2_reseal(char *buf, size_t off)
{
	uint64_t len, check;
	uint32_t type, hc;

	rec2_section_head(buf, off, &type, &len);
	check = rec2_check((unsigned char)buf[8] | (unsigned char)buf[9] << 8,
			   buf + off + REC2_SECTION_HEAD, len, type);
	hc = rec2_head_check(type, len, check);
	memcpy(buf + off + 4, &hc, 4);
	memcpy(buf + off + 16, &check, 8);
}

/* Opening @buf must fail with one line that says @what. */
static inline void refused(const char *buf, size_t len, const char *what)
{
	struct recording_file rf;
	char path[PATH_MAX];
	int ret;

	path_in(path, "bad.isr");
	spit(path, buf, len);
	capture_begin();
	ret = recording_open(path, &rf);
	capture_end();
	recording_close(&rf);
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(strstr(captured, what) != NULL);
	EXPECT_TRUE(strchr(captured, '\n') ==
		    captured + strlen(captured) - 1);
	if (ret != -1 || !strstr(captured, what))
		printf("# %zu bytes: %s", len, captured);
}

#endif /* ISPOT_TEST_RECORDING_FILE_H */
