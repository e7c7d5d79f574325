// SPDX-License-Identifier: GPL-2.0
/*
 * util/procstat.h's thread_cpu_ns(), against this thread's own CPU clock:
 * in ns where the kernel counts them (schedstat), as the sampler's ranking
 * of waiting threads needs (a 10 ms tick rounds a second's few ms to 0).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "ispot_test.h"
#include "util/procstat.h"

static uint64_t own_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static volatile unsigned long sink;

TEST(a_thread_cpu_time_in_ns)
{
	uint64_t start = own_cpu_ns(), before, after, ns;
	FILE *f = fopen("/proc/self/schedstat", "re");
	unsigned long long kept = 0;

	if (f) {
		if (fscanf(f, "%llu", &kept) != 1)
			kept = 0;
		fclose(f);
	}
	if (!kept)
		SKIP("this kernel keeps no schedstat (CONFIG_SCHED_INFO)");
	while (own_cpu_ns() - start < 50 * 1000 * 1000ull)
		sink++;
	before = own_cpu_ns();
	ASSERT_EQ(thread_cpu_ns(getpid(), gettid(), &ns), 0);
	after = own_cpu_ns();
	printf("# thread_cpu_ns %llu, own clock %llu to %llu\n",
	       (unsigned long long)ns, (unsigned long long)before,
	       (unsigned long long)after);
	/*
	 * The thread's clock brings the scheduler's count up to date, so
	 * the two agree (a 10 ms tick of slack for a kernel that would not).
	 */
	EXPECT_LE(ns, after);
	EXPECT_GT(ns + 10 * 1000 * 1000ull, before);
	/* Not whole ticks, as the stat's utime and stime are (USER_HZ). */
	EXPECT_NE(ns % (1000000000ull / sysconf(_SC_CLK_TCK)), 0);
}

TEST(a_gone_thread_is_esrch)
{
	uint64_t ns = 7;

	EXPECT_EQ(thread_cpu_ns(getpid(), 0x7ffffff0, &ns), -ESRCH);
	EXPECT_EQ(ns, 7);
}

TEST_HARNESS_MAIN
