// SPDX-License-Identifier: GPL-2.0
/*
 * --baseline FILE (recording/baseline.c): a program whose two threads are
 * always beside each other has no solo call, so its interference figure
 * is only a bound; the recording of the same program with one thread
 * gives the report a reference, the figure falls to what the calls cost
 * beyond their time alone (here nothing: the calls take as long either
 * way), SCI does not move, and a note names the baseline (and says when
 * the function sat elsewhere in its object then: another build).  A
 * baseline that is not a recording, or has no solo calls of any traced
 * function, is refused in one line before the work, and the output is
 * not written.
 */
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ispot_test.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-base-XXXXXX"
#include "scratch_dir.h"
#include "stderr_capture.h"
#include "recording_session.h"
#include "util/json_read.h"

/*
 * A recording of 200 calls of worker, with the wait context or not;
 * worker at file offset @offset (another build of the program if not 0).
 */
static void recorded_keyed(const char *name, bool waits, bool one_thread,
			   uint64_t offset, const struct key_rule *key)
{
	struct recording_session s;
	char rec[PATH_MAX], json[PATH_MAX];

	path_in(rec, name);
	path_in(json, "recorded.json");
	ASSERT_EQ(rs_start_waits(&s, rec, json, 1ull << 30, waits, key), 0);
	s.one_thread = one_thread;
	s.t.funcs[0].sym.offset = offset;
	rs_trace(&s, 200);
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
}

static void recorded_at(const char *name, bool waits, bool one_thread,
			uint64_t offset)
{
	recorded_keyed(name, waits, one_thread, offset, NULL);
}

static void recorded(const char *name, bool waits, bool one_thread)
{
	recorded_at(name, waits, one_thread, 0);
}

static int report(const char *rec, const char *baseline, const char *out)
{
	char r[PATH_MAX], b[PATH_MAX], o[PATH_MAX];
	struct trace_opts opts = { .json = true };

	path_in(r, rec);
	path_in(o, out);
	opts.recording = r;
	opts.output = o;
	if (baseline) {
		path_in(b, baseline);
		opts.baseline = b;
	}
	return trace_replay(&opts);
}

static struct json_value *read_report(const char *out)
{
	char path[PATH_MAX], buf[1 << 16];
	const char *err = NULL;
	struct json_value *v;
	FILE *f;
	size_t n;

	path_in(path, out);
	f = fopen(path, "r");
	ASSERT_TRUE(f != NULL);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ASSERT_LT(n, sizeof(buf));
	v = json_parse(buf, n, &err);
	ASSERT_TRUE(v != NULL);
	return v;
}

static const struct json_value *function(const struct json_value *v,
					 const char *fname)
{
	const struct json_value *fs = json_get(v, "functions");
	size_t i;

	ASSERT_TRUE(fs != NULL);
	for (i = 0; i < fs->n; i++) {
		const struct json_value *name = json_get(&fs->items[i],
							 "name");

		if (name && !strcmp(name->s, fname))
			return &fs->items[i];
	}
	ASSERT_TRUE(false);
	return NULL;
}

static const struct json_value *worker(const struct json_value *v)
{
	return function(v, "worker");
}

/* Whether a note of report @v holds @text. */
static bool has_note(const struct json_value *v, const char *text)
{
	const struct json_value *notes = json_get(v, "notes");
	size_t i;

	for (i = 0; notes && i < notes->n; i++)
		if (strstr(notes->items[i].s, text))
			return true;
	return false;
}

static bool exists(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	path_in(path, name);
	return !stat(path, &st);
}

TEST(a_baseline_gives_calls_never_alone_a_reference)
{
	struct json_value *alone, *based;
	const struct json_value *wa, *wb, *notes;
	bool noted = false;
	size_t i;

	recorded("base.isr", true, true);
	recorded("run.isr", true, false);
	ASSERT_EQ(report("run.isr", NULL, "alone.json"), 0);
	ASSERT_EQ(report("run.isr", "base.isr", "based.json"), 0);
	alone = read_report("alone.json");
	based = read_report("based.json");
	wa = worker(alone);
	wb = worker(based);

	/*
	 * Without: two threads beside each other but for the first call, a
	 * bound only (SCI's reading of the rest).
	 */
	EXPECT_STREQ(json_get(wa, "interference_reference")->s, "none");
	ASSERT_TRUE(json_get(wa, "interference_bound") != NULL);
	EXPECT_TRUE(json_get(wa, "interference_bound")->d > 0.2);
	EXPECT_LT(json_get(wa, "solo_calls")->u, 30);

	/* With: the baseline's 200 solo calls too; as slow alone, so ~0. */
	EXPECT_STREQ(json_get(wb, "interference_reference")->s, "baseline");
	EXPECT_TRUE(json_get(wb, "interference_bound") == NULL);
	EXPECT_EQ(json_get(wb, "solo_calls")->u,
		  json_get(wa, "solo_calls")->u + 200);
	EXPECT_TRUE(json_get(wb, "interference")->d < 0.05);

	/* SCI is the paper's, from the calls traced: unchanged. */
	EXPECT_TRUE(json_get(wa, "sci")->d == json_get(wb, "sci")->d);
	EXPECT_EQ(json_get(wa, "calls")->u, json_get(wb, "calls")->u);

	notes = json_get(based, "notes");
	ASSERT_TRUE(notes != NULL);
	for (i = 0; i < notes->n; i++) {
		noted |= strstr(notes->items[i].s, "--baseline") != NULL;
		EXPECT_TRUE(strstr(notes->items[i].s, "another build") == NULL);
	}
	EXPECT_TRUE(noted);
	json_value_free(alone);
	json_value_free(based);
}

/* The same function at another offset: taken, and the note says so. */
TEST(a_baseline_of_another_build_is_noted)
{
	const struct json_value *notes;
	struct json_value *v;
	bool noted = false;
	size_t i;

	recorded_at("other.isr", true, true, 0x4000);
	recorded("run4.isr", true, false);
	ASSERT_EQ(report("run4.isr", "other.isr", "other.json"), 0);
	v = read_report("other.json");
	EXPECT_STREQ(json_get(worker(v), "interference_reference")->s,
		     "baseline");
	notes = json_get(v, "notes");
	ASSERT_TRUE(notes != NULL);
	for (i = 0; i < notes->n; i++)
		noted |= strstr(notes->items[i].s, "1 of them sit elsewhere "
				"in their object there: another build") != NULL;
	EXPECT_TRUE(noted);
	json_value_free(v);
}

/*
 * A key value means something only under its rule: a baseline whose
 * worker was not keyed gives the run's arg0-keyed worker nothing and
 * does not count it, while flush, keyed alike, takes its solo calls.
 */
TEST(a_baseline_keyed_by_another_rule_gives_that_function_nothing)
{
	const struct key_rule none = { KEY_NONE, 0, false };
	const struct json_value *keys;
	struct json_value *v;
	size_t i;

	recorded_keyed("unkeyed.isr", true, true, 0, &none);
	recorded("run5.isr", true, false);
	ASSERT_EQ(report("run5.isr", "unkeyed.isr", "unkeyed.json"), 0);
	v = read_report("unkeyed.json");
	keys = json_get(worker(v), "keys");
	ASSERT_TRUE(keys != NULL && keys->n == 3);
	for (i = 0; i < keys->n; i++)
		EXPECT_STREQ(json_get(&keys->items[i],
				      "interference_reference")->s, "none");
	EXPECT_STREQ(json_get(function(v, "flush"),
			      "interference_reference")->s, "baseline");
	EXPECT_TRUE(has_note(v, "the solo calls of 1 function(s)"));
	json_value_free(v);
}

/* Its own solo calls would count twice. */
TEST(the_recording_itself_is_refused_as_its_baseline)
{
	int ret;

	recorded("self.isr", true, false);
	capture_begin();
	ret = report("self.isr", "self.isr", "self.json");
	capture_end();
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(strstr(captured, "is the recording this command "
			   "reports") != NULL);
	EXPECT_EQ(strchr(captured, '\n'), strrchr(captured, '\n'));
	EXPECT_FALSE(exists("self.json"));
}

TEST(a_baseline_without_solo_calls_is_refused_before_the_work)
{
	int ret;

	/* No wait records: no context, so no call is known to be alone. */
	recorded("nowaits.isr", false, true);
	recorded("run2.isr", true, false);
	capture_begin();
	ret = report("run2.isr", "nowaits.isr", "refused.json");
	capture_end();
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(strstr(captured, "has no solo calls") != NULL);
	EXPECT_EQ(strchr(captured, '\n'), strrchr(captured, '\n'));
	EXPECT_FALSE(exists("refused.json"));
}

TEST(a_baseline_that_is_not_a_recording_is_refused_in_one_line)
{
	char path[PATH_MAX];
	FILE *f;
	int ret;

	recorded("run3.isr", true, false);
	path_in(path, "junk.isr");
	f = fopen(path, "w");
	ASSERT_TRUE(f != NULL);
	fputs("not a recording\n", f);
	fclose(f);
	capture_begin();
	ret = report("run3.isr", "junk.isr", "junk.json");
	capture_end();
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(strstr(captured, "junk.isr") != NULL);
	EXPECT_EQ(strchr(captured, '\n'), strrchr(captured, '\n'));
	EXPECT_FALSE(exists("junk.json"));

	capture_begin();
	ret = report("run3.isr", "missing.isr", "missing.json");
	capture_end();
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(strstr(captured, "missing.isr") != NULL);
	EXPECT_FALSE(exists("missing.json"));
}

TEST_HARNESS_MAIN
