// SPDX-License-Identifier: GPL-2.0
/*
 * A recording cut short (a crash, a SIGKILL of `record`) keeps what was
 * written before the cut (Documentation/recording.rst, "A recording cut
 * short"): the shared recorded session, in chunks of 1 KiB, cut at every
 * length.  A cut inside the header, the first tables or the first chunk
 * of events is refused in one line (there is nothing to report); any
 * later cut opens, says in one line where it was cut and what
 * is missing, and gives exactly the records of the chunks whole before
 * the cut; its report is made, naming addresses only once the names are
 * in, and lasting to its last event.
 */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>

#include "ispot_test.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-cut-XXXXXX"
#include "scratch_dir.h"
#include "stderr_capture.h"
#include "recording_session.h"
#include "recording_file.h"

#define MAX_CHUNKS	64

/* The shared session, recorded in chunks of 1 KiB: the file's bytes. */
static char *record_small_chunks(size_t *len)
{
	char rec[PATH_MAX], json[PATH_MAX];
	struct recording_session s;

	path_in(rec, "whole.isr");
	path_in(json, "whole.json");
	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	recording_set_chunk(s.t.out.rec, 1024);
	rs_trace(&s, 200);
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
	return slurp(rec, len);
}

/* Where each chunk of events ends, and how many records it holds. */
struct chunks {
	size_t n;
	uint64_t end[MAX_CHUNKS];
	long records[MAX_CHUNKS];
};

/* The records @path gives (-1: an error); its chunks' into @c if given. */
static long count_records(const char *path, struct chunks *c)
{
	struct recording_cursor cur = { 0 };
	struct recording_file rf;
	struct session_input ev;
	long n = 0;
	int ret;

	if (recording_open(path, &rf))
		return -1;
	while ((ret = recording_next(&rf, &cur, &ev)) > 0) {
		if (ev.type != INPUT_RECORD)
			continue;
		n++;
		if (c && cur.section < MAX_CHUNKS)
			c->records[cur.section]++;
	}
	recording_cursor_free(&cur);
	recording_close(&rf);
	return ret < 0 ? -1 : n;
}

static void chunks_of(const char *buf, size_t len, const char *path,
		      struct chunks *c)
{
	size_t off;
	uint32_t type;
	uint64_t l;

	memset(c, 0, sizeof(*c));
	while ((off = rec2_nth_section(buf, len, REC_SEC_EVENTS, c->n))) {
		ASSERT_LT(c->n, MAX_CHUNKS);
		rec2_section_head(buf, off, &type, &l);
		c->end[c->n++] = off + REC2_SECTION_HEAD + l;
	}
	ASSERT_GT(count_records(path, c), 0);
}

/* Where the PROFILE section (3.1), the last of the first tables, ends. */
static size_t tables_end(const char *buf, size_t len)
{
	size_t off = section_at(buf, len, REC_SEC_PROFILE);
	uint32_t type;
	uint64_t l;

	ASSERT_GT(off, 0);
	rec2_section_head(buf, off, &type, &l);
	return off + REC2_SECTION_HEAD + l;
}

/* The report of @buf cut at @len: 0 and one line on stderr, or -1. */
static int cut_report_as(const char *buf, size_t len, char **json,
			 bool as_json)
{
	char path[PATH_MAX], out[PATH_MAX];
	struct trace_opts o = { .json = as_json };
	int ret;

	path_in(path, "cut-report.isr");
	path_in(out, "cut-report.json");
	spit(path, buf, len);
	o.output = out;
	o.recording = path;
	capture_begin();
	ret = trace_replay(&o);
	capture_end();
	EXPECT_TRUE(strchr(captured, '\n') ==
		    captured + strlen(captured) - 1);
	*json = ret ? NULL : slurp(out, NULL);
	return ret;
}

static int cut_report(const char *buf, size_t len, char **json)
{
	return cut_report_as(buf, len, json, true);
}

/*
 * A cut at @len past the first tables: its report is made, one line says
 * where it was cut, and it holds exactly the records of the chunks whole
 * before the cut, read back (@count) or reported.
 */
static bool cut_opens(const char *buf, size_t len, const struct chunks *c,
		      bool count)
{
	char path[PATH_MAX], at[64], recorded[64];
	long want = 0, got = -2;
	size_t i;
	char *json;

	for (i = 0; i < c->n; i++)
		if (c->end[i] <= len)
			want += c->records[i];
	snprintf(at, sizeof(at), "cut short at byte %zu: ", len);
	snprintf(recorded, sizeof(recorded), "\"recorded\": %ld,", want);
	if (count) {
		path_in(path, "cut.isr");
		spit(path, buf, len);
		capture_begin();
		got = count_records(path, NULL);
		capture_end();
		EXPECT_EQ(got, want);
	} else {
		EXPECT_EQ(cut_report(buf, len, &json), 0);
		got = json && strstr(json, recorded) ? want : -1;
		EXPECT_TRUE(json && strstr(json, recorded));
		free(json);
	}
	EXPECT_TRUE(strstr(captured, at) && strstr(captured, "missing: "));
	EXPECT_TRUE(strchr(captured, '\n') ==
		    captured + strlen(captured) - 1);
	if (got != want || !strstr(captured, at))
		printf("# %zu bytes: %ld records of %ld: %s", len, got, want,
		       captured);
	return got == want;
}

/*
 * Whether a cut at @len is reported whole (the replay, the report), not
 * only read back: one byte of 13, and each side of every chunk's end.
 */
static bool whole_report(const struct chunks *c, size_t len)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (len + 1 >= c->end[i] && len <= c->end[i] + 1)
			return true;
	return len % 13 == 0;
}

TEST(cut_at_every_length_keeps_its_whole_chunks)
{
	char path[PATH_MAX];
	struct chunks c;
	size_t len, full, first, bad = 0;
	char *buf;

	buf = record_small_chunks(&full);
	path_in(path, "whole.isr");
	chunks_of(buf, full, path, &c);
	EXPECT_GE(c.n, 5);
	first = tables_end(buf, full);
	/* The tables a replay needs come before every event. */
	EXPECT_LT(first, c.end[0]);
	for (len = 0; len < full; len++) {
		if (len == 0)
			refused(buf, len, "is empty, not a recording");
		else if (len < 8)
			refused(buf, len, "is not an ispot recording");
		else if (len < first)
			refused(buf, len, "cut short");
		else if (len < c.end[0])
			refused(buf, len, "no whole chunk of events");
		else
			bad += !cut_opens(buf, len, &c, !whole_report(&c, len));
	}
	EXPECT_EQ(bad, 0);
	printf("# %zu bytes, %zu chunks, tables to byte %zu\n", full, c.n,
	       first);
	free(buf);
}

/* The latest time of an event @path holds, less the session's start. */
static uint64_t last_event(const char *path)
{
	struct recording_cursor cur = { 0 };
	struct recording_file rf;
	struct session_input ev;
	uint64_t last = 0, t;

	capture_begin();
	ASSERT_EQ(recording_open(path, &rf), 0);
	capture_end();
	while (recording_next(&rf, &cur, &ev) > 0) {
		t = ev.type == INPUT_RECORD ? ev.rec->ts_ns :
		    ev.type == INPUT_THREAD_SEEN ||
		    ev.type == INPUT_THREAD_EXIT ? ev.a : 0;
		last = t > last ? t : last;
	}
	t = rf.sum.t_enable;
	recording_cursor_free(&cur);
	recording_close(&rf);
	return last - t;
}

TEST(a_cut_recording_reports_what_it_holds)
{
	char path[PATH_MAX], cut[PATH_MAX], duration[64];
	size_t full, names, stats, len;
	char *buf, *json;
	struct chunks c;

	buf = record_small_chunks(&full);
	path_in(path, "whole.isr");
	path_in(cut, "cut-report.isr");
	chunks_of(buf, full, path, &c);
	names = section_at(buf, full, REC_SEC_NAMES);
	stats = section_at(buf, full, REC_SEC_STATS);
	ASSERT_GT(names, c.end[c.n - 1] - 1);
	/* Past half the chunks: calls, their addresses unnamed. */
	len = c.end[c.n / 2] + 5;
	ASSERT_EQ(cut_report(buf, len, &json), 0);
	EXPECT_TRUE(strstr(captured, "missing: its address names and the "
			   "session's statistics") != NULL);
	/* It lasted from START to its last event kept. */
	snprintf(duration, sizeof(duration), "\"duration_ns\": %llu,",
		 (unsigned long long)last_event(cut));
	EXPECT_TRUE(strstr(json, duration) != NULL);
	EXPECT_TRUE(strstr(json, "\"name\": \"worker\"") != NULL);
	EXPECT_TRUE(strstr(json, "recording_test_caller") == NULL);
	/* The report itself says so, not only stderr; a program, too. */
	EXPECT_TRUE(strstr(json, "the drops are unknown (not 0)") != NULL);
	EXPECT_TRUE(strstr(json, "its addresses are unnamed") != NULL);
	EXPECT_TRUE(strstr(json, "\"dropped_known\": false") != NULL);
	free(json);
	ASSERT_EQ(cut_report_as(buf, len, &json, false), 0);
	EXPECT_TRUE(strstr(json, " recorded, dropped unknown, ") != NULL);
	EXPECT_TRUE(strstr(json, "0 dropped") == NULL);
	free(json);
	/* Names whole, the statistics cut: the addresses are named. */
	ASSERT_EQ(cut_report(buf, stats + 3, &json), 0);
	EXPECT_TRUE(strstr(captured, "missing: the session's statistics") !=
		    NULL);
	EXPECT_TRUE(strstr(json, "recording_test_caller") != NULL);
	EXPECT_TRUE(strstr(json, "the drops are unknown (not 0)") != NULL);
	EXPECT_TRUE(strstr(json, "its addresses are unnamed") == NULL);
	free(json);
	/* Inside the first tables: refused. */
	EXPECT_EQ(cut_report(buf, tables_end(buf, full) - 1, &json), -1);
	EXPECT_TRUE(strstr(captured, "cut short at byte") != NULL);
	free(buf);
}

/* The temporary file a recording of @name is written to, into @buf. */
static void temp_of(char *buf, const char *name)
{
	char prefix[PATH_MAX];
	struct dirent *d;
	DIR *dp = opendir(dir);

	ASSERT_TRUE(dp);
	snprintf(prefix, sizeof(prefix), ".%s.", name);
	buf[0] = '\0';
	while ((d = readdir(dp)))
		if (!strncmp(d->d_name, prefix, strlen(prefix)))
			path_in(buf, d->d_name);
	closedir(dp);
	ASSERT_TRUE(buf[0]);
}

/*
 * A session far from a chunk's MiB: nothing of its events is in the file
 * until recording_sync() (a live session's, every second) puts them out,
 * then a crash right after keeps them all.
 */
TEST(a_sync_puts_the_events_so_far_in_the_file)
{
	char rec[PATH_MAX], json[PATH_MAX], tmp[PATH_MAX];
	struct recording_session s;
	size_t len;
	char *buf;
	long n;

	path_in(rec, "sync.isr");
	path_in(json, "sync.json");
	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	rs_trace(&s, 100);
	temp_of(tmp, "sync.isr");
	buf = slurp(tmp, &len);
	refused(buf, len, "no whole chunk of events");
	free(buf);
	recording_sync(s.t.out.rec);
	buf = slurp(tmp, &len);
	path_in(tmp, "synced.isr");
	spit(tmp, buf, len);
	capture_begin();
	n = count_records(tmp, NULL);
	capture_end();
	/* Four records a call, and a call stack every tenth call. */
	EXPECT_EQ(n, 4 * 100 + 10);
	EXPECT_TRUE(strstr(captured, "cut short at byte") != NULL);
	free(buf);
	ASSERT_EQ(rs_stop(&s), 0);
	trace_free(&s.t);
}

/*
 * A session whose file may grow to @limit bytes: kept, with all its
 * events (@all: the last tables failed) or some.
 */
static void fill_at(size_t limit, bool all)
{
	char rec[PATH_MAX], json[PATH_MAX], tmp[PATH_MAX], name[32];
	struct rlimit old, lim;
	struct recording_session s;
	long n;
	int ret;

	snprintf(name, sizeof(name), "full%zu.isr", limit);
	path_in(rec, name);
	path_in(json, "full.json");
	ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
	ASSERT_EQ(rs_start(&s, rec, json, 1ull << 30), 0);
	recording_set_chunk(s.t.out.rec, 1024);
	lim = old;
	lim.rlim_cur = limit;
	/* No SIGXFSZ handling here: the recording's own keeps it alive. */
	ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
	rs_trace(&s, 200);
	capture_begin();
	ret = rs_stop(&s);
	capture_end();
	ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
	trace_free(&s.t);
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(strstr(captured, "(File too large): the ") != NULL);
	EXPECT_TRUE(strstr(captured, "reads as a recording cut short") !=
		    NULL);
	EXPECT_EQ(strchr(captured, '\n'), captured + strlen(captured) - 1);
	EXPECT_NE(access(rec, F_OK), 0);
	temp_of(tmp, name);
	EXPECT_TRUE(strstr(captured, tmp) != NULL);
	capture_begin();
	n = count_records(tmp, NULL);
	capture_end();
	/* Four records a call, and a call stack every tenth call. */
	EXPECT_GT(n, 0);
	if (all)
		EXPECT_EQ(n, 4 * 200 + 20);
	else
		EXPECT_LT(n, 4 * 200 + 20);
	EXPECT_TRUE(strstr(captured, "cut short at byte") != NULL);
}

/*
 * The disk fills (here: the file reaches RLIMIT_FSIZE, EFBIG, as ENOSPC
 * would stop it) after whole chunks went out, amid the events or in the
 * last tables: the recording is not lost but kept under its temporary
 * name, said in one line, and reports as a recording cut short.  It used
 * to be removed ("no recording was left").
 */
TEST(a_disk_that_fills_keeps_the_chunks_written)
{
	fill_at(4096, false);
	fill_at(8192, true);
}

TEST_HARNESS_MAIN
