// SPDX-License-Identifier: GPL-2.0
/*
 * A process's threads from /proc (tasks.h), on this process's own: a
 * listing names every live thread; a thread a listing missed is put back
 * when its own /proc entry says it lives, and one that ended is not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "ispot_test.h"
#include "trace/tasks.h"
#include "util/array.h"
#include "thread_workers.h"

#define NR_WORKERS	3

static int cmp_tid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int set_is_sorted(const struct task_set *s)
{
	size_t i;

	for (i = 1; i < s->n; i++)
		if (s->tids[i - 1] >= s->tids[i])
			return 0;
	return 1;
}

TEST(a_listing_names_every_live_thread)
{
	struct task_set s = { 0 };
	struct worker w[NR_WORKERS];
	int stop[2];
	size_t i;

	start_workers(w, NR_WORKERS, stop);
	ASSERT_EQ(task_set_scan(&s, getpid()), 0);
	EXPECT_EQ(s.n, NR_WORKERS + 1);
	EXPECT_TRUE(set_is_sorted(&s));
	EXPECT_TRUE(task_set_contains(&s, (uint32_t)getpid()));
	for (i = 0; i < NR_WORKERS; i++)
		EXPECT_TRUE(task_set_contains(&s, (uint32_t)w[i].tid));
	stop_workers(w, NR_WORKERS, stop);
	task_set_free(&s);
}

TEST(a_live_thread_a_listing_missed_is_put_back)
{
	struct task_set prev = { 0 }, scan = { 0 };
	struct worker w[NR_WORKERS];
	uint32_t ended = ended_thread_tid();
	int stop[2];
	size_t n;

	ASSERT_FALSE(task_thread_alive(getpid(), ended));
	start_workers(w, NR_WORKERS, stop);
	ASSERT_EQ(task_set_scan(&prev, getpid()), 0);
	ASSERT_EQ(task_set_scan(&scan, getpid()), 0);
	n = scan.n;
	/*
	 * The earlier scan held the ended thread too (kept sorted, as a
	 * scan's are), the new one missed a live worker and the leader.
	 */
	ASSERT_EQ(ARRAY_RESERVE(prev.tids, prev.cap, prev.n + 1), 0);
	prev.tids[prev.n++] = ended;
	qsort(prev.tids, prev.n, sizeof(*prev.tids), cmp_tid);
	drop_tid(&scan, (uint32_t)w[1].tid);
	drop_tid(&scan, (uint32_t)getpid());
	EXPECT_FALSE(task_still_there(&scan, getpid(), ended));
	EXPECT_TRUE(task_still_there(&scan, getpid(), (uint32_t)w[1].tid));

	ASSERT_EQ(task_set_keep_missed(&scan, &prev, getpid()), 0);
	EXPECT_EQ(scan.n, n);
	EXPECT_TRUE(set_is_sorted(&scan));
	EXPECT_TRUE(task_set_contains(&scan, (uint32_t)w[1].tid));
	EXPECT_TRUE(task_set_contains(&scan, (uint32_t)getpid()));
	EXPECT_FALSE(task_set_contains(&scan, ended));

	/* Nothing missed: nothing added. */
	ASSERT_EQ(task_set_keep_missed(&scan, &prev, getpid()), 0);
	EXPECT_EQ(scan.n, n);
	stop_workers(w, NR_WORKERS, stop);
	task_set_free(&prev);
	task_set_free(&scan);
}

TEST_HARNESS_MAIN
