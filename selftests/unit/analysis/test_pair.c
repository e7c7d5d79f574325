// SPDX-License-Identifier: GPL-2.0
/*
 * Entry/exit pairer on synthetic records: plain calls, interleaved threads,
 * CPU migration, lost records, skipped returns in deep recursion, longjmp,
 * tail calls, shadow-stack overflow, thread exit and flush, a large thread
 * table, perf counter deltas (ABI 1.3), block markers, and random call
 * trees with dropped records checked against the ground truth and a
 * brute-force reference.
 *
 * Stack addresses follow x86-64: at ENTRY sp points at the return address
 * (8 mod 16), at EXIT it is 8 bytes higher, and callees sit below callers.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "analysis/pair.h"

#define TGID		4242
/* Entry sp of a call @level frames below the outermost one. */
#define SP(level)	(0x7ffd12345008ULL - 0x40ULL * (level))

/* Record contents derived from the timestamp, to check what is carried. */
#define CALLSITE(ts)	(0x401000ULL + (ts))
#define ARG(ts, i)	((ts) * 3 + (i) + 0x1000000ULL)
#define RETVAL(ts)	((ts) ^ 0xa5a5a5a5ULL)
#define RETADDR(ts)	(0x555500000000ULL + (ts))

static uint64_t rng_state = 0x6a09e667f3bcc909ULL;

/* xorshift64*: deterministic, so a failure reproduces. */
static uint64_t rng(void)
{
	return ispot_test_rand(&rng_state);
}

/* Every paired execution the pairer reports, in order. */
struct sink {
	struct pair_exec *v;
	size_t n;
	size_t cap;
};

static void sink_cb(const struct pair_exec *e, void *ctx)
{
	struct sink *s = ctx;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct pair_exec *v = realloc(s->v, cap * sizeof(*v));

		ASSERT_TRUE(v);
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *e;
}

static struct ispot_record rec(uint8_t kind, uint32_t tid, uint16_t cpu,
			       uint32_t probe, uint64_t sp, uint64_t ts)
{
	struct ispot_record r;

	memset(&r, 0, sizeof(r));
	r.ts_ns = ts;
	r.tid = tid;
	r.tgid = TGID;
	r.probe_id = probe;
	r.cpu = cpu;
	r.kind = kind;
	r.nslots = 1;
	r.sp = sp;
	return r;
}

static struct ispot_record ent_rec(uint32_t tid, uint16_t cpu,
				   uint32_t probe, uint64_t sp, uint64_t ts)
{
	struct ispot_record r = rec(ISPOT_REC_ENTRY, tid, cpu, probe, sp, ts);

	r.ip = CALLSITE(ts);
	r.data[0] = ARG(ts, 0);
	r.data[1] = ARG(ts, 1);
	r.data[2] = ARG(ts, 2);
	return r;
}

static struct ispot_record ret_rec(uint32_t tid, uint16_t cpu,
				   uint32_t probe, uint64_t sp, uint64_t ts)
{
	struct ispot_record r;

	r = rec(ISPOT_REC_EXIT, tid, cpu, probe, sp + 8, ts);
	r.ip = RETADDR(ts);
	r.data[0] = RETVAL(ts);
	r.data[1] = 0xf00dULL;	/* the module puts the function here */
	r.data[2] = 0xbadULL;
	return r;
}

/* ENTRY of a call whose return address sits at @sp. */
static void ent(struct pairer *p, uint32_t tid, uint16_t cpu, uint32_t probe,
		uint64_t sp, uint64_t ts)
{
	struct ispot_record r = ent_rec(tid, cpu, probe, sp, ts);

	ASSERT_EQ(pairer_feed(p, &r), 0);
}

/* EXIT of the call whose ENTRY had @sp: the return address was popped. */
static void ret(struct pairer *p, uint32_t tid, uint16_t cpu, uint32_t probe,
		uint64_t sp, uint64_t ts)
{
	struct ispot_record r = ret_rec(tid, cpu, probe, sp, ts);

	ASSERT_EQ(pairer_feed(p, &r), 0);
}

/*
 * Counters (ABI 1.3): the record takes two contiguous slots, the second
 * a struct ispot_counter_values.
 */
_Static_assert(sizeof(struct ispot_counter_values) ==
	       sizeof(struct ispot_record), "the counter slot is one slot");

static struct ispot_counter_values cv(uint64_t switches, uint32_t nr,
				      uint32_t valid, uint64_t v0,
				      uint64_t v1, uint64_t v2)
{
	struct ispot_counter_values c;
	uint32_t i;

	memset(&c, 0, sizeof(c));
	c.switches = switches;
	c.nr = nr;
	c.valid = valid;
	c.value[0] = v0;
	c.value[1] = v1;
	c.value[2] = v2;
	/* Slots past the third: distinct, so a stray delta would show. */
	for (i = 3; i < ISPOT_MAX_COUNTERS; i++)
		c.value[i] = (v0 + 1) * (i + 7);
	return c;
}

static void feed_counters(struct pairer *p, struct ispot_record r,
			  const struct ispot_counter_values *c)
{
	struct ispot_record two[2];

	two[0] = r;
	two[0].nslots = 2;
	memcpy(&two[1], c, sizeof(*c));
	ASSERT_EQ(pairer_feed(p, two), 0);
}

static void ent_cv(struct pairer *p, uint32_t tid, uint16_t cpu,
		   uint32_t probe, uint64_t sp, uint64_t ts,
		   struct ispot_counter_values c)
{
	feed_counters(p, ent_rec(tid, cpu, probe, sp, ts), &c);
}

static void ret_cv(struct pairer *p, uint32_t tid, uint16_t cpu,
		   uint32_t probe, uint64_t sp, uint64_t ts,
		   struct ispot_counter_values c)
{
	feed_counters(p, ret_rec(tid, cpu, probe, sp, ts), &c);
}

struct want {
	uint32_t tid;
	uint32_t probe;
	uint32_t depth;
	uint64_t entry_ts;
	uint64_t exit_ts;
	uint16_t entry_cpu;
	uint16_t exit_cpu;
	bool block;	/* closed by an end marker: no return value */
};

static void check_exec_at(const struct pair_exec *e, const struct want *w,
			  int line)
{
	int failed = ispot_test_failed;

	ispot_test_failed = 0;
	EXPECT_EQ(e->tid, w->tid);
	EXPECT_EQ(e->tgid, TGID);
	EXPECT_EQ(e->probe_id, w->probe);
	EXPECT_EQ(e->depth, w->depth);
	EXPECT_EQ(e->entry_cpu, w->entry_cpu);
	EXPECT_EQ(e->exit_cpu, w->exit_cpu);
	EXPECT_EQ(e->entry_ts, w->entry_ts);
	EXPECT_EQ(e->exit_ts, w->exit_ts);
	EXPECT_EQ(e->exit_ts - e->entry_ts, w->exit_ts - w->entry_ts);
	EXPECT_EQ(e->callsite, CALLSITE(w->entry_ts));
	EXPECT_EQ(e->args[0], ARG(w->entry_ts, 0));
	EXPECT_EQ(e->args[1], ARG(w->entry_ts, 1));
	EXPECT_EQ(e->args[2], ARG(w->entry_ts, 2));
	EXPECT_EQ(e->retval, w->block ? 0 : RETVAL(w->exit_ts));
	if (ispot_test_failed) {
		TH_LOG("  (execution checked at line %d)", line);
		fflush(stdout);
		_exit(KSFT_FAIL);
	}
	ispot_test_failed = failed;
}

#define CHECK_EXEC(e, ...) do {						\
	struct want __w = { __VA_ARGS__ };				\
	check_exec_at(e, &__w, __LINE__);				\
} while (0)

#define ASSERT_STATS(p, pr, ue, ux, ov) do {				\
	const struct pair_stats *__st = pairer_stats(p);		\
	ASSERT_EQ(__st->paired, pr);					\
	ASSERT_EQ(__st->unpaired_entries, ue);				\
	ASSERT_EQ(__st->unpaired_exits, ux);				\
	ASSERT_EQ(__st->overflow, ov);					\
} while (0)

#define EXPECT_STATS(p, pr, ue, ux, ov) do {				\
	const struct pair_stats *__st = pairer_stats(p);		\
	EXPECT_EQ(__st->paired, pr);					\
	EXPECT_EQ(__st->unpaired_entries, ue);				\
	EXPECT_EQ(__st->unpaired_exits, ux);				\
	EXPECT_EQ(__st->overflow, ov);					\
} while (0)

static struct pairer *new_pairer(struct sink *s)
{
	struct pairer *p;

	memset(s, 0, sizeof(*s));
	p = pairer_new(sink_cb, s);
	ASSERT_TRUE(p);
	return p;
}

static void done(struct pairer *p, struct sink *s)
{
	pairer_free(p);
	free(s->v);
}

/*
 * N calls in a loop, every odd one with a nested callee: every field of
 * every execution, and the counts after each call.
 */
TEST(simple_calls)
{
	const uint32_t tid = 100, n = 1000;
	struct sink s;
	struct pairer *p = new_pairer(&s);
	uint64_t ts = 1000;
	uint32_t i, k = 0, pairs = 0;

	for (i = 0; i < n; i++) {
		uint64_t t0 = ts, t1 = ts + 7, t2 = ts + 7 + i, t3 = t2 + 3 * i;
		uint16_t c0 = i % 4, c1 = (i + 1) % 4;

		ent(p, tid, c0, 1, SP(0), t0);
		if (i & 1) {
			ent(p, tid, c1, 2, SP(1), t1);
			ret(p, tid, c0, 2, SP(1), t2);
			pairs++;
		}
		ret(p, tid, c1, 1, SP(0), t3 + 1);
		pairs++;
		ASSERT_STATS(p, pairs, 0, 0, 0);
		ASSERT_EQ(s.n, pairs);
		if (i & 1)
			CHECK_EXEC(&s.v[k++], .tid = tid, .probe = 2,
				   .depth = 1, .entry_ts = t1, .exit_ts = t2,
				   .entry_cpu = c1, .exit_cpu = c0);
		CHECK_EXEC(&s.v[k++], .tid = tid, .probe = 1, .depth = 0,
			   .entry_ts = t0, .exit_ts = t3 + 1,
			   .entry_cpu = c0, .exit_cpu = c1);
		ts = t3 + 10;
	}
	ASSERT_EQ(pairs, n + n / 2);
	pairer_flush(p);
	ASSERT_STATS(p, n + n / 2, 0, 0, 0);
	done(p, &s);
}

/*
 * Three threads run the same nested calls at the same stack addresses, with
 * their records interleaved at random: each exit pairs in its own thread.
 */
TEST(interleaved_threads)
{
	static const uint32_t tids[3] = { 11, 22, 33 };
	const uint32_t iters = 300;
	struct sink s;
	struct pairer *p = new_pairer(&s);
	struct want *exp = calloc(3 * 2 * iters, sizeof(*exp));
	uint32_t step[3] = { 0 }, left = 3, nexp = 0, i;
	uint64_t ts_a[3], ts_b[3], ts = 0;

	ASSERT_TRUE(exp);
	while (left) {
		uint32_t k = rng() % 3, tid = tids[k];

		if (step[k] == 4 * iters)
			continue;
		ts += 1 + rng() % 100;
		switch (step[k]++ % 4) {
		case 0:
			ent(p, tid, k, 1, SP(0), ts);
			ts_a[k] = ts;
			break;
		case 1:
			ent(p, tid, k, 2, SP(1), ts);
			ts_b[k] = ts;
			break;
		case 2:
			ret(p, tid, k, 2, SP(1), ts);
			exp[nexp++] = (struct want){
				.tid = tid, .probe = 2, .depth = 1,
				.entry_ts = ts_b[k], .exit_ts = ts,
				.entry_cpu = k, .exit_cpu = k,
			};
			break;
		case 3:
			ret(p, tid, k, 1, SP(0), ts);
			exp[nexp++] = (struct want){
				.tid = tid, .probe = 1, .depth = 0,
				.entry_ts = ts_a[k], .exit_ts = ts,
				.entry_cpu = k, .exit_cpu = k,
			};
			break;
		}
		if (step[k] == 4 * iters)
			left--;
	}
	ASSERT_EQ(nexp, 3 * 2 * iters);
	ASSERT_EQ(s.n, nexp);
	for (i = 0; i < nexp; i++)
		check_exec_at(&s.v[i], &exp[i], __LINE__);
	ASSERT_STATS(p, nexp, 0, 0, 0);
	free(exp);
	done(p, &s);
}

/* The thread migrates between entry and exit. */
TEST(cpu_migration)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);

	ent(p, 7, 0, 1, SP(0), 100);
	ret(p, 7, 1, 1, SP(0), 250);
	ASSERT_EQ(s.n, 1);
	CHECK_EXEC(&s.v[0], .tid = 7, .probe = 1, .depth = 0,
		   .entry_ts = 100, .exit_ts = 250,
		   .entry_cpu = 0, .exit_cpu = 1);

	/* Nested, migrating at every record, on CPUs past 255. */
	ent(p, 7, 300, 1, SP(0), 300);
	ent(p, 7, 1, 2, SP(1), 310);
	ret(p, 7, 2, 2, SP(1), 320);
	ret(p, 7, 65535, 1, SP(0), 400);
	ASSERT_EQ(s.n, 3);
	CHECK_EXEC(&s.v[1], .tid = 7, .probe = 2, .depth = 1,
		   .entry_ts = 310, .exit_ts = 320,
		   .entry_cpu = 1, .exit_cpu = 2);
	CHECK_EXEC(&s.v[2], .tid = 7, .probe = 1, .depth = 0,
		   .entry_ts = 300, .exit_ts = 400,
		   .entry_cpu = 300, .exit_cpu = 65535);
	ASSERT_STATS(p, 3, 0, 0, 0);
	done(p, &s);
}

/* The counters an execution carries: how many, which valid, the deltas. */
static void check_counters_at(const struct pair_exec *e, uint32_t nr,
			      uint32_t valid, const uint64_t *delta, int line)
{
	int failed = ispot_test_failed;
	uint32_t i;

	ispot_test_failed = 0;
	EXPECT_EQ(e->nr_counters, nr);
	EXPECT_EQ(e->counters_valid, valid);
	for (i = 0; i < ISPOT_MAX_COUNTERS; i++) {
		uint64_t want = delta && (valid & (1u << i)) ? delta[i] : 0;

		if (e->counter_delta[i] != want)
			TH_LOG("delta[%u] %llu, want %llu", i,
			       (unsigned long long)e->counter_delta[i],
			       (unsigned long long)want);
		EXPECT_TRUE(e->counter_delta[i] == want);
	}
	if (ispot_test_failed) {
		TH_LOG("  (counters checked at line %d)", line);
		fflush(stdout);
		_exit(KSFT_FAIL);
	}
	ispot_test_failed = failed;
}

#define CHECK_COUNTERS(e, nr, valid, ...) do {				\
	const uint64_t __d[ISPOT_MAX_COUNTERS] = { __VA_ARGS__ };	\
	check_counters_at(e, nr, valid, __d, __LINE__);			\
} while (0)

/*
 * Both records with counters, same CPU, same switches: EXIT minus ENTRY,
 * valid where both reads were, never past nr.
 */
TEST(counters_delta)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);

	ent_cv(p, 5, 2, 1, SP(0), 100, cv(9, 3, 0x7, 1000, 50000, 7));
	ret_cv(p, 5, 2, 1, SP(0), 600, cv(9, 3, 0x7, 1450, 62000, 7));
	ASSERT_EQ(s.n, 1);
	CHECK_EXEC(&s.v[0], .tid = 5, .probe = 1, .depth = 0,
		   .entry_ts = 100, .exit_ts = 600,
		   .entry_cpu = 2, .exit_cpu = 2);
	CHECK_COUNTERS(&s.v[0], 3, 0x7, 450, 12000, 0);

	/* Valid bits: both ends' (0b011 & 0b110). */
	ent_cv(p, 5, 2, 1, SP(0), 700, cv(9, 3, 0x3, 10, 20, 30));
	ret_cv(p, 5, 2, 1, SP(0), 800, cv(9, 3, 0x6, 11, 25, 38));
	ASSERT_EQ(s.n, 2);
	CHECK_COUNTERS(&s.v[1], 3, 0x2, 0, 5, 0);

	/* Bits beyond nr are not the call's. */
	ent_cv(p, 5, 2, 1, SP(0), 900, cv(9, 2, 0xff, 10, 20, 30));
	ret_cv(p, 5, 2, 1, SP(0), 950, cv(9, 2, 0xff, 13, 24, 99));
	ASSERT_EQ(s.n, 3);
	CHECK_COUNTERS(&s.v[2], 2, 0x3, 3, 4);

	/* A full set of counters. */
	{
		struct ispot_counter_values a = cv(0, 6, 0x3f, 1, 2, 3);
		struct ispot_counter_values b = a;
		uint64_t d[ISPOT_MAX_COUNTERS];
		uint32_t i;

		for (i = 0; i < ISPOT_MAX_COUNTERS; i++) {
			d[i] = 1000 * (i + 1) + i;
			b.value[i] += d[i];
		}
		ent_cv(p, 5, 3, 1, SP(0), 1000, a);
		ret_cv(p, 5, 3, 1, SP(0), 2000, b);
		ASSERT_EQ(s.n, 4);
		check_counters_at(&s.v[3], 6, 0x3f, d, __LINE__);
	}
	ASSERT_STATS(p, 4, 0, 0, 0);
	done(p, &s);
}

/* Counted on other CPUs, or with other threads in between: no delta. */
TEST(counters_invalid_across_cpus_and_switches)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);

	/* Migrated: the counters are per CPU. */
	ent_cv(p, 5, 1, 1, SP(0), 100, cv(9, 2, 0x3, 1000, 50, 3000));
	ret_cv(p, 5, 2, 1, SP(0), 200, cv(9, 2, 0x3, 2000, 60, 6000));
	ASSERT_EQ(s.n, 1);
	CHECK_EXEC(&s.v[0], .tid = 5, .probe = 1, .depth = 0,
		   .entry_ts = 100, .exit_ts = 200,
		   .entry_cpu = 1, .exit_cpu = 2);
	CHECK_COUNTERS(&s.v[0], 2, 0);

	/* Switched out and back on the same CPU. */
	ent_cv(p, 5, 1, 1, SP(0), 300, cv(9, 2, 0x3, 1000, 50, 3000));
	ret_cv(p, 5, 1, 1, SP(0), 400, cv(10, 2, 0x3, 2000, 60, 6000));
	ASSERT_EQ(s.n, 2);
	CHECK_COUNTERS(&s.v[1], 2, 0);

	/* Any change of switches, even a smaller one. */
	ent_cv(p, 5, 1, 1, SP(0), 500,
	       cv(1ULL << 40, 2, 0x3, 1000, 50, 3000));
	ret_cv(p, 5, 1, 1, SP(0), 600, cv(0, 2, 0x3, 2000, 60, 6000));
	ASSERT_EQ(s.n, 3);
	CHECK_COUNTERS(&s.v[2], 2, 0);

	/* Then a clean call again. */
	ent_cv(p, 5, 1, 1, SP(0), 700, cv(10, 2, 0x3, 1000, 50, 3000));
	ret_cv(p, 5, 1, 1, SP(0), 800, cv(10, 2, 0x3, 2000, 60, 6000));
	ASSERT_EQ(s.n, 4);
	CHECK_COUNTERS(&s.v[3], 2, 0x3, 1000, 10);
	done(p, &s);
}

/* Counters on one side only, or two different sets: none at all. */
TEST(counters_missing_or_mismatched)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);

	ent(p, 5, 1, 1, SP(0), 100);
	ret_cv(p, 5, 1, 1, SP(0), 200, cv(9, 2, 0x3, 1000, 50, 3000));
	ASSERT_EQ(s.n, 1);
	CHECK_COUNTERS(&s.v[0], 0, 0);

	ent_cv(p, 5, 1, 1, SP(0), 300, cv(9, 2, 0x3, 1000, 50, 3000));
	ret(p, 5, 1, 1, SP(0), 400);
	ASSERT_EQ(s.n, 2);
	CHECK_COUNTERS(&s.v[1], 0, 0);

	ent_cv(p, 5, 1, 1, SP(0), 500, cv(9, 3, 0x7, 1000, 50, 5));
	ret_cv(p, 5, 1, 1, SP(0), 600, cv(9, 2, 0x3, 2000, 60, 6000));
	ASSERT_EQ(s.n, 3);
	CHECK_COUNTERS(&s.v[2], 0, 0);

	/* A frame reused without counters does not keep the old ones. */
	ent_cv(p, 5, 1, 1, SP(0), 700, cv(9, 2, 0x3, 1000, 50, 3000));
	ret_cv(p, 5, 1, 1, SP(0), 800, cv(9, 2, 0x3, 1001, 51, 3003));
	ent(p, 5, 1, 1, SP(0), 900);
	ret_cv(p, 5, 1, 1, SP(0), 1000, cv(9, 2, 0x3, 1002, 52, 3006));
	ASSERT_EQ(s.n, 5);
	CHECK_COUNTERS(&s.v[3], 2, 0x3, 1, 1);
	CHECK_COUNTERS(&s.v[4], 0, 0);

	/* Zero counters configured: nothing to carry. */
	ent_cv(p, 5, 1, 1, SP(0), 1100, cv(9, 0, 0, 0, 0, 0));
	ret_cv(p, 5, 1, 1, SP(0), 1200, cv(9, 0, 0, 0, 0, 0));
	ASSERT_EQ(s.n, 6);
	CHECK_COUNTERS(&s.v[5], 0, 0);
	ASSERT_STATS(p, 6, 0, 0, 0);
	done(p, &s);
}

/* More counters claimed than a slot holds: the slot's are taken. */
TEST(counters_nr_clamped)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);
	struct ispot_counter_values a = cv(9, 40, 0xffffffff, 1, 2, 3);
	struct ispot_counter_values b = a;
	uint64_t d[ISPOT_MAX_COUNTERS];
	uint32_t i;

	for (i = 0; i < ISPOT_MAX_COUNTERS; i++) {
		d[i] = i + 1;
		b.value[i] += d[i];
	}
	ent_cv(p, 5, 1, 1, SP(0), 100, a);
	ret_cv(p, 5, 1, 1, SP(0), 200, b);
	ASSERT_EQ(s.n, 1);
	check_counters_at(&s.v[0], ISPOT_MAX_COUNTERS,
			  (1u << ISPOT_MAX_COUNTERS) - 1, d, __LINE__);
	done(p, &s);
}

/*
 * Nested calls each carry their own values: the inner delta is its exit
 * minus its entry, the outer one spans the inner call.  A nested call
 * that migrated is invalid without touching its caller's.
 */
TEST(counters_nested)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);

	ent_cv(p, 5, 0, 1, SP(0), 100, cv(3, 2, 0x3, 1000, 10, 3000));
	ent_cv(p, 5, 0, 2, SP(1), 110, cv(3, 2, 0x3, 1100, 12, 3300));
	ent_cv(p, 5, 0, 3, SP(2), 120, cv(3, 2, 0x3, 1150, 13, 3450));
	ret_cv(p, 5, 0, 3, SP(2), 130, cv(3, 2, 0x3, 1170, 20, 3510));
	ret_cv(p, 5, 0, 2, SP(1), 140, cv(3, 2, 0x3, 1300, 21, 3900));
	ent(p, 5, 0, 4, SP(1), 150);
	ret_cv(p, 5, 0, 4, SP(1), 160, cv(3, 2, 0x3, 1400, 22, 4200));
	ent_cv(p, 5, 0, 2, SP(1), 170, cv(3, 2, 0x3, 1500, 30, 4500));
	ret_cv(p, 5, 1, 2, SP(1), 180, cv(3, 2, 0x3, 1600, 31, 4800));
	ret_cv(p, 5, 0, 1, SP(0), 200, cv(3, 2, 0x3, 2000, 40, 6000));
	ASSERT_EQ(s.n, 5);
	CHECK_EXEC(&s.v[0], .tid = 5, .probe = 3, .depth = 2,
		   .entry_ts = 120, .exit_ts = 130);
	CHECK_COUNTERS(&s.v[0], 2, 0x3, 20, 7);
	CHECK_EXEC(&s.v[1], .tid = 5, .probe = 2, .depth = 1,
		   .entry_ts = 110, .exit_ts = 140);
	CHECK_COUNTERS(&s.v[1], 2, 0x3, 200, 9);
	CHECK_EXEC(&s.v[2], .tid = 5, .probe = 4, .depth = 1,
		   .entry_ts = 150, .exit_ts = 160);
	CHECK_COUNTERS(&s.v[2], 0, 0);
	CHECK_EXEC(&s.v[3], .tid = 5, .probe = 2, .depth = 1,
		   .entry_ts = 170, .exit_ts = 180, .exit_cpu = 1);
	CHECK_COUNTERS(&s.v[3], 2, 0);
	CHECK_EXEC(&s.v[4], .tid = 5, .probe = 1, .depth = 0,
		   .entry_ts = 100, .exit_ts = 200);
	CHECK_COUNTERS(&s.v[4], 2, 0x3, 1000, 30);
	ASSERT_STATS(p, 5, 0, 0, 0);
	done(p, &s);
}

/* Two threads interleaved: each frame keeps its own thread's values. */
TEST(counters_per_thread)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);

	ent_cv(p, 5, 0, 1, SP(0), 100, cv(1, 1, 0x1, 100, 0, 0));
	ent_cv(p, 6, 1, 1, SP(0), 101, cv(7, 1, 0x1, 5000, 0, 0));
	ret_cv(p, 5, 0, 1, SP(0), 200, cv(1, 1, 0x1, 130, 0, 0));
	ret_cv(p, 6, 1, 1, SP(0), 201, cv(7, 1, 0x1, 5900, 0, 0));
	ASSERT_EQ(s.n, 2);
	EXPECT_EQ(s.v[0].tid, 5);
	CHECK_COUNTERS(&s.v[0], 1, 0x1, 30);
	EXPECT_EQ(s.v[1].tid, 6);
	CHECK_COUNTERS(&s.v[1], 1, 0x1, 900);
	done(p, &s);
}

/* Exits whose entry was lost, or that do not match an open entry. */
TEST(lost_entry_gives_unpaired_exit)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);
	struct ispot_record r;

	/* A thread never seen before. */
	ret(p, 5, 0, 1, SP(0), 10);
	ASSERT_STATS(p, 0, 0, 1, 0);

	/* The child's entry was dropped; its parent still pairs. */
	ent(p, 5, 0, 1, SP(0), 20);
	ret(p, 5, 0, 2, SP(1), 30);
	ASSERT_STATS(p, 0, 0, 2, 0);
	ASSERT_EQ(s.n, 0);
	ret(p, 5, 0, 1, SP(0), 40);
	ASSERT_STATS(p, 1, 0, 2, 0);
	ASSERT_EQ(s.n, 1);
	CHECK_EXEC(&s.v[0], .tid = 5, .probe = 1, .depth = 0,
		   .entry_ts = 20, .exit_ts = 40);

	/* An exit at the entry's own sp (not popped) is not its return. */
	ent(p, 5, 0, 1, SP(0), 50);
	r = rec(ISPOT_REC_EXIT, 5, 0, 1, SP(0), 55);
	ASSERT_EQ(pairer_feed(p, &r), 0);
	ASSERT_STATS(p, 1, 0, 3, 0);

	/* Another probe's exit at the right sp leaves the entry open. */
	ret(p, 5, 0, 9, SP(0), 57);
	ASSERT_STATS(p, 1, 0, 4, 0);

	/*
	 * Another thread's exit at the right sp does not take it either;
	 * that thread's own deeper entry is gone.
	 */
	ent(p, 6, 0, 1, SP(3), 56);
	ret(p, 6, 0, 1, SP(0), 58);
	ASSERT_STATS(p, 1, 1, 5, 0);

	ret(p, 5, 0, 1, SP(0), 60);
	ASSERT_STATS(p, 2, 1, 5, 0);
	ASSERT_EQ(s.n, 2);
	CHECK_EXEC(&s.v[1], .tid = 5, .probe = 1, .depth = 0,
		   .entry_ts = 50, .exit_ts = 60);
	done(p, &s);
}

/*
 * An entry whose exit was dropped: the next call at the same sp proves it
 * returned, so it is counted and the later calls pair with their own
 * entries.  One left open is counted when its caller returns.
 */
TEST(lost_exit_gives_unpaired_entry)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);
	uint64_t ts = 200;
	uint32_t i;

	ent(p, 9, 0, 1, SP(0), 100);
	ent(p, 9, 0, 2, SP(1), 110);	/* its exit is lost */
	ASSERT_STATS(p, 0, 0, 0, 0);
	for (i = 0; i < 5; i++) {
		ent(p, 9, 1, 2, SP(1), ts);
		ASSERT_STATS(p, i, 1, 0, 0);
		ret(p, 9, 2, 2, SP(1), ts + 10 + i);
		ASSERT_STATS(p, i + 1, 1, 0, 0);
		ASSERT_EQ(s.n, i + 1);
		CHECK_EXEC(&s.v[i], .tid = 9, .probe = 2, .depth = 1,
			   .entry_ts = ts, .exit_ts = ts + 10 + i,
			   .entry_cpu = 1, .exit_cpu = 2);
		ts += 100;
	}

	/* A deeper callee's exit is lost; its caller's exit counts it. */
	ent(p, 9, 0, 3, SP(1), ts);
	ent(p, 9, 0, 4, SP(2), ts + 1);
	ret(p, 9, 0, 3, SP(1), ts + 2);
	ASSERT_STATS(p, 6, 2, 0, 0);
	CHECK_EXEC(&s.v[5], .tid = 9, .probe = 3, .depth = 1,
		   .entry_ts = ts, .exit_ts = ts + 2);

	/* Lost again, and the outer caller returns. */
	ent(p, 9, 0, 2, SP(1), ts + 3);
	ret(p, 9, 0, 1, SP(0), ts + 4);
	ASSERT_STATS(p, 7, 3, 0, 0);
	ASSERT_EQ(s.n, 7);
	CHECK_EXEC(&s.v[6], .tid = 9, .probe = 1, .depth = 0,
		   .entry_ts = 100, .exit_ts = ts + 4);
	pairer_flush(p);
	ASSERT_STATS(p, 7, 3, 0, 0);
	done(p, &s);
}

/*
 * Recursion 100 deep: the kernel keeps at most 64 pending returns per
 * thread, so only the outer 64 levels produce an exit.  The first exit
 * (level 63) proves the 36 deeper levels are gone.
 */
TEST(recursion_skipped_returns)
{
	const uint32_t levels = 100, kept = 64;
	struct sink s;
	struct pairer *p = new_pairer(&s);
	uint32_t i, lvl;

	for (i = 0; i < levels; i++)
		ent(p, 3, i % 2, 7, SP(i), 1000 + i);
	ASSERT_STATS(p, 0, 0, 0, 0);
	for (i = 0; i < kept; i++) {
		lvl = kept - 1 - i;
		ret(p, 3, 1, 7, SP(lvl), 5000 + i);
		ASSERT_STATS(p, i + 1, levels - kept, 0, 0);
		ASSERT_EQ(s.n, i + 1);
		CHECK_EXEC(&s.v[i], .tid = 3, .probe = 7, .depth = lvl,
			   .entry_ts = 1000 + lvl, .exit_ts = 5000 + i,
			   .entry_cpu = lvl % 2, .exit_cpu = 1);
	}
	pairer_flush(p);
	ASSERT_STATS(p, kept, levels - kept, 0, 0);
	done(p, &s);
}

/*
 * P calls X (sp S1) calls Y (S2) calls Z (S3), Z longjmps back into P and
 * P calls X again: the new entry at S1 shows X, Y and Z are gone.
 */
TEST(longjmp)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);

	ent(p, 4, 0, 1, SP(0), 10);	/* P, calls setjmp */
	ent(p, 4, 0, 2, SP(1), 20);	/* X */
	ent(p, 4, 0, 3, SP(2), 30);	/* Y */
	ent(p, 4, 0, 4, SP(3), 40);	/* Z, longjmps */
	ASSERT_STATS(p, 0, 0, 0, 0);
	ent(p, 4, 1, 2, SP(1), 50);	/* X again, from P */
	ASSERT_STATS(p, 0, 3, 0, 0);
	ret(p, 4, 1, 2, SP(1), 60);
	ASSERT_STATS(p, 1, 3, 0, 0);
	ASSERT_EQ(s.n, 1);
	CHECK_EXEC(&s.v[0], .tid = 4, .probe = 2, .depth = 1,
		   .entry_ts = 50, .exit_ts = 60,
		   .entry_cpu = 1, .exit_cpu = 1);
	ret(p, 4, 1, 1, SP(0), 70);
	ASSERT_STATS(p, 2, 3, 0, 0);
	ASSERT_EQ(s.n, 2);
	CHECK_EXEC(&s.v[1], .tid = 4, .probe = 1, .depth = 0,
		   .entry_ts = 10, .exit_ts = 70, .exit_cpu = 1);

	/* A longjmp above a frame ends it the same way: Q at SP(2) is gone. */
	ent(p, 4, 0, 1, SP(1), 80);
	ent(p, 4, 0, 5, SP(2), 90);
	ent(p, 4, 0, 6, SP(0), 100);	/* longjmp into the thread's main */
	ASSERT_STATS(p, 2, 5, 0, 0);
	ret(p, 4, 0, 6, SP(0), 110);
	ASSERT_STATS(p, 3, 5, 0, 0);
	CHECK_EXEC(&s.v[2], .tid = 4, .probe = 6, .depth = 0,
		   .entry_ts = 100, .exit_ts = 110);
	done(p, &s);
}

/*
 * A tail call: A (probe 1) jumps to B (probe 2) with sp unchanged, so B's
 * entry has A's sp.  B's uretprobe is chained on A's, and both return
 * instances fire on the one real return, B's first, both at sp + 8.  The
 * module records [sp] as B's call site, which is the uretprobe trampoline
 * by then.
 */
TEST(tail_call)
{
	static const struct want want[] = {
		{ .tid = 8, .probe = 2, .depth = 2, .entry_ts = 30,
		  .exit_ts = 40, .exit_cpu = 1 },	/* B */
		{ .tid = 8, .probe = 1, .depth = 1, .entry_ts = 20,
		  .exit_ts = 41, .exit_cpu = 1 },	/* A */
		{ .tid = 8, .probe = 9, .depth = 0, .entry_ts = 10,
		  .exit_ts = 50, .exit_cpu = 1 },	/* the caller */
	};
	struct sink s;
	struct pairer *p = new_pairer(&s);
	struct ispot_record r;
	size_t i;

	pairer_set_trampoline(p, 0x7fffffffe000ULL, 0x7ffffffff000ULL);
	ent(p, 8, 0, 9, SP(0), 10);		/* the caller */
	ent(p, 8, 0, 1, SP(1), 20);		/* A */
	r = rec(ISPOT_REC_ENTRY, 8, 0, 2, SP(1), 30);	/* B */
	r.ip = 0x7fffffffe000ULL;		/* [uprobes] trampoline */
	r.data[0] = ARG(30, 0);
	r.data[1] = ARG(30, 1);
	r.data[2] = ARG(30, 2);
	ASSERT_EQ(pairer_feed(p, &r), 0);
	EXPECT_STATS(p, 0, 0, 0, 0);
	ret(p, 8, 1, 2, SP(1), 40);		/* B */
	EXPECT_STATS(p, 1, 0, 0, 0);
	ret(p, 8, 1, 1, SP(1), 41);		/* A, on the same return */
	EXPECT_STATS(p, 2, 0, 0, 0);
	ret(p, 8, 1, 9, SP(0), 50);
	EXPECT_STATS(p, 3, 0, 0, 0);

	/* Non-fatal, so that a failure still frees everything. */
	EXPECT_EQ(s.n, 3);
	for (i = 0; i < s.n && i < 3; i++) {
		EXPECT_EQ(s.v[i].probe_id, want[i].probe);
		EXPECT_EQ(s.v[i].depth, want[i].depth);
		EXPECT_EQ(s.v[i].entry_ts, want[i].entry_ts);
		EXPECT_EQ(s.v[i].exit_ts, want[i].exit_ts);
		EXPECT_EQ(s.v[i].args[0], ARG(want[i].entry_ts, 0));
		EXPECT_EQ(s.v[i].retval, RETVAL(want[i].exit_ts));
	}
	done(p, &s);
}

/*
 * Entries without a call site (the module's NO_CALLSITE): a tail call
 * still pairs, since an entry at its caller's sp is taken for one, and
 * each execution's call site is its exit's return target.
 */
TEST(no_callsite_entries)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);
	struct ispot_record r;

	r = rec(ISPOT_REC_ENTRY, 8, 0, 1, SP(1), 20);	/* A */
	ASSERT_EQ(pairer_feed(p, &r), 0);
	r = rec(ISPOT_REC_ENTRY, 8, 0, 2, SP(1), 30);	/* B, tail-called */
	ASSERT_EQ(pairer_feed(p, &r), 0);
	ret(p, 8, 0, 2, SP(1), 40);
	ret(p, 8, 0, 1, SP(1), 41);
	EXPECT_STATS(p, 2, 0, 0, 0);
	ASSERT_EQ(s.n, 2);
	EXPECT_EQ(s.v[0].probe_id, 2);
	EXPECT_EQ(s.v[0].callsite, RETADDR(40));
	EXPECT_EQ(s.v[1].probe_id, 1);
	EXPECT_EQ(s.v[1].callsite, RETADDR(41));
	/* With a call site, it is the entry's that counts. */
	ent(p, 8, 0, 1, SP(1), 50);
	ret(p, 8, 0, 1, SP(1), 60);
	ASSERT_EQ(s.n, 3);
	EXPECT_EQ(s.v[2].callsite, CALLSITE(50));
	done(p, &s);
}

/*
 * Entries without a call site, and a ring that dropped records: a loop
 * calls f (probe 3) at one sp, and one call's return is lost.  Its frame
 * stays under the next call (an entry at its sp is taken for a tail
 * call), but once that call returns, the frame left below must return
 * next, as a tail call's caller does in the same trap; the loop's next
 * entry ends it instead.  Before, it stayed open, and a later return
 * whose entry was lost too took it: one call over all the loop's calls
 * since, more time in calls than the thread lived.
 */
TEST(no_callsite_lost_return_does_not_stay_open)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);
	struct ispot_record r;
	uint64_t ts;

	r = rec(ISPOT_REC_ENTRY, 8, 0, 3, SP(1), 100);	/* return lost */
	ASSERT_EQ(pairer_feed(p, &r), 0);
	for (ts = 300; ts < 800; ts += 100) {
		r = rec(ISPOT_REC_ENTRY, 8, 0, 3, SP(1), ts);
		ASSERT_EQ(pairer_feed(p, &r), 0);
		ret(p, 8, 0, 3, SP(1), ts + 10);
	}
	/* The entry of 900 was lost: its return pairs with nothing. */
	ret(p, 8, 0, 3, SP(1), 910);
	EXPECT_STATS(p, 5, 1, 1, 0);
	ASSERT_EQ(s.n, 5);
	EXPECT_EQ(s.v[0].entry_ts, 300);
	EXPECT_EQ(s.v[4].exit_ts, 710);
	done(p, &s);
}

/*
 * A function that tail-calls itself through its entry (a recursive call
 * in a -fPIC library goes through the PLT; an indirect call to itself),
 * entries without a call site: the chained uretprobes return both calls
 * in one trap, and both pair, the inner first.  So does a chain of three.
 */
TEST(no_callsite_self_tail_calls_pair)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);
	struct ispot_record r;

	r = rec(ISPOT_REC_ENTRY, 8, 0, 3, SP(1), 100);
	ASSERT_EQ(pairer_feed(p, &r), 0);
	r = rec(ISPOT_REC_ENTRY, 8, 0, 3, SP(1), 110);
	ASSERT_EQ(pairer_feed(p, &r), 0);
	ret(p, 8, 0, 3, SP(1), 150);
	ret(p, 8, 0, 3, SP(1), 151);
	EXPECT_STATS(p, 2, 0, 0, 0);
	ASSERT_EQ(s.n, 2);
	EXPECT_EQ(s.v[0].entry_ts, 110);
	EXPECT_EQ(s.v[1].entry_ts, 100);
	EXPECT_EQ(s.v[1].exit_ts, 151);
	r = rec(ISPOT_REC_ENTRY, 8, 0, 3, SP(1), 200);
	ASSERT_EQ(pairer_feed(p, &r), 0);
	r = rec(ISPOT_REC_ENTRY, 8, 0, 4, SP(1), 210);
	ASSERT_EQ(pairer_feed(p, &r), 0);
	r = rec(ISPOT_REC_ENTRY, 8, 0, 3, SP(1), 220);
	ASSERT_EQ(pairer_feed(p, &r), 0);
	ret(p, 8, 0, 3, SP(1), 250);
	ret(p, 8, 0, 4, SP(1), 251);
	ret(p, 8, 0, 3, SP(1), 252);
	EXPECT_STATS(p, 5, 0, 0, 0);
	ASSERT_EQ(s.n, 5);
	EXPECT_EQ(s.v[4].entry_ts, 200);
	done(p, &s);
}

/*
 * More nested entries than the shadow stack holds: the outermost are
 * dropped and counted, the innermost PAIR_MAX_DEPTH still pair, and the
 * dropped ones' exits find nothing.
 */
TEST(depth_overflow)
{
	const uint32_t extra = 3, n = PAIR_MAX_DEPTH + extra;
	struct sink s;
	struct pairer *p = new_pairer(&s);
	uint32_t i, lvl;

	for (i = 0; i < n; i++) {
		uint32_t over = i < PAIR_MAX_DEPTH ? 0 : i + 1 - PAIR_MAX_DEPTH;

		ent(p, 12, 0, 1 + i % 3, SP(i), 100 + i);
		ASSERT_STATS(p, 0, over, 0, over);
	}
	for (i = 0; i < n; i++) {
		lvl = n - 1 - i;
		ret(p, 12, 1, 1 + lvl % 3, SP(lvl), 1000 + i);
		if (lvl >= extra) {
			ASSERT_STATS(p, i + 1, extra, 0, extra);
			CHECK_EXEC(&s.v[i], .tid = 12, .probe = 1 + lvl % 3,
				   .depth = lvl - extra, .entry_ts = 100 + lvl,
				   .exit_ts = 1000 + i, .exit_cpu = 1);
		} else {
			ASSERT_STATS(p, PAIR_MAX_DEPTH, extra,
				     extra - lvl, extra);
		}
	}
	ASSERT_EQ(s.n, PAIR_MAX_DEPTH);

	/* The stack is usable again, from the bottom. */
	ent(p, 12, 0, 1, SP(0), 5000);
	ret(p, 12, 0, 1, SP(0), 5001);
	ASSERT_STATS(p, PAIR_MAX_DEPTH + 1, extra, extra, extra);
	CHECK_EXEC(&s.v[PAIR_MAX_DEPTH], .tid = 12, .probe = 1, .depth = 0,
		   .entry_ts = 5000, .exit_ts = 5001);
	done(p, &s);
}

TEST(thread_exit_and_flush)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);

	ent(p, 1, 0, 1, SP(0), 10);
	ent(p, 1, 0, 2, SP(1), 11);
	ent(p, 1, 0, 3, SP(2), 12);
	ent(p, 2, 0, 1, SP(0), 13);
	ent(p, 2, 0, 2, SP(1), 14);
	ent(p, 3, 0, 1, SP(0), 15);
	ent(p, 3, 0, 2, SP(1), 16);
	ret(p, 3, 0, 2, SP(1), 17);
	ASSERT_STATS(p, 1, 0, 0, 0);

	pairer_thread_exit(p, 1);
	ASSERT_STATS(p, 1, 3, 0, 0);
	pairer_thread_exit(p, 1);
	ASSERT_STATS(p, 1, 3, 0, 0);
	pairer_thread_exit(p, 999);
	ASSERT_STATS(p, 1, 3, 0, 0);

	/* The exited thread's frames are gone: a late exit finds nothing. */
	ret(p, 1, 0, 1, SP(0), 18);
	ASSERT_STATS(p, 1, 3, 1, 0);

	/* The tid is reused by a new thread, from an empty stack. */
	ent(p, 1, 0, 5, SP(2), 20);
	ret(p, 1, 0, 5, SP(2), 21);
	ASSERT_STATS(p, 2, 3, 1, 0);
	CHECK_EXEC(&s.v[1], .tid = 1, .probe = 5, .depth = 0,
		   .entry_ts = 20, .exit_ts = 21);

	pairer_flush(p);
	ASSERT_STATS(p, 2, 6, 1, 0);
	pairer_flush(p);
	ASSERT_STATS(p, 2, 6, 1, 0);
	pairer_thread_exit(p, 2);
	ASSERT_STATS(p, 2, 6, 1, 0);

	/* Flushed frames do not pair with exits that come late. */
	ret(p, 2, 0, 2, SP(1), 30);
	ret(p, 3, 0, 1, SP(0), 31);
	ASSERT_STATS(p, 2, 6, 3, 0);
	ASSERT_EQ(s.n, 2);
	done(p, &s);
}

/*
 * Block markers: entry-only probes 10/11 begin and end block 7, probes
 * 12/13 block 8; probe 14 is a second begin site of block 7.  A marker's
 * sp is wherever the code that holds it runs.
 */
static struct pairer *block_pairer(struct sink *s)
{
	struct pairer *p = new_pairer(s);

	ASSERT_EQ(pairer_set_marker(p, 10, 7, false), 0);
	ASSERT_EQ(pairer_set_marker(p, 11, 7, true), 0);
	ASSERT_EQ(pairer_set_marker(p, 12, 8, false), 0);
	ASSERT_EQ(pairer_set_marker(p, 13, 8, true), 0);
	ASSERT_EQ(pairer_set_marker(p, 14, 7, false), 0);
	return p;
}

TEST(blocks_nest_by_depth_and_carry_the_begin_probe)
{
	struct sink s;
	struct pairer *p = block_pairer(&s);

	/* begin7 begin7' end7 end7: the inner one closes first. */
	ent(p, 1, 0, 10, SP(1), 10);
	ent(p, 1, 1, 14, SP(1), 11);
	ent(p, 1, 1, 11, SP(1), 15);
	ent(p, 1, 0, 11, SP(1), 20);
	ASSERT_STATS(p, 2, 0, 0, 0);
	CHECK_EXEC(&s.v[0], .tid = 1, .block = true, .probe = 14, .entry_ts = 11,
		   .exit_ts = 15, .entry_cpu = 1, .exit_cpu = 1);
	CHECK_EXEC(&s.v[1], .tid = 1, .block = true, .probe = 10, .entry_ts = 10,
		   .exit_ts = 20, .entry_cpu = 0, .exit_cpu = 0);

	/* Overlapping, not nested: each end finds its own begin. */
	ent(p, 1, 0, 10, SP(1), 30);
	ent(p, 1, 0, 12, SP(1), 31);
	ent(p, 1, 0, 11, SP(1), 32);
	ent(p, 1, 0, 13, SP(1), 33);
	ASSERT_STATS(p, 4, 0, 0, 0);
	CHECK_EXEC(&s.v[2], .tid = 1, .block = true, .probe = 10, .entry_ts = 30,
		   .exit_ts = 32);
	CHECK_EXEC(&s.v[3], .tid = 1, .block = true, .probe = 12, .entry_ts = 31,
		   .exit_ts = 33);

	/* An end with no begin open in its thread pairs with nothing. */
	ent(p, 1, 0, 11, SP(1), 40);
	ent(p, 2, 0, 10, SP(1), 41);
	ent(p, 3, 0, 11, SP(1), 42);
	ASSERT_STATS(p, 4, 0, 2, 0);
	done(p, &s);
}

/*
 * A block is not a call: functions returning around it, or a block that
 * begins in one function and ends in its caller, do not unwind it; and it
 * does not unwind the calls either.
 */
TEST(blocks_and_calls_do_not_unwind_each_other)
{
	struct sink s;
	struct pairer *p = block_pairer(&s);

	ent(p, 1, 0, 1, SP(0), 10);		/* caller */
	ent(p, 1, 0, 2, SP(1), 11);		/* callee ... */
	ent(p, 1, 0, 10, SP(2), 12);		/* ... begins the block */
	ent(p, 1, 0, 3, SP(3), 13);		/* a call inside the block */
	ret(p, 1, 0, 3, SP(3), 14);
	ret(p, 1, 0, 2, SP(1), 15);		/* callee returns */
	ent(p, 1, 0, 11, SP(1) + 0x10, 16);	/* caller ends the block */
	ret(p, 1, 0, 1, SP(0), 17);
	ASSERT_STATS(p, 4, 0, 0, 0);
	CHECK_EXEC(&s.v[0], .tid = 1, .probe = 3, .depth = 2,
		   .entry_ts = 13, .exit_ts = 14);
	CHECK_EXEC(&s.v[1], .tid = 1, .probe = 2, .depth = 1,
		   .entry_ts = 11, .exit_ts = 15);
	CHECK_EXEC(&s.v[2], .tid = 1, .block = true, .probe = 10, .depth = 1,
		   .entry_ts = 12, .exit_ts = 16);
	CHECK_EXEC(&s.v[3], .tid = 1, .probe = 1, .depth = 0,
		   .entry_ts = 10, .exit_ts = 17);
	done(p, &s);
}

TEST(open_blocks_count_at_exit_flush_and_forget)
{
	struct sink s;
	struct pairer *p = block_pairer(&s);
	uint32_t i;

	ent(p, 1, 0, 10, SP(1), 10);
	ent(p, 1, 0, 12, SP(1), 11);
	ent(p, 2, 0, 10, SP(1), 12);
	ent(p, 3, 0, 12, SP(1), 13);
	pairer_thread_exit(p, 1);
	ASSERT_STATS(p, 0, 2, 0, 0);
	/* Gone with the thread: a late end finds nothing. */
	ent(p, 1, 0, 11, SP(1), 14);
	ASSERT_STATS(p, 0, 2, 1, 0);
	pairer_forget(p, 2);
	ASSERT_STATS(p, 0, 3, 1, 0);
	pairer_flush(p);
	ASSERT_STATS(p, 0, 4, 1, 0);

	/* Begins that never end are bounded like frames: oldest dropped. */
	for (i = 0; i < PAIR_MAX_DEPTH + 5; i++)
		ent(p, 4, 0, 10, SP(1), 100 + i);
	ASSERT_STATS(p, 0, 9, 1, 5);
	ent(p, 4, 0, 11, SP(1), 1000);
	CHECK_EXEC(&s.v[0], .tid = 4, .block = true, .probe = 10,
		   .entry_ts = 100 + PAIR_MAX_DEPTH + 4, .exit_ts = 1000);
	EXPECT_EQ(pairer_set_marker(p, 20, 1u << 30, false), -EINVAL);
	done(p, &s);
}

/* A pairer without a callback still counts. */
TEST(no_callback)
{
	struct pairer *p = pairer_new(NULL, NULL);

	ASSERT_TRUE(p);
	ent(p, 1, 0, 1, SP(0), 10);
	ent(p, 1, 0, 2, SP(1), 11);
	ret(p, 1, 0, 2, SP(1), 12);
	ret(p, 1, 0, 1, SP(0), 13);
	ret(p, 1, 0, 1, SP(0), 14);
	ASSERT_STATS(p, 2, 0, 1, 0);
	pairer_free(p);
	pairer_free(NULL);
}

/*
 * STACK records (which the module writes just before an ENTRY, at the same
 * sp) and unknown kinds are ignored.
 */
TEST(other_kinds_ignored)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);
	struct ispot_record r;

	r = rec(ISPOT_REC_STACK, 1, 0, 1, SP(0), 9);
	r.data[0] = 4;
	ASSERT_EQ(pairer_feed(p, &r), 0);
	ent(p, 1, 0, 1, SP(0), 10);
	r = rec(ISPOT_REC_STACK, 1, 0, 2, SP(1), 11);
	ASSERT_EQ(pairer_feed(p, &r), 0);
	r = rec(ISPOT_REC_STACK, 1, 0, 1, SP(0) + 8, 11);
	ASSERT_EQ(pairer_feed(p, &r), 0);
	r = rec(0, 1, 0, 1, SP(0) + 8, 12);
	ASSERT_EQ(pairer_feed(p, &r), 0);
	r = rec(99, 1, 0, 1, SP(1), 13);
	ASSERT_EQ(pairer_feed(p, &r), 0);
	ASSERT_STATS(p, 0, 0, 0, 0);
	ASSERT_EQ(s.n, 0);
	ret(p, 1, 0, 1, SP(0), 20);
	ASSERT_STATS(p, 1, 0, 0, 0);
	CHECK_EXEC(&s.v[0], .tid = 1, .probe = 1, .depth = 0,
		   .entry_ts = 10, .exit_ts = 20);
	done(p, &s);
}

/*
 * 10000 threads open at once grow the thread table many times; half the
 * tids share their low 12 bits, so they collide in it.  Checked exactly,
 * then every tid is reused.  Run under valgrind for the memory.
 */
#define MANY	10000

static uint32_t many_tid(uint32_t i)
{
	return i < MANY / 2 ? 1 + i : ((i - MANY / 2 + 2) << 12) | 3;
}

static uint32_t many_index(uint32_t tid)
{
	return tid <= MANY / 2 ? tid - 1 : (tid >> 12) - 2 + MANY / 2;
}

TEST(many_threads)
{
	struct sink s;
	struct pairer *p = new_pairer(&s);
	uint32_t *seen = calloc(MANY, sizeof(*seen));
	uint64_t ts = 0;
	uint32_t i, k;
	size_t j;

	ASSERT_TRUE(seen);
	for (i = 0; i < MANY; i++)
		ASSERT_EQ(many_index(many_tid(i)), i);

	/* Every thread opens A, then B; ts encodes (phase, thread). */
	for (i = 0; i < MANY; i++)
		ent(p, many_tid(i), i % 8, 1, SP(0), 1000000 + i);
	for (i = 0; i < MANY; i++) {
		k = (i * 7919) % MANY;
		ent(p, many_tid(k), k % 8, 2, SP(1), 2000000 + k);
	}
	ASSERT_STATS(p, 0, 0, 0, 0);

	/* B returns everywhere, in reverse order. */
	for (i = MANY; i-- > 0;)
		ret(p, many_tid(i), 0, 2, SP(1), 3000000 + i);
	ASSERT_STATS(p, MANY, 0, 0, 0);

	/* A returns in even threads; odd ones exit or stay open. */
	for (i = 0; i < MANY; i += 2)
		ret(p, many_tid(i), 0, 1, SP(0), 4000000 + i);
	ASSERT_STATS(p, MANY + MANY / 2, 0, 0, 0);
	for (i = 1; i < MANY; i += 4)
		pairer_thread_exit(p, many_tid(i));
	ASSERT_STATS(p, MANY + MANY / 2, MANY / 4, 0, 0);
	pairer_flush(p);
	ASSERT_STATS(p, MANY + MANY / 2, MANY / 2, 0, 0);

	ASSERT_EQ(s.n, MANY + MANY / 2);
	for (j = 0; j < s.n; j++) {
		const struct pair_exec *e = &s.v[j];

		i = many_index(e->tid);
		ASSERT_LT(i, MANY);
		if (j < MANY) {
			ASSERT_EQ(i, MANY - 1 - j);
			CHECK_EXEC(e, .tid = many_tid(i), .probe = 2,
				   .depth = 1, .entry_ts = 2000000 + i,
				   .exit_ts = 3000000 + i,
				   .entry_cpu = i % 8);
		} else {
			ASSERT_EQ(i, 2 * (j - MANY));
			CHECK_EXEC(e, .tid = many_tid(i), .probe = 1,
				   .depth = 0, .entry_ts = 1000000 + i,
				   .exit_ts = 4000000 + i,
				   .entry_cpu = i % 8);
		}
		seen[i]++;
	}
	for (i = 0; i < MANY; i++)
		ASSERT_EQ(seen[i], i % 2 ? 1 : 2);

	/* Every tid again, from an empty stack. */
	for (i = 0; i < MANY; i++) {
		ts = 5000000 + 2 * i;
		ent(p, many_tid(i), 3, 4, SP(5), ts);
		ret(p, many_tid(i), 4, 4, SP(5), ts + 1);
		CHECK_EXEC(&s.v[s.n - 1], .tid = many_tid(i), .probe = 4,
			   .depth = 0, .entry_ts = ts, .exit_ts = ts + 1,
			   .entry_cpu = 3, .exit_cpu = 4);
	}
	ASSERT_STATS(p, 2 * MANY + MANY / 2, MANY / 2, 0, 0);
	free(seen);
	done(p, &s);
}

/*
 * Random call trees.  Each thread runs one to three lifetimes (the tid is
 * reused, often on the same stack), each a forest of calls with random
 * frame sizes and probes, rare recursions 60 to 95 deep whose levels past
 * 64 get no exit, and sometimes a cut in the middle.  The threads'
 * records are interleaved in bursts, each record is dropped with a fixed
 * probability, and the pairer's output is compared with
 *  - the ground truth: every call whose entry and exit both survived is
 *    paired with itself, and any other pair joins the entry of a call that
 *    lost its exit with the exit of a call that lost its entry, at the same
 *    tid, sp and probe (no pairer can tell those apart);
 *  - a brute-force reference: a list of every open entry per thread,
 *    scanned in full at each record, following the rules of pair.h.
 */
#define RND_TIDS		6
#define RND_KERNEL_DEPTH	64	/* pending uretprobes per thread */
#define RND_RETVAL_TAG		(1ULL << 40)

enum { EV_ENTRY, EV_EXIT, EV_THREAD_EXIT };

struct gcall {			/* ground truth for one generated call */
	uint32_t tid;
	uint32_t probe;
	uint64_t sp;
	uint64_t entry_ts;
	uint64_t exit_ts;
	uint16_t entry_cpu;
	uint16_t exit_cpu;
	uint8_t entry_kept;	/* its ENTRY was fed */
	uint8_t exit_kept;	/* its EXIT exists and was fed */
};

struct gev {
	uint32_t call;
	uint8_t kind;
};

struct gen {
	struct gcall *calls;
	size_t ncalls;
	size_t calls_cap;
	struct gev *ev;		/* the stream of the thread being built */
	size_t nev;
	size_t ev_cap;
	uint32_t tid;
	long budget;
	uint64_t deep;		/* calls with no exit: past the kernel limit */
};

static void *grow(void *v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return v;
	*cap = *cap ? 2 * *cap : 256;
	if (*cap < need)
		*cap = need;
	v = realloc(v, *cap * size);
	ASSERT_TRUE(v);
	return v;
}

static void gen_push(struct gen *g, uint32_t call, uint8_t kind)
{
	g->ev = grow(g->ev, &g->ev_cap, g->nev + 1, sizeof(*g->ev));
	g->ev[g->nev].call = call;
	g->ev[g->nev].kind = kind;
	g->nev++;
}

static void gen_call(struct gen *g, uint64_t sp, uint32_t depth,
		     uint32_t probe, uint32_t dive)
{
	uint64_t child_sp = sp - 16 - 16 * (rng() % 8);
	uint32_t c, n, i;

	g->calls = grow(g->calls, &g->calls_cap, g->ncalls + 1,
			sizeof(*g->calls));
	c = g->ncalls++;
	memset(&g->calls[c], 0, sizeof(g->calls[c]));
	g->calls[c].tid = g->tid;
	g->calls[c].probe = probe;
	g->calls[c].sp = sp;
	g->budget--;
	gen_push(g, c, EV_ENTRY);

	if (dive) {
		gen_call(g, child_sp, depth + 1, probe, dive - 1);
	} else if (depth < 4 && rng() % 300 == 0) {
		gen_call(g, child_sp, depth + 1, probe, 60 + rng() % 36);
	} else {
		n = depth < 10 ? rng() % 4 : 0;
		for (i = 0; i < n && g->budget > 0; i++)
			gen_call(g, child_sp, depth + 1, 1 + rng() % 4, 0);
	}

	if (depth < RND_KERNEL_DEPTH)
		gen_push(g, c, EV_EXIT);
	else
		g->deep++;
}

/* The brute-force reference. */
struct ref_open {
	uint64_t sp;
	uint32_t probe;
	uint32_t call;
};

struct ref_thread {
	uint32_t tid;
	struct ref_open *v;	/* open entries, oldest first */
	size_t n;
	size_t cap;
};

struct ref_pair {
	uint32_t entry_call;
	uint32_t exit_call;
	uint32_t depth;
};

struct ref {
	struct ref_thread t[RND_TIDS];
	size_t nt;
	struct ref_pair *pairs;
	size_t npairs;
	size_t pairs_cap;
	struct pair_stats st;
};

static struct ref_thread *ref_thread(struct ref *r, uint32_t tid, int create)
{
	size_t i;

	for (i = 0; i < r->nt; i++)
		if (r->t[i].tid == tid)
			return &r->t[i];
	if (!create)
		return NULL;
	ASSERT_LT(r->nt, RND_TIDS);
	r->t[r->nt].tid = tid;
	return &r->t[r->nt++];
}

static void ref_remove(struct ref_thread *t, size_t i)
{
	memmove(t->v + i, t->v + i + 1, (t->n - i - 1) * sizeof(t->v[0]));
	t->n--;
}

static void ref_entry(struct ref *r, const struct ispot_record *rec)
{
	struct ref_thread *t = ref_thread(r, rec->tid, 1);
	size_t i;

	/* Every open entry at or below this sp was unwound. */
	for (i = 0; i < t->n;) {
		if (t->v[i].sp <= rec->sp) {
			ref_remove(t, i);
			r->st.unpaired_entries++;
		} else {
			i++;
		}
	}
	if (t->n == PAIR_MAX_DEPTH) {
		ref_remove(t, 0);
		r->st.unpaired_entries++;
		r->st.overflow++;
	}
	t->v = grow(t->v, &t->cap, t->n + 1, sizeof(t->v[0]));
	t->v[t->n].sp = rec->sp;
	t->v[t->n].probe = rec->probe_id;
	t->v[t->n].call = rec->data[0];
	t->n++;
}

static void ref_exit(struct ref *r, const struct ispot_record *rec)
{
	struct ref_thread *t = ref_thread(r, rec->tid, 0);
	uint64_t want = rec->sp - 8;
	size_t i, found = SIZE_MAX;

	if (!t) {
		r->st.unpaired_exits++;
		return;
	}
	/* Every open entry below the returning frame never returned. */
	for (i = 0; i < t->n;) {
		if (t->v[i].sp < want) {
			ref_remove(t, i);
			r->st.unpaired_entries++;
		} else {
			i++;
		}
	}
	for (i = 0; i < t->n; i++)
		if (t->v[i].sp == want && t->v[i].probe == rec->probe_id)
			found = i;
	if (found == SIZE_MAX) {
		r->st.unpaired_exits++;
		return;
	}
	r->pairs = grow(r->pairs, &r->pairs_cap, r->npairs + 1,
			sizeof(*r->pairs));
	r->pairs[r->npairs].entry_call = t->v[found].call;
	r->pairs[r->npairs].exit_call = rec->data[0] & ~RND_RETVAL_TAG;
	r->pairs[r->npairs].depth = found;
	r->npairs++;
	r->st.paired++;
	/* Later entries at the same sp (a tail-call chain) did not return. */
	r->st.unpaired_entries += t->n - found - 1;
	t->n = found;
}

static void ref_thread_exit(struct ref *r, uint32_t tid)
{
	struct ref_thread *t = ref_thread(r, tid, 0);

	if (!t)
		return;
	r->st.unpaired_entries += t->n;
	t->n = 0;
}

static void ref_flush(struct ref *r)
{
	size_t i;

	for (i = 0; i < r->nt; i++)
		ref_thread_exit(r, r->t[i].tid);
}

static void ref_free(struct ref *r)
{
	size_t i;

	for (i = 0; i < r->nt; i++)
		free(r->t[i].v);
	free(r->pairs);
}

struct rnd_totals {
	uint64_t records, paired, merged, unpaired_entries, unpaired_exits;
	uint64_t deep, reused;
};

static void rnd_round(uint64_t seed, uint32_t drop_permille,
		      struct rnd_totals *tot)
{
	struct gev *streams[RND_TIDS];
	size_t len[RND_TIDS], pos[RND_TIDS];
	uint16_t cpu[RND_TIDS];
	uint64_t clock = 1000, kept_records = 0, both = 0, exact = 0;
	uint64_t kept_entries = 0, kept_exits = 0;
	struct gen g;
	struct ref r;
	struct sink s;
	struct pairer *p;
	const struct pair_stats *st;
	uint32_t t, l, lives, live = RND_TIDS;
	size_t i, start;

	rng_state = seed;
	memset(&g, 0, sizeof(g));
	memset(&r, 0, sizeof(r));
	p = new_pairer(&s);

	for (t = 0; t < RND_TIDS; t++) {
		uint64_t base = 0;

		g.tid = 1000 + t * 17;
		g.ev = NULL;
		g.nev = 0;
		g.ev_cap = 0;
		lives = 1 + rng() % 3;
		for (l = 0; l < lives; l++) {
			if (!l || rng() % 2)
				base = 0x7f0000000008ULL +
				       (t * 4 + l) * 0x1000000ULL;
			else
				tot->reused++;
			start = g.nev;
			g.budget = 200 + rng() % 1500;
			while (g.budget > 0)
				gen_call(&g, base, 0, 1 + rng() % 4, 0);
			/* Killed, or still running when the trace ends. */
			if (rng() % 3 == 0)
				g.nev = start + rng() % (g.nev - start + 1);
			if (rng() % 3)
				gen_push(&g, 0, EV_THREAD_EXIT);
		}
		streams[t] = g.ev;
		len[t] = g.nev;
		pos[t] = 0;
		cpu[t] = t % 8;
	}
	tot->deep += g.deep;

	while (live) {
		uint32_t burst = 1 + rng() % 6;

		t = rng() % RND_TIDS;
		if (pos[t] == len[t])
			continue;
		while (burst-- && pos[t] < len[t]) {
			struct gev *ev = &streams[t][pos[t]++];
			struct gcall *c = &g.calls[ev->call];
			struct ispot_record rc;
			uint8_t kept;

			if (ev->kind == EV_THREAD_EXIT) {
				pairer_thread_exit(p, 1000 + t * 17);
				ref_thread_exit(&r, 1000 + t * 17);
				continue;
			}
			clock += 1 + rng() % 64;
			if (rng() % 16 == 0)
				cpu[t] = rng() % 8;
			kept = rng() % 1000 >= drop_permille;
			if (ev->kind == EV_ENTRY) {
				rc = rec(ISPOT_REC_ENTRY, c->tid, cpu[t],
					 c->probe, c->sp, clock);
				rc.ip = CALLSITE(ev->call);
				rc.data[0] = ev->call;
				rc.data[1] = ~(uint64_t)ev->call;
				rc.data[2] = c->sp;
				c->entry_ts = clock;
				c->entry_cpu = cpu[t];
				c->entry_kept = kept;
				kept_entries += kept;
			} else {
				rc = rec(ISPOT_REC_EXIT, c->tid, cpu[t],
					 c->probe, c->sp + 8, clock);
				rc.ip = RETADDR(ev->call);
				rc.data[0] = ev->call | RND_RETVAL_TAG;
				c->exit_ts = clock;
				c->exit_cpu = cpu[t];
				c->exit_kept = kept;
				kept_exits += kept;
			}
			if (!kept)
				continue;
			kept_records++;
			ASSERT_EQ(pairer_feed(p, &rc), 0);
			if (ev->kind == EV_ENTRY)
				ref_entry(&r, &rc);
			else
				ref_exit(&r, &rc);
		}
		if (pos[t] == len[t])
			live--;
	}
	pairer_flush(p);
	ref_flush(&r);

	/* Against the reference: the same executions, the same counts. */
	st = pairer_stats(p);
	ASSERT_EQ(st->paired, r.st.paired);
	ASSERT_EQ(st->unpaired_entries, r.st.unpaired_entries);
	ASSERT_EQ(st->unpaired_exits, r.st.unpaired_exits);
	ASSERT_EQ(st->overflow, 0);
	ASSERT_EQ(r.st.overflow, 0);
	ASSERT_EQ(s.n, r.npairs);
	for (i = 0; i < s.n; i++) {
		const struct pair_exec *e = &s.v[i];
		const struct ref_pair *rp = &r.pairs[i];
		const struct gcall *ce = &g.calls[rp->entry_call];
		const struct gcall *cx = &g.calls[rp->exit_call];

		ASSERT_EQ(e->tid, ce->tid);
		ASSERT_EQ(e->tgid, TGID);
		ASSERT_EQ(e->probe_id, cx->probe);
		ASSERT_EQ(e->depth, rp->depth);
		ASSERT_EQ(e->entry_ts, ce->entry_ts);
		ASSERT_EQ(e->exit_ts, cx->exit_ts);
		ASSERT_EQ(e->entry_cpu, ce->entry_cpu);
		ASSERT_EQ(e->exit_cpu, cx->exit_cpu);
		ASSERT_EQ(e->callsite, CALLSITE(rp->entry_call));
		ASSERT_EQ(e->args[0], rp->entry_call);
		ASSERT_EQ(e->args[1], ~(uint64_t)rp->entry_call);
		ASSERT_EQ(e->args[2], ce->sp);
		ASSERT_EQ(e->retval, rp->exit_call | RND_RETVAL_TAG);

		/* Against the ground truth. */
		if (rp->entry_call == rp->exit_call) {
			exact++;
			continue;
		}
		ASSERT_EQ(ce->exit_kept, 0);
		ASSERT_EQ(cx->entry_kept, 0);
		ASSERT_EQ(ce->tid, cx->tid);
		ASSERT_EQ(ce->sp, cx->sp);
		ASSERT_EQ(ce->probe, cx->probe);
		ASSERT_LT(ce->entry_ts, cx->exit_ts);
	}
	for (i = 0; i < g.ncalls; i++)
		both += g.calls[i].entry_kept && g.calls[i].exit_kept;
	ASSERT_EQ(exact, both);
	ASSERT_EQ(2 * st->paired + st->unpaired_entries + st->unpaired_exits,
		  kept_records);
	ASSERT_EQ(st->paired + st->unpaired_entries, kept_entries);
	ASSERT_EQ(st->paired + st->unpaired_exits, kept_exits);
	if (!drop_permille) {
		ASSERT_EQ(st->paired, kept_exits);
		ASSERT_EQ(st->unpaired_exits, 0);
		ASSERT_EQ(exact, kept_exits);
	}

	tot->records += kept_records;
	tot->paired += st->paired;
	tot->merged += st->paired - exact;
	tot->unpaired_entries += st->unpaired_entries;
	tot->unpaired_exits += st->unpaired_exits;

	for (t = 0; t < RND_TIDS; t++)
		free(streams[t]);
	free(g.calls);
	ref_free(&r);
	done(p, &s);
}

TEST(random_trees_against_reference)
{
	static const uint32_t drops[] = { 0, 2, 20, 100, 300, 600 };
	struct rnd_totals tot;
	uint32_t d, k;

	memset(&tot, 0, sizeof(tot));
	for (d = 0; d < sizeof(drops) / sizeof(drops[0]); d++)
		for (k = 0; k < 4; k++)
			rnd_round(0x9e3779b97f4a7c15ULL * (d * 4 + k + 1),
				  drops[d], &tot);
	TH_LOG("%llu records fed, %llu paired (%llu across lost records)",
	       (unsigned long long)tot.records,
	       (unsigned long long)tot.paired,
	       (unsigned long long)tot.merged);
	TH_LOG("%llu unpaired entries, %llu unpaired exits",
	       (unsigned long long)tot.unpaired_entries,
	       (unsigned long long)tot.unpaired_exits);
	TH_LOG("%llu calls past the kernel depth, %llu stacks reused",
	       (unsigned long long)tot.deep,
	       (unsigned long long)tot.reused);
	/* The generator reached every case it is meant to. */
	ASSERT_GT(tot.deep, 0);
	ASSERT_GT(tot.merged, 0);
	ASSERT_GT(tot.unpaired_exits, 0);
	ASSERT_GT(tot.reused, 0);
}

TEST_HARNESS_MAIN
