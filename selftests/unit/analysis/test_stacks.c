// SPDX-License-Identifier: GPL-2.0
/*
 * Sampled call stacks: counting distinct paths per function in bounded
 * memory, folding named paths to the frames that differ, STACK records
 * through the pipeline (attached to their probe's function, end markers
 * and malformed records left out), and the CALLED FROM block of the
 * table with each path's share of calls and, under a call-site key, of
 * the loss.
 *
 * Addresses are made up; a frame namer maps them to names the way the
 * trace's symbolizer would, so expected lines are written by hand.
 */
#include <inttypes.h>
#include <stdint.h>

#include "ispot_test.h"
#include "analysis/pipeline.h"
#include "report/report.h"
#include "analysis/sci.h"
#include "analysis/stacks.h"

/* Return addresses: in worker_a, worker_b, run (two call sites), main. */
#define IN_WORKER_A	0x401010ULL
#define IN_WORKER_B	0x401110ULL
#define IN_RUN_1	0x401210ULL
#define IN_RUN_2	0x401220ULL
#define IN_MAIN		0x401310ULL
#define IN_START	0x401410ULL

static int frame_name(void *ctx, uint64_t addr, bool offset, char *buf,
		      size_t len)
{
	static const char *const names[] = {
		"worker_a", "worker_b", "run", "main", "_start",
	};
	uint64_t i = (addr - 0x401000) >> 8;

	(void)ctx;
	if (addr < 0x401000 || i >= sizeof(names) / sizeof(names[0]))
		return -1;
	return offset ? snprintf(buf, len, "app:%s+0x%" PRIx64, names[i],
				 addr & 0xff) :
			snprintf(buf, len, "%s", names[i]);
}

/*
 * What a frame-pointer walk reads where a library keeps no frame
 * pointers: ASCII digits off the stack, no address of any code.
 */
#define GARBAGE_1	0x3833313933393630ULL
#define GARBAGE_2	0x3433383132333930ULL

/* stacks_frame_fn: the made-up program's code is all there is. */
static bool in_app_text(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr >= 0x401000 && addr < 0x402000;
}

/* report_frame_fn for the object of a frame. */
static int frame_object(void *ctx, uint64_t addr, bool offset, char *buf,
			size_t len)
{
	(void)ctx;
	(void)offset;
	return in_app_text(NULL, addr) ? snprintf(buf, len, "libapp.so.1") :
					 -1;
}

TEST(distinct_stacks_are_counted)
{
	const uint64_t a[] = { IN_WORKER_A, IN_RUN_1, IN_MAIN };
	const uint64_t b[] = { IN_WORKER_B, IN_RUN_1, IN_MAIN };
	const uint64_t a_short[] = { IN_WORKER_A, IN_RUN_1 };
	struct stacks *st = stacks_new();
	const struct stack_func *sf;
	int i;

	ASSERT_TRUE(st);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(stacks_add(st, 2, a, 3), 0);
	ASSERT_EQ(stacks_add(st, 2, b, 3), 0);
	/* A prefix of a stack is another stack. */
	ASSERT_EQ(stacks_add(st, 2, a_short, 2), 0);
	/* An empty stack is nothing. */
	ASSERT_EQ(stacks_add(st, 2, a, 0), 0);
	EXPECT_TRUE(stacks_of(st, 0) == NULL);
	EXPECT_TRUE(stacks_of(st, 99) == NULL);
	EXPECT_TRUE(stacks_of(NULL, 2) == NULL);
	sf = stacks_of(st, 2);
	ASSERT_TRUE(sf);
	EXPECT_EQ(sf->nr_paths, 3);
	EXPECT_EQ(sf->sampled, 5);
	EXPECT_EQ(sf->other, 0);
	EXPECT_EQ(sf->paths[0].calls, 3);
	EXPECT_EQ(sf->paths[0].nr_frames, 3);
	EXPECT_EQ(sf->paths[1].calls, 1);
	EXPECT_EQ(sf->paths[1].frames[0], IN_WORKER_B);
	EXPECT_EQ(sf->paths[2].nr_frames, 2);
	stacks_free(st);
}

/* 40 distinct stacks: 16 kept, the rest counted, memory fixed. */
TEST(stacks_are_bounded)
{
	struct stacks *st = stacks_new();
	const struct stack_func *sf;
	uint64_t frames[STACKS_MAX_FRAMES + 8];
	uint64_t i, k;

	ASSERT_TRUE(st);
	for (i = 0; i < 40; i++) {
		for (k = 0; k < STACKS_MAX_FRAMES + 8; k++)
			frames[k] = 0x500000 + i * 0x1000 + k;
		/* Deeper than the module's bound: cut, not overrun. */
		ASSERT_EQ(stacks_add(st, 1, frames, STACKS_MAX_FRAMES + 8), 0);
		ASSERT_EQ(stacks_add(st, 1, frames, STACKS_MAX_FRAMES + 8), 0);
	}
	sf = stacks_of(st, 1);
	ASSERT_TRUE(sf);
	EXPECT_EQ(sf->nr_paths, STACKS_MAX_PATHS);
	EXPECT_EQ(sf->sampled, 80);
	EXPECT_EQ(sf->other, 2 * (40 - STACKS_MAX_PATHS));
	for (i = 0; i < STACKS_MAX_PATHS; i++) {
		EXPECT_EQ(sf->paths[i].calls, 2);
		EXPECT_EQ(sf->paths[i].nr_frames, STACKS_MAX_FRAMES);
	}
	stacks_free(st);
}

TEST(fold_cuts_common_outer_frames)
{
	const char *a[] = { "worker_a", "run", "main", "_start" };
	const char *b[] = { "worker_b", "run", "main", "_start" };
	const char *c[] = { "run", "main", "_start" };
	const char *d[] = { "worker_a", "other", "_start" };
	const char *const *paths[3] = { a, b, c };
	size_t depth[3] = { 4, 4, 3 };

	/* Two paths joining at run: each shown down to run. */
	EXPECT_EQ(stacks_common_outer(paths, depth, 2), 3);
	EXPECT_EQ(stacks_folded_depth(4, 3, 2), 2);
	/* A path that is the shared part itself keeps its first frame. */
	EXPECT_EQ(stacks_common_outer(paths, depth, 3), 3);
	EXPECT_EQ(stacks_folded_depth(3, 3, 3), 1);
	/* Only _start shared: everything up to it shows. */
	paths[1] = d;
	depth[1] = 3;
	EXPECT_EQ(stacks_common_outer(paths, depth, 2), 1);
	EXPECT_EQ(stacks_folded_depth(4, 1, 2), 4);
	/* Nothing shared: whole paths. */
	paths[1] = (const char *[]){ "x" };
	depth[1] = 1;
	EXPECT_EQ(stacks_common_outer(paths, depth, 2), 0);
	EXPECT_EQ(stacks_folded_depth(4, 0, 2), 4);
	/* One path has nothing to be folded against. */
	EXPECT_EQ(stacks_common_outer(paths, depth, 1), 0);
	EXPECT_EQ(stacks_folded_depth(4, 4, 1), 4);
}

static void feed_stack(struct pipeline *p, uint32_t probe,
		       const uint64_t *frames, uint32_t n, uint8_t nslots)
{
	struct ispot_record rec[1 + STACKS_MAX_FRAMES / 8];

	memset(rec, 0, sizeof(rec));
	rec[0].kind = ISPOT_REC_STACK;
	rec[0].probe_id = probe;
	rec[0].tid = 10;
	rec[0].nslots = nslots;
	rec[0].data[0] = n;
	memcpy(&rec[1], frames, n * sizeof(*frames));
	pipeline_record(p, rec);
}

/* STACK records count for their probe's function, as the module sends. */
TEST(pipeline_attaches_stacks)
{
	uint64_t deep[10] = { IN_WORKER_A, IN_RUN_1, IN_MAIN };
	const uint64_t b[] = { IN_WORKER_B, IN_RUN_1, IN_MAIN };
	struct pipeline *p = pipeline_new();
	const struct stack_func *sf;
	int i;

	ASSERT_TRUE(p);
	ASSERT_EQ(pipeline_add_probe(p, 1, 7, NULL), 0);
	ASSERT_EQ(pipeline_add_probe(p, 2, 7, NULL), 0);
	ASSERT_EQ(pipeline_add_marker(p, 3, 8, false, NULL), 0);
	ASSERT_EQ(pipeline_add_marker(p, 4, 8, true, NULL), 0);
	for (i = 0; i < 3; i++)
		feed_stack(p, 1, deep, 3, 2);
	feed_stack(p, 2, b, 3, 2);
	/* Ten frames take two slots after the header. */
	for (i = 3; i < 10; i++)
		deep[i] = 0x402000 + i;
	feed_stack(p, 1, deep, 10, 3);
	feed_stack(p, 3, b, 3, 2);
	/* Where a block ends says nothing about who called it. */
	feed_stack(p, 4, deep, 3, 2);
	/* Refused: an unknown probe, more frames than slots. */
	feed_stack(p, 9, b, 3, 2);
	feed_stack(p, 1, deep, 9, 2);

	EXPECT_EQ(p->stats.stacks, 9);
	EXPECT_EQ(p->stats.bad_stacks, 2);
	sf = stacks_of(p->stacks, 7);
	ASSERT_TRUE(sf);
	EXPECT_EQ(sf->sampled, 5);
	EXPECT_EQ(sf->nr_paths, 3);
	EXPECT_EQ(sf->paths[0].calls, 3);
	EXPECT_EQ(sf->paths[1].frames[0], IN_WORKER_B);
	EXPECT_EQ(sf->paths[2].nr_frames, 10);
	EXPECT_EQ(sf->paths[2].frames[9], 0x402009);
	sf = stacks_of(p->stacks, 8);
	ASSERT_TRUE(sf);
	EXPECT_EQ(sf->sampled, 1);
	pipeline_free(p);
}

/* A garbage frame ends the walk: what differs past it is not a path. */
TEST(garbage_frame_cuts_the_stack)
{
	const uint64_t g1[] = { IN_WORKER_A, IN_RUN_1, GARBAGE_1, IN_MAIN };
	const uint64_t g2[] = { IN_WORKER_A, IN_RUN_1, GARBAGE_2 };
	const uint64_t whole[] = { IN_WORKER_A, IN_RUN_1, IN_MAIN };
	struct stacks *st = stacks_new();
	const struct stack_func *sf;

	ASSERT_TRUE(st);
	stacks_set_check(st, in_app_text, NULL);
	ASSERT_EQ(stacks_add(st, 1, g1, 4), 0);
	ASSERT_EQ(stacks_add(st, 1, g2, 3), 0);
	ASSERT_EQ(stacks_add(st, 1, whole, 3), 0);
	sf = stacks_of(st, 1);
	ASSERT_TRUE(sf);
	EXPECT_EQ(sf->sampled, 3);
	ASSERT_EQ(sf->nr_paths, 2);
	EXPECT_EQ(sf->paths[0].nr_frames, 2);
	EXPECT_TRUE(sf->paths[0].cut);
	EXPECT_EQ(sf->paths[0].calls, 2);
	EXPECT_EQ(sf->paths[1].nr_frames, 3);
	EXPECT_FALSE(sf->paths[1].cut);
	stacks_free(st);
}

struct fixture {
	struct sci_engine *e;
	struct sci_report *sci;
	struct stacks *st;
	struct report_func funcs[2];
	struct report rep;
};

/*
 * Function 1, "lock", called from worker_a via run's first call site (6
 * samples) and from worker_b (2 samples); with @callsite, keyed by call
 * site, worker_a's site losing 3000 ns and worker_b's 1000 ns.
 */
static void fixture_build(struct fixture *fx, bool callsite)
{
	const uint64_t a[] = { IN_WORKER_A, IN_RUN_1, IN_MAIN, IN_START };
	const uint64_t b[] = { IN_WORKER_B, IN_RUN_2, IN_MAIN, IN_START };
	uint64_t ts = 1000;
	int i;

	memset(fx, 0, sizeof(*fx));
	fx->e = sci_new();
	fx->st = stacks_new();
	ASSERT_TRUE(fx->e && fx->st);
	ASSERT_EQ(sci_thread_seen(fx->e, 10, 0), 0);
	/* worker_a's site: 100 + 4 x 850 = 3000 ns over the fastest. */
	ASSERT_EQ(sci_add(fx->e, 1, callsite ? IN_WORKER_A : 0, 10, 100,
			  ts += 1000, NULL), 0);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(sci_add(fx->e, 1, callsite ? IN_WORKER_A : 0, 10,
				  850, ts += 1000, NULL), 0);
	/* worker_b's: 100 + 1100 = 1000 ns over its own fastest. */
	ASSERT_EQ(sci_add(fx->e, 1, callsite ? IN_WORKER_B : 0, 10, 100,
			  ts += 1000, NULL), 0);
	ASSERT_EQ(sci_add(fx->e, 1, callsite ? IN_WORKER_B : 0, 10, 1100,
			  ts += 2000, NULL), 0);
	sci_finish(fx->e, ts + 1000);
	fx->sci = sci_report(fx->e, 0);
	ASSERT_TRUE(fx->sci);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(stacks_add(fx->st, 1, a, 4), 0);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(stacks_add(fx->st, 1, b, 4), 0);
	fx->funcs[1].name = "lock";
	fx->funcs[1].object = "/app";
	fx->funcs[1].key = callsite ? "callsite" : "";
	fx->rep.command = "app";
	fx->rep.sci = fx->sci;
	fx->rep.funcs = fx->funcs;
	fx->rep.nr_funcs = 2;
	fx->rep.stacks = fx->st;
	fx->rep.frame_name = frame_name;
	fx->rep.width = -1;
}

static void fixture_free(struct fixture *fx)
{
	sci_report_free(fx->sci);
	sci_free(fx->e);
	stacks_free(fx->st);
}

static char *render(const struct report *r, bool json)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f);
	ASSERT_EQ(json ? report_json(f, r) : report_text(f, r, 0), 0);
	ASSERT_EQ(fclose(f), 0);
	return buf;
}

/* The line of @text that contains @what, copied without its indent. */
static const char *line_with(const char *text, const char *what)
{
	static char line[512];
	const char *p = strstr(text, what), *s, *e;

	if (!p)
		return "";
	for (s = p; s > text && s[-1] != '\n'; s--)
		;
	while (*s == ' ')
		s++;
	e = strchr(p, '\n');
	snprintf(line, sizeof(line), "%.*s", (int)(e ? e - s : (long)strlen(s)),
		 s);
	return line;
}

/* How far into its line @what first appears, -1 if nowhere. */
static long column_of(const char *text, const char *what)
{
	const char *p = strstr(text, what), *s;

	if (!p)
		return -1;
	for (s = p; s > text && s[-1] != '\n'; s--)
		;
	return p - s;
}

TEST(text_lists_folded_paths_by_share)
{
	struct fixture fx;
	char *text;

	fixture_build(&fx, false);
	text = render(&fx.rep, false);
	TH_LOG("%s", text);
	EXPECT_STREQ(line_with(text, "CALLED FROM"),
		     "CALLED FROM, share of 8 sampled calls:");
	/* run's two call sites read as one frame: main and _start fold. */
	EXPECT_STREQ(line_with(text, "worker_a"), "75%  worker_a > run");
	EXPECT_STREQ(line_with(text, "worker_b"), "25%  worker_b > run");
	EXPECT_TRUE(strstr(text, "main") == NULL);
	/* Under the FUNCTION column, indented like key rows. */
	EXPECT_EQ(column_of(text, "CALLED FROM"),
		  column_of(text, "lock  ") + 2);
	EXPECT_GT(column_of(text, "CALLED FROM"), 40);
	free(text);
	fixture_free(&fx);
}

/* One path: one line, whole, since there is nothing to fold against. */
TEST(text_one_path_is_one_line)
{
	struct fixture fx;
	const uint64_t a[] = { IN_WORKER_A, IN_RUN_1, IN_MAIN, IN_START };
	char *text;

	fixture_build(&fx, false);
	stacks_free(fx.st);
	fx.st = stacks_new();
	fx.rep.stacks = fx.st;
	ASSERT_EQ(stacks_add(fx.st, 1, a, 4), 0);
	text = render(&fx.rep, false);
	EXPECT_STREQ(line_with(text, "CALLED FROM"),
		     "CALLED FROM worker_a > run > main > _start "
		     "(all 1 sampled calls)");
	free(text);
	/* Without stacks, no block at all. */
	fx.rep.stacks = NULL;
	text = render(&fx.rep, false);
	EXPECT_TRUE(strstr(text, "CALLED FROM") == NULL);
	free(text);
	fixture_free(&fx);
}

/* More than REPORT_TEXT_STACKS paths, and more than the table keeps. */
TEST(text_caps_paths_and_counts_other)
{
	struct fixture fx;
	uint64_t frames[2] = { 0, IN_MAIN };
	char *text;
	int i;

	fixture_build(&fx, false);
	for (i = 0; i < 20; i++) {
		frames[0] = 0x600000 + i;	/* unnamed: hex, distinct */
		ASSERT_EQ(stacks_add(fx.st, 1, frames, 2), 0);
	}
	text = render(&fx.rep, false);
	TH_LOG("%s", text);
	EXPECT_STREQ(line_with(text, "CALLED FROM"),
		     "CALLED FROM, share of 28 sampled calls:");
	EXPECT_STREQ(line_with(text, "more paths"),
		     "(+11 more paths, see --json)");
	/* 2 + 20 paths, 16 kept: 6 calls in other. */
	EXPECT_STREQ(line_with(text, "(other"),
		     "21%  (other paths, not kept)");
	free(text);
	fixture_free(&fx);
}

/* Keyed by call site: each path gets its call site's share of the loss. */
TEST(text_and_json_give_callsite_loss_share)
{
	struct fixture fx;
	const uint64_t a2[] = { IN_WORKER_A, IN_RUN_2, IN_MAIN, IN_START };
	char *text;

	fixture_build(&fx, true);
	ASSERT_EQ(fx.sci->funcs[0].loss_ns, 4000);
	text = render(&fx.rep, false);
	TH_LOG("%s", text);
	EXPECT_STREQ(line_with(text, "CALLED FROM"),
		     "CALLED FROM, share of 8 sampled calls and of the loss:");
	EXPECT_STREQ(line_with(text, "worker_a >"), "75%    75%  worker_a > run");
	EXPECT_STREQ(line_with(text, "worker_b >"), "25%    25%  worker_b > run");
	free(text);
	text = render(&fx.rep, true);
	EXPECT_TRUE(strstr(text, "\"stacks\": [{\"frames\": [\"app:worker_a+0x10\", "
			   "\"app:run+0x10\", \"app:main+0x10\", "
			   "\"app:_start+0x10\"], \"calls\": 6, "
			   "\"loss_share\": 0.75}") != NULL);
	EXPECT_TRUE(strstr(text, "\"stacks_sampled\": 8, \"stacks_other\": 0")
		    != NULL);
	free(text);

	/*
	 * worker_a's call site reached through run's other call site too,
	 * twice: its 3000 ns split 6:2 between the two paths, which JSON
	 * keeps apart and the table, naming no offsets, adds up again.
	 */
	ASSERT_EQ(stacks_add(fx.st, 1, a2, 4), 0);
	ASSERT_EQ(stacks_add(fx.st, 1, a2, 4), 0);
	text = render(&fx.rep, true);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "\"calls\": 6, \"loss_share\": 0.5625}")
		    != NULL);
	EXPECT_TRUE(strstr(text, "\"calls\": 2, \"loss_share\": 0.1875}")
		    != NULL);
	free(text);
	text = render(&fx.rep, false);
	EXPECT_STREQ(line_with(text, "worker_a >"), "80%    75%  worker_a > run");
	free(text);
	fixture_free(&fx);
}

/* Cut paths fold and add up by what is left, and say they were cut. */
/* The fixture with stacks of its own, judged by in_app_text(). */
static void cut_fixture(struct fixture *fx)
{
	fixture_build(fx, false);
	stacks_free(fx->st);
	fx->st = stacks_new();
	ASSERT_TRUE(fx->st);
	stacks_set_check(fx->st, in_app_text, NULL);
	fx->rep.stacks = fx->st;
	fx->rep.frame_object = frame_object;
}

TEST(text_and_json_say_where_stacks_are_cut)
{
	struct fixture fx;
	uint64_t a[] = { IN_WORKER_A, IN_RUN_1, GARBAGE_1 };
	const uint64_t b[] = { IN_WORKER_B, IN_RUN_2, GARBAGE_2, IN_MAIN };
	char *text;
	int i;

	cut_fixture(&fx);
	for (i = 0; i < 3; i++) {
		a[2] = GARBAGE_1 + (uint64_t)i;	/* other digits each time */
		ASSERT_EQ(stacks_add(fx.st, 1, a, 3), 0);
	}
	text = render(&fx.rep, false);
	TH_LOG("%s", text);
	EXPECT_STREQ(line_with(text, "CALLED FROM"),
		     "CALLED FROM worker_a > run (cut: frame pointers end in "
		     "libapp.so.1) (all 3 sampled calls)");
	EXPECT_TRUE(strstr(text, "0x38") == NULL);
	free(text);

	ASSERT_EQ(stacks_add(fx.st, 1, b, 4), 0);
	text = render(&fx.rep, false);
	TH_LOG("%s", text);
	EXPECT_STREQ(line_with(text, "CALLED FROM"),
		     "CALLED FROM, share of 4 sampled calls:");
	EXPECT_STREQ(line_with(text, "worker_a"),
		     "75%  worker_a > run (cut: frame pointers end in "
		     "libapp.so.1)");
	EXPECT_STREQ(line_with(text, "worker_b"),
		     "25%  worker_b > run (cut: frame pointers end in "
		     "libapp.so.1)");
	free(text);
	text = render(&fx.rep, true);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "{\"frames\": [\"app:worker_a+0x10\", "
			   "\"app:run+0x10\"], \"calls\": 3, "
			   "\"cut_in\": \"libapp.so.1\"}") != NULL);
	free(text);
	fixture_free(&fx);
}

/*
 * A return probe's trampoline ([uprobes], at the top of the address
 * space) stands where the walk reads the return address it took: the
 * demo's "acquire > 0x7fffffffe000 > sample_thread".  The check refuses
 * it, and the path says why.
 */
#define TRAMPOLINE	0x7fffffffe000ULL

TEST(trampoline_frame_cuts_the_stack)
{
	struct fixture fx;
	const uint64_t a[] = { IN_WORKER_A, TRAMPOLINE, IN_MAIN };
	char *text;

	cut_fixture(&fx);
	stacks_set_trampoline(fx.st, TRAMPOLINE, TRAMPOLINE + 0x1000);
	ASSERT_EQ(stacks_add(fx.st, 1, a, 3), 0);
	ASSERT_EQ(stacks_of(fx.st, 1)->paths[0].nr_frames, 1);
	EXPECT_TRUE(stacks_of(fx.st, 1)->paths[0].cut_tramp);
	text = render(&fx.rep, false);
	TH_LOG("%s", text);
	EXPECT_STREQ(line_with(text, "CALLED FROM"),
		     "CALLED FROM worker_a (cut: a return probe holds the "
		     "return address) (all 1 sampled calls)");
	EXPECT_TRUE(strstr(text, "0x7fff") == NULL);
	free(text);
	text = render(&fx.rep, true);
	EXPECT_TRUE(strstr(text, "\"cut_in\": \"[uprobes]\"") != NULL);
	free(text);
	fixture_free(&fx);
}

/*
 * Single stacks past STACKS_MAX_PATHS: the first come keep their paths,
 * the rest go to "other" (only a stack added with more calls than the
 * lightest path takes its place: test_stacks_wait).
 */
TEST(single_stacks_past_the_paths_keep_the_first_come)
{
	struct stacks *st = stacks_new();
	const struct stack_func *sf;
	uint64_t f[2] = { 0x400100, 0x400200 };
	uint32_t i;

	ASSERT_TRUE(st != NULL);
	for (i = 0; i < 20; i++) {
		f[0] = 0x400100 + i;
		ASSERT_EQ(stacks_add(st, 1, f, 2), 0);
	}
	sf = stacks_of(st, 1);
	ASSERT_TRUE(sf != NULL);
	EXPECT_EQ(sf->other, 4u);
	EXPECT_EQ(sf->sampled, 20u);
	for (i = 0; i < STACKS_MAX_PATHS; i++)
		EXPECT_EQ(sf->paths[i].frames[0], 0x400100u + i);
	stacks_free(st);
}

TEST_HARNESS_MAIN
