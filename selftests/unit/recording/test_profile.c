// SPDX-License-Identifier: GPL-2.0
/*
 * A recording keeps --auto's wall-clock profile (the PROFILE section,
 * recording/recording_profile.c): `report FILE` gives the JSON's "auto"
 * object as the live report did, the HTML report's wall-time flame graph,
 * and --wall-folded's lines byte for byte.  A recording without a profile
 * (format 3.1 on writes the section anyway, saying so) refuses --wall-folded
 * in one line and leaves no file; a profile section that is missing,
 * damaged in its bytes or its head, or well sealed but malformed (an
 * unknown count of wait kinds, a flag that is neither 0 nor 1, stacks out
 * of order, a newline in a stack), refuses the file in one line, and a
 * count past its bound is refused before its bytes are.
 */
#include <limits.h>
#include <stdint.h>

#include "ispot_test.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-prof-XXXXXX"
#include "scratch_dir.h"
#include "stderr_capture.h"
#include "recording_session.h"
#include "recording_file.h"
#include "recording/recording_read.h"
#include "trace/autopick.h"

static const char *const stacks[] = {
	"main;sample_thread;wait_turn;pthread_cond_wait;[off cpu: futex]",
	"main;sample_thread;work;[on cpu]",
	"main;sample_thread;work;spin;[on cpu]",
};

/* A profile as --auto leaves it in the session: two picks, three lines. */
static struct autopick *profile(const char *exe)
{
	struct autopick *a = calloc(1, sizeof(*a));
	size_t i;

	ASSERT_TRUE(a != NULL);
	a->duration_ns = 2000000000ull;
	a->samples = 325;
	a->unprobeable = 12;
	a->offcpu = true;
	a->off_ns[WALL_FUTEX] = 7050000000ull;
	a->off_ns[WALL_RUNQ] = 1220000000ull;
	a->off_stacks = 41;
	a->wall_ns = 8595000000ull;
	a->funcs = calloc(2, sizeof(*a->funcs));
	ASSERT_TRUE(a->funcs != NULL);
	a->nr = 2;
	snprintf(a->funcs[0].sym.name, ELF_SYM_NAME_MAX, "wait_turn");
	snprintf(a->funcs[0].partner, ELF_SYM_NAME_MAX, "pthread_cond_wait");
	a->funcs[0].off_ns[WALL_FUTEX] = 7000000000ull;
	a->funcs[0].wall_ns = 7000000000ull;
	snprintf(a->funcs[1].sym.name, ELF_SYM_NAME_MAX, "work");
	a->funcs[1].samples = 300;
	a->funcs[1].wall_ns = 300000000ull;
	for (i = 0; i < 2; i++) {
		snprintf(a->funcs[i].sym.obj, PATH_MAX, "%s", exe);
		a->funcs[i].sym.offset = 0x1100 + i * 0x40;
	}
	a->wall.lines = calloc(3, sizeof(*a->wall.lines));
	ASSERT_TRUE(a->wall.lines != NULL);
	for (i = 0; i < 3; i++) {
		a->wall.lines[i].stack = strdup(stacks[i]);
		a->wall.lines[i].us = 1000 * (i + 1);
	}
	a->wall.nr = a->wall.cap = 3;
	return a;
}

/*
 * A session recorded to @rec (its live report to @json, and with @html
 * its HTML report), with --auto's profile unless @plain.
 */
static void record(const char *rec, const char *json, const char *html,
		   bool plain)
{
	struct recording_session s;

	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	s.o.html = html;
	if (!plain)
		s.t.picked = profile(s.exe);
	rs_trace(&s, 50);
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
}

static int replay(const char *rec, const char *json, const char *html,
		  const char *folded)
{
	struct trace_opts o = { .json = true, .output = json, .html = html,
				.recording = rec, .wall_folded = folded };

	return trace_replay(&o);
}

TEST(report_gives_the_live_auto_object_and_flame_graph)
{
	char rec[PATH_MAX], live[PATH_MAX], off[PATH_MAX], html[PATH_MAX];
	char *a, *b, *h;

	path_in(rec, "p.isr");
	path_in(live, "live.json");
	path_in(off, "off.json");
	path_in(html, "off.html");
	record(rec, live, NULL, false);
	ASSERT_EQ(replay(rec, off, html, NULL), 0);
	a = slurp(live, NULL);
	b = slurp(off, NULL);
	EXPECT_TRUE(strstr(a, "\"auto\": {") != NULL);
	EXPECT_TRUE(strstr(a, "\"via\": \"pthread_cond_wait\"") == NULL);
	EXPECT_TRUE(strstr(a, "\"waiting_in\": \"pthread_cond_wait\"") !=
		    NULL);
	EXPECT_STREQ(a, b);
	h = slurp(html, NULL);
	EXPECT_TRUE(strstr(h, "Where the wall time goes") != NULL);
	EXPECT_TRUE(strstr(h, "wait_turn") != NULL);
	free(a);
	free(b);
	free(h);
}

/*
 * run --auto on a command that exited soon after the sampling: a note
 * says most of its run was sampled, not traced, and what to do, live
 * and from the recording alike; one that ran on past the sampling, none.
 */
TEST(a_command_the_sampling_used_up_is_said)
{
	char rec[PATH_MAX], live[PATH_MAX], off[PATH_MAX];
	const char *note = "most of its run was sampled, not traced";
	struct recording_session s;
	char *a, *b;

	path_in(rec, "q.isr");
	path_in(live, "q-live.json");
	path_in(off, "q-off.json");
	ASSERT_EQ(rs_start(&s, rec, live, 1ull << 30), 0);
	s.t.picked = profile(s.exe);
	rs_trace(&s, 50);
	s.t.sum.target_exited = true;
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	ASSERT_EQ(replay(rec, off, NULL, NULL), 0);
	a = slurp(live, NULL);
	b = slurp(off, NULL);
	EXPECT_TRUE(strstr(a, note) != NULL);
	EXPECT_STREQ(a, b);
	free(a);
	free(b);

	/* Still running at the end (or attach): no note. */
	record(rec, live, NULL, false);
	a = slurp(live, NULL);
	EXPECT_TRUE(strstr(a, note) == NULL);
	free(a);
}

TEST(report_writes_the_recorded_wall_folded_lines)
{
	char rec[PATH_MAX], json[PATH_MAX], folded[PATH_MAX], want[4096];
	size_t i, off = 0;
	char *got;

	path_in(rec, "f.isr");
	path_in(json, "f.json");
	path_in(folded, "wall.folded");
	record(rec, json, NULL, false);
	ASSERT_EQ(replay(rec, json, NULL, folded), 0);
	for (i = 0; i < 3; i++)
		off += snprintf(want + off, sizeof(want) - off, "%s %zu\n",
				stacks[i], 1000 * (i + 1));
	got = slurp(folded, NULL);
	EXPECT_STREQ(got, want);
	free(got);
}

TEST(no_profile_refuses_wall_folded_in_one_line)
{
	char rec[PATH_MAX], json[PATH_MAX], folded[PATH_MAX];
	struct stat st;
	char *j;
	int ret;

	path_in(rec, "n.isr");
	path_in(json, "n.json");
	path_in(folded, "n.folded");
	record(rec, json, NULL, true);
	j = slurp(json, NULL);
	EXPECT_TRUE(strstr(j, "\"auto\"") == NULL);
	free(j);
	capture_begin();
	ret = replay(rec, json, NULL, folded);
	capture_end();
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(strstr(captured, "holds no wall-clock profile (it was "
			   "recorded without --auto)") != NULL);
	EXPECT_TRUE(strstr(captured, "drop --wall-folded") != NULL);
	EXPECT_TRUE(strchr(captured, '\n') ==
		    captured + strlen(captured) - 1);
	EXPECT_NE(stat(folded, &st), 0);
	/* Without --wall-folded the same file reports. */
	EXPECT_EQ(replay(rec, json, NULL, NULL), 0);
}

/* The recording with a profile, and where its PROFILE body starts. */
static char *with_profile(size_t *len, size_t *body)
{
	char rec[PATH_MAX], json[PATH_MAX];
	size_t at;
	char *buf;

	path_in(rec, "b.isr");
	path_in(json, "b.json");
	record(rec, json, NULL, false);
	buf = slurp(rec, len);
	at = section_at(buf, *len, REC_SEC_PROFILE);
	ASSERT_GT(at, 0);
	*body = at + REC2_SECTION_HEAD;
	return buf;
}

/* The profile body's offset of the first byte of @s in it. */
static size_t offset_of(const char *buf, size_t len, size_t body,
			const char *s)
{
	const char *p = memmem(buf + body, len - body, s, strlen(s));

	ASSERT_TRUE(p != NULL);
	return (size_t)(p - buf);
}

TEST(a_damaged_profile_refuses_the_file)
{
	size_t len, body;
	char *buf = with_profile(&len, &body);

	buf[body + 3] ^= 0x10;
	refused(buf, len, "its --auto profile is damaged");
	buf[body + 3] ^= 0x10;
	/* A head that fails its check: not taken for a chunk of events. */
	buf[body - REC2_SECTION_HEAD + 8] ^= 0x01;
	refused(buf, len, "a table section is damaged");
	free(buf);
}

/* Format 3.1 on always writes the section: one missing is refused. */
TEST(a_missing_profile_refuses_the_file)
{
	char rec[PATH_MAX], json[PATH_MAX];
	size_t len, at;
	uint32_t other = 99;
	char *buf;

	path_in(rec, "m.isr");
	path_in(json, "m.json");
	record(rec, json, NULL, true);
	buf = slurp(rec, &len);
	at = section_at(buf, len, REC_SEC_PROFILE);
	ASSERT_GT(at, 0);
	/* A type a 3.1 reader skips, sealed as sound. */
	memcpy(buf + at, &other, 4);
	rec2_reseal(buf, at);
	refused(buf, len, "a table section is missing");
	free(buf);
}

TEST(counts_past_the_bound_are_refused_before_the_bytes)
{
	unsigned char buf[64] = { 0 };
	struct rec_cur c = { .p = buf, .left = sizeof(buf) };
	uint32_t n = 3;

	memcpy(buf, &n, 4);
	EXPECT_EQ(cur_count(&c, 2, 1), 0u);
	EXPECT_TRUE(c.bad);
	c = (struct rec_cur){ .p = buf, .left = sizeof(buf) };
	EXPECT_EQ(cur_count(&c, 3, 1), 3u);
	EXPECT_FALSE(c.bad);
}

TEST(a_malformed_profile_refuses_the_file)
{
	/*
	 * present (1), duration, samples, unprobeable (8 each), top (4),
	 * off_cpu (1).
	 */
	const size_t off_cpu = 1 + 8 * 3 + 4;
	size_t len, body, at;
	char *good = with_profile(&len, &body);
	char *bad = malloc(len);
	uint32_t v;

	ASSERT_TRUE(bad != NULL);
	at = body - REC2_SECTION_HEAD;
	/* off_cpu neither 0 nor 1. */
	memcpy(bad, good, len);
	bad[body + off_cpu] = 2;
	rec2_reseal(bad, at);
	refused(bad, len, "its --auto profile is malformed");
	/* More wait kinds than this reader knows: the count after the note. */
	memcpy(bad, good, len);
	v = WALL_NR_KINDS + 1;
	memcpy(bad + body + off_cpu + 1 + 4, &v, 4);
	rec2_reseal(bad, at);
	refused(bad, len, "its --auto profile is malformed");
	/* A newline in a stack, and stacks out of order. */
	memcpy(bad, good, len);
	bad[offset_of(bad, len, body, "wait_turn;")] = '\n';
	rec2_reseal(bad, at);
	refused(bad, len, "its --auto profile is malformed");
	memcpy(bad, good, len);
	bad[offset_of(bad, len, body, "work;spin")] = 'a';
	rec2_reseal(bad, at);
	refused(bad, len, "its --auto profile is malformed");
	free(bad);
	free(good);
}

TEST_HARNESS_MAIN
