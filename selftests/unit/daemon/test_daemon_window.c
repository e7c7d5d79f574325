// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's windows (user/daemon/window.c): the JSON line window_close()
 * writes, the minima carried from one window to the next, the function
 * ids that stay the same when a burst resolves the functions in another
 * order, and the running totals.
 *
 * A real burst needs the module; here the window's engine is fed
 * directly, the way the trace of an armed burst would feed it once
 * window_burst_begin() pointed the trace at it, and the counters that
 * window_burst_end() would add are set by hand.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ispot_test.h"
#include "analysis/pipeline.h"
#include "analysis/sci.h"
#include "report/window_plot.h"
#include "trace/trace.h"
#include "window.h"
#include "window_lines.h"

#define T0		1000000000ull		/* window 1 starts */
#define WINDOW_NS	60000000000ull
#define OBJ		"/usr/bin/app"

static const struct window_target target = {
	.pid = 4242, .exe = OBJ, .cgroup = "",
};

/* What a burst resolved: @names in that order, all in OBJ. */
static void resolved(struct trace *t, struct trace_func *funcs,
		     const char *const *names, size_t n)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	memset(funcs, 0, n * sizeof(*funcs));
	for (i = 0; i < n; i++) {
		snprintf(funcs[i].sym.name, sizeof(funcs[i].sym.name), "%s",
			 names[i]);
		snprintf(funcs[i].sym.obj, sizeof(funcs[i].sym.obj), "%s",
			 OBJ);
		funcs[i].key.kind = KEY_NONE;
		funcs[i].probe_id = i;
	}
	t->funcs = funcs;
	t->nr_funcs = n;
}

/* Executions of one block in @tid, back to back from @t; when they end. */
static uint64_t run(struct sci_engine *e, uint32_t id, uint32_t tid,
		    uint64_t t, const uint64_t *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		t += d[i];
		ASSERT_EQ(sci_add(e, id, 0, tid, d[i], t, NULL), 0);
	}
	return t;
}

/* The fields a function object (or a totals entry) must have. */
static void expect_func(const char *section, const char *name,
			uint64_t calls, uint64_t loss, double sci)
{
	char *o = object_named(section, name);

	if (!o) {
		TH_LOG("no function %s in %s", name, section);
		ispot_test_fail(1);
	}
	EXPECT_TRUE(strstr(o, "\"object\": \"" OBJ "\""));
	EXPECT_EQ(num(o, "calls"), calls);
	EXPECT_EQ(num(o, "loss_ns"), loss);
	EXPECT_NEAR(num(o, "sci"), sci, 1e-9);
	free(o);
}

TEST(two_windows_carry_minima_and_totals)
{
	static const char *const order1[] = { "work", "other" };
	static const char *const order2[] = { "other", "work" };
	const uint64_t d1[] = { 10, 40 }, d_other[] = { 5, 5 }, d2[] = { 30 };
	struct trace_func funcs[2];
	uint32_t ids[2], ids2[2], work;
	struct window_set w;
	struct trace t;
	char *line, *top, *fn, *tot, *o;
	long off = 0;
	FILE *f = tmpfile();
	uint64_t ts;

	ASSERT_TRUE(f);
	ASSERT_EQ(window_set_init(&w, target.pid, T0), 0);

	/* Window 1, one burst: a thread seen at its start, closed at its end. */
	resolved(&t, funcs, order1, 2);
	ASSERT_EQ(window_burst_begin(&w, &t, ids), 0);
	ASSERT_TRUE(t.borrowed.engine == w.sci);
	ASSERT_TRUE(t.borrowed.func_ids == ids);
	ASSERT_EQ(w.nr_funcs, 2);
	ASSERT_NE(ids[0], ids[1]);
	work = ids[0];
	ts = T0 + 1000000;
	ASSERT_EQ(sci_thread_seen(w.sci, 100, ts), 0);
	run(w.sci, work, 100, ts, d1, 2);
	run(w.sci, ids[1], 100, ts + 100, d_other, 2);
	sci_finish(w.sci, ts + 1000);
	/* What window_burst_end() would have added; the caller sets cpu_ns. */
	w.bursts++;
	w.armed_ns += 1000;
	w.calls += 4;
	w.cpu_ns = 777;
	w.dropped_time_ns = 4321;

	line = close_window(&w, &target, f, &off, T0 + WINDOW_NS);
	top = between(line, "{", "\"functions\": [");
	EXPECT_EQ(num(top, "window_ns"), WINDOW_NS);
	EXPECT_EQ(num(top, "armed_ns"), 1000);
	EXPECT_EQ(num(top, "bursts"), 1);
	EXPECT_EQ(num(top, "calls_armed"), 4);
	EXPECT_EQ(num(top, "target_cpu_ns"), 777);
	EXPECT_EQ(num(top, "dropped_time_ns"), 4321);
	EXPECT_NEAR(num(top, "duty_cycle"), 0.25, 1e-9);
	EXPECT_NEAR(num(top, "overhead_estimate"), 0.005, 1e-9);
	EXPECT_EQ(num(top, "pid"), target.pid);
	EXPECT_TRUE(strstr(top, "\"exe\": \"" OBJ "\""));
	free(top);
	/* work: 10 + 40 - 2 x 10 = 30 ns lost in 1000 ns of thread. */
	fn = between(line, "\"functions\": [", "\"futexes\": [");
	expect_func(fn, "work", 2, 30, 0.03);
	o = object_named(fn, "work");
	EXPECT_EQ(num(o, "min_ns"), 10);
	EXPECT_EQ(num(o, "max_ns"), 40);
	free(o);
	expect_func(fn, "other", 2, 0, 0);
	free(fn);
	tot = between(line, "\"totals\": [", NULL);
	expect_func(tot, "work", 2, 30, 0.03);
	EXPECT_EQ(num(tot, "observed_ns"), 1000);
	free(tot);

	/*
	 * Window 2: the burst resolves the functions in another order;
	 * the ids stay.  Only work runs, once, 30 ns: 20 ns lost against
	 * the 10 ns of window 1, in a new thread of 1000 ns.
	 */
	resolved(&t, funcs, order2, 2);
	ASSERT_EQ(window_burst_begin(&w, &t, ids2), 0);
	ASSERT_TRUE(t.borrowed.engine == w.sci);
	EXPECT_EQ(w.nr_funcs, 2);
	EXPECT_EQ(ids2[1], work);
	EXPECT_EQ(ids2[0], ids[1]);
	ts = T0 + WINDOW_NS + 5000000;
	ASSERT_EQ(sci_thread_seen(w.sci, 200, ts), 0);
	run(w.sci, work, 200, ts, d2, 1);
	sci_finish(w.sci, ts + 1000);
	w.bursts++;
	w.armed_ns += 1000;
	w.calls += 1;

	line = close_window(&w, &target, f, &off, T0 + 2 * WINDOW_NS);
	top = between(line, "{", "\"functions\": [");
	/* This window's, not running sums. */
	EXPECT_EQ(num(top, "window_ns"), WINDOW_NS);
	EXPECT_EQ(num(top, "armed_ns"), 1000);
	EXPECT_EQ(num(top, "bursts"), 1);
	EXPECT_EQ(num(top, "calls_armed"), 1);
	EXPECT_EQ(num(top, "target_cpu_ns"), 0);
	EXPECT_EQ(num(top, "dropped_time_ns"), 0);	/* the window's own */
	free(top);
	fn = between(line, "\"functions\": [", "\"futexes\": [");
	expect_func(fn, "work", 1, 20, 0.02);
	o = object_named(fn, "work");
	EXPECT_EQ(num(o, "min_ns"), 10);
	free(o);
	/* Seeded with its minimum, but it did not run: not reported. */
	o = object_named(fn, "other");
	EXPECT_FALSE(o);
	free(o);
	free(fn);
	/* Since the target was found: 3 calls, 50 ns lost in 2000 ns. */
	tot = between(line, "\"totals\": [", NULL);
	expect_func(tot, "work", 3, 50, 0.025);
	o = object_named(tot, "work");
	EXPECT_EQ(num(o, "observed_ns"), 2000);
	free(o);
	expect_func(tot, "other", 2, 0, 0);
	free(tot);
	EXPECT_EQ(w.windows, 2);

	/* Window 3, nothing armed, no log: the totals only keep what was. */
	ASSERT_EQ(window_close(&w, NULL, &target, T0 + 3 * WINDOW_NS, 0.25,
			       0), 0);
	EXPECT_EQ(w.windows, 3);
	EXPECT_EQ(w.funcs[work].total_calls, 3);
	EXPECT_EQ(w.funcs[work].total_loss_ns, 50);
	EXPECT_EQ(w.funcs[work].total_observed_ns, 2000);
	EXPECT_EQ(w.funcs[ids[1]].total_calls, 2);

	/* Window 4: the minimum still holds after a window without calls. */
	ts = T0 + 3 * WINDOW_NS + 5000000;
	ASSERT_EQ(sci_thread_seen(w.sci, 300, ts), 0);
	run(w.sci, work, 300, ts, d2, 1);
	sci_finish(w.sci, ts + 1000);
	line = close_window(&w, &target, f, &off, T0 + 4 * WINDOW_NS);
	fn = between(line, "\"functions\": [", "\"futexes\": [");
	expect_func(fn, "work", 1, 20, 0.02);
	free(fn);

	window_set_free(&w);
	fclose(f);
}

/*
 * A C++ function: the window names it as resolved (demangled) and gives
 * its mangled name as "linkage_name", as ispotctl's JSON does.
 */
TEST(cxx_function_names)
{
	static const char *const names[] = { "ns::Pool::get(int)" };
	const uint64_t d[] = { 10, 20 };
	struct trace_func funcs[1];
	struct window_set w;
	struct trace t;
	uint32_t ids[1];
	long off = 0;
	FILE *f = tmpfile();
	char *line, *o;

	ASSERT_TRUE(f);
	ASSERT_EQ(window_set_init(&w, target.pid, T0), 0);
	resolved(&t, funcs, names, 1);
	snprintf(funcs[0].sym.linkage_name, sizeof(funcs[0].sym.linkage_name),
		 "_ZN2ns4Pool3getEi");
	ASSERT_EQ(window_burst_begin(&w, &t, ids), 0);
	ASSERT_EQ(sci_thread_seen(w.sci, 100, T0 + 1000), 0);
	run(w.sci, ids[0], 100, T0 + 1000, d, 2);
	sci_finish(w.sci, T0 + 2000);
	w.bursts++;
	w.armed_ns += 1000;
	line = close_window(&w, &target, f, &off, T0 + WINDOW_NS);
	o = object_named(line, "ns::Pool::get(int)");
	ASSERT_TRUE(o);
	EXPECT_TRUE(strstr(o, "\"linkage_name\": \"_ZN2ns4Pool3getEi\""));
	free(o);
	window_set_free(&w);
	fclose(f);
}

/* A window in which nothing ran: empty functions, the rest well formed. */
/*
 * One burst's pipeline: handle() calls step() once, then three times, in
 * thread 100, scored into the window's engine under the window's ids, as
 * trace_start() sets a burst up (pipeline_borrow_*).
 */
static void shape_burst(struct window_set *w, struct trace *t,
			const uint32_t *ids, uint64_t ts)
{
	struct pipeline *p = pipeline_new();
	const uint32_t tid = 100;
	size_t i, call, steps;
	struct ispot_record r;

	ASSERT_TRUE(p);
	pipeline_borrow_engine(p, w->sci);
	pipeline_borrow_shapes(p, t->borrowed.shapes);
	for (i = 0; i < t->nr_funcs; i++)
		ASSERT_EQ(pipeline_add_probe(p, i + 1, ids[i],
					     &t->funcs[i].key), 0);
	ASSERT_EQ(pipeline_thread_seen(p, tid, ts), 0);
	memset(&r, 0, sizeof(r));
	r.tid = r.tgid = tid;
	r.nslots = 1;
	r.ip = 0x401000;
	for (call = 0; call < 2; call++) {
		r.kind = ISPOT_REC_ENTRY;
		r.probe_id = 1;
		r.sp = 0x7ffd00000008ULL;
		r.ts_ns = ts++;
		pipeline_record(p, &r);
		for (steps = 0; steps < (call ? 3 : 1); steps++) {
			r.kind = ISPOT_REC_ENTRY;
			r.probe_id = 2;
			r.sp = 0x7ffd00000008ULL - 0x40;
			r.ts_ns = ts;
			pipeline_record(p, &r);
			ts += 100;
			r.kind = ISPOT_REC_EXIT;
			r.sp += 8;
			r.ts_ns = ts++;
			pipeline_record(p, &r);
		}
		r.kind = ISPOT_REC_EXIT;
		r.probe_id = 1;
		r.sp = 0x7ffd00000010ULL;
		r.ts_ns = ts++;
		pipeline_record(p, &r);
	}
	pipeline_finish(p, ts);
	pipeline_free(p);
}

/*
 * --key handle=shape: the window names handle's keys by the functions it
 * called, with the shapes kept across bursts (each burst's pipeline is
 * freed), and says that its shapes differ.
 */
TEST(shape_keys_named_across_bursts)
{
	static const char *const names[] = { "handle", "step" };
	struct trace_func funcs[2];
	struct window_set w;
	uint32_t ids[2];
	struct trace t;
	char *line, *o;
	long off = 0;
	FILE *f = tmpfile();

	ASSERT_TRUE(f);
	ASSERT_EQ(window_set_init(&w, target.pid, T0), 0);
	resolved(&t, funcs, names, 2);
	funcs[0].key.kind = KEY_SHAPE;
	snprintf(funcs[0].key_desc, sizeof(funcs[0].key_desc), "shape");
	ASSERT_EQ(window_burst_begin(&w, &t, ids), 0);
	ASSERT_TRUE(t.borrowed.shapes == w.shapes);
	shape_burst(&w, &t, ids, T0 + 1000);
	ASSERT_EQ(window_burst_begin(&w, &t, ids), 0);
	shape_burst(&w, &t, ids, T0 + 100000);

	line = close_window(&w, &target, f, &off, T0 + WINDOW_NS);
	o = object_named(line, "handle");
	ASSERT_TRUE(o);
	EXPECT_TRUE(strstr(o, "\"key\": \"shape\""));
	EXPECT_TRUE(strstr(o, "\"key\": \"handle>step\""));
	EXPECT_TRUE(strstr(o, "\"key\": \"handle>step>step>step\""));
	EXPECT_TRUE(strstr(o, "\"shapes_differ\": true"));
	EXPECT_FALSE(strstr(o, "shape_note"));
	free(o);
	o = object_named(line, "step");
	ASSERT_TRUE(o);
	EXPECT_TRUE(strstr(o, "\"shapes_differ\": false"));
	free(o);
	fclose(f);
	window_set_free(&w);
}

/*
 * A SIGHUP changes work's --key from none to arg0 and then to auto: each
 * rule gets an id of its own (auto with its three shadows next to it),
 * and going back to none finds the first id again.
 */
TEST(key_rule_change_gets_its_own_id)
{
	static const char *const names[] = { "work" };
	struct trace_func funcs[1];
	struct window_set w;
	uint32_t ids[1], first;
	struct trace t;
	char *line;
	long off = 0;
	FILE *f = tmpfile();
	uint64_t d[] = { 100, 300 };

	ASSERT_TRUE(f);
	ASSERT_EQ(window_set_init(&w, target.pid, T0), 0);
	resolved(&t, funcs, names, 1);
	ASSERT_EQ(window_burst_begin(&w, &t, ids), 0);
	first = ids[0];
	run(w.sci, ids[0], 1, T0 + 1000, d, 2);

	funcs[0].key = (struct key_rule){ .kind = KEY_ARG, .arg = 0 };
	snprintf(funcs[0].key_desc, sizeof(funcs[0].key_desc), "arg0");
	ASSERT_EQ(window_burst_begin(&w, &t, ids), 0);
	EXPECT_NE(ids[0], first);
	EXPECT_EQ(w.burst_shadows[0], 0);
	run(w.sci, ids[0], 1, T0 + 100000, d, 2);

	funcs[0].key = (struct key_rule){ .kind = KEY_AUTO };
	snprintf(funcs[0].key_desc, sizeof(funcs[0].key_desc), "auto");
	ASSERT_EQ(window_burst_begin(&w, &t, ids), 0);
	EXPECT_NE(ids[0], first);
	EXPECT_EQ(w.burst_shadows[0], ids[0] + 1);
	EXPECT_EQ(w.nr_funcs, 2 + 1 + 3);

	funcs[0].key = (struct key_rule){ .kind = KEY_NONE };
	funcs[0].key_desc[0] = '\0';
	ASSERT_EQ(window_burst_begin(&w, &t, ids), 0);
	EXPECT_EQ(ids[0], first);

	line = close_window(&w, &target, f, &off, T0 + WINDOW_NS);
	EXPECT_TRUE(strstr(line, "{\"name\": \"work\""));
	EXPECT_TRUE(strstr(line, "\"key\": \"arg0\""));
	fclose(f);
	window_set_free(&w);
}

TEST(empty_window)
{
	struct window_set w;
	long off = 0;
	FILE *f = tmpfile();
	char *line;

	ASSERT_TRUE(f);
	ASSERT_EQ(window_set_init(&w, target.pid, T0), 0);
	line = close_window(&w, &target, f, &off, T0 + WINDOW_NS);
	EXPECT_TRUE(strstr(line, "\"functions\": []"));
	EXPECT_TRUE(strstr(line, "\"futexes\": []"));
	EXPECT_TRUE(strstr(line, "\"totals\": []"));
	EXPECT_EQ(num(line, "window_ns"), WINDOW_NS);
	EXPECT_EQ(num(line, "armed_ns"), 0);
	EXPECT_EQ(num(line, "bursts"), 0);
	window_set_free(&w);
	fclose(f);
}

/*
 * Always armed, the last burst's disarm is timed after the window's end
 * was read: its armed time passed the window's length (4.35 s of 4.26 s
 * in a trial).  The line says it was armed all of the window, no more.
 */
TEST(armed_time_is_at_most_the_window)
{
	struct window_set w;
	long off = 0;
	FILE *f = tmpfile();
	char *line;

	ASSERT_TRUE(f);
	ASSERT_EQ(window_set_init(&w, target.pid, T0), 0);
	w.armed_ns = WINDOW_NS + 5000;
	line = close_window(&w, &target, f, &off, T0 + WINDOW_NS);
	EXPECT_EQ(num(line, "window_ns"), WINDOW_NS);
	EXPECT_EQ(num(line, "armed_ns"), WINDOW_NS);
	window_set_free(&w);
	fclose(f);
}

/*
 * A burst of "work" in thread 100 from @start: resolved, begun, the thread
 * seen.  The time the thread was seen.
 */
static uint64_t work_burst(struct window_set *w, struct trace *t,
			   struct trace_func *funcs, uint32_t *ids,
			   uint64_t start)
{
	static const char *const names[] = { "work" };

	resolved(t, funcs, names, 1);
	ASSERT_EQ(window_burst_begin(w, t, ids), 0);
	ASSERT_EQ(sci_thread_seen(w->sci, 100, start), 0);
	return start;
}

/* @n calls of "work" of @d ns each, @others ns of them beside others. */
static uint64_t work_calls(struct window_set *w, uint32_t id, int n,
			   uint64_t d, uint64_t others, uint64_t ts)
{
	int i;

	for (i = 0; i < n; i++) {
		struct sci_causes c = { .context = true, .others_ns = others };

		ts += d;
		ASSERT_EQ(sci_add(w->sci, id, 0, 100, d, ts, &c), 0);
	}
	return ts;
}

/*
 * Solo calls carry over windows: window 1 sees "work" alone 40 times
 * (100 ns each); window 2 only beside another thread, 150 ns each.  Its
 * interference is judged against window 1's solo calls: 10 x 50 ns.
 */
TEST(solo_calls_carry_over_windows)
{
	struct trace_func funcs[1];
	struct window_set w;
	struct trace t;
	uint32_t ids[1];
	char *line, *fn, *tot, *o;
	long off = 0;
	FILE *f = tmpfile();
	uint64_t ts;

	ASSERT_TRUE(f);
	ASSERT_EQ(window_set_init(&w, target.pid, T0), 0);
	ts = work_burst(&w, &t, funcs, ids, T0 + 1000000);
	ts = work_calls(&w, ids[0], 40, 100, 0, ts);
	sci_finish(w.sci, ts + 1000);
	w.bursts++;
	w.armed_ns += 5000;
	line = close_window(&w, &target, f, &off, T0 + WINDOW_NS);
	fn = between(line, "\"functions\": [", "\"futexes\": [");
	o = object_named(fn, "work");
	ASSERT_TRUE(o);
	EXPECT_EQ(num(o, "solo_calls"), 40);
	EXPECT_EQ(num(o, "interference_ns"), 0);
	free(o);
	free(fn);

	ts = work_burst(&w, &t, funcs, ids, T0 + WINDOW_NS + 1000000);
	ts = work_calls(&w, ids[0], 10, 150, 150, ts);
	sci_finish(w.sci, ts + 1000);
	w.bursts++;
	w.armed_ns += 5000;
	line = close_window(&w, &target, f, &off, T0 + 2 * WINDOW_NS);
	fn = between(line, "\"functions\": [", "\"futexes\": [");
	o = object_named(fn, "work");
	ASSERT_TRUE(o);
	EXPECT_EQ(num(o, "solo_calls"), 40);
	EXPECT_EQ(num(o, "interference_ns"), 10 * 50);
	EXPECT_TRUE(strstr(o, "\"interference_reference\": \"solo\""));
	EXPECT_FALSE(strstr(o, "interference_bound"));
	/* The earlier window's 40 solo calls: handed in, not weak. */
	EXPECT_EQ(num(o, "seeded_solo_calls"), 40);
	EXPECT_TRUE(strstr(o, "\"interference_reference_weak\": false"));
	free(o);
	free(fn);
	tot = between(line, "\"totals\": [", NULL);
	o = object_named(tot, "work");
	ASSERT_TRUE(o);
	EXPECT_EQ(num(o, "interference_ns"), 10 * 50);
	free(o);
	free(tot);
	window_set_free(&w);
	fclose(f);
}

/*
 * The totals' interference, as each window's, is over the threads' time
 * outside solo blocks: a thread seen through a 1,000 ns block has that
 * much set aside, and the figure is interference_ns over the rest.
 */
TEST(totals_leave_solo_blocks_out)
{
	struct trace_func funcs[1];
	struct window_set w;
	struct trace t;
	uint32_t ids[1];
	char *line, *tot, *o;
	long off = 0;
	FILE *f = tmpfile();
	uint64_t ts;

	ASSERT_TRUE(f);
	ASSERT_EQ(window_set_init(&w, target.pid, T0), 0);
	ts = work_burst(&w, &t, funcs, ids, T0 + 1000000);
	sci_solo_begin(w.sci, ts, ts + 1000);
	sci_solo_end(w.sci, ts + 1000);
	ts = work_calls(&w, ids[0], 40, 100, 0, ts + 1000);
	ts = work_calls(&w, ids[0], 10, 150, 150, ts);
	sci_finish(w.sci, ts + 1000);
	w.bursts++;
	w.armed_ns += 10000;
	line = close_window(&w, &target, f, &off, T0 + WINDOW_NS);
	tot = between(line, "\"totals\": [", NULL);
	o = object_named(tot, "work");
	ASSERT_TRUE(o);
	EXPECT_EQ(num(o, "solo_block_ns"), 1000);
	EXPECT_GT(num(o, "interference_ns"), 0);
	EXPECT_NEAR(num(o, "interference"),
		    num(o, "interference_ns") /
		    (num(o, "observed_ns") - num(o, "solo_block_ns")), 1e-6);
	free(o);
	free(tot);
	window_set_free(&w);
	fclose(f);
}

/* What ispotd writes, ispotctl plot reads (report/window_plot.c). */
TEST(plot_reads_the_windows_written)
{
	static const char *const names[] = { "work" };
	const uint64_t d[] = { 10, 40 };
	char dir[] = "/tmp/ispot-window-XXXXXX", log[64], out[64], cmd[96];
	struct trace_func funcs[1];
	struct window_set w;
	struct trace t;
	uint32_t ids[1];
	uint64_t ts = T0 + 1000;
	long off = 0;
	char *svg, *p;
	FILE *f;
	int k;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(log, sizeof(log), "%s/windows.log", dir);
	snprintf(out, sizeof(out), "%s/svg", dir);
	f = fopen(log, "w+");
	ASSERT_TRUE(f);
	ASSERT_EQ(window_set_init(&w, target.pid, T0), 0);
	for (k = 1; k <= 2; k++) {
		resolved(&t, funcs, names, 1);
		ASSERT_EQ(window_burst_begin(&w, &t, ids), 0);
		ASSERT_EQ(sci_thread_seen(w.sci, 100, ts), 0);
		ts = run(w.sci, ids[0], 100, ts, d, 2);
		sci_finish(w.sci, ts + 1000);
		w.bursts++;
		w.armed_ns += 1000;
		close_window(&w, &target, f, &off, T0 + k * WINDOW_NS);
		ts += WINDOW_NS;
	}
	window_set_free(&w);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(window_plot(log, out), 0);
	snprintf(cmd, sizeof(cmd), "%s/windows.sci.svg", out);
	f = fopen(cmd, "r");
	ASSERT_TRUE(f);
	svg = calloc(1, 1 << 16);
	ASSERT_TRUE(svg);
	EXPECT_GT(fread(svg, 1, (1 << 16) - 1, f), 0);
	fclose(f);
	EXPECT_TRUE(strstr(svg, ">work</text>"));
	p = strstr(svg, "<polyline");
	ASSERT_TRUE(p);
	/* Two windows, two points: "x,y x,y". */
	p = strstr(p, "points=\"");
	ASSERT_TRUE(p);
	p += 8;
	for (k = 0; *p && *p != '"'; p++)
		k += *p == ',';
	EXPECT_EQ(k, 2);
	free(svg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(system(cmd), 0);
}

/*
 * A target chooses its keys: the window's engine holds WINDOW_MAX_KEYS
 * blocks of one function, new keys' calls past them fail, and with the
 * engine pressed the minima of blocks idle for WINDOW_SEED_IDLE windows
 * that ran calls are not carried, so that a new key gets a block again.
 * Windows with no call (no burst) age nothing.
 */
TEST(keys_bounded_and_idle_seeds_let_go)
{
	static const char *const names[] = { "a", "b", "c", "d", "other" };
	const uint64_t nkeys = WINDOW_MAX_BLOCKS + 10;
	struct trace_func funcs[5];
	struct window_set w;
	struct trace t;
	uint32_t ids[5], f;
	uint64_t key, now = T0, stored = 0;
	FILE *f_out = tmpfile();
	long off = 0;
	int i;

	ASSERT_TRUE(f_out);
	ASSERT_EQ(window_set_init(&w, target.pid, T0), 0);
	resolved(&t, funcs, names, 5);
	ASSERT_EQ(window_burst_begin(&w, &t, ids), 0);
	/* Four functions' worth of keys: each stops at its share. */
	for (f = 0; f < 4; f++)
		for (key = 0; key < nkeys / 4; key++)
			stored += !sci_add(w.sci, ids[f], key, 100, 10,
					   T0 + 100 + key * 20, NULL);
	EXPECT_EQ(stored, 4 * WINDOW_MAX_KEYS);
	EXPECT_EQ(sci_nr_blocks(w.sci), WINDOW_MAX_BLOCKS);
	EXPECT_GT(sci_unscored(w.sci), 0);
	/* A function picked late is still scored. */
	EXPECT_EQ(sci_add(w.sci, ids[4], 0, 100, 10, T0 + 50000000, NULL),
		  0);
	sci_finish(w.sci, T0 + 60000000);
	/* A window without a call ages nothing. */
	now += WINDOW_NS;
	close_window(&w, &target, f_out, &off, now);
	now += WINDOW_NS;
	close_window(&w, &target, f_out, &off, now);
	EXPECT_EQ(sci_nr_blocks(w.sci), WINDOW_MAX_BLOCKS + 1);
	/* Windows in which "other" alone runs: the rest age, then go. */
	for (i = 1; i <= WINDOW_SEED_IDLE; i++) {
		EXPECT_EQ(sci_add(w.sci, ids[4], 0, 100, 10, now + 100, NULL),
			  0);
		now += WINDOW_NS;
		close_window(&w, &target, f_out, &off, now);
		EXPECT_EQ(sci_nr_blocks(w.sci),
			  i < WINDOW_SEED_IDLE ? WINDOW_MAX_BLOCKS + 1 : 1);
	}
	EXPECT_EQ(sci_add(w.sci, ids[0], nkeys, 100, 10, now + 100, NULL), 0);
	/* Unpressed, an idle block's minima stay, however long. */
	for (i = 0; i <= 2 * WINDOW_SEED_IDLE; i++) {
		EXPECT_EQ(sci_add(w.sci, ids[4], 0, 100, 10, now + 200, NULL),
			  0);
		now += WINDOW_NS;
		close_window(&w, &target, f_out, &off, now);
	}
	EXPECT_EQ(sci_nr_blocks(w.sci), 2);
	window_set_free(&w);
	fclose(f_out);
}

TEST_HARNESS_MAIN
