// SPDX-License-Identifier: GPL-2.0
/*
 * The pipeline from records to scores: a hand-computed trace of two
 * functions in three threads (fed directly, and through the drain from two
 * rings), keys by argument, argument bucket and call site, records it must
 * refuse (unknown probe ids and kinds), call stacks passing through, thread
 * exit and the end of the trace.
 *
 * Stacks follow x86-64: at ENTRY sp points at the return address, at EXIT
 * it is 8 bytes higher, and callees sit below callers.
 */
#include <inttypes.h>
#include <malloc.h>
#include <stdint.h>

#include "ispot_test.h"
#include "pipeline_feed.h"
#include "analysis/drain.h"
#include "analysis/pipeline.h"

#define EPS		1e-12
#define TGID		777
/* Entry sp of a call @level frames deep in thread @tid. */
#define SP(tid, level)	(0x7ffd00000008ULL + 0x100000ULL * (tid) - \
			 0x40ULL * (level))

struct trace {
	struct ispot_record v[256];
	size_t n;
};

static struct ispot_record *trace_add(struct trace *t, uint8_t kind,
				      uint32_t tid, uint32_t probe,
				      uint64_t sp, uint64_t ts)
{
	struct ispot_record *r;

	ASSERT_LT(t->n, 256);
	r = &t->v[t->n++];
	pipeline_feed_fill(r, ts, kind, TGID, tid, probe, sp, NULL);
	return r;
}

/* One call of @probe at depth @level, from @t0 to @t1. */
static struct ispot_record *call_at(struct trace *t, uint32_t tid,
				    uint32_t probe, uint32_t level,
				    uint64_t t0, uint64_t t1)
{
	struct ispot_record *e;

	e = trace_add(t, ISPOT_REC_ENTRY, tid, probe, SP(tid, level), t0);
	e->ip = 0x401000;
	trace_add(t, ISPOT_REC_EXIT, tid, probe, SP(tid, level) + 8, t1);
	return e;
}

static struct ispot_record *call(struct trace *t, uint32_t tid,
				 uint32_t probe, uint64_t t0, uint64_t t1)
{
	return call_at(t, tid, probe, 0, t0, t1);
}

/*
 * A ring's LOST record (ABI 1.9): @n records dropped from @from to @last,
 * the first about @tid, @flags its data[2].
 */
static void lost_at(struct trace *t, uint32_t tid, uint64_t from,
		    uint64_t last, uint64_t n, uint64_t flags)
{
	struct ispot_record *lost = trace_add(t, ISPOT_REC_LOST, tid, 0, 0,
					      from);

	lost->tgid = 0;
	lost->data[0] = n;
	lost->data[1] = last;
	lost->data[2] = flags;
}

/* Probes 1 and 2 of functions 10 and 20; threads 300 and 301 seen at 0. */
static void two_probes_two_threads(struct pipeline *p)
{
	ASSERT_EQ(pipeline_add_probe(p, 1, 10, NULL), 0);
	ASSERT_EQ(pipeline_add_probe(p, 2, 20, NULL), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 300, 0), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 301, 0), 0);
}

static int cmp_ts(const void *pa, const void *pb)
{
	const struct ispot_record *a = pa, *b = pb;

	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	/* Exits first at a tie: a call cannot start before its caller's. */
	return a->kind == b->kind ? 0 : a->kind == ISPOT_REC_EXIT ? -1 : 1;
}

/* The merged stream a drain would produce. */
static void trace_sort(struct trace *t)
{
	qsort(t->v, t->n, sizeof(t->v[0]), cmp_ts);
}

static void feed(struct pipeline *p, const struct trace *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		pipeline_record(p, &t->v[i]);
}

static struct pipeline *new_pipeline(void)
{
	struct pipeline *p = pipeline_new();

	ASSERT_TRUE(p);
	return p;
}

static void add_probe(struct pipeline *p, uint32_t probe, uint32_t func,
		      enum key_kind kind, unsigned int arg, bool log2)
{
	struct key_rule rule = { .kind = kind, .arg = arg, .log2 = log2 };

	ASSERT_EQ(pipeline_add_probe(p, probe, func, &rule), 0);
}

static const struct sci_result *block(const struct sci_report *r,
				      uint32_t func, uint64_t key)
{
	const struct sci_result *b = sci_report_block(r, func, key);

	if (!b)
		TH_LOG("no block (%u, %#llx)", func, (unsigned long long)key);
	ASSERT_TRUE(b);
	return b;
}

static const struct sci_thread_score *
score(const struct sci_report *r, const struct sci_result *res, uint32_t tid)
{
	const struct sci_thread_score *s = sci_result_thread(r, res, tid);

	if (!s)
		TH_LOG("no score for tid %u", tid);
	ASSERT_TRUE(s);
	return s;
}

static uint64_t lifetime(const struct sci_report *r, uint32_t tid)
{
	size_t i;

	for (i = 0; i < r->nr_threads; i++)
		if (r->threads[i].tid == tid)
			return r->threads[i].lifetime_ns;
	TH_LOG("no thread %u", tid);
	ASSERT_TRUE(0);
	return 0;
}

/*
 * Probe 1 is function 10, probe 2 function 20, no keys.  Threads 100 and
 * 101 are seen at 0, thread 102 only through its one call; the trace ends
 * at 1000.
 *
 *	f10: t100 10, 30        t101 20, 10, 60 (with f20 nested)
 *	f20: t100 5             t101 15, 7       t102 5
 *
 * f10: min 10, loss t100 40 - 2*10 = 20, t101 90 - 3*10 = 60, total 80
 *      over 1000 + 1000: SCI 0.04, worst thread t101 at 0.06.
 * f20: min 5, loss t101 22 - 2*5 = 12, others 0; t102 lives from its
 *      first call (150) to the end: 850.  SCI 12 / 2850, worst 0.012.
 */
static void two_functions_trace(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	call(t, 100, 1, 100, 110);
	call(t, 100, 1, 200, 230);
	call(t, 100, 2, 300, 305);
	call(t, 101, 1, 105, 125);
	call(t, 101, 1, 210, 220);
	call(t, 101, 2, 310, 325);
	call_at(t, 101, 1, 0, 400, 460);
	call_at(t, 101, 2, 1, 410, 417);
	call(t, 102, 2, 150, 155);
	trace_sort(t);
}

static void two_functions_setup(struct pipeline *p)
{
	ASSERT_EQ(pipeline_add_probe(p, 1, 10, NULL), 0);
	ASSERT_EQ(pipeline_add_probe(p, 2, 20, NULL), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 100, 0), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 101, 0), 0);
}

static void two_functions_check(struct pipeline *p)
{
	const struct pair_stats *ps = pairer_stats(p->pairer);
	const struct sci_result *f10, *f20, *fn;
	struct sci_report *r;

	EXPECT_EQ(p->stats.entries, 9);
	EXPECT_EQ(p->stats.exits, 9);
	EXPECT_EQ(p->stats.unknown_probe, 0);
	EXPECT_EQ(p->stats.nomem, 0);
	EXPECT_EQ(ps->paired, 9);
	EXPECT_EQ(ps->unpaired_entries, 0);
	EXPECT_EQ(ps->unpaired_exits, 0);
	EXPECT_EQ(sci_nr_events(p->sci), 9);

	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	ASSERT_EQ(r->nr_blocks, 2);

	f10 = block(r, 10, 0);
	EXPECT_EQ(f10->calls, 5);
	EXPECT_EQ(f10->threads, 2);
	EXPECT_EQ(f10->min_ns, 10);
	EXPECT_EQ(f10->max_ns, 60);
	EXPECT_EQ(f10->sum_ns, 130);
	EXPECT_EQ(f10->loss_ns, 80);
	EXPECT_EQ(f10->lifetime_ns, 2000);
	EXPECT_NEAR(f10->sci, 80.0 / 2000, EPS);
	EXPECT_EQ(f10->worst_tid, 101);
	EXPECT_NEAR(f10->sci_worst_thread, 60.0 / 1000, EPS);
	EXPECT_EQ(score(r, f10, 100)->calls, 2);
	EXPECT_EQ(score(r, f10, 100)->loss_ns, 20);
	EXPECT_EQ(score(r, f10, 101)->calls, 3);
	EXPECT_EQ(score(r, f10, 101)->loss_ns, 60);

	f20 = block(r, 20, 0);
	EXPECT_EQ(f20->calls, 4);
	EXPECT_EQ(f20->threads, 3);
	EXPECT_EQ(f20->min_ns, 5);
	EXPECT_EQ(f20->max_ns, 15);
	EXPECT_EQ(f20->loss_ns, 12);
	EXPECT_EQ(f20->lifetime_ns, 2850);
	EXPECT_NEAR(f20->sci, 12.0 / 2850, EPS);
	EXPECT_EQ(f20->worst_tid, 101);
	EXPECT_NEAR(f20->sci_worst_thread, 12.0 / 1000, EPS);
	EXPECT_EQ(score(r, f20, 102)->loss_ns, 0);
	EXPECT_EQ(score(r, f20, 102)->lifetime_ns, 850);

	/* No keys: a function's aggregate is its only block. */
	fn = sci_report_func(r, 10);
	ASSERT_TRUE(fn);
	EXPECT_EQ(fn->nr_keys, 1);
	EXPECT_EQ(fn->loss_ns, 80);

	EXPECT_EQ(lifetime(r, 100), 1000);
	EXPECT_EQ(lifetime(r, 101), 1000);
	EXPECT_EQ(lifetime(r, 102), 850);
	sci_report_free(r);
}

TEST(two_functions_three_threads)
{
	struct pipeline *p = new_pipeline();
	struct trace t;

	two_functions_setup(p);
	two_functions_trace(&t);
	feed(p, &t);
	pipeline_finish(p, 1000);
	two_functions_check(p);
	pipeline_free(p);
}

/* Ring memory for the drain: control page, then the slots. */
struct ring {
	union {
		struct ispot_ring_ctrl ctrl;
		char page[4096];
	};
	struct ispot_record slots[64];
};

static int release_cb(void *ctx, uint32_t cpu, uint64_t tail)
{
	struct ring *rings = ctx;

	rings[cpu].ctrl.tail = tail;
	return 0;
}

/*
 * The same trace, split by CPU into two rings (so threads that alternate
 * CPUs interleave the rings) and merged by the drain over several rounds:
 * the drain's callback is the pipeline's entry point, and the scores must
 * be the same.
 */
TEST(two_functions_through_drain)
{
	static const uint64_t horizons[] = { 50, 151, 151, 226, 400, 1000 };
	struct pipeline *p = new_pipeline();
	static struct ring rings[2];
	void *bases[2] = { &rings[0], &rings[1] };
	struct drain *d;
	struct trace t;
	size_t i;
	long n = 0, k;

	two_functions_setup(p);
	two_functions_trace(&t);
	for (i = 0; i < 2; i++) {
		rings[i].ctrl.nr_slots = 64;
		rings[i].ctrl.cpu = i;
		rings[i].ctrl.data_offset = sizeof(rings[i].page);
	}
	for (i = 0; i < t.n; i++) {
		/* Move every third record to the other CPU: migrations. */
		struct ring *r = &rings[(t.v[i].cpu + (i % 3 == 0)) & 1];

		r->slots[r->ctrl.head++ & 63] = t.v[i];
	}
	d = drain_new(bases, 2, release_cb, rings);
	ASSERT_TRUE(d);
	for (i = 0; i < sizeof(horizons) / sizeof(horizons[0]); i++) {
		k = drain_round(d, horizons[i], pipeline_record, p);
		ASSERT_GE(k, 0);
		n += k;
	}
	EXPECT_EQ(n, (long)t.n);
	EXPECT_EQ(drain_stats(d)->late, 0);
	pipeline_finish(p, 1000);
	two_functions_check(p);
	drain_free(d);
	pipeline_free(p);
}

static struct pair_exec exec_with(uint64_t a0, uint64_t a1, uint64_t a2,
				  uint64_t callsite)
{
	struct pair_exec e;

	memset(&e, 0, sizeof(e));
	e.args[0] = a0;
	e.args[1] = a1;
	e.args[2] = a2;
	e.callsite = callsite;
	return e;
}

static uint64_t kv(enum key_kind kind, unsigned int arg, bool log2,
		   uint64_t a0, uint64_t a1, uint64_t a2, uint64_t callsite)
{
	struct key_rule rule = { .kind = kind, .arg = arg, .log2 = log2 };
	struct pair_exec e = exec_with(a0, a1, a2, callsite);

	return key_value(&rule, &e);
}

/* 0 is "no key" to the engine, so every real key must be non-zero. */
TEST(key_value_rules)
{
	uint64_t v;

	EXPECT_EQ(kv(KEY_NONE, 0, false, 1, 2, 3, 0x401000), 0);

	/* KEY_ARG reads the argument it names, and only that one. */
	EXPECT_EQ(kv(KEY_ARG, 2, false, 1, 2, 3, 9),
		  kv(KEY_ARG, 2, false, 7, 8, 3, 5));
	EXPECT_NE(kv(KEY_ARG, 0, false, 1, 2, 3, 0),
		  kv(KEY_ARG, 1, false, 1, 2, 3, 0));
	EXPECT_NE(kv(KEY_ARG, 0, false, 0, 0, 0, 0), 0);
	EXPECT_NE(kv(KEY_ARG, 0, false, 0, 0, 0, 0),
		  kv(KEY_ARG, 0, false, 1, 0, 0, 0));
	for (v = 0; v < 1000; v++)
		ASSERT_NE(kv(KEY_ARG, 1, false, 0, v, 0, 0),
			  kv(KEY_ARG, 1, false, 0, v + 1, 0, 0));

	/* log2: one key per power of two, 0 and 1 apart, never 0. */
	EXPECT_NE(kv(KEY_ARG, 0, true, 0, 0, 0, 0), 0);
	EXPECT_NE(kv(KEY_ARG, 0, true, 0, 0, 0, 0),
		  kv(KEY_ARG, 0, true, 1, 0, 0, 0));
	EXPECT_NE(kv(KEY_ARG, 0, true, 1, 0, 0, 0),
		  kv(KEY_ARG, 0, true, 2, 0, 0, 0));
	EXPECT_EQ(kv(KEY_ARG, 0, true, 4, 0, 0, 0),
		  kv(KEY_ARG, 0, true, 7, 0, 0, 0));
	EXPECT_NE(kv(KEY_ARG, 0, true, 7, 0, 0, 0),
		  kv(KEY_ARG, 0, true, 8, 0, 0, 0));
	EXPECT_EQ(kv(KEY_ARG, 2, true, 0, 0, 4096, 0),
		  kv(KEY_ARG, 2, true, 0, 0, 8191, 0));
	for (v = 1; v < 63; v++) {
		uint64_t lo = 1ULL << v;

		ASSERT_EQ(kv(KEY_ARG, 0, true, lo, 0, 0, 0),
			  kv(KEY_ARG, 0, true, 2 * lo - 1, 0, 0, 0));
		ASSERT_NE(kv(KEY_ARG, 0, true, lo - 1, 0, 0, 0),
			  kv(KEY_ARG, 0, true, lo, 0, 0, 0));
	}
	EXPECT_NE(kv(KEY_ARG, 0, true, UINT64_MAX, 0, 0, 0), 0);

	/* The call site is the key: reports print it as an address. */
	EXPECT_EQ(kv(KEY_CALLSITE, 0, false, 1, 2, 3, 0x401000), 0x401000);
	EXPECT_NE(kv(KEY_CALLSITE, 0, false, 1, 2, 3, 0x401000),
		  kv(KEY_CALLSITE, 0, false, 1, 2, 3, 0x401008));
	EXPECT_NE(kv(KEY_CALLSITE, 0, false, 1, 2, 3, 0), 0);
}

/*
 * Keys keep executions that do different work apart: each block has its
 * own d_min, and a function's loss is the sum over its blocks.
 *
 *	f30 by arg1:       4 -> 10, 12      7 -> 50
 *	f40 by log2(arg0): 4 -> 100, 7 -> 130, 8 -> 200, 0 -> 3
 *	f50 by call site:  A -> 5, 9        B -> 40      0 -> 1
 */
TEST(keys_separate_blocks)
{
	struct pipeline *p = new_pipeline();
	const struct sci_result *b, *f;
	const uint32_t tid = 200;
	struct sci_report *r;
	struct trace t;
	uint64_t ts = 1000;

	add_probe(p, 3, 30, KEY_ARG, 1, false);
	add_probe(p, 4, 40, KEY_ARG, 0, true);
	add_probe(p, 5, 50, KEY_CALLSITE, 0, false);
	ASSERT_EQ(pipeline_thread_seen(p, tid, 0), 0);
	memset(&t, 0, sizeof(t));

#define CALL(probe, dur, field, val) do {				\
	struct ispot_record *__e = call(&t, tid, probe, ts, ts + (dur)); \
	__e->field = (val);						\
	ts += (dur) + 100;						\
} while (0)
	CALL(3, 10, data[1], 4);
	CALL(3, 50, data[1], 7);
	CALL(3, 12, data[1], 4);
	CALL(4, 100, data[0], 4);
	CALL(4, 130, data[0], 7);
	CALL(4, 200, data[0], 8);
	CALL(4, 3, data[0], 0);
	CALL(5, 5, ip, 0x401000);
	CALL(5, 40, ip, 0x402000);
	CALL(5, 9, ip, 0x401000);
	CALL(5, 1, ip, 0);
#undef CALL
	feed(p, &t);
	pipeline_finish(p, ts);
	EXPECT_EQ(pairer_stats(p->pairer)->paired, 11);

	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	EXPECT_EQ(r->nr_blocks, 2 + 3 + 3);

	b = block(r, 30, kv(KEY_ARG, 1, false, 0, 4, 0, 0));
	EXPECT_EQ(b->calls, 2);
	EXPECT_EQ(b->min_ns, 10);
	EXPECT_EQ(b->loss_ns, 2);
	b = block(r, 30, kv(KEY_ARG, 1, false, 0, 7, 0, 0));
	EXPECT_EQ(b->calls, 1);
	EXPECT_EQ(b->min_ns, 50);
	EXPECT_EQ(b->loss_ns, 0);
	f = sci_report_func(r, 30);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->nr_keys, 2);
	EXPECT_EQ(f->calls, 3);
	/* Not 10 + 50 + 12 - 3 * 10: the 7-call is not slow, it is bigger. */
	EXPECT_EQ(f->loss_ns, 2);

	b = block(r, 40, kv(KEY_ARG, 0, true, 5, 0, 0, 0));
	EXPECT_EQ(b->calls, 2);
	EXPECT_EQ(b->min_ns, 100);
	EXPECT_EQ(b->loss_ns, 30);
	b = block(r, 40, kv(KEY_ARG, 0, true, 8, 0, 0, 0));
	EXPECT_EQ(b->calls, 1);
	EXPECT_EQ(b->min_ns, 200);
	b = block(r, 40, kv(KEY_ARG, 0, true, 0, 0, 0, 0));
	EXPECT_EQ(b->calls, 1);
	EXPECT_EQ(b->min_ns, 3);
	f = sci_report_func(r, 40);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->nr_keys, 3);
	EXPECT_EQ(f->loss_ns, 30);

	b = block(r, 50, 0x401000);
	EXPECT_EQ(b->calls, 2);
	EXPECT_EQ(b->loss_ns, 4);
	b = block(r, 50, 0x402000);
	EXPECT_EQ(b->calls, 1);
	EXPECT_EQ(b->min_ns, 40);
	b = block(r, 50, kv(KEY_CALLSITE, 0, false, 0, 0, 0, 0));
	EXPECT_EQ(b->calls, 1);
	EXPECT_EQ(b->min_ns, 1);
	EXPECT_FALSE(sci_report_block(r, 50, 0));
	sci_report_free(r);
	pipeline_free(p);
}

TEST(add_probe_rules)
{
	struct pipeline *p = new_pipeline();
	struct key_rule bad = { .kind = KEY_ARG, .arg = 3 };
	struct trace t;

	EXPECT_EQ(pipeline_add_probe(p, 0, 1, NULL), -EINVAL);
	EXPECT_EQ(pipeline_add_probe(p, 1, 1, &bad), -EINVAL);
	/* A refused probe is not half-declared. */
	memset(&t, 0, sizeof(t));
	call(&t, 1, 1, 10, 20);
	feed(p, &t);
	EXPECT_EQ(p->stats.unknown_probe, 2);
	EXPECT_EQ(sci_nr_events(p->sci), 0);

	/* Sparse ids, declared out of order. */
	ASSERT_EQ(pipeline_add_probe(p, 1000, 7, NULL), 0);
	ASSERT_EQ(pipeline_add_probe(p, 3, 8, NULL), 0);
	/* Declaring again moves the probe to another function. */
	ASSERT_EQ(pipeline_add_probe(p, 3, 9, NULL), 0);
	memset(&t, 0, sizeof(t));
	call(&t, 1, 1000, 30, 40);
	call(&t, 1, 3, 50, 65);
	feed(p, &t);
	EXPECT_EQ(p->stats.unknown_probe, 2);
	EXPECT_EQ(sci_nr_events(p->sci), 2);
	{
		struct sci_report *r = sci_report(p->sci, 0);

		ASSERT_TRUE(r);
		EXPECT_EQ(block(r, 7, 0)->min_ns, 10);
		EXPECT_EQ(block(r, 9, 0)->min_ns, 15);
		EXPECT_FALSE(sci_report_block(r, 8, 0));
		sci_report_free(r);
	}
	pipeline_free(p);
}

/* Records the pipeline cannot place are counted and change nothing. */
TEST(unknown_probes_and_kinds)
{
	static const uint32_t bad_ids[] = { 0, 2, 4, 6, 63, 64, 100000,
					    UINT32_MAX };
	struct pipeline *p = new_pipeline();
	struct trace t;
	size_t i;

	ASSERT_EQ(pipeline_add_probe(p, 1, 10, NULL), 0);
	ASSERT_EQ(pipeline_add_probe(p, 5, 50, NULL), 0);
	memset(&t, 0, sizeof(t));
	call(&t, 9, 1, 10, 30);
	for (i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++)
		call(&t, 9, bad_ids[i], 100 + 10 * i, 105 + 10 * i);
	trace_add(&t, 0, 9, 1, SP(9, 0), 500);
	trace_add(&t, 200, 9, 1, SP(9, 0), 501);
	trace_add(&t, ISPOT_REC_GATE + 1, 9, 1, SP(9, 0), 502);
	call(&t, 9, 5, 600, 640);
	feed(p, &t);

	EXPECT_EQ(p->stats.unknown_probe, 2 * 8);
	EXPECT_EQ(p->stats.unknown_kind, 3);
	EXPECT_EQ(p->stats.entries, 2);
	EXPECT_EQ(p->stats.exits, 2);
	EXPECT_EQ(pairer_stats(p->pairer)->paired, 2);
	EXPECT_EQ(pairer_stats(p->pairer)->unpaired_exits, 0);
	EXPECT_EQ(sci_nr_events(p->sci), 2);
	EXPECT_EQ(sci_nr_blocks(p->sci), 2);
	pipeline_free(p);
}

/* A call stack taken at an entry is counted and does not disturb pairing. */
TEST(stack_records)
{
	struct pipeline *p = new_pipeline();
	struct ispot_record v[3];
	struct sci_report *r;
	uint64_t *frames;
	struct trace t;

	ASSERT_EQ(pipeline_add_probe(p, 1, 10, NULL), 0);
	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_ENTRY, 5, 1, SP(5, 0), 100);
	feed(p, &t);

	/* As the drain hands it over: header, then the frame slots. */
	memset(v, 0, sizeof(v));
	v[0].ts_ns = 100;
	v[0].tid = 5;
	v[0].tgid = TGID;
	v[0].probe_id = 1;
	v[0].kind = ISPOT_REC_STACK;
	v[0].nslots = 3;
	v[0].data[0] = 12;
	frames = (uint64_t *)&v[1];
	frames[0] = 0x401234;
	pipeline_record(p, v);
	/* A stack for a probe the pipeline does not know is no harm either. */
	v[0].probe_id = 99;
	pipeline_record(p, v);

	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_EXIT, 5, 1, SP(5, 0) + 8, 175);
	feed(p, &t);

	EXPECT_EQ(p->stats.stacks, 2);
	EXPECT_EQ(p->stats.entries, 1);
	EXPECT_EQ(p->stats.exits, 1);
	EXPECT_EQ(p->stats.unknown_kind, 0);
	EXPECT_EQ(pairer_stats(p->pairer)->paired, 1);
	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	EXPECT_EQ(block(r, 10, 0)->calls, 1);
	EXPECT_EQ(block(r, 10, 0)->min_ns, 75);
	sci_report_free(r);
	pipeline_free(p);
}

/*
 * The EXIT of a thread's last call read from another CPU's ring after its
 * TASK_EXIT (published late): it still pairs.
 */
TEST(late_exit_after_thread_exit_pairs)
{
	struct pipeline *p = new_pipeline();
	const struct pair_stats *ps = pairer_stats(p->pairer);
	struct trace t;

	ASSERT_EQ(pipeline_add_probe(p, 1, 10, NULL), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 300, 0), 0);
	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_ENTRY, 300, 1, SP(300, 0), 100);
	feed(p, &t);
	ASSERT_EQ(pipeline_thread_exit(p, 300, 150), 0);
	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_EXIT, 300, 1, SP(300, 0) + 8, 140);
	feed(p, &t);
	pipeline_finish(p, 1000);
	EXPECT_EQ(ps->paired, 1);
	EXPECT_EQ(ps->unpaired_entries, 0);
	EXPECT_EQ(ps->unpaired_exits, 0);
	pipeline_free(p);
}

/*
 * An exit a scan found (the TASK_EXIT record lost or late): alive at 150,
 * missed by the scan at 400.  The last call's EXIT, dated 200 and late in
 * its ring, is still the thread's own and pairs; a record dated after the
 * scan (a reused tid) is not.
 */
TEST(late_exit_after_a_scan_found_the_thread_gone_pairs)
{
	struct pipeline *p = new_pipeline();
	const struct pair_stats *ps = pairer_stats(p->pairer);
	struct trace t;

	ASSERT_EQ(pipeline_add_probe(p, 1, 10, NULL), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 300, 0), 0);
	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_ENTRY, 300, 1, SP(300, 0), 100);
	trace_add(&t, ISPOT_REC_ENTRY, 301, 1, SP(301, 0), 100);
	feed(p, &t);
	ASSERT_EQ(pipeline_thread_gone(p, 300, 150, 400), 0);
	ASSERT_EQ(pipeline_thread_gone(p, 301, 150, 400), 0);
	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_EXIT, 300, 1, SP(300, 0) + 8, 200);
	trace_add(&t, ISPOT_REC_EXIT, 301, 1, SP(301, 0) + 8, 450);
	feed(p, &t);
	pipeline_finish(p, 1000);
	EXPECT_EQ(ps->paired, 1);
	EXPECT_EQ(ps->unpaired_entries, 1);
	EXPECT_EQ(ps->unpaired_exits, 1);
	pipeline_free(p);
}

/*
 * A thread that exits mid-call: its open entry is unpaired, its lifetime
 * ends at the exit, a stray exit afterwards pairs with nothing, and the
 * tid reused later reopens it.  Another thread's call across that moment
 * is not affected.
 */
TEST(thread_exit)
{
	struct pipeline *p = new_pipeline();
	const struct pair_stats *ps = pairer_stats(p->pairer);
	struct sci_report *r;
	struct trace t;

	ASSERT_EQ(pipeline_add_probe(p, 1, 10, NULL), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 300, 0), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 301, 0), 0);
	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_ENTRY, 300, 1, SP(300, 0), 100);
	trace_add(&t, ISPOT_REC_ENTRY, 301, 1, SP(301, 0), 120);
	feed(p, &t);

	ASSERT_EQ(pipeline_thread_exit(p, 300, 150), 0);

	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_EXIT, 300, 1, SP(300, 0) + 8, 200);
	trace_add(&t, ISPOT_REC_EXIT, 301, 1, SP(301, 0) + 8, 220);
	call(&t, 300, 1, 300, 310);
	feed(p, &t);
	/* The first record from after the exit finds the entry unpaired. */
	EXPECT_EQ(ps->unpaired_entries, 1);
	EXPECT_EQ(ps->unpaired_exits, 1);
	EXPECT_EQ(ps->paired, 2);

	pipeline_finish(p, 1000);
	EXPECT_EQ(ps->unpaired_entries, 1);
	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	/* [0, 150] then [300, 1000]. */
	EXPECT_EQ(lifetime(r, 300), 150 + 700);
	EXPECT_EQ(lifetime(r, 301), 1000);
	EXPECT_EQ(block(r, 10, 0)->calls, 2);
	EXPECT_EQ(block(r, 10, 0)->min_ns, 10);
	EXPECT_EQ(score(r, block(r, 10, 0), 301)->loss_ns, 90);
	sci_report_free(r);
	pipeline_free(p);
}

/*
 * The end of the trace: entries still open (here three, two of them
 * nested) are unpaired, never guessed into executions, and every thread
 * closes at the end.
 */
TEST(finish_counts_open_entries)
{
	struct pipeline *p = new_pipeline();
	const struct pair_stats *ps = pairer_stats(p->pairer);
	struct sci_report *r;
	struct trace t;

	ASSERT_EQ(pipeline_add_probe(p, 1, 10, NULL), 0);
	ASSERT_EQ(pipeline_add_probe(p, 2, 20, NULL), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 400, 50), 0);
	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_ENTRY, 400, 1, SP(400, 0), 100);
	call_at(&t, 400, 2, 1, 110, 130);
	trace_add(&t, ISPOT_REC_ENTRY, 400, 2, SP(400, 1), 140);
	trace_add(&t, ISPOT_REC_ENTRY, 401, 1, SP(401, 0), 150);
	trace_sort(&t);
	feed(p, &t);
	EXPECT_EQ(ps->paired, 1);
	EXPECT_EQ(ps->unpaired_entries, 0);

	pipeline_finish(p, 900);
	EXPECT_EQ(ps->unpaired_entries, 3);
	EXPECT_EQ(ps->unpaired_exits, 0);
	EXPECT_EQ(sci_nr_events(p->sci), 1);

	/* Finishing twice counts nothing twice. */
	pipeline_finish(p, 900);
	EXPECT_EQ(ps->unpaired_entries, 3);

	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	EXPECT_EQ(lifetime(r, 400), 900 - 50);
	EXPECT_FALSE(sci_report_block(r, 10, 0));
	EXPECT_EQ(block(r, 20, 0)->calls, 1);
	sci_report_free(r);
	pipeline_free(p);
}

/*
 * Records lost from 150 to 900 (a damaged chunk): the calls open then,
 * thread 300's and thread 301's two nested ones, stay open (the threads
 * are still inside them, as far as anyone can tell), but the returns that
 * close them after the loss (the lost stretch's later calls', maybe) pair
 * nothing.  A call after the loss pairs, a loss met twice counts a call
 * once, and the lost time leaves both lifetimes.  A GATE before the loss
 * does not gate an entry after it.
 */
TEST(calls_open_at_a_loss_are_left_unpaired)
{
	struct pipeline *p = new_pipeline();
	const struct pair_stats *ps = pairer_stats(p->pairer);
	struct sci_report *r;
	struct trace t;

	two_probes_two_threads(p);
	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_ENTRY, 300, 1, SP(300, 0), 100);
	trace_add(&t, ISPOT_REC_ENTRY, 301, 1, SP(301, 0), 110);
	trace_add(&t, ISPOT_REC_ENTRY, 301, 2, SP(301, 1), 120);
	trace_add(&t, ISPOT_REC_GATE, 301, 2, SP(301, 2), 150)->data[2] =
		ISPOT_GATE_ADMITTED;
	feed(p, &t);
	EXPECT_EQ(p->inside, 2);

	ASSERT_EQ(pipeline_lost(p, 150, 900), 0);
	ASSERT_EQ(pipeline_lost(p, 950, 960), 0);
	EXPECT_EQ(p->inside, 2);

	memset(&t, 0, sizeof(t));
	call_at(&t, 301, 2, 2, 970, 980);
	trace_add(&t, ISPOT_REC_EXIT, 300, 1, SP(300, 0) + 8, 1000);
	trace_add(&t, ISPOT_REC_EXIT, 301, 2, SP(301, 1) + 8, 1010);
	trace_add(&t, ISPOT_REC_EXIT, 301, 1, SP(301, 0) + 8, 1020);
	call(&t, 300, 1, 1100, 1110);
	feed(p, &t);
	EXPECT_EQ(ps->paired, 2);
	EXPECT_EQ(ps->unpaired_entries, 3);
	EXPECT_EQ(ps->open_at_loss, 3);
	EXPECT_EQ(ps->unpaired_exits, 0);
	EXPECT_EQ(p->solo.gated_calls, 0);
	EXPECT_EQ(p->inside, 0);

	pipeline_finish(p, 2000);
	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	EXPECT_EQ(block(r, 10, 0)->calls, 1);
	EXPECT_EQ(block(r, 10, 0)->max_ns, 10);
	EXPECT_EQ(block(r, 20, 0)->calls, 1);
	EXPECT_EQ(lifetime(r, 300), 2000 - 750 - 10);
	EXPECT_EQ(lifetime(r, 301), 2000 - 750 - 10);
	sci_report_free(r);
	pipeline_free(p);
}

/*
 * A full ring dropped records of thread 300 from 150 to 400 (a LOST
 * record, ABI 1.9): its open call pairs nothing after, thread 301's
 * pairs, and that time leaves 300's lifetime alone.  A LOST of no thread
 * (a solo block's record) stops none and takes no time; one of several
 * threads stops every open call from pairing, and a GATE before it from
 * gating an entry after, and takes its time from every thread; one read
 * late (behind a call opened after its last drop) stops only what was
 * open before, and takes no time (its thread's last call record is
 * after its last drop).
 */
TEST(a_ring_loss_stops_its_threads_open_calls_pairing)
{
	struct pipeline *p = new_pipeline();
	const struct pair_stats *ps = pairer_stats(p->pairer);
	struct sci_report *r;
	struct trace t;

	ASSERT_EQ(pipeline_add_probe(p, 1, 10, NULL), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 300, 0), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 301, 0), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 302, 0), 0);
	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_ENTRY, 300, 1, SP(300, 0), 100);
	trace_add(&t, ISPOT_REC_ENTRY, 301, 1, SP(301, 0), 110);
	lost_at(&t, 300, 150, 400, 40, 0);
	trace_add(&t, ISPOT_REC_EXIT, 300, 1, SP(300, 0) + 8, 1000);
	trace_add(&t, ISPOT_REC_EXIT, 301, 1, SP(301, 0) + 8, 1010);
	trace_add(&t, ISPOT_REC_ENTRY, 300, 1, SP(300, 0), 1100);
	trace_add(&t, ISPOT_REC_ENTRY, 301, 1, SP(301, 0), 1100);
	lost_at(&t, 0, 1120, 1120, 1, 0);
	/* Thread 302's GATE; its ENTRY may be among the drops of several. */
	trace_add(&t, ISPOT_REC_GATE, 302, 1, SP(302, 0), 1130)->data[2] =
		ISPOT_GATE_ADMITTED;
	lost_at(&t, 300, 1150, 1160, 2, ISPOT_LOST_SEVERAL);
	call(&t, 302, 1, 1170, 1180);
	trace_add(&t, ISPOT_REC_EXIT, 300, 1, SP(300, 0) + 8, 1200);
	trace_add(&t, ISPOT_REC_EXIT, 301, 1, SP(301, 0) + 8, 1210);
	/* A LOST read late: a call opened after its last drop pairs. */
	trace_add(&t, ISPOT_REC_ENTRY, 301, 1, SP(301, 0), 1300);
	lost_at(&t, 301, 1250, 1260, 1, 0);
	trace_add(&t, ISPOT_REC_EXIT, 301, 1, SP(301, 0) + 8, 1310);
	feed(p, &t);
	EXPECT_EQ(ps->paired, 3);
	EXPECT_EQ(ps->unpaired_entries, 3);
	EXPECT_EQ(ps->open_at_loss, 3);
	EXPECT_EQ(p->solo.gated_calls, 0);
	EXPECT_EQ(p->stats.ring_losses, 4);
	EXPECT_EQ(p->stats.ring_lost_records, 44);
	EXPECT_EQ(p->stats.unknown_kind, 0);

	pipeline_finish(p, 2000);
	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	EXPECT_EQ(block(r, 10, 0)->calls, 3);
	EXPECT_EQ(block(r, 10, 0)->max_ns, 900);
	/*
	 * 300: from its entry at 100 (open at the drop) to its exit at 1000
	 * (not scored), then from 1100 (open again at the drop of several)
	 * to its exit at 1200.  301: the same from 1100 to its exit at
	 * 1210; the drop read late, after its entry at 1300, takes nothing.
	 * 302: the drop of several alone (no call open, its next scored).
	 */
	EXPECT_EQ(lifetime(r, 300), 2000 - 900 - 100);
	EXPECT_EQ(lifetime(r, 301), 2000 - 110);
	EXPECT_EQ(lifetime(r, 302), 2000 - 11);
	EXPECT_EQ(p->stats.ring_lost_ns, 900 + 100 + 110 + 11);
	sci_report_free(r);
	pipeline_free(p);
}

/*
 * A drop cuts calls: their time beside the drop leaves the lifetime only
 * where no call of the thread is scored.  Thread 300's call of 10 is open
 * at the drop (150 to 400) and returns at 499 (its first record after:
 * not scored): 100 to 499 is left out.  Thread 301's outer call of 10 is
 * open too, but an inner call of 20 returned at 120, and another runs
 * from 450 to 460 before the outer returns: 120 to 400 alone, and both
 * inner calls are scored.
 */
TEST(a_drop_leaves_out_the_calls_it_cut_not_their_neighbours)
{
	struct pipeline *p = new_pipeline();
	struct sci_report *r;
	struct trace t;

	two_probes_two_threads(p);
	memset(&t, 0, sizeof(t));
	trace_add(&t, ISPOT_REC_ENTRY, 300, 1, SP(300, 0), 100);
	trace_add(&t, ISPOT_REC_ENTRY, 301, 1, SP(301, 0), 100);
	call_at(&t, 301, 2, 1, 110, 120);
	lost_at(&t, 300, 150, 399, 30, 0);
	lost_at(&t, 301, 151, 399, 30, 0);
	call_at(&t, 301, 2, 1, 450, 460);
	trace_add(&t, ISPOT_REC_EXIT, 300, 1, SP(300, 0) + 8, 499);
	trace_add(&t, ISPOT_REC_EXIT, 301, 1, SP(301, 0) + 8, 500);
	feed(p, &t);
	pipeline_finish(p, 1000);
	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	EXPECT_EQ(lifetime(r, 300), 1000 - 399);
	EXPECT_EQ(lifetime(r, 301), 1000 - 280);
	EXPECT_FALSE(sci_report_block(r, 10, 0));
	EXPECT_EQ(block(r, 20, 0)->calls, 2);
	EXPECT_EQ(p->stats.ring_lost_ns, 399 + 280);
	sci_report_free(r);
	pipeline_free(p);
}

/*
 * LOST records as the drain hands them: a drop's record bears its first
 * drop's time but comes after the other rings' records of that time.
 * Thread 300 ran on the other CPU during its own drop (150 to 349): its
 * calls at 200 and 300 were read first, and scored; only the time after
 * them goes.  A drop of several (250 to 399) read after thread 301's
 * calls to 510, all scored: 301 keeps its time.  Then one of 300 (450
 * to 499), read after 300's inner calls at 550 and 650 inside an outer
 * call begun at 500: nothing goes, and the outer call, begun after the
 * last drop, is scored.
 */
TEST(a_drop_read_late_takes_no_scored_calls_time)
{
	struct pipeline *p = new_pipeline();
	struct sci_report *r;
	struct trace t;

	two_probes_two_threads(p);
	memset(&t, 0, sizeof(t));
	call(&t, 300, 1, 100, 110);
	call(&t, 300, 1, 200, 230);
	call(&t, 300, 1, 300, 310);
	lost_at(&t, 300, 150, 349, 30, 0);
	call(&t, 301, 1, 100, 110);
	call(&t, 301, 1, 300, 330);
	call(&t, 301, 1, 500, 510);
	lost_at(&t, 300, 250, 399, 30, ISPOT_LOST_SEVERAL);
	trace_add(&t, ISPOT_REC_ENTRY, 300, 1, SP(300, 0), 500);
	call_at(&t, 300, 2, 1, 550, 560);
	call_at(&t, 300, 2, 1, 650, 660);
	lost_at(&t, 300, 450, 499, 5, 0);
	trace_add(&t, ISPOT_REC_EXIT, 300, 1, SP(300, 0) + 8, 700);
	feed(p, &t);
	pipeline_finish(p, 1000);
	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	/* 300: 310 to 350, then to 400 (the drop of several). */
	EXPECT_EQ(lifetime(r, 300), 1000 - 90);
	EXPECT_EQ(lifetime(r, 301), 1000);
	EXPECT_EQ(block(r, 10, 0)->calls, 7);
	EXPECT_EQ(block(r, 20, 0)->calls, 2);
	EXPECT_EQ(p->stats.ring_lost_ns, 90);
	sci_report_free(r);
	pipeline_free(p);
}

/*
 * A record late to the drain does not take a thread's last call record
 * back: after 300's call of 500 to 510 (scored), a return of 300 dated
 * 300 (late, unpaired), then a drop of 300 from 400 to 599 takes 510 to
 * 600 alone.
 */
TEST(a_late_record_does_not_move_a_drops_stretch_back)
{
	struct pipeline *p = new_pipeline();
	struct sci_report *r;
	struct trace t;

	two_probes_two_threads(p);
	memset(&t, 0, sizeof(t));
	call(&t, 300, 1, 500, 510);
	trace_add(&t, ISPOT_REC_EXIT, 300, 2, SP(300, 1) + 8, 300);
	lost_at(&t, 300, 400, 599, 5, 0);
	feed(p, &t);
	pipeline_finish(p, 1000);
	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	EXPECT_EQ(block(r, 10, 0)->calls, 1);
	EXPECT_EQ(lifetime(r, 300), 1000 - 90);
	sci_report_free(r);
	pipeline_free(p);
}

/*
 * A drop of a thread no call record of which was read yet (seen by a
 * scan): its calls begun before the last drop, read after, are not scored
 * (150 to 180), and the drop's time leaves its lifetime.  A drop of
 * several takes the time of such a thread too (301, 600 to 700).
 */
TEST(a_drop_of_a_thread_not_read_yet_stops_its_calls_and_time)
{
	struct pipeline *p = new_pipeline();
	struct sci_report *r;
	struct trace t;

	two_probes_two_threads(p);
	memset(&t, 0, sizeof(t));
	lost_at(&t, 300, 100, 199, 5, 0);
	call(&t, 300, 1, 150, 180);
	call(&t, 300, 1, 500, 510);
	feed(p, &t);
	memset(&t, 0, sizeof(t));
	lost_at(&t, 300, 600, 699, 5, ISPOT_LOST_SEVERAL);
	call(&t, 301, 1, 800, 810);
	feed(p, &t);
	pipeline_finish(p, 1000);
	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	EXPECT_EQ(block(r, 10, 0)->calls, 2);
	EXPECT_EQ(lifetime(r, 300), 1000 - 100 - 100);
	EXPECT_EQ(lifetime(r, 301), 1000 - 100);
	sci_report_free(r);
	pipeline_free(p);
}

/* A solo block's BEGIN or END (ABI: data[0] its id, data[1] deadline). */
static void solo_rec(struct trace *t, uint8_t kind, uint64_t ts,
		     uint64_t id, uint64_t deadline)
{
	struct ispot_record *x = trace_add(t, kind, 0, 0, 0, ts);

	x->data[0] = id;
	x->data[1] = deadline;
}

/*
 * A drop's stretch told after a solo block's END: thread 300's call open
 * at the drop (200 to 299) returns at 500, after the block [100, 400)
 * ended; [150, 500) leaves its lifetime, and [150, 400) the block's share
 * of it too, not twice the time outside the block.
 */
TEST(a_drops_stretch_after_a_blocks_end_leaves_its_share_once)
{
	struct pipeline *p = new_pipeline();
	struct sci_report *r;
	struct trace t;

	two_probes_two_threads(p);
	memset(&t, 0, sizeof(t));
	solo_rec(&t, ISPOT_REC_SOLO_BEGIN, 100, 1, 1000);
	call(&t, 300, 1, 110, 120);
	trace_add(&t, ISPOT_REC_ENTRY, 300, 1, SP(300, 0), 150);
	lost_at(&t, 300, 200, 299, 5, 0);
	solo_rec(&t, ISPOT_REC_SOLO_END, 400, 1, 0);
	trace_add(&t, ISPOT_REC_EXIT, 300, 1, SP(300, 0) + 8, 500);
	feed(p, &t);
	pipeline_finish(p, 1000);
	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	EXPECT_EQ(lifetime(r, 300), 1000 - 350);
	EXPECT_EQ(score(r, block(r, 10, 0), 300)->aside_ns, 300 - 250);
	sci_report_free(r);
	pipeline_free(p);
}

/*
 * Calls of 10 ns (the function's least) and 30 ns, by turns, every
 * 100 ns from @from to @to, of @probe in thread @tid: a loss of 10 in
 * every 100 ns, an SCI of 0.1 over the time they fill.
 */
static void calls_by_turns(struct trace *t, uint32_t tid, uint32_t probe,
			   uint64_t from, uint64_t to)
{
	uint64_t ts;

	for (ts = from; ts + 100 <= to; ts += 100)
		call(t, tid, probe, ts, ts + ((ts / 100) % 2 ? 30 : 10));
}

/*
 * Threads 300, 301 and 302, each calling its own function by turns
 * (calls_by_turns()) from 0 to 6,000.  A ring drops 300's records alone
 * from 2,000 to 3,990 (a LOST of it), then every thread's from 4,000 to
 * 5,990 (a LOST of several, naming 300): no call begun then is scored,
 * 301's on the other ring neither (any thread's return may be among the
 * drops).  Each SCI is that of the calls kept over the time they fill,
 * 0.1, not diluted by the time whose calls are gone (0.1 * 2,200 / 6,200
 * for 300 before).
 */
TEST(a_rings_drops_leave_their_threads_sci_undiluted)
{
	struct pipeline *p = new_pipeline();
	struct sci_report *r;
	struct trace t;

	ASSERT_EQ(pipeline_add_probe(p, 1, 10, NULL), 0);
	ASSERT_EQ(pipeline_add_probe(p, 2, 20, NULL), 0);
	ASSERT_EQ(pipeline_add_probe(p, 3, 30, NULL), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 300, 0), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 301, 0), 0);
	ASSERT_EQ(pipeline_thread_seen(p, 302, 0), 0);
	memset(&t, 0, sizeof(t));
	calls_by_turns(&t, 300, 1, 0, 2000);
	calls_by_turns(&t, 300, 1, 6000, 6200);
	calls_by_turns(&t, 302, 3, 0, 4000);
	calls_by_turns(&t, 302, 3, 6000, 6200);
	calls_by_turns(&t, 301, 2, 0, 6000);
	lost_at(&t, 300, 2000, 3989, 40, 0);
	lost_at(&t, 300, 4000, 5989, 80, ISPOT_LOST_SEVERAL);
	trace_sort(&t);
	feed(p, &t);
	pipeline_finish(p, 6200);
	r = sci_report(p->sci, 0);
	ASSERT_TRUE(r);
	EXPECT_EQ(lifetime(r, 300), 6200 - 1990 - 1990);
	EXPECT_EQ(lifetime(r, 302), 6200 - 1990);
	EXPECT_EQ(lifetime(r, 301), 6200 - 1990);
	EXPECT_EQ(block(r, 20, 0)->calls, 40);
	EXPECT_NEAR(block(r, 10, 0)->sci, 0.1, 0.01);
	EXPECT_NEAR(block(r, 20, 0)->sci, 0.1, 0.01);
	EXPECT_NEAR(block(r, 30, 0)->sci, 0.1, 0.01);
	/* 300 twice, 301 and 302 once. */
	EXPECT_EQ(p->stats.ring_lost_ns, 4 * 1990);
	sci_report_free(r);
	pipeline_free(p);
}

/*
 * ispotd's pipeline forgets exited threads: 100,000 threads, each with a
 * call, context switches and a last SWITCH_OUT after its exit (as the
 * kernel writes it), leave the heap as it was after 10,000, and every
 * call and thread still counts.
 */
TEST(exited_threads_forgotten_memory_flat)
{
	struct pipeline *p = pipeline_new();
	struct ispot_record r = { .tgid = TGID, .nslots = 1 };
	const struct sci_result *f;
	struct sci_report *rep;
	size_t heap_early = 0;
	uint64_t ts = 1000;
	uint32_t tid;

	ASSERT_TRUE(p);
	ASSERT_EQ(pipeline_enable_causes(p), 0);
	ASSERT_EQ(pipeline_add_probe(p, 1, 0, NULL), 0);
	pipeline_forget_exited(p, 5000);
	for (tid = 100; tid < 100 + 100000; tid++) {
		r.tid = tid;
		r.ts_ns = ts += 10;
		r.kind = ISPOT_REC_TASK_NEW;
		pipeline_record(p, &r);
		r.ts_ns = ts += 10;
		r.kind = ISPOT_REC_ENTRY;
		r.probe_id = 1;
		r.sp = SP(1, 0);
		pipeline_record(p, &r);
		r.ts_ns = ts += 100;
		r.kind = ISPOT_REC_SWITCH_OUT;
		r.data[0] = 0;
		pipeline_record(p, &r);
		r.ts_ns = ts += 1000;
		r.kind = ISPOT_REC_SWITCH_IN;
		pipeline_record(p, &r);
		r.ts_ns = ts += 10;
		r.kind = ISPOT_REC_EXIT;
		r.sp = SP(1, 0) + 8;
		pipeline_record(p, &r);
		r.ts_ns = ts += 10;
		r.kind = ISPOT_REC_TASK_EXIT;
		pipeline_record(p, &r);
		r.ts_ns = ts += 5;
		r.kind = ISPOT_REC_SWITCH_OUT;
		pipeline_record(p, &r);
		if (tid == 100 + 10000)
			heap_early = mallinfo2().uordblks;
	}
	TH_LOG("heap %zu bytes after 10,000 threads, %zu after 100,000; "
	       "%" PRIu64 " forgotten", heap_early, mallinfo2().uordblks,
	       p->stats.forgotten);
	EXPECT_LE(mallinfo2().uordblks, heap_early + 4096);
	EXPECT_GE(p->stats.forgotten, 100000 - 10);
	EXPECT_LE(sci_nr_threads(p->sci), 10);
	pipeline_finish(p, ts);
	EXPECT_EQ(p->stats.forgotten, 100000);
	rep = sci_report(p->sci, ts);
	ASSERT_TRUE(rep);
	f = sci_report_func(rep, 0);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->calls, 100000);
	EXPECT_EQ(f->threads, 100000);
	/* Each call blocked 1000 of its 1120 ns; d_min is the same. */
	EXPECT_EQ(f->loss_ns, 0);
	EXPECT_EQ(f->lifetime_ns, 100000ull * 1130);
	sci_report_free(rep);
	pipeline_free(p);
}

/* The threads a scan of /proc would find gone: every open one, as ispotd's. */
struct gone_scan {
	uint32_t tids[64];
	uint64_t last[64];
	size_t n;
};

static void gone_collect(void *ctx, uint32_t tid, uint64_t last)
{
	struct gone_scan *g = ctx;

	if (g->n < 64) {
		g->tids[g->n] = tid;
		g->last[g->n++] = last;
	}
}

/*
 * Rings too small: a thread's TASK_NEW, its calls' EXITs and its TASK_EXIT
 * are all lost, and only an ENTRY and a SWITCH_OUT of it arrive.  The
 * scans of /proc end it (trace_scan_lost_exit() asks the engine for its
 * open threads), so its pairing and wait state is forgotten like any
 * other's: 100,000 such threads leave the heap as it was after 10,000.
 */
TEST(threads_known_only_by_an_entry_forgotten_memory_flat)
{
	struct pipeline *p = pipeline_new();
	struct ispot_record r = { .tgid = TGID, .nslots = 1 };
	struct gone_scan g;
	size_t heap_early = 0, heap_late = 0, i;
	uint64_t ts = 1000;
	uint32_t tid;

	ASSERT_TRUE(p);
	ASSERT_EQ(pipeline_enable_causes(p), 0);
	ASSERT_EQ(pipeline_add_probe(p, 1, 0, NULL), 0);
	pipeline_forget_exited(p, 5000);
	for (tid = 100; tid < 100 + 100000; tid++) {
		r.tid = tid;
		r.ts_ns = ts += 10;
		r.kind = ISPOT_REC_ENTRY;
		r.probe_id = 1;
		r.sp = SP(1, 0);
		pipeline_record(p, &r);
		r.ts_ns = ts += 100;
		r.kind = ISPOT_REC_SWITCH_OUT;
		r.data[0] = 0;
		pipeline_record(p, &r);
		/* A scan every 16 threads: all but this one are gone. */
		if (tid % 16)
			continue;
		g.n = 0;
		sci_each_open_thread(p->sci, gone_collect, &g);
		ts += 10;
		for (i = 0; i < g.n; i++)
			if (g.tids[i] != tid)
				pipeline_thread_gone(p, g.tids[i], g.last[i],
						     ts);
		/* Both right after a scan, as many threads held. */
		if (tid == 100 + 10000 - 4)
			heap_early = mallinfo2().uordblks;
		if (tid == 100 + 100000 - 4)
			heap_late = mallinfo2().uordblks;
	}
	TH_LOG("heap %zu bytes after 10,000 threads, %zu after 100,000; "
	       "%" PRIu64 " forgotten", heap_early, heap_late,
	       p->stats.forgotten);
	EXPECT_LE(heap_late, heap_early + 4096);
	EXPECT_GE(p->stats.forgotten, 100000 - 1000);
	EXPECT_LE(sci_nr_threads(p->sci), 1000);
	pipeline_finish(p, ts);
	pipeline_free(p);
}

/*
 * A forgotten thread leaves nothing behind in the pipeline's memory of
 * each CPU's last thread: its tid, back on the same CPU, gets a state of
 * its own, which pipeline_finish() finds with its call still open.
 */
TEST(forgotten_thread_not_remembered_on_its_cpu)
{
	struct pipeline *p = pipeline_new();
	struct ispot_record r = { .tgid = TGID, .tid = 5, .cpu = 1,
				  .nslots = 1, .probe_id = 1 };

	ASSERT_TRUE(p);
	ASSERT_EQ(pipeline_add_probe(p, 1, 1, NULL), 0);
	pipeline_forget_exited(p, 1);
	r.kind = ISPOT_REC_ENTRY;
	r.ts_ns = 100;
	r.sp = SP(1, 0);
	pipeline_record(p, &r);
	r.kind = ISPOT_REC_EXIT;
	r.ts_ns = 200;
	r.sp = SP(1, 0) + 8;
	pipeline_record(p, &r);
	r.kind = ISPOT_REC_TASK_EXIT;
	r.ts_ns = 1000;
	pipeline_record(p, &r);
	/* Another exit, later: the first is forgotten. */
	r.tid = 7;
	r.ts_ns = 3000;
	pipeline_record(p, &r);
	ASSERT_EQ(p->stats.forgotten, 1);
	r.tid = 5;
	r.kind = ISPOT_REC_ENTRY;
	r.ts_ns = 4000;
	r.sp = SP(1, 0);
	pipeline_record(p, &r);
	pipeline_finish(p, 5000);
	EXPECT_EQ(pairer_stats(p->pairer)->paired, 1);
	EXPECT_EQ(pairer_stats(p->pairer)->unpaired_entries, 1);
	pipeline_free(p);
}

/* What thread_named was told: the last tid and comm, and how often. */
struct named_seen {
	uint32_t tid;
	char comm[RECORD_COMM_LEN];
	int calls;
};

static void named_seen(void *ctx, uint32_t tid, const char *comm)
{
	struct named_seen *s = ctx;

	s->tid = tid;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	s->calls++;
}

/* Thread @tid's entry at @ts, then its exit at @ts + 50 with @comm. */
static void entry_then_exit(struct pipeline *p, uint32_t tid, uint64_t ts,
			    const char *comm)
{
	struct ispot_record r = { .tgid = TGID, .tid = tid, .nslots = 1,
				  .probe_id = 1, .kind = ISPOT_REC_ENTRY,
				  .ts_ns = ts, .sp = SP(1, 0) };

	pipeline_record(p, &r);
	r.kind = ISPOT_REC_TASK_EXIT;
	r.ts_ns = ts + 50;
	memset(&r.data[1], 'x', 2 * sizeof(r.data[1]));
	if (comm)
		memcpy(&r.data[1], comm, strlen(comm));
	else
		memset(&r.data[1], 0, 2 * sizeof(r.data[1]));
	pipeline_record(p, &r);
}

/*
 * A TASK_EXIT's comm (ABI 1.10) goes to thread_named, cut at 15 bytes
 * whatever its words hold; one with none (an older module's zeros), or
 * of a thread that recorded nothing, goes nowhere; the exit is taken
 * either way.
 */
TEST(an_exit_names_its_thread)
{
	struct pipeline *p = pipeline_new();
	struct ispot_record r = { .tgid = TGID, .tid = 11, .nslots = 1,
				  .kind = ISPOT_REC_TASK_EXIT, .ts_ns = 500 };
	struct named_seen seen = { 0 };

	ASSERT_TRUE(p);
	ASSERT_EQ(pipeline_add_probe(p, 1, 1, NULL), 0);
	p->thread_named = named_seen;
	p->thread_made_ctx = &seen;
	entry_then_exit(p, 9, 100, NULL);
	EXPECT_EQ(seen.calls, 0);
	entry_then_exit(p, 10, 200, "worker-3");
	EXPECT_EQ(seen.calls, 1);
	EXPECT_EQ(seen.tid, 10);
	EXPECT_STREQ(seen.comm, "worker-3xxxxxxx");
	memcpy(&r.data[1], "nothing", 7);
	pipeline_record(p, &r);
	EXPECT_EQ(seen.calls, 1);
	EXPECT_EQ(p->stats.tasks, 3);
	pipeline_free(p);
}

TEST_HARNESS_MAIN
