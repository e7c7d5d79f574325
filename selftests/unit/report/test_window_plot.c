// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl plot (report/window_plot.c): ispotd's window log, lines in the
 * format of Documentation/ispotd.rst ("A window"), drawn as scores over
 * time; and every way a log can be wrong, one line each, nothing written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ispot_test.h"
#include "unit/stderr_capture.h"
#include "report/pictures.h"
#include "report/window_plot.h"

/*
 * malloc() of this process, failing for a size of @fail_size: the
 * points of a line of a length nothing else asks for.
 */
extern void *__libc_malloc(size_t size);
static size_t fail_size;

void *malloc(size_t size)
{
	return fail_size && size == fail_size ? NULL : __libc_malloc(size);
}

/* One window of target @pid at second @sec, its functions' members. */
static void window_line(FILE *f, int pid, int sec, const char *functions)
{
	fprintf(f, "{\"time\": \"2026-11-23T14:%02d:%02d.250Z\", "
		"\"window_ns\": 60000000000, \"armed_ns\": 1500000000, "
		"\"target\": {\"pid\": %d, \"exe\": \"/usr/sbin/app\", "
		"\"cgroup\": \"\"}, \"events\": {\"recorded\": 10}, "
		"\"functions\": [%s], \"futexes\": [], \"totals\": []}\n",
		sec / 60, sec % 60, pid, functions);
}

struct fixture {
	char dir[64];
	char log[96];
	char out[96];	/* dir/out: --svg DIR, not made yet */
};

static FILE *fixture_open(struct fixture *x)
{
	FILE *f;

	snprintf(x->dir, sizeof(x->dir), "/tmp/ispot-plot-XXXXXX");
	ASSERT_TRUE(mkdtemp(x->dir));
	snprintf(x->log, sizeof(x->log), "%s/windows.log", x->dir);
	snprintf(x->out, sizeof(x->out), "%s/out", x->dir);
	f = fopen(x->log, "w");
	ASSERT_TRUE(f);
	return f;
}

static char *slurp(const char *dir, const char *name)
{
	char path[200], *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	ASSERT_TRUE(buf);
	ASSERT_EQ(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay += strlen(needle))
		n++;
	return n;
}

/* The points of the @i-th polyline (from 0), counted by their commas. */
static size_t points_of(const char *svg, size_t i)
{
	const char *p = svg, *end;
	size_t n = 0;

	while (i-- + 1 && p)
		p = strstr(p + 1, "<polyline");
	ASSERT_TRUE(p);
	p = strstr(p, "points=\"") + 8;
	end = strchr(p, '"');
	for (; p < end; p++)
		n += *p == ',';
	return n;
}

static void fixture_free(struct fixture *x)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", x->dir);
	EXPECT_EQ(system(cmd), 0);
}

TEST(each_function_a_line_over_the_windows)
{
	struct fixture x;
	FILE *f = fixture_open(&x);
	char *sci, *interf;

	window_line(f, 812, 10, "{\"name\": \"acquire\", \"sci\": 0.41, "
		    "\"interference\": 0.30}, {\"name\": \"ns::Map<int>::get\""
		    ", \"sci\": 0.05, \"interference\": 0.01}");
	window_line(f, 812, 70, "{\"name\": \"acquire\", \"sci\": 0.52, "
		    "\"interference\": 0.44}");
	fputs("\n", f);		/* blank lines are no windows */
	window_line(f, 812, 130, "{\"name\": \"acquire\", \"sci\": 0.12}, "
		    "{\"name\": \"ns::Map<int>::get\", \"sci\": 0.09}");
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(window_plot(x.log, x.out), 0);
	sci = slurp(x.out, "windows.sci.svg");
	interf = slurp(x.out, "windows.interf.svg");
	ASSERT_TRUE(sci && interf);
	EXPECT_TRUE(strstr(sci, "<title>SCI over time"));
	EXPECT_EQ(count(sci, "<polyline"), 2);
	/* The highest peak first: acquire, three windows; then the other. */
	EXPECT_EQ(points_of(sci, 0), 3);
	EXPECT_EQ(points_of(sci, 1), 2);
	EXPECT_TRUE(strstr(sci, ">acquire</text>"));
	EXPECT_TRUE(strstr(sci, ">ns::Map&lt;int&gt;::get</text>"));
	EXPECT_TRUE(strstr(sci, ">60%</text>"));	/* above the 52% peak */
	EXPECT_TRUE(strstr(sci, ">100s</text>"));
	EXPECT_TRUE(strstr(sci, "3 windows over 120s"));
	/* INTERF only where a window gave it. */
	EXPECT_TRUE(strstr(interf, "<title>INTERF over time"));
	EXPECT_EQ(points_of(interf, 0), 2);
	/* One window: a dot, drawn as a two-pixel line. */
	EXPECT_EQ(points_of(interf, 1), 2);
	free(sci);
	free(interf);
	fixture_free(&x);
}

TEST(no_interf_no_interf_picture_and_pids_told_apart)
{
	struct fixture x;
	FILE *f = fixture_open(&x);
	char *sci, *interf;

	window_line(f, 812, 0, "{\"name\": \"acquire\", \"sci\": 0.2}");
	window_line(f, 900, 5, "{\"name\": \"acquire\", \"sci\": 0.1}");
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(window_plot(x.log, x.out), 0);
	sci = slurp(x.out, "windows.sci.svg");
	interf = slurp(x.out, "windows.interf.svg");
	ASSERT_TRUE(sci);
	EXPECT_TRUE(!interf);
	EXPECT_TRUE(strstr(sci, ">acquire (pid 812)</text>"));
	EXPECT_TRUE(strstr(sci, ">acquire (pid 900)</text>"));
	free(sci);
	fixture_free(&x);
}

TEST(the_highest_peaks_are_drawn_the_rest_counted)
{
	struct fixture x;
	FILE *f = fixture_open(&x);
	char fns[2048], *sci, name[32];
	size_t used = 0, i;

	for (i = 0; i < PICTURE_LINES + 3; i++)
		used += snprintf(fns + used, sizeof(fns) - used, "%s{\"name\""
				 ": \"f%zu\", \"sci\": %.2f}", i ? ", " : "", i,
				 0.01 * (i + 1));
	window_line(f, 1, 0, fns);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(window_plot(x.log, x.out), 0);
	sci = slurp(x.out, "windows.sci.svg");
	ASSERT_TRUE(sci);
	EXPECT_EQ(count(sci, "<polyline"), PICTURE_LINES);
	EXPECT_TRUE(strstr(sci, "3 more functions"));
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), ">f%zu</text>", i);
		EXPECT_TRUE(!strstr(sci, name));
	}
	snprintf(name, sizeof(name), ">f%d</text>", PICTURE_LINES + 2);
	EXPECT_TRUE(strstr(sci, name));
	free(sci);
	fixture_free(&x);
}

/*
 * A long log of a target with many functions: each window names every
 * function, found again in O(1) (a scan of the series would compare
 * names some 10^9 times here).
 */
#define MANY_FNS	20000
#define MANY_WINDOWS	10
TEST(many_functions_over_many_windows_are_fast)
{
	struct fixture x;
	FILE *f = fixture_open(&x);
	size_t len = MANY_FNS * 48, used, i;
	char *fns = malloc(len), *sci;
	struct timespec a, b;
	long ms;
	int w;

	ASSERT_TRUE(fns);
	for (w = 0; w < MANY_WINDOWS; w++) {
		for (used = 0, i = 0; i < MANY_FNS; i++)
			used += snprintf(fns + used, len - used, "%s{\"name\": "
					 "\"fn%zu\", \"sci\": %.5f}",
					 i ? ", " : "", i, 1e-5 * i);
		window_line(f, 1, w, fns);
	}
	free(fns);
	ASSERT_EQ(fclose(f), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	ASSERT_EQ(window_plot(x.log, x.out), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	EXPECT_LT(ms, 3000);
	sci = slurp(x.out, "windows.sci.svg");
	ASSERT_TRUE(sci);
	EXPECT_EQ(count(sci, "<polyline"), PICTURE_LINES);
	EXPECT_EQ(points_of(sci, 0), MANY_WINDOWS);
	EXPECT_TRUE(strstr(sci, ">fn19999</text>"));
	free(sci);
	fixture_free(&x);
}

/*
 * No memory for a line's points: the picture is not written (its legend
 * would name a line not drawn), and the one line says out of memory.
 */
#define ODD_WINDOWS	333
TEST(no_memory_for_a_line_is_an_error)
{
	struct fixture x;
	FILE *f = fixture_open(&x);
	struct stat st;
	char path[200];
	int w, ret;

	for (w = 0; w < ODD_WINDOWS; w++)
		window_line(f, 1, w, "{\"name\": \"a\", \"sci\": 0.1}");
	ASSERT_EQ(fclose(f), 0);
	capture_begin();
	fail_size = ODD_WINDOWS * sizeof(double);
	ret = window_plot(x.log, x.out);
	fail_size = 0;
	capture_end();
	EXPECT_EQ(ret, -1);
	if (!strstr(captured, "out of memory drawing"))
		TH_LOG("stderr: %s", captured);
	EXPECT_TRUE(strstr(captured, "out of memory drawing"));
	EXPECT_EQ(count(captured, "\n"), 1);
	snprintf(path, sizeof(path), "%s/windows.sci.svg", x.out);
	EXPECT_NE(stat(path, &st), 0);
	fixture_free(&x);
}

/* window_plot() fails with one line matching @want; no DIR made. */
static void expect_refused(struct fixture *x, const char *want)
{
	struct stat st;

	capture_begin();
	EXPECT_EQ(window_plot(x->log, x->out), -1);
	capture_end();
	if (!strstr(captured, want))
		TH_LOG("stderr: %s", captured);
	EXPECT_TRUE(strstr(captured, want));
	EXPECT_EQ(count(captured, "\n"), 1);
	EXPECT_NE(stat(x->out, &st), 0);
}

TEST(a_bad_log_is_one_line_and_nothing_written)
{
	struct fixture x;
	FILE *f = fixture_open(&x);

	ASSERT_EQ(fclose(f), 0);
	expect_refused(&x, "windows.log holds no window");
	f = fopen(x.log, "w");
	window_line(f, 1, 0, "{\"name\": \"a\", \"sci\": 0.1}");
	fputs("{\"time\": \"2026-11-23T14:00:00.000Z\", \"functions\": [,]}\n",
	      f);
	ASSERT_EQ(fclose(f), 0);
	expect_refused(&x, "windows.log:2: not a window of ispotd's log");
	f = fopen(x.log, "w");
	window_line(f, 1, 0, "{\"name\": \"a\"}");
	ASSERT_EQ(fclose(f), 0);
	expect_refused(&x, "a function without \"name\" or \"sci\"");
	f = fopen(x.log, "w");
	fputs("{\"time\": \"yesterday\", \"target\": {\"pid\": 1}, "
	      "\"functions\": []}\n", f);
	ASSERT_EQ(fclose(f), 0);
	expect_refused(&x, "\"time\" is not RFC 3339 UTC");
	/* inf would reach the SVG's coordinates: refused as it is read. */
	f = fopen(x.log, "w");
	window_line(f, 1, 0, "{\"name\": \"a\", \"sci\": 1e999}");
	ASSERT_EQ(fclose(f), 0);
	expect_refused(&x, "windows.log:1: not a window of ispotd's log "
		       "(number out of range)");
	ASSERT_EQ(unlink(x.log), 0);
	expect_refused(&x, "cannot read");
	fixture_free(&x);
}

TEST(an_unwritable_dir_is_one_line)
{
	struct fixture x;
	FILE *f = fixture_open(&x);

	window_line(f, 1, 0, "{\"name\": \"a\", \"sci\": 0.1}");
	ASSERT_EQ(fclose(f), 0);
	/* A file where the directory should be. */
	snprintf(x.out, sizeof(x.out), "%s", x.log);
	capture_begin();
	EXPECT_EQ(window_plot(x.log, x.out), -1);
	capture_end();
	EXPECT_TRUE(strstr(captured, "choose a writable --svg directory"));
	EXPECT_EQ(count(captured, "\n"), 1);
	fixture_free(&x);
}

TEST_HARNESS_MAIN
