// SPDX-License-Identifier: GPL-2.0
/*
 * The screen of `ispotctl top` laid out as text (topview.h): the header
 * with the target, interval, sort and PAUSED; a row per function with its
 * figures in human units; the optional columns that go on a narrow
 * terminal; rows cut to the height; and, over every size from 1x1 to
 * 200x40, no line wider than the terminal and no control character, even
 * from names that carry escape sequences.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "util/format.h"
#include "top/topview.h"

static struct rates_row rows[40];

static struct rates_view view_of(size_t n)
{
	struct rates_view v = {
		.span_ns = 5e9, .events_per_s = 45123, .dropped = 0,
		.nr_rows = n, .rows = rows,
	};
	size_t i;

	for (i = 0; i < n; i++) {
		rows[i] = (struct rates_row){
			.exe = "lock_contention", .function = "acquire",
			.object = "/ispot/samples/lock_contention",
			.sci = 0.317, .interference = 0.254,
			.loss_per_s = 154e6,
			.calls_per_s = 12345, .p99_ns = 25000,
			.cause = CAUSE_FUTEX, .cause_share = 0.92,
		};
	}
	return v;
}

static const struct topview_head head = {
	.target = "lock_contention (pid 97)", .elapsed_ns = 12.3e9,
	.window_ns = 5e9, .sort = RATES_BY_SCI,
};

static bool line_has(const struct topview_frame *f, int i, const char *s)
{
	return i < f->nr_lines && strstr(topview_line(f, i), s) != NULL;
}

TEST(format_count_units)
{
	char b[32];

	EXPECT_STREQ(format_count(b, sizeof(b), 0), "0");
	EXPECT_STREQ(format_count(b, sizeof(b), 812), "812");
	EXPECT_STREQ(format_count(b, sizeof(b), 12.5), "12.5");
	EXPECT_STREQ(format_count(b, sizeof(b), 45123), "45.1k");
	EXPECT_STREQ(format_count(b, sizeof(b), 1234567), "1.23M");
}

TEST(wide_terminal)
{
	struct topview_frame f = { 0 };
	struct rates_view v = view_of(3);

	rows[1].function = "release";
	rows[1].sci = NAN;
	rows[1].interference = NAN;
	rows[1].p99_ns = NAN;
	rows[1].cause = -1;
	ASSERT_EQ(topview_render(&f, 120, 30, &head, &v), 0);
	EXPECT_EQ(f.nr_lines, 4 + 3);
	EXPECT_TRUE(line_has(&f, 0, "ispotctl top: lock_contention (pid 97)"));
	EXPECT_TRUE(line_has(&f, 0, "up 12.3s"));
	EXPECT_TRUE(line_has(&f, 0, "45.1k events/s"));
	EXPECT_TRUE(line_has(&f, 0, "0 dropped"));
	EXPECT_TRUE(line_has(&f, 1, "last 5.00s"));
	EXPECT_TRUE(line_has(&f, 1, "sort: SCI"));
	EXPECT_FALSE(line_has(&f, 1, "PAUSED"));
	EXPECT_EQ(f.header_line, 3);
	EXPECT_TRUE(line_has(&f, 3, "SCI"));
	EXPECT_TRUE(line_has(&f, 3, "CAUSE"));
	EXPECT_TRUE(line_has(&f, 3, "FUNCTION  OBJECT"));
	EXPECT_FALSE(line_has(&f, 3, "EXE"));
	EXPECT_TRUE(line_has(&f, 3, "INTERF"));
	EXPECT_TRUE(line_has(&f, 4, "25.4%    31.7%"));
	EXPECT_TRUE(line_has(&f, 4, "154ms/s"));
	EXPECT_TRUE(line_has(&f, 4, "12.3k"));
	EXPECT_TRUE(line_has(&f, 4, "25.0us"));
	EXPECT_TRUE(line_has(&f, 4, "futex 92%"));
	/* The object by its base name, next to the function. */
	EXPECT_TRUE(line_has(&f, 4, "acquire   lock_contention"));
	/* Unknown figures are dashes. */
	EXPECT_TRUE(strncmp(topview_line(&f, 5), "      -", 7) == 0);
	EXPECT_TRUE(line_has(&f, 5, "release"));
	/* Columns line up: INTERF's right edge over the figures'. */
	EXPECT_EQ(strstr(topview_line(&f, 3), "INTERF") - topview_line(&f, 3) +
		  6, strchr(topview_line(&f, 4), '%') - topview_line(&f, 4) + 1);
	topview_free(&f);
}

/*
 * ispotd --auto's picks (top --from): an AUTO column with each pick's wall
 * share, blank for the functions it did not pick; none without picks.
 */
TEST(auto_column_only_with_picks)
{
	struct topview_frame f = { 0 };
	struct rates_view v = view_of(2);

	ASSERT_EQ(topview_render(&f, 120, 30, &head, &v), 0);
	EXPECT_FALSE(line_has(&f, 3, "AUTO"));
	rows[0].pick_share = 0.85;
	rows[1].function = "release";
	ASSERT_EQ(topview_render(&f, 120, 30, &head, &v), 0);
	EXPECT_TRUE(line_has(&f, 3, "AUTO"));
	EXPECT_TRUE(line_has(&f, 4, "85.0%"));
	EXPECT_FALSE(line_has(&f, 5, "85.0%"));
	EXPECT_TRUE(line_has(&f, 5, "release"));
	rows[0].pick_share = 0;
	topview_free(&f);
}

TEST(narrow_terminal_drops_optional_columns)
{
	struct topview_frame f = { 0 };
	struct rates_view v = view_of(2);
	struct topview_head h = head;

	h.show_exe = true;
	ASSERT_EQ(topview_render(&f, 80, 20, &h, &v), 0);
	EXPECT_TRUE(line_has(&f, 3, "CAUSE"));
	EXPECT_FALSE(line_has(&f, 3, "OBJECT"));
	EXPECT_FALSE(line_has(&f, 3, "EXE"));
	EXPECT_TRUE(line_has(&f, 4, "acquire"));
	ASSERT_EQ(topview_render(&f, 140, 20, &h, &v), 0);
	EXPECT_TRUE(line_has(&f, 3, "EXE"));
	EXPECT_TRUE(line_has(&f, 3, "OBJECT"));
	ASSERT_EQ(topview_render(&f, 50, 20, &h, &v), 0);
	EXPECT_FALSE(line_has(&f, 3, "CAUSE"));
	EXPECT_TRUE(line_has(&f, 3, "FUNCTION"));
	EXPECT_TRUE(line_has(&f, 4, "acquire"));
	/* However narrow: the SCI and the name. */
	ASSERT_EQ(topview_render(&f, 30, 20, &h, &v), 0);
	EXPECT_TRUE(line_has(&f, 3, "SCI  FUNCTION"));
	EXPECT_TRUE(line_has(&f, 4, "31.7%  acquire"));
	topview_free(&f);
}

TEST(rows_cut_to_height)
{
	struct topview_frame f = { 0 };
	struct rates_view v = view_of(40);

	ASSERT_EQ(topview_render(&f, 120, 10, &head, &v), 0);
	EXPECT_EQ(f.nr_lines, 10);
	ASSERT_EQ(topview_render(&f, 120, 2, &head, &v), 0);
	EXPECT_EQ(f.nr_lines, 2);
	EXPECT_TRUE(line_has(&f, 0, "ispotctl top"));
	topview_free(&f);
}

TEST(paused_sort_status_and_no_rows)
{
	struct topview_frame f = { 0 };
	struct rates_view v = view_of(0);
	struct topview_head h = head;

	h.paused = true;
	h.sort = RATES_BY_P99;
	h.status = "ispotd serves no target yet";
	v.span_ns = 0;
	ASSERT_EQ(topview_render(&f, 100, 20, &h, &v), 0);
	EXPECT_TRUE(strncmp(topview_line(&f, 1), "PAUSED", 6) == 0);
	EXPECT_TRUE(line_has(&f, 1, "sort: P99"));
	EXPECT_TRUE(line_has(&f, 1, "first refresh"));
	EXPECT_TRUE(line_has(&f, 2, "ispotd serves no target yet"));
	EXPECT_TRUE(line_has(&f, 4, "no probed call yet"));
	topview_free(&f);
}

/* Every size: within the width, no control byte, names cut with '~'. */
TEST(every_size_stays_in_bounds)
{
	static char longname[300];
	struct topview_frame f = { 0 };
	struct rates_view v = view_of(30);
	struct topview_head h = head;
	int w, ht, i;

	memset(longname, 'n', sizeof(longname) - 1);
	rows[0].function = longname;
	rows[1].function = "evil\033[2J\033[H\r\nname";
	rows[2].exe = "\x7f\x9b" "31m";
	rows[3].object = "/lib/\tlibc.so.6";
	h.show_exe = true;
	h.target = "t\033]0;title\007";
	for (w = 1; w <= 200; w += 7) {
		for (ht = 1; ht <= 40; ht += 3) {
			ASSERT_EQ(topview_render(&f, w, ht, &h, &v), 0);
			ASSERT_LE(f.nr_lines, ht);
			for (i = 0; i < f.nr_lines; i++) {
				const char *l = topview_line(&f, i);
				int k;

				ASSERT_LT((int)strlen(l), w > 2 ? w : 2);
				for (k = 0; l[k]; k++) {
					ASSERT_GE((unsigned char)l[k], 0x20);
					ASSERT_LT((unsigned char)l[k], 0x7f);
				}
			}
		}
	}
	ASSERT_EQ(topview_render(&f, 120, 30, &h, &v), 0);
	EXPECT_TRUE(line_has(&f, 4, "nnn~"));
	topview_free(&f);
}


/* The row whose FUNCTION holds @s, or -1. */
static int row_with(const struct topview_frame *f, const char *s)
{
	int i;

	for (i = 0; i < f->nr_lines; i++)
		if (line_has(f, i, s))
			return i;
	return -1;
}

/*
 * C++ names as the report's table shows them: "leveldb::DB::Put", the
 * parameters only for overloads that would read the same; --wide keeps
 * them whole.
 */
TEST(short_cxx_names)
{
	struct rates_view v = view_of(3);
	struct topview_head h = head;
	struct topview_frame f = { 0 };

	rows[0].function = "leveldb::DB::Put(leveldb::WriteOptions const&, "
			   "leveldb::Slice const&, leveldb::Slice const&)";
	rows[1].function = "ns::Pool::get(int)";
	rows[2].function = "ns::Pool::get(long)";
	ASSERT_EQ(topview_render(&f, 200, 20, &h, &v), 0);
	EXPECT_GE(row_with(&f, " leveldb::DB::Put "), 0);
	EXPECT_LT(row_with(&f, "WriteOptions"), 0);
	EXPECT_GE(row_with(&f, " ns::Pool::get(int) "), 0);
	EXPECT_GE(row_with(&f, " ns::Pool::get(long) "), 0);
	h.wide = true;
	ASSERT_EQ(topview_render(&f, 200, 20, &h, &v), 0);
	EXPECT_GE(row_with(&f, "leveldb::Slice const&)"), 0);
	topview_free(&f);
}

TEST_HARNESS_MAIN
