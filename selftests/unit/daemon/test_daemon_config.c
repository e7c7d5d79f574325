// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's options (user/daemon/config.c): every option from argv with its
 * default, every kind of bad value, the config file's syntax and the
 * FILE:LINE of its errors, merging the file with the command line, and a
 * reload.  Errors are read back from stderr, captured in a file, and must
 * be exactly one line.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "ispot_test.h"
#include "stderr_capture.h"
#include "config.h"
#include "util/errors.h"

#define MAX_ARGS	1024

static void __attribute__((constructor)) set_progname(void)
{
	ispot_progname = "ispotd";
}

/* ispotd_config_parse_args() on "ispotd" followed by @args. */
static int parse_argv(struct ispotd_config *c, const char *const *args)
{
	static char *argv[MAX_ARGS + 2];
	int argc = 0, rc;

	argv[argc++] = "ispotd";
	while (*args) {
		ASSERT_LT(argc, MAX_ARGS);
		argv[argc++] = (char *)*args++;
	}
	argv[argc] = NULL;
	memset(c, 0xcc, sizeof(*c));
	capture_begin();
	rc = ispotd_config_parse_args(argc, argv, c);
	capture_end();
	return rc;
}

#define PARSE(c, ...) parse_argv(c, (const char *const[]){ __VA_ARGS__, NULL })

static int load(const struct ispotd_config *cli, struct ispotd_config *out)
{
	int rc;

	capture_begin();
	rc = ispotd_config_load(cli, out);
	capture_end();
	return rc;
}

/*
 * The config file: a memfd, which needs no cleanup when an ASSERT ends
 * the test early; /proc/self/fd/N opens it afresh, as a path would.
 */
static char conf_path_buf[64];
static int conf_fd = -1;

static const char *conf_path(void)
{
	if (conf_fd < 0) {
		conf_fd = memfd_create("ispotd.conf", 0);
		ASSERT_GE(conf_fd, 0);
		snprintf(conf_path_buf, sizeof(conf_path_buf),
			 "/proc/self/fd/%d", conf_fd);
	}
	return conf_path_buf;
}

/* Make the config file hold @text; returns its path. */
static const char *conf_file(const char *text)
{
	const char *path = conf_path();
	size_t len = strlen(text);

	ASSERT_EQ(ftruncate(conf_fd, 0), 0);
	ASSERT_EQ(pwrite(conf_fd, text, len, 0), (ssize_t)len);
	return path;
}

/* One line, "ispotd: " first, holding @want. */
static bool one_line_error(const char *want)
{
	const char *nl = strchr(captured, '\n');

	return !strncmp(captured, "ispotd: ", 8) && nl && !nl[1] &&
	       strstr(captured, want);
}

#define ASSERT_ERROR(want) do {						\
	if (!one_line_error(want)) {					\
		TH_LOG("stderr \"%s\" is not one error line with \"%s\"", \
		       captured, want);					\
		ispot_test_fail(1);					\
	}								\
} while (0)

/* A usage error on the command line: -1, one line, and what to do. */
#define ASSERT_USAGE(want, ...) do {					\
	struct ispotd_config __c;					\
	ASSERT_EQ(PARSE(&__c, __VA_ARGS__), -1);			\
	ASSERT_ERROR(want);						\
	ASSERT_ERROR("; see ispotd --help");				\
	/* freed and zeroed: a second free is harmless */		\
	ASSERT_EQ(__c.log_path, NULL);					\
	ispotd_config_free(&__c);					\
} while (0)

/* --config @text (and @args): load() fails with @want. */
static void assert_file_error(const char *text, const char *want, ...)
{
	struct ispotd_config cli, out, before;
	const char *args[16] = { "--config", conf_file(text) };
	size_t n = 2;
	va_list ap;

	va_start(ap, want);
	while ((args[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	ASSERT_EQ(parse_argv(&cli, args), 0);
	memset(&out, 0xcc, sizeof(out));
	before = out;
	if (load(&cli, &out) != -1) {
		TH_LOG("'%s' loaded, expected \"%s\"", text, want);
		ispot_test_fail(1);
	}
	ASSERT_ERROR(want);
	/* A bad reload must leave the running config alone. */
	ASSERT_EQ(memcmp(&out, &before, sizeof(out)), 0);
	ispotd_config_free(&cli);
}

/* "PATH:LINE: " of the current config file. */
static const char *at_line(unsigned int line)
{
	static char buf[96];

	snprintf(buf, sizeof(buf), "ispotd: %s:%u: ", conf_path(), line);
	return buf;
}

TEST(defaults)
{
	struct ispotd_config c;

	ASSERT_EQ(PARSE(&c, "--pid", "1", "--func", "f"), 0);
	EXPECT_EQ(c.config_path, NULL);
	EXPECT_EQ(c.nr_pids, 1);
	EXPECT_EQ(c.pids[0], 1);
	EXPECT_EQ(c.nr_exes, 0);
	EXPECT_EQ(c.nr_cgroups, 0);
	EXPECT_EQ(c.nr_funcs, 1);
	EXPECT_EQ(c.nr_keys, 0);
	EXPECT_FALSE(c.sync);
	EXPECT_NEAR(c.budget, 0.01, 1e-12);
	EXPECT_EQ(c.window_ns, 60000000000ull);
	EXPECT_STREQ(c.log_path, "-");
	EXPECT_EQ(c.listen, NULL);
	EXPECT_EQ(c.max_functions, 50);
	EXPECT_EQ(c.ring_bytes, 2u << 20);
	EXPECT_EQ(c.set, 0);
	EXPECT_STREQ(captured, "");
	ispotd_config_free(&c);
}

TEST(every_option)
{
	struct ispotd_config c;

	ASSERT_EQ(PARSE(&c, "--config", "/etc/ispot/ispotd.conf",
			"--pid", "12", "--pid", "34",
			"--exe", "/usr/bin/app", "--exe", "/opt/db",
			"--cgroup", "/sys/fs/cgroup/system.slice/foo.service",
			"--func", "acquire", "--func", "libc:pthread_*",
			"--sync", "--key", "acquire=arg1:log2",
			"--key", "worker_*=callsite",
			"--budget", "0.5%", "--window", "2m",
			"--log", "/var/log/x", "--listen", "127.0.0.1:9464",
			"--max-functions", "7", "--ring-size", "512K"), 0);
	EXPECT_STREQ(c.config_path, "/etc/ispot/ispotd.conf");
	ASSERT_EQ(c.nr_pids, 2);
	EXPECT_EQ(c.pids[0], 12);
	EXPECT_EQ(c.pids[1], 34);
	ASSERT_EQ(c.nr_exes, 2);
	EXPECT_STREQ(c.exes[0], "/usr/bin/app");
	EXPECT_STREQ(c.exes[1], "/opt/db");
	ASSERT_EQ(c.nr_cgroups, 1);
	EXPECT_STREQ(c.cgroups[0], "/system.slice/foo.service");
	ASSERT_EQ(c.nr_funcs, 2);
	EXPECT_STREQ(c.funcs[0], "acquire");
	EXPECT_STREQ(c.funcs[1], "libc:pthread_*");
	EXPECT_TRUE(c.sync);
	ASSERT_EQ(c.nr_keys, 2);
	EXPECT_STREQ(c.keys[0].func, "acquire");
	EXPECT_EQ(c.keys[0].rule.kind, KEY_ARG);
	EXPECT_EQ(c.keys[0].rule.arg, 1);
	EXPECT_TRUE(c.keys[0].rule.log2);
	EXPECT_STREQ(c.keys[1].func, "worker_*");
	EXPECT_EQ(c.keys[1].rule.kind, KEY_CALLSITE);
	EXPECT_NEAR(c.budget, 0.005, 1e-12);
	EXPECT_EQ(c.window_ns, 120000000000ull);
	EXPECT_STREQ(c.log_path, "/var/log/x");
	EXPECT_STREQ(c.listen, "127.0.0.1:9464");
	EXPECT_EQ(c.max_functions, 7);
	EXPECT_EQ(c.ring_bytes, 512 << 10);
	EXPECT_EQ(c.set, ISPOTD_SET_BUDGET | ISPOTD_SET_WINDOW |
		  ISPOTD_SET_LOG | ISPOTD_SET_LISTEN |
		  ISPOTD_SET_MAX_FUNCTIONS | ISPOTD_SET_RING_SIZE);
	ispotd_config_free(&c);
}

TEST(last_scalar_wins)
{
	struct ispotd_config c;

	ASSERT_EQ(PARSE(&c, "--exe", "/a", "--func", "f", "--budget", "2%",
			"--budget", "3", "--log", "a", "--log", "-"), 0);
	EXPECT_NEAR(c.budget, 0.03, 1e-12);
	EXPECT_STREQ(c.log_path, "-");
	ispotd_config_free(&c);
}

/* In the file, a second line for one setting is refused, its line named. */
TEST(file_scalar_twice)
{
	char want[256];

	conf_file("exe /a\nfunc f\nbudget 1%\nwindow 5s\nbudget 2%\n");
	snprintf(want, sizeof(want), "%sbudget is given twice: give it once",
		 at_line(5));
	assert_file_error("exe /a\nfunc f\nbudget 1%\nwindow 5s\nbudget 2%\n",
			  want, NULL);
	conf_file("exe /a\nauto 2\nauto 3\n");
	snprintf(want, sizeof(want), "%sauto is given twice: give it once",
		 at_line(3));
	assert_file_error("exe /a\nauto 2\nauto 3\n", want, NULL);
	/* Refused with a --budget too: the file is bad on its own. */
	conf_file("exe /a\nfunc f\nbudget 1%\nbudget 2%\n");
	snprintf(want, sizeof(want), "%sbudget is given twice: give it once",
		 at_line(4));
	assert_file_error("exe /a\nfunc f\nbudget 1%\nbudget 2%\n", want,
			  "--budget", "5%", NULL);
}

/* SIGHUP: the file read again under a command line that overrides it. */
TEST(reload_under_an_override)
{
	struct ispotd_config cli, a, b;

	ASSERT_EQ(PARSE(&cli, "--config", conf_file("exe /a\nfunc f\n"
						    "budget 1%\nwindow 5s\n"),
			"--budget", "5%"), 0);
	ASSERT_EQ(load(&cli, &a), 0);
	ASSERT_EQ(load(&cli, &b), 0);
	EXPECT_NEAR(b.budget, 0.05, 1e-12);
	EXPECT_EQ(b.window_ns, 5000000000ull);
	ispotd_config_free(&a);
	ispotd_config_free(&b);
	ispotd_config_free(&cli);
}

/* One file is read: a second --config is an error, not the first lost. */
TEST(config_twice)
{
	ASSERT_USAGE("--config is given twice: ispotd reads one file",
		     "--config", "/a.conf", "--config", "/b.conf");
}

TEST(budget_spellings)
{
	static const struct {
		const char *s;
		double v;
	} cases[] = {
		{ "1%", 0.01 }, { "0.5%", 0.005 }, { "1", 0.01 },
		{ "0", 0 }, { "0%", 0 }, { "100%", 1 }, { "2.5", 0.025 },
		{ ".5%", 0.005 },
	};
	struct ispotd_config c;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(PARSE(&c, "--pid", "1", "--func", "f", "--budget",
				cases[i].s), 0);
		EXPECT_NEAR(c.budget, cases[i].v, 1e-12);
		EXPECT_EQ(c.set, ISPOTD_SET_BUDGET);
		ispotd_config_free(&c);
	}
}

TEST(budget_bad)
{
	static const char *const bad[] = {
		"101%", "abc", "-1", "1%%", "", "%", "nan", "inf", "1e1",
		"0x10", " 1", "1 %", "+1",
	};
	char want[64];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "--budget '%s' must be a "
			 "percentage from 0 to 100", bad[i]);
		ASSERT_USAGE(want, "--pid", "1", "--func", "f", "--budget",
			     bad[i]);
	}
}

TEST(window)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} cases[] = {
		{ "10", 10000000000ull }, { "10s", 10000000000ull },
		{ "2m", 120000000000ull }, { "1s", 1000000000ull },
		{ "1500ms", 1500000000ull }, { "1h", 3600000000000ull },
	};
	struct ispotd_config c;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(PARSE(&c, "--pid", "1", "--func", "f", "--window",
				cases[i].s), 0);
		EXPECT_EQ(c.window_ns, cases[i].ns);
		EXPECT_EQ(c.set, ISPOTD_SET_WINDOW);
		ispotd_config_free(&c);
	}
}

TEST(window_bad)
{
	static const char *const bad[] = {
		"0", "500ms", "999ms", "0.5", "abc", "10x", "-5s", "",
	};
	char want[64];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "--window '%s' must be a time of "
			 "at least 1s", bad[i]);
		ASSERT_USAGE(want, "--pid", "1", "--func", "f", "--window",
			     bad[i]);
	}
}

TEST(max_functions_and_ring_size)
{
	struct ispotd_config c;

	ASSERT_EQ(PARSE(&c, "--pid", "1", "--func", "f", "--max-functions",
			"1", "--ring-size", "4M"), 0);
	EXPECT_EQ(c.max_functions, 1);
	EXPECT_EQ(c.ring_bytes, 4 << 20);
	ispotd_config_free(&c);
	ASSERT_USAGE("--max-functions '0' must be a whole number >= 1",
		     "--pid", "1", "--func", "f", "--max-functions", "0");
	ASSERT_USAGE("--max-functions '-1' must be", "--pid", "1", "--func",
		     "f", "--max-functions", "-1");
	ASSERT_USAGE("--max-functions 'ten' must be", "--pid", "1", "--func",
		     "f", "--max-functions", "ten");
	ASSERT_USAGE("--ring-size '3K' must be a power of two from 4K to 1G",
		     "--pid", "1", "--func", "f", "--ring-size", "3K");
	ASSERT_USAGE("--ring-size '2G' must be a power of two", "--pid", "1",
		     "--func", "f", "--ring-size", "2G");
}

TEST(listen_good)
{
	static const char *const good[] = {
		"127.0.0.1:9464", "[::1]:9464", "localhost:1",
		"0.0.0.0:65535", "[::]:80", "metrics.example:8080",
	};
	struct ispotd_config c;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ASSERT_EQ(PARSE(&c, "--pid", "1", "--func", "f", "--listen",
				good[i]), 0);
		EXPECT_STREQ(c.listen, good[i]);
		EXPECT_EQ(c.set, ISPOTD_SET_LISTEN);
		ispotd_config_free(&c);
	}
}

TEST(listen_bad)
{
	static const struct {
		const char *s, *why;
	} bad[] = {
		{ "localhost", "lacks a port" },
		{ "localhost:", "lacks a port" },
		{ "9464", "lacks an address: give 127.0.0.1:PORT" },
		{ "[::1]", "lacks a port" },
		{ "[::1]:", "lacks a port" },
		{ ":9464", "has an empty address" },
		{ "[]:9464", "has an empty address" },
		{ "::1:9464", "has an IPv6 address without brackets" },
		{ "[::1:9464", "lacks the ']'" },
		{ "[::1]9464", "must be [V6ADDR]:PORT" },
		{ "host:0", "needs a port from 1 to 65535" },
		{ "host:65536", "needs a port from 1 to 65535" },
		{ "host:12a", "needs a port from 1 to 65535" },
		{ "host:-1", "needs a port from 1 to 65535" },
		{ "host:0000080", "needs a port from 1 to 65535" },
		{ "", "lacks a port" },
	};
	char want[96];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "--listen '%s' %s", bad[i].s,
			 bad[i].why);
		ASSERT_USAGE(want, "--pid", "1", "--func", "f", "--listen",
			     bad[i].s);
	}
}

TEST(pid_bad)
{
	static const char *const bad[] = {
		"0", "-1", "abc", "12x", "", "2147483648", "99999999999",
	};
	char want[64];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "--pid '%s' is not a process id",
			 bad[i]);
		ASSERT_USAGE(want, "--pid", bad[i], "--func", "f");
	}
}

TEST(key_rules)
{
	struct ispotd_config c;

	ASSERT_EQ(PARSE(&c, "--pid", "1", "--func", "f",
			"--key", "a=arg0", "--key", "b=arg2:log2",
			"--key", "c=callsite", "--key", "d=none",
			"--key", "Foo::operator==arg1", "--key", "e=shape",
			"--key", "g*=auto"), 0);
	ASSERT_EQ(c.nr_keys, 7);
	EXPECT_STREQ(c.keys[0].func, "a");
	EXPECT_EQ(c.keys[0].rule.kind, KEY_ARG);
	EXPECT_EQ(c.keys[0].rule.arg, 0);
	EXPECT_FALSE(c.keys[0].rule.log2);
	EXPECT_EQ(c.keys[1].rule.arg, 2);
	EXPECT_TRUE(c.keys[1].rule.log2);
	EXPECT_EQ(c.keys[2].rule.kind, KEY_CALLSITE);
	EXPECT_EQ(c.keys[3].rule.kind, KEY_NONE);
	/* FUNC ends at the last '=': a rule never holds one. */
	EXPECT_STREQ(c.keys[4].func, "Foo::operator=");
	EXPECT_EQ(c.keys[4].rule.arg, 1);
	EXPECT_STREQ(c.keys[5].func, "e");
	EXPECT_EQ(c.keys[5].rule.kind, KEY_SHAPE);
	EXPECT_STREQ(c.keys[6].func, "g*");
	EXPECT_EQ(c.keys[6].rule.kind, KEY_AUTO);
	ispotd_config_free(&c);
}

TEST(key_bad)
{
	ASSERT_USAGE("--key 'worker' needs FUNC=RULE, e.g. --key "
		     "'worker=arg0:log2'", "--pid", "1", "--func", "f",
		     "--key", "worker");
	ASSERT_USAGE("--key '=arg0' needs FUNC=RULE", "--pid", "1", "--func",
		     "f", "--key", "=arg0");
	ASSERT_USAGE("--key 'w=arg3': the rule must be argN", "--pid", "1",
		     "--func", "f", "--key", "w=arg3");
	ASSERT_USAGE("--key 'w=bogus': the rule must be", "--pid", "1",
		     "--func", "f", "--key", "w=bogus");
	ASSERT_USAGE("--key 'w=': the rule must be", "--pid", "1", "--func",
		     "f", "--key", "w=");
}

TEST(cgroup_normalised)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "/sys/fs/cgroup/system.slice/foo.service",
		  "/system.slice/foo.service" },
		{ "system.slice/foo.service", "/system.slice/foo.service" },
		{ "/a/b", "/a/b" },
		{ "a/b/", "/a/b" },
		{ "//a//b//", "/a/b" },
		{ "/sys/fs/cgroup", "/" },
		{ "/sys/fs/cgroup/", "/" },
		{ "/", "/" },
		/* only the mount point itself is stripped */
		{ "/sys/fs/cgroupx/a", "/sys/fs/cgroupx/a" },
		{ "sys/fs/cgroup/a", "/sys/fs/cgroup/a" },
		{ "a/..b/c.", "/a/..b/c." },
	};
	struct ispotd_config c;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(PARSE(&c, "--cgroup", cases[i].in, "--func", "f"),
			  0);
		ASSERT_EQ(c.nr_cgroups, 1);
		EXPECT_STREQ(c.cgroups[0], cases[i].out);
		ispotd_config_free(&c);
	}
	/* Spellings of one group are one target. */
	ASSERT_EQ(PARSE(&c, "--cgroup", "/sys/fs/cgroup/a", "--cgroup", "a/",
			"--cgroup", "/a", "--func", "f"), 0);
	EXPECT_EQ(c.nr_cgroups, 1);
	ispotd_config_free(&c);
}

TEST(cgroup_bad)
{
	ASSERT_USAGE("--cgroup 'a/../b': name the group without '.' or '..'",
		     "--cgroup", "a/../b", "--func", "f");
	ASSERT_USAGE("--cgroup '/sys/fs/cgroup/./a': name the group",
		     "--cgroup", "/sys/fs/cgroup/./a", "--func", "f");
	ASSERT_USAGE("--cgroup '..': name the group", "--cgroup", "..",
		     "--func", "f");
	ASSERT_USAGE("--cgroup needs a path", "--cgroup", "", "--func", "f");
}

TEST(empty_values)
{
	ASSERT_USAGE("--exe needs a path", "--exe", "", "--func", "f");
	ASSERT_USAGE("--func needs a function name", "--pid", "1", "--func",
		     "");
	ASSERT_USAGE("--log needs a file name, or - for stdout", "--pid", "1",
		     "--func", "f", "--log", "");
	ASSERT_USAGE("--config needs a file name", "--config", "");
}

TEST(bad_command_lines)
{
	ASSERT_USAGE("option '--budgte' is unknown", "--pid", "1", "--func",
		     "f", "--budgte", "1%");
	ASSERT_USAGE("unknown option '-x'", "--pid", "1", "--func", "f",
		     "-x");
	ASSERT_USAGE("--budget needs a value", "--pid", "1", "--func", "f",
		     "--budget");
	ASSERT_USAGE("option '--sync=yes' is unknown or takes no value",
		     "--pid", "1", "--func", "f", "--sync=yes");
	ASSERT_USAGE("unexpected argument 'extra'", "--pid", "1", "extra",
		     "--func", "f");
	ASSERT_USAGE("unexpected argument 'extra'", "--pid", "1", "--func",
		     "f", "--", "extra");
}

TEST(targets_and_functions_required)
{
	struct ispotd_config c;

	ASSERT_USAGE("nothing to watch: give --pid PID, --exe PATH or "
		     "--cgroup PATH", "--func", "f");
	ASSERT_USAGE("nothing to trace: give --func SPEC", "--pid", "1");
	ASSERT_USAGE("nothing to trace", "--exe", "/a", "--key", "f=arg0");
	/* --sync alone is something to trace; each kind is a target. */
	ASSERT_EQ(PARSE(&c, "--pid", "1", "--sync"), 0);
	ispotd_config_free(&c);
	ASSERT_EQ(PARSE(&c, "--exe", "/a", "--func", "f"), 0);
	ispotd_config_free(&c);
	ASSERT_EQ(PARSE(&c, "--cgroup", "a", "--func", "f"), 0);
	ispotd_config_free(&c);
	/* With a file, they may come from it: load() decides. */
	ASSERT_EQ(PARSE(&c, "--config", "/nonexistent/ispotd.conf"), 0);
	ispotd_config_free(&c);
}

/* --auto in place of --func: its N, its profile's length, its period. */
TEST(auto_picks_in_place_of_func)
{
	struct ispotd_config c, l;

	ASSERT_EQ(PARSE(&c, "--pid", "1", "--auto"), 0);
	EXPECT_TRUE(c.auto_pick);
	EXPECT_EQ(c.auto_top, 0u);
	EXPECT_EQ(c.auto_time_ns, ISPOTD_DEFAULT_AUTO_TIME_NS);
	EXPECT_EQ(c.auto_every, (uint32_t)ISPOTD_DEFAULT_AUTO_EVERY);
	ispotd_config_free(&c);
	ASSERT_EQ(PARSE(&c, "--pid", "1", "--auto=3", "--auto-time", "2s",
			"--auto-every", "4", "--func", "f"), 0);
	EXPECT_TRUE(c.auto_pick);
	EXPECT_EQ(c.auto_top, 3u);
	EXPECT_EQ(c.auto_time_ns, 2000000000ull);
	EXPECT_EQ(c.auto_every, 4u);
	EXPECT_EQ(c.nr_funcs, 1u);
	ispotd_config_free(&c);
	/* Without --auto, none. */
	ASSERT_EQ(PARSE(&c, "--pid", "1", "--func", "f"), 0);
	EXPECT_FALSE(c.auto_pick);
	ispotd_config_free(&c);

	/* The file's "auto N"; the command line's --auto=N wins over it. */
	ASSERT_EQ(PARSE(&c, "--config", conf_file("pid 1\nauto 5\n"
						   "auto-every 2\n")), 0);
	ASSERT_EQ(load(&c, &l), 0);
	EXPECT_TRUE(l.auto_pick);
	EXPECT_EQ(l.auto_top, 5u);
	EXPECT_EQ(l.auto_every, 2u);
	ispotd_config_free(&l);
	ispotd_config_free(&c);
	ASSERT_EQ(PARSE(&c, "--auto=7", "--config", conf_file("pid 1\n"
							     "auto 5\n")), 0);
	ASSERT_EQ(load(&c, &l), 0);
	EXPECT_EQ(l.auto_top, 7u);
	ispotd_config_free(&l);
	ispotd_config_free(&c);

	ASSERT_USAGE("--auto=0: N must be a whole number >= 1", "--pid",
		     "1", "--auto=0");
	ASSERT_USAGE("--auto=x: N must be a whole number >= 1", "--pid",
		     "1", "--auto=x");
	ASSERT_USAGE("--auto-every '0' must be a whole number >= 1",
		     "--pid", "1", "--auto", "--auto-every", "0");
	ASSERT_USAGE("--auto=51 picks more functions than --max-functions 50",
		     "--pid", "1", "--auto=51");
	ASSERT_EQ(PARSE(&c, "--pid", "1", "--auto=60", "--max-functions",
			"60"), 0);
	ispotd_config_free(&c);
	/* From the file: its line; from the command line: no file named. */
	{
		char want[256];

		conf_file("exe /a\nauto 51\n");
		snprintf(want, sizeof(want), "%s'auto 51' picks more functions "
			 "than max-functions 50", at_line(2));
		assert_file_error("exe /a\nauto 51\n", want, NULL);
		assert_file_error("exe /a\n", "ispotd: --auto=60 picks more "
				  "functions than --max-functions 50", "--auto=60",
				  NULL);
		/* N from the file, the bound from the command line. */
		conf_file("exe /a\nauto 60\n");
		snprintf(want, sizeof(want), "%s'auto 60' picks more functions "
			 "than --max-functions 50 reports", at_line(2));
		assert_file_error("exe /a\nauto 60\n", want,
				  "--max-functions", "50", NULL);
		/* N from the command line, the bound from the file. */
		conf_file("exe /a\nmax-functions 20\n");
		snprintf(want, sizeof(want), "%s--auto=30 picks more functions "
			 "than 'max-functions 20' here", at_line(2));
		assert_file_error("exe /a\nmax-functions 20\n", want,
				  "--auto=30", NULL);
	}
}

TEST(help)
{
	struct ispotd_config c;
	char buf[8192];
	FILE *f;
	size_t n;
	int out;

	/* stdout into a file, to read the help back */
	f = tmpfile();
	ASSERT_TRUE(f);
	fflush(stdout);
	out = dup(1);
	ASSERT_GE(dup2(fileno(f), 1), 0);
	ASSERT_EQ(PARSE(&c, "--help"), 1);
	ASSERT_EQ(c.log_path, NULL);
	ASSERT_EQ(PARSE(&c, "--pid", "1", "-h"), 1);
	fflush(stdout);
	ASSERT_GE(dup2(out, 1), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	EXPECT_STREQ(captured, "");
	EXPECT_EQ(strncmp(buf, "usage: ispotd ", 14), 0);
	/* every option of the contract is explained */
	EXPECT_TRUE(strstr(buf, "--max-functions N"));
	EXPECT_TRUE(strstr(buf, "--listen ADDR:PORT"));
	EXPECT_TRUE(strstr(buf, "--ring-size SIZE"));
	EXPECT_TRUE(strstr(buf, "--cgroup PATH"));
	EXPECT_TRUE(strstr(buf, "--config FILE"));
	EXPECT_TRUE(strstr(buf, "default 1%"));
	EXPECT_TRUE(strstr(buf, "auto: the argument the work"));
	/* fits a terminal */
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		EXPECT_LE(strlen(line), 80);
}

/* @n values "--OPT PREFIXi", after @head. */
static int parse_many(struct ispotd_config *c, const char *opt,
		      const char *prefix, int n, const char *head0,
		      const char *head1)
{
	static char vals[MAX_ARGS / 2][32];
	const char *args[MAX_ARGS + 1];
	int argc = 0, i;

	args[argc++] = head0;
	args[argc++] = head1;
	for (i = 0; i < n; i++) {
		snprintf(vals[i], sizeof(vals[i]), "%s%d%s", prefix, i + 1,
			 !strcmp(opt, "--key") ? "=arg0" : "");
		args[argc++] = opt;
		args[argc++] = vals[i];
	}
	args[argc] = NULL;
	return parse_argv(c, args);
}

TEST(limits)
{
	static const struct {
		const char *opt, *prefix, *head0, *head1;
		int max;
	} lists[] = {
		{ "--pid", "", "--func", "f", ISPOTD_MAX_TARGETS },
		{ "--exe", "/bin/", "--func", "f", ISPOTD_MAX_TARGETS },
		{ "--cgroup", "g", "--func", "f", ISPOTD_MAX_TARGETS },
		{ "--func", "f", "--pid", "1", OPT_MAX_FUNCS },
		{ "--key", "f", "--pid=1", "--sync", OPT_MAX_KEYS },
	};
	struct ispotd_config c;
	char want[64];
	size_t i;

	ASSERT_EQ(ISPOTD_MAX_TARGETS, 64);
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		ASSERT_EQ(parse_many(&c, lists[i].opt, lists[i].prefix,
				     lists[i].max, lists[i].head0,
				     lists[i].head1), 0);
		ispotd_config_free(&c);
		ASSERT_EQ(parse_many(&c, lists[i].opt, lists[i].prefix,
				     lists[i].max + 1, lists[i].head0,
				     lists[i].head1), -1);
		snprintf(want, sizeof(want), "too many %s options (max %d)",
			 lists[i].opt, lists[i].max);
		ASSERT_ERROR(want);
	}
}

TEST(limits_reached)
{
	struct ispotd_config c;

	ASSERT_EQ(parse_many(&c, "--pid", "", 64, "--func", "f"), 0);
	EXPECT_EQ(c.nr_pids, 64);
	EXPECT_EQ(c.pids[63], 64);
	ispotd_config_free(&c);
	ASSERT_EQ(parse_many(&c, "--func", "f", 256, "--pid", "1"), 0);
	EXPECT_EQ(c.nr_funcs, 256);
	EXPECT_STREQ(c.funcs[255], "f256");
	ispotd_config_free(&c);
	ASSERT_EQ(parse_many(&c, "--key", "f", 64, "--sync", "--pid=1"), 0);
	EXPECT_EQ(c.nr_keys, 64);
	EXPECT_STREQ(c.keys[63].func, "f64");
	ispotd_config_free(&c);
}

TEST(duplicates_dropped)
{
	struct ispotd_config c;

	ASSERT_EQ(PARSE(&c, "--pid", "5", "--pid", "5", "--exe", "/a",
			"--exe", "/a", "--func", "f", "--func", "g",
			"--func", "f"), 0);
	EXPECT_EQ(c.nr_pids, 1);
	EXPECT_EQ(c.nr_exes, 1);
	ASSERT_EQ(c.nr_funcs, 2);
	EXPECT_STREQ(c.funcs[1], "g");
	ispotd_config_free(&c);
}

TEST(load_without_file)
{
	struct ispotd_config cli, out;

	ASSERT_EQ(PARSE(&cli, "--exe", "/a", "--func", "f", "--key", "f=arg0",
			"--listen", "[::1]:1", "--budget", "0"), 0);
	ASSERT_EQ(load(&cli, &out), 0);
	EXPECT_STREQ(captured, "");
	ASSERT_EQ(out.nr_exes, 1);
	EXPECT_STREQ(out.exes[0], "/a");
	EXPECT_STREQ(out.funcs[0], "f");
	EXPECT_STREQ(out.keys[0].func, "f");
	EXPECT_STREQ(out.listen, "[::1]:1");
	EXPECT_STREQ(out.log_path, "-");
	EXPECT_EQ(out.budget, 0);
	EXPECT_EQ(out.set, cli.set);
	/* its own copies: freeing the command line's keeps them */
	EXPECT_NE(out.exes[0], cli.exes[0]);
	EXPECT_NE(out.keys[0].func, cli.keys[0].func);
	EXPECT_NE(out.log_path, cli.log_path);
	ispotd_config_free(&cli);
	EXPECT_STREQ(out.exes[0], "/a");
	EXPECT_STREQ(out.listen, "[::1]:1");
	ispotd_config_free(&out);
	ispotd_config_free(&out);
}

TEST(file_syntax)
{
	struct ispotd_config cli, c;
	const char *path = conf_file(
		"# ispotd.conf\n"
		"\n"
		"   \t\n"
		"  exe /usr/bin/app   # the service\n"
		"exe\t/opt/my app\n"
		"func acquire\n"
		"func a#b\n"
		"#func commented\n"
		"sync\n"
		"   sync   # twice is once\n"
		"budget 0.5%\t\n"
		"window 2m\r\n"
		"key acquire=arg0\n"
		"cgroup /sys/fs/cgroup/system.slice/x.service\n"
		"pid 42\n"
		"log /var/log/ispotd.jsonl\n"
		"listen [::1]:9464\n"
		"max-functions 9\n"
		"ring-size 1M");	/* no final newline */

	ASSERT_EQ(PARSE(&cli, "--config", path), 0);
	ASSERT_EQ(load(&cli, &c), 0);
	EXPECT_STREQ(captured, "");
	ASSERT_EQ(c.nr_exes, 2);
	EXPECT_STREQ(c.exes[0], "/usr/bin/app");
	EXPECT_STREQ(c.exes[1], "/opt/my app");
	ASSERT_EQ(c.nr_funcs, 2);
	EXPECT_STREQ(c.funcs[0], "acquire");
	EXPECT_STREQ(c.funcs[1], "a#b");
	EXPECT_TRUE(c.sync);
	EXPECT_NEAR(c.budget, 0.005, 1e-12);
	EXPECT_EQ(c.window_ns, 120000000000ull);
	ASSERT_EQ(c.nr_keys, 1);
	EXPECT_STREQ(c.keys[0].func, "acquire");
	EXPECT_EQ(c.keys[0].rule.kind, KEY_ARG);
	ASSERT_EQ(c.nr_cgroups, 1);
	EXPECT_STREQ(c.cgroups[0], "/system.slice/x.service");
	ASSERT_EQ(c.nr_pids, 1);
	EXPECT_EQ(c.pids[0], 42);
	EXPECT_STREQ(c.log_path, "/var/log/ispotd.jsonl");
	EXPECT_STREQ(c.listen, "[::1]:9464");
	EXPECT_EQ(c.max_functions, 9);
	EXPECT_EQ(c.ring_bytes, 1 << 20);
	EXPECT_EQ(c.set, ISPOTD_SET_BUDGET | ISPOTD_SET_WINDOW |
		  ISPOTD_SET_LOG | ISPOTD_SET_LISTEN |
		  ISPOTD_SET_MAX_FUNCTIONS | ISPOTD_SET_RING_SIZE);
	EXPECT_STREQ(c.config_path, path);
	ispotd_config_free(&c);
	ispotd_config_free(&cli);
}

TEST(file_unknown_key_names_line)
{
	char want[160];

	assert_file_error("# ispotd.conf\n"
			  "exe /usr/bin/app\n"
			  "budgte 1%\n"
			  "func f\n", "budgte", NULL);
	snprintf(want, sizeof(want), "%sunknown option 'budgte'; see ispotd "
		 "--help\n", at_line(3));
	EXPECT_STREQ(captured, want);
}

TEST(file_errors)
{
	static const struct {
		const char *text;
		unsigned int line;
		const char *why;
	} cases[] = {
		{ "exe /a\nfunc f\nbudget 101%\n", 3,
		  "budget '101%' must be a percentage from 0 to 100" },
		{ "exe /a\nbudget abc\n", 2, "budget 'abc' must be" },
		{ "window 500ms\n", 1, "window '500ms' must be a time of at "
		  "least 1s" },
		{ "\n\nmax-functions 0\n", 3, "max-functions '0' must be" },
		{ "listen localhost\n", 1, "listen 'localhost' lacks a port" },
		{ "pid abc\n", 1, "pid 'abc' is not a process id" },
		{ "key worker\n", 1, "key 'worker' needs FUNC=RULE, e.g. key "
		  "worker=arg0:log2" },
		{ "cgroup a/../b\n", 1, "cgroup 'a/../b': name the group" },
		{ "ring-size 5K\n", 1, "ring-size '5K' must be a power of "
		  "two" },
		{ "exe /a\nbudget\n", 2, "'budget' needs a value" },
		{ "budget   # none\n", 1, "'budget' needs a value" },
		{ "sync yes\n", 1, "'sync' takes no value: write 'sync' "
		  "alone" },
		{ "config /etc/other.conf\n", 1, "'config' cannot be used in a "
		  "config file" },
		{ "help\n", 1, "unknown option 'help'" },
		{ "--pid 12\n", 1, "unknown option '--pid': write it without "
		  "the leading dashes" },
		{ "budget=1%\n", 1, "unknown option 'budget=1%': put a space "
		  "between" },
		{ "Exe /a\n", 1, "unknown option 'Exe'" },
		{ "bud 1%\n", 1, "unknown option 'bud'" },
	};
	char want[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_file_error(cases[i].text, cases[i].why, NULL);
		snprintf(want, sizeof(want), "%s%s", at_line(cases[i].line),
			 cases[i].why);
		if (strncmp(captured, want, strlen(want))) {
			TH_LOG("\"%s\" is not \"%s...\"", captured, want);
			ispot_test_fail(0);
		}
		ASSERT_ERROR("; see ispotd --help");
	}
}

TEST(file_missing)
{
	struct ispotd_config cli, out, before;

	ASSERT_EQ(PARSE(&cli, "--pid", "1", "--func", "f", "--config",
			"/nonexistent/ispotd.conf"), 0);
	memset(&out, 0xcc, sizeof(out));
	before = out;
	ASSERT_EQ(load(&cli, &out), -1);
	EXPECT_STREQ(captured, "ispotd: cannot read /nonexistent/ispotd.conf: "
		     "No such file or directory; check the --config path\n");
	EXPECT_EQ(memcmp(&out, &before, sizeof(out)), 0);
	ispotd_config_free(&cli);
}

TEST(file_is_a_directory)
{
	struct ispotd_config cli, out;

	ASSERT_EQ(PARSE(&cli, "--pid", "1", "--func", "f", "--config", "/"),
		  0);
	ASSERT_EQ(load(&cli, &out), -1);
	EXPECT_STREQ(captured, "ispotd: cannot read /: Is a directory; check "
		     "the --config path\n");
	ispotd_config_free(&cli);
}

/*
 * ispotd reads the file as root, and again at each SIGHUP: a device with
 * no end of line (/dev/zero took 1.8 GB in 8 s) or a FIFO (which would
 * hang the reload) is refused at once, and so is a file too big to be a
 * config, each in one line, the running config kept.
 */
TEST(file_not_a_config_file)
{
	const char *fifo = "/tmp/ispot-test-config.fifo";
	struct ispotd_config cli, out;
	const char *path;

	ASSERT_EQ(PARSE(&cli, "--pid", "1", "--func", "f", "--config",
			"/dev/zero"), 0);
	ASSERT_EQ(load(&cli, &out), -1);
	EXPECT_STREQ(captured, "ispotd: cannot read /dev/zero: not a regular "
		     "file; check the --config path\n");
	ispotd_config_free(&cli);
	unlink(fifo);
	ASSERT_EQ(mkfifo(fifo, 0600), 0);
	ASSERT_EQ(PARSE(&cli, "--pid", "1", "--func", "f", "--config", fifo),
		  0);
	alarm(10);	/* a blocking open would hang here */
	ASSERT_EQ(load(&cli, &out), -1);
	alarm(0);
	unlink(fifo);
	EXPECT_TRUE(one_line_error("not a regular file"));
	ispotd_config_free(&cli);
	/* A config of 300 KiB: blank lines and one target. */
	path = conf_file("pid 1\nfunc f\n");
	ASSERT_EQ(ftruncate(conf_fd, 300 * 1024), 0);
	ASSERT_EQ(PARSE(&cli, "--config", path), 0);
	ASSERT_EQ(load(&cli, &out), -1);
	EXPECT_TRUE(one_line_error("over 256 KiB"));
	ispotd_config_free(&cli);
}

TEST(file_merge_cli_wins)
{
	struct ispotd_config cli, c;
	const char *path = conf_file(
		"pid 2\n"
		"pid 1\n"
		"exe /file\n"
		"func b\n"
		"func a\n"
		"key w=none\n"
		"key v=arg1\n"
		"key u=auto\n"
		"budget 5%\n"
		"window 10s\n"
		"log /file.log\n"
		"listen 0.0.0.0:1\n"
		"max-functions 3\n"
		"ring-size 8K\n");

	ASSERT_EQ(PARSE(&cli, "--pid", "1", "--func", "a", "--key", "w=arg0",
			"--budget", "2%", "--log", "-", "--listen",
			"127.0.0.1:2", "--config", path, "--ring-size", "16K"),
		  0);
	ASSERT_EQ(load(&cli, &c), 0);
	/* lists: the union, the command line's first */
	ASSERT_EQ(c.nr_pids, 2);
	EXPECT_EQ(c.pids[0], 1);
	EXPECT_EQ(c.pids[1], 2);
	ASSERT_EQ(c.nr_exes, 1);
	EXPECT_STREQ(c.exes[0], "/file");
	ASSERT_EQ(c.nr_funcs, 2);
	EXPECT_STREQ(c.funcs[0], "a");
	EXPECT_STREQ(c.funcs[1], "b");
	/* the file's key for the command line's FUNC is dropped */
	ASSERT_EQ(c.nr_keys, 3);
	EXPECT_STREQ(c.keys[0].func, "w");
	EXPECT_EQ(c.keys[0].rule.kind, KEY_ARG);
	EXPECT_STREQ(c.keys[1].func, "v");
	EXPECT_EQ(c.keys[1].rule.arg, 1);
	EXPECT_STREQ(c.keys[2].func, "u");
	EXPECT_EQ(c.keys[2].rule.kind, KEY_AUTO);
	/* scalars: the command line's, else the file's */
	EXPECT_NEAR(c.budget, 0.02, 1e-12);
	EXPECT_STREQ(c.log_path, "-");
	EXPECT_STREQ(c.listen, "127.0.0.1:2");
	EXPECT_EQ(c.ring_bytes, 16 << 10);
	EXPECT_EQ(c.window_ns, 10000000000ull);
	EXPECT_EQ(c.max_functions, 3);
	EXPECT_EQ(c.set, ISPOTD_SET_BUDGET | ISPOTD_SET_WINDOW |
		  ISPOTD_SET_LOG | ISPOTD_SET_LISTEN |
		  ISPOTD_SET_MAX_FUNCTIONS | ISPOTD_SET_RING_SIZE);
	/* the command line itself is unchanged */
	EXPECT_EQ(cli.nr_pids, 1);
	EXPECT_EQ(cli.nr_keys, 1);
	EXPECT_EQ(cli.window_ns, 60000000000ull);
	ispotd_config_free(&c);
	ispotd_config_free(&cli);
}

TEST(file_scalar_checked_even_when_overridden)
{
	assert_file_error("exe /a\nfunc f\nbudget 200%\n",
			  "budget '200%' must be", "--budget", "1%", NULL);
}

TEST(file_last_key_wins_within_file)
{
	struct ispotd_config cli, c;

	ASSERT_EQ(PARSE(&cli, "--config", conf_file("exe /a\nfunc f\n"
						    "key f=arg0\nkey f=arg1\n"
						    "budget 3\n")),
		  0);
	ASSERT_EQ(load(&cli, &c), 0);
	ASSERT_EQ(c.nr_keys, 2);
	EXPECT_EQ(c.keys[1].rule.arg, 1);
	EXPECT_NEAR(c.budget, 0.03, 1e-12);
	ispotd_config_free(&c);
	ispotd_config_free(&cli);
}

TEST(file_supplies_what_is_required)
{
	struct ispotd_config cli, c;
	char want[160];

	ASSERT_EQ(PARSE(&cli, "--config", conf_file("cgroup a\nfunc f\n")),
		  0);
	ASSERT_EQ(load(&cli, &c), 0);
	EXPECT_STREQ(c.cgroups[0], "/a");
	ispotd_config_free(&c);
	ispotd_config_free(&cli);

	/* the target on the command line, the function in the file */
	ASSERT_EQ(PARSE(&cli, "--pid", "3", "--config", conf_file("sync\n")),
		  0);
	ASSERT_EQ(load(&cli, &c), 0);
	EXPECT_TRUE(c.sync);
	ispotd_config_free(&c);
	ispotd_config_free(&cli);

	assert_file_error("# nothing\nbudget 1%\n", "nothing to watch", NULL);
	snprintf(want, sizeof(want), "ispotd: %s: nothing to watch: add a "
		 "'pid', 'exe' or 'cgroup' line", conf_path());
	EXPECT_EQ(strncmp(captured, want, strlen(want)), 0);
	assert_file_error("exe /a\n", "nothing to trace: add a 'func SPEC' "
			  "or an 'auto' line", NULL);
	assert_file_error("func f\n", "nothing to watch", "--func", "g",
			  NULL);
}

TEST(file_limits_count_the_command_line)
{
	static char text[64 * 16];
	size_t n = 0;
	int i;

	for (i = 0; i < 64; i++)
		n += snprintf(text + n, sizeof(text) - n, "pid %d\n", 100 + i);
	/* 64 in the file alone is fine; one more from argv is not */
	assert_file_error(text, "too many pid options (max 64)", "--pid",
			  "1", "--func", "f", NULL);
	EXPECT_EQ(strncmp(captured, at_line(64), strlen(at_line(64))), 0);
}

TEST(reload_replaces_lists)
{
	struct ispotd_config cli, first, second, kept;

	ASSERT_EQ(PARSE(&cli, "--exe", "/cli", "--config",
			conf_file("exe /old\nfunc old\nkey old=arg0\n"
				  "window 5s\nlisten h:1\n")), 0);
	ASSERT_EQ(load(&cli, &first), 0);
	ASSERT_EQ(first.nr_exes, 2);
	ASSERT_EQ(first.nr_funcs, 1);

	/* the file changes; SIGHUP */
	conf_file("exe /new\nfunc new\n");
	ASSERT_EQ(load(&cli, &second), 0);
	ASSERT_EQ(second.nr_exes, 2);
	EXPECT_STREQ(second.exes[0], "/cli");
	EXPECT_STREQ(second.exes[1], "/new");
	ASSERT_EQ(second.nr_funcs, 1);
	EXPECT_STREQ(second.funcs[0], "new");
	EXPECT_EQ(second.nr_keys, 0);
	/* a scalar the file no longer gives is back to its default */
	EXPECT_EQ(second.window_ns, 60000000000ull);
	EXPECT_EQ(second.listen, NULL);
	EXPECT_EQ(second.set, 0);
	/* the first is intact, and both free cleanly */
	EXPECT_STREQ(first.exes[1], "/old");
	EXPECT_STREQ(first.listen, "h:1");
	ispotd_config_free(&first);
	EXPECT_STREQ(second.funcs[0], "new");

	/* a bad file: the running config stays as it was */
	conf_file("exe /newer\nbudget lots\n");
	kept = second;
	ASSERT_EQ(load(&cli, &second), -1);
	ASSERT_ERROR(":2: budget 'lots' must be");
	EXPECT_EQ(memcmp(&kept, &second, sizeof(kept)), 0);
	EXPECT_STREQ(second.exes[1], "/new");
	ispotd_config_free(&second);
	ispotd_config_free(&cli);
}

/* --block and 'block' travel as the --func spec ispotctl resolves. */
TEST(blocks_become_block_specs)
{
	struct ispotd_config c, cli;
	char long_spec[OPT_BLOCK_SPEC_MAX + 8];

	ASSERT_EQ(PARSE(&c, "--pid", "9", "--block",
			"crit=ispot:locked_begin,ispot:locked_end",
			"--func", "block:private"), 0);
	ASSERT_EQ(c.nr_funcs, 2);
	EXPECT_STREQ(c.funcs[0],
		     "block:crit=ispot:locked_begin,ispot:locked_end");
	EXPECT_STREQ(c.funcs[1], "block:private");
	ispotd_config_free(&c);

	/* A block is something to trace. */
	ASSERT_EQ(parse_argv(&cli, (const char *[]){ "--config",
		conf_file("exe /a\nblock io=libc:a_b,libc:a_e\n"), NULL }),
		  0);
	ASSERT_EQ(load(&cli, &c), 0);
	ASSERT_EQ(c.nr_funcs, 1);
	EXPECT_STREQ(c.funcs[0], "block:io=libc:a_b,libc:a_e");
	ispotd_config_free(&c);
	ispotd_config_free(&cli);

	ASSERT_USAGE("--block wants NAME=[OBJ:]PROV:BEGIN,PROV:END, not "
		     "'crit'", "--pid", "1", "--block", "crit");
	memset(long_spec, 'a', sizeof(long_spec) - 1);
	long_spec[sizeof(long_spec) - 1] = '\0';
	long_spec[3] = '=';
	ASSERT_USAGE("is too long", "--pid", "1", "--block", long_spec);
	assert_file_error("exe /a\nblock crit\n",
			  "block wants NAME=[OBJ:]PROV:BEGIN,PROV:END", NULL);
}

TEST(trace_opts)
{
	struct ispotd_config c;
	struct trace_opts t;

	ASSERT_EQ(PARSE(&c, "--pid", "9", "--func", "a", "--func", "b",
			"--key", "a=arg2:log2", "--sync", "--ring-size", "64K",
			"--window", "5s", "--listen", "h:1"), 0);
	memset(&t, 0xcc, sizeof(t));
	ispotd_config_trace_opts(&c, &t);
	EXPECT_EQ(t.pid, 0);
	ASSERT_EQ(t.nr_funcs, 2);
	EXPECT_EQ(t.funcs[0], c.funcs[0]);
	EXPECT_STREQ(t.funcs[1], "b");
	ASSERT_EQ(t.nr_keys, 1);
	EXPECT_STREQ(t.keys[0].func, "a");
	EXPECT_EQ(t.keys[0].rule.arg, 2);
	EXPECT_TRUE(t.keys[0].rule.log2);
	EXPECT_TRUE(t.sync);
	EXPECT_EQ(t.ring_bytes, 64 << 10);
	EXPECT_EQ(t.sample, 0);
	EXPECT_EQ(t.duration_ns, 0);
	EXPECT_FALSE(t.json);
	EXPECT_EQ(t.output, NULL);
	EXPECT_EQ(t.top, 0);
	EXPECT_EQ(t.nr_counters, 0);
	EXPECT_EQ(t.cmd, NULL);
	/* the key reaches the tracer's lookup */
	{
		char desc[32];
		struct key_target a = { "/bin/app", "a", NULL };
		struct key_rule r = trace_opts_key(&t, &a, desc, sizeof(desc));

		EXPECT_EQ(r.kind, KEY_ARG);
		EXPECT_STREQ(desc, "arg2:log2");
	}
	ispotd_config_free(&c);
}

TEST_HARNESS_MAIN
