// SPDX-License-Identifier: GPL-2.0
/*
 * Format 1 recordings still read (recording/recording_read.c keeps its
 * reader): fixtures/format1.isr, written by the format 1 writer from the
 * recording unit test's session (12 calls), reports byte for byte as it
 * did then (fixtures/format1.json), and the reader still refuses, in one
 * line each, the file cut at every length, a record whose slots do not
 * match its size and one the drain would refuse.  So do a format 2.1 and
 * a format 3.1 recording of the same session (fixtures/format2.isr,
 * format3.isr, and their .json), and a format 4.0 one (format4.isr, made
 * by a scratch program of the recording test's session built against
 * the 4.0 tree, d296185), which the format 5 reader decodes with the
 * same code (recording_codec.c, by format 4's classes: rec2_reset()),
 * and a format 5.0 one (format5.isr, made the same way against the tree
 * of 78c2232; its report equal to the live one's), so that a later
 * change to format 5's rules shows here rather than as wrong values; and
 * a format 6.0 one (format6.isr, the same session against the tree that
 * made format 6, worker keyed by a number, a symbol's address or an
 * anonymous mapping's, so that its packed NAMES holds each kind).
 */
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <unistd.h>

#include "ispot_test.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-format1-XXXXXX"
#include "scratch_dir.h"
#include "stderr_capture.h"
#include "recording_file.h"
#include "trace/trace.h"
#include <ispot_version.h>

/* fixtures/@name, beside this test's executable, into @buf (PATH_MAX). */
static void fixture(char *buf, const char *name)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ASSERT_GT(n, 0);
	exe[n] = '\0';
	snprintf(buf, PATH_MAX, "%s/fixtures/%s", dirname(exe), name);
}

static int replay(const char *rec, const char *out)
{
	struct trace_opts o = { .json = true, .output = out,
				.recording = rec };

	return trace_replay(&o);
}

/* fixtures/@name.isr reports as fixtures/@name.json, as it did then. */
static void reports_as_it_did(const char *name)
{
	char rec[PATH_MAX], want[PATH_MAX], out[PATH_MAX], file[64];
	size_t a_len, b_len;
	char *a, *b;

	snprintf(file, sizeof(file), "%s.isr", name);
	fixture(rec, file);
	snprintf(file, sizeof(file), "%s.json", name);
	fixture(want, file);
	path_in(out, file);
	ASSERT_EQ(replay(rec, out), 0);
	a = slurp(want, &a_len);
	b = slurp(out, &b_len);
	/* All but the version of the ispotctl that wrote the report. */
	ASSERT_TRUE(strstr(a, ", \"target\"") && strstr(b, ", \"target\""));
	EXPECT_STREQ(strstr(a, ", \"target\""), strstr(b, ", \"target\""));
	EXPECT_TRUE(strstr(b, "\"ispot_version\": \"" ISPOT_VERSION "\"") ==
		    b + 1);
	free(a);
	free(b);
}

TEST(a_format1_recording_reports_as_it_did)
{
	reports_as_it_did("format1");
}

TEST(a_format2_recording_reports_as_it_did)
{
	reports_as_it_did("format2");
}

TEST(a_format3_recording_reports_as_it_did)
{
	reports_as_it_did("format3");
}

/* 4.0: no THREADS table (4.1), which it need not have. */
TEST(a_format4_0_recording_reports_as_it_did)
{
	reports_as_it_did("format4");
}

/* 5.0, pinned: a later change to its rules would change this report. */
TEST(a_format5_0_recording_reports_as_it_did)
{
	reports_as_it_did("format5");
}

/* 6.0, pinned: its NAMES packed (recording/recording_names.c). */
TEST(a_format6_0_recording_reports_as_it_did)
{
	reports_as_it_did("format6");
}

TEST(a_format1_recording_cut_at_every_length_is_refused)
{
	char rec[PATH_MAX];
	size_t len, n;
	char *buf;

	fixture(rec, "format1.isr");
	buf = slurp(rec, &len);
	for (n = 0; n < len; n++)
		refused(buf, n, !n ? "is empty, not a recording" :
			n < 8 ? "is not an ispot recording" : "cut short");
	free(buf);
}

/* The fixture's first record event's slots, as an offset. */
static size_t first_record(const char *buf, size_t len)
{
	size_t off = RECORDING_HEADER_SIZE;
	uint32_t t, l;

	memcpy(&t, buf + off, 4);
	ASSERT_EQ(t, REC_SEC_EVENTS);
	off += RECORDING_SECTION_HEAD;
	while ((unsigned char)buf[off] != INPUT_RECORD) {
		memcpy(&l, buf + off + 4, 4);
		off += RECORDING_EVENT_HEAD + l;
		ASSERT_LT(off, len);
	}
	return off + RECORDING_EVENT_HEAD;
}

/* The fixture with @n bytes at its first record's @field: refused. */
static void record_refused(size_t field, const void *v, size_t n,
			   const char *why)
{
	struct recording_cursor cur = { 0 };
	struct recording_file rf;
	struct session_input ev;
	char rec[PATH_MAX], path[PATH_MAX];
	size_t len;
	char *buf;
	int ret;

	fixture(rec, "format1.isr");
	buf = slurp(rec, &len);
	memcpy(buf + first_record(buf, len) + field, v, n);
	path_in(path, "record.isr");
	spit(path, buf, len);
	ASSERT_EQ(recording_open(path, &rf), 0);
	capture_begin();
	while ((ret = recording_next(&rf, &cur, &ev)) > 0)
		;
	capture_end();
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(strstr(captured, why) != NULL);
	EXPECT_TRUE(strchr(captured, '\n') ==
		    captured + strlen(captured) - 1);
	recording_cursor_free(&cur);
	recording_close(&rf);
	free(buf);
}

TEST(a_format1_record_larger_than_its_slots_is_refused)
{
	const uint8_t three = 3;

	record_refused(offsetof(struct ispot_record, nslots), &three, 1,
		       "slots do not match");
}

TEST(a_format1_record_the_drain_would_refuse_is_refused)
{
	const uint64_t never = UINT64_MAX;

	record_refused(offsetof(struct ispot_record, ts_ns), &never, 8,
		       "a record is malformed: the recording is damaged");
}

TEST_HARNESS_MAIN
