// SPDX-License-Identifier: GPL-2.0
/*
 * The interference figure (analysis/interference.c) and the context the
 * timeline gives each call (analysis/timeline.c, "Context"): hand-built
 * calls and record sequences with hand-computed answers.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ispot_test.h"
#include "analysis/interference.h"
#include "analysis/pipeline.h"
#include "analysis/timeline.h"
#include "wait_records.h"

#define FUTEX_WAIT_PRIVATE	128
#define FUTEX_WAKE_PRIVATE	129
#define ETIMEDOUT_RET		((uint64_t)-110)
#define LOCK_A			0x601040
#define SP0			0x7ffd00001008ULL

static void call(struct interf_acc *a, uint64_t d, uint64_t waited,
		 uint64_t rq, uint64_t rq_program, uint64_t others)
{
	struct interf_call c = {
		.duration_ns = d, .waited_ns = waited, .runqueue_ns = rq,
		.rq_program_ns = rq_program, .others_ns = others,
	};

	interf_add(a, &c);
}

/* Each test starts from a fresh accumulator. */
FIXTURE(interf) {
	struct interf_acc a;
};

FIXTURE_SETUP(interf)
{
	interf_init(&self->a);
}

FIXTURE_TEARDOWN(interf)
{
	/* a plain struct: nothing to free */
}

/* Alone, a function whose work varies by 10x has no interference. */
TEST_F(interf, solo_calls_are_the_reference)
{
	struct interf_estimate est;
	int i;

	for (i = 0; i < 40; i++)
		call(&self->a, 100 + 25 * (i % 37), 0, 0, 0, 0);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_SOLO);
	EXPECT_EQ(est.solo_calls, 40);
	EXPECT_EQ(est.loss_ns, 0);
	EXPECT_EQ(est.bound_ns, 0);
	/* Beside other threads, 200 ns more each: that is interference. */
	for (i = 0; i < 10; i++)
		call(&self->a, 100 + 25 * (i % 37) + 200, 0, 0, 0, 500);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_SOLO);
	EXPECT_EQ(est.solo_calls, 40);
	/* sum of the ten rests minus ten solo means (100 + 25 * 18.5ish) */
	EXPECT_GT(est.loss_ns, 10 * 200 - 10 * 25 * 10);
	EXPECT_LT(est.loss_ns, 10 * 200 + 10 * 25 * 10);
}

TEST_F(interf, waits_others_ended_are_interference_and_other_cpu_users_external)
{
	struct interf_estimate est;

	/* 1000 ns: 300 waiting for a lock, 200 run-queue (50 behind ours). */
	call(&self->a, 1000, 300, 200, 50, 1000);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.direct_ns, 350);
	EXPECT_EQ(est.external_ns, 150);
	/* One call: no reference, so the measured waits are the floor. */
	EXPECT_EQ(est.ref, INTERF_REF_NONE);
	EXPECT_EQ(est.loss_ns, 350);
	EXPECT_EQ(est.bound_ns, 350);	/* one rest: none above its min */
	/* Parts never add up past the duration. */
	call(&self->a, 100, 300, 200, 250, 0);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.direct_ns, 350 + 100);
	EXPECT_EQ(est.external_ns, 150);
}

/*
 * Rest = 1000 + 500 e, e from 0.1 to 2: the line's intercept (1000) is
 * held at the fastest rest seen (1050), never below what was measured.
 */
TEST_F(interf, fit_at_zero_exposure_without_solo_calls)
{
	struct interf_estimate est;
	uint64_t want = 0;
	int i;

	for (i = 0; i < 200; i++) {
		uint64_t e10 = 1 + i % 20;	/* exposure 0.1 .. 2.0 */
		uint64_t d = 100 + 5 * e10;

		/* others = e * duration, in ns x threads */
		call(&self->a, d * 10, 0, 0, 0, e10 * d);
		want += 5 * e10 * 10;
	}
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_FIT);
	EXPECT_EQ(est.solo_calls, 0);
	EXPECT_NEAR(est.ref_ns, 1050, 1);
	EXPECT_NEAR((double)est.loss_ns, (double)(want - 200 * 50), 100);
}

/*
 * A device that saturates: the rest grows by 400 ns per thread beside it
 * up to two, then stays at 1800 however many more run, and most calls
 * run beside seven.  The line goes through the calls near e = 0 only
 * (e <= 2.5), so it finds the own time (1000); one through all calls,
 * pulled by the crowded ones, would have put it near 1700 and called
 * the queueing own work.
 */
TEST_F(interf, fit_goes_through_the_calls_near_zero_exposure)
{
	static const uint64_t e10s[] = { 10, 15, 20, 25 };
	struct interf_estimate est;
	int i;

	/* Too few solo calls to judge by, but the fastest rest is theirs. */
	for (i = 0; i < 20; i++)
		call(&self->a, 1000, 0, 0, 0, 0);
	for (i = 0; i < 400; i++) {
		uint64_t e10 = e10s[i % 4], rest = 1000 + 40 * e10;

		call(&self->a, rest, 0, 0, 0, e10 * rest / 10);
	}
	for (i = 0; i < 4000; i++)
		call(&self->a, 1800 + i % 3, 0, 0, 0, 7 * (1800 + i % 3));
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_FIT);
	EXPECT_EQ(est.fit_calls, 420);
	EXPECT_NEAR(est.ref_ns, 1000, 5);
}

/*
 * Two threads always beside each other: every call at e = 1, near zero
 * but all at one exposure, so a slope would be noise: no reference.
 */
TEST_F(interf, fit_needs_exposures_that_vary)
{
	struct interf_estimate est;
	int i;

	for (i = 0; i < 500; i++)
		call(&self->a, 1000 + 100 * (i % 7), 0, 0, 0, 1000 + 100 * (i % 7) +
		     (i % 2));
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_NONE);
	EXPECT_GT(est.bound_ns, est.loss_ns);
}

/*
 * Two threads: a few calls near e = 0 (too few solo ones), the rest at
 * e = 1.  The calls near zero anchor the line, however little the
 * exposures spread: 40 of 1040 calls.
 */
TEST_F(interf, calls_near_zero_exposure_anchor_the_fit)
{
	struct interf_estimate est;
	int i;

	for (i = 0; i < 40; i++)	/* e = 0.1: 1000 */
		call(&self->a, 1000, 0, 0, 0, 100);
	for (i = 0; i < 1000; i++)	/* e = 1: 1300 */
		call(&self->a, 1300, 0, 0, 0, 1300);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_FIT);
	EXPECT_NEAR(est.ref_ns, 1000, 40);
	EXPECT_NEAR((double)est.loss_ns,
		    40.0 * 1000 + 1000.0 * 1300 - 1040.0 * est.ref_ns,
		    1000);
}

/* Always beside others, never alone: a floor and a ceiling, no more. */
TEST_F(interf, no_evidence_gives_a_bound)
{
	struct interf_estimate est, sum;
	struct interf_acc b;
	int i;

	for (i = 0; i < 50; i++)
		call(&self->a, 100 + 10 * (i % 10), 20, 0, 0, 4 * 200);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_NONE);
	EXPECT_EQ(est.loss_ns, 50 * 20);
	/* rests 80..170, min 80: 50 * 45 above it */
	EXPECT_EQ(est.bound_ns, 50 * 20 + 50 * 45);

	/* A function with this key and a solo-judged one is bounded. */
	interf_init(&b);
	for (i = 0; i < 40; i++)
		call(&b, 300, 0, 0, 0, 0);
	memset(&sum, 0, sizeof(sum));
	interf_estimate(&b, &est);
	interf_estimate_add(&sum, &est);
	EXPECT_EQ(sum.ref, INTERF_REF_SOLO);
	interf_estimate(&self->a, &est);
	interf_estimate_add(&sum, &est);
	EXPECT_EQ(sum.ref, INTERF_REF_NONE);
	EXPECT_EQ(sum.calls, 90);
	EXPECT_EQ(sum.solo_calls, 40);
	EXPECT_EQ(sum.loss_ns, 50 * 20);
	EXPECT_EQ(sum.bound_ns, 50 * 20 + 50 * 45);
}

/*
 * A loop that runs until a deadline does less of its own work when it
 * was preempted: the bound's floor is the fastest rest of calls that
 * waited for nothing, not the 100 ns left of a preempted one.
 */
TEST_F(interf, bound_floor_from_calls_that_waited_for_nothing)
{
	struct interf_estimate est;
	int i;

	for (i = 0; i < 20; i++)
		call(&self->a, 1000 + 10 * (i % 2), 0, 0, 0, 1000);
	call(&self->a, 1000, 0, 900, 0, 1000);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_NONE);
	EXPECT_EQ(est.external_ns, 900);
	/*
	 * Ten calls 10 ns above 1000, and the preempted one's rest 900
	 * below: nothing above the floor on the whole.  Against the 100 ns
	 * rest it would be 21 x 1000 + 100 - 21 x 100 = 18,100.
	 */
	EXPECT_EQ(est.bound_ns, 0);
}

/* ispotd's windows: solo calls of earlier windows are evidence. */
TEST_F(interf, seeded_solo_calls_are_evidence)
{
	struct interf_seed seed = { .solo = 40, .solo_rest_ns = 40 * 100,
				    .solo_ns = 40 * 100 }, out;
	struct interf_estimate est;
	int i;

	interf_seed(&self->a, &seed);
	for (i = 0; i < 10; i++)
		call(&self->a, 150, 0, 0, 0, 150);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_SOLO);
	EXPECT_EQ(est.calls, 10);
	EXPECT_EQ(est.loss_ns, 10 * 50);
	call(&self->a, 100, 0, 0, 0, 0);
	interf_seed_out(&self->a, &out);
	EXPECT_EQ(out.solo, 41);
	EXPECT_EQ(out.solo_rest_ns, 41 * 100);
}

static void reference_call(struct interf_acc *a, uint64_t d, uint64_t rq)
{
	struct interf_call c = { .duration_ns = d, .runqueue_ns = rq,
				 .others_ns = 3 * d, .reference = true };

	interf_add(a, &c);
}

/*
 * Calls a solo block let in alone are the reference, before solo calls,
 * whatever exposure they had (the others ran untraced code), and are not
 * calls that can lose to interference.  Their run-queue time is external.
 */
TEST_F(interf, reference_calls_come_first_and_lose_nothing)
{
	struct interf_estimate est;
	int i;

	for (i = 0; i < 29; i++)
		reference_call(&self->a, 100 + 50, 50);
	for (i = 0; i < 40; i++)
		call(&self->a, 60, 0, 0, 0, 0);		/* solo, faster */
	for (i = 0; i < 20; i++)
		call(&self->a, 300, 0, 0, 0, 300);
	interf_estimate(&self->a, &est);
	/* 29 are too few: the solo calls judge, as before. */
	EXPECT_EQ(est.ref, INTERF_REF_SOLO);
	EXPECT_EQ(est.gated_calls, 29);
	EXPECT_EQ(est.calls, 60);
	EXPECT_EQ(est.loss_ns, 20 * 240);
	reference_call(&self->a, 150, 50);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_GATED);
	EXPECT_EQ(est.gated_calls, 30);
	EXPECT_EQ(est.ref_calls, 30);
	EXPECT_FALSE(est.weak);
	EXPECT_NEAR(est.ref_ns, 100, 1e-9);
	EXPECT_NEAR(est.gated_mean_ns, 150, 1e-9);
	/* Only the 20 calls beside others lose: 200 ns over the reference. */
	EXPECT_EQ(est.calls, 60);
	EXPECT_EQ(est.loss_ns, 20 * 200);
	EXPECT_EQ(est.bound_ns, est.loss_ns);
}

/* ispotd's windows carry reference calls too, and a seed alone serves. */
TEST_F(interf, seeded_reference_calls_are_evidence)
{
	struct interf_seed seed = { .gated = 30, .gated_rest_ns = 30 * 100,
				    .gated_ns = 30 * 120 }, out;
	struct interf_estimate est;
	int i;

	interf_seed(&self->a, &seed);
	for (i = 0; i < 10; i++)
		call(&self->a, 150, 0, 0, 0, 150);
	reference_call(&self->a, 100, 0);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_GATED);
	EXPECT_EQ(est.gated_calls, 31);
	EXPECT_EQ(est.seeded_gated_calls, 30);
	EXPECT_EQ(est.loss_ns, 10 * 50);
	interf_seed_out(&self->a, &out);
	EXPECT_EQ(out.gated, 31);
	EXPECT_EQ(out.gated_rest_ns, 31 * 100);
	EXPECT_EQ(out.gated_ns, 30 * 120 + 100);
}

/*
 * ispotd's age of a carried reference: the seed's date goes on with it,
 * the oldest wins in a sum of keys, and calls of the window's own get
 * theirs from the window that hands them on (0 here).
 */
TEST_F(interf, a_carried_reference_keeps_its_date)
{
	struct interf_seed seed = { .gated = 30, .gated_rest_ns = 30 * 100,
				    .gated_ns = 30 * 120,
				    .gated_since_ns = 5000 }, out;
	struct interf_estimate est, sum = { 0 }, young = { 0 };
	struct interf_acc own;

	interf_seed(&self->a, &seed);
	reference_call(&self->a, 100, 0);
	call(&self->a, 150, 0, 0, 0, 150);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.seeded_since_ns, 5000);
	interf_seed_out(&self->a, &out);
	EXPECT_EQ(out.gated_since_ns, 5000);
	young.calls = 1;
	young.seeded_since_ns = 9000;
	interf_estimate_add(&sum, &young);
	interf_estimate_add(&sum, &est);
	interf_estimate_add(&sum, &young);
	EXPECT_EQ(sum.seeded_since_ns, 5000);

	interf_init(&own);
	reference_call(&own, 100, 0);
	interf_seed_out(&own, &out);
	EXPECT_EQ(out.gated, 1);
	EXPECT_EQ(out.gated_since_ns, 0);
	interf_estimate(&own, &est);
	EXPECT_EQ(est.seeded_since_ns, 0);
}

/* A function of two keys: GATED only when both keys have it. */
TEST_F(interf, a_sum_of_keys_shows_gated_only_when_every_key_is)
{
	struct interf_estimate a, b, sum;
	struct interf_acc k2;
	int i;

	interf_init(&k2);
	for (i = 0; i < 30; i++) {
		reference_call(&self->a, 100, 0);
		reference_call(&k2, 100, 0);
	}
	for (i = 0; i < 40; i++) {
		call(&self->a, 200, 0, 0, 0, 200);
		call(&k2, 100, 0, 0, 0, 0);
	}
	interf_estimate(&self->a, &a);
	interf_estimate(&k2, &b);
	ASSERT_EQ(a.ref, INTERF_REF_GATED);
	ASSERT_EQ(b.ref, INTERF_REF_GATED);
	memset(&sum, 0, sizeof(sum));
	interf_estimate_add(&sum, &a);
	interf_estimate_add(&sum, &b);
	EXPECT_EQ(sum.ref, INTERF_REF_GATED);
	EXPECT_EQ(sum.gated_calls, 60);
	EXPECT_EQ(sum.loss_ns, 40 * 100);
	interf_init(&k2);
	for (i = 0; i < 40; i++)
		call(&k2, 100, 0, 0, 0, 0);
	interf_estimate(&k2, &b);
	ASSERT_EQ(b.ref, INTERF_REF_SOLO);
	memset(&sum, 0, sizeof(sum));
	interf_estimate_add(&sum, &a);
	interf_estimate_add(&sum, &b);
	EXPECT_EQ(sum.ref, INTERF_REF_SOLO);
}

/*
 * @own calls of 100 ns with less beside them (solo, or @fit: 0.2 or 0.3
 * other threads on average), after @seeded handed-in solo calls, and 1,000
 * of 200 ns beside one other thread: a pool's block.
 */
static void weak_pool(struct interf_estimate *est, int own, bool fit,
		      uint64_t seeded)
{
	struct interf_seed seed = { .solo = seeded,
				    .solo_rest_ns = seeded * 100,
				    .solo_ns = seeded * 100 };
	struct interf_acc a;
	int i;

	interf_init(&a);
	interf_seed(&a, &seed);
	for (i = 0; i < 1000; i++)
		call(&a, 200, 0, 0, 0, 200);
	for (i = 0; i < own; i++)
		call(&a, 100, 0, 0, 0, fit ? 20 + 10 * (i % 2) : 0);
	interf_estimate(&a, est);
}

/* When a figure's reference is weak: what a note and the JSON say. */
TEST_F(interf, a_reference_from_a_slice_of_the_calls_is_weak)
{
	struct interf_estimate est, sum;
	int i;

	/* 40 solo calls of 1,040: 3.8%, weak; 60 of 1,060: not. */
	weak_pool(&est, 40, false, 0);
	EXPECT_EQ(est.ref, INTERF_REF_SOLO);
	EXPECT_EQ(est.ref_calls, 40);
	EXPECT_TRUE(est.weak);
	weak_pool(&est, 60, false, 0);
	EXPECT_FALSE(est.weak);
	/* 30 handed in: the advice is taken; 10 are not enough for it. */
	weak_pool(&est, 10, false, 30);
	EXPECT_EQ(est.ref, INTERF_REF_SOLO);
	EXPECT_FALSE(est.weak);
	weak_pool(&est, 25, false, 10);
	EXPECT_EQ(est.ref, INTERF_REF_SOLO);
	EXPECT_EQ(est.ref_calls, 25);
	EXPECT_TRUE(est.weak);
	/* A line anchored by 40 calls of 1,040, whatever was handed in. */
	weak_pool(&est, 40, true, 0);
	EXPECT_EQ(est.ref, INTERF_REF_FIT);
	EXPECT_EQ(est.fit_calls, 1040);
	EXPECT_EQ(est.ref_calls, 40);
	EXPECT_TRUE(est.weak);
	weak_pool(&est, 40, true, 5);
	EXPECT_EQ(est.ref, INTERF_REF_FIT);
	EXPECT_TRUE(est.weak);
	weak_pool(&est, 60, true, 0);
	EXPECT_EQ(est.ref, INTERF_REF_FIT);
	EXPECT_FALSE(est.weak);

	/*
	 * 30 calls near e = 0 and 2,000 whose exposures spread from 0.6 to
	 * 1.4: the line is anchored by all 2,030 calls with at most one
	 * thread beside, not by the 30 near e = 0 alone.
	 */
	for (i = 0; i < 30; i++)
		call(&self->a, 100, 0, 0, 0, 20);
	for (i = 0; i < 2000; i++)
		call(&self->a, 200, 0, 0, 0, 200 * (6 + 4 * (i % 3)) / 10);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_FIT);
	EXPECT_EQ(est.ref_calls, 2030);
	EXPECT_FALSE(est.weak);

	/* Only a bound: weak; 10 calls, all solo: nothing to bound. */
	weak_pool(&est, 10, false, 5);
	EXPECT_EQ(est.ref, INTERF_REF_NONE);
	EXPECT_TRUE(est.bound_ns > est.loss_ns);
	EXPECT_TRUE(est.weak);
	interf_init(&self->a);
	for (i = 0; i < 10; i++)
		call(&self->a, 100 + i, 0, 0, 0, 0);
	interf_estimate(&self->a, &est);
	EXPECT_EQ(est.ref, INTERF_REF_NONE);
	EXPECT_FALSE(est.weak);

	/* A function is weak if one of its keys is. */
	memset(&sum, 0, sizeof(sum));
	weak_pool(&est, 60, false, 0);
	interf_estimate_add(&sum, &est);
	EXPECT_FALSE(sum.weak);
	weak_pool(&est, 40, true, 0);
	interf_estimate_add(&sum, &est);
	EXPECT_TRUE(sum.weak);
	/* A note about it counts the weak key's: 40 anchors of 1,040. */
	EXPECT_EQ(sum.ref, INTERF_REF_SOLO);
	EXPECT_EQ(sum.weak_ref, INTERF_REF_FIT);
	EXPECT_EQ(sum.ref_calls, 40);
	EXPECT_EQ(sum.weak_calls, 1040);
}

static void feed(struct timeline *tl, uint8_t kind, uint32_t tid,
		 uint16_t cpu, uint64_t ts, uint64_t d0, uint64_t d1)
{
	struct ispot_record r = wait_record(kind, tid, cpu, ts, d0, d1);

	ASSERT_EQ(timeline_record(tl, &r, TL_NO_FUNC), 0);
}

static void totals_at(struct timeline *tl, uint32_t tid, uint16_t cpu,
		      uint64_t ts, uint64_t out[TL_NR_TOTALS])
{
	ASSERT_EQ(timeline_running_totals(tl, tid, cpu, ts, out), 0);
}

/* Each test starts from an empty timeline. */
FIXTURE(timeline) {
	struct timeline *tl;
};

FIXTURE_SETUP(timeline)
{
	self->tl = timeline_new();
	ASSERT_TRUE(self->tl);
}

FIXTURE_TEARDOWN(timeline)
{
	timeline_free(self->tl);
}

/* Preempted on CPU 0 at 100, back at 200: 50 behind thread 6, 50 not. */
TEST_F(timeline, runqueue_behind_our_threads_or_others)
{
	uint64_t c[TL_NR_TOTALS];

	totals_at(self->tl, 5, 0, 50, c);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 5, 0, 100, 1, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 6, 0, 100, 0, 0);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 6, 0, 150, 0, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 5, 0, 200, 0, 0);
	timeline_totals(self->tl, 5, c);
	EXPECT_EQ(c[TL_RUNQUEUE], 100);
	EXPECT_EQ(c[TL_RQ_PROGRAM], 50);
	/* Thread 6 on another CPU does not take thread 5's. */
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 5, 0, 300, 1, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 6, 1, 300, 0, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 5, 0, 400, 0, 0);
	timeline_totals(self->tl, 5, c);
	EXPECT_EQ(c[TL_RUNQUEUE], 200);
	EXPECT_EQ(c[TL_RQ_PROGRAM], 50);
}

/*
 * Threads 5 and 6 have CPUs 0 and 1.  Thread 5 is preempted on CPU 0 at
 * 100; 6, displaced from CPU 1 by an outside task, runs on CPU 0 from
 * 110 to 200.  Two threads wanting two CPUs: without the outsider each
 * had one, so thread 5 waited for it, not for 6: external.  With a third
 * thread running on CPU 1, three want two: waiting behind 6 on CPU 0 is
 * then the program's own doing.
 */
TEST_F(timeline,
       runqueue_behind_a_sibling_is_ours_only_when_we_outnumber_the_cpus)
{
	uint64_t c[TL_NR_TOTALS];

	totals_at(self->tl, 5, 0, 10, c);
	totals_at(self->tl, 6, 1, 10, c);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 5, 0, 100, 1, 0);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 6, 1, 100, 1, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 6, 0, 110, 0, 0);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 6, 0, 200, 1, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 5, 0, 200, 0, 0);
	timeline_totals(self->tl, 5, c);
	EXPECT_EQ(c[TL_RUNQUEUE], 100);
	EXPECT_EQ(c[TL_RQ_PROGRAM], 0);

	totals_at(self->tl, 7, 1, 250, c);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 5, 0, 300, 1, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 6, 0, 300, 0, 0);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 6, 0, 400, 1, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 5, 0, 400, 0, 0);
	timeline_totals(self->tl, 5, c);
	EXPECT_EQ(c[TL_RUNQUEUE], 200);
	EXPECT_EQ(c[TL_RQ_PROGRAM], 100);
}

/*
 * Thread 6 takes CPU 0 from thread 5, whose SWITCH_OUT was lost: 5 no
 * longer wants a CPU.  Then 7 waits on CPU 1 behind 6: two threads want
 * two CPUs, external (a stale 5 would make it three, the program's).
 */
TEST_F(timeline, a_thread_displaced_by_a_lost_switch_out_wants_no_cpu)
{
	uint64_t c[TL_NR_TOTALS];

	totals_at(self->tl, 5, 0, 10, c);
	totals_at(self->tl, 7, 1, 10, c);
	totals_at(self->tl, 6, 0, 20, c);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 7, 1, 100, 1, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 6, 1, 110, 0, 0);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 6, 1, 200, 0, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 7, 1, 200, 0, 0);
	timeline_totals(self->tl, 7, c);
	EXPECT_EQ(c[TL_RUNQUEUE], 100);
	EXPECT_EQ(c[TL_RQ_PROGRAM], 0);
}

/*
 * Thread 5 waits 20..60 on a lock thread 6 releases at 50: waited 40.
 * A second wait times out: not waited.  While 5 waits, 6 is the only
 * active thread; 5 is not active.
 */
TEST_F(timeline, waits_another_thread_ends_and_who_is_active)
{
	uint64_t c0[TL_NR_TOTALS], c[TL_NR_TOTALS];

	totals_at(self->tl, 6, 1, 0, c);
	totals_at(self->tl, 5, 0, 0, c0);
	EXPECT_EQ(timeline_active(self->tl), 2);
	feed(self->tl, ISPOT_REC_FUTEX_ENTER, 5, 0, 10, LOCK_A, FUTEX_WAIT_PRIVATE);
	EXPECT_EQ(timeline_active(self->tl), 1);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 5, 0, 20, 0, 0);
	feed(self->tl, ISPOT_REC_FUTEX_ENTER, 6, 1, 50, LOCK_A, FUTEX_WAKE_PRIVATE);
	feed(self->tl, ISPOT_REC_FUTEX_EXIT, 6, 1, 52, 1, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 5, 0, 60, 0, 0);
	feed(self->tl, ISPOT_REC_FUTEX_EXIT, 5, 0, 70, 0, 0);
	EXPECT_EQ(timeline_active(self->tl), 2);
	totals_at(self->tl, 5, 0, 100, c);
	EXPECT_EQ(c[TL_FUTEX] - c0[TL_FUTEX], 40);
	EXPECT_EQ(c[TL_WAITED] - c0[TL_WAITED], 40);
	/* 6 was active all 100 ns. */
	EXPECT_EQ(c[TL_OTHERS] - c0[TL_OTHERS], 100);
	/* A timed-out wait was nobody's doing. */
	feed(self->tl, ISPOT_REC_FUTEX_ENTER, 5, 0, 110, LOCK_A, FUTEX_WAIT_PRIVATE);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 5, 0, 120, 0, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 5, 0, 150, 0, 0);
	feed(self->tl, ISPOT_REC_FUTEX_EXIT, 5, 0, 160, ETIMEDOUT_RET, 0);
	totals_at(self->tl, 5, 0, 170, c0);
	EXPECT_EQ(c0[TL_FUTEX] - c[TL_FUTEX], 30);
	EXPECT_EQ(c0[TL_WAITED], c[TL_WAITED]);
	/* From 6's side: 5 was inactive 10..70 and 110..160. */
	totals_at(self->tl, 6, 1, 170, c);
	EXPECT_EQ(c[TL_OTHERS], 170 - 60 - 50);
}

/* Parked in a futex wait, exited, or never seen: not beside anyone. */
TEST_F(timeline, parked_exited_and_unseen_threads_are_not_active)
{
	uint64_t c0[TL_NR_TOTALS], c[TL_NR_TOTALS];

	feed(self->tl, ISPOT_REC_FUTEX_ENTER, 6, 1, 0, LOCK_A, FUTEX_WAIT_PRIVATE);
	feed(self->tl, ISPOT_REC_TASK_NEW, 7, 1, 0, 5, 0);
	totals_at(self->tl, 5, 0, 10, c0);
	timeline_thread_exit(self->tl, 7, 30);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 7, 1, 31, 0, 0);	/* after exit */
	totals_at(self->tl, 5, 0, 100, c);
	/* Only 7, from 10 to 30. */
	EXPECT_EQ(c[TL_OTHERS] - c0[TL_OTHERS], 20);
	EXPECT_EQ(timeline_active(self->tl), 1);
	/* Forgetting a thread keeps the count right. */
	timeline_forget(self->tl, 5);
	EXPECT_EQ(timeline_active(self->tl), 0);
}

/*
 * Lost records: a wait whose EXIT was lost ends at the thread's next
 * futex call; a tid reused after an exit starts clean; a late record
 * never makes the integral of other threads run backwards.
 */
TEST_F(timeline, lost_and_late_records_keep_the_count_right)
{
	uint64_t c0[TL_NR_TOTALS], c[TL_NR_TOTALS];

	totals_at(self->tl, 5, 0, 0, c0);
	feed(self->tl, ISPOT_REC_FUTEX_ENTER, 6, 1, 10, LOCK_A, FUTEX_WAIT_PRIVATE);
	EXPECT_EQ(timeline_active(self->tl), 1);
	/* Its FUTEX_EXIT lost, then a wake: it is running again. */
	feed(self->tl, ISPOT_REC_FUTEX_ENTER, 6, 1, 20, LOCK_A, FUTEX_WAKE_PRIVATE);
	EXPECT_EQ(timeline_active(self->tl), 2);
	/* Exit, and the tid comes back parked state and all forgotten. */
	feed(self->tl, ISPOT_REC_FUTEX_ENTER, 6, 1, 30, LOCK_A, FUTEX_WAIT_PRIVATE);
	timeline_thread_exit(self->tl, 6, 40);
	feed(self->tl, ISPOT_REC_TASK_NEW, 6, 1, 50, 5, 0);
	EXPECT_EQ(timeline_active(self->tl), 2);
	feed(self->tl, ISPOT_REC_SWITCH_OUT, 6, 1, 60, 0, 0);
	feed(self->tl, ISPOT_REC_SWITCH_IN, 6, 1, 70, 0, 0);
	timeline_totals(self->tl, 6, c);
	EXPECT_EQ(c[TL_BLOCKED], 10);	/* not futex: the old wait is gone */
	/* 5 reads at 100; a record of 6 from 80 arrives late; 5 at 200. */
	totals_at(self->tl, 5, 0, 100, c0);
	feed(self->tl, ISPOT_REC_FUTEX_ENTER, 6, 1, 80, LOCK_A, FUTEX_WAIT_PRIVATE);
	totals_at(self->tl, 5, 0, 200, c);
	EXPECT_EQ(c[TL_OTHERS] - c0[TL_OTHERS], 0);
}

static void pl_feed(struct pipeline *p, uint8_t kind, uint32_t tid,
		    uint16_t cpu, uint64_t ts, uint64_t sp, uint64_t d0,
		    uint64_t d1)
{
	struct ispot_record r = wait_record(kind, tid, cpu, ts, d0, d1);

	r.probe_id = kind == ISPOT_REC_ENTRY || kind == ISPOT_REC_EXIT;
	r.sp = sp;
	pipeline_record(p, &r);
}

/*
 * What the pipeline and sleeper fixtures hold: a pipeline with one probe
 * (func 0) whose calls get their context, and its latest report.
 */
struct traced {
	struct pipeline *p;
	struct sci_report *r;
};

static void traced_open(struct traced *t)
{
	t->r = NULL;
	t->p = pipeline_new();
	ASSERT_TRUE(t->p);
	ASSERT_EQ(pipeline_add_probe(t->p, 1, 0, NULL), 0);
	ASSERT_EQ(pipeline_enable_causes(t->p), 0);
}

static void traced_close(struct traced *t)
{
	sci_report_free(t->r);
	pipeline_free(t->p);
}

/* Finish the pipeline at @now; func 0's row of a new report. */
static const struct sci_result *traced_func(struct traced *t, uint64_t now)
{
	const struct sci_result *f;

	pipeline_finish(t->p, now);
	sci_report_free(t->r);
	t->r = sci_report(t->p->sci, now);
	ASSERT_TRUE(t->r);
	f = sci_report_func(t->r, 0);
	ASSERT_TRUE(f);
	return f;
}

FIXTURE(pipeline) {
	struct traced t;
};

FIXTURE_SETUP(pipeline)
{
	traced_open(&self->t);
}

FIXTURE_TEARDOWN(pipeline)
{
	traced_close(&self->t);
}

/*
 * Through the pipeline: thread 5 alone runs f() 40 times with work from
 * 100 to 1,000 ns (SCI high, interference 0), then thread 6 starts and
 * holds a lock that 5's next 10 calls wait 500 ns for.
 */
TEST_F(pipeline, alone_then_waiting_for_another_thread)
{
	struct pipeline *p = self->t.p;
	const struct sci_result *f;
	uint64_t ts = 1000;
	int i;

	for (i = 0; i < 40; i++) {
		pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
		ts += 100 + 900 * (i % 2);
		pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts, SP0 + 8, 0, 0);
		ts += 10;
	}
	f = traced_func(&self->t, ts);
	EXPECT_TRUE(f->has_interference);
	EXPECT_TRUE(f->sci > 0.4);
	EXPECT_EQ(f->interf.ref, INTERF_REF_SOLO);
	EXPECT_EQ(f->interf.solo_calls, 40);
	EXPECT_EQ(f->interf.loss_ns, 0);
	EXPECT_NEAR(f->interference, 0.0, 1e-9);

	pl_feed(p, ISPOT_REC_TASK_NEW, 6, 1, ts, 0, 5, 0);
	for (i = 0; i < 10; i++) {
		pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
		pl_feed(p, ISPOT_REC_FUTEX_ENTER, 5, 0, ts + 10, 0, LOCK_A,
			FUTEX_WAIT_PRIVATE);
		pl_feed(p, ISPOT_REC_SWITCH_OUT, 5, 0, ts + 20, 0, 0, 0);
		pl_feed(p, ISPOT_REC_FUTEX_ENTER, 6, 1, ts + 500, 0, LOCK_A,
			FUTEX_WAKE_PRIVATE);
		pl_feed(p, ISPOT_REC_FUTEX_EXIT, 6, 1, ts + 510, 0, 1, 0);
		pl_feed(p, ISPOT_REC_SWITCH_IN, 5, 0, ts + 520, 0, 0, 0);
		pl_feed(p, ISPOT_REC_FUTEX_EXIT, 5, 0, ts + 530, 0, 0, 0);
		pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 600 + 900 * (i % 2),
			SP0 + 8, 0, 0);
		ts += 1000 + 900 * (i % 2);
	}
	f = traced_func(&self->t, ts);
	EXPECT_EQ(f->interf.direct_ns, 10 * 500);
	EXPECT_EQ(f->interf.ref, INTERF_REF_SOLO);
	/* The rest is what the solo calls took: only the waits count. */
	EXPECT_NEAR((double)f->interf.loss_ns, 10 * 500, 1);
	EXPECT_TRUE(f->interference < f->sci);
	EXPECT_NEAR(f->rank, f->interference, 1e-12);
}

/*
 * A thread whose TASK_EXIT the ring dropped, found gone by a scan of
 * /proc (pipeline_thread_exit()): the calls after it are solo again.
 */
TEST_F(pipeline, exit_found_by_a_scan_ends_its_activity)
{
	struct pipeline *p = self->t.p;
	const struct sci_result *f;
	uint64_t ts = 1000;
	int i;

	pl_feed(p, ISPOT_REC_TASK_NEW, 6, 1, ts, 0, 5, 0);
	ASSERT_EQ(pipeline_thread_exit(p, 6, ts + 10), 0);
	for (i = 0; i < 40; i++) {
		ts += 100;
		pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
		pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 50, SP0 + 8, 0, 0);
	}
	f = traced_func(&self->t, ts + 100);
	EXPECT_EQ(f->interf.solo_calls, 40);
}

/* A GATE record of thread @tid before its entry at @sp (solo.h). */
static void gate_feed(struct pipeline *p, uint32_t tid, uint64_t ts,
		      uint64_t sp, uint32_t flags, uint64_t waited)
{
	struct ispot_record r = wait_record(ISPOT_REC_GATE, tid, 0, ts, 1,
					    waited);

	r.probe_id = 1;
	r.sp = sp;
	r.data[2] = flags;
	pipeline_record(p, &r);
}

/* @tid's gate wait timed out at @ts, naming @holder as displaced. */
static void timeout_feed(struct pipeline *p, uint32_t tid, uint64_t ts,
			 uint32_t holder)
{
	struct ispot_record r = wait_record(ISPOT_REC_GATE, tid, 1, ts, 2,
					    5000);

	r.probe_id = 1;
	r.sp = SP0 - 4096;
	r.ip = holder;
	r.data[2] = ISPOT_GATE_WAITED | ISPOT_GATE_TIMEOUT;
	pipeline_record(p, &r);
}

static void solo_feed(struct pipeline *p, uint8_t kind, uint64_t ts,
		      uint64_t block, uint64_t d1, uint64_t d2)
{
	struct ispot_record r = wait_record(kind, 0, 0, ts, block, d1);

	r.data[2] = d2;
	pipeline_record(p, &r);
}

/*
 * A call under way when a solo block begins met no gate and counts
 * whole in the figure, so the block is no share of its thread's until
 * it returns.  5's first call spans a block of 3,000 ns and keeps it in
 * the lifetime the figure is a share of; a block while 5 is between
 * calls is set aside (1,000 ns); a call that returns 1,000 ns into a
 * block of 4,000 leaves it the last 3,000.  6 exits inside a call that
 * a block began in: a late EXIT could still pair that call and score it
 * whole, so the block stays in 6's time (none set aside).  Were every
 * block set aside whole, a thread that waited in one call all its life
 * would read over 100%.
 */
TEST_F(pipeline, a_call_across_a_block_keeps_its_thread_s_time)
{
	struct pipeline *p = self->t.p;
	const struct sci_result *f;

	pl_feed(p, ISPOT_REC_TASK_NEW, 5, 0, 1000, 0, 5, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, 1000, SP0, 0, 0);
	solo_feed(p, ISPOT_REC_SOLO_BEGIN, 2000, 1, 100000, 5000);
	solo_feed(p, ISPOT_REC_SOLO_END, 5000, 1, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, 8000, SP0 + 8, 0, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, 9000, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, 9500, SP0 + 8, 0, 0);
	solo_feed(p, ISPOT_REC_SOLO_BEGIN, 20000, 2, 100000, 5000);
	solo_feed(p, ISPOT_REC_SOLO_END, 21000, 2, 0, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, 30000, SP0, 0, 0);
	solo_feed(p, ISPOT_REC_SOLO_BEGIN, 31000, 3, 100000, 5000);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, 32000, SP0 + 8, 0, 0);
	solo_feed(p, ISPOT_REC_SOLO_END, 35000, 3, 0, 0);
	pl_feed(p, ISPOT_REC_TASK_NEW, 6, 1, 36000, 0, 5, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 6, 1, 36000, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 6, 1, 36500, SP0 + 8, 0, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 6, 1, 40000, SP0, 0, 0);
	solo_feed(p, ISPOT_REC_SOLO_BEGIN, 41000, 4, 100000, 5000);
	pl_feed(p, ISPOT_REC_TASK_EXIT, 6, 1, 43000, 0, 0, 0);
	solo_feed(p, ISPOT_REC_SOLO_END, 45000, 4, 0, 0);
	f = traced_func(&self->t, 50000);
	EXPECT_EQ(f->aside_ns, 1000 + 3000 + 4000);
	EXPECT_LE(f->interference, 1.0);
	/* Blocks 1, 3 and 4 began with a thread inside a call: crowded. */
	EXPECT_EQ(p->solo.crowded, 3);
	EXPECT_EQ(p->solo.longest_block_ns, 100000 - 2000);
}

/*
 * Thread 6 is active the whole time (not in a futex wait), so thread 5's
 * calls are never solo.  In a solo block, five ways a call of 5 meets the
 * gate: admitted alone (a reference), admitted while 6 is inside a traced
 * call (not alone: 6 entered before the block), a GATE left behind by a
 * sampled-out entry (another sp), one that only waited and passed after
 * the block (LATE), and one that timed out; then 29 more admitted alone.
 * Only the admitted-alone ones are references; the blocks' figures add up,
 * and their time is set aside from the interference figure's.
 */
TEST_F(pipeline, the_gate_makes_reference_calls)
{
	struct pipeline *p = self->t.p;
	const struct sci_result *f;
	uint64_t ts = 1000;
	int i;

	pl_feed(p, ISPOT_REC_TASK_NEW, 6, 1, ts, 0, 5, 0);
	solo_feed(p, ISPOT_REC_SOLO_BEGIN, ts, 1, ts + 100000, 5000);
	ts += 10;
	gate_feed(p, 5, ts, SP0, ISPOT_GATE_ADMITTED, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 100, SP0 + 8, 0, 0);
	ts += 200;
	/* 6 inside f() (from before the block), 5 admitted: not alone. */
	pl_feed(p, ISPOT_REC_ENTRY, 6, 1, ts, SP0, 0, 0);
	gate_feed(p, 5, ts + 5, SP0, ISPOT_GATE_ADMITTED, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts + 10, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 110, SP0 + 8, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 6, 1, ts + 150, SP0 + 8, 0, 0);
	ts += 200;
	/* Its GATE was a sampled-out entry's (another sp). */
	gate_feed(p, 5, ts, SP0 - 64, ISPOT_GATE_ADMITTED, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts + 5, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 105, SP0 + 8, 0, 0);
	ts += 200;
	/* It took the gate: first of its holder's, after others' work. */
	gate_feed(p, 5, ts, SP0, ISPOT_GATE_ADMITTED | ISPOT_GATE_TAKEN, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 100, SP0 + 8, 0, 0);
	ts += 200;
	gate_feed(p, 5, ts, SP0, ISPOT_GATE_WAITED | ISPOT_GATE_LATE, 70);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 100, SP0 + 8, 0, 0);
	ts += 200;
	gate_feed(p, 5, ts, SP0, ISPOT_GATE_WAITED | ISPOT_GATE_TIMEOUT,
		  5000);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 100, SP0 + 8, 0, 0);
	ts += 200;
	solo_feed(p, ISPOT_REC_SOLO_END, ts, 1, ISPOT_SOLO_CONTAMINATED, 1);
	f = traced_func(&self->t, ts);
	EXPECT_EQ(f->interf.gated_calls, 1);
	EXPECT_EQ(p->solo.gated_calls, 3);
	EXPECT_EQ(p->solo.reference_calls, 1);
	EXPECT_EQ(p->solo.blocks, 1);
	EXPECT_EQ(p->solo.contaminated, 1);
	EXPECT_EQ(p->solo.timeouts, 1);
	EXPECT_EQ(p->solo.gate_waits, 2);
	EXPECT_EQ(p->solo.gate_wait_ns, 5070);
	EXPECT_EQ(p->solo.admitting_ns, ts - 1000);
	EXPECT_NE(f->interf.ref, INTERF_REF_GATED);

	/* A block ended by its deadline, its END lost: 29 more alone. */
	solo_feed(p, ISPOT_REC_SOLO_BEGIN, ts, 2, ts + 50000, 5000);
	for (i = 0; i < 29; i++) {
		ts += 10;
		gate_feed(p, 5, ts, SP0, ISPOT_GATE_ADMITTED, 0);
		pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
		pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 100, SP0 + 8, 0, 0);
		ts += 100;
	}
	/*
	 * 5 admitted, then 6's wait times out and names 5 as the holder it
	 * displaced: 5's call is no reference, its next one may be.
	 */
	ts += 10;
	gate_feed(p, 5, ts, SP0, ISPOT_GATE_ADMITTED, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
	timeout_feed(p, 6, ts + 50, 5);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 100, SP0 + 8, 0, 0);
	ts += 100;
	/* 6's calls beside 5's ungated ones take 300 ns: 200 of it lost. */
	for (i = 0; i < 10; i++) {
		ts += 100000;
		pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
		pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 300, SP0 + 8, 0, 0);
	}
	f = traced_func(&self->t, ts + 1000);
	EXPECT_EQ(p->solo.reference_calls, 30);
	EXPECT_EQ(p->solo.gated_calls, 3 + 29 + 1);
	EXPECT_EQ(p->solo.timeouts, 2);
	EXPECT_EQ(p->solo.blocks, 2);
	/* The second admitted until its deadline, 50,000 ns. */
	EXPECT_EQ(p->solo.admitting_ns, 1210 + 50000);
	EXPECT_EQ(f->interf.ref, INTERF_REF_GATED);
	EXPECT_EQ(f->interf.gated_calls, 30);
	EXPECT_NEAR(f->interf.gated_mean_ns, 100, 1e-9);
	/*
	 * The calls the gate admitted that are no references (the one not
	 * alone, the one that took the gate, the displaced one) are their
	 * blocks', set aside; those that met the gate otherwise count as
	 * calls, with 6's: 150 ns, 50 over the reference.
	 */
	EXPECT_EQ(f->interf.calls, 5 + 1 + 10 + 1 - 3);
	EXPECT_EQ(f->interf.loss_ns, 10 * 200 + 50);
	/*
	 * The threads' time while the blocks admitted is set aside, and
	 * the interference is a share of the rest: the first block's 1,210
	 * ns for 6 and, from its first record 10 ns in, 1,200 for 5; the
	 * second's for 5 only, reopened 10 ns into it (the first report
	 * closed both threads, and 6 ran no call since).
	 */
	EXPECT_EQ(f->aside_ns, 1210 + 1200 + (50000 - 10));
	EXPECT_NEAR(f->interference, (double)(10 * 200 + 50) /
		    (double)(f->lifetime_ns - f->aside_ns), 1e-12);
	EXPECT_NEAR(f->sci, (double)f->loss_ns / (double)f->lifetime_ns,
		    1e-12);
}

/*
 * Thread 5 admitted in a solo block, then displaced by 6's timed-out
 * wait; rings of several threads drop records (a LOST, ABI 1.9), 5's
 * return among them.  The displacement ended with that return, so 5's
 * next gated call, admitted alone, is a reference; and again when the
 * displaced call's entry was dropped.
 */
/* A LOST at @ts: @count of @tid's records (several: flag) until @last. */
static void lost_feed(struct pipeline *p, uint32_t tid, uint64_t ts,
		      uint64_t count, uint64_t last, uint64_t flags)
{
	struct ispot_record r = wait_record(ISPOT_REC_LOST, tid, 0, ts, count,
					    last);

	r.tgid = 0;
	r.data[2] = flags;
	pipeline_record(p, &r);
}

/* A gated call of 5 at @ts, admitted, 100 ns long. */
static void gated_call(struct pipeline *p, uint64_t ts)
{
	gate_feed(p, 5, ts, SP0, ISPOT_GATE_ADMITTED, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 100, SP0 + 8, 0, 0);
}

TEST_F(pipeline, a_displacement_before_a_loss_ends_there)
{
	struct pipeline *p = self->t.p;
	uint64_t ts = 1000;

	pl_feed(p, ISPOT_REC_TASK_NEW, 6, 1, ts, 0, 5, 0);
	solo_feed(p, ISPOT_REC_SOLO_BEGIN, ts, 1, ts + 100000, 5000);
	ts += 10;
	gate_feed(p, 5, ts, SP0, ISPOT_GATE_ADMITTED, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
	timeout_feed(p, 6, ts + 50, 5);
	lost_feed(p, 5, ts + 200, 3, ts + 150, ISPOT_LOST_SEVERAL);
	gated_call(p, ts + 300);
	EXPECT_EQ(p->solo.gated_calls, 1);
	EXPECT_EQ(p->solo.reference_calls, 1);
	EXPECT_EQ(p->solo.timeouts, 1);

	/*
	 * Then 5's ENTRY is dropped (a LOST of 5 alone, its last drop
	 * before 6's timeout names 5): the displaced call never closes,
	 * and 5's next gated call, begun after the displacement, is a
	 * reference all the same.
	 */
	ts += 600;
	gate_feed(p, 5, ts, SP0, ISPOT_GATE_ADMITTED, 0);
	timeout_feed(p, 6, ts + 50, 5);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 100, SP0 + 8, 0, 0);
	lost_feed(p, 5, ts + 110, 1, ts + 5, 0);
	gated_call(p, ts + 300);
	EXPECT_EQ(p->solo.gated_calls, 2);
	EXPECT_EQ(p->solo.reference_calls, 2);
}

#define TASK_INTERRUPTIBLE_STATE	0x1
#define TASK_UNINTERRUPTIBLE_STATE	0x2

/*
 * Thread 6 sleeps between its own calls of f() while thread 5 runs f()
 * 40 times: asleep interruptibly outside every traced call (nanosleep,
 * epoll_wait) it is idle, and 5's calls are solo.  Asleep in I/O (an
 * uninterruptible sleep), or inside f() (which may hold a spinlock across
 * the sleep), it stays active: no solo call.
 */
FIXTURE(sleeper) {
	struct traced t;
};

FIXTURE_VARIANT(sleeper) {
	uint64_t state;		/* of thread 6's SWITCH_OUT */
	bool inside;		/* asleep inside a call of f() */
	unsigned int solo_calls;	/* of thread 5's 40 */
};

FIXTURE_VARIANT_ADD(sleeper, interruptible) {
	.state = TASK_INTERRUPTIBLE_STATE, .inside = false, .solo_calls = 40,
};

FIXTURE_VARIANT_ADD(sleeper, uninterruptible) {
	.state = TASK_UNINTERRUPTIBLE_STATE, .inside = false, .solo_calls = 0,
};

FIXTURE_VARIANT_ADD(sleeper, interruptible_in_a_traced_call) {
	.state = TASK_INTERRUPTIBLE_STATE, .inside = true, .solo_calls = 0,
};

FIXTURE_SETUP(sleeper)
{
	traced_open(&self->t);
}

FIXTURE_TEARDOWN(sleeper)
{
	traced_close(&self->t);
}

TEST_F(sleeper, solo_calls_beside_it)
{
	struct pipeline *p = self->t.p;
	const struct sci_result *f;
	uint64_t ts = 1000;
	int i;

	pl_feed(p, ISPOT_REC_TASK_NEW, 6, 1, ts, 0, 5, 0);
	if (variant->inside)
		pl_feed(p, ISPOT_REC_ENTRY, 6, 1, ts + 1, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_SWITCH_OUT, 6, 1, ts + 2, 0, 0, variant->state);
	for (i = 0; i < 40; i++) {
		ts += 100;
		pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts, SP0, 0, 0);
		pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 50, SP0 + 8, 0, 0);
	}
	/* Woken, it is active again: 5's next call is not solo. */
	pl_feed(p, ISPOT_REC_SWITCH_IN, 6, 1, ts + 60, 0, 0, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 0, ts + 100, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 0, ts + 150, SP0 + 8, 0, 0);
	if (variant->inside)
		pl_feed(p, ISPOT_REC_EXIT, 6, 1, ts + 160, SP0 + 8, 0, 0);
	f = traced_func(&self->t, ts + 200);
	EXPECT_EQ(f->interf.solo_calls, variant->solo_calls);
}

TEST_HARNESS_MAIN
