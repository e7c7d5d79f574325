// SPDX-License-Identifier: GPL-2.0
/*
 * Shape keys (shape.h): the hash of a sequence of probed calls, its name,
 * the pairer folding each frame's direct callees on the interleavings of
 * the paper's §3.3 example (a b c b d a b e a b c), the pipeline keying
 * by shape so that a bigger shape is not a loss, the notes the report
 * prints, and the report showing a shape key as "f>g>g>g".
 *
 * Stacks follow x86-64: at ENTRY sp points at the return address, at EXIT
 * it is 8 bytes higher, and callees sit below callers.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "analysis/pipeline.h"
#include "report/report.h"
#include "analysis/shape.h"

#define TID		300
#define SP(level)	(0x7ffd00000008ULL - 0x40ULL * (level))

/* ---- the hash and its name ---- */

static struct shape shape_of(const uint32_t *ids, size_t n)
{
	struct shape s;
	size_t i;

	memset(&s, 0, sizeof(s));
	shape_init(&s);
	for (i = 0; i < n; i++)
		shape_add(&s, ids[i]);
	return s;
}

TEST(hash_equal_sequences_equal_others_differ)
{
	const uint32_t abc[] = { 1, 2, 3 }, acb[] = { 1, 3, 2 };
	const uint32_t g[] = { 7 }, gg[] = { 7, 7 }, ggg[] = { 7, 7, 7 };
	struct shape s = shape_of(abc, 3), empty = shape_of(NULL, 0);

	EXPECT_EQ(s.hash, shape_of(abc, 3).hash);
	EXPECT_EQ(s.nr, 3);
	EXPECT_EQ(s.ids[2], 3);
	EXPECT_NE(s.hash, shape_of(acb, 3).hash);	/* order matters */
	/* Repeats are kept: a loop run three times is more work. */
	EXPECT_NE(shape_of(g, 1).hash, shape_of(gg, 2).hash);
	EXPECT_NE(shape_of(gg, 2).hash, shape_of(ggg, 3).hash);
	EXPECT_EQ(empty.hash, SHAPE_EMPTY);
	EXPECT_EQ(empty.nr, 0);
	EXPECT_NE(SHAPE_EMPTY, 0);
	EXPECT_NE(shape_of(g, 1).hash, SHAPE_EMPTY);
	/* Callee 0 is a callee like any other, not "nothing". */
	EXPECT_NE(shape_of((const uint32_t[]){ 0 }, 1).hash, SHAPE_EMPTY);
}

/* Past SHAPE_SHOWN the name stops, the hash does not. */
TEST(hash_covers_past_the_bound)
{
	uint32_t a[20], b[20];
	struct shape sa, sb;
	size_t i;

	for (i = 0; i < 20; i++)
		a[i] = b[i] = 7;
	b[15] = 8;
	sa = shape_of(a, 20);
	sb = shape_of(b, 20);
	EXPECT_EQ(sa.nr, 20);
	EXPECT_EQ(memcmp(sa.ids, sb.ids, sizeof(sa.ids)), 0);
	EXPECT_NE(sa.hash, sb.hash);
}

static const char *letter(const void *ctx, uint32_t id)
{
	static const char *const names[] = { "a", "b", "c", "d", "e" };

	(void)ctx;
	return id < 5 ? names[id] : NULL;
}

TEST(format)
{
	const uint32_t bcbd[] = { 1, 2, 1, 3 }, unknown[] = { 1, 9 };
	struct shape s = shape_of(bcbd, 4);
	uint32_t many[11] = { 0 };
	char buf[128];
	int n;

	n = shape_format(&s, "a", letter, NULL, buf, sizeof(buf));
	EXPECT_STREQ(buf, "a>b>c>b>d");
	EXPECT_EQ(n, (int)strlen(buf));
	s = shape_of(NULL, 0);
	shape_format(&s, "a", letter, NULL, buf, sizeof(buf));
	EXPECT_STREQ(buf, "a (no probed calls)");
	s = shape_of(unknown, 2);
	shape_format(&s, "a", letter, NULL, buf, sizeof(buf));
	EXPECT_STREQ(buf, "a>b>#9");
	s = shape_of(many, 11);
	shape_format(&s, "x", letter, NULL, buf, sizeof(buf));
	EXPECT_STREQ(buf, "x>a>a>a>a>a>a>a>a>...+3");
	/* Cut short, it still says how long it would be. */
	s = shape_of(bcbd, 4);
	n = shape_format(&s, "a", letter, NULL, buf, 4);
	EXPECT_STREQ(buf, "a>b");
	EXPECT_EQ(n, 9);
}

/* ---- the pairer: each frame's direct callees ---- */

struct sink {
	struct pair_exec v[64];
	size_t n;
};

static void sink_cb(const struct pair_exec *e, void *ctx)
{
	struct sink *s = ctx;

	ASSERT_LT(s->n, 64);
	s->v[s->n++] = *e;
}

static void feed(struct pairer *p, uint8_t kind, uint32_t probe,
		 uint32_t level, uint64_t ts)
{
	struct ispot_record r;

	memset(&r, 0, sizeof(r));
	r.ts_ns = ts;
	r.tid = TID;
	r.tgid = TID;
	r.probe_id = probe;
	r.kind = kind;
	r.nslots = 1;
	r.sp = SP(level) + (kind == ISPOT_REC_EXIT ? 8 : 0);
	r.ip = 0x401000;
	ASSERT_EQ(pairer_feed(p, &r), 0);
}

/*
 * The paper's trace a b c b d a b e a b c, read as calls: each a is a
 * call of probe 1 and the letters up to the next a are its direct
 * callees (probes 2-5), in order.  Twice, so that each shape repeats.
 */
TEST(paper_interleaving_three_shapes)
{
	static const char trace[] = "abcbdabeabcabcbdabeabc";
	struct sink s = { .n = 0 };
	struct pairer *p = pairer_new(sink_cb, &s);
	const uint32_t bcbd[] = { 2, 3, 2, 4 }, be[] = { 2, 5 };
	const uint32_t bc[] = { 2, 3 };
	struct pair_exec a[6];
	uint64_t ts = 0;
	size_t i, na = 0;

	ASSERT_TRUE(p);
	for (i = 0; trace[i]; i++) {
		uint32_t probe = trace[i] - 'a' + 1;

		if (probe == 1) {
			if (i)
				feed(p, ISPOT_REC_EXIT, 1, 0, ts++);
			feed(p, ISPOT_REC_ENTRY, 1, 0, ts++);
			continue;
		}
		feed(p, ISPOT_REC_ENTRY, probe, 1, ts++);
		feed(p, ISPOT_REC_EXIT, probe, 1, ts++);
	}
	feed(p, ISPOT_REC_EXIT, 1, 0, ts++);
	for (i = 0; i < s.n; i++) {
		if (s.v[i].probe_id != 1) {
			/* The callees called nothing. */
			EXPECT_EQ(s.v[i].shape.hash, SHAPE_EMPTY);
			continue;
		}
		ASSERT_LT(na, 6);
		a[na++] = s.v[i];
	}
	ASSERT_EQ(na, 6);
	EXPECT_EQ(a[0].shape.hash, shape_of(bcbd, 4).hash);
	EXPECT_EQ(a[0].shape.nr, 4);
	EXPECT_EQ(a[1].shape.hash, shape_of(be, 2).hash);
	EXPECT_EQ(a[2].shape.hash, shape_of(bc, 2).hash);
	/* Three shapes, each seen twice: like is compared with like. */
	EXPECT_NE(a[0].shape.hash, a[1].shape.hash);
	EXPECT_NE(a[0].shape.hash, a[2].shape.hash);
	EXPECT_NE(a[1].shape.hash, a[2].shape.hash);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(a[i].shape.hash, a[i + 3].shape.hash);
		EXPECT_EQ(a[i].shape.nr, a[i + 3].shape.nr);
	}
	pairer_free(p);
}

/*
 * a calls b, b calls c twice, then a calls d: a's shape is b>d (c is
 * b's callee, not a's), b's is c>c.  A block inside a is not a call, and
 * its execution has no shape.
 */
TEST(direct_callees_only_blocks_are_not_calls)
{
	struct sink s = { .n = 0 };
	struct pairer *p = pairer_new(sink_cb, &s);
	const uint32_t bd[] = { 2, 4 }, cc[] = { 3, 3 };
	uint64_t ts = 0;

	ASSERT_TRUE(p);
	ASSERT_EQ(pairer_set_marker(p, 8, 1, false), 0);
	ASSERT_EQ(pairer_set_marker(p, 9, 1, true), 0);
	feed(p, ISPOT_REC_ENTRY, 1, 0, ts++);
	feed(p, ISPOT_REC_ENTRY, 8, 1, ts++);	/* block begins */
	feed(p, ISPOT_REC_ENTRY, 2, 1, ts++);
	feed(p, ISPOT_REC_ENTRY, 3, 2, ts++);
	feed(p, ISPOT_REC_EXIT, 3, 2, ts++);
	feed(p, ISPOT_REC_ENTRY, 3, 2, ts++);
	feed(p, ISPOT_REC_EXIT, 3, 2, ts++);
	feed(p, ISPOT_REC_EXIT, 2, 1, ts++);
	feed(p, ISPOT_REC_ENTRY, 9, 1, ts++);	/* block ends */
	feed(p, ISPOT_REC_ENTRY, 4, 1, ts++);
	feed(p, ISPOT_REC_EXIT, 4, 1, ts++);
	feed(p, ISPOT_REC_EXIT, 1, 0, ts++);
	ASSERT_EQ(s.n, 6);
	EXPECT_EQ(s.v[2].probe_id, 2);
	EXPECT_EQ(s.v[2].shape.hash, shape_of(cc, 2).hash);
	EXPECT_EQ(s.v[3].probe_id, 8);		/* the block */
	EXPECT_EQ(s.v[3].shape.hash, SHAPE_EMPTY);
	EXPECT_EQ(s.v[5].probe_id, 1);
	EXPECT_EQ(s.v[5].shape.hash, shape_of(bd, 2).hash);
	EXPECT_EQ(s.v[5].shape.nr, 2);
	pairer_free(p);
}

/* Two probes of one callee (say, a block's two sites) are one call. */
TEST(callee_ids_name_functions_not_probes)
{
	struct sink s = { .n = 0 };
	struct pairer *p = pairer_new(sink_cb, &s);
	uint64_t ts = 0;

	ASSERT_TRUE(p);
	ASSERT_EQ(pairer_set_callee(p, 2, 70), 0);
	ASSERT_EQ(pairer_set_callee(p, 3, 70), 0);
	feed(p, ISPOT_REC_ENTRY, 1, 0, ts++);
	feed(p, ISPOT_REC_ENTRY, 2, 1, ts++);
	feed(p, ISPOT_REC_EXIT, 2, 1, ts++);
	feed(p, ISPOT_REC_EXIT, 1, 0, ts++);
	feed(p, ISPOT_REC_ENTRY, 1, 0, ts++);
	feed(p, ISPOT_REC_ENTRY, 3, 1, ts++);
	feed(p, ISPOT_REC_EXIT, 3, 1, ts++);
	feed(p, ISPOT_REC_EXIT, 1, 0, ts++);
	ASSERT_EQ(s.n, 4);
	EXPECT_EQ(s.v[1].shape.hash, s.v[3].shape.hash);
	EXPECT_EQ(s.v[1].shape.ids[0], 70);
	pairer_free(p);
}

/* ---- the pipeline: keyed by shape, a bigger shape is not a loss ---- */

static void pipe_feed(struct pipeline *p, uint8_t kind, uint32_t probe,
		      uint32_t level, uint64_t ts)
{
	struct ispot_record r;

	memset(&r, 0, sizeof(r));
	r.ts_ns = ts;
	r.tid = TID;
	r.tgid = TID;
	r.probe_id = probe;
	r.kind = kind;
	r.nslots = 1;
	r.sp = SP(level) + (kind == ISPOT_REC_EXIT ? 8 : 0);
	r.ip = 0x401000;
	pipeline_record(p, &r);
}

/*
 * f (probe 1, function 0) calls g (probe 2, function 1) once or three
 * times, alternately, 10 times each; each g takes 100 ns and f adds 10
 * (11 one time in two), so f takes 110-111 or 310-311 ns.
 */
static struct pipeline *f_calls_g(enum key_kind f_key)
{
	struct key_rule fk = { .kind = f_key }, none = { .kind = KEY_NONE };
	struct pipeline *p = pipeline_new();
	uint64_t ts = 1000;
	int i, j;

	ASSERT_TRUE(p);
	ASSERT_EQ(pipeline_add_probe(p, 1, 0, &fk), 0);
	ASSERT_EQ(pipeline_add_probe(p, 2, 1, &none), 0);
	ASSERT_EQ(pipeline_thread_seen(p, TID, 0), 0);
	for (i = 0; i < 20; i++) {
		pipe_feed(p, ISPOT_REC_ENTRY, 1, 0, ts);
		ts += 5;
		for (j = 0; j < (i % 2 ? 3 : 1); j++) {
			pipe_feed(p, ISPOT_REC_ENTRY, 2, 1, ts);
			ts += 100;
			pipe_feed(p, ISPOT_REC_EXIT, 2, 1, ts);
		}
		ts += 5 + (i / 2) % 2;
		pipe_feed(p, ISPOT_REC_EXIT, 1, 0, ts);
		ts += 1000;
	}
	pipeline_finish(p, ts);
	return p;
}

TEST(pipeline_keyed_loss_near_zero)
{
	struct pipeline *none = f_calls_g(KEY_NONE);
	struct pipeline *keyed = f_calls_g(KEY_SHAPE);
	const uint32_t g1[] = { 1 }, g3[] = { 1, 1, 1 };
	struct sci_report *rn = sci_report(none->sci, 0);
	struct sci_report *rk = sci_report(keyed->sci, 0);
	const struct sci_result *fn, *fk, *b;

	ASSERT_TRUE(rn);
	ASSERT_TRUE(rk);
	fn = sci_report_func(rn, 0);
	fk = sci_report_func(rk, 0);
	ASSERT_TRUE(fn);
	ASSERT_TRUE(fk);
	EXPECT_EQ(fn->calls, 20);
	EXPECT_EQ(fk->calls, 20);
	/* Unkeyed: 10 calls of 310+ against a minimum of 110. */
	EXPECT_GE(fn->loss_ns, 2000);
	EXPECT_EQ(fn->nr_keys, 1);
	/* Keyed: only the 1 ns jitter within each shape. */
	EXPECT_EQ(fk->nr_keys, 2);
	EXPECT_LE(fk->loss_ns, 10);
	EXPECT_TRUE(fk->sci * 100 < fn->sci);
	b = sci_report_block(rk, 0, shape_of(g1, 1).hash);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->calls, 10);
	EXPECT_EQ(b->min_ns, 110);
	b = sci_report_block(rk, 0, shape_of(g3, 3).hash);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->calls, 10);
	EXPECT_EQ(b->min_ns, 310);
	/* Kept for naming only when keyed. */
	EXPECT_TRUE(shapes_find(keyed->shapes, shape_of(g3, 3).hash));
	EXPECT_FALSE(shapes_find(none->shapes, shape_of(g3, 3).hash));
	sci_report_free(rn);
	sci_report_free(rk);
	pipeline_free(none);
	pipeline_free(keyed);
}

TEST(key_value_never_zero)
{
	struct key_rule rule = { .kind = KEY_SHAPE };
	struct pair_exec e;

	memset(&e, 0, sizeof(e));
	shape_init(&e.shape);
	EXPECT_EQ(key_value(&rule, &e), SHAPE_EMPTY);
	e.shape.hash = 0;	/* 2^-64 of the time */
	EXPECT_NE(key_value(&rule, &e), 0);
}

/* ---- what the report says ---- */

static const char *fg(const void *ctx, uint32_t id)
{
	(void)ctx;
	return id == 0 ? "f" : id == 1 ? "g" : NULL;
}

#define LONG_G	"std::vector<int>::operator->_a_name_as_long_as_a_C_plus_plus_one"

static const char *long_g(const void *ctx, uint32_t id)
{
	(void)ctx;
	return id == 0 ? "f" : id == 1 ? LONG_G : NULL;
}

/*
 * Names too long for the note's room (and with '>' in them): cut
 * between two, never inside one.
 */
TEST(notes_cut_between_names)
{
	struct pipeline *none = f_calls_g(KEY_NONE);
	char buf[SHAPE_NOTE_LEN];
	bool differ;

	ASSERT_TRUE(shape_note(none->shapes, 0, "f", false, true, long_g,
			       NULL, &differ, buf, sizeof(buf)));
	TH_LOG("%s", buf);
	EXPECT_TRUE(strstr(buf, "(f>" LONG_G ", f>" LONG_G
			   ">...): --key f=shape"));
	pipeline_free(none);
}

TEST(notes)
{
	struct pipeline *none = f_calls_g(KEY_NONE);
	struct pipeline *keyed = f_calls_g(KEY_SHAPE);
	char buf[SHAPE_NOTE_LEN];
	bool differ;

	/* f unkeyed, two shapes: the note suggests the key. */
	ASSERT_TRUE(shape_note(none->shapes, 0, "f", false, true, fg, NULL,
			       &differ, buf, sizeof(buf)));
	EXPECT_TRUE(differ);
	EXPECT_STREQ(buf, "f made different probed calls from one execution "
		     "to another (f>g, f>g>g>g): --key f=shape compares like "
		     "with like");
	/* Keyed by shape already, or by something else: nothing to add. */
	EXPECT_FALSE(shape_note(keyed->shapes, 0, "f", true, false, fg, NULL,
				&differ, buf, sizeof(buf)));
	EXPECT_TRUE(differ);
	EXPECT_FALSE(shape_note(none->shapes, 0, "f", false, false, fg, NULL,
				&differ, buf, sizeof(buf)));
	/* g made no calls: unkeyed, all alike; keyed, nothing to compare. */
	EXPECT_FALSE(shape_note(none->shapes, 1, "g", false, true, fg, NULL,
				&differ, buf, sizeof(buf)));
	EXPECT_FALSE(differ);
	ASSERT_TRUE(shape_note(none->shapes, 1, "g", true, false, fg, NULL,
			       &differ, buf, sizeof(buf)));
	EXPECT_STREQ(buf, "g made no probed calls; --key g=shape has nothing "
		     "to compare");
	/* A function never called: nothing to say. */
	EXPECT_FALSE(shape_note(none->shapes, 5, "h", true, false, fg, NULL,
				&differ, buf, sizeof(buf)));
	pipeline_free(none);
	pipeline_free(keyed);
}

struct key_ctx {
	const struct shapes *shapes;
};

static int shape_key_name(void *ctx, uint32_t func_id, uint64_t key,
			  char *buf, size_t len)
{
	struct key_ctx *k = ctx;

	return shape_key_label(k->shapes, key, fg(NULL, func_id), fg, NULL,
			       buf, len);
}

static char *render(const struct report *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f);
	ASSERT_EQ(json ? report_json(f, r) : report_text(f, r, 0), 0);
	fclose(f);
	return buf;
}

/* The keys read f>g and f>g>g>g, in the table and in JSON. */
TEST(report_names_shape_keys)
{
	struct pipeline *keyed = f_calls_g(KEY_SHAPE);
	struct pipeline *none = f_calls_g(KEY_NONE);
	struct sci_report *sr = sci_report(keyed->sci, 0);
	struct report_func rf[2] = {
		{ .name = "f", .object = "/app", .key = "shape",
		  .shapes_differ = true },
		{ .name = "g", .object = "/app", .key = "" },
	};
	struct key_ctx k = { keyed->shapes };
	struct report r = {
		.command = "app", .sci = sr, .funcs = rf, .nr_funcs = 2,
		.key_name = shape_key_name, .key_ctx = &k, .width = -1,
	};
	char note[SHAPE_NOTE_LEN], label[64];
	char *text, *json;
	bool differ;

	ASSERT_TRUE(sr);
	text = render(&r, false);
	EXPECT_TRUE(strstr(text, "f [shape]"));
	EXPECT_TRUE(strstr(text, "  f>g>g>g\n"));
	EXPECT_TRUE(strstr(text, "  f>g\n"));
	EXPECT_FALSE(strstr(text, "note:"));
	json = render(&r, true);
	EXPECT_TRUE(strstr(json, "\"key\": \"f>g>g>g\""));
	EXPECT_TRUE(strstr(json, "\"shapes_differ\": true"));
	EXPECT_TRUE(strstr(json, "\"shapes_differ\": false"));
	free(text);
	free(json);

	/* Unkeyed, the same trace gets the note under f. */
	sci_report_free(sr);
	sr = sci_report(none->sci, 0);
	ASSERT_TRUE(sr);
	r.sci = sr;
	rf[0].key = "";
	ASSERT_TRUE(shape_note(none->shapes, 0, "f", false, true, fg, NULL,
			       &differ, note, sizeof(note)));
	rf[0].shape_note = note;
	text = render(&r, false);
	EXPECT_TRUE(strstr(text, "note: f made different probed calls"));
	json = render(&r, true);
	EXPECT_TRUE(strstr(json, "\"shape_note\": \"f made different"));
	free(text);
	free(json);

	/* A hash nobody kept is still named. */
	shape_key_label(none->shapes, 0x1234, "f", fg, NULL, label,
			sizeof(label));
	EXPECT_STREQ(label, "shape 0x1234");
	sci_report_free(sr);
	pipeline_free(keyed);
	pipeline_free(none);
}

TEST(shapes_kept_are_bounded)
{
	struct shapes *t = shapes_new();
	uint32_t i, f, kept = 0;
	struct shape s;
	int r;

	ASSERT_TRUE(t);
	/* Per function: its first SHAPE_KEYS_MAX shapes, then SHAPE_OTHER. */
	for (i = 0; i < SHAPE_KEYS_MAX + 10; i++) {
		s = shape_of(&i, 1);
		EXPECT_EQ(shapes_add(t, 0, &s, true), i < SHAPE_KEYS_MAX ? 0 : 1);
	}
	s = shape_of((const uint32_t[]){ 5 }, 1);
	EXPECT_EQ(shapes_add(t, 0, &s, true), 0);	/* kept: its own key */
	EXPECT_TRUE(shapes_find(t, s.hash));
	s = shape_of((const uint32_t[]){ SHAPE_KEYS_MAX + 5 }, 1);
	EXPECT_FALSE(shapes_find(t, s.hash));
	EXPECT_EQ(shapes_summary(t, 0)->execs, SHAPE_KEYS_MAX + 11);
	EXPECT_EQ(shapes_summary(t, 0)->kept, SHAPE_KEYS_MAX);
	EXPECT_TRUE(shapes_summary(t, 0)->differ);
	/* In all: SHAPES_MAX, whatever the number of functions. */
	for (f = 1; f <= SHAPES_MAX / SHAPE_KEYS_MAX + 1; f++)
		for (i = 0; i < SHAPE_KEYS_MAX; i++) {
			uint32_t id = f * 100000 + i;

			s = shape_of(&id, 1);
			r = shapes_add(t, f, &s, true);
			ASSERT_GE(r, 0);
			kept += !r;
		}
	EXPECT_EQ(kept, SHAPES_MAX - SHAPE_KEYS_MAX);
	shapes_free(t);
}

/*
 * f keyed by shape calls g 1 to 100 times: its first SHAPE_KEYS_MAX
 * shapes are keys of their own, the other 36 executions share one key,
 * named as such, so the engine holds 65 keys, not 100.
 */
TEST(pipeline_shape_keys_bounded_per_function)
{
	struct key_rule fk = { .kind = KEY_SHAPE }, none = { .kind = KEY_NONE };
	struct pipeline *p = pipeline_new();
	const struct sci_result *fn, *b;
	struct sci_report *r;
	uint64_t ts = 1000;
	char label[64];
	int i, j;

	ASSERT_TRUE(p);
	ASSERT_EQ(pipeline_add_probe(p, 1, 0, &fk), 0);
	ASSERT_EQ(pipeline_add_probe(p, 2, 1, &none), 0);
	ASSERT_EQ(pipeline_thread_seen(p, TID, 0), 0);
	for (i = 1; i <= 100; i++) {
		pipe_feed(p, ISPOT_REC_ENTRY, 1, 0, ts);
		for (j = 0; j < i; j++) {
			pipe_feed(p, ISPOT_REC_ENTRY, 2, 1, ++ts);
			pipe_feed(p, ISPOT_REC_EXIT, 2, 1, ++ts);
		}
		pipe_feed(p, ISPOT_REC_EXIT, 1, 0, ++ts);
		ts += 1000;
	}
	pipeline_finish(p, ts);
	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	fn = sci_report_func(r, 0);
	ASSERT_TRUE(fn);
	EXPECT_EQ(fn->calls, 100);
	EXPECT_EQ(fn->nr_keys, SHAPE_KEYS_MAX + 1);
	b = sci_report_block(r, 0, SHAPE_OTHER);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->calls, 100 - SHAPE_KEYS_MAX);
	shape_key_label(p->shapes, SHAPE_OTHER, "f", NULL, NULL, label,
			sizeof(label));
	EXPECT_STREQ(label, "f (other shapes)");
	sci_report_free(r);
	pipeline_free(p);
}

TEST_HARNESS_MAIN
