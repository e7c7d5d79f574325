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
 * count past its bound is refused before its bytes are.  A pick of a
 * library unloaded during the sampling stays marked (UNLOADED, 6.1); a
 * file without that section reads every pick as loaded, a malformed one
 * is refused as PROFILE is, and a damaged one (its head too) is left out.
 */
#include <endian.h>
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

/* What record() gives the session. */
enum auto_kind {
	NO_AUTO,	/* no --auto: PROFILE says none */
	AUTO,		/* profile(): two picks, both loaded */
	AUTO_UNLOADED,	/* the same, "work"'s library unloaded meanwhile */
};

/*
 * A profile as --auto leaves it in the session: two picks, three lines;
 * with @unloaded, the second's library was unloaded during the sampling.
 */
static struct autopick *profile(const char *exe, bool unloaded)
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
	a->funcs[1].unloaded = unloaded;
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
 * its HTML report), with the profile @kind says.
 */
static void record(const char *rec, const char *json, const char *html,
		   enum auto_kind kind)
{
	struct recording_session s;

	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	s.o.html = html;
	if (kind != NO_AUTO)
		s.t.picked = profile(s.exe, kind == AUTO_UNLOADED);
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
	record(rec, live, NULL, AUTO_UNLOADED);
	ASSERT_EQ(replay(rec, off, html, NULL), 0);
	a = slurp(live, NULL);
	b = slurp(off, NULL);
	EXPECT_TRUE(strstr(a, "\"auto\": {") != NULL);
	EXPECT_TRUE(strstr(a, "\"unloaded\": true") != NULL);
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
	s.t.picked = profile(s.exe, false);
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
	record(rec, live, NULL, AUTO);
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
	record(rec, json, NULL, AUTO);
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
	record(rec, json, NULL, NO_AUTO);
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

/*
 * The recording of @kind, and where the body of its section of @type
 * starts.
 */
static char *with_section(enum auto_kind kind, uint32_t type, size_t *len,
			  size_t *body)
{
	char rec[PATH_MAX], json[PATH_MAX];
	size_t at;
	char *buf;

	path_in(rec, "b.isr");
	path_in(json, "b.json");
	record(rec, json, NULL, kind);
	buf = slurp(rec, len);
	at = section_at(buf, *len, type);
	ASSERT_GT(at, 0);
	*body = at + REC2_SECTION_HEAD;
	return buf;
}

/* The recording with a profile, and where its PROFILE body starts. */
static char *with_profile(size_t *len, size_t *body)
{
	return with_section(AUTO, REC_SEC_PROFILE, len, body);
}

/* The profile body's offset of the first byte of @s in it. */
static size_t offset_of(const char *buf, size_t len, size_t body,
			const char *s)
{
	const char *p = memmem(buf + body, len - body, s, strlen(s));

	ASSERT_TRUE(p != NULL);
	return (size_t)(p - buf);
}

/* With an UNLOADED section after it, which a lost PROFILE leaves alone. */
TEST(a_damaged_profile_refuses_the_file)
{
	size_t len, body;
	char *buf = with_section(AUTO_UNLOADED, REC_SEC_PROFILE, &len, &body);

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
	uint32_t other = htole32(99);
	char *buf;

	path_in(rec, "m.isr");
	path_in(json, "m.json");
	record(rec, json, NULL, NO_AUTO);
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
	uint32_t n = htole32(3);

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
	v = htole32(WALL_NR_KINDS + 1);
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

/*
 * Which picks recording_open() reads from @len bytes of @buf as of an
 * unloaded library: bit i for pick i.
 */
static unsigned int unloaded_read(const char *buf, size_t len)
{
	struct recording_file rf;
	char path[PATH_MAX];
	unsigned int bits = 0;
	size_t i;

	path_in(path, "u.isr");
	spit(path, buf, len);
	ASSERT_EQ(recording_open(path, &rf), 0);
	ASSERT_TRUE(rf.picked != NULL);
	EXPECT_EQ(rf.picked->nr, 2u);
	for (i = 0; i < rf.picked->nr; i++)
		bits |= (unsigned int)rf.picked->funcs[i].unloaded << i;
	recording_close(&rf);
	return bits;
}

/*
 * UNLOADED (6.1) names "work" alone, as its index; the JSON is the live
 * one (report_gives_the_live_auto_object_and_flame_graph).
 */
TEST(an_unloaded_pick_stays_marked)
{
	const uint32_t want[] = { 1, 1 };
	const uint32_t le_want[] = { htole32(want[0]), htole32(want[1]) };
	size_t len, body;
	char *buf = with_section(AUTO_UNLOADED, REC_SEC_UNLOADED, &len,
				 &body);
	uint64_t n;

	/* The file's words are little-endian, whatever the host's. */
	memcpy(&n, buf + body - REC2_SECTION_HEAD + 8, 8);
	EXPECT_EQ(le64toh(n), sizeof(want));
	EXPECT_EQ(memcmp(buf + body, le_want, sizeof(le_want)), 0);
	EXPECT_EQ(unloaded_read(buf, len), 2u);
	free(buf);
}

/*
 * The tables line of --header (recording_header()) of the recording at
 * @path: the line, malloc'd.
 */
static char *header_tables_line(const char *path)
{
	struct recording_file rf;
	char *text = NULL, *line, *end;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(recording_open(path, &rf), 0);
	ASSERT_EQ(recording_header(f, &rf), 0);
	recording_close(&rf);
	fclose(f);
	/* Never the first: the file's own lines come before the tables. */
	line = strstr(text, "\ntables ");
	ASSERT_TRUE(line != NULL);
	end = strchr(line + 1, '\n');
	line = strndup(line + 1, end ? (size_t)(end - line - 1) : strlen(line));
	free(text);
	return line;
}

/*
 * --header's tables line names UNLOADED's bytes (its two indexes) when
 * the file holds the section, and not otherwise.
 */
TEST(the_header_names_the_unloaded_tables_bytes)
{
	char rec[PATH_MAX], json[PATH_MAX];
	char *line;

	path_in(rec, "h.isr");
	path_in(json, "h.json");
	record(rec, json, NULL, AUTO_UNLOADED);
	line = header_tables_line(rec);
	/* The last table named, so the line's end. */
	EXPECT_TRUE(strlen(line) > 12 &&
		    !strcmp(line + strlen(line) - 12, ", unloaded 8"));
	printf("# %s\n", line);
	free(line);
	record(rec, json, NULL, AUTO);
	line = header_tables_line(rec);
	EXPECT_TRUE(strstr(line, "profile ") != NULL);
	EXPECT_TRUE(strstr(line, "unloaded") == NULL);
	free(line);
}

/*
 * None unloaded: no section, and every pick read as loaded; a file
 * without it (a 6.0 writer's, or a 6.1 one's section retyped to one
 * this reader skips) the same.
 */
TEST(a_recording_without_unloaded_picks_reads_them_loaded)
{
	uint32_t other = htole32(99);
	size_t len, body;
	char *buf = with_profile(&len, &body);

	EXPECT_EQ(section_at(buf, len, REC_SEC_UNLOADED), 0u);
	EXPECT_EQ(unloaded_read(buf, len), 0u);
	free(buf);
	buf = with_section(AUTO_UNLOADED, REC_SEC_UNLOADED, &len, &body);
	memcpy(buf + body - REC2_SECTION_HEAD, &other, 4);
	rec2_reseal(buf, body - REC2_SECTION_HEAD);
	EXPECT_EQ(unloaded_read(buf, len), 0u);
	free(buf);
}

/*
 * @len bytes of @buf with the @cut bytes at @at replaced by the @n bytes
 * of @ins: *@out_len bytes, malloc'd.
 */
static char *spliced(const char *buf, size_t len, size_t at, size_t cut,
		     const void *ins, size_t n, size_t *out_len)
{
	char *out = malloc(len - cut + n);

	ASSERT_TRUE(out != NULL);
	memcpy(out, buf, at);
	if (n)
		memcpy(out + at, ins, n);
	memcpy(out + at + n, buf + at + cut, len - at - cut);
	*out_len = len - cut + n;
	return out;
}

/*
 * @buf with the UNLOADED body at @body (its section at the end of
 * PROFILE's) made the @n bytes of @v, sealed again: refused for @what.
 */
static void unloaded_refused(const char *buf, size_t len, size_t body,
			     const void *v, size_t n, const char *what)
{
	size_t head = body - REC2_SECTION_HEAD, out_len;
	uint64_t old, now = htole64(n);
	char *out;

	memcpy(&old, buf + head + 8, 8);
	out = spliced(buf, len, body, le64toh(old), v, n, &out_len);
	memcpy(out + head + 8, &now, 8);
	rec2_reseal(out, head);
	refused(out, out_len, what);
	free(out);
}

TEST(a_malformed_unloaded_list_refuses_the_file)
{
	const char *bad = "its list of unloaded picks is malformed";
	/* Counts and indexes, as the file's little-endian words. */
	const uint32_t past[] = { htole32(1), htole32(2) },
		       many[] = { htole32(3), 0, htole32(1) },
		       twice[] = { htole32(2), htole32(1), htole32(1) },
		       down[] = { htole32(2), htole32(1), 0 },
		       none[] = { 0 }, spare[] = { htole32(1), htole32(1), 0 };
	size_t len, body, prof, at, n, other_len;
	char *buf = with_section(AUTO_UNLOADED, REC_SEC_UNLOADED, &len,
				 &body);
	char *other, *sec;

	unloaded_refused(buf, len, body, past, sizeof(past), bad);
	unloaded_refused(buf, len, body, many, sizeof(many), bad);
	unloaded_refused(buf, len, body, twice, sizeof(twice), bad);
	unloaded_refused(buf, len, body, down, sizeof(down), bad);
	unloaded_refused(buf, len, body, none, sizeof(none), bad);
	/* Cut short in its index, and a byte past its list. */
	unloaded_refused(buf, len, body, past, sizeof(past) - 1, bad);
	unloaded_refused(buf, len, body, spare, sizeof(spare) - 3, bad);
	/*
	 * Damaged (its check fails): left out, said, its picks read as
	 * loaded; only a mark is lost, not the report.
	 */
	buf[body] ^= 0x01;
	EXPECT_EQ(unloaded_read(buf, len), 0u);
	buf[body] ^= 0x01;
	EXPECT_EQ(unloaded_read(buf, len), 1u << 1);

	/* Ahead of the profile whose picks it indexes. */
	at = body - REC2_SECTION_HEAD;
	n = REC2_SECTION_HEAD + 8;
	prof = section_at(buf, len, REC_SEC_PROFILE);
	sec = malloc(n);
	ASSERT_TRUE(sec != NULL);
	memcpy(sec, buf + at, n);
	other = spliced(buf, len, at, n, NULL, 0, &other_len);
	free(buf);
	buf = spliced(other, other_len, prof, 0, sec, n, &len);
	free(other);
	refused(buf, len, "unloaded picks with no profile before them");
	free(buf);

	/* After a PROFILE of none: no picks to mark. */
	buf = with_section(NO_AUTO, REC_SEC_PROFILE, &len, &body);
	at = body + 1;
	other = spliced(buf, len, at, 0, sec, n, &other_len);
	rec2_reseal(other, at);
	refused(other, other_len, bad);
	free(other);
	free(sec);
	free(buf);
}

/*
 * UNLOADED's head damaged in one field (its type, its own check, its
 * length, its body's check): the reader passes over it to the first
 * chunk, and tells it from a damaged first chunk by the field left
 * whole.  Left out and said, as a damaged body is; no chunk lost, the
 * events all read, and the chunks after it keep their numbers.
 */
TEST(a_damaged_unloaded_head_is_not_taken_for_a_chunk)
{
	static const size_t fields[] = { 0, 5, 9, 17 };
	struct recording_file rf;
	char path[PATH_MAX];
	size_t len, body, whole, i, head;
	char *buf = with_section(AUTO_UNLOADED, REC_SEC_UNLOADED, &len,
				 &body);

	head = body - REC2_SECTION_HEAD;
	path_in(path, "uh.isr");
	spit(path, buf, len);
	ASSERT_EQ(recording_open(path, &rf), 0);
	whole = rf.nr_events;
	recording_close(&rf);
	ASSERT_GT(whole, 0);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		buf[head + fields[i]] ^= 0x04;
		spit(path, buf, len);
		capture_begin();
		ASSERT_EQ(recording_open(path, &rf), 0);
		capture_end();
		EXPECT_EQ(rf.lost, 0u);
		EXPECT_EQ(rf.nr_events, whole);
		EXPECT_FALSE(rf.picked->funcs[1].unloaded);
		EXPECT_TRUE(strstr(captured, "its list of unloaded picks is "
				   "damaged: the report is made without "
				   "them") != NULL);
		EXPECT_TRUE(strstr(captured, "chunk") == NULL);
		if (rf.lost || !strstr(captured, "unloaded"))
			printf("# field at byte %zu: %s", fields[i], captured);
		recording_close(&rf);
		buf[head + fields[i]] ^= 0x04;
	}
	free(buf);
}

TEST_HARNESS_MAIN
