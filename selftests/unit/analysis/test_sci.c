// SPDX-License-Identifier: GPL-2.0
/*
 * SCI engine: the metric on hand-computed traces (Documentation/design.rst,
 * "The metric: SCI"), the paper's Fig. 1 example, the cause split, thread
 * lifetimes, a random trace checked against a brute-force recomputation,
 * and memory that does not grow with events.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "analysis/hist.h"
#include "analysis/sci.h"
#include "analysis/sci_internal.h"

#define EPS	1e-12

/*
 * realloc() that fails while this is set, for an engine out of memory:
 * glibc's own is __libc_realloc(), which every other caller still gets.
 * (valgrind's allocator bypasses it, and so would ASan's: under either,
 * that test fails.)
 */
static bool realloc_fails;

void *__libc_realloc(void *p, size_t n);

void *realloc(void *p, size_t n)
{
	return realloc_fails ? NULL : __libc_realloc(p, n);
}

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint64_t rng(void)
{
	return ispot_test_rand(&rng_state);
}

static struct sci_causes causes(uint64_t futex, uint64_t blocked,
				uint64_t runq, uint64_t oncpu)
{
	struct sci_causes c = { .futex_ns = futex, .blocked_ns = blocked,
				.runqueue_ns = runq, .oncpu_ns = oncpu };

	return c;
}

/*
 * Run executions of one block back to back in @tid starting at @t0, so the
 * timestamps stay inside the thread's lifetime.  Returns the end time.
 */
static uint64_t run(struct sci_engine *e, uint32_t func, uint64_t key,
		    uint32_t tid, uint64_t t0, const uint64_t *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		t0 += d[i];
		ASSERT_EQ(sci_add(e, func, key, tid, d[i], t0, NULL), 0);
	}
	return t0;
}

static void thread(struct sci_engine *e, uint32_t tid, uint64_t from,
		   uint64_t to)
{
	ASSERT_EQ(sci_thread_seen(e, tid, from), 0);
	ASSERT_EQ(sci_thread_exit(e, tid, to), 0);
}

/*
 * Every test starts from an empty engine.  report() replaces the last
 * report with a new one; the teardown frees whatever is left of both.
 */
FIXTURE(sci) {
	struct sci_engine *e;
	struct sci_report *r;
};

FIXTURE_SETUP(sci)
{
	self->e = sci_new();
	self->r = NULL;
	ASSERT_TRUE(self->e);
}

FIXTURE_TEARDOWN(sci)
{
	sci_report_free(self->r);
	sci_free(self->e);
}

/* The engine's report at @now (0: the latest timestamp seen). */
static struct sci_report *report(FIXTURE_DATA(sci) *self, uint64_t now)
{
	sci_report_free(self->r);
	self->r = sci_report(self->e, now);
	ASSERT_TRUE(self->r);
	return self->r;
}

TEST_F(sci, single_thread)
{
	const uint64_t d[] = { 10, 15, 30 };
	const struct sci_result *b;
	struct sci_report *r;

	ASSERT_EQ(sci_thread_seen(self->e, 7, 0), 0);
	run(self->e, 1, 0, 7, 100, d, 3);
	ASSERT_EQ(sci_thread_exit(self->e, 7, 1000), 0);
	r = report(self, 0);
	b = sci_report_block(r, 1, 0);
	ASSERT_TRUE(b);
	/* loss = 55 - 3 * 10 = 25 over a lifetime of 1000. */
	EXPECT_EQ(b->calls, 3);
	EXPECT_EQ(b->threads, 1);
	EXPECT_EQ(b->min_ns, 10);
	EXPECT_EQ(b->max_ns, 30);
	EXPECT_EQ(b->sum_ns, 55);
	EXPECT_NEAR(b->mean_ns, 55.0 / 3, EPS);
	EXPECT_EQ(b->p50_ns, 15);
	EXPECT_EQ(b->p99_ns, 30);
	EXPECT_EQ(b->loss_ns, 25);
	EXPECT_EQ(b->lifetime_ns, 1000);
	EXPECT_NEAR(b->sci, 0.025, EPS);
	EXPECT_NEAR(b->sci_worst_thread, 0.025, EPS);
	EXPECT_EQ(b->worst_tid, 7);
	/* No causes were given: all of the loss is unattributed. */
	EXPECT_EQ(b->caused_calls, 0);
	EXPECT_EQ(b->unknown_loss_ns, 25);
	EXPECT_EQ(r->nr_threads, 1);
	EXPECT_EQ(r->threads[0].lifetime_ns, 1000);
	EXPECT_TRUE(r->threads[0].exited);
}

/*
 * Two threads with different lifetimes, and d_min taken from the other
 * thread: t1 (T=1000) runs {10, 30}, t2 (T=2000) runs {20, 50, 40}.
 * d_min = 10 comes from t1, so t2's loss is 110 - 3*10 = 80, not the 50 it
 * would be against its own minimum of 20; t1's loss is 40 - 2*10 = 20.
 * SCI(b,t1) = 0.02, SCI(b,t2) = 0.04, SCI(b) = 100 / 3000.
 */
TEST_F(sci, two_threads_dmin_from_other_thread)
{
	const uint64_t d1[] = { 10, 30 }, d2[] = { 20, 50, 40 };
	const struct sci_thread_score *s1, *s2;
	const struct sci_result *b;
	struct sci_report *r;

	ASSERT_EQ(sci_thread_seen(self->e, 1, 0), 0);
	ASSERT_EQ(sci_thread_seen(self->e, 2, 0), 0);
	run(self->e, 5, 0, 1, 0, d1, 2);
	run(self->e, 5, 0, 2, 500, d2, 3);
	ASSERT_EQ(sci_thread_exit(self->e, 1, 1000), 0);
	ASSERT_EQ(sci_thread_exit(self->e, 2, 2000), 0);
	r = report(self, 0);
	b = sci_report_block(r, 5, 0);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->min_ns, 10);
	EXPECT_EQ(b->threads, 2);
	EXPECT_EQ(b->loss_ns, 100);
	EXPECT_EQ(b->lifetime_ns, 3000);
	EXPECT_NEAR(b->sci, 100.0 / 3000, EPS);
	EXPECT_EQ(b->worst_tid, 2);
	EXPECT_NEAR(b->sci_worst_thread, 0.04, EPS);
	EXPECT_EQ(b->worst_loss_ns, 80);

	s1 = sci_result_thread(r, b, 1);
	s2 = sci_result_thread(r, b, 2);
	ASSERT_TRUE(s1 && s2);
	EXPECT_EQ(s1->loss_ns, 20);
	EXPECT_EQ(s1->lifetime_ns, 1000);
	EXPECT_NEAR(s1->sci, 0.02, EPS);
	EXPECT_EQ(s2->min_ns, 20);	/* its own fastest... */
	EXPECT_EQ(s2->loss_ns, 80);	/* ...but judged against t1's */
	EXPECT_EQ(s2->lifetime_ns, 2000);
	EXPECT_NEAR(s2->sci, 0.04, EPS);
	/* Scores are sorted worst first. */
	EXPECT_EQ(r->scores[b->first_score].tid, 2);
}

/*
 * The worst thread is the one with the highest SCI, not the largest loss:
 * t1 loses 100 over 10000 (1%), t2 loses 50 over 1000 (5%), t3 nothing.
 */
TEST_F(sci, worst_thread)
{
	const uint64_t d1[] = { 10, 110 }, d2[] = { 60 }, d3[] = { 10, 10 };
	const struct sci_result *b;
	struct sci_report *r;

	thread(self->e, 1, 0, 10000);
	thread(self->e, 2, 0, 1000);
	thread(self->e, 3, 0, 100000);
	run(self->e, 1, 0, 1, 0, d1, 2);
	run(self->e, 1, 0, 2, 0, d2, 1);
	run(self->e, 1, 0, 3, 0, d3, 2);
	r = report(self, 0);
	b = sci_report_block(r, 1, 0);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->loss_ns, 150);
	EXPECT_EQ(b->lifetime_ns, 111000);
	EXPECT_NEAR(b->sci, 150.0 / 111000, EPS);
	EXPECT_EQ(b->worst_tid, 2);
	EXPECT_EQ(b->worst_loss_ns, 50);
	EXPECT_NEAR(b->sci_worst_thread, 0.05, EPS);
	EXPECT_EQ(r->scores[b->first_score + 0].tid, 2);
	EXPECT_EQ(r->scores[b->first_score + 1].tid, 1);
	EXPECT_EQ(r->scores[b->first_score + 2].tid, 3);
}

/*
 * Keys: key 0xA always does 10 units of work, key 0xB 100.  Compared only
 * within their key they lose 2 and 4; lumped together under one key (func
 * 2) the same durations would claim a loss of 226 - 4*10 = 186.
 */
TEST_F(sci, keys_compared_within_key)
{
	const uint64_t da[] = { 10, 12 }, db[] = { 100, 104 };
	const uint64_t all[] = { 10, 12, 100, 104 };
	const struct sci_result *a, *b, *f1, *f2;
	struct sci_report *r;

	thread(self->e, 1, 0, 1000);
	run(self->e, 1, 0xA, 1, 0, da, 2);
	run(self->e, 1, 0xB, 1, 100, db, 2);
	run(self->e, 2, 0, 1, 400, all, 4);
	r = report(self, 0);
	a = sci_report_block(r, 1, 0xA);
	b = sci_report_block(r, 1, 0xB);
	f1 = sci_report_func(r, 1);
	f2 = sci_report_func(r, 2);
	ASSERT_TRUE(a && b && f1 && f2);
	EXPECT_EQ(a->loss_ns, 2);
	EXPECT_EQ(b->loss_ns, 4);
	EXPECT_EQ(b->min_ns, 100);
	EXPECT_EQ(f1->loss_ns, 6);
	EXPECT_EQ(f1->nr_keys, 2);
	EXPECT_EQ(f1->calls, 4);
	EXPECT_EQ(f1->min_ns, 10);
	EXPECT_EQ(f1->max_ns, 104);
	EXPECT_EQ(f1->threads, 1);
	EXPECT_NEAR(f1->sci, 0.006, EPS);
	EXPECT_EQ(f2->loss_ns, 186);
	EXPECT_EQ(f2->nr_keys, 1);
	EXPECT_EQ(r->nr_blocks, 3);
	EXPECT_EQ(r->nr_funcs, 2);
}

/* A function's distribution is that of every key's executions, and no other. */
TEST_F(sci, function_histogram_over_keys)
{
	const uint64_t da[] = { 10, 12 }, db[] = { 100, 104 }, dc[] = { 7 };
	struct hist *h = malloc(sizeof(*h));

	ASSERT_TRUE(h);
	thread(self->e, 1, 0, 1000);
	run(self->e, 1, 0xA, 1, 0, da, 2);
	run(self->e, 1, 0xB, 1, 100, db, 2);
	run(self->e, 2, 0, 1, 400, dc, 1);
	sci_func_hist(self->e, 1, h);
	EXPECT_EQ(hist_count(h), 4);
	EXPECT_EQ(hist_min(h), 10);
	EXPECT_EQ(hist_max(h), 104);
	EXPECT_EQ(hist_percentile(h, 50), 12);
	sci_func_hist(self->e, 2, h);
	EXPECT_EQ(hist_count(h), 1);
	EXPECT_EQ(hist_min(h), 7);
	/* An id with no execution: empty, and not what was there before. */
	sci_func_hist(self->e, 9, h);
	EXPECT_EQ(hist_count(h), 0);
	free(h);
}

/*
 * A function's threads are the distinct threads that ran any of its keys,
 * and a thread's loss in the function is the sum of its per-key losses.
 * Key 1: t1 {10, 20}, t2 {30}     d_min 10: losses t1 10, t2 20
 * Key 2: t2 {100, 150}, t3 {110}  d_min 100: losses t2 50, t3 10
 * Function: t1 10/1000, t2 70/2000, t3 10/4000; total 90/7000.
 */
TEST_F(sci, function_aggregate_distinct_threads)
{
	const uint64_t k1t1[] = { 10, 20 }, k1t2[] = { 30 };
	const uint64_t k2t2[] = { 100, 150 }, k2t3[] = { 110 };
	const struct sci_thread_score *s;
	const struct sci_result *f;
	struct sci_report *r;

	thread(self->e, 1, 0, 1000);
	thread(self->e, 2, 0, 2000);
	thread(self->e, 3, 0, 4000);
	run(self->e, 3, 1, 1, 0, k1t1, 2);
	run(self->e, 3, 1, 2, 0, k1t2, 1);
	run(self->e, 3, 2, 2, 100, k2t2, 2);
	run(self->e, 3, 2, 3, 0, k2t3, 1);
	r = report(self, 0);
	f = sci_report_func(r, 3);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->nr_keys, 2);
	EXPECT_EQ(f->threads, 3);
	EXPECT_EQ(f->calls, 6);
	EXPECT_EQ(f->loss_ns, 90);
	EXPECT_EQ(f->lifetime_ns, 7000);
	EXPECT_NEAR(f->sci, 90.0 / 7000, EPS);
	EXPECT_EQ(f->worst_tid, 2);
	EXPECT_EQ(f->worst_loss_ns, 70);
	EXPECT_NEAR(f->sci_worst_thread, 0.035, EPS);
	s = sci_result_thread(r, f, 2);
	ASSERT_TRUE(s);
	EXPECT_EQ(s->calls, 3);
	EXPECT_EQ(s->min_ns, 30);
	EXPECT_EQ(s->max_ns, 150);
	EXPECT_EQ(sci_report_block(r, 3, 1)->threads, 2);
	EXPECT_EQ(sci_report_block(r, 3, 2)->lifetime_ns, 6000);
}

/*
 * Cause split, loss_k = S_k - n_c * r_k with r the fastest execution's
 * causes (sci.h).  Block 1, all executions in one thread:
 *	d	futex	blocked	runq	oncpu
 *	10	0	0	0	10	<- fastest, the reference
 *	30	15	0	3	12
 *	25	0	10	0	15
 *	20	15	0	0	5
 * loss = 85 - 40 = 45 = futex 30 + blocked 10 + runq 3 + oncpu (42-40) 2.
 * A fifth execution of 16 without causes adds 6 to the loss, as unknown.
 */
TEST_F(sci, cause_split_sums_to_loss)
{
	const struct sci_result *b;
	struct sci_causes c = { 0 };
	struct sci_report *r;

	thread(self->e, 1, 0, 1000);
	c = causes(0, 0, 0, 10);
	ASSERT_EQ(sci_add(self->e, 1, 0, 1, 10, 100, &c), 0);
	c = causes(15, 0, 3, 12);
	ASSERT_EQ(sci_add(self->e, 1, 0, 1, 30, 200, &c), 0);
	c = causes(0, 10, 0, 15);
	ASSERT_EQ(sci_add(self->e, 1, 0, 1, 25, 300, &c), 0);
	c = causes(15, 0, 0, 5);
	ASSERT_EQ(sci_add(self->e, 1, 0, 1, 20, 400, &c), 0);

	r = report(self, 0);
	b = sci_report_block(r, 1, 0);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->loss_ns, 45);
	EXPECT_EQ(b->caused_calls, 4);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_FUTEX], 30);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_BLOCKED], 10);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_RUNQUEUE], 3);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_ONCPU], 2);
	EXPECT_EQ(b->unknown_loss_ns, 0);

	ASSERT_EQ(sci_add(self->e, 1, 0, 1, 16, 500, NULL), 0);
	r = report(self, 0);
	b = sci_report_block(r, 1, 0);
	EXPECT_EQ(b->loss_ns, 51);
	EXPECT_EQ(b->caused_calls, 4);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_FUTEX], 30);
	EXPECT_EQ(b->unknown_loss_ns, 6);
	EXPECT_EQ(b->cause_loss_ns[0] + b->cause_loss_ns[1] +
		  b->cause_loss_ns[2] + b->cause_loss_ns[3] +
		  b->unknown_loss_ns, (int64_t)b->loss_ns);
}

/*
 * The fastest execution (10) carries no causes: the reference is the
 * fastest caused one (20: futex 4, oncpu 16) scaled by 10/20 to {2, 8}.
 * Caused: 20 {4, 16} and 30 {14, 16}: futex 18 - 2*2 = 14, oncpu
 * 32 - 2*8 = 16; total loss 60 - 30 = 30 = 14 + 16, unknown 10 - 10 = 0.
 */
TEST_F(sci, cause_reference_rescaled)
{
	const struct sci_result *b;
	struct sci_causes c = { 0 };
	struct sci_report *r;

	thread(self->e, 1, 0, 1000);
	c = causes(4, 0, 0, 16);
	ASSERT_EQ(sci_add(self->e, 2, 0, 1, 20, 100, &c), 0);
	ASSERT_EQ(sci_add(self->e, 2, 0, 1, 10, 200, NULL), 0);
	c = causes(14, 0, 0, 16);
	ASSERT_EQ(sci_add(self->e, 2, 0, 1, 30, 300, &c), 0);
	r = report(self, 0);
	b = sci_report_block(r, 2, 0);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->loss_ns, 30);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_FUTEX], 14);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_ONCPU], 16);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_BLOCKED], 0);
	EXPECT_EQ(b->unknown_loss_ns, 0);
}

/*
 * Parts are made to sum to the duration: on-CPU is the remainder whatever
 * the caller said, and off-CPU parts beyond the duration are clamped
 * (run-queue first, then blocked).  A 100 with futex 80, blocked 50,
 * runq 30 becomes {80, 20, 0, 0}.  Against a reference of 50 on-CPU the
 * on-CPU loss is 0 - 50 = -50: negative, and the parts still sum to 50.
 */
TEST_F(sci, cause_normalised_and_signed)
{
	const struct sci_result *b;
	struct sci_causes c = { 0 };
	struct sci_report *r;

	thread(self->e, 1, 0, 1000);
	c = causes(0, 0, 0, 0);
	ASSERT_EQ(sci_add(self->e, 3, 0, 1, 50, 100, &c), 0);
	c = causes(80, 50, 30, 999);
	ASSERT_EQ(sci_add(self->e, 3, 0, 1, 100, 300, &c), 0);
	r = report(self, 0);
	b = sci_report_block(r, 3, 0);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->loss_ns, 50);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_FUTEX], 80);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_BLOCKED], 20);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_RUNQUEUE], 0);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_ONCPU], -50);
	EXPECT_EQ(b->unknown_loss_ns, 0);
}

/*
 * The paper's Fig. 1 (§2; Documentation/design.rst, References).  The figure
 * gives only two numbers: the fastest gray execution takes 22, and removing
 * the interference would shorten the run by 32.5%.  This trace is one
 * consistent with both: one thread of 200 units whose gray block runs four
 * times, {22, 35, 40, 56} = 153, between white blocks of
 * {10, 12, 8, 9, 8} = 47 that each run once (so they lose nothing).
 * Gray loss = 153 - 4 * 22 = 65; the ideal run takes 200 - 65 = 135, a
 * gain of 65 / 200 = 32.5%.
 */
TEST_F(sci, paper_fig1_ideal_gain)
{
	static const uint64_t gray[] = { 22, 35, 40, 56 };
	static const uint64_t white[] = { 10, 12, 8, 9, 8 };
	const struct sci_result *b;
	struct sci_report *r;
	uint64_t t = 0;
	int i;

	ASSERT_EQ(sci_thread_seen(self->e, 1, 0), 0);
	for (i = 0; i < 5; i++) {
		t = run(self->e, 10 + i, 0, 1, t, &white[i], 1);
		if (i < 4)
			t = run(self->e, 1, 0, 1, t, &gray[i], 1);
	}
	ASSERT_EQ(t, 200);
	ASSERT_EQ(sci_thread_exit(self->e, 1, t), 0);

	EXPECT_NEAR(sci_ideal_gain(gray, 4, 200), 0.325, EPS);
	r = report(self, 0);
	b = sci_report_block(r, 1, 0);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->min_ns, 22);
	EXPECT_EQ(b->loss_ns, 65);
	EXPECT_EQ(b->lifetime_ns, 200);
	EXPECT_NEAR(b->sci, 0.325, EPS);
	/* The gray block tops the report; the white ones score 0. */
	EXPECT_EQ(r->blocks[0].func_id, 1);
	EXPECT_NEAR(r->blocks[1].sci, 0.0, 0.0);
	EXPECT_NEAR(sci_ideal_gain(NULL, 0, 200), 0.0, 0.0);
}

TEST_F(sci, lifetimes)
{
	struct sci_report *r;
	size_t i;

	/* tid 1: never announced, starts with its first execution (50). */
	ASSERT_EQ(sci_add(self->e, 1, 0, 1, 50, 100, NULL), 0);
	/* tid 2: lives [0, 100], then the tid is reused at 450. */
	thread(self->e, 2, 0, 100);
	ASSERT_EQ(sci_add(self->e, 1, 0, 2, 50, 500, NULL), 0);
	/* tid 3: announced at 100, but an execution began at 70. */
	ASSERT_EQ(sci_thread_seen(self->e, 3, 100), 0);
	ASSERT_EQ(sci_add(self->e, 1, 0, 3, 50, 120, NULL), 0);
	/* tid 4: only its exit was seen: no observed time. */
	ASSERT_EQ(sci_thread_exit(self->e, 4, 300), 0);
	/*
	 * tid 5: lives [0, 100], reopens at 450, then an execution claims to
	 * have started at 60: the interval reaches back only to 100, so
	 * [60, 100] is not counted twice.
	 */
	thread(self->e, 5, 0, 100);
	ASSERT_EQ(sci_add(self->e, 2, 0, 5, 50, 500, NULL), 0);
	ASSERT_EQ(sci_add(self->e, 2, 0, 5, 400, 460, NULL), 0);

	/* Live: open threads count up to now. */
	r = report(self, 1000);
	ASSERT_EQ(r->nr_threads, 5);
	for (i = 0; i < 5; i++)
		ASSERT_EQ(r->threads[i].tid, i + 1);
	EXPECT_EQ(r->threads[0].lifetime_ns, 950);
	EXPECT_FALSE(r->threads[0].exited);
	EXPECT_EQ(r->threads[0].first_ns, 50);
	EXPECT_EQ(r->threads[1].lifetime_ns, 100 + 550);
	EXPECT_EQ(r->threads[2].lifetime_ns, 930);
	EXPECT_EQ(r->threads[2].first_ns, 70);
	EXPECT_EQ(r->threads[3].lifetime_ns, 0);
	EXPECT_TRUE(r->threads[3].exited);
	EXPECT_EQ(r->threads[4].lifetime_ns, 100 + 900);
	EXPECT_EQ(r->total_lifetime_ns, 950 + 650 + 930 + 1000);

	/* now = 0: the latest timestamp seen, 500. */
	r = report(self, 0);
	EXPECT_EQ(r->now_ns, 500);
	EXPECT_EQ(r->threads[0].lifetime_ns, 450);

	sci_finish(self->e, 600);
	r = report(self, 5000);	/* closed threads ignore now */
	EXPECT_EQ(r->threads[0].lifetime_ns, 550);
	EXPECT_TRUE(r->threads[0].exited);
	EXPECT_EQ(r->threads[0].last_ns, 600);
	EXPECT_EQ(r->threads[1].lifetime_ns, 100 + 150);
	EXPECT_EQ(r->threads[2].lifetime_ns, 530);
	EXPECT_EQ(r->threads[4].lifetime_ns, 100 + 500);
}

/*
 * Solo blocks' time set aside (sci_solo_begin()): per thread, the part of
 * its lifetime while a block admitted, for the interference figure only.
 * Blocks [100, 200) (ended by its END before its deadline), [500, 700)
 * (by its deadline, its END lost, the next BEGIN seen later) and [900,
 * 950) (ended by the trace's end, then its deadline).  tid 1 lives
 * through all three; tid 2 exits at 150, inside the first; tid 3 is born
 * at 600, inside the second; tid 4 exits at 300 and is folded.
 */
TEST_F(sci, solo_blocks_time_set_aside)
{
	struct sci_engine *e = self->e;
	const struct sci_result *f;
	struct sci_causes c = { .context = true };
	struct sci_report *r;

	ASSERT_EQ(sci_thread_seen(e, 1, 0), 0);
	ASSERT_EQ(sci_thread_seen(e, 2, 0), 0);
	ASSERT_EQ(sci_thread_seen(e, 4, 0), 0);
	sci_solo_begin(e, 100, 300);
	ASSERT_EQ(sci_thread_exit(e, 2, 150), 0);
	sci_solo_end(e, 200);
	ASSERT_EQ(sci_add(e, 1, 0, 4, 50, 250, &c), 0);
	ASSERT_EQ(sci_thread_exit(e, 4, 300), 0);
	ASSERT_EQ(sci_fold_thread(e, 4, 300), 1);
	sci_solo_begin(e, 500, 700);
	ASSERT_EQ(sci_thread_seen(e, 3, 600), 0);
	sci_solo_begin(e, 900, 950);
	c.waited_ns = 100;
	ASSERT_EQ(sci_add(e, 1, 0, 1, 200, 1000, &c), 0);
	ASSERT_EQ(sci_add(e, 1, 0, 2, 100, 140, &c), 0);
	ASSERT_EQ(sci_add(e, 1, 0, 3, 100, 1000, &c), 0);
	sci_finish(e, 1000);

	r = report(self, 0);
	f = sci_report_func(r, 1);
	ASSERT_TRUE(f);
	/* 1: 100 + 200 + 50; 2: 50; 3: 100 + 50; 4, folded: 100. */
	EXPECT_EQ(f->lifetime_ns, 1000 + 150 + 400 + 300);
	EXPECT_EQ(f->aside_ns, 350 + 50 + 150 + 100);
	EXPECT_EQ(f->interf.direct_ns, 300);
	EXPECT_NEAR(f->interference, 300.0 / (1850 - 650), 1e-12);
	/* SCI keeps every thread's whole lifetime. */
	EXPECT_NEAR(f->sci, (double)f->loss_ns / 1850, 1e-12);
}

/*
 * A replay's lost time (sci_lost()), [300, 500) and [700, 800): left out
 * of each thread's lifetime over the interval it lived, whenever that is
 * learnt.  tid 1 lives through both; tid 2's exit at 250, before the
 * first, comes only after it (a scan's, dated late): none of its time
 * is lost; tid 3 exits at 400, inside the first, then a second exit
 * moves its end to 600; tid 4 begins at 450 and
 * an execution takes its start back to 200; tid 5 is folded at 750.
 */
TEST_F(sci, lost_time_left_out_of_lifetimes)
{
	struct sci_engine *e = self->e;
	struct sci_report *r;

	ASSERT_EQ(sci_thread_seen(e, 1, 0), 0);
	ASSERT_EQ(sci_thread_seen(e, 2, 0), 0);
	ASSERT_EQ(sci_thread_seen(e, 3, 0), 0);
	ASSERT_EQ(sci_thread_seen(e, 5, 0), 0);
	ASSERT_EQ(sci_lost(e, 300, 500), 0);
	ASSERT_EQ(sci_lost(e, 400, 450), 0);	/* within: merged */
	ASSERT_EQ(sci_thread_exit(e, 2, 250), 0);
	ASSERT_EQ(sci_thread_exit(e, 3, 400), 0);
	/* A second exit moves 3's end over the rest of [300, 500). */
	ASSERT_EQ(sci_thread_exit(e, 3, 600), 0);
	ASSERT_EQ(sci_thread_seen(e, 4, 450), 0);
	ASSERT_EQ(sci_add(e, 1, 0, 4, 400, 600, NULL), 0);
	ASSERT_EQ(sci_add(e, 1, 0, 5, 100, 600, NULL), 0);
	ASSERT_EQ(sci_lost(e, 700, 800), 0);
	ASSERT_EQ(sci_thread_exit(e, 5, 750), 0);
	ASSERT_EQ(sci_fold_thread(e, 5, 750), 1);
	ASSERT_EQ(sci_add(e, 1, 0, 1, 100, 1000, NULL), 0);

	r = report(self, 1000);
	ASSERT_EQ(r->nr_threads, 4);
	EXPECT_EQ(r->threads[0].lifetime_ns, 1000 - 200 - 100);
	EXPECT_EQ(r->threads[1].lifetime_ns, 250);
	EXPECT_EQ(r->threads[2].lifetime_ns, 600 - 200);
	EXPECT_EQ(r->threads[3].lifetime_ns, 800 - 200 - 100);
	/* The folded thread's: 750 less [300, 500) and [700, 750). */
	EXPECT_EQ(r->total_lifetime_ns, 700 + 250 + 400 + 500 + 500);
	/* An empty span, and one that ends before it begins: nothing. */
	EXPECT_EQ(sci_lost(e, 900, 900), 0);
	EXPECT_EQ(sci_lost(e, 950, 920), 0);
	r = report(self, 1000);
	EXPECT_EQ(r->threads[0].lifetime_ns, 700);
}

/*
 * Many spans (a ring that drops every drain round): 2,000 of them, 5 to 40
 * ns long with gaps of 1 to 60, some meeting the last (merged); threads
 * that begin and exit at odd times among them.  Each lifetime is its
 * interval less the spans' time in it, as a walk of every span gives it.
 */
TEST_F(sci, many_lost_spans_are_each_counted_once)
{
	struct sci_engine *e = self->e;
	static uint64_t from[2000], to[2000];
	uint64_t ts = 100, lo, hi, want, x = 12345;
	struct sci_report *r;
	uint32_t i, j, n = 0;

	for (i = 0; i < 2000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ts += (x >> 33) % 60 + 1;
		/* One in ten meets the last: it extends it. */
		if (n && (x >> 20) % 10 == 0)
			ts = to[n - 1];
		ASSERT_EQ(sci_lost(e, ts, ts + 5 + (x >> 40) % 36), 0);
		if (n && ts <= to[n - 1]) {
			to[n - 1] = ts + 5 + (x >> 40) % 36;
		} else {
			from[n] = ts;
			to[n++] = ts + 5 + (x >> 40) % 36;
		}
		ts = to[n - 1];
	}
	for (i = 1; i <= 50; i++) {
		lo = i * 997 % (ts / 2);
		hi = ts / 2 + i * 1531 % (ts / 2);
		ASSERT_EQ(sci_thread_seen(e, i, lo), 0);
		ASSERT_EQ(sci_thread_exit(e, i, hi), 0);
	}
	r = report(self, ts);
	ASSERT_EQ(r->nr_threads, 50);
	for (i = 1; i <= 50; i++) {
		lo = i * 997 % (ts / 2);
		hi = ts / 2 + i * 1531 % (ts / 2);
		want = hi - lo;
		for (j = 0; j < n; j++) {
			uint64_t a = from[j] > lo ? from[j] : lo;
			uint64_t b = to[j] < hi ? to[j] : hi;

			if (b > a)
				want -= b - a;
		}
		EXPECT_EQ(r->threads[i - 1].lifetime_ns, want);
	}
}

/*
 * A ring's drops of one thread's records (sci_thread_lost()): tid 1
 * loses [100, 200), then [150, 300) (from the first's end), then [400,
 * 500) of which a replay's lost span [450, 480) is already out; tid 2 is
 * not held; tid 3's drop after its exit takes nothing, nor does one
 * before its start, but for the part after it.
 */
TEST_F(sci, a_threads_drops_leave_its_lifetime)
{
	struct sci_engine *e = self->e;
	struct sci_report *r;

	ASSERT_EQ(sci_thread_seen(e, 1, 0), 0);
	ASSERT_EQ(sci_thread_seen(e, 3, 50), 0);
	EXPECT_EQ(sci_thread_lost(e, 1, 100, 200), 100);
	EXPECT_EQ(sci_thread_lost(e, 1, 150, 300), 100);
	ASSERT_EQ(sci_lost(e, 450, 480), 0);
	EXPECT_EQ(sci_thread_lost(e, 1, 400, 500), 70);
	EXPECT_EQ(sci_thread_lost(e, 2, 100, 200), 0);
	EXPECT_EQ(sci_thread_lost(e, 3, 0, 60), 10);
	ASSERT_EQ(sci_thread_exit(e, 3, 600), 0);
	EXPECT_EQ(sci_thread_lost(e, 3, 700, 800), 0);

	r = report(self, 1000);
	ASSERT_EQ(r->nr_threads, 2);
	EXPECT_EQ(r->threads[0].lifetime_ns, 1000 - 200 - 100);
	EXPECT_EQ(r->threads[1].lifetime_ns, 550 - 10 - 30);
}

/*
 * A replay's lost span that finds no room (-ENOMEM) gives nothing back
 * of the threads' own drops it meets: tid 1's own [100, 300) stays out
 * whole.  Kept once memory is back, [150, 250) is counted once with it.
 */
TEST_F(sci, a_lost_span_without_room_gives_nothing_back)
{
	struct sci_engine *e = self->e;
	struct sci_report *r;

	ASSERT_EQ(sci_thread_seen(e, 1, 0), 0);
	EXPECT_EQ(sci_thread_lost(e, 1, 100, 300), 200);
	realloc_fails = true;
	EXPECT_EQ(sci_lost(e, 150, 250), -ENOMEM);
	realloc_fails = false;
	r = report(self, 1000);
	ASSERT_EQ(r->nr_threads, 1);
	EXPECT_EQ(r->threads[0].lifetime_ns, 1000 - 200);
	ASSERT_EQ(sci_lost(e, 150, 250), 0);
	r = report(self, 1000);
	EXPECT_EQ(r->threads[0].lifetime_ns, 1000 - 200);
}

/*
 * A thread's own lost span past its end: the exit moves to the span's
 * end, and the lifetime gains nothing.  Tid 1's [100, 900) with its exit
 * dated 500 (a scan's) keeps [0, 100); tid 2's [100, 900), read by a
 * report at 600 (ispotd's window end), keeps [0, 100), at 1000 [0, 100)
 * and [900, 1000).
 */
TEST_F(sci, a_threads_own_lost_time_past_its_end_adds_nothing)
{
	struct sci_engine *e = self->e;
	struct sci_report *r;

	ASSERT_EQ(sci_thread_seen(e, 1, 0), 0);
	ASSERT_EQ(sci_thread_seen(e, 2, 0), 0);
	EXPECT_EQ(sci_thread_lost(e, 1, 100, 900), 800);
	EXPECT_EQ(sci_thread_lost(e, 2, 100, 900), 800);
	ASSERT_EQ(sci_thread_exit(e, 1, 500), 0);
	r = report(self, 600);
	EXPECT_EQ(r->threads[0].lifetime_ns, 500 - 400);
	EXPECT_EQ(r->threads[1].lifetime_ns, 600 - 500);
	r = report(self, 1000);
	EXPECT_EQ(r->threads[0].lifetime_ns, 500 - 400);
	EXPECT_EQ(r->threads[1].lifetime_ns, 1000 - 800);
}

/*
 * A replay's lost span [150, 300) after tid 1's own [100, 200) takes
 * [150, 200) once; so do [150, 300) and [310, 700) of tid 2's own [100,
 * 500) and [500, 600), told as [200, 600).
 */
TEST_F(sci, a_replays_lost_span_after_a_threads_own_takes_it_once)
{
	struct sci_engine *e = self->e;
	struct sci_report *r;

	ASSERT_EQ(sci_thread_seen(e, 1, 0), 0);
	ASSERT_EQ(sci_thread_seen(e, 2, 0), 0);
	EXPECT_EQ(sci_thread_lost(e, 1, 100, 200), 100);
	/* Two spans that meet are one: both reach past the replay's. */
	EXPECT_EQ(sci_thread_lost(e, 2, 100, 500), 400);
	EXPECT_EQ(sci_thread_lost(e, 2, 200, 600), 100);
	ASSERT_EQ(sci_lost(e, 150, 300), 0);
	ASSERT_EQ(sci_lost(e, 310, 700), 0);
	r = report(self, 1000);
	EXPECT_EQ(r->threads[0].lifetime_ns, 1000 - 200 - 390);
	EXPECT_EQ(r->threads[1].lifetime_ns, 1000 - 600);
}

/*
 * A thread's own lost time and solo blocks: tid 2's [300, 500) inside a
 * block admitting [200, 600) comes off its lifetime and off the block's
 * share of it, not twice off the time outside the block; so does tid 3's
 * [300, 600) in a block that ends at 400 (its deadline 1,000), and tid
 * 4's [300, 500) told after its block [200, 600) ended.
 */
TEST_F(sci, a_threads_own_lost_time_in_a_solo_block_is_taken_once)
{
	struct sci_engine *e = self->e;
	struct sci_causes c = { .context = true };
	const struct sci_result *f;
	struct sci_report *r;

	ASSERT_EQ(sci_thread_seen(e, 2, 0), 0);
	sci_solo_begin(e, 200, 600);
	EXPECT_EQ(sci_thread_lost(e, 2, 300, 500), 200);
	sci_solo_end(e, 600);
	ASSERT_EQ(sci_add(e, 1, 0, 2, 100, 1000, &c), 0);
	r = report(self, 1000);
	f = sci_report_func(r, 1);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->lifetime_ns, 1000 - 200);
	EXPECT_EQ(f->aside_ns, 400 - 200);

	ASSERT_EQ(sci_thread_seen(e, 3, 1000), 0);
	sci_solo_begin(e, 1200, 2000);
	EXPECT_EQ(sci_thread_lost(e, 3, 1300, 1600), 300);
	sci_solo_end(e, 1400);
	ASSERT_EQ(sci_add(e, 2, 0, 3, 100, 2000, &c), 0);

	ASSERT_EQ(sci_thread_seen(e, 4, 2000), 0);
	sci_solo_begin(e, 2200, 2600);
	sci_solo_end(e, 2600);
	EXPECT_EQ(sci_thread_lost(e, 4, 2300, 2500), 200);
	ASSERT_EQ(sci_add(e, 3, 0, 4, 100, 3000, &c), 0);
	r = report(self, 3000);
	f = sci_report_func(r, 2);
	ASSERT_TRUE(f);
	/* Tid 3 lives on through tid 4's block: its share is whole. */
	EXPECT_EQ(f->lifetime_ns, 2000 - 300);
	EXPECT_EQ(f->aside_ns, 200 - 100 + 400);
	f = sci_report_func(r, 3);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->lifetime_ns, 1000 - 200);
	EXPECT_EQ(f->aside_ns, 400 - 200);
}

/*
 * A replay's lost span given back inside a solo block: tid 1's own [100,
 * 200) and a replay's [150, 300), all in a block admitting [0, 1000):
 * each time once off the lifetime and once off the block's share.
 */
TEST_F(sci, a_given_back_span_in_a_solo_block_is_taken_once)
{
	struct sci_engine *e = self->e;
	struct sci_causes c = { .context = true };
	const struct sci_result *f;
	struct sci_report *r;

	ASSERT_EQ(sci_thread_seen(e, 1, 0), 0);
	sci_solo_begin(e, 0, 1000);
	EXPECT_EQ(sci_thread_lost(e, 1, 100, 200), 100);
	ASSERT_EQ(sci_lost(e, 150, 300), 0);
	sci_solo_end(e, 1000);
	ASSERT_EQ(sci_add(e, 1, 0, 1, 100, 1000, &c), 0);
	r = report(self, 1000);
	f = sci_report_func(r, 1);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->lifetime_ns, 1000 - 200);
	EXPECT_EQ(f->aside_ns, 1000 - 200);
}

/*
 * Lost time inside a solo block's admission comes off a thread's lifetime
 * once, not again from the time set aside: the blocks [200, 600) and
 * [900, 2000), still admitting at the report, lost [300, 500) and [950,
 * 980).  tid 2 exits at 550, inside the first (its share taken as it
 * closes); 1 and 3 live on (theirs at the first's end, and the open
 * one's when the report reads it).
 */
TEST_F(sci, lost_time_set_aside_once)
{
	struct sci_engine *e = self->e;
	struct sci_causes c = { .context = true };
	const struct sci_result *f;
	struct sci_report *r;

	ASSERT_EQ(sci_thread_seen(e, 1, 0), 0);
	ASSERT_EQ(sci_thread_seen(e, 2, 0), 0);
	ASSERT_EQ(sci_thread_seen(e, 3, 0), 0);
	sci_solo_begin(e, 200, 600);
	ASSERT_EQ(sci_lost(e, 300, 500), 0);
	ASSERT_EQ(sci_thread_exit(e, 2, 550), 0);
	sci_solo_end(e, 600);
	sci_solo_begin(e, 900, 2000);
	ASSERT_EQ(sci_lost(e, 950, 980), 0);
	ASSERT_EQ(sci_add(e, 1, 0, 1, 100, 1000, &c), 0);
	ASSERT_EQ(sci_add(e, 1, 0, 2, 100, 140, &c), 0);
	ASSERT_EQ(sci_add(e, 1, 0, 3, 100, 1000, &c), 0);

	r = report(self, 1000);
	f = sci_report_func(r, 1);
	ASSERT_TRUE(f);
	/* 1 and 3: 1000 - 200 - 30; 2: 550 - 200. */
	EXPECT_EQ(f->lifetime_ns, 2 * 770 + 350);
	/* 1 and 3: 400 - 200, then 100 - 30; 2: 350 - 200. */
	EXPECT_EQ(f->aside_ns, 2 * 270 + 150);
}

/*
 * ispotd's windows: the next window's engine is seeded with the minima of
 * the one before, so the loss is against the fastest execution since the
 * start; a block that was only seeded is not reported; and a thread traced
 * in two armed intervals counts the two intervals, not the gap.
 */
TEST_F(sci, seeded_minima_and_armed_intervals)
{
	/* The first window's engine; the fixture's is the second's. */
	struct sci_engine *w1 = sci_new(), *w2 = self->e;
	const uint64_t d1[] = { 10, 40 }, d2[] = { 30, 50 };
	struct sci_block_min m[2];
	const struct sci_result *b;
	struct sci_report *r;

	ASSERT_TRUE(w1);
	run(w1, 1, 0, 7, 100, d1, 2);
	run(w1, 2, 0, 7, 300, d1, 1);
	sci_finish(w1, 400);
	ASSERT_EQ(sci_nr_blocks(w1), 2);
	sci_minima(w1, m);
	ASSERT_EQ(sci_seed(w2, &m[0]), 0);
	ASSERT_EQ(sci_seed(w2, &m[1]), 0);

	/* Two armed intervals of 100 ns each, a gap of 800 between. */
	ASSERT_EQ(sci_thread_seen(w2, 7, 1000), 0);
	run(w2, 1, 0, 7, 1010, d2, 1);
	sci_finish(w2, 1100);
	ASSERT_EQ(sci_thread_seen(w2, 7, 1900), 0);
	run(w2, 1, 0, 7, 1910, &d2[1], 1);
	sci_finish(w2, 2000);

	r = report(self, 0);
	EXPECT_EQ(r->nr_blocks, 1);
	EXPECT_EQ(r->nr_funcs, 1);
	EXPECT_FALSE(sci_report_block(r, 2, 0));
	b = sci_report_block(r, 1, 0);
	ASSERT_TRUE(b);
	/* d_min 10 from the first window: loss = 80 - 2 * 10. */
	EXPECT_EQ(b->min_ns, 10);
	EXPECT_EQ(b->loss_ns, 60);
	EXPECT_EQ(b->lifetime_ns, 200);
	EXPECT_NEAR(b->sci, 0.3, EPS);
	EXPECT_EQ(sci_report_func(r, 1)->nr_keys, 1);
	sci_free(w1);
}

/*
 * sci_limit_blocks(): past the engine's bound, or a function's share, a
 * new key gets no block (sci_add() -ENOSPC, sci_unscored() counts it, a
 * seed is -ENOSPC) while the keys held go on; a function's first block
 * is never refused.  A block's minima say how many engines in a row
 * stored executions but none of its own; an engine that stored none ages
 * nothing.
 */
TEST_F(sci, blocks_bounded_and_idle_counted)
{
	struct sci_engine *e = self->e, *next = sci_new(), *last = sci_new();
	struct sci_block_min m[6];
	uint64_t key;

	ASSERT_TRUE(next && last);
	sci_limit_blocks(e, 4, 3);
	for (key = 0; key < 5; key++)
		EXPECT_EQ(sci_add(e, 1, key, 7, 10, 100 + key * 10, NULL),
			  key < 3 ? 0 : -ENOSPC);
	EXPECT_EQ(sci_unscored(e), 2);
	EXPECT_EQ(sci_add(e, 2, 0, 7, 10, 200, NULL), 0);
	EXPECT_EQ(sci_add(e, 2, 1, 7, 10, 210, NULL), -ENOSPC);
	/* Its first block, past the engine's bound. */
	EXPECT_EQ(sci_add(e, 3, 0, 7, 10, 220, NULL), 0);
	EXPECT_EQ(sci_nr_blocks(e), 5);
	EXPECT_EQ(sci_add(e, 1, 2, 7, 10, 230, NULL), 0);
	EXPECT_EQ(sci_unscored(e), 3);
	sci_minima(e, m);
	EXPECT_EQ(m[0].idle_windows, 0);

	/* The next engine, bounded at 2: seeds past it refused. */
	sci_limit_blocks(next, 2, 0);
	EXPECT_EQ(sci_seed(next, &m[0]), 0);
	EXPECT_EQ(sci_seed(next, &m[1]), 0);
	EXPECT_EQ(sci_seed(next, &m[2]), -ENOSPC);
	EXPECT_EQ(sci_seed(next, &m[3]), 0);	/* function 2's first */
	EXPECT_EQ(sci_nr_blocks(next), 3);
	/* It stores one execution, of function 2: the others age. */
	EXPECT_EQ(sci_add(next, 2, 0, 7, 10, 300, NULL), 0);
	sci_minima(next, m);
	EXPECT_EQ(m[0].idle_windows, 1);
	EXPECT_EQ(m[1].idle_windows, 1);
	EXPECT_EQ(m[2].idle_windows, 0);
	/*
	 * An engine that stores nothing ages nothing; one whose calls the
	 * bound refused does (a full engine of seeds makes room).
	 */
	sci_limit_blocks(last, 1, 0);
	EXPECT_EQ(sci_seed(last, &m[0]), 0);
	sci_minima(last, m);
	EXPECT_EQ(m[0].idle_windows, 1);
	EXPECT_EQ(sci_add(last, m[0].func_id, 99, 7, 10, 400, NULL), -ENOSPC);
	sci_minima(last, m);
	EXPECT_EQ(m[0].idle_windows, 2);
	sci_free(last);
	sci_free(next);
}

/* Sorted by SCI descending, equal SCIs by loss descending. */
TEST_F(sci, report_order)
{
	const uint64_t a[] = { 10, 20 }, b[] = { 10, 30 }, c[] = { 10, 30 };
	struct sci_report *r;
	size_t i;

	thread(self->e, 1, 0, 1000);
	thread(self->e, 2, 0, 2000);
	run(self->e, 1, 0, 1, 0, a, 2);	/* 10 / 1000 */
	run(self->e, 2, 0, 2, 0, b, 2);	/* 20 / 2000, same SCI, more loss */
	run(self->e, 3, 0, 1, 100, c, 2);	/* 20 / 1000 */
	r = report(self, 0);
	ASSERT_EQ(r->nr_blocks, 3);
	EXPECT_EQ(r->blocks[0].func_id, 3);
	EXPECT_EQ(r->blocks[1].func_id, 2);
	EXPECT_EQ(r->blocks[2].func_id, 1);
	ASSERT_EQ(r->nr_funcs, 3);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(r->funcs[i].func_id, r->blocks[i].func_id);
}

TEST_F(sci, empty_engine)
{
	struct sci_report *r;

	r = report(self, 0);
	EXPECT_EQ(r->nr_blocks, 0);
	EXPECT_EQ(r->nr_funcs, 0);
	EXPECT_EQ(r->nr_threads, 0);
	EXPECT_TRUE(sci_report_block(r, 1, 0) == NULL);
	/* Freed here, not by the teardown, to see each free alone. */
	sci_report_free(self->r);
	self->r = NULL;
	sci_finish(self->e, 10);
	sci_free(self->e);
	self->e = NULL;
	sci_free(NULL);
	sci_report_free(NULL);
}

/* ---- random trace against a brute-force recomputation ---- */

#define P_THREADS	7
#define P_FUNCS		5
#define P_KEYS		3
#define P_BLOCKS	(P_FUNCS * P_KEYS)
#define P_EVENTS	30000

struct p_event {
	int t, f, k;
	uint64_t d, end;
	bool caused;
	uint64_t c[SCI_NR_CAUSES];
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool near_rel(uint64_t got, uint64_t want)
{
	return fabs((double)got - (double)want) <= want * HIST_REL_ERROR;
}

TEST_F(sci, random_trace_matches_brute_force)
{
	static struct p_event ev[P_EVENTS];
	uint64_t from[P_THREADS], to[P_THREADS], life[P_THREADS];
	uint64_t dmin[P_BLOCKS], sum[P_BLOCKS], n[P_BLOCKS], dmax[P_BLOCKS];
	uint64_t bt_n[P_BLOCKS][P_THREADS], bt_s[P_BLOCKS][P_THREADS];
	uint64_t nc[P_BLOCKS], cs[P_BLOCKS][SCI_NR_CAUSES];
	uint64_t ref_d[P_BLOCKS], ref[P_BLOCKS][SCI_NR_CAUSES];
	uint64_t end = 0, *sorted;
	struct sci_report *r;
	int i, b, t, k, f;

	sorted = malloc(P_EVENTS * sizeof(*sorted));
	ASSERT_TRUE(sorted);
	memset(bt_n, 0, sizeof(bt_n));
	memset(bt_s, 0, sizeof(bt_s));
	memset(n, 0, sizeof(n));
	memset(sum, 0, sizeof(sum));
	memset(dmax, 0, sizeof(dmax));
	memset(nc, 0, sizeof(nc));
	memset(cs, 0, sizeof(cs));
	for (b = 0; b < P_BLOCKS; b++)
		dmin[b] = ref_d[b] = UINT64_MAX;

	for (t = 0; t < P_THREADS; t++) {
		from[t] = rng() % 1000000;
		to[t] = from[t] + 2000000 + rng() % 50000000;
		if (to[t] > end)
			end = to[t];
		ASSERT_EQ(sci_thread_seen(self->e, 100 + t, from[t]), 0);
	}
	end += 1000;
	for (t = 0; t < P_THREADS; t++)	/* odd threads never exit */
		life[t] = (t & 1 ? end : to[t]) - from[t];

	for (i = 0; i < P_EVENTS; i++) {
		struct p_event *p = &ev[i];
		struct sci_causes c = { 0 };

		p->t = rng() % P_THREADS;
		p->f = rng() % P_FUNCS;
		/* The last function has no key, like an unkeyed probe. */
		p->k = p->f == P_FUNCS - 1 ? 0 : rng() % P_KEYS;
		/* Each key its own base work, plus interference noise. */
		p->d = 1000 * (p->f + 1) + 20000 * p->k +
		       (uint64_t)(-3000.0 * log(((rng() >> 11) + 0.5) /
						9007199254740992.0));
		if (p->d > 1000000)
			p->d = 1000000;
		p->end = from[p->t] + p->d +
			 rng() % (to[p->t] - from[p->t] - p->d);
		p->caused = rng() % 4 != 0;
		c.futex_ns = rng() % (p->d + 1);
		c.blocked_ns = rng() % (p->d - c.futex_ns + 1);
		c.runqueue_ns = rng() % (p->d - c.futex_ns - c.blocked_ns + 1);
		c.oncpu_ns = rng();	/* ignored: recomputed */
		p->c[SCI_CAUSE_FUTEX] = c.futex_ns;
		p->c[SCI_CAUSE_BLOCKED] = c.blocked_ns;
		p->c[SCI_CAUSE_RUNQUEUE] = c.runqueue_ns;
		p->c[SCI_CAUSE_ONCPU] = p->d - c.futex_ns - c.blocked_ns -
					c.runqueue_ns;
		ASSERT_EQ(sci_add(self->e, 1 + p->f, p->k ? 0x1000 + p->k : 0,
				  100 + p->t, p->d, p->end,
				  p->caused ? &c : NULL), 0);

		b = p->f * P_KEYS + p->k;
		n[b]++;
		sum[b] += p->d;
		if (p->d < dmin[b])
			dmin[b] = p->d;
		if (p->d > dmax[b])
			dmax[b] = p->d;
		bt_n[b][p->t]++;
		bt_s[b][p->t] += p->d;
		if (p->caused) {
			nc[b]++;
			for (k = 0; k < SCI_NR_CAUSES; k++)
				cs[b][k] += p->c[k];
			if (p->d < ref_d[b]) {
				ref_d[b] = p->d;
				memcpy(ref[b], p->c, sizeof(ref[b]));
			}
		}
	}
	for (t = 0; t < P_THREADS; t++)
		if (!(t & 1))
			ASSERT_EQ(sci_thread_exit(self->e, 100 + t, to[t]), 0);
	sci_finish(self->e, end);
	EXPECT_EQ(sci_nr_events(self->e), P_EVENTS);

	r = report(self, 0);
	for (t = 0; t < P_THREADS; t++)
		EXPECT_EQ(r->threads[t].lifetime_ns, life[t]);

	for (b = 0; b < P_BLOCKS; b++) {
		const struct sci_result *res;
		uint64_t loss = 0, lt = 0, nsorted = 0;
		double worst = -1;
		int64_t known = 0;
		int wt = -1;

		if (!n[b])
			continue;
		f = b / P_KEYS;
		k = b % P_KEYS;
		res = sci_report_block(r, 1 + f, k ? 0x1000 + k : 0);
		ASSERT_TRUE(res);
		EXPECT_EQ(res->calls, n[b]);
		EXPECT_EQ(res->min_ns, dmin[b]);
		EXPECT_EQ(res->max_ns, dmax[b]);
		EXPECT_EQ(res->sum_ns, sum[b]);
		for (t = 0; t < P_THREADS; t++) {
			uint64_t l = bt_s[b][t] - bt_n[b][t] * dmin[b];
			const struct sci_thread_score *s;

			if (!bt_n[b][t])
				continue;
			loss += l;
			lt += life[t];
			s = sci_result_thread(r, res, 100 + t);
			ASSERT_TRUE(s);
			EXPECT_EQ(s->loss_ns, l);
			EXPECT_NEAR(s->sci, (double)l / life[t], EPS);
			if ((double)l / life[t] > worst) {
				worst = (double)l / life[t];
				wt = t;
			}
		}
		EXPECT_EQ(res->loss_ns, loss);
		EXPECT_EQ(res->lifetime_ns, lt);
		EXPECT_NEAR(res->sci, (double)loss / lt, EPS);
		EXPECT_EQ(res->worst_tid, 100 + wt);
		EXPECT_NEAR(res->sci_worst_thread, worst, EPS);

		/* Cause split, by the definition in sci.h. */
		EXPECT_EQ(res->caused_calls, nc[b]);
		for (k = 0; k < SCI_NR_CAUSES && nc[b]; k++) {
			int64_t rk = ref_d[b] == dmin[b] ? (int64_t)ref[b][k] :
				     llround((double)ref[b][k] *
					     ((double)dmin[b] / ref_d[b]));

			EXPECT_EQ(res->cause_loss_ns[k],
				  (int64_t)cs[b][k] - (int64_t)nc[b] * rk);
			known += res->cause_loss_ns[k];
		}
		EXPECT_EQ(known + res->unknown_loss_ns, (int64_t)loss);

		/* Percentiles against the exact distribution. */
		for (i = 0; i < P_EVENTS; i++)
			if (ev[i].f * P_KEYS + ev[i].k == b)
				sorted[nsorted++] = ev[i].d;
		qsort(sorted, nsorted, sizeof(*sorted), cmp_u64);
		EXPECT_TRUE(near_rel(res->p50_ns,
				     sorted[(nsorted * 50 + 99) / 100 - 1]));
		EXPECT_TRUE(near_rel(res->p99_ns,
				     sorted[(nsorted * 99 + 99) / 100 - 1]));
	}

	/* Functions: the sum of their keys, over their distinct threads. */
	for (f = 0; f < P_FUNCS; f++) {
		const struct sci_result *res = sci_report_func(r, 1 + f);
		uint64_t loss = 0, lt = 0, calls = 0, tl;
		uint32_t threads = 0;
		double worst = -1;
		int wt = -1;

		ASSERT_TRUE(res);
		for (t = 0; t < P_THREADS; t++) {
			bool ran = false;

			tl = 0;
			for (k = 0; k < P_KEYS; k++) {
				b = f * P_KEYS + k;
				if (!bt_n[b][t])
					continue;
				ran = true;
				calls += bt_n[b][t];
				tl += bt_s[b][t] - bt_n[b][t] * dmin[b];
			}
			if (!ran)
				continue;
			threads++;
			loss += tl;
			lt += life[t];
			if ((double)tl / life[t] > worst) {
				worst = (double)tl / life[t];
				wt = t;
			}
		}
		EXPECT_EQ(res->calls, calls);
		EXPECT_EQ(res->threads, threads);
		EXPECT_EQ(res->loss_ns, loss);
		EXPECT_EQ(res->lifetime_ns, lt);
		EXPECT_NEAR(res->sci, (double)loss / lt, EPS);
		EXPECT_EQ(res->worst_tid, 100 + wt);
		EXPECT_NEAR(res->sci_worst_thread, worst, EPS);
	}

	for (i = 1; i < (int)r->nr_blocks; i++)
		EXPECT_TRUE(r->blocks[i - 1].sci >= r->blocks[i].sci);
	free(sorted);
}

/*
 * 10 blocks x 4 threads: once every pair exists, a million more events
 * allocate nothing, and the tables keep their size.
 */
TEST_F(sci, memory_does_not_grow_with_events)
{
	struct sci_report *r;
	size_t mem;
	uint64_t ts = 0;
	int i;

	for (i = 0; i < 40; i++)
		ASSERT_EQ(sci_add(self->e, i % 10, 0, i / 10, 100, ts += 100,
				  NULL), 0);
	mem = sci_mem_bytes(self->e);
	ASSERT_EQ(sci_nr_blocks(self->e), 10);
	ASSERT_EQ(sci_nr_threads(self->e), 4);
	ASSERT_EQ(sci_nr_block_threads(self->e), 40);
	for (i = 0; i < 1000000; i++) {
		uint64_t d = 100 + rng() % 1000;

		ts += d;
		ASSERT_EQ(sci_add(self->e, rng() % 10, 0, rng() % 4, d, ts,
				  NULL), 0);
	}
	EXPECT_EQ(sci_mem_bytes(self->e), mem);
	EXPECT_EQ(sci_nr_blocks(self->e), 10);
	EXPECT_EQ(sci_nr_threads(self->e), 4);
	EXPECT_EQ(sci_nr_block_threads(self->e), 40);
	EXPECT_EQ(sci_nr_events(self->e), 1000040);
	/* Bounded by blocks x (histogram + pairs), whatever the event count. */
	EXPECT_LT(mem, 10 * (sizeof(struct hist) + 4096) + 65536);
	TH_LOG("10 blocks x 4 threads: %zu bytes", mem);
	r = report(self, 0);
	EXPECT_EQ(r->nr_blocks, 10);
}

/* Tables double correctly: many blocks and threads, all found again. */
TEST_F(sci, tables_grow)
{
	struct sci_report *r;
	uint64_t ts = 0;
	int i;

	/* Same key under different functions, and vice versa. */
	for (i = 0; i < 3000; i++) {
		ASSERT_EQ(sci_add(self->e, i % 300, i / 300, 1 + i % 257,
				  10 + i, ts += 10000, NULL), 0);
		ASSERT_EQ(sci_add(self->e, i % 300, i / 300, 1 + i % 257,
				  20 + i, ts += 10000, NULL), 0);
	}
	EXPECT_EQ(sci_nr_blocks(self->e), 3000);
	EXPECT_EQ(sci_nr_threads(self->e), 257);
	EXPECT_EQ(sci_nr_block_threads(self->e), 3000);
	r = report(self, 0);
	EXPECT_EQ(r->nr_funcs, 300);
	for (i = 0; i < 3000; i++) {
		const struct sci_result *b = sci_report_block(r, i % 300,
							      i / 300);

		ASSERT_TRUE(b);
		EXPECT_EQ(b->calls, 2);
		EXPECT_EQ(b->min_ns, 10 + i);
		EXPECT_EQ(b->loss_ns, 10);
	}
	EXPECT_EQ(sci_report_func(r, 7)->nr_keys, 10);
	EXPECT_EQ(sci_report_func(r, 7)->loss_ns, 100);
}

/*
 * The hot table is only a cache, so nothing else sees its alignment: a
 * set off a cache line's boundary costs a second line on a hit in its
 * second way, and calloc() gives 16 bytes.  Asked at its first size and
 * at every size it grows to.
 */
TEST_F(sci, the_hot_table_sits_on_cache_lines_as_it_grows)
{
	const size_t line = sizeof(struct sci_hot) * SCI_HOT_WAYS;
	unsigned int bits = self->e->hot_bits, sizes = 1;
	uint64_t ts = 0;
	int i;

	EXPECT_EQ((uintptr_t)self->e->hot % line, 0);
	for (i = 0; i < 20000; i++) {
		ASSERT_EQ(sci_add(self->e, i % 500, i / 500, 1 + i % 97,
				  10 + i, ts += 1000, NULL), 0);
		if (self->e->hot_bits == bits)
			continue;
		bits = self->e->hot_bits;
		sizes++;
		EXPECT_EQ((uintptr_t)self->e->hot % line, 0);
	}
	TH_LOG("%u sizes, the last 2^%u slots", sizes, bits);
	/* 20,000 pairs: from the first size to 2^16 slots, seven in all. */
	EXPECT_GE(sizes, 7);
}

TEST_HARNESS_MAIN
