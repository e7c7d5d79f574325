// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's Prometheus metrics (user/daemon/metrics.c): the exposition
 * (HELP and TYPE, escaped labels, a histogram whose +Inf is its count),
 * the sticky folding into function="(other)", and counters that never
 * decrease when a target restarts under a new pid.
 *
 * Windows come either as figures written here, or from a real window set
 * (window.c) whose engine is fed directly, as test_daemon_window.c does,
 * with the metrics as its observer.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ispot_test.h"
#include "metrics.h"
#include "metrics_internal.h"
#include "trace/autopick.h"
#include "analysis/sci.h"
#include "trace/trace.h"
#include "window.h"

#define T0		1000000000ull
#define WINDOW_NS	2000000000ull

/* Render @m into a string of its own. */
static char *render(const struct metrics *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f);
	ASSERT_EQ(metrics_render(m, f), 0);
	ASSERT_EQ(fclose(f), 0);
	return buf;
}

/* The line that starts with @series followed by a space, or NULL. */
static const char *sample(const char *text, const char *series)
{
	size_t n = strlen(series);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, series, n) && p[n] == ' ')
			return p;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* The value of @series; fails the test when it is not there. */
static double val(const char *text, const char *series)
{
	const char *p = sample(text, series);

	if (!p) {
		TH_LOG("no sample %s in:\n%s", series, text);
		ispot_test_fail(1);
	}
	return strtod(p + strlen(series) + 1, NULL);
}

/* The value as written, up to the end of its line. */
static char *raw(const char *text, const char *series)
{
	const char *p = sample(text, series), *e;

	if (!p) {
		TH_LOG("no sample %s", series);
		ispot_test_fail(1);
	}
	p += strlen(series) + 1;
	e = strchr(p, '\n');
	return strndup(p, e - p);
}

static const struct window_target app1 = {
	.pid = 100, .exe = "/usr/bin/app", .cgroup = "",
};

/* One window of @tg with one function per name, no durations. */
static void add_window(struct metrics *m, const struct window_target *tg,
		       uint64_t now, const char *const *names,
		       const uint64_t *loss, size_t n)
{
	struct window_func_figures ff[16];
	struct window_figures wf = {
		.target = tg, .now = now, .window_ns = WINDOW_NS,
		.funcs = ff, .nr_funcs = n,
	};
	size_t i;

	ASSERT_LE(n, 16);
	memset(ff, 0, sizeof(ff));
	for (i = 0; i < n; i++) {
		ff[i].name = names[i];
		ff[i].object = "/usr/bin/app";
		ff[i].func_id = i;
		ff[i].calls = i + 1;
		ff[i].loss_ns = loss[i];
		ff[i].unknown_loss_ns = loss[i];
		ff[i].observed_ns = 1000;
		ff[i].aside_ns = 30;	/* 3% of it in solo blocks */
		/* Half of it interference, and 7 ns behind other processes. */
		ff[i].has_interference = true;
		ff[i].interference_ns = loss[i] / 2;
		ff[i].external_ns = 7;
	}
	ASSERT_EQ(metrics_add_window(m, &wf), 0);
}

TEST(every_family_has_help_and_type)
{
	static const char *const family[][2] = {
		{ "ispot_targets", "gauge" },
		{ "ispot_events_total", "counter" },
		{ "ispot_duty_cycle", "gauge" },
		{ "ispot_overhead_estimate", "gauge" },
		{ "ispot_calls_total", "counter" },
		{ "ispot_loss_seconds_total", "counter" },
		{ "ispot_observed_seconds_total", "counter" },
		{ "ispot_interference_seconds_total", "counter" },
		{ "ispot_external_seconds_total", "counter" },
		{ "ispot_solo_block_seconds_total", "counter" },
		{ "ispot_sci", "gauge" },
		{ "ispot_auto_wall_share", "gauge" },
		{ "ispot_duration_seconds", "histogram" },
	};
	struct metrics *m = metrics_new(50);
	char want[128], *text;
	size_t i;

	ASSERT_TRUE(m);
	text = render(m);
	for (i = 0; i < sizeof(family) / sizeof(family[0]); i++) {
		snprintf(want, sizeof(want), "# HELP %s ", family[i][0]);
		EXPECT_TRUE(strstr(text, want));
		snprintf(want, sizeof(want), "# TYPE %s %s\n", family[i][0],
			 family[i][1]);
		EXPECT_TRUE(strstr(text, want));
	}
	EXPECT_EQ(val(text, "ispot_targets"), 0);
	free(text);
	metrics_set_targets(m, 3);
	text = render(m);
	EXPECT_EQ(val(text, "ispot_targets"), 3);
	free(text);
	metrics_free(m);
}

/* Interference and external time add up over windows, like the loss. */
TEST(interference_and_external_counters)
{
	static const char *const names[] = { "work" };
	static const uint64_t loss[] = { 400 };
	struct metrics *m = metrics_new(50);
	char *text;

	ASSERT_TRUE(m);
	add_window(m, &app1, T0, names, loss, 1);
	add_window(m, &app1, T0 + WINDOW_NS, names, loss, 1);
	text = render(m);
	EXPECT_NEAR(val(text, "ispot_interference_seconds_total{exe=\"app\","
			"function=\"work\",object=\"app\"}"), 400e-9, 1e-15);
	EXPECT_NEAR(val(text, "ispot_external_seconds_total{exe=\"app\","
			"function=\"work\",object=\"app\"}"), 14e-9, 1e-15);
	EXPECT_NEAR(val(text, "ispot_solo_block_seconds_total{exe=\"app\","
			"function=\"work\",object=\"app\"}"), 60e-9, 1e-15);
	free(text);
	metrics_free(m);
}

/*
 * ispotd --auto: a picked function's wall share in the last profile, on
 * the series it already has; a function never picked has no gauge, and
 * one a later profile drops reads 0, its series kept.
 */
TEST(auto_picks_are_a_gauge_on_the_functions_series)
{
	static const char *const names[] = { "work", "idle" };
	static const uint64_t loss[] = { 400, 10 };
	struct autopick a = { 0 };
	struct autopick_func f[1];
	struct window_target tg = app1;
	struct metrics *m = metrics_new(50);
	char *text;

	ASSERT_TRUE(m);
	memset(f, 0, sizeof(f));
	snprintf(f[0].sym.name, sizeof(f[0].sym.name), "work");
	snprintf(f[0].sym.obj, sizeof(f[0].sym.obj), "/usr/bin/app");
	f[0].wall_ns = 750;
	a.funcs = f;
	a.nr = 1;
	a.wall_ns = 1000;
	tg.picked = &a;
	add_window(m, &tg, T0, names, loss, 2);
	text = render(m);
	EXPECT_NEAR(val(text, "ispot_auto_wall_share{exe=\"app\","
			"function=\"work\",object=\"app\"}"), 0.75, 1e-9);
	EXPECT_FALSE(sample(text, "ispot_auto_wall_share{exe=\"app\","
			    "function=\"idle\",object=\"app\"}"));
	free(text);
	/* A profile that could not pick: the last picks stay traced. */
	a.nr = 0;
	tg.pick_error = "pid 100 ran no user code";
	add_window(m, &tg, T0 + WINDOW_NS / 2, names, loss, 2);
	text = render(m);
	EXPECT_NEAR(val(text, "ispot_auto_wall_share{exe=\"app\","
			"function=\"work\",object=\"app\"}"), 0.75, 1e-9);
	free(text);
	tg.pick_error = NULL;
	/* The next profile picks nothing of it. */
	add_window(m, &tg, T0 + WINDOW_NS, names, loss, 2);
	text = render(m);
	EXPECT_EQ(val(text, "ispot_auto_wall_share{exe=\"app\","
		      "function=\"work\",object=\"app\"}"), 0);
	free(text);
	metrics_free(m);
}

/* Without wait records there is no figure: no series, rather than a 0. */
TEST(no_interference_series_without_wait_records)
{
	struct window_func_figures ff = {
		.name = "work", .object = "/usr/bin/app", .calls = 1,
		.loss_ns = 5, .observed_ns = 10,
	};
	struct window_figures wf = {
		.target = &app1, .now = T0, .window_ns = WINDOW_NS,
		.funcs = &ff, .nr_funcs = 1,
	};
	struct metrics *m = metrics_new(50);
	char *text;

	ASSERT_TRUE(m);
	ASSERT_EQ(metrics_add_window(m, &wf), 0);
	text = render(m);
	EXPECT_TRUE(sample(text, "ispot_calls_total{exe=\"app\","
			   "function=\"work\",object=\"app\"}"));
	EXPECT_FALSE(strstr(text, "ispot_interference_seconds_total{"));
	EXPECT_FALSE(strstr(text, "ispot_external_seconds_total{"));
	EXPECT_FALSE(strstr(text, "ispot_solo_block_seconds_total{"));
	free(text);
	metrics_free(m);
}

/* A target found has its events, dropped included, before any window. */
TEST(events_outcomes_exist_at_zero)
{
	static const char *const outcome[] = {
		"recorded", "dropped", "unpaired",
	};
	struct metrics *m = metrics_new(50);
	char want[128], *text;
	size_t i;

	ASSERT_TRUE(m);
	/* A binary replaced by an upgrade is the same program. */
	ASSERT_EQ(metrics_add_exe(m, "/usr/bin/app (deleted)"), 0);
	ASSERT_EQ(metrics_add_exe(m, "/usr/bin/app"), 0);
	ASSERT_EQ(metrics_add_exe(m, ""), 0);
	text = render(m);
	for (i = 0; i < 3; i++) {
		snprintf(want, sizeof(want),
			 "ispot_events_total{exe=\"app\",outcome=\"%s\"}",
			 outcome[i]);
		EXPECT_EQ(val(text, want), 0);
	}
	EXPECT_TRUE(sample(text, "ispot_events_total{exe=\"(unknown)\","
			   "outcome=\"dropped\"}"));
	EXPECT_FALSE(strstr(text, "deleted"));
	EXPECT_EQ(val(text, "ispot_duty_cycle{exe=\"app\"}"), 0);
	EXPECT_EQ(val(text, "ispot_overhead_estimate{exe=\"app\"}"), 0);
	free(text);
	metrics_free(m);
}

/*
 * A gauge says how things are now: once every process of an exe is gone,
 * its duty cycle, overhead and SCI are no longer written (an alert on
 * them ends with the program); its counters stay as they stand.
 */
TEST(gauges_of_a_gone_exe_vanish_counters_stay)
{
	static const char *const names[] = { "f" };
	static const uint64_t loss[] = { 400 };
	static const char *const gauges[] = {
		"ispot_duty_cycle{exe=\"app\"}",
		"ispot_overhead_estimate{exe=\"app\"}",
		"ispot_sci{exe=\"app\",function=\"f\",object=\"app\"}",
	};
	struct metrics *m = metrics_new(50);
	char *text;
	size_t i;

	ASSERT_TRUE(m);
	ASSERT_EQ(metrics_add_exe(m, "/usr/bin/app"), 0);
	ASSERT_EQ(metrics_add_exe(m, "/usr/bin/app"), 0);
	add_window(m, &app1, WINDOW_NS, names, loss, 1);
	/* One of its two processes gone: the other's gauges stand. */
	metrics_drop_exe(m, "/usr/bin/app");
	text = render(m);
	for (i = 0; i < 3; i++)
		EXPECT_TRUE(sample(text, gauges[i]));
	free(text);
	/* Both gone, and a drop of an exe never added changes nothing. */
	metrics_drop_exe(m, "/usr/bin/app");
	metrics_drop_exe(m, "/usr/bin/app");
	metrics_drop_exe(m, "/usr/bin/never");
	text = render(m);
	for (i = 0; i < 3; i++)
		EXPECT_FALSE(sample(text, gauges[i]));
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"app\",function=\"f\","
		      "object=\"app\"}"), 1);
	EXPECT_EQ(val(text, "ispot_events_total{exe=\"app\","
		      "outcome=\"dropped\"}"), 0);
	EXPECT_TRUE(strstr(text, "# TYPE ispot_sci gauge"));
	free(text);
	/* It runs again: its gauges are back from its first window. */
	ASSERT_EQ(metrics_add_exe(m, "/usr/bin/app"), 0);
	/* Not before: the gone process's values would come back. */
	text = render(m);
	for (i = 0; i < 3; i++)
		EXPECT_FALSE(sample(text, gauges[i]));
	free(text);
	add_window(m, &app1, 2 * WINDOW_NS, names, loss, 1);
	text = render(m);
	for (i = 0; i < 3; i++)
		EXPECT_TRUE(sample(text, gauges[i]));
	free(text);
	metrics_free(m);
}

/* Odd names: quotes, backslashes and a newline in a label value. */
TEST(label_values_escaped)
{
	static const struct window_target odd = {
		.pid = 7, .exe = "/opt/we\"ird", .cgroup = "",
	};
	struct window_func_figures ff = {
		.name = "ns::f<\"a\\b\">\nx",
		.object = "/opt/lib\\x.so",
		.calls = 1, .observed_ns = 10,
	};
	struct window_figures wf = {
		.target = &odd, .now = T0, .funcs = &ff, .nr_funcs = 1,
	};
	struct metrics *m = metrics_new(50);
	const char *p;
	char *text;

	ASSERT_TRUE(m);
	ASSERT_EQ(metrics_add_window(m, &wf), 0);
	text = render(m);
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"we\\\"ird\","
		      "function=\"ns::f<\\\"a\\\\b\\\">\\nx\","
		      "object=\"lib\\\\x.so\"}"), 1);
	/* Every line a comment or a sample: the newline did not leak. */
	for (p = text; *p; p = strchr(p, '\n') + 1)
		EXPECT_TRUE(!strncmp(p, "# ", 2) || !strncmp(p, "ispot_", 6));
	free(text);
	metrics_free(m);
}

/* Classic buckets from the engine's histogram: cumulative, +Inf = count. */
TEST(duration_histogram_cumulative)
{
	/* 200 ns, 900 ns, 3 us, 2 ms, 20 s (beyond the last bound). */
	static const uint64_t d[] = {
		200, 900, 3000, 2000000, 20000000000ull,
	};
	static const char *const le[] = {
		"1e-06", "2.5e-06", "5e-06", "1e-05", "2.5e-05", "5e-05",
		"0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005",
		"0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5",
		"10", "+Inf",
	};
	static const double want[] = {
		2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
		4, 5,
	};
	struct sci_engine *e = sci_new();
	struct window_func_figures ff = {
		.name = "work", .object = "/usr/bin/app", .func_id = 3,
		.calls = 5, .observed_ns = 30000000000ull,
	};
	struct window_figures wf = {
		.target = &app1, .now = T0, .engine = e, .funcs = &ff,
		.nr_funcs = 1,
	};
	struct metrics *m = metrics_new(50);
	char series[256], *text, *sum;
	uint64_t t = T0;
	double prev = 0;
	size_t i;

	ASSERT_TRUE(e);
	ASSERT_TRUE(m);
	for (i = 0; i < 5; i++) {
		t += d[i];
		ASSERT_EQ(sci_add(e, 3, 0, 1, d[i], t, NULL), 0);
		ff.sum_ns += d[i];
	}
	/* Another function's executions stay out of it. */
	ASSERT_EQ(sci_add(e, 4, 0, 1, 100, t + 100, NULL), 0);
	ASSERT_EQ(metrics_add_window(m, &wf), 0);
	text = render(m);
	for (i = 0; i < sizeof(le) / sizeof(le[0]); i++) {
		double v;

		snprintf(series, sizeof(series),
			 "ispot_duration_seconds_bucket{exe=\"app\","
			 "function=\"work\",object=\"app\",le=\"%s\"}", le[i]);
		v = val(text, series);
		EXPECT_EQ(v, want[i]);
		EXPECT_GE(v, prev);
		prev = v;
	}
	EXPECT_EQ(val(text, "ispot_duration_seconds_count{exe=\"app\","
		      "function=\"work\",object=\"app\"}"), 5);
	/* Exact decimal seconds. */
	sum = raw(text, "ispot_duration_seconds_sum{exe=\"app\","
		  "function=\"work\",object=\"app\"}");
	EXPECT_STREQ(sum, "20.002004100");
	free(sum);
	free(text);
	metrics_free(m);
	sci_free(e);
}

/*
 * --max-functions 2: the two biggest losses of the first window get
 * series, the rest goes to (other) and stays there, even when a later
 * newcomer loses more, or the limit is raised.
 */
TEST(other_is_sticky)
{
	static const char *const w1[] = { "a", "b", "c" };
	static const uint64_t l1[] = { 30, 10, 20 };
	static const char *const w2[] = { "d", "b", "a" };
	static const uint64_t l2[] = { 1000, 5, 1 };
	static const char *const w3[] = { "e", "b" };
	static const uint64_t l3[] = { 1, 1000 };
	static const struct window_target app2 = {
		.pid = 200, .exe = "/usr/bin/other-app", .cgroup = "",
	};
	struct metrics *m = metrics_new(2);
	char *text;

	ASSERT_TRUE(m);
	add_window(m, &app1, T0, w1, l1, 3);
	text = render(m);
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"app\",function=\"a\","
		      "object=\"app\"}"), 1);
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"app\",function=\"c\","
		      "object=\"app\"}"), 3);
	/* b: 2 calls, 10 ns lost */
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"app\",function="
		      "\"(other)\",object=\"(other)\"}"), 2);
	EXPECT_FALSE(strstr(text, "function=\"b\""));
	free(text);

	add_window(m, &app1, T0 + WINDOW_NS, w2, l2, 3);
	text = render(m);
	/* a keeps its series; d and b (1 + 2 calls) are (other)'s. */
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"app\",function=\"a\","
		      "object=\"app\"}"), 1 + 3);
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"app\",function="
		      "\"(other)\",object=\"(other)\"}"), 2 + 1 + 2);
	EXPECT_NEAR(val(text, "ispot_loss_seconds_total{exe=\"app\",function="
			"\"(other)\",object=\"(other)\",cause=\"unknown\"}"),
		    1015e-9, 1e-15);
	/* (other)'s gauge: its functions' loss over their time, this window */
	EXPECT_NEAR(val(text, "ispot_sci{exe=\"app\",function=\"(other)\","
			"object=\"(other)\"}"), 1005.0 / 2000, 1e-9);
	EXPECT_FALSE(strstr(text, "function=\"d\""));
	free(text);

	/* Room again: a newcomer gets a series, b stays in (other). */
	metrics_set_max_functions(m, 10);
	add_window(m, &app1, T0 + 2 * WINDOW_NS, w3, l3, 2);
	/* Another exe has slots of its own. */
	add_window(m, &app2, T0 + 2 * WINDOW_NS, w3 + 1, l3 + 1, 1);
	text = render(m);
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"app\",function=\"e\","
		      "object=\"app\"}"), 1);
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"app\",function="
		      "\"(other)\",object=\"(other)\"}"), 5 + 2);
	EXPECT_FALSE(sample(text, "ispot_calls_total{exe=\"app\","
			    "function=\"b\",object=\"app\"}"));
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"other-app\","
		      "function=\"b\",object=\"app\"}"), 1);
	free(text);
	metrics_free(m);
}

/* What a burst resolved: @name in OBJ. */
static void resolved(struct trace *t, struct trace_func *func,
		     const char *name)
{
	memset(t, 0, sizeof(*t));
	memset(func, 0, sizeof(*func));
	snprintf(func->sym.name, sizeof(func->sym.name), "%s", name);
	snprintf(func->sym.obj, sizeof(func->sym.obj), "/usr/bin/app");
	func->key.kind = KEY_NONE;
	t->funcs = func;
	t->nr_funcs = 1;
}

static int observe(void *m, const struct window_figures *wf)
{
	return metrics_add_window(m, wf);
}

/*
 * One target's window through window.c, with the metrics observing:
 * @n executions of "work" of @d ns in thread @tid, in a thread of
 * 1000 ns, the window closing at @now.
 */
static void target_window(struct metrics *m, struct window_set *w,
			  const struct window_target *tg, uint32_t tid,
			  const uint64_t *d, size_t n, uint64_t now)
{
	struct trace_func func;
	struct trace t;
	uint32_t id;
	uint64_t ts = now - WINDOW_NS / 2;
	size_t i;

	w->observer = observe;
	w->observer_ctx = m;
	resolved(&t, &func, "work");
	ASSERT_EQ(window_burst_begin(w, &t, &id), 0);
	ASSERT_EQ(sci_thread_seen(w->sci, tid, ts), 0);
	for (i = 0; i < n; i++)
		ASSERT_EQ(sci_add(w->sci, id, 0, tid, d[i], ts + 100 * (i + 1),
				  NULL), 0);
	sci_finish(w->sci, ts + 1000);
	w->recorded += 4 * n;
	w->dropped += 1;
	ASSERT_EQ(window_close(w, NULL, tg, now, 0.5, 0.01), 0);
}

/* Every counter sample of @before is in @after, and not smaller. */
static void expect_no_decrease(const char *before, const char *after)
{
	const char *p;
	int n = 0;

	for (p = before; *p; p = strchr(p, '\n') + 1) {
		const char *sp = strchr(p, ' ');
		char *series;

		if (*p == '#' || !strncmp(p, "ispot_targets", 13) ||
		    !strncmp(p, "ispot_sci", 9) ||
		    !strncmp(p, "ispot_duty", 10) ||
		    !strncmp(p, "ispot_overhead", 14))
			continue;
		series = strndup(p, sp - p);
		EXPECT_GE(val(after, series) * 1e9, val(before, series) * 1e9);
		free(series);
		n++;
	}
	EXPECT_GT(n, 10);
}

/*
 * An --exe target restarts: the new process has a new window set and
 * engine (its minimum starts afresh), and adds to the same series.
 */
/*
 * A target's function names are its own: past METRICS_MAX_FOLDED folded
 * functions, newcomers with no room count into (other) unremembered, so
 * the registry stops growing and no call is lost from (other).
 */
TEST(folded_functions_remembered_up_to_a_bound)
{
	static const uint64_t loss[16] = { 0 };
	const size_t per = 16, windows = METRICS_MAX_FOLDED / 16 + 3;
	const struct metrics_exe *x;
	char names[16][32], *text;
	const char *np[16];
	struct metrics *m = metrics_new(1);
	size_t w, i;

	ASSERT_TRUE(m);
	np[0] = "a";
	add_window(m, &app1, T0, np, loss, 1);
	for (w = 0; w < windows; w++) {
		for (i = 0; i < per; i++) {
			snprintf(names[i], sizeof(names[i]), "f%zu_%zu", w, i);
			np[i] = names[i];
		}
		add_window(m, &app1, T0 + (w + 1) * WINDOW_NS, np, loss, per);
	}
	x = &m->exes[0];
	EXPECT_EQ(x->nr_named, 1);
	EXPECT_EQ(x->nr_series, 1 + METRICS_MAX_FOLDED);
	text = render(m);
	/* Each window's 16 functions made 1 + 2 + ... + 16 calls. */
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"app\",function="
		      "\"(other)\",object=\"(other)\"}"), windows * 136);
	free(text);
	metrics_free(m);
}

/*
 * A --cgroup target's processes run what binaries they like: past
 * METRICS_MAX_EXES, each new exe counts as exe="(other)", the first ones
 * keep their series, and no call is lost.
 */
TEST(exes_remembered_up_to_a_bound)
{
	static const uint64_t loss[1] = { 5 };
	const size_t extra = 40, n = METRICS_MAX_EXES + extra;
	static struct window_target tg[METRICS_MAX_EXES + 40];
	static char exe[METRICS_MAX_EXES + 40][32];
	const char *np[1] = { "f" };
	struct metrics *m = metrics_new(4);
	char *text;
	size_t i;

	ASSERT_TRUE(m);
	for (i = 0; i < n; i++) {
		snprintf(exe[i], sizeof(exe[i]), "/tmp/e%zu", i);
		tg[i] = (struct window_target){
			.pid = 1000 + i, .exe = exe[i], .cgroup = "",
		};
		ASSERT_EQ(metrics_add_exe(m, exe[i]), 0);
		add_window(m, &tg[i], T0 + i * WINDOW_NS, np, loss, 1);
	}
	/* Again, once each: the first keep theirs, the rest stay (other). */
	for (i = 0; i < n; i++)
		add_window(m, &tg[i], T0 + (n + i) * WINDOW_NS, np, loss, 1);
	EXPECT_EQ(m->nr_exes, METRICS_MAX_EXES + 1);
	text = render(m);
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"e0\",function=\"f\","
		      "object=\"app\"}"), 2);
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"e255\",function=\"f\","
		      "object=\"app\"}"), 2);
	EXPECT_FALSE(strstr(text, "exe=\"e256\""));
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"(other)\",function="
		      "\"f\",object=\"app\"}"), 2 * extra);
	free(text);
	metrics_free(m);
}

/*
 * Names are written in UTF-8, each byte that is not as U+FFFD: two exes
 * or two functions that differ only in such bytes are one series, not
 * two with one label set (which a Prometheus server drops as duplicates).
 */
TEST(names_that_write_alike_are_one_series)
{
	static const struct window_target bad1 = {
		.pid = 300, .exe = "/usr/bin/a\xff", .cgroup = "",
	};
	static const struct window_target bad2 = {
		.pid = 301, .exe = "/usr/bin/a\xfe", .cgroup = "",
	};
	static const char *const f1[] = { "f\xff", "g" };
	static const char *const f2[] = { "f\xfe", "g" };
	static const uint64_t loss[] = { 10, 20 };
	struct metrics *m = metrics_new(10);
	char *text;

	ASSERT_TRUE(m);
	add_window(m, &bad1, T0, f1, loss, 2);
	add_window(m, &bad2, T0, f2, loss, 2);
	EXPECT_EQ(m->nr_exes, 1);
	EXPECT_EQ(m->exes[0].nr_series, 2);
	text = render(m);
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"a\xef\xbf\xbd\","
		      "function=\"f\xef\xbf\xbd\",object=\"app\"}"), 2);
	EXPECT_EQ(val(text, "ispot_calls_total{exe=\"a\xef\xbf\xbd\","
		      "function=\"g\",object=\"app\"}"), 4);
	free(text);
	metrics_free(m);
}

TEST(counters_monotonic_across_restart)
{
	static const uint64_t slow[] = { 10, 40 }, even[] = { 50, 50, 50 };
	static const struct window_target app2 = {
		.pid = 101, .exe = "/usr/bin/app", .cgroup = "",
	};
	struct metrics *m = metrics_new(50);
	struct window_set w;
	char *r1, *r2;

	ASSERT_TRUE(m);
	ASSERT_EQ(window_set_init(&w, app1.pid, T0), 0);
	target_window(m, &w, &app1, 1, slow, 2, T0 + WINDOW_NS);
	window_set_free(&w);
	r1 = render(m);
	/* 30 ns lost in 1000 ns */
	EXPECT_EQ(val(r1, "ispot_calls_total{exe=\"app\",function=\"work\","
		      "object=\"app\"}"), 2);
	EXPECT_NEAR(val(r1, "ispot_sci{exe=\"app\",function=\"work\","
			"object=\"app\"}"), 0.03, 1e-9);
	EXPECT_EQ(val(r1, "ispot_events_total{exe=\"app\","
		      "outcome=\"dropped\"}"), 1);

	/* Restarted: pid 101, nothing lost this time. */
	ASSERT_EQ(window_set_init(&w, app2.pid, T0 + WINDOW_NS), 0);
	target_window(m, &w, &app2, 1, even, 3, T0 + 2 * WINDOW_NS);
	window_set_free(&w);
	r2 = render(m);
	expect_no_decrease(r1, r2);
	EXPECT_EQ(val(r2, "ispot_calls_total{exe=\"app\",function=\"work\","
		      "object=\"app\"}"), 5);
	EXPECT_NEAR(val(r2, "ispot_loss_seconds_total{exe=\"app\",function="
			"\"work\",object=\"app\",cause=\"unknown\"}"), 30e-9,
		    1e-15);
	EXPECT_NEAR(val(r2, "ispot_observed_seconds_total{exe=\"app\","
			"function=\"work\",object=\"app\"}"), 2000e-9, 1e-15);
	/* The gauge is the last window's. */
	EXPECT_EQ(val(r2, "ispot_sci{exe=\"app\",function=\"work\","
		      "object=\"app\"}"), 0);
	EXPECT_EQ(val(r2, "ispot_events_total{exe=\"app\","
		      "outcome=\"recorded\"}"), 8 + 12);
	free(r1);
	free(r2);
	metrics_free(m);
}

/* Negative parts of a loss count 0; the rest still sums to the loss. */
TEST(loss_by_cause_never_decreases)
{
	struct window_func_figures ff = {
		.name = "work", .object = "/usr/bin/app", .calls = 1,
		.loss_ns = 100,
		/* futex, blocked, runqueue, on-CPU */
		.cause_loss_ns = { 60, -20, 0, 60 },
		.unknown_loss_ns = 0,
	};
	struct window_figures wf = {
		.target = &app1, .now = T0, .funcs = &ff, .nr_funcs = 1,
	};
	struct metrics *m = metrics_new(50);
	char *text, *v;

	ASSERT_TRUE(m);
	ASSERT_EQ(metrics_add_window(m, &wf), 0);
	ff.loss_ns = 7;
	ff.cause_loss_ns[0] = 10;
	ff.cause_loss_ns[1] = ff.cause_loss_ns[3] = 0;
	ff.unknown_loss_ns = -3;
	wf.now += WINDOW_NS;
	ASSERT_EQ(metrics_add_window(m, &wf), 0);
	text = render(m);
	v = raw(text, "ispot_loss_seconds_total{exe=\"app\",function="
		"\"work\",object=\"app\",cause=\"futex\"}");
	EXPECT_STREQ(v, "0.000000057");
	free(v);
	v = raw(text, "ispot_loss_seconds_total{exe=\"app\",function="
		"\"work\",object=\"app\",cause=\"oncpu\"}");
	EXPECT_STREQ(v, "0.000000050");
	free(v);
	v = raw(text, "ispot_loss_seconds_total{exe=\"app\",function="
		"\"work\",object=\"app\",cause=\"blocked\"}");
	EXPECT_STREQ(v, "0.000000000");
	free(v);
	v = raw(text, "ispot_loss_seconds_total{exe=\"app\",function="
		"\"work\",object=\"app\",cause=\"unknown\"}");
	EXPECT_STREQ(v, "0.000000000");
	free(v);
	free(text);
	metrics_free(m);
}

/* Two processes of one exe: events add up, gauges are their mean. */
TEST(processes_of_one_exe_share_series)
{
	static const struct window_target app2 = {
		.pid = 101, .exe = "/usr/bin/app", .cgroup = "",
	};
	struct window_figures wf = {
		.target = &app1, .now = T0, .duty = 0.2, .overhead = 0.01,
		.recorded = 10, .dropped = 1,
	};
	struct metrics *m = metrics_new(50);
	char *text;

	ASSERT_TRUE(m);
	ASSERT_EQ(metrics_add_window(m, &wf), 0);
	wf.target = &app2;
	wf.duty = 0.4;
	wf.overhead = 0.03;
	ASSERT_EQ(metrics_add_window(m, &wf), 0);
	text = render(m);
	EXPECT_NEAR(val(text, "ispot_duty_cycle{exe=\"app\"}"), 0.3, 1e-9);
	EXPECT_NEAR(val(text, "ispot_overhead_estimate{exe=\"app\"}"), 0.02,
		    1e-9);
	EXPECT_EQ(val(text, "ispot_events_total{exe=\"app\","
		      "outcome=\"recorded\"}"), 20);
	EXPECT_EQ(val(text, "ispot_events_total{exe=\"app\","
		      "outcome=\"dropped\"}"), 2);
	free(text);
	/* The next round: only one of them closed a window. */
	wf.now += WINDOW_NS;
	wf.duty = 0.1;
	ASSERT_EQ(metrics_add_window(m, &wf), 0);
	text = render(m);
	EXPECT_NEAR(val(text, "ispot_duty_cycle{exe=\"app\"}"), 0.1, 1e-9);
	free(text);
	metrics_free(m);
}

/*
 * Everything at once: two exes, a folded (other), an odd name, a
 * histogram.  Each sample follows its own family's TYPE line, as the
 * format wants.  With ISPOT_METRICS_SAMPLE=FILE the text is also written
 * there, for selftests/host/listen_test.sh to give to promtool.
 */
TEST(exposition_sample)
{
	static const char *const names[] = {
		"acquire", "ns::C<\"q\">::f(char const*)\n", "release",
	};
	static const uint64_t loss[] = { 300000, 2000, 10 };
	static const uint64_t d[] = { 900, 4000, 30000, 3000000 };
	static const struct window_target app2 = {
		.pid = 7, .exe = "/srv/db\\d", .cgroup = "",
	};
	const char *out = getenv("ISPOT_METRICS_SAMPLE");
	struct sci_engine *e = sci_new();
	struct window_func_figures ff[3];
	struct window_figures wf = {
		.target = &app1, .now = T0, .duty = 0.05, .overhead = 0.004,
		.recorded = 1000, .dropped = 3, .unpaired = 1, .engine = e,
		.funcs = ff, .nr_funcs = 3,
	};
	struct metrics *m = metrics_new(2);
	char family[128] = "", *text, *line;
	size_t i, k;

	ASSERT_TRUE(e && m);
	memset(ff, 0, sizeof(ff));
	for (i = 0; i < 3; i++) {
		ff[i].name = names[i];
		ff[i].object = i == 2 ? "/lib/libc.so.6" : "/usr/bin/app";
		ff[i].func_id = i;
		for (k = 0; k < 4; k++) {
			ASSERT_EQ(sci_add(e, i, 0, 1, d[k] * (i + 1),
					  T0 + 1000000 * k, NULL), 0);
			ff[i].sum_ns += d[k] * (i + 1);
		}
		ff[i].calls = 4;
		ff[i].loss_ns = loss[i];
		ff[i].cause_loss_ns[SCI_CAUSE_FUTEX] = loss[i] / 2;
		ff[i].cause_loss_ns[SCI_CAUSE_ONCPU] = loss[i] - loss[i] / 2;
		ff[i].observed_ns = 10000000;
		ff[i].sci = (double)loss[i] / ff[i].observed_ns;
	}
	ASSERT_EQ(metrics_add_window(m, &wf), 0);
	wf.target = &app2;
	wf.nr_funcs = 1;
	ASSERT_EQ(metrics_add_window(m, &wf), 0);
	ASSERT_EQ(metrics_add_exe(m, "/usr/bin/idle"), 0);
	metrics_set_targets(m, 3);
	text = render(m);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (sscanf(line, "# TYPE %127s", family) == 1 ||
		    line[0] == '#')
			continue;
		ASSERT_NE(family[0], 0);
		if (strncmp(line, family, strlen(family)))
			TH_LOG("%s after TYPE %s", line, family);
		EXPECT_EQ(strncmp(line, family, strlen(family)), 0);
	}
	free(text);
	if (out) {
		FILE *f = fopen(out, "w");

		ASSERT_TRUE(f);
		ASSERT_EQ(metrics_render(m, f), 0);
		ASSERT_EQ(fclose(f), 0);
	}
	metrics_free(m);
	sci_free(e);
}

TEST_HARNESS_MAIN
