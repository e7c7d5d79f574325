// SPDX-License-Identifier: GPL-2.0
/*
 * util/fifo.h: items come out in the order they went in, through the
 * array's growth and the slides that reclaim the front, and a queue that
 * stays short keeps a short array however many items pass through it.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "util/fifo.h"

struct item {
	uint32_t tid;
	uint64_t ts;
};

TEST(items_come_out_in_order)
{
	struct fifo q;
	struct item it, *x;
	uint64_t next_in = 0, next_out = 0, rng = 7;
	int step;

	fifo_init(&q, sizeof(struct item));
	EXPECT_TRUE(fifo_front(&q) == NULL);
	for (step = 0; step < 100000; step++) {
		/* Bursts in and out, the queue between 0 and a few hundred. */
		if (ispot_test_rand(&rng) % 3) {
			it.tid = (uint32_t)next_in;
			it.ts = next_in * 10;
			ASSERT_EQ(fifo_push(&q, &it), 0);
			next_in++;
		} else {
			while (fifo_len(&q) && ispot_test_rand(&rng) % 4) {
				x = fifo_front(&q);
				ASSERT_EQ(x->tid, (uint32_t)next_out);
				ASSERT_EQ(x->ts, next_out * 10);
				fifo_pop(&q);
				next_out++;
			}
		}
		ASSERT_EQ(fifo_len(&q), next_in - next_out);
	}
	while ((x = fifo_front(&q))) {
		ASSERT_EQ(x->tid, (uint32_t)next_out++);
		fifo_pop(&q);
	}
	EXPECT_EQ(next_out, next_in);
	fifo_free(&q);
}

TEST(a_short_queue_keeps_a_short_array)
{
	struct fifo q;
	struct item it = { 0 };
	int i;

	fifo_init(&q, sizeof(struct item));
	for (i = 0; i < 1000000; i++) {
		ASSERT_EQ(fifo_push(&q, &it), 0);
		if (fifo_len(&q) > 10)
			fifo_pop(&q);
	}
	EXPECT_EQ(fifo_len(&q), 10);
	EXPECT_LE(q.cap, 32);
	fifo_free(&q);
}

TEST(items_by_position)
{
	struct fifo q;
	struct item it;
	uint32_t i;

	fifo_init(&q, sizeof(struct item));
	for (i = 0; i < 20; i++) {
		it.tid = i;
		ASSERT_EQ(fifo_push(&q, &it), 0);
	}
	for (i = 0; i < 5; i++)
		fifo_pop(&q);
	for (i = 0; i < fifo_len(&q); i++)
		EXPECT_EQ(((struct item *)fifo_at(&q, i))->tid, i + 5);
	fifo_free(&q);
}

TEST_HARNESS_MAIN
