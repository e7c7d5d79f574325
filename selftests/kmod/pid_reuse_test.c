// SPDX-License-Identifier: GPL-2.0
/*
 * A session started on a process known as (pid, start time), as ispotd
 * knows its targets (user/lib/trace, trace_start() with t->pid_start):
 * once that process is gone and its pid another's, the module's setup
 * binds the new process, and the session is refused before any probe
 * is armed.  The pid is brought round through ns_last_pid (root).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ispot_test.h"
#include "trace/trace.h"
#include "pid_reuse.h"
#include "util/procstat.h"

__attribute__((noinline, used)) int reuse_target_fn(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

/*
 * A session on @pid, known to have started at @start, probing
 * reuse_target_fn (@pid is a fork of this program): trace_start()'s
 * answer, 0 or -1.
 */
static int start_on(pid_t pid, uint64_t start)
{
	struct trace_opts o = { .ring_bytes = OPT_DEFAULT_RING_BYTES };
	struct trace t;
	int rc = -1;

	o.funcs[0] = "reuse_target_fn";
	o.nr_funcs = 1;
	if (!trace_open(&t, &o, MODE_ATTACH)) {
		t.pid_start = start;
		if (!trace_resolve(&t, pid, NULL))
			rc = trace_start(&t, pid);
	}
	trace_free(&t);
	return rc;
}

TEST(a_pid_given_to_another_process_is_not_traced)
{
	pid_t first, second;
	uint64_t start, start2;

	first = fork_waiting();
	ASSERT_GT(first, 0);
	ASSERT_EQ(proc_start_time(first, &start), 0);
	/* The process itself is traced. */
	ASSERT_EQ(start_on(first, start), 0);
	reap_child(first);
	second = fork_at_pid(first, start, NULL, NULL);
	if (second < 0)
		SKIP("cannot give pid %d to a new process here: %s",
		     (int)first, strerror(-second));
	/* Its pid's next process is not. */
	EXPECT_EQ(start_on(second, start), -1);
	/* Known as itself, that one is. */
	ASSERT_EQ(proc_start_time(second, &start2), 0);
	EXPECT_NE(start2, start);
	EXPECT_EQ(start_on(second, start2), 0);
	reap_child(second);
}

TEST_HARNESS_MAIN
