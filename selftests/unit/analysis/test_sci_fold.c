// SPDX-License-Identifier: GPL-2.0
/*
 * SCI engine, folding exited threads (sci.h, "Folding"): scores as if the
 * threads were still held, memory bounded by the live threads through
 * 100,000 thread lifetimes, and the hash tables intact after deletions in
 * any order.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "ispot_test.h"
#include "analysis/sci.h"

static uint64_t rng_state = 0x452821e638d01377ULL;

static uint64_t rng(void)
{
	return ispot_test_rand(&rng_state);
}

#define NR_FUNCS	5
#define NR_KEYS		3
#define D_MIN		100

struct exited {
	uint32_t tid;
	uint64_t ts;
};

/* Seed every block's minimum, so no later execution changes d_min and
 * even the folded threads' worst-thread scores must come out exact. */
static void seed_minima(struct sci_engine *e)
{
	struct sci_block_min m = { .min = D_MIN, .ref_dur = UINT64_MAX };
	uint32_t f, k;

	for (f = 0; f < NR_FUNCS; f++)
		for (k = 0; k < NR_KEYS; k++) {
			m.func_id = f;
			m.key = k;
			ASSERT_EQ(sci_seed(e, &m), 0);
		}
}

static void expect_same(const struct sci_result *a, const struct sci_result *b)
{
	int k;

	EXPECT_EQ(a->calls, b->calls);
	EXPECT_EQ(a->threads, b->threads);
	EXPECT_EQ(a->loss_ns, b->loss_ns);
	EXPECT_EQ(a->lifetime_ns, b->lifetime_ns);
	EXPECT_TRUE(fabs(a->sci - b->sci) < 1e-12);
	EXPECT_TRUE(fabs(a->sci_worst_thread - b->sci_worst_thread) < 1e-12);
	EXPECT_EQ(a->worst_loss_ns, b->worst_loss_ns);
	for (k = 0; k < SCI_NR_CAUSES; k++)
		EXPECT_EQ(a->cause_loss_ns[k], b->cause_loss_ns[k]);
	EXPECT_EQ(a->unknown_loss_ns, b->unknown_loss_ns);
}

/*
 * The same random trace into two engines, one of which folds each thread
 * some exits after it exited (as ispotd's pipeline does): every block and
 * function result is the same.
 */
TEST(folded_scores_equal_held_scores)
{
	struct sci_engine *held = sci_new(), *fold = sci_new();
	struct exited q[64];
	struct sci_report *ra, *rb;
	size_t qn = 0, i, folded = 0;
	uint64_t ts = 1000;
	uint32_t tid;

	ASSERT_TRUE(held && fold);
	seed_minima(held);
	seed_minima(fold);
	/* Threads 1-4 live throughout; 5.. come and go. */
	for (tid = 1; tid <= 4; tid++) {
		ASSERT_EQ(sci_thread_seen(held, tid, ts), 0);
		ASSERT_EQ(sci_thread_seen(fold, tid, ts), 0);
	}
	for (tid = 5; tid < 5 + 2000; tid++) {
		int n = 1 + rng() % 6, j;

		ASSERT_EQ(sci_thread_seen(held, tid, ts), 0);
		ASSERT_EQ(sci_thread_seen(fold, tid, ts), 0);
		for (j = 0; j < n; j++) {
			uint32_t who = rng() % 3 ? tid : 1 + rng() % 4;
			uint32_t f = rng() % NR_FUNCS, k = rng() % NR_KEYS;
			uint64_t d = D_MIN + rng() % 5000;
			struct sci_causes c = { .futex_ns = rng() % d };
			const struct sci_causes *cp = rng() % 2 ? &c : NULL;

			ts += d + rng() % 300;
			ASSERT_EQ(sci_add(held, f, k, who, d, ts, cp), 0);
			ASSERT_EQ(sci_add(fold, f, k, who, d, ts, cp), 0);
		}
		ts += rng() % 500;
		ASSERT_EQ(sci_thread_exit(held, tid, ts), 0);
		ASSERT_EQ(sci_thread_exit(fold, tid, ts), 0);
		q[qn++] = (struct exited){ tid, ts };
		if (qn == 64 || rng() % 4 == 0) {
			/* Fold the oldest exits, in an arbitrary order. */
			size_t m = qn / 2 + 1;

			for (i = 0; i < m; i++) {
				size_t pick = (i * 7) % qn;

				EXPECT_EQ(sci_fold_thread(fold, q[pick].tid,
							  q[pick].ts), 1);
				q[pick] = q[--qn];
				folded++;
			}
		}
	}
	ts += 10;
	ra = sci_report(held, ts);
	rb = sci_report(fold, ts);
	ASSERT_TRUE(ra && rb);
	TH_LOG("%zu threads folded, %zu held", folded, rb->nr_threads);
	EXPECT_GT(folded, 1500);
	EXPECT_EQ(rb->folded_threads, folded);
	EXPECT_EQ(rb->nr_threads + rb->folded_threads, ra->nr_threads);
	EXPECT_EQ(rb->total_lifetime_ns, ra->total_lifetime_ns);
	ASSERT_EQ(ra->nr_blocks, rb->nr_blocks);
	ASSERT_EQ(ra->nr_funcs, rb->nr_funcs);
	for (i = 0; i < ra->nr_blocks; i++) {
		const struct sci_result *a = &ra->blocks[i];

		expect_same(a, sci_report_block(rb, a->func_id, a->key));
	}
	for (i = 0; i < ra->nr_funcs; i++) {
		const struct sci_result *a = &ra->funcs[i];

		expect_same(a, sci_report_func(rb, a->func_id));
	}
	sci_report_free(ra);
	sci_report_free(rb);
	sci_free(held);
	sci_free(fold);
}

/* 100,000 threads, each folded soon after it exits: memory stays flat. */
TEST(hundred_thousand_threads_keep_memory_flat)
{
	struct sci_engine *e = sci_new();
	const struct sci_result *f;
	struct sci_report *r;
	size_t mem_early = 0;
	uint64_t ts = 1;
	uint32_t tid;

	ASSERT_TRUE(e);
	for (tid = 1; tid <= 100000; tid++) {
		ASSERT_EQ(sci_thread_seen(e, tid, ts), 0);
		ts += 1000;
		ASSERT_EQ(sci_add(e, tid % 3, 0, tid, 500 + tid % 7, ts, NULL),
			  0);
		ts += 10;
		ASSERT_EQ(sci_thread_exit(e, tid, ts), 0);
		/* The pipeline folds a little later than the exit. */
		if (tid > 8)
			ASSERT_EQ(sci_fold_thread(e, tid - 8,
						  (uint64_t)(tid - 8) * 1010 +
						  1), 1);
		if (tid == 1000)
			mem_early = sci_mem_bytes(e);
	}
	EXPECT_LE(sci_nr_threads(e), 8);
	EXPECT_LE(sci_nr_block_threads(e), 8);
	EXPECT_EQ(sci_mem_bytes(e), mem_early);
	TH_LOG("engine %zu bytes after 1,000 and after 100,000 threads",
	       sci_mem_bytes(e));
	r = sci_report(e, ts);
	ASSERT_TRUE(r);
	f = sci_report_func(r, 1);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->threads, 33334);
	EXPECT_EQ(f->calls, 33334);
	EXPECT_EQ(r->nr_threads + r->folded_threads, 100000);
	sci_report_free(r);
	sci_free(e);
}

/* Only a closed thread whose exit is the one named is folded. */
TEST(fold_only_what_is_closed_as_named)
{
	struct sci_engine *e = sci_new();
	struct sci_report *r;

	ASSERT_TRUE(e);
	ASSERT_EQ(sci_add(e, 0, 0, 7, 100, 1000, NULL), 0);
	EXPECT_EQ(sci_fold_thread(e, 7, 1000), 0);	/* open */
	EXPECT_EQ(sci_fold_thread(e, 8, 1000), 0);	/* unknown */
	ASSERT_EQ(sci_thread_exit(e, 7, 2000), 0);
	EXPECT_EQ(sci_fold_thread(e, 7, 1999), 0);	/* another exit */
	ASSERT_EQ(sci_thread_seen(e, 7, 2500), 0);	/* reopened */
	EXPECT_EQ(sci_fold_thread(e, 7, 2000), 0);
	ASSERT_EQ(sci_thread_exit(e, 7, 3000), 0);
	EXPECT_EQ(sci_fold_thread(e, 7, 3000), 1);
	EXPECT_EQ(sci_fold_thread(e, 7, 3000), 0);	/* already gone */
	EXPECT_EQ(sci_nr_threads(e), 0);
	/* A tid that comes back after its fold is another thread. */
	ASSERT_EQ(sci_add(e, 0, 0, 7, 300, 4000, NULL), 0);
	r = sci_report(e, 4000);
	ASSERT_TRUE(r);
	ASSERT_EQ(r->nr_funcs, 1);
	EXPECT_EQ(r->funcs[0].threads, 2);
	EXPECT_EQ(r->funcs[0].calls, 2);
	/* 1100 + 500 of the first thread's life, 300 of the second's. */
	EXPECT_EQ(r->funcs[0].lifetime_ns, 1100 + 500 + 300);
	EXPECT_EQ(r->funcs[0].loss_ns, 200);
	sci_report_free(r);
	sci_free(e);
}

/* sci_fold_closed() folds exactly the threads that were not reopened. */
TEST(fold_closed_keeps_the_reopened)
{
	struct sci_engine *e = sci_new();
	uint32_t tid;

	ASSERT_TRUE(e);
	for (tid = 1; tid <= 10; tid++)
		ASSERT_EQ(sci_add(e, 0, 0, tid, 100, 1000 + tid, NULL), 0);
	sci_finish(e, 2000);
	for (tid = 1; tid <= 10; tid += 3)	/* 1, 4, 7, 10 still alive */
		ASSERT_EQ(sci_thread_seen(e, tid, 3000), 0);
	EXPECT_EQ(sci_fold_closed(e), 6);
	EXPECT_EQ(sci_nr_threads(e), 4);
	EXPECT_EQ(sci_nr_folded_threads(e), 6);
	EXPECT_EQ(sci_fold_closed(e), 0);
	sci_free(e);
}

/*
 * Deletions in random order never lose a neighbour in the hash tables:
 * every thread and pair left is found again (a lost one would be added
 * anew, and the counts would grow).
 */
TEST(tables_stay_whole_after_random_deletions)
{
	struct sci_engine *e = sci_new();
	static uint8_t gone[20001];
	uint64_t ts = 10;
	size_t held = 20000;
	uint32_t tid;
	int round;

	ASSERT_TRUE(e);
	for (tid = 1; tid <= 20000; tid++)
		ASSERT_EQ(sci_add(e, tid % 4, tid % 2, tid, 100, ts += 10,
				  NULL), 0);
	sci_finish(e, ts);
	for (round = 0; round < 3; round++) {
		for (tid = 1; tid <= 20000; tid++) {
			if (gone[tid] || rng() % 3)
				continue;
			ASSERT_EQ(sci_thread_exit(e, tid, ts), 0);
			ASSERT_EQ(sci_fold_thread(e, tid, ts), 1);
			gone[tid] = 1;
			held--;
		}
		ASSERT_EQ(sci_nr_threads(e), held);
		/* Touch every held thread (reopening it): found, so nothing
		 * is added. */
		for (tid = 1; tid <= 20000; tid++)
			if (!gone[tid])
				ASSERT_EQ(sci_add(e, tid % 4, tid % 2, tid, 100,
						  ts + 5, NULL), 0);
		EXPECT_EQ(sci_nr_threads(e), held);
		EXPECT_EQ(sci_nr_block_threads(e), held);
		ts += 10;
		sci_finish(e, ts);
	}
	TH_LOG("%zu of 20000 threads held after three rounds", held);
	sci_free(e);
}

/*
 * Folding a thread forgets its pairs in the engine's hot table, in every
 * way of a set: another thread that takes the freed thread and pair
 * slots, and calls the same keys in another order, gets a pair of its
 * own for each (with a stale entry, a call would land in the pair the
 * slot went to, another key's).  500 keys, each called twice so that the
 * table, grown to 2,048 slots (four a pair), holds all that their sets
 * allow: 76 of its sets of two hold two of them, 17 more.
 */
TEST(fold_forgets_every_hot_way)
{
	struct sci_engine *e = sci_new();
	struct sci_report *r;
	uint64_t k;
	size_t i;

	ASSERT_TRUE(e);
	for (k = 1; k <= 1000; k++)
		ASSERT_EQ(sci_add(e, 1, (k - 1) % 500 + 1, 7, 100, 1000 + k,
				  NULL), 0);
	ASSERT_EQ(sci_thread_exit(e, 7, 3000), 0);
	ASSERT_EQ(sci_fold_thread(e, 7, 3000), 1);
	EXPECT_EQ(sci_nr_block_threads(e), 0);
	/* Thread 8 takes 7's slots: key 500 the last freed pair, key 1's. */
	for (k = 500; k >= 1; k--)
		ASSERT_EQ(sci_add(e, 1, k, 8, 100, 4000 + k, NULL), 0);
	EXPECT_EQ(sci_nr_threads(e), 1);
	EXPECT_EQ(sci_nr_block_threads(e), 500);
	r = sci_report(e, 5000);
	ASSERT_TRUE(r);
	ASSERT_EQ(r->nr_blocks, 500);
	for (i = 0; i < r->nr_blocks; i++)
		EXPECT_EQ(r->blocks[i].calls, 3);
	sci_report_free(r);
	sci_free(e);
}

/*
 * The hot table grows as pairs come (a fresh, empty table each time), at
 * four slots a pair, and every execution still lands in its own pair:
 * 100 keys in 30 threads (an auto function's shape: few blocks, many
 * threads), each new pair followed by a call of an older one, so that
 * lookups cross every growth.  The calls of each key add up, and no pair
 * is made twice.
 */
TEST(hot_table_growth_keeps_every_pair)
{
	static uint64_t calls[101];
	struct sci_engine *e = sci_new();
	const struct sci_result *f;
	struct sci_report *r;
	uint64_t ts = 1;
	uint32_t n, key, tid;
	size_t i;

	ASSERT_TRUE(e);
	EXPECT_EQ(sci_hot_slots(e), 1024);
	for (n = 0; n < 3000; n++) {
		key = n % 100 + 1;
		tid = n / 100 + 1;
		ASSERT_EQ(sci_add(e, 1, key, tid, 100, ts += 10, NULL), 0);
		calls[key]++;
		/* Pair n / 2, made earlier. */
		ASSERT_EQ(sci_add(e, 1, n / 2 % 100 + 1, n / 2 / 100 + 1, 100,
				  ts += 10, NULL), 0);
		calls[n / 2 % 100 + 1]++;
		/* 256 pairs fill 1,024 slots; the 257th wants more. */
		if (n == 255)
			EXPECT_EQ(sci_hot_slots(e), 1024);
		if (n == 256)
			EXPECT_EQ(sci_hot_slots(e), 2048);
	}
	EXPECT_EQ(sci_nr_threads(e), 30);
	EXPECT_EQ(sci_nr_block_threads(e), 3000);
	EXPECT_EQ(sci_hot_slots(e), 16384);
	r = sci_report(e, ts);
	ASSERT_TRUE(r);
	f = sci_report_func(r, 1);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->calls, 6000);
	ASSERT_EQ(r->nr_blocks, 100);
	for (i = 0; i < r->nr_blocks; i++)
		EXPECT_EQ(r->blocks[i].calls, calls[r->blocks[i].key]);
	sci_report_free(r);
	sci_free(e);
}

TEST_HARNESS_MAIN
