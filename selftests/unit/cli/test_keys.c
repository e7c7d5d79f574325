// SPDX-License-Identifier: GPL-2.0
/*
 * --key as the command line gives it: the rules (shape among them) and
 * the check that every key names a traced function, which ispotctl makes
 * before it arms any probe.
 */
#include <getopt.h>

#include "ispot_test.h"
#include "cli/options.h"

TEST(rules_parse_and_format)
{
	static const char *const good[] = {
		"none", "callsite", "shape", "arg0", "arg2", "arg1:log2",
	};
	static const char *const bad[] = {
		"shapes", "Shape", "shape:log2", "arg3", "", "arg0:log3",
	};
	struct key_rule rule;
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++) {
		ASSERT_TRUE(key_rule_parse(good[i], &rule));
		key_rule_format(&rule, buf, sizeof(buf));
		/* "none" formats as "": the report shows no key. */
		EXPECT_STREQ(buf, i ? good[i] : "");
	}
	ASSERT_TRUE(key_rule_parse("shape", &rule));
	EXPECT_EQ(rule.kind, KEY_SHAPE);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		EXPECT_FALSE(key_rule_parse(bad[i], &rule));
}

static int parse(struct trace_opts *o, int argc, char **argv)
{
	optind = 0;
	return trace_opts_parse(MODE_ATTACH, argc, argv, o);
}

TEST(command_line_takes_shape)
{
	/* Writable: the parser splits FUNC=RULE in place. */
	char key[] = "f=shape", attach[] = "attach", pid[] = "--pid";
	char one[] = "1", func[] = "--func", f[] = "f", dkey[] = "--key";
	char *argv[] = { attach, pid, one, func, f, dkey, key, NULL };
	struct trace_opts o;
	struct key_rule rule;
	char desc[32];

	ASSERT_EQ(parse(&o, 7, argv), 0);
	ASSERT_EQ(o.nr_keys, 1);
	EXPECT_STREQ(o.keys[0].func, "f");
	EXPECT_EQ(o.keys[0].rule.kind, KEY_SHAPE);
	rule = trace_opts_key(&o, &(struct key_target){ "/bin/app", "f", NULL },
			      desc, sizeof(desc));
	EXPECT_EQ(rule.kind, KEY_SHAPE);
	EXPECT_STREQ(desc, "shape");
}

/* Sampling records a random subset of an execution's calls: refused. */
TEST(shape_with_sample_is_a_usage_error)
{
	char key[] = "f=shape", attach[] = "attach", pid[] = "--pid";
	char one[] = "1", func[] = "--func", f[] = "f", dkey[] = "--key";
	char sample[] = "--sample", n[] = "10", n1[] = "1";
	char *argv[] = { attach, pid, one, func, f, dkey, key, sample, n,
			 NULL };
	struct trace_opts o;

	EXPECT_EQ(parse(&o, 9, argv), -1);
	argv[8] = n1;		/* 1 in 1 is every call */
	key[1] = '=';
	EXPECT_EQ(parse(&o, 9, argv), 0);
}

static struct trace_opts keyed(const char *const *funcs, size_t n)
{
	struct trace_opts o;
	size_t i;

	memset(&o, 0, sizeof(o));
	for (i = 0; i < n; i++) {
		o.keys[i].func = (char *)funcs[i];
		o.keys[i].rule.kind = KEY_SHAPE;
	}
	o.nr_keys = n;
	return o;
}

TEST(unmatched_key_is_named_with_the_traced_functions)
{
	static const struct key_target traced[] = {
		{ "/bin/app", "worker", NULL },
		{ "/lib/libc.so.6", "flush@GLIBC_2.2.5", NULL },
		{ "/bin/app", "ns::run(int)", "_ZN2ns3runEi" },
	};
	static const char *const ok[] = { "worker", "fl*", "flush", "ns::run" };
	static const char *const typo[] = { "worker", "wrker" };
	struct trace_opts o = keyed(ok, 4);
	char err[512] = "";

	EXPECT_EQ(trace_opts_unmatched_key(&o, traced, 3, err, sizeof(err)),
		  0);
	EXPECT_STREQ(err, "");
	o = keyed(typo, 2);
	EXPECT_EQ(trace_opts_unmatched_key(&o, traced, 3, err, sizeof(err)),
		  2);
	EXPECT_STREQ(err, "--key 'wrker=shape': 'wrker' matches no traced "
		     "function (traced: worker, flush@GLIBC_2.2.5, "
		     "ns::run(int)); key one of those, or trace it with "
		     "--func");
	/* Nothing traced at all still reads. */
	EXPECT_EQ(trace_opts_unmatched_key(&o, traced, 0, err, sizeof(err)),
		  1);
	EXPECT_TRUE(strstr(err, "(traced: none)"));
}

/* A long list is cut, not overflowed, and says so. */
TEST(unmatched_key_long_list)
{
	static const char *const typo[] = { "nope" };
	struct key_target traced[100];
	struct trace_opts o = keyed(typo, 1);
	char err[512];
	size_t i;

	for (i = 0; i < 100; i++)
		traced[i] = (struct key_target){ "/bin/app",
			"a_rather_long_function_name", NULL };
	EXPECT_EQ(trace_opts_unmatched_key(&o, traced, 100, err, sizeof(err)),
		  1);
	EXPECT_TRUE(strstr(err, "...); key one of those"));
	EXPECT_LT(strlen(err), sizeof(err) - 1);
}

TEST_HARNESS_MAIN
