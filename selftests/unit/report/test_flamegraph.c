// SPDX-License-Identifier: GPL-2.0
/*
 * Flame graphs (report/flamegraph.c, flamegraph_svg.c): folded lines in,
 * the SVG read back frame by frame (its <title>, its <rect>), so that
 * what is checked is what a browser draws: widths by weight, callees
 * inside their caller, narrow frames merged, bounds kept, names escaped,
 * the same picture whatever the order of the lines, off-CPU frames blue.
 * That it renders in Chromium is selftests/host/pictures_test.sh's job.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ispot_test.h"
#include "report/flamegraph.h"

#define MAX_FRAMES	(FLAME_MAX_RECTS + 8)

struct frame {
	char name[FLAME_NAME_MAX * 6 + 1];	/* escaped */
	double x, y, w;
	unsigned int r, g, b;
};

static const struct flame_style style = {
	.id = "test", .title = "a test", .of = "of it", .unit = FLAME_NS,
};

static char *draw(const char *folded)
{
	struct flame fg;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f);
	ASSERT_EQ(flame_init(&fg), 0);
	ASSERT_EQ(flame_add_folded(&fg, folded), 0);
	ASSERT_EQ(flame_svg(f, &fg, &style), 0);
	ASSERT_EQ(fclose(f), 0);
	flame_free(&fg);
	return buf;
}

/* The frames drawn: each a <g> of a <title> and a <rect>. */
static size_t frames_of(const char *svg, struct frame *fr, size_t max)
{
	const char *p = svg, *end;
	size_t n = 0, len;

	while ((p = strstr(p, "<g><title>")) && n < max) {
		p += strlen("<g><title>");
		end = strchr(p, '\n');
		ASSERT_TRUE(end);
		len = (size_t)(end - p);
		ASSERT_LT(len, sizeof(fr[n].name));
		memcpy(fr[n].name, p, len);
		fr[n].name[len] = '\0';
		p = strstr(p, "<rect ");
		ASSERT_TRUE(p);
		ASSERT_EQ(sscanf(p, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" "
				 "height=\"%*d\" fill=\"rgb(%u,%u,%u)\"",
				 &fr[n].x, &fr[n].y, &fr[n].w, &fr[n].r,
				 &fr[n].g, &fr[n].b), 6);
		n++;
	}
	return n;
}

static const struct frame *find(const struct frame *fr, size_t n,
				const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(fr[i].name, name))
			return &fr[i];
	return NULL;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay += strlen(needle))
		n++;
	return n;
}

TEST(widths_are_proportional_to_weights)
{
	struct frame fr[16];
	const struct frame *all, *main_, *a, *b, *c;
	char *svg = draw("main;a 300\nmain;b 100\nmain;a;c 200\n");
	size_t n = frames_of(svg, fr, 16);

	EXPECT_EQ(n, 5);
	all = find(fr, n, "all");
	main_ = find(fr, n, "main");
	a = find(fr, n, "a");
	b = find(fr, n, "b");
	c = find(fr, n, "c");
	ASSERT_TRUE(all && main_ && a && b && c);
	EXPECT_NEAR(all->w, FLAME_WIDTH - 20, 0.01);
	EXPECT_NEAR(main_->w, all->w, 0.01);
	/* a: 300 of its own and c's 200, of 600. */
	EXPECT_NEAR(a->w, all->w * 500 / 600, 0.01);
	EXPECT_NEAR(b->w, all->w * 100 / 600, 0.01);
	EXPECT_NEAR(c->w, all->w * 200 / 600, 0.01);
	/* Callees sorted by name, side by side from their caller's left. */
	EXPECT_NEAR(a->x, main_->x, 0.01);
	EXPECT_NEAR(b->x, a->x + a->w, 0.01);
	/* The root at the bottom, each level one frame higher. */
	EXPECT_GT(all->y, main_->y);
	EXPECT_NEAR(main_->y - a->y, FLAME_FRAME_HEIGHT, 0.01);
	EXPECT_NEAR(a->y - c->y, FLAME_FRAME_HEIGHT, 0.01);
	EXPECT_TRUE(strstr(svg, "id=\"flame-test\" data-flame=\"test\" "
			   "data-frames=\"5\""));
	free(svg);
}

/* Two frames of one level: side by side, not overlapping. */
static bool apart(const struct frame *a, const struct frame *b)
{
	return a->x + a->w <= b->x + 0.02 || b->x + b->w <= a->x + 0.02;
}

/*
 * A random tree: every frame lies within a frame one level below it (its
 * caller), and frames of one level never overlap.
 */
TEST(callees_lie_within_their_caller)
{
	static struct frame fr[MAX_FRAMES];
	uint64_t rng = 7;
	char *text = NULL, *svg;
	size_t len = 0, n, i, k, inside;
	FILE *f = open_memstream(&text, &len);
	int line, d, depth;

	ASSERT_TRUE(f);
	for (line = 0; line < 300; line++) {
		depth = 1 + (int)(ispot_test_rand(&rng) % 8);
		for (d = 0; d < depth; d++)
			fprintf(f, "%sf%u", d ? ";" : "",
				(unsigned int)(ispot_test_rand(&rng) % 4));
		fprintf(f, " %u\n",
			1 + (unsigned int)(ispot_test_rand(&rng) % 1000));
	}
	ASSERT_EQ(fclose(f), 0);
	svg = draw(text);
	n = frames_of(svg, fr, MAX_FRAMES);
	ASSERT_GT(n, 50);
	for (i = 0; i < n; i++) {
		EXPECT_GE(fr[i].w, FLAME_MIN_PX);
		inside = 0;
		for (k = 0; k < n; k++) {
			if (k == i)
				continue;
			if (fr[k].y == fr[i].y)
				EXPECT_TRUE(apart(&fr[k], &fr[i]));
			if (fr[k].y == fr[i].y + FLAME_FRAME_HEIGHT &&
			    fr[k].x <= fr[i].x + 0.02 &&
			    fr[i].x + fr[i].w <= fr[k].x + fr[k].w + 0.02)
				inside++;
		}
		EXPECT_EQ(inside, strcmp(fr[i].name, "all") ? 1u : 0u);
	}
	free(svg);
	free(text);
}

TEST(narrow_frames_are_merged_into_their_caller)
{
	struct frame fr[64];
	char *text = NULL, *svg;
	size_t len = 0, n;
	FILE *f = open_memstream(&text, &len);
	const struct frame *main_;
	int i;

	ASSERT_TRUE(f);
	fputs("main;big 1000000\n", f);
	for (i = 0; i < 50; i++)
		fprintf(f, "main;tiny%d;deeper 10\n", i);
	ASSERT_EQ(fclose(f), 0);
	svg = draw(text);
	n = frames_of(svg, fr, 64);
	EXPECT_EQ(n, 3);	/* all, main, big */
	EXPECT_FALSE(find(fr, n, "tiny0"));
	EXPECT_FALSE(find(fr, n, "deeper"));
	main_ = find(fr, n, "main");
	ASSERT_TRUE(main_);
	/* Their weight stays in their caller's width. */
	EXPECT_NEAR(main_->w, FLAME_WIDTH - 20, 0.01);
	EXPECT_TRUE(strstr(svg, "50 frames narrower than 1 px"));
	free(svg);
	free(text);
}

/* @nr stacks of @depth frames, "c<stack>_<depth>", 10 each. */
static char *chains(int nr, int depth)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int c, d;

	ASSERT_TRUE(f);
	for (c = 0; c < nr; c++) {
		for (d = 0; d < depth; d++)
			fprintf(f, "%sc%d_%d", d ? ";" : "", c, d);
		fputs(" 10\n", f);
	}
	ASSERT_EQ(fclose(f), 0);
	return text;
}

/*
 * A stack deeper than FLAME_MAX_DEPTH keeps its rest in its last frame;
 * 200 stacks of 30 frames, each wide enough, are drawn by whole levels,
 * FLAME_MAX_RECTS frames at most: the root, then 19 levels of 200.  The
 * picture says which bound it kept.
 */
TEST(bounds_are_kept_and_said)
{
	static const struct {
		int nr, depth;
		size_t frames;
		const char *kept, *gone, *note;
	} bound[] = {
		{ 1, FLAME_MAX_DEPTH + 40, FLAME_MAX_DEPTH + 1, "c0_63",
		  "c0_64", "1 stacks were cut at 64 frames" },
		{ 200, 30, 1 + 19 * 200, "c0_18", "c0_19",
		  "Only the first 20 levels are drawn" },
	};
	static struct frame fr[MAX_FRAMES];
	char *text, *svg;
	size_t i, n;

	for (i = 0; i < sizeof(bound) / sizeof(bound[0]); i++) {
		text = chains(bound[i].nr, bound[i].depth);
		svg = draw(text);
		n = frames_of(svg, fr, MAX_FRAMES);
		EXPECT_EQ(n, bound[i].frames);
		EXPECT_TRUE(find(fr, n, bound[i].kept));
		EXPECT_FALSE(find(fr, n, bound[i].gone));
		EXPECT_TRUE(strstr(svg, bound[i].note));
		free(svg);
		free(text);
	}
}

static bool writers_tag(const char *p)
{
	static const char *const tags[] = {
		"<svg ", "</svg>", "<g>", "</g>", "<title>", "</title>",
		"<rect ", "<text ", "</text>",
	};
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (!strncmp(p, tags[i], strlen(tags[i])))
			return true;
	return false;
}

TEST(hostile_names_are_escaped_text)
{
	struct frame fr[16];
	char *svg = draw("main;</svg><script>alert(\"x&y\")</script>' 10\n"
			 "main;\x01\xff\xfe<b 10\n"
			 "garbage without a weight\n"
			 "main;x 12ab\n"
			 "main;past_2_to_the_64 18446744073709551600\n");
	const char *p;
	size_t n = frames_of(svg, fr, 16);

	EXPECT_EQ(n, 4);
	EXPECT_TRUE(find(fr, n, "&lt;/svg&gt;&lt;script&gt;alert(&quot;x&amp;y"
			 "&quot;)&lt;/script&gt;&#39;"));
	EXPECT_TRUE(find(fr, n, "???&lt;b"));
	EXPECT_EQ(count(svg, "<script"), 0);
	EXPECT_EQ(count(svg, "</svg>"), 1);
	/* Every '<' opens one of the few elements the writer uses. */
	for (p = svg; (p = strchr(p, '<')); p++)
		EXPECT_TRUE(writers_tag(p));
	EXPECT_FALSE(find(fr, n, "past_2_to_the_64"));
	EXPECT_TRUE(strstr(svg, "3 lines were not folded stacks"));
	free(svg);
}

/* A label is cut to its box ("..." included); the title keeps it all. */
TEST(labels_fit_their_box)
{
	struct frame fr[8];
	char name[300], folded[400], title[300], *svg;
	const char *t;
	size_t n, chars;
	int i;

	for (i = 0; i < 299; i++)
		name[i] = (char)('a' + i % 26);
	name[299] = '\0';
	snprintf(folded, sizeof(folded), "%s 1\nother 1\n", name);
	svg = draw(folded);
	n = frames_of(svg, fr, 8);
	ASSERT_EQ(n, 3);
	snprintf(title, sizeof(title), "%s", name);
	ASSERT_TRUE(find(fr, n, title));
	t = strstr(svg, "font-size=\"11\">abc");
	ASSERT_TRUE(t);
	t = strchr(t, '>') + 1;
	chars = (size_t)(strstr(t, "</text>") - t);
	EXPECT_LE(chars * 6.6, find(fr, n, title)->w);
	EXPECT_TRUE(!strncmp(t + chars - 3, "...", 3));
	free(svg);
}

TEST(the_picture_does_not_depend_on_line_order)
{
	char *a = draw("m;b;x 5\nm;a 7\n[off cpu: io] 3\nm;b 2\n");
	char *b = draw("[off cpu: io] 3\nm;b 2\nm;a 7\nm;b;x 5\n");
	char *c = draw("m;b 2\n[off cpu: io] 3\nm;a 7\nm;b;x 5\n");

	EXPECT_STREQ(a, b);
	EXPECT_STREQ(b, c);
	free(a);
	free(b);
	free(c);
}

TEST(off_cpu_frames_are_blue_and_on_cpu_warm)
{
	struct frame fr[16];
	const struct frame *on, *off, *waits, *runs;
	char *svg = draw("main;runs;[on cpu] 40\n"
			 "main;waits;pthread_cond_wait;[off cpu: futex] 60\n");
	size_t n = frames_of(svg, fr, 16);

	on = find(fr, n, "[on cpu]");
	off = find(fr, n, "[off cpu: futex]");
	waits = find(fr, n, "waits");
	runs = find(fr, n, "runs");
	ASSERT_TRUE(on && off && waits && runs);
	EXPECT_GT(on->r, on->b + 100);
	EXPECT_GT(runs->r, runs->b + 100);
	EXPECT_GT(off->b, off->r + 60);
	EXPECT_GT(waits->b, waits->r + 60);
	EXPECT_TRUE(strstr(svg, "Blue: off CPU"));
	EXPECT_TRUE(strstr(svg, "100% of it off CPU"));
	/* The same name keeps its colour from one graph to the next. */
	free(svg);
	svg = draw("other;runs 1\n");
	n = frames_of(svg, fr, 16);
	EXPECT_EQ(find(fr, n, "runs")->g, runs->g);
	free(svg);
}

static int fold_nothing(FILE *f, const void *ctx)
{
	(void)ctx;
	return fputs("main 0\n", f) < 0 ? -1 : 0;
}

TEST(no_weight_draws_nothing)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f);
	EXPECT_EQ(flame_draw_folded(f, fold_nothing, NULL, &style), 1);
	ASSERT_EQ(fclose(f), 0);
	EXPECT_EQ(len, 0);
	free(buf);
}

TEST_HARNESS_MAIN
