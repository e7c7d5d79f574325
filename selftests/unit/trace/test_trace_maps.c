// SPDX-License-Identifier: GPL-2.0
/*
 * The target's maps read for names, and how often (trace_maps.c): an
 * address outside the snapshot re-reads them (a mapping made since is
 * found), but at most once every 10 ms, so that an integer argument
 * labelled at every call, or a garbage stack frame, costs no read of
 * /proc/PID/maps each time; nothing above user memory re-reads them.  A
 * report reads them once (trace_maps_for_report()), then labels any
 * number of keys outside them with no read; a live Perfetto trace's
 * names follow them once a second (trace_maps_follow()).  The process
 * read is this test; the reads are counted by elf_symbolizer_reads().
 */
#include <sys/mman.h>

#include "ispot_test.h"
#include "report/report.h"
#include "trace/trace_internal.h"

#define MS		(1000 * 1000ull)
#define AREA		(1 << 16)
#define LABELS		1000
#define TRIES		20

static void *area(void)
{
	void *m = mmap(NULL, AREA, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

/* A number in no mapping: below the lowest a process may map. */
static uint64_t unmapped(unsigned int i)
{
	return 4096 + 8 * (uint64_t)i;
}

TEST(a_miss_rereads_the_maps_at_most_every_10_ms)
{
	uint64_t start, reads;
	void *first, *second = NULL, *tries_areas[TRIES] = { NULL };
	struct trace t;
	bool held;
	int tries;
	unsigned int i;

	memset(&t, 0, sizeof(t));
	/* No snapshot yet: nothing is held. */
	EXPECT_FALSE(trace_maps_hold(&t, (uintptr_t)&t));
	t.sym = elf_symbolizer_new(0, NULL, 0);
	ASSERT_TRUE(t.sym);
	EXPECT_TRUE(trace_maps_hold(&t, (uintptr_t)&t));
	EXPECT_EQ(t.live.maps_reread_ns, 0);
	/* The first miss reads them again: made since, and found. */
	first = area();
	ASSERT_TRUE(first);
	EXPECT_TRUE(trace_maps_hold(&t, (uintptr_t)first));
	EXPECT_NE(t.live.maps_reread_ns, 0);
	/*
	 * A miss right after one does not.  A try that stalled past the
	 * 10 ms (a busy host) re-read them, and found its area: another
	 * try, with an area of its own.
	 */
	for (tries = 0; tries < TRIES; tries++) {
		/* Each its own: none unmapped, no address reused. */
		second = tries_areas[tries] = area();
		ASSERT_TRUE(second);
		t.live.maps_reread_ns = trace_now();
		reads = elf_symbolizer_reads(t.sym);
		held = trace_maps_hold(&t, (uintptr_t)second);
		if (elf_symbolizer_reads(t.sym) == reads)
			break;
	}
	ASSERT_LT(tries, TRIES);
	EXPECT_FALSE(held);
	/* Past the 10 ms, the next one does. */
	t.live.maps_reread_ns = trace_now() - 11 * MS;
	EXPECT_TRUE(trace_maps_hold(&t, (uintptr_t)second));
	/* Above user memory, never. */
	t.live.maps_reread_ns = 0;
	EXPECT_FALSE(trace_maps_hold(&t, 0x900000000000ull));
	EXPECT_EQ(t.live.maps_reread_ns, 0);
	/*
	 * Numbers in no mapping, one after another: one read every 10 ms
	 * of the loop at most, not one each.
	 */
	reads = elf_symbolizer_reads(t.sym);
	start = trace_now();
	for (i = 0; i < LABELS; i++)
		EXPECT_FALSE(trace_maps_hold(&t, unmapped(i)));
	EXPECT_LE(elf_symbolizer_reads(t.sym) - reads,
		  1 + (trace_now() - start) / (10 * MS));
	elf_symbolizer_free(t.sym);
	munmap(first, AREA);
	for (tries = 0; tries < TRIES && tries_areas[tries]; tries++)
		munmap(tries_areas[tries], AREA);
}

/*
 * A report's labels: the maps read once, a mapping made before that
 * named; then a thousand keys by argument that are plain numbers,
 * labelled as numbers with no read, and a mapping made since not named.
 */
TEST(a_report_reads_the_maps_once_for_all_its_labels)
{
	const struct key_rule rule = { .kind = KEY_ARG, .arg = 0 };
	struct elf_addr_info info;
	char label[64], want[64];
	struct trace t;
	uint64_t reads;
	void *before, *after;
	unsigned int i;

	memset(&t, 0, sizeof(t));
	t.sym = elf_symbolizer_new(0, NULL, 0);
	ASSERT_TRUE(t.sym);
	before = area();
	ASSERT_TRUE(before);
	reads = elf_symbolizer_reads(t.sym);
	trace_maps_for_report(&t);
	EXPECT_EQ(elf_symbolizer_reads(t.sym), reads + 1);
	EXPECT_TRUE(elf_symbolizer_knows(t.sym, (uintptr_t)before));
	for (i = 0; i < LABELS; i++) {
		/* An argument's key is its value plus one. */
		report_key_label(&rule, t.sym, unmapped(i) + 1, label,
				 sizeof(label));
		snprintf(want, sizeof(want), "0x%llx",
			 (unsigned long long)unmapped(i));
		EXPECT_STREQ(label, want);
	}
	after = area();
	ASSERT_TRUE(after);
	EXPECT_EQ(elf_symbolize(t.sym, (uintptr_t)after, &info, NULL, 0),
		  -ENOENT);
	EXPECT_EQ(elf_symbolizer_reads(t.sym), reads + 1);
	elf_symbolizer_free(t.sym);
	munmap(before, AREA);
	munmap(after, AREA);
}

/*
 * A live Perfetto trace's names follow the maps once a second, misses or
 * not, where a key is labelled from an address; a session without a
 * trace, or whose keys are no addresses (log2 buckets), does not read
 * them so.
 */
TEST(a_live_trace_follows_the_maps_once_a_second)
{
	struct trace_func funcs[2];
	struct trace t;
	uint64_t now, reads;

	memset(&t, 0, sizeof(t));
	memset(funcs, 0, sizeof(funcs));
	funcs[0].key = (struct key_rule){ .kind = KEY_ARG, .log2 = true };
	t.funcs = funcs;
	t.nr_funcs = 1;
	t.sym = elf_symbolizer_new(0, NULL, 0);
	ASSERT_TRUE(t.sym);
	reads = elf_symbolizer_reads(t.sym);
	now = trace_now();
	t.live.maps_reread_ns = now - 2000 * MS;
	trace_maps_follow(&t, now);		/* no trace: no read */
	EXPECT_EQ(elf_symbolizer_reads(t.sym), reads);
	/* Only tested for being there: never written to here. */
	t.out.perfetto = (struct perfetto *)&t;
	trace_maps_follow(&t, now);		/* no address key: none */
	EXPECT_EQ(elf_symbolizer_reads(t.sym), reads);
	funcs[1].key = (struct key_rule){ .kind = KEY_ARG, .arg = 1 };
	t.nr_funcs = 2;
	t.live.maps_reread_ns = now - 500 * MS;
	trace_maps_follow(&t, now);
	EXPECT_EQ(elf_symbolizer_reads(t.sym), reads);
	t.live.maps_reread_ns = now - 1100 * MS;
	trace_maps_follow(&t, now);
	EXPECT_EQ(elf_symbolizer_reads(t.sym), reads + 1);
	EXPECT_EQ(t.live.maps_reread_ns, now);
	trace_maps_follow(&t, now + 10 * MS);
	EXPECT_EQ(elf_symbolizer_reads(t.sym), reads + 1);
	elf_symbolizer_free(t.sym);
}

TEST_HARNESS_MAIN
