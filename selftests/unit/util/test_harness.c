// SPDX-License-Identifier: GPL-2.0
/*
 * The unit harness itself (selftests/ispot_test.h): a fixture's setup runs
 * before each TEST_F and its teardown after, even after a failed ASSERT;
 * each variant runs every test once, under "fixture.variant.test"; and a
 * failed EXPECT in a TEST_F is reported as "not ok"; a SKIP in a setup
 * skips the test without a teardown.
 *
 * The fixtures below are the specimen.  This program runs itself again
 * with "--specimen" to run only them, reads their TAP output and exit
 * code, and checks those; run without it, it runs only the plain TEST()s
 * that do the checking, so the specimen's deliberate failures never fail
 * the suite.
 */
#include <stdbool.h>

#include "ispot_test.h"

/* ---- the specimen: each step prints a "# trace" line ---- */

#define TRACE(fmt, ...)	printf("# trace " fmt "\n", ##__VA_ARGS__)

FIXTURE(counted) {
	int value;	/* set by the setup, from the variant */
};

FIXTURE_VARIANT(counted) {
	int value;
};

FIXTURE_VARIANT_ADD(counted, one) {
	.value = 1,
};

FIXTURE_VARIANT_ADD(counted, two) {
	.value = 2,
};

FIXTURE_SETUP(counted)
{
	self->value = variant->value;
	TRACE("setup %d", variant->value);
}

FIXTURE_TEARDOWN(counted)
{
	TRACE("teardown %d saw %d", variant->value, self->value);
}

TEST_F(counted, sees_its_setup)
{
	TRACE("test %d", self->value);
	EXPECT_EQ(self->value, variant->value);
	self->value *= 10;	/* the teardown sees what the test did */
}

TEST_F(counted, expect_fails)
{
	EXPECT_EQ(self->value, 0);
	TRACE("after EXPECT %d", self->value);	/* an EXPECT goes on */
}

TEST_F(counted, assert_fails)
{
	ASSERT_EQ(self->value, 0);
	TRACE("after ASSERT %d", self->value);	/* never printed */
}

/* No variant: the name has no middle part. */
FIXTURE(plain) {
	int unused;
};

FIXTURE_SETUP(plain)
{
	TRACE("setup plain");
}

FIXTURE_TEARDOWN(plain)
{
	TRACE("teardown plain");
}

TEST_F(plain, runs_once)
{
	TRACE("test plain");
}

/* A SKIP in the setup skips the test, and there is nothing to tear down. */
FIXTURE(skipped) {
	int unused;
};

FIXTURE_SETUP(skipped)
{
	TRACE("setup skipped");
	SKIP("the setup found nothing to test");
}

FIXTURE_TEARDOWN(skipped)
{
	TRACE("teardown skipped");	/* never printed */
}

TEST_F(skipped, never_runs)
{
	TRACE("test skipped");		/* never printed */
}

/* ---- the checks, on the specimen's output ---- */

struct specimen {
	char out[8192];
	int status;	/* its exit code */
};

/*
 * Run this program with --specimen and collect what it prints; @only, if
 * not NULL, as its ISPOT_TEST_ONLY.
 */
static void run_specimen(struct specimen *s, const char *only)
{
	size_t len = 0;
	int fd[2], status;
	ssize_t n;
	pid_t pid;

	ASSERT_EQ(pipe(fd), 0);
	fflush(stdout);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		if (only)
			setenv("ISPOT_TEST_ONLY", only, 1);
		else
			unsetenv("ISPOT_TEST_ONLY");
		execl("/proc/self/exe", "test_harness", "--specimen", NULL);
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], s->out + len, sizeof(s->out) - 1 - len)) > 0)
		len += n;
	s->out[len] = '\0';
	close(fd[0]);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	s->status = WEXITSTATUS(status);
}

/* The lines of @out that start with @prefix, in order, one per line. */
static void lines_with(const char *out, const char *prefix, char *buf,
		       size_t size)
{
	size_t plen = strlen(prefix), used = 0;
	const char *line = out, *end;

	buf[0] = '\0';
	while (*line) {
		end = strchrnul(line, '\n');
		if (!strncmp(line, prefix, plen) && used + (end - line) + 2 < size)
			used += sprintf(buf + used, "%.*s\n", (int)(end - line),
					line);
		line = *end ? end + 1 : end;
	}
}

TEST(setup_runs_before_and_teardown_after_each_test)
{
	struct specimen s;
	char got[4096];

	run_specimen(&s, NULL);
	lines_with(s.out, "# trace ", got, sizeof(got));
	EXPECT_STREQ(got,
		     "# trace setup 1\n"
		     "# trace test 1\n"
		     "# trace teardown 1 saw 10\n"
		     "# trace setup 1\n"
		     "# trace after EXPECT 1\n"
		     "# trace teardown 1 saw 1\n"
		     "# trace setup 1\n"
		     "# trace teardown 1 saw 1\n"
		     "# trace setup 2\n"
		     "# trace test 2\n"
		     "# trace teardown 2 saw 20\n"
		     "# trace setup 2\n"
		     "# trace after EXPECT 2\n"
		     "# trace teardown 2 saw 2\n"
		     "# trace setup 2\n"
		     "# trace teardown 2 saw 2\n"
		     "# trace setup plain\n"
		     "# trace test plain\n"
		     "# trace teardown plain\n"
		     "# trace setup skipped\n");
}

TEST(each_variant_runs_each_test_once_under_its_name)
{
	struct specimen s;
	char got[4096];

	run_specimen(&s, NULL);
	EXPECT_TRUE(strstr(s.out, "TAP version 13\n1..8\n") == s.out);
	lines_with(s.out, "ok ", got, sizeof(got));
	EXPECT_STREQ(got,
		     "ok 1 counted.one.sees_its_setup\n"
		     "ok 4 counted.two.sees_its_setup\n"
		     "ok 7 plain.runs_once\n"
		     "ok 8 skipped.never_runs # SKIP\n");
}

TEST(failed_checks_in_a_test_f_are_reported)
{
	struct specimen s;
	char got[4096];

	run_specimen(&s, NULL);
	lines_with(s.out, "not ok ", got, sizeof(got));
	EXPECT_STREQ(got,
		     "not ok 2 counted.one.expect_fails\n"
		     "not ok 3 counted.one.assert_fails\n"
		     "not ok 5 counted.two.expect_fails\n"
		     "not ok 6 counted.two.assert_fails\n");
	EXPECT_TRUE(strstr(s.out, "# Totals: pass:3 fail:4 skip:1\n"));
	EXPECT_EQ(s.status, KSFT_FAIL);
}

TEST(only_the_tests_whose_name_holds_the_selection_run)
{
	struct specimen s;
	char got[4096];

	run_specimen(&s, ".two.");
	lines_with(s.out, "ok ", got, sizeof(got));
	EXPECT_STREQ(got,
		     "ok 1 counted.one.sees_its_setup # SKIP not selected\n"
		     "ok 2 counted.one.expect_fails # SKIP not selected\n"
		     "ok 3 counted.one.assert_fails # SKIP not selected\n"
		     "ok 4 counted.two.sees_its_setup\n"
		     "ok 7 plain.runs_once # SKIP not selected\n"
		     "ok 8 skipped.never_runs # SKIP not selected\n");
	lines_with(s.out, "# trace setup", got, sizeof(got));
	EXPECT_STREQ(got, "# trace setup 2\n# trace setup 2\n"
			  "# trace setup 2\n");
	EXPECT_TRUE(strstr(s.out, "# Totals: pass:1 fail:2 skip:5\n"));
}

/* Keep in the list of tests only the specimen's, or only the checks. */
static void keep_only(bool specimen)
{
	struct ispot_test **link = &ispot_tests_head;

	while (*link) {
		if (((*link)->fixture != NULL) == specimen)
			link = &(*link)->next;
		else
			*link = (*link)->next;
	}
	ispot_tests_tail = link;
}

int main(int argc, char **argv)
{
	keep_only(argc == 2 && !strcmp(argv[1], "--specimen"));
	return ispot_test_main();
}
