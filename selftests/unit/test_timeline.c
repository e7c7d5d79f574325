// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU time by cause and the futex report (user/timeline.c), and the
 * causes of executions through the pipeline: hand-built record sequences
 * with hand-computed answers.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "pipeline.h"
#include "timeline.h"

#define FUTEX_WAIT_PRIVATE	128
#define FUTEX_WAKE_PRIVATE	129
#define LOCK_A			0x601040
#define LOCK_B			0x601080
#define SP0			0x7ffd00001008ULL

static struct ispot_record rec(uint8_t kind, uint32_t tid, uint64_t ts,
			       uint64_t d0, uint64_t d1)
{
	struct ispot_record r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.tid = tid;
	r.tgid = 1;
	r.ts_ns = ts;
	r.nslots = 1;
	r.data[0] = d0;
	r.data[1] = d1;
	return r;
}

static void tl_feed(struct timeline *tl, uint8_t kind, uint32_t tid,
		    uint64_t ts, uint64_t d0, uint64_t d1, uint32_t func)
{
	struct ispot_record r = rec(kind, tid, ts, d0, d1);

	ASSERT_EQ(timeline_record(tl, &r, func), 0);
}

TEST(each_cause_is_attributed)
{
	struct timeline *tl = timeline_new();
	uint64_t c[TL_NR_CAUSES];

	ASSERT_TRUE(tl);
	/* Preempted 100..150: run-queue. */
	tl_feed(tl, ISPOT_REC_SWITCH_OUT, 7, 100, 1, 0, TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_SWITCH_IN, 7, 150, 0, 0, TL_NO_FUNC);
	/* Blocked in a futex wait 210..300. */
	tl_feed(tl, ISPOT_REC_FUTEX_ENTER, 7, 200, LOCK_A, FUTEX_WAIT_PRIVATE,
		3);
	tl_feed(tl, ISPOT_REC_SWITCH_OUT, 7, 210, 0, 1, TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_SWITCH_IN, 7, 300, 0, 0, TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_FUTEX_EXIT, 7, 310, 0, 0, TL_NO_FUNC);
	/* Blocked elsewhere 400..450. */
	tl_feed(tl, ISPOT_REC_SWITCH_OUT, 7, 400, 0, 1, TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_SWITCH_IN, 7, 450, 0, 0, TL_NO_FUNC);
	timeline_totals(tl, 7, c);
	EXPECT_EQ(c[TL_RUNQUEUE], 50);
	EXPECT_EQ(c[TL_FUTEX], 90);
	EXPECT_EQ(c[TL_BLOCKED], 50);
	/* Another thread's switches are its own. */
	timeline_totals(tl, 8, c);
	EXPECT_EQ(c[TL_RUNQUEUE] + c[TL_FUTEX] + c[TL_BLOCKED], 0);
	EXPECT_EQ(timeline_stats(tl)->switches, 3);
	EXPECT_EQ(timeline_stats(tl)->futex_calls, 1);
	timeline_free(tl);
}

TEST(preempted_inside_a_futex_call_is_runqueue)
{
	struct timeline *tl = timeline_new();
	uint64_t c[TL_NR_CAUSES];

	ASSERT_TRUE(tl);
	tl_feed(tl, ISPOT_REC_FUTEX_ENTER, 7, 100, LOCK_A, FUTEX_WAIT_PRIVATE,
		TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_SWITCH_OUT, 7, 110, 1, 0, TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_SWITCH_IN, 7, 130, 0, 0, TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_FUTEX_EXIT, 7, 140, 0, 0, TL_NO_FUNC);
	timeline_totals(tl, 7, c);
	EXPECT_EQ(c[TL_RUNQUEUE], 20);
	EXPECT_EQ(c[TL_FUTEX], 0);
	timeline_free(tl);
}

TEST(lost_switch_in_is_repaired_by_the_next_record)
{
	struct timeline *tl = timeline_new();
	uint64_t c[TL_NR_CAUSES];

	ASSERT_TRUE(tl);
	tl_feed(tl, ISPOT_REC_SWITCH_OUT, 7, 100, 0, 1, TL_NO_FUNC);
	timeline_running(tl, 7, 180);
	timeline_running(tl, 7, 190);	/* already running: no effect */
	timeline_totals(tl, 7, c);
	EXPECT_EQ(c[TL_BLOCKED], 80);
	EXPECT_EQ(timeline_stats(tl)->lost_switch_in, 1);
	/* Two OUTs in a row: the first interval ends at the second. */
	tl_feed(tl, ISPOT_REC_SWITCH_OUT, 7, 200, 1, 0, TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_SWITCH_OUT, 7, 230, 0, 1, TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_SWITCH_IN, 7, 240, 0, 0, TL_NO_FUNC);
	timeline_totals(tl, 7, c);
	EXPECT_EQ(c[TL_RUNQUEUE], 30);
	EXPECT_EQ(c[TL_BLOCKED], 90);
	/* An IN with nothing open is counted, not trusted. */
	tl_feed(tl, ISPOT_REC_SWITCH_IN, 7, 300, 0, 0, TL_NO_FUNC);
	EXPECT_EQ(timeline_stats(tl)->stray, 1);
	timeline_free(tl);
}

TEST(futex_report)
{
	const struct timeline_futex *f;
	struct timeline *tl = timeline_new();
	size_t n;

	ASSERT_TRUE(tl);
	EXPECT_TRUE(timeline_futex_op_waits(FUTEX_WAIT_PRIVATE));
	EXPECT_FALSE(timeline_futex_op_waits(FUTEX_WAKE_PRIVATE));
	/* B: one 10 ns wait by thread 9 in function 4. */
	tl_feed(tl, ISPOT_REC_FUTEX_ENTER, 9, 10, LOCK_B, FUTEX_WAIT_PRIVATE, 4);
	tl_feed(tl, ISPOT_REC_FUTEX_EXIT, 9, 20, 0, 0, TL_NO_FUNC);
	/* A: waits of 100 and 50 by threads 8 and 7, in functions 3 and 3. */
	tl_feed(tl, ISPOT_REC_FUTEX_ENTER, 8, 100, LOCK_A, FUTEX_WAIT_PRIVATE, 3);
	tl_feed(tl, ISPOT_REC_FUTEX_EXIT, 8, 200, 0, 0, TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_FUTEX_ENTER, 7, 300, LOCK_A, FUTEX_WAIT_PRIVATE, 3);
	tl_feed(tl, ISPOT_REC_FUTEX_EXIT, 7, 350, 0, 0, TL_NO_FUNC);
	/* Waking is not waiting, and no function is open here. */
	tl_feed(tl, ISPOT_REC_FUTEX_ENTER, 7, 400, LOCK_A, FUTEX_WAKE_PRIVATE,
		TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_FUTEX_EXIT, 7, 900, 1, 0, TL_NO_FUNC);

	n = timeline_futexes(tl, &f);
	ASSERT_EQ(n, 2);
	EXPECT_EQ(f[0].uaddr, LOCK_A);
	EXPECT_EQ(f[0].wait_ns, 150);
	EXPECT_EQ(f[0].waits, 2);
	ASSERT_EQ(f[0].nr_tids, 2);
	EXPECT_EQ(f[0].tids[0], 7);
	EXPECT_EQ(f[0].tids[1], 8);
	ASSERT_EQ(f[0].nr_funcs, 1);
	EXPECT_EQ(f[0].funcs[0], 3);
	EXPECT_EQ(f[1].uaddr, LOCK_B);
	EXPECT_EQ(f[1].wait_ns, 10);
	EXPECT_EQ(f[1].funcs[0], 4);
	timeline_free(tl);
}

static void pl_feed(struct pipeline *p, uint8_t kind, uint32_t tid,
		    uint64_t ts, uint64_t sp, uint64_t d0, uint64_t d1)
{
	struct ispot_record r = rec(kind, tid, ts, d0, d1);

	r.sp = sp;
	r.probe_id = (kind == ISPOT_REC_ENTRY || kind == ISPOT_REC_EXIT);
	pipeline_record(p, &r);
}

/*
 * acquire() once fast (10 ns, all on CPU) and once slow (entry 100, exit
 * 300): 20 ns preempted, 120 ns waiting on the futex, 60 ns on CPU.
 * loss = 200 - 10 = 190, split as futex 120, run-queue 20, on-CPU 50.
 */
TEST(pipeline_splits_losses_by_cause)
{
	struct pipeline *p = pipeline_new();
	const struct sci_result *b;
	struct sci_report *r;

	ASSERT_TRUE(p);
	ASSERT_EQ(pipeline_add_probe(p, 1, 0, NULL), 0);
	ASSERT_EQ(pipeline_enable_causes(p), 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 10, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 20, SP0 + 8, 0, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 100, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_SWITCH_OUT, 5, 110, 0, 1, 0);
	pl_feed(p, ISPOT_REC_SWITCH_IN, 5, 130, 0, 0, 0);
	pl_feed(p, ISPOT_REC_FUTEX_ENTER, 5, 150, 0, LOCK_A,
		FUTEX_WAIT_PRIVATE);
	pl_feed(p, ISPOT_REC_SWITCH_OUT, 5, 160, 0, 0, 1);
	pl_feed(p, ISPOT_REC_SWITCH_IN, 5, 280, 0, 0, 0);
	pl_feed(p, ISPOT_REC_FUTEX_EXIT, 5, 290, 0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 300, SP0 + 8, 0, 0);
	pipeline_finish(p, 1000);

	EXPECT_EQ(p->stats.waits, 6);
	r = sci_report(p->sci, 1000);
	ASSERT_TRUE(r);
	b = sci_report_block(r, 0, 0);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->loss_ns, 190);
	EXPECT_EQ(b->caused_calls, 2);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_FUTEX], 120);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_RUNQUEUE], 20);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_BLOCKED], 0);
	EXPECT_EQ(b->cause_loss_ns[SCI_CAUSE_ONCPU], 50);
	EXPECT_EQ(b->unknown_loss_ns, 0);
	sci_report_free(r);
	pipeline_free(p);
}

TEST(pipeline_futex_wait_names_the_open_function)
{
	struct pipeline *p = pipeline_new();
	const struct timeline_futex *f;

	ASSERT_TRUE(p);
	ASSERT_EQ(pipeline_add_probe(p, 1, 6, NULL), 0);
	ASSERT_EQ(pipeline_enable_causes(p), 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 100, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_FUTEX_ENTER, 5, 150, 0, LOCK_A,
		FUTEX_WAIT_PRIVATE);
	pl_feed(p, ISPOT_REC_FUTEX_EXIT, 5, 250, 0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 300, SP0 + 8, 0, 0);
	ASSERT_EQ(timeline_futexes(p->tl, &f), 1);
	ASSERT_EQ(f[0].nr_funcs, 1);
	EXPECT_EQ(f[0].funcs[0], 6);
	EXPECT_EQ(f[0].wait_ns, 100);
	pipeline_free(p);
}

TEST(task_records_give_exact_lifetimes)
{
	struct pipeline *p = pipeline_new();
	const struct sci_result *b;
	struct sci_report *r;

	ASSERT_TRUE(p);
	ASSERT_EQ(pipeline_add_probe(p, 1, 0, NULL), 0);
	pl_feed(p, ISPOT_REC_TASK_NEW, 5, 1000, 0, 4, 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 1500, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 1600, SP0 + 8, 0, 0);
	pl_feed(p, ISPOT_REC_TASK_EXIT, 5, 3000, 0, 0, 0);
	pipeline_finish(p, 9000);
	EXPECT_EQ(p->stats.tasks, 2);
	r = sci_report(p->sci, 9000);
	ASSERT_TRUE(r);
	b = sci_report_block(r, 0, 0);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->lifetime_ns, 2000);
	sci_report_free(r);
	pipeline_free(p);
}

TEST_HARNESS_MAIN
