// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU time by cause and the futex report (user/timeline.c), and the
 * causes of executions through the pipeline: hand-built record sequences
 * with hand-computed answers.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "analysis/pipeline.h"
#include "analysis/timeline.h"
#include "wait_records.h"

#define FUTEX_WAIT_PRIVATE	128
#define FUTEX_WAKE_PRIVATE	129
#define FUTEX_WAKE_OP_PRIVATE	133
#define ETIMEDOUT_RET		((uint64_t)-110)
#define LOCK_A			0x601040
#define LOCK_B			0x601080
#define SP0			0x7ffd00001008ULL

/* A record on CPU 0. */
static struct ispot_record rec(uint8_t kind, uint32_t tid, uint64_t ts,
			       uint64_t d0, uint64_t d1)
{
	return wait_record(kind, tid, 0, ts, d0, d1);
}

static void tl_feed(struct timeline *tl, uint8_t kind, uint32_t tid,
		    uint64_t ts, uint64_t d0, uint64_t d1, uint32_t func)
{
	struct ispot_record r = rec(kind, tid, ts, d0, d1);

	ASSERT_EQ(timeline_record(tl, &r, func), 0);
}

/* @tid recorded an ENTRY or EXIT at @ts on @cpu: its totals then. */
static uint64_t running(struct timeline *tl, uint32_t tid, uint16_t cpu,
			uint64_t ts)
{
	uint64_t out[TL_NR_TOTALS];

	ASSERT_EQ(timeline_running_totals(tl, tid, cpu, ts, out), 0);
	return out[TL_OTHERS];
}

TEST(each_cause_is_attributed)
{
	struct timeline *tl = timeline_new();
	uint64_t c[TL_NR_TOTALS];

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
	uint64_t c[TL_NR_TOTALS];

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
	uint64_t c[TL_NR_TOTALS];

	ASSERT_TRUE(tl);
	tl_feed(tl, ISPOT_REC_SWITCH_OUT, 7, 100, 0, 1, TL_NO_FUNC);
	running(tl, 7, 0, 180);
	running(tl, 7, 0, 190);	/* already running: no effect */
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

/*
 * A thread still on its CPU whose futex wait's EXIT was lost: the next
 * call's record says it runs, so it is active again (the ENTRY and EXIT
 * of a thread that is neither waiting nor moved take a shorter path).
 */
TEST(lost_futex_exit_is_repaired_on_the_same_cpu)
{
	struct timeline *tl = timeline_new();
	uint64_t before, after;

	ASSERT_TRUE(tl);
	running(tl, 7, 0, 50);
	running(tl, 8, 1, 50);
	tl_feed(tl, ISPOT_REC_FUTEX_ENTER, 7, 100, LOCK_A, FUTEX_WAIT_PRIVATE,
		3);
	EXPECT_EQ(timeline_active(tl), 1);
	before = running(tl, 8, 1, 100);
	running(tl, 7, 0, 200);		/* its FUTEX_EXIT was lost */
	EXPECT_EQ(timeline_active(tl), 2);
	after = running(tl, 8, 1, 300);
	/* Thread 7 beside it over 200..300, not while it waited. */
	EXPECT_EQ(after - before, 100);
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
	EXPECT_EQ(f[0].threads, 2);
	ASSERT_EQ(f[0].nr_funcs, 1);
	EXPECT_EQ(f[0].funcs[0], 3);
	EXPECT_EQ(f[1].uaddr, LOCK_B);
	EXPECT_EQ(f[1].wait_ns, 10);
	EXPECT_EQ(f[1].funcs[0], 4);
	timeline_free(tl);
}

static void tl_wait(struct timeline *tl, uint32_t tid, uint64_t ts,
		    uint64_t uaddr)
{
	tl_feed(tl, ISPOT_REC_FUTEX_ENTER, tid, ts, uaddr, FUTEX_WAIT_PRIVATE,
		TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_FUTEX_EXIT, tid, ts + 5, 0, 0, TL_NO_FUNC);
}

/*
 * A thread per request, 100,000 of them on one lock, each waiting twice
 * and then forgotten: counted once each, with nothing kept per thread
 * once it is forgotten (the table never holds more than one).
 */
TEST(futex_threads_counted_without_a_list)
{
	const struct timeline_futex *f;
	struct timeline *tl = timeline_new();
	uint32_t tid;

	ASSERT_TRUE(tl);
	for (tid = 1000; tid < 101000; tid++) {
		tl_wait(tl, tid, 10ull * tid, LOCK_A);
		tl_wait(tl, tid, 10ull * tid + 6, LOCK_A);
		timeline_forget(tl, tid);
	}
	ASSERT_EQ(timeline_futexes(tl, &f), 1);
	EXPECT_EQ(f[0].waits, 200000);
	EXPECT_EQ(f[0].threads, 100000);
	timeline_free(tl);
}

static uint32_t futex_threads(const struct timeline_futex *f, size_t n,
			      uint64_t uaddr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i].uaddr == uaddr)
			return f[i].threads;
	return UINT32_MAX;
}

/*
 * Past the first TL_FUTEX_EXACT words a thread counts again when it
 * comes back from another word: A B A on such words counts it twice on
 * A, while on the exact words the same pattern counts it once.
 */
TEST(futex_threads_past_the_exact_words_are_an_upper_bound)
{
	const struct timeline_futex *f;
	struct timeline *tl = timeline_new();
	uint64_t base = 0x700000, ts = 100;
	size_t n;
	int i;

	ASSERT_TRUE(tl);
	/* Thread 5 makes the exact words, then A B A on two exact ones. */
	for (i = 0; i < TL_FUTEX_EXACT; i++, ts += 10)
		tl_wait(tl, 5, ts, base + 64 * i);
	tl_wait(tl, 6, ts += 10, base);
	tl_wait(tl, 6, ts += 10, base + 64);
	tl_wait(tl, 6, ts += 10, base);
	/* Then A B A B A on two words past them, and twice C in a row. */
	for (i = 0; i < 5; i++)
		tl_wait(tl, 6, ts += 10, base + 64 * (TL_FUTEX_EXACT + i % 2));
	tl_wait(tl, 7, ts += 10, base + 64 * (TL_FUTEX_EXACT + 2));
	tl_wait(tl, 7, ts += 10, base + 64 * (TL_FUTEX_EXACT + 2));
	/* Thread 9 waits long on word 3, which the report puts first. */
	tl_feed(tl, ISPOT_REC_FUTEX_ENTER, 9, ts += 10, base + 64 * 3,
		FUTEX_WAIT_PRIVATE, TL_NO_FUNC);
	tl_feed(tl, ISPOT_REC_FUTEX_EXIT, 9, ts += 1000, 0, 0, TL_NO_FUNC);
	n = timeline_futexes(tl, &f);
	ASSERT_EQ(n, TL_FUTEX_EXACT + 3);
	EXPECT_EQ(futex_threads(f, n, base), 2);
	EXPECT_EQ(futex_threads(f, n, base + 64), 2);
	EXPECT_EQ(futex_threads(f, n, base + 64 * TL_FUTEX_EXACT), 3);
	EXPECT_EQ(futex_threads(f, n, base + 64 * (TL_FUTEX_EXACT + 1)), 2);
	EXPECT_EQ(futex_threads(f, n, base + 64 * (TL_FUTEX_EXACT + 2)), 1);
	EXPECT_EQ(futex_threads(f, n, base + 64 * 3), 2);
	/*
	 * The report's order is its own: the lines keep theirs, so thread
	 * 9, new to word 1 (which the report put fourth), counts.
	 */
	tl_wait(tl, 9, ts += 10, base + 64);
	n = timeline_futexes(tl, &f);
	EXPECT_EQ(futex_threads(f, n, base + 64), 3);
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

/*
 * Records lost from 200 to 800 while thread 5 waited on A: the FUTEX_EXIT
 * after the loss may end a later wait (its FUTEX_ENTER lost), so the wait
 * is not counted, not as one of 750 ns; the next one is.
 */
TEST(a_wait_across_a_loss_is_not_counted)
{
	struct pipeline *p = pipeline_new();
	const struct timeline_futex *f;

	ASSERT_TRUE(p);
	ASSERT_EQ(pipeline_add_probe(p, 1, 6, NULL), 0);
	ASSERT_EQ(pipeline_enable_causes(p), 0);
	pl_feed(p, ISPOT_REC_ENTRY, 5, 100, SP0, 0, 0);
	pl_feed(p, ISPOT_REC_FUTEX_ENTER, 5, 150, 0, LOCK_A,
		FUTEX_WAIT_PRIVATE);
	ASSERT_EQ(pipeline_lost(p, 200, 800), 0);
	pl_feed(p, ISPOT_REC_FUTEX_EXIT, 5, 900, 0, 0, 0);
	pl_feed(p, ISPOT_REC_FUTEX_ENTER, 5, 1000, 0, LOCK_A,
		FUTEX_WAIT_PRIVATE);
	pl_feed(p, ISPOT_REC_FUTEX_EXIT, 5, 1100, 0, 0, 0);
	pl_feed(p, ISPOT_REC_EXIT, 5, 1200, SP0 + 8, 0, 0);
	ASSERT_EQ(timeline_futexes(p->tl, &f), 1);
	EXPECT_EQ(f[0].waits, 1);
	EXPECT_EQ(f[0].wait_ns, 100);
	pipeline_free(p);
}

/* Probe id = function id + 1; function 9 is a lock call (--sync). */
static struct pipeline *waker_pipeline(void)
{
	struct pipeline *p = pipeline_new();
	uint32_t id;

	ASSERT_TRUE(p);
	for (id = 1; id <= 10; id++)
		ASSERT_EQ(pipeline_add_probe(p, id, id - 1, NULL), 0);
	ASSERT_EQ(pipeline_set_sync(p, 10), 0);
	ASSERT_EQ(pipeline_enable_causes(p), 0);
	return p;
}

static void pl_call(struct pipeline *p, uint8_t kind, uint32_t tid,
		    uint64_t ts, uint32_t func, uint64_t sp)
{
	struct ispot_record r = rec(kind, tid, ts, 0, 0);

	r.sp = kind == ISPOT_REC_EXIT ? sp + 8 : sp;
	r.probe_id = func + 1;
	pipeline_record(p, &r);
}

/* @tid, inside @func, releases @uaddr at @ts (TL_NO_FUNC: in none). */
static void pl_wake(struct pipeline *p, uint32_t tid, uint64_t ts,
		    uint64_t uaddr, uint32_t func)
{
	if (func != TL_NO_FUNC)
		pl_call(p, ISPOT_REC_ENTRY, tid, ts - 1, func, SP0);
	pl_feed(p, ISPOT_REC_FUTEX_ENTER, tid, ts, 0, uaddr,
		FUTEX_WAKE_PRIVATE);
	pl_feed(p, ISPOT_REC_FUTEX_EXIT, tid, ts + 1, 0, 1, 0);
	if (func != TL_NO_FUNC)
		pl_call(p, ISPOT_REC_EXIT, tid, ts + 2, func, SP0);
}

/* @tid starts waiting on @uaddr at @ts. */
static void pl_wait(struct pipeline *p, uint32_t tid, uint64_t ts,
		    uint64_t uaddr)
{
	pl_feed(p, ISPOT_REC_FUTEX_ENTER, tid, ts, 0, uaddr,
		FUTEX_WAIT_PRIVATE);
}

/* @tid's wait returns @ret at @ts (0: woken). */
static void pl_waited(struct pipeline *p, uint32_t tid, uint64_t ts,
		      uint64_t ret)
{
	pl_feed(p, ISPOT_REC_FUTEX_EXIT, tid, ts, 0, ret, 0);
}

static uint64_t woken_ns(const struct timeline_futex *f, uint32_t func)
{
	uint32_t k;

	for (k = 0; k < f->woken_from.nr; k++)
		if (f->woken_from.w[k].func == func)
			return f->woken_from.w[k].wait_ns;
	return 0;
}

/*
 * update_stats (function 1) holds the lock nine times as long as flush
 * (function 2): the waits its releases end are nine times as long.
 */
TEST(woken_from_nine_to_one)
{
	struct pipeline *p = waker_pipeline();
	const struct timeline_futex *f;
	uint64_t t = 1000;
	int i;

	for (i = 0; i < 10; i++, t += 1000) {
		pl_wait(p, 7, t, LOCK_A);
		pl_wake(p, 8, t + 890, LOCK_A, 1);
		pl_waited(p, 7, t + 900, 0);		/* 900 */
		pl_wait(p, 7, t + 900, LOCK_A);
		pl_wake(p, 8, t + 990, LOCK_A, 2);
		pl_waited(p, 7, t + 1000, 0);		/* 100 */
	}
	ASSERT_EQ(timeline_futexes(p->tl, &f), 1);
	EXPECT_EQ(f[0].waits, 20);
	EXPECT_EQ(f[0].woken_from.nr, 2);
	EXPECT_EQ(woken_ns(&f[0], 1), 9000);
	EXPECT_EQ(woken_ns(&f[0], 2), 1000);
	pipeline_free(p);
}

/* A timed out (or interrupted) wait was woken by no one. */
TEST(woken_from_not_a_timeout)
{
	struct pipeline *p = waker_pipeline();
	const struct timeline_futex *f;

	pl_wait(p, 7, 100, LOCK_A);
	pl_waited(p, 7, 500, ETIMEDOUT_RET);
	pl_wait(p, 7, 550, LOCK_A);
	pl_wake(p, 8, 600, LOCK_A, 1);
	pl_waited(p, 7, 610, 0);
	ASSERT_EQ(timeline_futexes(p->tl, &f), 1);
	EXPECT_EQ(f[0].waits, 2);
	EXPECT_EQ(f[0].wait_ns, 460);
	ASSERT_EQ(f[0].woken_from.nr, 1);
	EXPECT_EQ(woken_ns(&f[0], 1), 60);
	pipeline_free(p);
}

/* Each word has its own wakers; a word only woken is not reported. */
TEST(woken_from_two_addresses_and_a_wake_with_no_waiter)
{
	struct pipeline *p = waker_pipeline();
	const struct timeline_futex *f;

	pl_wake(p, 9, 50, LOCK_B + 0x40, 4);	/* nobody waits there */
	pl_wait(p, 7, 100, LOCK_A);
	pl_wait(p, 6, 100, LOCK_B);
	pl_wake(p, 8, 190, LOCK_B, 3);
	pl_waited(p, 6, 200, 0);
	pl_wake(p, 9, 390, LOCK_A, 1);
	pl_waited(p, 7, 400, 0);
	ASSERT_EQ(timeline_futexes(p->tl, &f), 2);
	EXPECT_EQ(f[0].uaddr, LOCK_A);
	ASSERT_EQ(f[0].woken_from.nr, 1);
	EXPECT_EQ(woken_ns(&f[0], 1), 300);
	EXPECT_EQ(f[1].uaddr, LOCK_B);
	ASSERT_EQ(f[1].woken_from.nr, 1);
	EXPECT_EQ(woken_ns(&f[1], 3), 100);
	pipeline_free(p);
}

/*
 * A waker in no traced function, a wait ended with no wake seen (a thread
 * outside the target), and a wake from before the wait began (it cannot
 * have ended it): all untraced.
 */
TEST(woken_from_untraced)
{
	struct pipeline *p = waker_pipeline();
	const struct timeline_futex *f;

	pl_wait(p, 7, 100, LOCK_A);
	pl_wake(p, 8, 150, LOCK_A, TL_NO_FUNC);
	pl_waited(p, 7, 200, 0);
	pl_wait(p, 6, 300, LOCK_B);
	pl_waited(p, 6, 340, 0);
	pl_wake(p, 8, 400, LOCK_B, 1);
	pl_wait(p, 6, 500, LOCK_B);
	pl_waited(p, 6, 520, 0);
	ASSERT_EQ(timeline_futexes(p->tl, &f), 2);
	ASSERT_EQ(f[0].woken_from.nr, 1);
	EXPECT_EQ(f[0].woken_from.w[0].func, TL_NO_FUNC);
	EXPECT_EQ(woken_ns(&f[0], TL_NO_FUNC), 100);
	ASSERT_EQ(f[1].woken_from.nr, 1);
	EXPECT_EQ(woken_ns(&f[1], TL_NO_FUNC), 60);
	pipeline_free(p);
}

/*
 * With --sync, pthread_mutex_unlock (function 9, a lock call) is the
 * innermost traced function at the wake: its caller is credited.  Waiters
 * still list the innermost function, and WAKE_OP is a wake too.
 */
TEST(woken_from_skips_lock_calls)
{
	struct pipeline *p = waker_pipeline();
	const struct timeline_futex *f;

	pl_feed(p, ISPOT_REC_FUTEX_ENTER, 7, 100, 0, LOCK_A,
		FUTEX_WAIT_PRIVATE);
	pl_call(p, ISPOT_REC_ENTRY, 8, 140, 2, SP0);
	pl_call(p, ISPOT_REC_ENTRY, 8, 141, 9, SP0 - 64);
	pl_feed(p, ISPOT_REC_FUTEX_ENTER, 8, 150, 0, LOCK_A,
		FUTEX_WAKE_OP_PRIVATE);
	pl_feed(p, ISPOT_REC_FUTEX_EXIT, 8, 151, 0, 1, 0);
	pl_call(p, ISPOT_REC_EXIT, 8, 152, 9, SP0 - 64);
	pl_call(p, ISPOT_REC_EXIT, 8, 153, 2, SP0);
	pl_feed(p, ISPOT_REC_FUTEX_EXIT, 7, 160, 0, 0, 0);
	/* Only lock calls open: untraced. */
	pl_feed(p, ISPOT_REC_FUTEX_ENTER, 7, 200, 0, LOCK_A,
		FUTEX_WAIT_PRIVATE);
	pl_call(p, ISPOT_REC_ENTRY, 8, 241, 9, SP0 - 64);
	pl_feed(p, ISPOT_REC_FUTEX_ENTER, 8, 250, 0, LOCK_A,
		FUTEX_WAKE_PRIVATE);
	pl_feed(p, ISPOT_REC_FUTEX_EXIT, 8, 251, 0, 1, 0);
	pl_call(p, ISPOT_REC_EXIT, 8, 252, 9, SP0 - 64);
	pl_feed(p, ISPOT_REC_FUTEX_EXIT, 7, 280, 0, 0, 0);
	ASSERT_EQ(timeline_futexes(p->tl, &f), 1);
	EXPECT_EQ(woken_ns(&f[0], 2), 60);
	EXPECT_EQ(woken_ns(&f[0], 9), 0);
	EXPECT_EQ(woken_ns(&f[0], TL_NO_FUNC), 80);
	EXPECT_EQ(pipeline_set_sync(p, 11), -EINVAL);
	pipeline_free(p);
}

/* The wait time credited to the untraced caller at @callsite. */
static uint64_t woken_at(const struct timeline_futex *f, uint64_t callsite)
{
	uint32_t k;

	for (k = 0; k < f->woken_from.nr; k++)
		if (f->woken_from.w[k].func == TL_NO_FUNC &&
		    f->woken_from.w[k].callsite == callsite)
			return f->woken_from.w[k].wait_ns;
	return 0;
}

/*
 * @tid wakes @uaddr at @ts inside lock call @func (a --sync probe, which
 * reads its return address @callsite at entry) at @sp.
 */
static void pl_release(struct pipeline *p, uint32_t tid, uint64_t ts,
		       uint64_t uaddr, uint32_t func, uint64_t sp,
		       uint64_t callsite)
{
	struct ispot_record r = rec(ISPOT_REC_ENTRY, tid, ts - 1, 0, 0);

	r.sp = sp;
	r.ip = callsite;
	r.probe_id = func + 1;
	pipeline_record(p, &r);
	pl_feed(p, ISPOT_REC_FUTEX_ENTER, tid, ts, 0, uaddr,
		FUTEX_WAKE_PRIVATE);
	pl_feed(p, ISPOT_REC_FUTEX_EXIT, tid, ts + 1, 0, 1, 0);
	pl_call(p, ISPOT_REC_EXIT, tid, ts + 2, func, sp);
}

/*
 * --sync alone: no traced function is open around pthread_mutex_unlock
 * (function 9), so its return address names the critical section; the
 * two call sites stay apart until the report names them.  A traced
 * function outside still wins, nested lock calls give the outermost's
 * caller, and a lock call that read no call site is untraced.
 */
TEST(woken_from_the_lock_call_site)
{
	struct pipeline *p = waker_pipeline();
	const struct timeline_futex *f;
	struct ispot_record r;
	uint64_t t = 1000;
	int i;

	for (i = 0; i < 10; i++, t += 1000) {
		pl_wait(p, 7, t, LOCK_A);
		pl_release(p, 8, t + 890, LOCK_A, 9, SP0, 0x401234);
		pl_waited(p, 7, t + 900, 0);		/* 900 */
		pl_wait(p, 7, t + 900, LOCK_A);
		pl_release(p, 8, t + 990, LOCK_A, 9, SP0, 0x401456);
		pl_waited(p, 7, t + 1000, 0);		/* 100 */
	}
	ASSERT_EQ(timeline_futexes(p->tl, &f), 1);
	ASSERT_EQ(f[0].woken_from.nr, 2);
	EXPECT_EQ(woken_at(&f[0], 0x401234), 9000);
	EXPECT_EQ(woken_at(&f[0], 0x401456), 1000);

	/* Traced flush (function 2) around the unlock: flush. */
	pl_wait(p, 7, t, LOCK_B);
	pl_call(p, ISPOT_REC_ENTRY, 8, t + 10, 2, SP0);
	pl_release(p, 8, t + 50, LOCK_B, 9, SP0 - 64, 0x401456);
	pl_call(p, ISPOT_REC_EXIT, 8, t + 60, 2, SP0);
	pl_waited(p, 7, t + 70, 0);			/* 70 */
	/* Lock call 8 calls lock call 9: 8's caller. */
	ASSERT_EQ(pipeline_set_sync(p, 9), 0);
	pl_wait(p, 7, t + 100, LOCK_B);
	r = rec(ISPOT_REC_ENTRY, 8, t + 110, 0, 0);
	r.sp = SP0;
	r.ip = 0x403010;
	r.probe_id = 8 + 1;
	pipeline_record(p, &r);
	pl_release(p, 8, t + 150, LOCK_B, 9, SP0 - 64, 0x7777);
	pl_waited(p, 7, t + 200, 0);			/* 100 */
	pl_call(p, ISPOT_REC_EXIT, 8, t + 210, 8, SP0);
	/* No call site read: untraced. */
	pl_wait(p, 7, t + 300, LOCK_B);
	pl_release(p, 8, t + 340, LOCK_B, 9, SP0, 0);
	pl_waited(p, 7, t + 350, 0);			/* 50 */
	ASSERT_EQ(timeline_futexes(p->tl, &f), 2);
	EXPECT_EQ(f[1].uaddr, LOCK_B);
	EXPECT_EQ(woken_ns(&f[1], 2), 70);
	EXPECT_EQ(woken_at(&f[1], 0x401456), 0);
	EXPECT_EQ(woken_at(&f[1], 0x7777), 0);
	EXPECT_EQ(woken_at(&f[1], 0x403010), 100);
	EXPECT_EQ(woken_at(&f[1], 0), 50);
	pipeline_free(p);
}

/* Past TL_WAKERS functions, the rest share one "(other)" slot. */
TEST(woken_from_is_bounded)
{
	struct timeline_wakers w = { 0 };
	uint32_t func;

	for (func = 0; func < 20; func++)
		timeline_wakers_add(&w, func, 0, 10);
	timeline_wakers_add(&w, 3, 0, 5);
	timeline_wakers_add(&w, TL_WAKER_OTHER, 0, 1);
	ASSERT_EQ(w.nr, TL_WAKERS + 1);
	EXPECT_EQ(w.w[3].wait_ns, 15);
	EXPECT_EQ(w.w[TL_WAKERS].func, TL_WAKER_OTHER);
	EXPECT_EQ(w.w[TL_WAKERS].wait_ns, (20 - TL_WAKERS) * 10 + 1);
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
