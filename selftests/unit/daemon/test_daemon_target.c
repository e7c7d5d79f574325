// SPDX-License-Identifier: GPL-2.0
/*
 * One of ispotd's targets (user/daemon/target.c) is a process, its pid and
 * its start time: one whose pid went to another process between discovery
 * and target_init() is not added, though its pid, exe and CPUs read as a
 * live process's.  The pid is brought round through ns_last_pid
 * (pid_reuse.h), which root may write.
 */
#include <errno.h>
#include <string.h>

#include "ispot_test.h"
#include "pid_reuse.h"
#include "target.h"
#include "util/procstat.h"

#define S	1000000000ull

static int init(struct target *tg, pid_t pid, uint64_t start)
{
	return target_init(tg, pid, start, NULL, 0.01, 1000.0, 1e6, S,
			   2 * S, S);
}

TEST(a_target_whose_pid_went_to_another_process_is_not_added)
{
	uint64_t start, start2;
	struct target tg;
	pid_t first, second;

	first = fork_waiting();
	ASSERT_GT(first, 0);
	ASSERT_EQ(proc_start_time(first, &start), 0);
	/* The process itself is a target. */
	ASSERT_EQ(init(&tg, first, start), 0);
	EXPECT_NE(tg.exe[0], '\0');
	target_free(&tg);
	reap_child(first);
	/* Gone, its pid free: not one. */
	EXPECT_EQ(init(&tg, first, start), -ESRCH);
	target_free(&tg);
	second = fork_at_pid(first, start, NULL, NULL);
	if (second < 0)
		SKIP("cannot give pid %d to a new process here: %s",
		     (int)first, strerror(-second));
	/* Its pid another process's: not one either. */
	EXPECT_EQ(init(&tg, first, start), -ESRCH);
	target_free(&tg);
	/* That process, known as itself, is. */
	ASSERT_EQ(proc_start_time(second, &start2), 0);
	EXPECT_EQ(init(&tg, second, start2), 0);
	target_free(&tg);
	reap_child(second);
}

TEST_HARNESS_MAIN
