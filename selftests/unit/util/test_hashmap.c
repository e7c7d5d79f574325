// SPDX-License-Identifier: GPL-2.0
/*
 * util/hashmap.h: integer and structure keys, and a map whose keys come
 * and go for ever (threads) against a plain array that knows the answers:
 * deletion by backward shift must keep every key findable and the table
 * as small as the keys it holds.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ispot_test.h"
#include "util/hash.h"
#include "util/hashmap.h"

TEST(integer_keys_insert_find_delete)
{
	struct hashmap m = { 0 };
	uint64_t v;

	EXPECT_FALSE(hashmap_find(&m, 7, &v));
	EXPECT_FALSE(hashmap_delete(&m, 7, NULL));
	ASSERT_EQ(hashmap_insert(&m, 7, 70), 0);
	ASSERT_EQ(hashmap_insert(&m, 0, 1), 0);	/* 0 is a key like any */
	EXPECT_EQ(hashmap_insert(&m, 7, 71), -EEXIST);
	ASSERT_TRUE(hashmap_find(&m, 7, &v));
	EXPECT_EQ(v, 70);
	ASSERT_TRUE(hashmap_find(&m, 0, &v));
	EXPECT_EQ(v, 1);
	EXPECT_EQ(hashmap_size(&m), 2);
	ASSERT_TRUE(hashmap_delete(&m, 7, &v));
	EXPECT_EQ(v, 70);
	EXPECT_FALSE(hashmap_find(&m, 7, NULL));
	EXPECT_TRUE(hashmap_find(&m, 0, NULL));
	EXPECT_EQ(hashmap_size(&m), 1);
	hashmap_free(&m);
	EXPECT_EQ(hashmap_size(&m), 0);
	EXPECT_FALSE(hashmap_find(&m, 0, NULL));
}

TEST(pointer_values)
{
	struct hashmap m = { 0 };
	int a = 1, b = 2;

	ASSERT_EQ(hashmap_insert(&m, 100, (uintptr_t)&a), 0);
	ASSERT_EQ(hashmap_insert(&m, 200, (uintptr_t)&b), 0);
	EXPECT_TRUE(hashmap_find_ptr(&m, 100) == &a);
	EXPECT_TRUE(hashmap_find_ptr(&m, 200) == &b);
	EXPECT_TRUE(hashmap_find_ptr(&m, 300) == NULL);
	hashmap_free(&m);
}

/* Keys that point to the caller's structures. */
struct name_key {
	const char *name;
	uint32_t n;
};

static size_t name_hash(uint64_t key, const void *ctx)
{
	const struct name_key *k = (const void *)(uintptr_t)key;
	uint64_t h = k->n;
	const char *s;

	(void)ctx;
	for (s = k->name; *s; s++)
		h = hash_mix64(h ^ (unsigned char)*s);
	return (size_t)h;
}

static bool name_equal(uint64_t stored, uint64_t key, const void *ctx)
{
	const struct name_key *a = (const void *)(uintptr_t)stored;
	const struct name_key *b = (const void *)(uintptr_t)key;

	(void)ctx;
	return a->n == b->n && !strcmp(a->name, b->name);
}

TEST(structure_keys_through_callbacks)
{
	static const struct name_key kept[] = {
		{ "read", 1 }, { "read", 2 }, { "write", 1 },
	};
	struct name_key probe = { "read", 2 };
	char copy[] = "write";
	struct hashmap m;
	uint64_t v;
	size_t i;

	hashmap_init(&m, name_hash, name_equal, NULL);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(hashmap_insert(&m, (uintptr_t)&kept[i], i), 0);
	ASSERT_TRUE(hashmap_find(&m, (uintptr_t)&probe, &v));
	EXPECT_EQ(v, 1);
	probe.name = copy;	/* equal by content, not by address */
	probe.n = 1;
	ASSERT_TRUE(hashmap_find(&m, (uintptr_t)&probe, &v));
	EXPECT_EQ(v, 2);
	probe.n = 3;
	EXPECT_FALSE(hashmap_find(&m, (uintptr_t)&probe, NULL));
	EXPECT_EQ(hashmap_insert(&m, (uintptr_t)&kept[0], 9), -EEXIST);
	hashmap_free(&m);
}

TEST(iteration_visits_each_entry_once)
{
	struct hashmap m = { 0 };
	const struct hashmap_entry *e;
	uint64_t sum = 0, n = 0;
	size_t pos;
	uint64_t k;

	for (k = 1; k <= 1000; k++)
		ASSERT_EQ(hashmap_insert(&m, k * 4096, k), 0);
	for (k = 1; k <= 1000; k += 2)
		ASSERT_TRUE(hashmap_delete(&m, k * 4096, NULL));
	hashmap_for_each(&m, e, pos) {
		EXPECT_EQ(e->key, e->value * 4096);
		sum += e->value;
		n++;
	}
	EXPECT_EQ(n, 500);
	EXPECT_EQ(sum, 500 * 501);	/* 2 + 4 + ... + 1000 */
	hashmap_free(&m);
}

TEST(reserve_then_no_growth)
{
	struct hashmap m = { 0 };
	size_t bytes;
	uint64_t k;

	ASSERT_EQ(hashmap_reserve(&m, 1000), 0);
	bytes = hashmap_mem_bytes(&m);
	for (k = 0; k < 1000; k++)
		ASSERT_EQ(hashmap_insert(&m, k, k), 0);
	EXPECT_EQ(hashmap_mem_bytes(&m), bytes);
	hashmap_free(&m);
}

/*
 * Threads that come and go for ever, with tids reused: every operation
 * checked against an array indexed by tid, and the table never larger
 * than the live threads need.
 */
#define CHURN_TIDS	4096
#define CHURN_LIVE	64

TEST(churn_keeps_every_key_findable_and_the_table_small)
{
	static uint64_t truth[CHURN_TIDS];	/* value + 1, 0: absent */
	struct hashmap m = { 0 };
	uint64_t rng = 42, v;
	size_t live = 0, peak = 0;
	int step;

	for (step = 0; step < 200000; step++) {
		uint32_t tid = (uint32_t)(ispot_test_rand(&rng) % CHURN_TIDS);
		bool there = truth[tid] != 0;

		if (!there && live < CHURN_LIVE) {
			ASSERT_EQ(hashmap_insert(&m, tid, step), 0);
			truth[tid] = (uint64_t)step + 1;
			live++;
		} else if (there) {
			ASSERT_TRUE(hashmap_find(&m, tid, &v));
			ASSERT_EQ(v + 1, truth[tid]);
			ASSERT_TRUE(hashmap_delete(&m, tid, NULL));
			truth[tid] = 0;
			live--;
		} else {
			ASSERT_FALSE(hashmap_find(&m, tid, NULL));
		}
		ASSERT_EQ(hashmap_size(&m), live);
		if (hashmap_mem_bytes(&m) > peak)
			peak = hashmap_mem_bytes(&m);
	}
	for (step = 0; step < CHURN_TIDS; step++)
		ASSERT_EQ(hashmap_find(&m, step, &v), truth[step] != 0);
	/* Room for 64 keys at most half full: 128 slots, never more. */
	EXPECT_LE(peak, 128 * sizeof(struct hashmap_entry) + 2 * 8);
	hashmap_free(&m);
}

TEST_HARNESS_MAIN
