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
 *
 * Tests that share a setup use a fixture, as in the kernel's
 * kselftest_harness.h.  FIXTURE_SETUP and FIXTURE_TEARDOWN are both
 * required; they run in the test's child, around the body, and teardown
 * runs even when the body ASSERTs or SKIPs (not when setup did).  Each
 * TEST_F runs once per FIXTURE_VARIANT_ADD, named "fixture.variant.test"
 * (or "fixture.test" when the fixture has no variant), variant by variant
 * in the order the kernel uses:
 *
 *	FIXTURE(engine) { struct engine *e; };
 *	FIXTURE_VARIANT(engine) { int size; };
 *	FIXTURE_VARIANT_ADD(engine, small) { .size = 1 };
 *	FIXTURE_VARIANT_ADD(engine, large) { .size = 1000 };
 *	FIXTURE_SETUP(engine) { self->e = engine_new(variant->size); }
 *	FIXTURE_TEARDOWN(engine) { engine_free(self->e); }
 *	TEST_F(engine, starts_empty) { EXPECT_EQ(engine_len(self->e), 0); }
 */
#ifndef ISPOT_TEST_H
#define ISPOT_TEST_H

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

/* One FIXTURE_VARIANT_ADD: its name and its FIXTURE_VARIANT values. */
struct ispot_variant {
	const char *name;
	const void *data;
	struct ispot_variant *next;
};

struct ispot_fixture {
	const char *name;
	struct ispot_variant *variants, **variants_tail;
	struct ispot_test *first_test;	/* where its tests start running */
};

struct ispot_test {
	const char *name;
	void (*fn)(void);			/* a TEST() */
	struct ispot_fixture *fixture;		/* a TEST_F(), run by: */
	void (*fixture_fn)(const void *variant);
	struct ispot_test *next;
};

static struct ispot_test *ispot_tests_head, **ispot_tests_tail = &ispot_tests_head;
static int ispot_test_failed;	/* set by EXPECT_* in the child */

/*
 * Where an ASSERT or a SKIP in a TEST_F's setup or body jumps, so that
 * the teardown still runs.  Only the thread that runs the test jumps: a
 * thread or a process the test started exits as it would in a TEST().
 */
static struct {
	jmp_buf env;
	long tid;
	int armed, setup_done, code;
} ispot_bail;

/* End the running test with @code (KSFT_FAIL or KSFT_SKIP). */
static inline void ispot_test_end(int code)
{
	fflush(stdout);
	if (ispot_bail.armed && ispot_bail.tid == syscall(SYS_gettid)) {
		ispot_bail.armed = 0;
		ispot_bail.code = code;
		longjmp(ispot_bail.env, 1);
	}
	_exit(code);
}

/* Record a failed check; a fatal one ends the test here. */
static inline void ispot_test_fail(int fatal)
{
	ispot_test_failed = 1;
	if (fatal)
		ispot_test_end(KSFT_FAIL);
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

#define TEST(test)							\
	static void test_##test(void);					\
	static struct ispot_test ispot_test_##test = {			\
		.name = #test, .fn = test_##test,			\
	};								\
	static void __attribute__((constructor)) ispot_reg_##test(void)	\
	{ ispot_test_register(&ispot_test_##test); }			\
	static void test_##test(void)

/* ---- fixtures, after tools/testing/selftests/kselftest_harness.h ---- */

#define FIXTURE_DATA(fix)	struct ispot_fixture_data_##fix
#define FIXTURE_VARIANT(fix)	struct ispot_fixture_variant_##fix

/* FIXTURE(fix) { fields of self }; */
#define FIXTURE(fix)							\
	FIXTURE_DATA(fix);						\
	FIXTURE_VARIANT(fix);						\
	static struct ispot_fixture ispot_fixture_##fix = {		\
		.name = #fix,						\
		.variants_tail = &ispot_fixture_##fix.variants,		\
	};								\
	static void ispot_setup_##fix(FIXTURE_DATA(fix) *self,		\
				      const FIXTURE_VARIANT(fix) *variant); \
	static void ispot_teardown_##fix(FIXTURE_DATA(fix) *self,	\
					 const FIXTURE_VARIANT(fix) *variant); \
	FIXTURE_DATA(fix)

#define FIXTURE_SETUP(fix)						\
	static void ispot_setup_##fix(					\
		FIXTURE_DATA(fix) __attribute__((unused)) *self,	\
		const FIXTURE_VARIANT(fix) __attribute__((unused)) *variant)

#define FIXTURE_TEARDOWN(fix)						\
	static void ispot_teardown_##fix(				\
		FIXTURE_DATA(fix) __attribute__((unused)) *self,	\
		const FIXTURE_VARIANT(fix) __attribute__((unused)) *variant)

static inline void ispot_variant_register(struct ispot_fixture *f,
					  struct ispot_variant *v)
{
	*f->variants_tail = v;
	f->variants_tail = &v->next;
}

/* FIXTURE_VARIANT_ADD(fix, var) { .field = value }; */
#define FIXTURE_VARIANT_ADD(fix, var)					\
	static const FIXTURE_VARIANT(fix) ispot_variant_##fix##_##var;	\
	static struct ispot_variant ispot_variant_entry_##fix##_##var = { \
		.name = #var,						\
		.data = &ispot_variant_##fix##_##var,			\
	};								\
	static void __attribute__((constructor))			\
	ispot_reg_variant_##fix##_##var(void)				\
	{								\
		ispot_variant_register(&ispot_fixture_##fix,		\
				       &ispot_variant_entry_##fix##_##var); \
	}								\
	static const FIXTURE_VARIANT(fix) ispot_variant_##fix##_##var =

static inline void ispot_test_register_f(struct ispot_test *t)
{
	if (!t->fixture->first_test)
		t->fixture->first_test = t;
	ispot_test_register(t);
}

/* Arm the jump of ispot_test_end() for this child's setup and body. */
static inline void ispot_bail_arm(void)
{
	ispot_bail.tid = syscall(SYS_gettid);
	ispot_bail.armed = 1;
	ispot_bail.setup_done = 0;
	ispot_bail.code = KSFT_PASS;
}

/* After the teardown: the code the test's child exits with. */
static inline void ispot_bail_exit(void)
{
	fflush(stdout);
	if (ispot_bail.code == KSFT_PASS && ispot_test_failed)
		ispot_bail.code = KSFT_FAIL;
	_exit(ispot_bail.code);
}

/*
 * TEST_F(fix, test) { body with self and variant }.  The child runs setup,
 * body and teardown; self is static so that it keeps its value across the
 * longjmp of a failed ASSERT (each test has a child of its own, so no two
 * tests share it).
 */
#define TEST_F(fix, test)						\
	static void ispot_tf_##fix##_##test(FIXTURE_DATA(fix) *self,	\
			const FIXTURE_VARIANT(fix) *variant);		\
	static void ispot_run_##fix##_##test(const void *variant)	\
	{								\
		static FIXTURE_DATA(fix) self;				\
									\
		ispot_bail_arm();					\
		if (!setjmp(ispot_bail.env)) {				\
			ispot_setup_##fix(&self, variant);		\
			ispot_bail.setup_done = 1;			\
			ispot_tf_##fix##_##test(&self, variant);	\
		}							\
		ispot_bail.armed = 0;					\
		if (ispot_bail.setup_done)				\
			ispot_teardown_##fix(&self, variant);		\
		ispot_bail_exit();					\
	}								\
	static struct ispot_test ispot_test_##fix##_##test = {		\
		.name = #test, .fixture = &ispot_fixture_##fix,		\
		.fixture_fn = ispot_run_##fix##_##test,			\
	};								\
	static void __attribute__((constructor))			\
	ispot_reg_##fix##_##test(void)					\
	{ ispot_test_register_f(&ispot_test_##fix##_##test); }		\
	static void ispot_tf_##fix##_##test(				\
		FIXTURE_DATA(fix) __attribute__((unused)) *self,	\
		const FIXTURE_VARIANT(fix) __attribute__((unused)) *variant)

#define TH_LOG(fmt, ...)						\
	fprintf(stdout, "# %s:%d: " fmt "\n", __FILE__, __LINE__, ##__VA_ARGS__)

/* Skip the running test; the reason ends up on the TAP line. */
#define SKIP(fmt, ...) do {						\
	fprintf(stdout, "#SKIP " fmt "\n", ##__VA_ARGS__);		\
	ispot_test_end(KSFT_SKIP);					\
} while (0)

/*
 * Comparisons are made in the operands' kind: as long double when either
 * is floating (an SCI of 0.12 against a bound of 0.1 must not compare as
 * 0 against 0), as long long otherwise (pointers, sizes, counts).
 */
#define __ISPOT_FLT(x)							\
	_Generic((x), float: 1, double: 1, long double: 1, default: 0)
#define __ISPOT_LD(x)							\
	_Generic((x), float: (x), double: (x), long double: (x), default: 0)
#define __ISPOT_AS_LD(x)						\
	(__ISPOT_FLT(x) ? (long double)__ISPOT_LD(x) :			\
			  (long double)(long long)(x))

#define __ISPOT_CMP(a, op, b, fatal, sa, sb) do {			\
	if (__ISPOT_FLT(a) || __ISPOT_FLT(b)) {				\
		long double __a = __ISPOT_AS_LD(a);			\
		long double __b = __ISPOT_AS_LD(b);			\
		if (!(__a op __b)) {					\
			TH_LOG("expected %s %s %s (%.9Lg vs %.9Lg)",	\
			       sa, #op, sb, __a, __b);			\
			ispot_test_fail(fatal);				\
		}							\
	} else {							\
		long long __a = (long long)(a), __b = (long long)(b);	\
		if (!(__a op __b)) {					\
			TH_LOG("expected %s %s %s (%lld vs %lld)",	\
			       sa, #op, sb, __a, __b);			\
			ispot_test_fail(fatal);				\
		}							\
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

/* Run @t (for a TEST_F, its variant @v) in a child; its exit code. */
static inline int ispot_test_run_one(struct ispot_test *t,
				     const struct ispot_variant *v,
				     const char *name)
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
		if (t->fixture)
			t->fixture_fn(v ? v->data : NULL);	/* exits */
		else
			t->fn();
		fflush(stdout);
		_exit(ispot_test_failed ? KSFT_FAIL : KSFT_PASS);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status)) {
		printf("# %s: killed by signal %d\n", name, WTERMSIG(status));
		return KSFT_FAIL;
	}
	return WEXITSTATUS(status);
}

struct ispot_totals {
	int n, pass, fail, skip;
};

/* Run one test, or one TEST_F in one variant, and print its TAP line. */
static inline void ispot_test_report(struct ispot_test *t,
				     const struct ispot_variant *v,
				     struct ispot_totals *sum)
{
	const char *only = getenv("ISPOT_TEST_ONLY");
	char name[256];
	int rc;

	if (!t->fixture)
		snprintf(name, sizeof(name), "%s", t->name);
	else if (v)
		snprintf(name, sizeof(name), "%s.%s.%s", t->fixture->name,
			 v->name, t->name);
	else
		snprintf(name, sizeof(name), "%s.%s", t->fixture->name,
			 t->name);
	sum->n++;
	/*
	 * ISPOT_TEST_ONLY=substring runs only the tests whose name holds it
	 * (the others report SKIP), as the kernel harness's -t does.
	 */
	if (only && !strstr(name, only)) {
		printf("ok %d %s # SKIP not selected\n", sum->n, name);
		sum->skip++;
		return;
	}
	rc = ispot_test_run_one(t, v, name);
	if (rc == KSFT_PASS) {
		printf("ok %d %s\n", sum->n, name);
		sum->pass++;
	} else if (rc == KSFT_SKIP) {
		printf("ok %d %s # SKIP\n", sum->n, name);
		sum->skip++;
	} else {
		printf("not ok %d %s\n", sum->n, name);
		sum->fail++;
	}
}

/*
 * A fixture's tests run where its first one was declared: every test in
 * the first variant, then every test in the next, as the kernel does.
 */
static inline void ispot_test_run_fixture(struct ispot_fixture *f,
					  struct ispot_totals *sum)
{
	const struct ispot_variant *v = f->variants;
	struct ispot_test *t;

	do {
		for (t = f->first_test; t; t = t->next)
			if (t->fixture == f)
				ispot_test_report(t, v, sum);
	} while (v && (v = v->next));
}

static inline int ispot_test_main(void)
{
	struct ispot_totals sum = { 0 };
	struct ispot_variant *v;
	struct ispot_test *t;
	int n = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (t = ispot_tests_head; t; t = t->next) {
		n++;
		if (t->fixture)
			for (v = t->fixture->variants; v && v->next; v = v->next)
				n++;
	}
	printf("TAP version 13\n1..%d\n", n);
	for (t = ispot_tests_head; t; t = t->next) {
		if (!t->fixture)
			ispot_test_report(t, NULL, &sum);
		else if (t == t->fixture->first_test)
			ispot_test_run_fixture(t->fixture, &sum);
	}
	printf("# Totals: pass:%d fail:%d skip:%d\n", sum.pass, sum.fail,
	       sum.skip);
	if (sum.fail)
		return KSFT_FAIL;
	return (sum.skip && sum.skip == n) ? KSFT_SKIP : KSFT_PASS;
}

#define TEST_HARNESS_MAIN int main(void) { return ispot_test_main(); }

#endif /* ISPOT_TEST_H */
