// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text exposition reader (promtext.h) on a sample of what
 * ispotd serves, with the format's corners: HELP and TYPE lines and other
 * comments, escapes in label values (a '}' , ',' or quote inside a value),
 * NaN and infinities, timestamps, CRLF, a trailing comma; one test for
 * each kind of malformed line, which names its line; and ispotd's metrics
 * read back into per-function totals (metrics_read.h).
 */
#include <stdint.h>
#include <sys/mman.h>

#include "ispot_test.h"
#include "top/metrics_read.h"
#include "wire/promtext.h"

#define EPS	1e-9

static const char sample_text[] =
	"# HELP ispot_calls_total Probed calls.\n"
	"# TYPE ispot_calls_total counter\n"
	"ispot_calls_total{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\"} 6000\n"
	"ispot_calls_total{exe=\"db\",function=\"ns::Table::get(int) const\",object=\"libdb.so\"} 12 1700000000000\n"
	"\n"
	"# a comment that is neither HELP nor TYPE\n"
	"ispot_loss_seconds_total{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\",cause=\"futex\"} 0.125\n"
	"ispot_loss_seconds_total{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\",cause=\"oncpu\"} -0.005\n"
	"ispot_loss_seconds_total{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\",cause=\"unknown\"} 0.03\n"
	"ispot_observed_seconds_total{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\"} 1.5\r\n"
	"ispot_auto_wall_share{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\"} 0.4\n"
	"ispot_auto_wall_share{exe=\"db\",function=\"ns::Table::get(int) const\",object=\"libdb.so\"} NaN\n"
	"# TYPE ispot_duration_seconds histogram\n"
	"ispot_duration_seconds_bucket{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\",le=\"1e-05\"} 5000\n"
	"ispot_duration_seconds_bucket{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\",le=\"+Inf\"} 6000\n"
	"ispot_duration_seconds_bucket{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\",le=\"0.001\"} 5900\n"
	"ispot_duration_seconds_sum{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\"} 0.5\n"
	"ispot_duration_seconds_count{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\"} 6000\n"
	"ispot_sci{exe=\"lock_contention\",function=\"acquire\",object=\"lock_contention\"} NaN\n"
	"ispot_events_total{exe=\"lock_contention\",outcome=\"recorded\"} 12001\n"
	"ispot_events_total{exe=\"lock_contention\",outcome=\"dropped\"} 3\n"
	"ispot_events_total{exe=\"db\",outcome=\"dropped\"} 4\n"
	"ispot_events_total{exe=\"db\",outcome=\"unpaired\",} 1\n"
	"ispot_targets 2\n"
	"process_cpu_seconds_total 12.5\n"
	"weird_escapes{v=\"a\\\"}b,c\\\\d\\ne\", w = \"x\" } -Inf\n"
	"ispot_calls_total{function=\"no exe\"} 99\n"
	"ispot_calls_total{exe=\"db\",function=\"ns::Table::get(int) const\",object=\"libdb.so\"} 13";

struct collect {
	int n;
	double weird;
	char v[64], w[64];
	size_t weird_labels;
};

static int collect_cb(void *ctx, const struct prom_sample *s)
{
	struct collect *c = ctx;

	c->n++;
	if (!strcmp(s->name, "weird_escapes")) {
		c->weird = s->value;
		c->weird_labels = s->nr_labels;
		snprintf(c->v, sizeof(c->v), "%s", prom_label(s, "v"));
		snprintf(c->w, sizeof(c->w), "%s", prom_label(s, "w"));
	}
	return 0;
}

static char *dup_text(const char *s, size_t *len)
{
	*len = strlen(s);
	return strdup(s);
}

TEST(parses_every_sample)
{
	struct collect c = { 0 };
	char err[128] = "", *t;
	size_t len;

	t = dup_text(sample_text, &len);
	ASSERT_TRUE(t);
	ASSERT_EQ(prom_parse(t, len, collect_cb, &c, err, sizeof(err)), 0);
	EXPECT_EQ(c.n, 23);
	EXPECT_TRUE(isinf(c.weird) && c.weird < 0);
	EXPECT_EQ(c.weird_labels, 2);
	EXPECT_STREQ(c.v, "a\"}b,c\\d\ne");
	EXPECT_STREQ(c.w, "x");
	free(t);
}

static int stop_cb(void *ctx, const struct prom_sample *s)
{
	(void)s;
	return ++*(int *)ctx == 2 ? 42 : 0;
}

TEST(callback_stops_the_parse)
{
	char err[128], *t;
	size_t len;
	int n = 0;

	t = dup_text(sample_text, &len);
	ASSERT_TRUE(t);
	EXPECT_EQ(prom_parse(t, len, stop_cb, &n, err, sizeof(err)), 42);
	EXPECT_EQ(n, 2);
	free(t);
}

/* Each malformed line: -1, and the error names the line and the fault. */
static void expect_error_in(char *t, size_t len, const char *want)
{
	struct collect c = { 0 };
	char err[128] = "";

	EXPECT_EQ(prom_parse(t, len, collect_cb, &c, err, sizeof(err)), -1);
	if (!strstr(err, want))
		TH_LOG("'%s' does not say '%s'", err, want);
	EXPECT_TRUE(strstr(err, want) != NULL);
}

static void expect_error(const char *text, const char *want)
{
	size_t len;
	char *t = dup_text(text, &len);

	ASSERT_TRUE(t);
	expect_error_in(t, len, want);
	free(t);
}

TEST(malformed_lines)
{
	expect_error("ok 1\n{a=\"b\"} 1\n", "line 2: a metric name");
	expect_error("m{a=\"b} 1\n", "line 1: a label value lacks its closing quote");
	expect_error("m{a=b} 1\n", "line 1: a label value must be quoted");
	expect_error("m{a\"b\"} 1\n", "line 1: a label lacks its '='");
	expect_error("m{=\"b\"} 1\n", "line 1: a label name was expected");
	expect_error("m{a=\"b\" c=\"d\"} 1\n", "labels must be separated");
	expect_error("m{a=\"\\t\"} 1\n", "unknown escape");
	expect_error("m one\n", "line 1: the value is not a number");
	expect_error("m\n", "line 1: a value must follow the name");
	expect_error("# x\n\nm 1 2 3\n", "line 3: unexpected text");
	expect_error("<html>\n", "line 1: a metric name");
}

/*
 * @s copied to end right before an inaccessible page: no NUL after it,
 * and a byte read or written past it is a SIGSEGV.  Free with
 * unguard().
 */
static char *guarded(const char *s, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map;

	*len = strlen(s);
	ASSERT_LE(*len, (size_t)page);
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	ASSERT_EQ(mprotect(map + page, page, PROT_NONE), 0);
	memcpy(map + page - *len, s, *len);
	return map + page - *len;
}

static void unguard(char *t)
{
	long page = sysconf(_SC_PAGESIZE);

	munmap((char *)((uintptr_t)t & ~(uintptr_t)(page - 1)), 2 * page);
}

static void expect_error_guarded(const char *text, const char *want)
{
	size_t len;
	char *t = guarded(text, &len);

	expect_error_in(t, len, want);
	unguard(t);
}

/*
 * As promtext.h says, the text need not end with a NUL: nothing is read
 * or written past its last byte, a last line without its \n included.
 */
TEST(text_without_a_nul)
{
	struct collect c = { 0 };
	char err[128] = "", *t;
	size_t len;

	t = guarded(sample_text, &len);
	ASSERT_EQ(prom_parse(t, len, collect_cb, &c, err, sizeof(err)), 0);
	EXPECT_EQ(c.n, 23);
	EXPECT_STREQ(c.v, "a\"}b,c\\d\ne");
	unguard(t);

	t = guarded("m{a=\"b\"} 1.5", &len);
	ASSERT_EQ(prom_parse(t, len, collect_cb, &c, err, sizeof(err)), 0);
	EXPECT_EQ(c.n, 24);
	unguard(t);
	t = guarded("m 1 -1700000000000", &len);
	ASSERT_EQ(prom_parse(t, len, collect_cb, &c, err, sizeof(err)), 0);
	EXPECT_EQ(c.n, 25);
	unguard(t);

	expect_error_guarded("m{a=\"b} 1", "a label value lacks its closing quote");
	expect_error_guarded("m{a=\"b\\", "a label value lacks its closing quote");
	expect_error_guarded("m{a=\"b\"", "labels must be separated");
	expect_error_guarded("m{a", "a label lacks its '='");
	expect_error_guarded("m", "a value must follow the name");
	expect_error_guarded("m ", "the value is not a number");
	expect_error_guarded("m 1 2 3", "unexpected text");
}

TEST(too_many_labels)
{
	char text[1024] = "m{";
	int i;

	for (i = 0; i <= PROM_MAX_LABELS; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "l%d=\"v\",", i);
	strcat(text, "} 1\n");
	expect_error(text, "too many labels");
}

TEST(ispotd_metrics_read_back)
{
	struct metrics_snapshot m;
	const struct metrics_series *a = NULL, *d = NULL;
	struct rates_counts c;
	char err[128] = "", *t;
	size_t len, i;

	t = dup_text(sample_text, &len);
	ASSERT_TRUE(t);
	ASSERT_EQ(metrics_read(t, len, &m, err, sizeof(err)), 0);
	/* The sample without exe is no series; the last sample wins. */
	ASSERT_EQ(m.nr_series, 2);
	for (i = 0; i < m.nr_series; i++) {
		if (!strcmp(m.series[i].function, "acquire"))
			a = &m.series[i];
		if (!strcmp(m.series[i].exe, "db"))
			d = &m.series[i];
	}
	ASSERT_TRUE(a && d);
	EXPECT_STREQ(d->function, "ns::Table::get(int) const");
	EXPECT_STREQ(d->object, "libdb.so");
	EXPECT_NEAR(d->calls, 13, EPS);
	EXPECT_NEAR(a->calls, 6000, EPS);
	EXPECT_NEAR(a->cause_ns[CAUSE_FUTEX], 125e6, 1e-3);
	EXPECT_NEAR(a->cause_ns[CAUSE_ONCPU], -5e6, 1e-3);
	EXPECT_NEAR(a->cause_ns[CAUSE_UNKNOWN], 30e6, 1e-3);
	EXPECT_NEAR(a->loss_ns, 150e6, 1e-3);
	EXPECT_NEAR(a->observed_ns, 1.5e9, 1e-3);
	/* ispotd --auto's gauge; one that is no share reads not picked. */
	EXPECT_NEAR(a->pick_share, 0.4, EPS);
	EXPECT_EQ(d->pick_share, 0);
	/* Buckets sorted by le, +Inf last. */
	ASSERT_EQ(a->nr_buckets, 3);
	EXPECT_NEAR(a->le_ns[0], 1e4, 1e-6);
	EXPECT_NEAR(a->le_ns[1], 1e6, 1e-6);
	EXPECT_TRUE(isinf(a->le_ns[2]));
	EXPECT_NEAR(a->cum[1], 5900, EPS);
	EXPECT_NEAR(m.recorded, 12001, EPS);
	EXPECT_NEAR(m.dropped, 7, EPS);
	EXPECT_NEAR(m.unpaired, 1, EPS);
	EXPECT_NEAR(m.targets, 2, EPS);
	EXPECT_GT(m.nr_ispot, 10);
	metrics_series_counts(a, &c);
	EXPECT_NEAR(c.loss_ns, 150e6, 1e-3);
	EXPECT_NEAR(c.pick_share, 0.4, EPS);
	EXPECT_EQ(c.nr_buckets, 3);
	EXPECT_NEAR(rates_quantile(0.5, c.le_ns, c.cum, NULL, c.nr_buckets),
		    1e4 * 3000 / 5000, 1e-6);
	metrics_snapshot_free(&m);
	free(t);
}

/* Another exporter's metrics parse, and say they are not ispotd's. */
TEST(other_exporter_has_no_ispot_metrics)
{
	struct metrics_snapshot m;
	char err[128], *t;
	size_t len;

	t = dup_text("# HELP up x\nup 1\nnode_load1 0.5\n", &len);
	ASSERT_TRUE(t);
	ASSERT_EQ(metrics_read(t, len, &m, err, sizeof(err)), 0);
	EXPECT_EQ(m.nr_ispot, 0);
	EXPECT_EQ(m.nr_series, 0);
	EXPECT_TRUE(m.targets < 0);
	metrics_snapshot_free(&m);
	free(t);
}

/* A histogram wider than a view keeps: no p99 rather than a wrong one. */
TEST(too_many_buckets)
{
	char *text = malloc(64 * 1024), *p;
	struct metrics_snapshot m;
	char err[128];
	int i;

	ASSERT_TRUE(text);
	p = text;
	for (i = 0; i <= RATES_MAX_BUCKETS; i++)
		p += sprintf(p, "ispot_duration_seconds_bucket{exe=\"a\","
			     "function=\"f\",le=\"%d\"} %d\n", i + 1, i);
	ASSERT_EQ(metrics_read(text, p - text, &m, err, sizeof(err)), 0);
	ASSERT_EQ(m.nr_series, 1);
	EXPECT_EQ(m.series[0].nr_buckets, 0);
	EXPECT_TRUE(m.series[0].too_many_buckets);
	metrics_snapshot_free(&m);
	free(text);
}

/*
 * Label values from names any user writes (an executable's file name, a
 * symbol): each byte that starts no UTF-8 sequence goes out as U+FFFD,
 * valid sequences as they are; Debian's promtool, which refuses the
 * exposition with the raw bytes (so does a Prometheus scrape, whole),
 * takes it.
 */
TEST(label_values_written_as_utf8)
{
	static const char *const bad[] = {
		"x\xffy",		/* never in UTF-8 */
		"\xe2\x82",		/* cut short by its end */
		"\xed\xa0\x80",	/* a surrogate */
		"\xc0\xaf",		/* an overlong '/' */
		"\xf4\x90\x80\x80",	/* past U+10FFFF */
		"\x80",		/* a continuation alone */
	};
	static const char *const want[] = {
		"x\xef\xbf\xbdy",
		"\xef\xbf\xbd\xef\xbf\xbd",
		"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		"\xef\xbf\xbd\xef\xbf\xbd",
		"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		"\xef\xbf\xbd",
	};
	const struct prom_label ok = {
		"exe", "caf\xc3\xa9 \xf0\x9f\x94\x92 \"q\""	/* as they are */
	};
	char *text = NULL, line[128], path[] = "/tmp/test_promtext.XXXXXX";
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);
	int fd;

	ASSERT_TRUE(f);
	prom_write_family(f, "m", "gauge", "a test");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct prom_label l = { "exe", bad[i] };

		prom_write_series(f, "m", &l, 1);
		prom_write_u64(f, i);
	}
	prom_write_series(f, "m", &ok, 1);
	prom_write_u64(f, 99);
	fclose(f);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		snprintf(line, sizeof(line), "m{exe=\"%s\"} %zu\n", want[i], i);
		EXPECT_TRUE(strstr(text, line));
	}
	EXPECT_TRUE(strstr(text, "m{exe=\"caf\xc3\xa9 \xf0\x9f\x94\x92 "
			   "\\\"q\\\"\"} 99\n"));
	if (system("command -v promtool >/dev/null")) {
		free(text);
		SKIP("promtool missing: install package prometheus "
		     "(scripts/deps.sh)");
	}
	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, text, len), (ssize_t)len);
	close(fd);
	snprintf(line, sizeof(line), "promtool check metrics < %s", path);
	EXPECT_EQ(system(line), 0);
	unlink(path);
	free(text);
}

TEST_HARNESS_MAIN
