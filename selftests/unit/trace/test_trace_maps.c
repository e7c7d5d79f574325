// SPDX-License-Identifier: GPL-2.0
/*
 * trace_maps_hold(): an address outside the maps snapshot re-reads them
 * (a mapping made since is found), but at most once every 10 ms, so that
 * an integer argument labelled as an address at every call, or a garbage
 * stack frame, costs no read of /proc/PID/maps each time; nothing above
 * user memory re-reads them at all.  The process read is this test.
 */
#include <sys/mman.h>

#include "ispot_test.h"
#include "trace/trace_internal.h"

#define MS		(1000 * 1000ull)
#define AREA		(1 << 16)

static void *area(void)
{
	void *m = mmap(NULL, AREA, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

TEST(a_miss_rereads_the_maps_at_most_every_10_ms)
{
	struct trace t;
	void *first, *second;
	uint64_t since;
	int tries;
	bool held;

	memset(&t, 0, sizeof(t));
	EXPECT_FALSE(trace_maps_hold(&t, (uintptr_t)&t));	/* no snapshot */
	t.sym = elf_symbolizer_new(0, NULL, 0);
	ASSERT_TRUE(t.sym);
	EXPECT_TRUE(trace_maps_hold(&t, (uintptr_t)&t));
	EXPECT_EQ(t.live.maps_missed, 0);
	/* The first miss reads them again: made since, and found. */
	first = area();
	ASSERT_TRUE(first);
	EXPECT_TRUE(trace_maps_hold(&t, (uintptr_t)first));
	EXPECT_NE(t.live.maps_missed, 0);
	/*
	 * A miss right after one does not.  Judged only where the call
	 * came within 5 ms of the last read: a host that stalls this test
	 * longer gives another try, not a failure.
	 */
	second = area();
	ASSERT_TRUE(second);
	for (tries = 0; tries < 20; tries++) {
		t.live.maps_missed = trace_now();
		since = t.live.maps_missed;
		held = trace_maps_hold(&t, (uintptr_t)second);
		if (trace_now() - since < 5 * MS)
			break;
	}
	ASSERT_LT(tries, 20);
	EXPECT_FALSE(held);
	EXPECT_EQ(t.live.maps_missed, since);
	/* Past the 10 ms, the next one does. */
	t.live.maps_missed = trace_now() - 11 * MS;
	EXPECT_TRUE(trace_maps_hold(&t, (uintptr_t)second));
	/* Above user memory, never. */
	t.live.maps_missed = 0;
	EXPECT_FALSE(trace_maps_hold(&t, 0x900000000000ull));
	EXPECT_EQ(t.live.maps_missed, 0);
	elf_symbolizer_free(t.sym);
	munmap(first, AREA);
	munmap(second, AREA);
}

TEST_HARNESS_MAIN
