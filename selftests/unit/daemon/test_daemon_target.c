// SPDX-License-Identifier: GPL-2.0
/*
 * One of ispotd's targets (user/daemon/target.c) is a process, its pid and
 * its start time: one whose pid went to another process between discovery
 * and target_init() is not added, though its pid, exe and CPUs read as a
 * live process's.  The pid is brought round through ns_last_pid
 * (pid_reuse.h), which root may write.
 *
 * The daemon's targets (target_list) never move once made: an armed
 * burst's session inside one is the context of the library's callbacks,
 * and ispotd crashed when adding a target moved the others (realloc) or
 * dropping one copied the last into its place.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Target @n of @l, told by the name given to it as its cgroup. */
static struct target *nth(const struct target_list *l, int n)
{
	char name[32];
	size_t i;

	snprintf(name, sizeof(name), "t%d", n);
	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i]->cgroup, name))
			return l->v[i];
	return NULL;
}

/*
 * What an armed burst's callbacks hold (&tg->tr, and the session's
 * &tg->opts) stays the target's while others are added (the array of
 * them grows) and dropped (the last one fills the gap).
 */
TEST(a_listed_target_stays_where_it_was_made)
{
	enum { N = 40 };
	struct target_list l = { 0 };
	struct trace *ctx[N];
	struct trace_opts *opts[N];
	struct target *tg;
	uint64_t start;
	char name[32];
	int i;

	ASSERT_EQ(proc_start_time(getpid(), &start), 0);
	for (i = 0; i < N; i++) {
		tg = target_list_add(&l);
		ASSERT_NE(tg, NULL);
		EXPECT_EQ(l.v[l.nr - 1], tg);
		snprintf(name, sizeof(name), "t%d", i);
		ASSERT_EQ(target_init(tg, getpid(), start, name, 0.01, 1000.0,
				      1e6, S, 2 * S, S), 0);
		ctx[i] = &tg->tr;
		opts[i] = &tg->opts;
	}
	ASSERT_EQ(l.nr, (size_t)N);
	/* Every one where it was, after all the growth. */
	for (i = 0; i < N; i++) {
		tg = nth(&l, i);
		ASSERT_NE(tg, NULL);
		EXPECT_EQ(&tg->tr, ctx[i]);
		EXPECT_EQ(&tg->opts, opts[i]);
	}
	/* Drop the even ones, first to last: the last fills each gap. */
	for (i = 0; i < N; i += 2) {
		size_t k = 0;

		tg = nth(&l, i);
		ASSERT_NE(tg, NULL);
		while (l.v[k] != tg)
			k++;
		target_list_remove(&l, k);
	}
	ASSERT_EQ(l.nr, (size_t)N / 2);
	for (i = 0; i < N; i++) {
		tg = nth(&l, i);
		if (i % 2) {
			ASSERT_NE(tg, NULL);
			EXPECT_EQ(&tg->tr, ctx[i]);
			EXPECT_EQ(&tg->opts, opts[i]);
			EXPECT_EQ(tg->pid, getpid());
		} else {
			EXPECT_EQ(tg, NULL);
		}
	}
	/* A failed target_init() is removed again, the others untouched. */
	tg = target_list_add(&l);
	ASSERT_NE(tg, NULL);
	EXPECT_EQ(target_init(tg, getpid(), start + 1, "x", 0.01, 1000.0,
			      1e6, S, 2 * S, S), -ESRCH);
	target_list_remove(&l, l.nr - 1);
	EXPECT_EQ(l.nr, (size_t)N / 2);
	EXPECT_EQ(&nth(&l, N - 1)->tr, ctx[N - 1]);
	target_list_free(&l);
	EXPECT_EQ(l.nr, (size_t)0);
	EXPECT_EQ(l.v, NULL);
}

TEST_HARNESS_MAIN
