// SPDX-License-Identifier: GPL-2.0
/*
 * The one option table (user/lib/cli/opttab.c) as both front ends see
 * it: ispotctl attach and ispotd take the same spellings to the same
 * values, --key splits at the last '=' (operator== included), a --key
 * FUNC is matched as a --func SPEC (OBJ:, C++ short names, globs), every
 * bad value gives the same one-line error in both programs and in the
 * config file, and each command's help lists its options from the table.
 */
#include <stdarg.h>
#include <sys/mman.h>

#include "ispot_test.h"
#include "stderr_capture.h"
#include "config.h"
#include "cli/options.h"
#include "util/errors.h"

#define MAX_ARGS	32

/*
 * Writable copies of @args after @argv0, as a shell would give them; one
 * set per front end, since ispotctl keeps pointers into its argv.
 */
static char **make_argv(const char *argv0, const char *const *args,
			int *argc)
{
	static char sets[2][MAX_ARGS][256];
	static char *argvs[2][MAX_ARGS + 1];
	bool d = !strcmp(argv0, "ispotd");
	char (*bufs)[256] = sets[d], **argv = argvs[d];
	int n = 0;

	snprintf(bufs[n], sizeof(bufs[n]), "%s", argv0);
	argv[n] = bufs[n];
	for (n++; *args; args++, n++) {
		ASSERT_LT(n, MAX_ARGS);
		snprintf(bufs[n], sizeof(bufs[n]), "%s", *args);
		argv[n] = bufs[n];
	}
	argv[n] = NULL;
	*argc = n;
	return argv;
}

/* ispotctl attach (@o) or ispotd (@c) on @args, stderr captured. */
static int parse(struct trace_opts *o, struct ispotd_config *c,
		 const char *const *args)
{
	int argc, rc;
	char **argv = make_argv(o ? "attach" : "ispotd", args, &argc);

	ispot_progname = o ? "ispotctl" : "ispotd";
	capture_begin();
	rc = o ? trace_opts_parse(MODE_ATTACH, argc, argv, o) :
		 ispotd_config_parse_args(argc, argv, c);
	capture_end();
	return rc;
}

#define ctl(o, args)	parse(o, NULL, args)
#define ispotd(c, args)	parse(NULL, c, args)

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* One line, "PROG: " first, holding @want. */
static bool one_line(const char *prog, const char *want)
{
	const char *nl = strchr(captured, '\n');

	if (strncmp(captured, prog, strlen(prog)) || !nl || nl[1] ||
	    !strstr(captured, want)) {
		TH_LOG("stderr \"%s\" is not one %s line with \"%s\"",
		       captured, prog, want);
		return false;
	}
	return true;
}

/* The spellings of each common option, and what both make of them. */
TEST(both_front_ends_take_the_same_spellings)
{
	static const char *const args[] = {
		"--pid=7", "--func", "libc:pthread_mutex_lock", "--sync",
		"--key", "operator===shape", "--ring-size", "512KiB",
		"--block", "crit=app:ispot:b,ispot:e", NULL,
	};
	struct ispotd_config c;
	struct trace_opts o;

	ASSERT_EQ(ctl(&o, args), 0);
	ASSERT_EQ(ispotd(&c, args), 0);
	EXPECT_EQ(o.pid, 7);
	EXPECT_EQ(c.pids[0], 7);
	EXPECT_STREQ(o.funcs[0], "libc:pthread_mutex_lock");
	EXPECT_STREQ(c.funcs[0], "libc:pthread_mutex_lock");
	EXPECT_TRUE(o.sync && c.sync);
	EXPECT_EQ(o.ring_bytes, 512 << 10);
	EXPECT_EQ(c.ring_bytes, 512 << 10);
	ASSERT_EQ(o.nr_keys, 1);
	ASSERT_EQ(c.nr_keys, 1);
	/* The last '=': FUNC is operator==, the rule shape, in both. */
	EXPECT_STREQ(o.keys[0].func, "operator==");
	EXPECT_STREQ(c.keys[0].func, "operator==");
	EXPECT_EQ(o.keys[0].rule.kind, KEY_SHAPE);
	EXPECT_EQ(c.keys[0].rule.kind, KEY_SHAPE);
	EXPECT_STREQ(o.blocks[0], "crit=app:ispot:b,ispot:e");
	EXPECT_STREQ(c.funcs[1], "block:crit=app:ispot:b,ispot:e");
	ispotd_config_free(&c);
}

TEST(key_splits_at_the_last_equals)
{
	static const struct {
		const char *arg, *func, *rule;
	} cases[] = {
		{ "worker=arg0:log2", "worker", "arg0:log2" },
		{ "Foo::operator==arg1", "Foo::operator=", "arg1" },
		{ "operator===shape", "operator==", "shape" },
		{ "libleveldb:leveldb::DB::Put=shape",
		  "libleveldb:leveldb::DB::Put", "shape" },
		{ "a=b=none", "a=b", "" },
	};
	struct ispotd_config c;
	struct trace_opts o;
	char rule[32];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--key", cases[i].arg,
				       "--func", "f")), 0);
		ASSERT_EQ(ispotd(&c, ARGS("--pid", "1", "--key", cases[i].arg,
					  "--func", "f")), 0);
		EXPECT_STREQ(o.keys[0].func, cases[i].func);
		EXPECT_STREQ(c.keys[0].func, cases[i].func);
		key_rule_format(&o.keys[0].rule, rule, sizeof(rule));
		EXPECT_STREQ(rule, cases[i].rule);
		key_rule_format(&c.keys[0].rule, rule, sizeof(rule));
		EXPECT_STREQ(rule, cases[i].rule);
		ispotd_config_free(&c);
	}
}

/* Each bad value: exit 2's -1, one line, the same text in both programs. */
TEST(bad_values_read_the_same_in_both)
{
	static const struct {
		const char *opt, *val, *why;
	} bad[] = {
		{ "--pid", "0", "--pid '0' is not a process id (a whole number "
		  ">= 1)" },
		{ "--func", "", "--func needs a function name" },
		{ "--key", "worker", "--key 'worker' needs FUNC=RULE, e.g. "
		  "--key 'worker=arg0:log2'" },
		{ "--key", "=arg0", "--key '=arg0' needs FUNC=RULE" },
		{ "--key", "w=arg3", "--key 'w=arg3': the rule must be argN "
		  "(N = 0-2), argN:log2, callsite, shape, auto or none" },
		{ "--block", "crit", "--block wants NAME=[OBJ:]PROV:BEGIN,"
		  "PROV:END, not 'crit'" },
		{ "--ring-size", "3K", "--ring-size '3K' must be a power of two "
		  "from 4K to 1G" },
		{ "--bogus", NULL, "option '--bogus' is unknown or takes no "
		  "value" },
		{ "--sync=yes", NULL, "option '--sync=yes' is unknown or takes "
		  "no value" },
		{ "--ring-size", NULL, "--ring-size needs a value" },
	};
	struct ispotd_config c;
	struct trace_opts o;
	const char *args[8];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = 0;

		args[n++] = "--pid";
		args[n++] = "1";
		args[n++] = "--sync";
		args[n++] = bad[i].opt;
		if (bad[i].val)
			args[n++] = bad[i].val;
		args[n] = NULL;
		if (!strcmp(bad[i].opt, "--pid"))
			args[1] = bad[i].val;
		ASSERT_EQ(ctl(&o, args), -1);
		ASSERT_TRUE(one_line("ispotctl: ", bad[i].why));
		ASSERT_TRUE(one_line("ispotctl: ", "; usage: ispotctl attach"));
		ASSERT_EQ(ispotd(&c, args), -1);
		ASSERT_TRUE(one_line("ispotd: ", bad[i].why));
		ASSERT_TRUE(one_line("ispotd: ", "; see ispotd --help"));
	}
}

/* An option of another command names who takes it. */
TEST(options_of_other_commands)
{
	struct ispotd_config c;
	struct trace_opts o;

	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--func", "f", "--budget",
			       "1%")), -1);
	ASSERT_TRUE(one_line("ispotctl: ", "--budget is for ispotd, not "
			     "attach"));
	ASSERT_EQ(ispotd(&c, ARGS("--pid", "1", "--func", "f", "--duration",
				  "5s")), -1);
	ASSERT_TRUE(one_line("ispotd: ", "--duration is for ispotctl attach, "
			     "run and record, not ispotd"));
}

/*
 * --auto-time without --auto is refused, as --wall-folded is (it was
 * taken and ignored); with --auto, unless given, it is the default.
 */
TEST(auto_time_needs_auto)
{
	struct trace_opts o;

	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--func", "f", "--auto-time",
			       "1s")), -1);
	ASSERT_TRUE(one_line("ispotctl: ", "--auto-time is how long --auto "
			     "samples: add --auto"));
	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--auto")), 0);
	EXPECT_EQ(o.auto_time_ns, OPT_DEFAULT_AUTO_TIME_NS);
	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--auto", "--auto-time",
			       "300ms")), 0);
	EXPECT_EQ(o.auto_time_ns, 300000000ull);
}

/*
 * --auto's sampling runs the target untraced: an hour at most, said in
 * one line that names the unit a bare number has (5000 is seconds).
 */
TEST(auto_time_is_at_most_an_hour)
{
	struct ispotd_config c;
	struct trace_opts o;

	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--auto", "--auto-time",
			       "5000")), -1);
	ASSERT_TRUE(one_line("ispotctl: ", "--auto-time '5000' must be a "
			     "time of at most 3600s (a bare number is "
			     "seconds)"));
	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--auto", "--auto-time",
			       "1h")), 0);
	EXPECT_EQ(o.auto_time_ns, 3600000000000ull);
	ASSERT_EQ(ispotd(&c, ARGS("--pid", "1", "--auto", "--auto-time",
				  "61m")), -1);
	ASSERT_TRUE(one_line("ispotd: ", "--auto-time '61m' must be a time "
			     "of at most 3600s, e.g."));
	/* Past what the parser takes at all: the same line. */
	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--auto", "--auto-time",
			       "20000000")), -1);
	ASSERT_TRUE(one_line("ispotctl: ", "--auto-time '20000000' must be a "
			     "time of at most 3600s (a bare number"));
}

/* record's -o is its recording, run's the report: one letter, two meanings. */
TEST(record_output_is_the_recording)
{
	struct trace_opts o;
	enum trace_mode mode;
	char *argv[] = { "record", "-o", "r.isr", "--json", "--max-size", "2M",
			 "--func", "f", "--", "cmd", NULL };
	char *attach[] = { "record", "--output", "r.isr", "--pid", "1",
			   "--func", "f", NULL };
	char *both[] = { "record", "-o", "r.isr", "--pid", "1", "--func", "f",
			 "--", "cmd", NULL };
	char *none[] = { "record", "--func", "f", "--", "cmd", NULL };
	char *twice[] = { "record", "-o", "r.isr", "--json", "-o", "r.json",
			  "--func", "f", "--", "cmd", NULL };
	char key[] = "f=callsite";	/* --key splits it in place */
	char *report[] = { "report", "r.isr", "--key", key, "-o", "out.json",
			   NULL };

	ASSERT_EQ(trace_opts_parse_record(10, argv, &o, &mode), 0);
	EXPECT_EQ(mode, MODE_RUN);
	EXPECT_STREQ(o.record, "r.isr");
	EXPECT_TRUE(o.output == NULL);
	EXPECT_TRUE(o.json);
	EXPECT_EQ(o.max_size, 2u << 20);
	EXPECT_STREQ(o.cmd[0], "cmd");
	ASSERT_EQ(trace_opts_parse_record(7, attach, &o, &mode), 0);
	EXPECT_EQ(mode, MODE_ATTACH);
	EXPECT_EQ(o.max_size, OPT_DEFAULT_MAX_SIZE);
	capture_begin();
	EXPECT_EQ(trace_opts_parse_record(9, both, &o, &mode), -1);
	EXPECT_EQ(trace_opts_parse_record(5, none, &o, &mode), -1);
	capture_end();
	EXPECT_TRUE(strstr(captured, "not both") != NULL);
	EXPECT_TRUE(strstr(captured, "record needs -o FILE") != NULL);
	/* A second -o would move the recording to the report's name. */
	capture_begin();
	EXPECT_EQ(trace_opts_parse_record(10, twice, &o, &mode), -1);
	capture_end();
	EXPECT_TRUE(strstr(captured, "--output is given twice ('r.isr', then "
			   "'r.json'): record's -o names the recording") !=
		    NULL);
	ASSERT_EQ(trace_opts_parse_report(6, report, &o), 0);
	EXPECT_STREQ(o.recording, "r.isr");
	EXPECT_STREQ(o.output, "out.json");
	EXPECT_EQ(o.nr_keys, 1u);
}

/*
 * --perfetto-max-size bounds the --perfetto trace (default 1G): alone it
 * bounds nothing and is refused, in run and attach as in report, where
 * options also follow FILE; under 4K it is refused as --max-size is;
 * ispotd writes no trace.
 */
TEST(perfetto_max_size_bounds_a_trace)
{
	struct ispotd_config c;
	struct trace_opts o;
	char *alone[] = { "report", "r.isr", "--perfetto-max-size", "1M",
			  NULL };
	char *given[] = { "report", "--perfetto", "t.pftrace", "r.isr",
			  "--perfetto-max-size", "64K", NULL };

	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--func", "f",
			       "--perfetto-max-size", "1M")), -1);
	ASSERT_TRUE(one_line("ispotctl: ", "--perfetto-max-size bounds the "
			     "--perfetto trace: add --perfetto FILE"));
	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--func", "f", "--perfetto",
			       "t.pftrace")), 0);
	EXPECT_EQ(o.perfetto_max_size, OPT_DEFAULT_MAX_SIZE);
	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--func", "f", "--perfetto",
			       "t.pftrace", "--perfetto-max-size", "1k")), -1);
	ASSERT_TRUE(one_line("ispotctl: ", "--perfetto-max-size '1k' must be "
			     "a size of 4K or more"));
	ASSERT_EQ(ispotd(&c, ARGS("--pid", "1", "--func", "f",
				  "--perfetto-max-size", "1M")), -1);
	ASSERT_TRUE(one_line("ispotd: ", "--perfetto-max-size is for "
			     "ispotctl"));
	ispot_progname = "ispotctl";
	capture_begin();
	EXPECT_EQ(trace_opts_parse_report(4, alone, &o), -1);
	capture_end();
	EXPECT_TRUE(one_line("ispotctl: ", "--perfetto-max-size bounds the "
			     "--perfetto trace"));
	ASSERT_EQ(trace_opts_parse_report(6, given, &o), 0);
	EXPECT_EQ(o.perfetto_max_size, 64u << 10);
}

/* The config file: the same table, the same texts, at FILE:LINE. */
TEST(config_file_goes_through_the_table)
{
	struct ispotd_config cli, out;
	char path[64], want[160];
	int fd = memfd_create("ispotd.conf", 0);
	static const char text[] =
		"exe /a\nfunc f\nkey operator===shape\n"
		"key libleveldb:leveldb::DB::Put=arg1\nkey w=arg3\n";

	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, text, sizeof(text) - 1),
		  (ssize_t)sizeof(text) - 1);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ASSERT_EQ(ispotd(&cli, ARGS("--config", path)), 0);
	capture_begin();
	ASSERT_EQ(ispotd_config_load(&cli, &out), -1);
	capture_end();
	snprintf(want, sizeof(want), "%s:5: key 'w=arg3': the rule must be "
		 "argN", path);
	ASSERT_TRUE(one_line("ispotd: ", want));
	ASSERT_EQ(ftruncate(fd, sizeof(text) - 12), 0);
	capture_begin();
	ASSERT_EQ(ispotd_config_load(&cli, &out), 0);
	capture_end();
	ASSERT_EQ(out.nr_keys, 2);
	EXPECT_STREQ(out.keys[0].func, "operator==");
	EXPECT_EQ(out.keys[0].rule.kind, KEY_SHAPE);
	EXPECT_STREQ(out.keys[1].func, "libleveldb:leveldb::DB::Put");
	ispotd_config_free(&out);
	ispotd_config_free(&cli);
	close(fd);
}

static struct key_rule key_of(const char *spec, const struct key_target *f)
{
	struct trace_opts o = { .nr_keys = 1 };
	char buf[256], desc[32];

	snprintf(buf, sizeof(buf), "%s", spec);
	o.keys[0].func = buf;
	o.keys[0].rule.kind = KEY_SHAPE;
	return trace_opts_key(&o, f, desc, sizeof(desc));
}

/* A --key FUNC is any --func SPEC, matched against what was traced. */
TEST(key_takes_every_func_spec)
{
	static const struct key_target put = {
		"/usr/lib/x86_64-linux-gnu/libleveldb.so.1.23",
		"leveldb::DB::Put(leveldb::WriteOptions const&, "
		"leveldb::Slice const&, leveldb::Slice const&)",
		"_ZN7leveldb2DB3PutERKNS_12WriteOptionsERKNS_5SliceES6_",
	};
	static const struct key_target eq = {
		"/bin/app", "Foo::operator==(Foo const&) const",
		"_ZNK3FooeqERKS_",
	};
	static const struct key_target mutex = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6", "pthread_mutex_lock", "",
	};
	static const struct {
		const char *spec;
		const struct key_target *f;
		bool hit;
	} cases[] = {
		{ "libleveldb:leveldb::DB::Put", &put, true },
		{ "leveldb::DB::Put", &put, true },
		{ "leveldb::DB::*", &put, true },
		{ "libleveldb:leveldb::DB::P*", &put, true },
		{ "_ZN7leveldb2DB3Put*", &put, true },
		{ "/usr/lib/x86_64-linux-gnu/libleveldb.so.1.23:"
		  "leveldb::DB::Put", &put, true },
		{ "libc:leveldb::DB::Put", &put, false },
		{ "libleveldb:leveldb::DB::Get", &put, false },
		{ "Foo::operator==", &eq, true },
		{ "app:Foo::operator==", &eq, true },
		{ "Foo::operator=", &eq, false },
		{ "libc:pthread_mutex_lock", &mutex, true },
		{ "libc:pthread_*", &mutex, true },
		{ "libcrypt:pthread_mutex_lock", &mutex, false },
		{ "pthread_mutex_lock", &mutex, true },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct key_rule r = key_of(cases[i].spec, cases[i].f);

		if ((r.kind == KEY_SHAPE) != cases[i].hit) {
			TH_LOG("--key '%s=shape' on %s: %s", cases[i].spec,
			       cases[i].f->name,
			       cases[i].hit ? "no match" : "matched");
			ispot_test_fail(0);
		}
	}
}

/* The help of each command: its options from the table, and only those. */
TEST(help_lists_each_commands_options)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ASSERT_TRUE(f);
	trace_opts_usage(MODE_TOP, f);
	fflush(f);
	EXPECT_TRUE(strstr(text, "usage: ispotctl top"));
	EXPECT_TRUE(strstr(text, "  -k, --key FUNC=RULE   compare"));
	EXPECT_TRUE(strstr(text, "      --from ADDR:PORT  read"));
	EXPECT_FALSE(strstr(text, "--duration"));
	EXPECT_FALSE(strstr(text, "--budget"));
	rewind(f);
	ispotd_config_usage(f);
	fflush(f);
	EXPECT_TRUE(strstr(text, "      --budget PCT      overhead"));
	EXPECT_TRUE(strstr(text, "      --block NAME=[OBJ:]PROV:BEGIN,PROV:END\n"
			   "                        trace from"));
	EXPECT_TRUE(strstr(text, "  -h, --help            this help"));
	EXPECT_FALSE(strstr(text, "--duration"));
	EXPECT_FALSE(strstr(text, "-k, --key"));
	fclose(f);
	free(text);
}


/* The report's --wide and --all-futexes: ispotctl's, not ispotd's. */
TEST(report_text_options)
{
	struct ispotd_config c;
	struct trace_opts o;

	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--func", "f")), 0);
	EXPECT_FALSE(o.wide);
	EXPECT_FALSE(o.all_futexes);
	ASSERT_EQ(ctl(&o, ARGS("--pid", "1", "--func", "f", "--wide",
			       "--all-futexes")), 0);
	EXPECT_TRUE(o.wide);
	EXPECT_TRUE(o.all_futexes);
	ASSERT_EQ(ispotd(&c, ARGS("--pid", "1", "--func", "f", "--wide")),
		  -1);
	ASSERT_TRUE(one_line("ispotd: ", "--wide is for ispotctl"));
}

TEST_HARNESS_MAIN
