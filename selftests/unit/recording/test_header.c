// SPDX-License-Identifier: GPL-2.0
/*
 * `report FILE --header --json` (recording/recording_header_json.c) on
 * what a file from elsewhere may hold: quotes, newlines, a terminal's
 * escape and bytes that are not UTF-8 in its command line, target and
 * function names come out as one valid JSON object that reads them back
 * (U+FFFD for a stray byte).  A file that names one counter twice, which
 * no ispotctl writes, is malformed: a JSON object of counters could not
 * hold it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ispot_test.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-header-XXXXXX"
#include "scratch_dir.h"
#include "recording_session.h"
#include "recording/recording.h"
#include "util/json_read.h"

static const char hostile[] = "a\"b\\c\nd\x1b[31me\xff" "f";
/* What a JSON reader makes of it: the stray byte is U+FFFD. */
static const char hostile_read[] = "a\"b\\c\nd\x1b[31me\xef\xbf\xbd" "f";

TEST(the_json_header_holds_hostile_strings)
{
	char *args[] = { "record", "-o", (char *)hostile };
	struct recording_file rf = { 0 };
	struct trace_func fn = { 0 };
	const struct json_value *v;
	struct json_value *root;
	const char *err = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	rf.path = (char *)hostile;
	rf.meta.major = 6;
	rf.meta.nr_args = 3;
	rf.meta.args = args;
	snprintf(rf.meta.kernel, sizeof(rf.meta.kernel), "%s", hostile);
	snprintf(rf.sum.command, sizeof(rf.sum.command), "%s", hostile);
	snprintf(fn.sym.name, sizeof(fn.sym.name), "%s", hostile);
	snprintf(fn.sym.obj, sizeof(fn.sym.obj), "%s", hostile);
	rf.funcs = &fn;
	rf.nr_funcs = 1;
	f = open_memstream(&text, &len);
	ASSERT_TRUE(f);
	ASSERT_EQ(recording_header_json(f, &rf), 0);
	ASSERT_EQ(fclose(f), 0);
	root = json_parse(text, len, &err);
	if (!root)
		printf("# %s: %s\n", err, text);
	ASSERT_TRUE(root);
	EXPECT_STREQ(json_get(root, "recording")->s, hostile_read);
	EXPECT_STREQ(json_get(root, "kernel")->s, hostile_read);
	/* An empty version is unknown: null, not "". */
	EXPECT_EQ(json_get(root, "ispot_version")->t, JSON_NULL);
	v = json_get(root, "command_line");
	ASSERT_EQ(v->n, 3);
	EXPECT_STREQ(v->items[2].s, hostile_read);
	EXPECT_STREQ(json_get(json_get(root, "target"), "command")->s,
		     hostile_read);
	v = json_get(root, "functions");
	ASSERT_EQ(v->n, 1);
	EXPECT_STREQ(json_get(&v->items[0], "name")->s, hostile_read);
	EXPECT_STREQ(json_get(&v->items[0], "object")->s, hostile_read);
	/* Whole: no loss, no cut; unknown figures are null. */
	v = json_get(root, "state");
	EXPECT_TRUE(json_get(v, "whole")->b);
	EXPECT_EQ(json_get(v, "first_lost_chunk")->t, JSON_NULL);
	json_value_free(root);
	free(text);
}

TEST(a_counter_named_twice_is_malformed)
{
	struct recording_session s;
	struct recording_file rf = { 0 };
	char rec[PATH_MAX], json[PATH_MAX];
	unsigned int twice;

	path_in(rec, "r.isr");
	path_in(json, "r.json");
	for (twice = 0; twice < 2; twice++) {
		ASSERT_EQ(rs_start(&s, rec, json, 64ull << 20), 0);
		s.t.sum.nr_counters = 2;
		s.t.sum.counters[0] = (struct report_counter){
			.name = "cpu-clock", .supported = true, .slot = -1 };
		s.t.sum.counters[1] = (struct report_counter){
			.name = twice ? "cpu-clock" : "page-faults",
			.supported = true, .slot = -1 };
		rs_trace(&s, 10);
		ASSERT_EQ(rs_stop(&s), 0);
		trace_free(&s.t);
		if (twice) {
			EXPECT_NE(recording_open(rec, &rf), 0);
		} else {
			ASSERT_EQ(recording_open(rec, &rf), 0);
			EXPECT_EQ(rf.sum.nr_counters, 2);
		}
		recording_close(&rf);
		memset(&rf, 0, sizeof(rf));
	}
}

TEST_HARNESS_MAIN
