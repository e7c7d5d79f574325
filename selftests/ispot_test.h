/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal kselftest-style harness shared by the native unit tests and the
 * in-guest selftests.
 *
 * Each TEST() runs in a forked child so that a crash or an ASSERT in one test
 * cannot hide the result of the next.  Output is TAP 13; the process exits
 * 0 when nothing failed, 1 on any failure and 4 (KSFT_SKIP) when every test
 * was skipped, which is what the check script counts.
 *
 *	TEST(name) { ASSERT_EQ(1 + 1, 2); }
 *	TEST_HARNESS_MAIN
 */
#ifndef ISPOT_TEST_H
#define ISPOT_TEST_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

struct ispot_test {
	const char *name;
	void (*fn)(void);
	struct ispot_test *next;
};

static struct ispot_test *ispot_tests_head, **ispot_tests_tail = &ispot_tests_head;
static int ispot_test_failed;	/* set by EXPECT_* in the child */

/* Record a failed check; a fatal one ends the test here. */
static inline void ispot_test_fail(int fatal)
{
	ispot_test_failed = 1;
	if (fatal) {
		fflush(stdout);
		_exit(KSFT_FAIL);
	}
}

/* xorshift64*: deterministic, so a failing randomised test reproduces. */
static inline uint64_t ispot_test_rand(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

static inline void ispot_test_register(struct ispot_test *t)
{
	*ispot_tests_tail = t;
	ispot_tests_tail = &t->next;
}

#define TEST(name)							\
	static void test_##name(void);					\
	static struct ispot_test ispot_test_##name = { #name, test_##name, NULL }; \
	static void __attribute__((constructor)) ispot_reg_##name(void)	\
	{ ispot_test_register(&ispot_test_##name); }			\
	static void test_##name(void)

#define TH_LOG(fmt, ...)						\
	fprintf(stdout, "# %s:%d: " fmt "\n", __FILE__, __LINE__, ##__VA_ARGS__)

/* Skip the running test; the reason ends up on the TAP line. */
#define SKIP(fmt, ...) do {						\
	fprintf(stdout, "#SKIP " fmt "\n", ##__VA_ARGS__);		\
	fflush(stdout);							\
	_exit(KSFT_SKIP);						\
} while (0)

#define __ISPOT_CMP(a, op, b, fatal, sa, sb) do {			\
	long long __a = (long long)(a), __b = (long long)(b);		\
	if (!(__a op __b)) {						\
		TH_LOG("expected %s %s %s (%lld vs %lld)",		\
		       sa, #op, sb, __a, __b);				\
		ispot_test_fail(fatal);					\
	}								\
} while (0)

#define ASSERT_EQ(a, b)	__ISPOT_CMP(a, ==, b, 1, #a, #b)
#define ASSERT_NE(a, b)	__ISPOT_CMP(a, !=, b, 1, #a, #b)
#define ASSERT_LT(a, b)	__ISPOT_CMP(a, <, b, 1, #a, #b)
#define ASSERT_LE(a, b)	__ISPOT_CMP(a, <=, b, 1, #a, #b)
#define ASSERT_GT(a, b)	__ISPOT_CMP(a, >, b, 1, #a, #b)
#define ASSERT_GE(a, b)	__ISPOT_CMP(a, >=, b, 1, #a, #b)
#define ASSERT_TRUE(a)	__ISPOT_CMP(!!(a), ==, 1, 1, #a, "true")
#define ASSERT_FALSE(a)	__ISPOT_CMP(!!(a), ==, 0, 1, #a, "false")
#define EXPECT_EQ(a, b)	__ISPOT_CMP(a, ==, b, 0, #a, #b)
#define EXPECT_NE(a, b)	__ISPOT_CMP(a, !=, b, 0, #a, #b)
#define EXPECT_LT(a, b)	__ISPOT_CMP(a, <, b, 0, #a, #b)
#define EXPECT_LE(a, b)	__ISPOT_CMP(a, <=, b, 0, #a, #b)
#define EXPECT_GT(a, b)	__ISPOT_CMP(a, >, b, 0, #a, #b)
#define EXPECT_GE(a, b)	__ISPOT_CMP(a, >=, b, 0, #a, #b)
#define EXPECT_TRUE(a)	__ISPOT_CMP(!!(a), ==, 1, 0, #a, "true")
#define EXPECT_FALSE(a)	__ISPOT_CMP(!!(a), ==, 0, 0, #a, "false")

#define __ISPOT_STR(a, b, want, fatal) do {				\
	const char *__a = (a), *__b = (b);				\
	if ((strcmp(__a, __b) == 0) != (want)) {			\
		TH_LOG("expected %s %s %s (\"%s\" vs \"%s\")",		\
		       #a, (want) ? "==" : "!=", #b, __a, __b);		\
		ispot_test_fail(fatal);					\
	}								\
} while (0)

#define ASSERT_STREQ(a, b)	__ISPOT_STR(a, b, 1, 1)
#define ASSERT_STRNE(a, b)	__ISPOT_STR(a, b, 0, 1)
#define EXPECT_STREQ(a, b)	__ISPOT_STR(a, b, 1, 0)

/* |a - b| <= eps, for floating-point results such as SCI scores. */
#define __ISPOT_NEAR(a, b, eps, fatal) do {				\
	double __a = (a), __b = (b), __e = (eps);			\
	if (!(fabs(__a - __b) <= __e)) {				\
		TH_LOG("expected %s ~= %s (%.9g vs %.9g, eps %.3g)",	\
		       #a, #b, __a, __b, __e);				\
		ispot_test_fail(fatal);					\
	}								\
} while (0)

#define ASSERT_NEAR(a, b, eps)	__ISPOT_NEAR(a, b, eps, 1)
#define EXPECT_NEAR(a, b, eps)	__ISPOT_NEAR(a, b, eps, 0)

static inline int ispot_test_run_one(struct ispot_test *t)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return KSFT_FAIL;
	}
	if (pid == 0) {
		t->fn();
		fflush(stdout);
		_exit(ispot_test_failed ? KSFT_FAIL : KSFT_PASS);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status)) {
		printf("# %s: killed by signal %d\n", t->name, WTERMSIG(status));
		return KSFT_FAIL;
	}
	return WEXITSTATUS(status);
}

static inline int ispot_test_main(void)
{
	struct ispot_test *t;
	int n = 0, i = 0, pass = 0, fail = 0, skip = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (t = ispot_tests_head; t; t = t->next)
		n++;
	printf("TAP version 13\n1..%d\n", n);
	for (t = ispot_tests_head; t; t = t->next) {
		int rc = ispot_test_run_one(t);

		i++;
		if (rc == KSFT_PASS) {
			printf("ok %d %s\n", i, t->name);
			pass++;
		} else if (rc == KSFT_SKIP) {
			printf("ok %d %s # SKIP\n", i, t->name);
			skip++;
		} else {
			printf("not ok %d %s\n", i, t->name);
			fail++;
		}
	}
	printf("# Totals: pass:%d fail:%d skip:%d\n", pass, fail, skip);
	if (fail)
		return KSFT_FAIL;
	return (skip && skip == n) ? KSFT_SKIP : KSFT_PASS;
}

#define TEST_HARNESS_MAIN int main(void) { return ispot_test_main(); }

#endif /* ISPOT_TEST_H */
