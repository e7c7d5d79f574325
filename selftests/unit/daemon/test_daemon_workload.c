// SPDX-License-Identifier: GPL-2.0
/*
 * --key FUNC=auto and the workload verdicts in ispotd's windows
 * (window.h, window_workload.c): synthetic bursts go through a real
 * pipeline into the window set the way an armed burst's trace would
 * (window_burst_begin() hands it the engine, the argument buckets and
 * the shadow ids), then window_close() writes the line.
 *   - work that follows arg0: flagged, keyed by arg0:log2 with its SCI
 *     near 0 while unkeyed it is high, and the loss exactly that of a
 *     window keyed by arg0:log2 from the start; a function found by a
 *     later burst gets an id past the shadows, which never show;
 *   - the minima of the chosen key carry over to the next window;
 *   - time that does not follow a widely varying argument: not flagged,
 *     no key kept, the loss that of the unkeyed window;
 *   - too few calls to fill two buckets: a note in the window's "notes".
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "ispot_test.h"
#include "analysis/pipeline.h"
#include "pipeline_feed.h"
#include "trace/trace.h"
#include "window.h"
#include "window_lines.h"

#define T0		1000000000ull
#define WINDOW_NS	60000000000ull
#define OBJ		"/usr/bin/app"
#define TGID		4242
#define SP(tid)		(0x7ffd00000008ULL + 0x100000ULL * (tid))
#define PTR		0x7ffd12345678ULL	/* an argument that never varies */
#define MAX_FUNCS	3

static const struct window_target target = {
	.pid = TGID, .exe = OBJ, .cgroup = "",
};

/* One armed burst: what it resolved, and the pipeline it feeds. */
struct burst {
	struct trace t;
	struct trace_func funcs[MAX_FUNCS];
	uint32_t ids[MAX_FUNCS];
	struct pipeline *p;
	uint64_t now;
};

/*
 * A burst at @now resolving @names keyed by @rules (probe i + 1 is
 * function i), set up as trace_arm() sets a burst's pipeline up.
 */
static void burst_begin(struct burst *b, struct window_set *w, uint64_t now,
			const char *const *names,
			const struct key_rule *rules, size_t n)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < n; i++) {
		snprintf(b->funcs[i].sym.name, sizeof(b->funcs[i].sym.name),
			 "%s", names[i]);
		snprintf(b->funcs[i].sym.obj, sizeof(b->funcs[i].sym.obj),
			 "%s", OBJ);
		b->funcs[i].key = rules[i];
		key_rule_format(&rules[i], b->funcs[i].key_desc,
				sizeof(b->funcs[i].key_desc));
	}
	b->t.funcs = b->funcs;
	b->t.nr_funcs = n;
	ASSERT_EQ(window_burst_begin(w, &b->t, b->ids), 0);
	ASSERT_TRUE(b->t.borrowed.args == w->args);
	b->p = pipeline_new();
	ASSERT_TRUE(b->p);
	pipeline_borrow_engine(b->p, b->t.borrowed.engine);
	pipeline_borrow_shapes(b->p, b->t.borrowed.shapes);
	pipeline_borrow_args(b->p, b->t.borrowed.args);
	for (i = 0; i < n; i++) {
		const uint32_t *shadows = b->t.borrowed.shadow_ids;

		ASSERT_EQ(pipeline_add_probe(b->p, i + 1, b->ids[i],
					     &rules[i]), 0);
		/* Shadows for the auto functions, and only for them. */
		EXPECT_EQ(!!shadows[i], rules[i].kind == KEY_AUTO);
		if (shadows[i])
			ASSERT_EQ(pipeline_set_shadows(b->p, i + 1,
						       shadows[i]), 0);
	}
	b->now = now;
	ASSERT_EQ(pipeline_thread_seen(b->p, 1, now), 0);
	ASSERT_EQ(pipeline_thread_seen(b->p, 2, now), 0);
}

static void burst_end(struct burst *b, struct window_set *w)
{
	pipeline_finish(b->p, b->now);
	pipeline_free(b->p);
	w->bursts++;
}

static void record(struct burst *b, uint8_t kind, uint32_t tid,
		   uint32_t probe, uint64_t sp, const uint64_t *args)
{
	pipeline_feed_record(b->p, b->now, kind, TGID, tid, probe, sp,
			     args);
}

/* One execution of @probe in @tid lasting @dur, then a 50ns gap. */
static void exec1(struct burst *b, uint32_t tid, uint32_t probe,
		  const uint64_t *args, uint64_t dur)
{
	record(b, ISPOT_REC_ENTRY, tid, probe, SP(tid), args);
	b->now += dur;
	record(b, ISPOT_REC_EXIT, tid, probe, SP(tid) + 8, NULL);
	b->now += 50;
}

/*
 * @calls executions of @probe: arg0 = n = 1 .. 64, arg2 varying as
 * widely, arg1 fixed.  @follows: 100 ns per unit of n, every 10th call
 * 10% slower; else 1 us whatever n, every 5th call 3 us more (another
 * thread in the way).
 */
static void feed(struct burst *b, uint32_t probe, unsigned int calls,
		 bool follows)
{
	unsigned int i;

	for (i = 0; i < calls; i++) {
		uint64_t n = 1ull << (i % 7);
		uint64_t args[3] = { n, PTR, (i * 37) % 4000 };
		uint64_t d = follows ? 100 * n + (i % 10 == 3 ? 10 * n : 0) :
			     1000 + (i % 5 == 0 ? 3000 : 0);

		exec1(b, 1 + (i & 1), probe, args, d);
	}
}

/* "work" keyed by @rule (and "other" unkeyed) over two bursts; the line. */
static char *one_window(struct window_set *w, FILE *f, long *off,
			const struct key_rule *rule, bool follows)
{
	static const char *const first[] = { "work" };
	static const char *const second[] = { "other", "work" };
	const struct key_rule none = { .kind = KEY_NONE };
	struct key_rule rules[2] = { *rule };
	struct burst b;

	ASSERT_EQ(window_set_init(w, target.pid, T0), 0);
	burst_begin(&b, w, T0 + 1000, first, rules, 1);
	feed(&b, 1, 700, follows);
	burst_end(&b, w);
	/* Another order, and a function the first burst did not find. */
	rules[0] = none;
	rules[1] = *rule;
	burst_begin(&b, w, T0 + 1000000000ull, second, rules, 2);
	EXPECT_EQ(b.ids[1], 0);
	feed(&b, 2, 700, follows);
	feed(&b, 1, 70, false);
	burst_end(&b, w);
	return close_window(w, &target, f, off, T0 + WINDOW_NS);
}

/* The object of @name among the line's functions, in a buffer. */
static char *function(const char *line, const char *name)
{
	char *fn = between(line, "\"functions\": [", "\"futexes\": [");
	char *o = object_named(fn, name);

	ASSERT_TRUE(o);
	free(fn);
	return o;
}

/* How many times @what is in @s. */
static int count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

TEST(auto_keys_work_that_follows_arg0)
{
	const struct key_rule autok = { .kind = KEY_AUTO };
	const struct key_rule none = { .kind = KEY_NONE };
	const struct key_rule arg0 = { .kind = KEY_ARG, .arg = 0,
				       .log2 = true };
	struct window_set wa, wn, wk;
	char *la, *ln, *lk, *a, *n, *k, *o;
	long offa = 0, offn = 0, offk = 0;
	FILE *fa = tmpfile(), *fn = tmpfile(), *fk = tmpfile();
	double sci_auto, sci_none;

	ASSERT_TRUE(fa && fn && fk);
	la = strdup(one_window(&wa, fa, &offa, &autok, true));
	ln = strdup(one_window(&wn, fn, &offn, &none, true));
	lk = strdup(one_window(&wk, fk, &offk, &arg0, true));
	ASSERT_TRUE(la && ln && lk);
	/* work, its three shadows, then other: the shadows' ids are held. */
	EXPECT_EQ(wa.nr_funcs, 5);
	EXPECT_EQ(wn.nr_funcs, 2);

	a = function(la, "work");
	n = function(ln, "work");
	k = function(lk, "work");
	/* Flagged with or without auto, suggested arg0:log2. */
	EXPECT_TRUE(strstr(a, "\"workload_dependent\": true"));
	EXPECT_TRUE(strstr(n, "\"workload_dependent\": true"));
	EXPECT_TRUE(strstr(a, "\"suggested_key\": \"arg0:log2\""));
	EXPECT_TRUE(strstr(a, "\"workload_evidence\": \"min "));
	/* What auto chose, said so. */
	EXPECT_TRUE(strstr(a, "\"key\": \"arg0:log2\", \"key_auto\": true"));
	EXPECT_TRUE(strstr(n, "\"key\": \"\""));
	EXPECT_FALSE(strstr(n, "key_auto"));
	/* Scored exactly as keyed by arg0:log2 from the start. */
	sci_auto = num(a, "sci");
	sci_none = num(n, "sci");
	EXPECT_EQ(num(a, "calls"), 1400);
	EXPECT_EQ(num(a, "loss_ns"), num(k, "loss_ns"));
	EXPECT_EQ(num(a, "nr_keys"), 7);
	EXPECT_TRUE(fabs(sci_auto - num(k, "sci")) < 1e-12);
	TH_LOG("work: SCI %.4f unkeyed, %.4f auto", sci_none, sci_auto);
	EXPECT_TRUE(sci_none > 0.3);
	EXPECT_TRUE(sci_auto < 0.02 * sci_none);
	/* The keys are named by the chosen rule. */
	EXPECT_TRUE(strstr(a, "\"key\": \"arg0 in [2^5, 2^6)\""));
	/* other: not flagged (its time does not follow arg0). */
	o = function(la, "other");
	EXPECT_TRUE(strstr(o, "\"workload_dependent\": false"));
	EXPECT_TRUE(strstr(o, "\"suggested_key\": \"\""));
	free(o);
	/* No shadow shows, in the functions or in the totals. */
	EXPECT_EQ(count(la, "\"name\": \"work\""), 2);
	EXPECT_EQ(count(la, "\"name\": \"other\""), 2);
	EXPECT_NEAR(num(between(la, "\"totals\": [", NULL), "sci"), sci_auto,
		    1e-6);
	free(a);
	free(n);
	free(k);

	/* Window 2: the chosen key's minima carried over. */
	{
		static const char *const names[] = { "work" };
		struct burst b;

		burst_begin(&b, &wa, T0 + WINDOW_NS + 1000, names, &autok, 1);
		feed(&b, 1, 140, true);
		burst_end(&b, &wa);
		a = function(close_window(&wa, &target, fa, &offa,
					  T0 + 2 * WINDOW_NS), "work");
		EXPECT_TRUE(strstr(a, "\"key\": \"arg0:log2\""));
		EXPECT_EQ(num(a, "calls"), 140);
		EXPECT_EQ(num(a, "min_ns"), 100);
		EXPECT_TRUE(num(a, "sci") < 0.02 * sci_none);
		free(a);
	}
	free(la);
	free(ln);
	free(lk);
	window_set_free(&wa);
	window_set_free(&wn);
	window_set_free(&wk);
	fclose(fa);
	fclose(fn);
	fclose(fk);
}

TEST(auto_keeps_no_key_when_work_does_not_follow)
{
	const struct key_rule autok = { .kind = KEY_AUTO };
	const struct key_rule none = { .kind = KEY_NONE };
	struct window_set wa, wn;
	long offa = 0, offn = 0;
	FILE *fa = tmpfile(), *fn = tmpfile();
	char *la, *a, *n;

	ASSERT_TRUE(fa && fn);
	la = strdup(one_window(&wa, fa, &offa, &autok, false));
	ASSERT_TRUE(la);
	a = function(la, "work");
	n = function(one_window(&wn, fn, &offn, &none, false), "work");
	EXPECT_TRUE(strstr(a, "\"workload_dependent\": false"));
	EXPECT_TRUE(strstr(a, "\"suggested_key\": \"\""));
	EXPECT_TRUE(strstr(a, "\"key\": \"\", \"key_auto\": true"));
	/* arg0 and arg2 were judged: minima ~1x apart. */
	EXPECT_TRUE(num(a, "workload_ratio") < 1.5);
	/* The interference stays in view: the unkeyed loss, all of it. */
	EXPECT_EQ(num(a, "loss_ns"), num(n, "loss_ns"));
	EXPECT_TRUE(num(a, "loss_ns") > 0);
	EXPECT_TRUE(fabs(num(a, "sci") - num(n, "sci")) < 1e-12);
	/* Enough calls were recorded to judge: nothing to note. */
	EXPECT_TRUE(strstr(la, "\"notes\": []"));
	free(la);
	free(a);
	free(n);
	window_set_free(&wa);
	window_set_free(&wn);
	fclose(fa);
	fclose(fn);
}

/* 14 calls over 7 arg0 buckets: two each, no bucket to compare. */
TEST(auto_too_sparse_to_judge_is_noted)
{
	static const char *const names[] = { "work" };
	const struct key_rule autok = { .kind = KEY_AUTO };
	struct window_set w;
	FILE *f = tmpfile();
	struct burst b;
	long off = 0;
	char *line, *a;

	ASSERT_TRUE(f);
	ASSERT_EQ(window_set_init(&w, target.pid, T0), 0);
	burst_begin(&b, &w, T0 + 1000, names, &autok, 1);
	feed(&b, 1, 14, true);
	burst_end(&b, &w);
	line = strdup(close_window(&w, &target, f, &off, T0 + WINDOW_NS));
	ASSERT_TRUE(line);
	a = function(line, "work");
	EXPECT_TRUE(strstr(a, "\"key\": \"\", \"key_auto\": true"));
	EXPECT_TRUE(strstr(line, "\"notes\": [\"--key work=auto kept no "
			   "key: its 14 recorded calls fill no two argument "
			   "buckets with 8 each; a longer --window or a "
			   "larger --budget records more\"]"));
	free(a);
	free(line);
	window_set_free(&w);
	fclose(f);
}

TEST_HARNESS_MAIN
