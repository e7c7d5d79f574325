// SPDX-License-Identifier: GPL-2.0
/*
 * Report printers: the JSON object of the ispotctl contract, read back by a
 * strict parser (util/json_read.h: a stray comma, a bad escape or a NaN
 * fails), its fields checked against the SCI engine that produced them;
 * and the human table: columns, order, alignment, key rows, warnings.
 *
 * Every expected value is computed from the engine's own report, never
 * copied from the printers' output.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>

#include "ispot_test.h"
#include "text_unwrap.h"
#include "trace/device.h"
#include "util/format.h"
#include "analysis/excess.h"
#include "analysis/solo.h"
#include "report/report.h"
#include "analysis/timeline.h"
#include "analysis/sci.h"
#include "util/json_read.h"

static const char *const jtype_name[] = {
	"null", "bool", "number", "string", "array", "object",
};

/* A field that must exist with type @t; the test stops otherwise. */
static const struct json_value *field(const struct json_value *o, const char *key,
			      enum json_type t)
{
	const struct json_value *v = json_get(o, key);

	if (!v || v->t != t) {
		TH_LOG("field \"%s\": %s, want %s", key,
		       v ? jtype_name[v->t] : "missing", jtype_name[t]);
		ispot_test_fail(1);
	}
	return v;
}

static uint64_t field_u64(const struct json_value *o, const char *key)
{
	const struct json_value *v = field(o, key, JSON_NUM);

	if (!v->is_uint) {
		TH_LOG("field \"%s\" is not an unsigned integer", key);
		ispot_test_fail(1);
	}
	return v->u;
}

static int64_t field_i64(const struct json_value *o, const char *key)
{
	const struct json_value *v = field(o, key, JSON_NUM);

	if (!v->is_int) {
		TH_LOG("field \"%s\" is not an integer", key);
		ispot_test_fail(1);
	}
	return v->i;
}

static double field_num(const struct json_value *o, const char *key)
{
	return field(o, key, JSON_NUM)->d;
}

static const char *field_str(const struct json_value *o, const char *key)
{
	return field(o, key, JSON_STR)->s;
}

/* %.6g in the writer: six significant digits survive. */
#define EXPECT_SCORE(got, want) \
	EXPECT_NEAR(got, want, 1e-5 * fabs(want) + 1e-12)

/* ---- a small traced program, scored by the real engine ---- */

enum { F_NEVER, F_ACQUIRE, F_COMPUTE, F_FLUSH, NR_FUNCS };

#define ACQUIRE_KEYS	7
#define PID		4242

static const struct report_func funcs[NR_FUNCS] = {
	[F_NEVER]   = { "never_called", "/opt/app/bin/app", "" },
	[F_ACQUIRE] = { "acquire", "/usr/lib/x86_64-linux-gnu/libapp.so.1",
			"arg0" },
	[F_COMPUTE] = { "compute_chunk", "/opt/app/bin/app", "" },
	[F_FLUSH]   = { "flush_log", "/opt/app/bin/app", "callsite" },
};

static const struct {
	uint32_t tid;
	uint64_t from, to;
} threads[] = {
	{ 101, 0, 100000000 },
	{ 102, 0, 200000000 },
	{ 103, 50000000, 300000000 },
};
#define NR_THREADS	(sizeof(threads) / sizeof(threads[0]))
#define TRACE_END	300000000ull

static const struct report_counter counters[] = {
	/* name, supported, hardware, time, slot */
	{ "cpu-clock", true, false, true, 0 },
	{ "cycles", false, true, false, -1 },
	{ "page-faults", true, false, false, 1 },
};

static const char *const futex_funcs[] = { "acquire", "compute_chunk" };

/* As trace.c hands them over: sorted by report_wakers(). */
static const struct report_waker futex_wakers[] = {
	{ "update_stats", 900000, "" }, { "flush", 100000, "" },
};

static const struct report_futex futexes[] = {
	{ 0x55d0c0de1040ull, "app:gm_lock", 1234567, 89, 3, futex_funcs, 2,
	  futex_wakers, 2 },
	{ 0x7ffd00000010ull, "", 5000, 1, 1, futex_funcs, 1, NULL, 0 },
};

static uint64_t rng_state = 0x5be0cd19137e2179ULL;

static uint64_t rng(void)
{
	return ispot_test_rand(&rng_state);
}

/* Distinct from the hex fallback, so a test can see the callback used. */
static int key_name(void *ctx, uint32_t func_id, uint64_t key, char *buf,
		    size_t len)
{
	(void)ctx;
	return snprintf(buf, len, "k%" PRIu64 "/f%" PRIu32, key, func_id);
}

struct scenario {
	struct sci_engine *e;
	struct sci_report *sci;
	struct report rep;
	uint64_t cursor[NR_THREADS];
};

static void exec(struct scenario *s, uint32_t func, uint64_t key, size_t t,
		 uint64_t d, const struct sci_causes *c)
{
	s->cursor[t] += d;
	ASSERT_LT(s->cursor[t], threads[t].to);
	ASSERT_EQ(sci_add(s->e, func, key, threads[t].tid, d, s->cursor[t], c),
		  0);
	s->cursor[t] += 100;
}

/*
 * acquire: 7 lock addresses, each its own base cost plus noise;
 * compute_chunk: long, noisy, half of the calls with a cause split;
 * flush_log: one call site, nearly constant.
 */
static void scenario_build(struct scenario *s)
{
	size_t t, k, c;

	memset(s, 0, sizeof(*s));
	s->e = sci_new();
	ASSERT_TRUE(s->e);
	for (t = 0; t < NR_THREADS; t++) {
		ASSERT_EQ(sci_thread_seen(s->e, threads[t].tid,
					  threads[t].from), 0);
		s->cursor[t] = threads[t].from + 1000;
	}
	for (k = 0; k < ACQUIRE_KEYS; k++)
		for (t = 0; t < NR_THREADS; t++)
			for (c = 0; c < 20; c++)
				exec(s, F_ACQUIRE, 0x1000 + 0x40 * k, t,
				     1000 + 500 * k + rng() % (2000 * (k + 1)),
				     NULL);
	for (t = 0; t < NR_THREADS; t++) {
		for (c = 0; c < 40; c++) {
			uint64_t d = 50000 + rng() % 400000;
			struct sci_causes cs = {
				.futex_ns = rng() % (d / 2),
				.blocked_ns = rng() % (d / 8),
				.runqueue_ns = rng() % (d / 8),
			};

			exec(s, F_COMPUTE, 0, t, d, c & 1 ? &cs : NULL);
		}
	}
	for (t = 0; t < NR_THREADS; t++)
		for (c = 0; c < 5; c++)
			exec(s, F_FLUSH, 0x401234, t, 2000 + rng() % 3000,
			     NULL);
	for (t = 0; t < NR_THREADS; t++)
		ASSERT_EQ(sci_thread_exit(s->e, threads[t].tid,
					  threads[t].to), 0);
	sci_finish(s->e, TRACE_END);
	s->sci = sci_report(s->e, 0);
	ASSERT_TRUE(s->sci);
	ASSERT_EQ(s->sci->nr_funcs, 3);

	s->rep.pid = PID;
	s->rep.command = "app";
	s->rep.duration_ns = TRACE_END;
	/* An entry and a return record per execution. */
	s->rep.recorded = 2 * sci_nr_events(s->e);
	s->rep.sci = s->sci;
	s->rep.funcs = funcs;
	s->rep.nr_funcs = NR_FUNCS;
	s->rep.key_name = key_name;
	s->rep.counters = counters;
	s->rep.nr_counters = sizeof(counters) / sizeof(counters[0]);
	s->rep.futexes = futexes;
	s->rep.nr_futexes = sizeof(futexes) / sizeof(futexes[0]);
}

static void scenario_free(struct scenario *s)
{
	sci_report_free(s->sci);
	sci_free(s->e);
}

static char *render_json(const struct report *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ASSERT_TRUE(f);
	ASSERT_EQ(report_json(f, r), 0);
	ASSERT_EQ(fclose(f), 0);
	return buf;
}

static const struct json_value *parse_report(const struct report *r)
{
	const char *err = NULL;
	struct json_value *v;
	size_t len;
	char *text = render_json(r, &len);

	/* No NUL inside, exactly one value, newline-terminated. */
	ASSERT_EQ(strlen(text), len);
	ASSERT_TRUE(len && text[len - 1] == '\n');
	v = json_parse(text, len, &err);
	if (!v)
		TH_LOG("invalid JSON (%s): %s", err, text);
	ASSERT_TRUE(v);
	ASSERT_EQ(v->t, JSON_OBJ);
	free(text);
	return v;
}

static char *render_text(const struct report *r, size_t max_rows)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f);
	ASSERT_EQ(report_text(f, r, max_rows), 0);
	ASSERT_EQ(fclose(f), 0);
	ASSERT_EQ(strlen(buf), len);
	return buf;
}

struct lines {
	char *line[256];
	size_t n;
	size_t header;		/* the column header line */
	size_t end;		/* first line after the table */
};

/* Split the table output and find where the table is. */
static void split(char *text, struct lines *l)
{
	char *save = NULL, *p;

	memset(l, 0, sizeof(*l));
	for (p = strtok_r(text, "\n", &save); p && l->n < 256;
	     p = strtok_r(NULL, "\n", &save))
		l->line[l->n++] = p;
	for (l->header = 0; l->header < l->n; l->header++)
		if (strstr(l->line[l->header], "FUNCTION"))
			break;
	/* Rows start with a blank (padding), a digit or '<' (the SCI). */
	for (l->end = l->header + 1; l->end < l->n; l->end++) {
		char c = l->line[l->end][0];

		if (c != ' ' && c != '<' && !isdigit((unsigned char)c))
			break;
	}
}

#define CELL_MAX_TEST	96

/* Whitespace-separated fields of a row; numeric cells hold no blanks. */
static size_t tokens(const char *line, char tok[][CELL_MAX_TEST], size_t max)
{
	size_t n = 0;

	while (*line && n < max) {
		size_t w = 0;

		while (*line == ' ')
			line++;
		if (!*line)
			break;
		while (line[w] && line[w] != ' ')
			w++;
		snprintf(tok[n++], CELL_MAX_TEST, "%.*s", (int)w, line);
		line += w;
	}
	return n;
}

/* The row whose FUNCTION cell is @name, or -1. */
static int row_of(const struct lines *l, const char *name)
{
	char tok[16][CELL_MAX_TEST];
	size_t i;

	for (i = l->header + 1; i < l->end; i++)
		if (tokens(l->line[i], tok, 16) > 10 && !strcmp(tok[10], name))
			return (int)i;
	return -1;
}

/* ---- tests ---- */


/* Every field of the contract, with its type, and the added ones. */
TEST(json_has_every_contract_field)
{
	static const char *const fn_u64[] = {
		"calls", "threads", "min_ns", "p50_ns", "p99_ns", "max_ns",
		"mean_ns", "loss_ns", "worst_tid",
	};
	static const char *const causes[] = {
		"futex_ns", "blocked_ns", "runqueue_ns", "oncpu_ns",
		"unknown_ns",
	};
	const struct json_value *v, *a, *o;
	struct scenario s;
	size_t i, k;

	scenario_build(&s);
	v = parse_report(&s.rep);
	EXPECT_STREQ(field_str(v, "ispot_version"), ISPOTCTL_VERSION);
	o = field(v, "target", JSON_OBJ);
	EXPECT_EQ(field_i64(o, "pid"), PID);
	EXPECT_STREQ(field_str(o, "command"), "app");
	EXPECT_EQ(field_u64(v, "duration_ns"), TRACE_END);
	o = field(v, "events", JSON_OBJ);
	EXPECT_EQ(field_u64(o, "recorded"), s.rep.recorded);
	EXPECT_EQ(field_u64(o, "dropped"), 0);
	EXPECT_EQ(field_u64(o, "unpaired"), 0);
	/* Only a cut recording's report says its drops are not known. */
	EXPECT_TRUE(json_get(o, "dropped_known") == NULL);

	a = field(v, "functions", JSON_ARR);
	ASSERT_EQ(a->n, s.sci->nr_funcs);
	for (i = 0; i < a->n; i++) {
		const struct json_value *fn = &a->items[i], *c;

		ASSERT_EQ(fn->t, JSON_OBJ);
		field_str(fn, "name");
		field_str(fn, "linkage_name");
		field_str(fn, "object");
		field_str(fn, "key");
		for (k = 0; k < sizeof(fn_u64) / sizeof(fn_u64[0]); k++)
			field_u64(fn, fn_u64[k]);
		field_num(fn, "sci");
		field_num(fn, "sci_worst_thread");
		c = field(fn, "causes", JSON_OBJ);
		for (k = 0; k < sizeof(causes) / sizeof(causes[0]); k++)
			field_i64(c, causes[k]);
		/* "keys" exactly when the function has a key kind. */
		EXPECT_EQ(json_get(fn, "keys") != NULL,
			  field_str(fn, "key")[0] != '\0');
	}
	a = field(v, "threads", JSON_ARR);
	ASSERT_EQ(a->n, NR_THREADS);
	for (i = 0; i < a->n; i++) {
		field_u64(&a->items[i], "tid");
		field_u64(&a->items[i], "lifetime_ns");
	}
	a = field(v, "futexes", JSON_ARR);
	ASSERT_EQ(a->n, 2);
	for (i = 0; i < a->n; i++) {
		o = &a->items[i];
		field_str(o, "address");
		field_str(o, "symbol");
		field_u64(o, "wait_ns");
		field_u64(o, "waits");
		field_u64(o, "threads");
		for (k = 0; k < field(o, "functions", JSON_ARR)->n; k++)
			EXPECT_EQ(field(o, "functions", JSON_ARR)->items[k].t,
				  JSON_STR);
	}
	o = field(v, "counters", JSON_OBJ);
	EXPECT_EQ(o->n, 3);
	EXPECT_EQ(field(v, "warnings", JSON_ARR)->n, 0);
	scenario_free(&s);
}

/* "stacks" on every function, valid JSON, frames as strings (hex here). */
TEST(json_stacks_parse)
{
	const uint64_t frames[] = { 0x401234, 0x401500 };
	struct stacks *st = stacks_new();
	const struct json_value *v, *a;
	struct scenario s;
	size_t i;

	ASSERT_TRUE(st);
	ASSERT_EQ(stacks_add(st, F_FLUSH, frames, 2), 0);
	ASSERT_EQ(stacks_add(st, F_FLUSH, frames, 2), 0);
	scenario_build(&s);
	s.rep.stacks = st;
	v = parse_report(&s.rep);
	a = field(v, "functions", JSON_ARR);
	for (i = 0; i < a->n; i++) {
		const struct json_value *fn = &a->items[i], *stk, *fr;

		stk = field(fn, "stacks", JSON_ARR);
		if (s.sci->funcs[i].func_id != F_FLUSH) {
			EXPECT_EQ(stk->n, 0);
			EXPECT_EQ(field_u64(fn, "stacks_sampled"), 0);
			continue;
		}
		ASSERT_EQ(stk->n, 1);
		EXPECT_EQ(field_u64(&stk->items[0], "calls"), 2);
		fr = field(&stk->items[0], "frames", JSON_ARR);
		ASSERT_EQ(fr->n, 2);
		EXPECT_EQ(fr->items[1].t, JSON_STR);
		EXPECT_STREQ(fr->items[1].s, "0x401500");
		field_num(&stk->items[0], "loss_share");
		EXPECT_EQ(field_u64(fn, "stacks_sampled"), 2);
	}
	scenario_free(&s);
	stacks_free(st);
}

/*
 * --folded: flush_log's loss split over its two sampled paths (3 and 1
 * calls of 4), outermost frame first; a function without stacks is one
 * line of its whole loss; ';' in a name cannot split a frame.
 */
TEST(folded_lines_weighted_by_loss)
{
	const uint64_t a[] = { 0x401234, 0x401500 }, b[] = { 0x401240 };
	struct report_func named[NR_FUNCS];
	const struct sci_result *flush, *acq;
	struct stacks *st = stacks_new();
	char *buf = NULL, want[256];
	struct scenario s;
	size_t len;
	FILE *f;

	ASSERT_TRUE(st);
	ASSERT_EQ(stacks_add(st, F_FLUSH, a, 2), 0);
	ASSERT_EQ(stacks_add(st, F_FLUSH, a, 2), 0);
	ASSERT_EQ(stacks_add(st, F_FLUSH, a, 2), 0);
	ASSERT_EQ(stacks_add(st, F_FLUSH, b, 1), 0);
	scenario_build(&s);
	memcpy(named, funcs, sizeof(named));
	named[F_ACQUIRE].name = "ns::f(a;b)";
	s.rep.funcs = named;
	s.rep.stacks = st;
	f = open_memstream(&buf, &len);
	ASSERT_TRUE(f);
	ASSERT_EQ(report_folded(f, &s.rep), 0);
	ASSERT_EQ(fclose(f), 0);
	TH_LOG("%s", buf);
	flush = sci_report_func(s.sci, F_FLUSH);
	acq = sci_report_func(s.sci, F_ACQUIRE);
	ASSERT_TRUE(flush && acq);
	/* Rounded half up, as report_folded() does. */
	snprintf(want, sizeof(want), "0x401500;0x401234;flush_log %" PRIu64
		 "\n", (uint64_t)((double)flush->loss_ns * 3 / 4 + 0.5));
	EXPECT_TRUE(strstr(buf, want));
	snprintf(want, sizeof(want), "0x401240;flush_log %" PRIu64 "\n",
		 (uint64_t)((double)flush->loss_ns / 4 + 0.5));
	EXPECT_TRUE(strstr(buf, want));
	snprintf(want, sizeof(want), "\nns::f(a:b) %" PRIu64 "\n",
		 acq->loss_ns);
	EXPECT_TRUE(strstr(buf, want) || !strncmp(buf, want + 1,
						   strlen(want + 1)));
	EXPECT_FALSE(strstr(buf, "(other stacks)"));
	free(buf);
	scenario_free(&s);
	stacks_free(st);
}

/* Functions in the engine's order, highest SCI first, with its numbers. */
TEST(json_functions_match_engine)
{
	const struct sci_result *res;
	const struct json_value *v, *a;
	struct scenario s;
	size_t i, k;

	scenario_build(&s);
	v = parse_report(&s.rep);
	a = field(v, "functions", JSON_ARR);
	ASSERT_EQ(a->n, 3);
	for (i = 0; i < a->n; i++) {
		const struct sci_result *res = &s.sci->funcs[i];
		const struct report_func *rf = &funcs[res->func_id];
		const struct json_value *fn = &a->items[i], *c;

		EXPECT_STREQ(field_str(fn, "name"), rf->name);
		EXPECT_STREQ(field_str(fn, "object"), rf->object);
		EXPECT_STREQ(field_str(fn, "key"), rf->key);
		EXPECT_EQ(field_u64(fn, "calls"), res->calls);
		EXPECT_EQ(field_u64(fn, "threads"), res->threads);
		EXPECT_EQ(field_u64(fn, "min_ns"), res->min_ns);
		EXPECT_EQ(field_u64(fn, "p50_ns"), res->p50_ns);
		EXPECT_EQ(field_u64(fn, "p99_ns"), res->p99_ns);
		EXPECT_EQ(field_u64(fn, "max_ns"), res->max_ns);
		EXPECT_EQ(field_u64(fn, "mean_ns"), llround(res->mean_ns));
		EXPECT_EQ(field_u64(fn, "loss_ns"), res->loss_ns);
		EXPECT_GT(res->loss_ns, 0);
		EXPECT_SCORE(field_num(fn, "sci"), res->sci);
		EXPECT_SCORE(field_num(fn, "sci_worst_thread"),
			     res->sci_worst_thread);
		EXPECT_EQ(field_u64(fn, "worst_tid"), res->worst_tid);
		c = field(fn, "causes", JSON_OBJ);
		EXPECT_EQ(field_i64(c, "futex_ns"),
			  res->cause_loss_ns[SCI_CAUSE_FUTEX]);
		EXPECT_EQ(field_i64(c, "blocked_ns"),
			  res->cause_loss_ns[SCI_CAUSE_BLOCKED]);
		EXPECT_EQ(field_i64(c, "runqueue_ns"),
			  res->cause_loss_ns[SCI_CAUSE_RUNQUEUE]);
		EXPECT_EQ(field_i64(c, "oncpu_ns"),
			  res->cause_loss_ns[SCI_CAUSE_ONCPU]);
		EXPECT_EQ(field_i64(c, "unknown_ns"), res->unknown_loss_ns);
		if (i)
			EXPECT_TRUE(field_num(&a->items[i - 1], "sci") >=
				    field_num(fn, "sci"));
	}
	/* Distinct values per cause, so a swapped field would show. */
	res = sci_report_func(s.sci, F_COMPUTE);
	ASSERT_TRUE(res);
	for (i = 0; i < SCI_NR_CAUSES; i++)
		for (k = i + 1; k < SCI_NR_CAUSES; k++)
			EXPECT_NE(res->cause_loss_ns[i], res->cause_loss_ns[k]);
	EXPECT_NE(res->unknown_loss_ns, 0);
	scenario_free(&s);
}

/* A keyed function lists every block, named by the key callback. */
TEST(json_keys_match_blocks)
{
	const struct json_value *v, *a;
	struct scenario s;
	size_t i, nkeys[NR_FUNCS] = { 0 };

	scenario_build(&s);
	v = parse_report(&s.rep);
	a = field(v, "functions", JSON_ARR);
	for (i = 0; i < a->n; i++) {
		const struct sci_result *res = &s.sci->funcs[i];
		const struct json_value *fn = &a->items[i], *keys;
		size_t b, k = 0;

		if (!funcs[res->func_id].key[0]) {
			EXPECT_TRUE(json_get(fn, "keys") == NULL);
			continue;
		}
		keys = field(fn, "keys", JSON_ARR);
		EXPECT_EQ(keys->n, res->nr_keys);
		EXPECT_EQ(field_u64(fn, "nr_keys"), res->nr_keys);
		for (b = 0; b < s.sci->nr_blocks; b++) {
			const struct sci_result *blk = &s.sci->blocks[b];
			const struct json_value *o;
			char want[64];

			if (blk->func_id != res->func_id)
				continue;
			ASSERT_LT(k, keys->n);
			o = &keys->items[k++];
			key_name(NULL, blk->func_id, blk->key, want,
				 sizeof(want));
			EXPECT_STREQ(field_str(o, "key"), want);
			EXPECT_EQ(field_u64(o, "calls"), blk->calls);
			EXPECT_EQ(field_u64(o, "min_ns"), blk->min_ns);
			EXPECT_EQ(field_u64(o, "p50_ns"), blk->p50_ns);
			EXPECT_EQ(field_u64(o, "p99_ns"), blk->p99_ns);
			EXPECT_EQ(field_u64(o, "max_ns"), blk->max_ns);
			EXPECT_EQ(field_u64(o, "loss_ns"), blk->loss_ns);
			EXPECT_SCORE(field_num(o, "sci"), blk->sci);
		}
		EXPECT_EQ(k, keys->n);
		nkeys[res->func_id] = k;
	}
	EXPECT_EQ(nkeys[F_ACQUIRE], ACQUIRE_KEYS);
	EXPECT_EQ(nkeys[F_FLUSH], 1);
	scenario_free(&s);
}

/* Without a key_name callback keys are still told apart, in hex. */
TEST(key_label_defaults_to_hex)
{
	const struct json_value *v, *a;
	struct scenario s;
	char *text, want[32];
	size_t i;

	scenario_build(&s);
	s.rep.key_name = NULL;
	text = render_text(&s.rep, 0);
	for (i = 0; s.sci->blocks[i].func_id != F_ACQUIRE; i++)
		;
	snprintf(want, sizeof(want), "    0x%" PRIx64 "\n",
		 s.sci->blocks[i].key);
	EXPECT_TRUE(strstr(text, want) != NULL);
	EXPECT_TRUE(strstr(text, "/f1") == NULL);
	free(text);
	v = parse_report(&s.rep);
	a = field(v, "functions", JSON_ARR);
	for (i = 0; i < a->n; i++) {
		if (s.sci->funcs[i].func_id != F_FLUSH)
			continue;
		ASSERT_EQ(field(&a->items[i], "keys", JSON_ARR)->n, 1);
		EXPECT_STREQ(field_str(&field(&a->items[i], "keys",
					      JSON_ARR)->items[0], "key"),
			     "0x401234");
	}
	scenario_free(&s);
}

/* Threads, futexes and counters come through as given. */
TEST(json_threads_futexes_counters)
{
	const struct json_value *v, *a, *o;
	struct scenario s;
	size_t i, k;

	scenario_build(&s);
	v = parse_report(&s.rep);
	a = field(v, "threads", JSON_ARR);
	ASSERT_EQ(a->n, s.sci->nr_threads);
	for (i = 0; i < a->n; i++) {
		EXPECT_EQ(field_u64(&a->items[i], "tid"),
			  s.sci->threads[i].tid);
		EXPECT_EQ(field_u64(&a->items[i], "lifetime_ns"),
			  s.sci->threads[i].lifetime_ns);
		EXPECT_EQ(s.sci->threads[i].lifetime_ns,
			  threads[i].to - threads[i].from);
	}
	a = field(v, "futexes", JSON_ARR);
	ASSERT_EQ(a->n, 2);
	for (i = 0; i < a->n; i++) {
		const char *addr;
		char *end;

		o = &a->items[i];
		addr = field_str(o, "address");
		EXPECT_TRUE(!strncmp(addr, "0x", 2));
		EXPECT_TRUE(strtoull(addr, &end, 16) == futexes[i].address);
		EXPECT_EQ(*end, '\0');
		EXPECT_STREQ(field_str(o, "symbol"), futexes[i].symbol);
		EXPECT_EQ(field_u64(o, "wait_ns"), futexes[i].wait_ns);
		EXPECT_EQ(field_u64(o, "waits"), futexes[i].waits);
		EXPECT_EQ(field_u64(o, "threads"), futexes[i].threads);
		ASSERT_EQ(field(o, "functions", JSON_ARR)->n,
			  futexes[i].nr_functions);
		for (k = 0; k < futexes[i].nr_functions; k++)
			EXPECT_STREQ(field(o, "functions", JSON_ARR)->items[k].s,
				     futexes[i].functions[k]);
		ASSERT_EQ(field(o, "woken_from", JSON_ARR)->n,
			  futexes[i].nr_woken_from);
	}
	/* Shares of the woken time: 9:1. */
	a = field(&a->items[0], "woken_from", JSON_ARR);
	EXPECT_STREQ(field_str(&a->items[0], "function"), "update_stats");
	EXPECT_EQ(field_u64(&a->items[0], "wait_ns"), 900000);
	EXPECT_TRUE(fabs(field_num(&a->items[0], "share") - 0.9) < 1e-9);
	EXPECT_STREQ(field_str(&a->items[1], "function"), "flush");
	EXPECT_TRUE(fabs(field_num(&a->items[1], "share") - 0.1) < 1e-9);
	o = field(v, "counters", JSON_OBJ);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		EXPECT_STREQ(field_str(o, counters[i].name),
			     counters[i].supported ? "supported" :
						     "unsupported");
	scenario_free(&s);
}

static const char *waker_name(const void *ctx, uint32_t id)
{
	const char *const *names = ctx;

	return id < 2 ? names[id] : NULL;
}

/* Ids become names, the special ones too, largest wait first. */
TEST(wakers_named_and_sorted)
{
	static const char *const names[] = { "flush", "update_stats" };
	struct timeline_wakers tw = { 4, {
		{ 0, 100, 0 }, { TL_NO_FUNC, 50, 0 }, { 1, 900, 0 },
		{ TL_WAKER_OTHER, 70, 0 } } };
	struct report_waker out[TL_WAKERS + 1];

	ASSERT_EQ(report_wakers(out, &tw, waker_name, names, NULL, NULL), 4);
	EXPECT_STREQ(out[0].function, "update_stats");
	EXPECT_EQ(out[0].wait_ns, 900);
	EXPECT_STREQ(out[1].function, "flush");
	EXPECT_STREQ(out[2].function, "(other)");
	EXPECT_STREQ(out[3].function, "(untraced)");
	EXPECT_EQ(out[3].wait_ns, 50);
	/* An id with no name (a function of another session): one more. */
	tw.w[0].func = 7;
	ASSERT_EQ(report_wakers(out, &tw, waker_name, names, NULL, NULL), 3);
	EXPECT_STREQ(out[1].function, "(untraced)");
	EXPECT_EQ(out[1].wait_ns, 150);
}

/* Call sites in update_stats (0x1010, 0x1040) and in flush (0x2010). */
static int caller_name(void *ctx, uint64_t addr, bool offset, char *buf,
		       size_t len)
{
	int *calls = ctx;

	(*calls)++;
	if (offset)
		return -1;
	if (addr > 0x1000 && addr <= 0x1100)
		return snprintf(buf, len, "update_stats");
	if (addr > 0x2000 && addr <= 0x2100)
		return snprintf(buf, len, "flush");
	return -1;
}

/*
 * With --sync alone, a wake inside pthread_mutex_unlock is credited to
 * its return address: all the call sites of one function add up, and
 * with the traced function of that name too.  One not named is untraced.
 */
TEST(wakers_named_by_call_site)
{
	static const char *const names[] = { "flush", "update_stats" };
	struct timeline_wakers tw = { 6, {
		{ TL_NO_FUNC, 20, 0x2010 }, { TL_NO_FUNC, 500, 0x1010 },
		{ TL_NO_FUNC, 400, 0x1040 }, { 0, 30, 0 },
		{ TL_NO_FUNC, 7, 0x9000 }, { TL_NO_FUNC, 3, 0 } } };
	struct report_waker out[TL_WAKERS + 1];
	int calls = 0;

	ASSERT_EQ(report_wakers(out, &tw, waker_name, names, caller_name,
				&calls), 3);
	EXPECT_EQ(calls, 4);
	EXPECT_STREQ(out[0].function, "update_stats");
	EXPECT_EQ(out[0].wait_ns, 900);
	EXPECT_STREQ(out[1].function, "flush");
	EXPECT_EQ(out[1].wait_ns, 50);
	EXPECT_STREQ(out[2].function, "(untraced)");
	EXPECT_EQ(out[2].wait_ns, 10);
	/* The names travelled with the entries the sort moved. */
	EXPECT_TRUE(out[0].function == out[0].caller);
	/* No way to name call sites: untraced, all of them. */
	ASSERT_EQ(report_wakers(out, &tw, waker_name, names, NULL, NULL), 2);
	EXPECT_STREQ(out[0].function, "(untraced)");
	EXPECT_EQ(out[0].wait_ns, 930);
}

/* The futex line names the waiters' and the wakers' functions. */
TEST(text_futex_woken_from)
{
	struct scenario s;
	char *text;

	scenario_build(&s);
	text = render_text(&s.rep, 0);
	EXPECT_TRUE(strstr(text, "futex 0x55d0c0de1040 app:gm_lock: waited ") !=
		    NULL);
	EXPECT_TRUE(strstr(text, "in acquire, compute_chunk; woken from "
			   "update_stats (90%), flush (10%)\n") != NULL);
	/* No wakers, no clause. */
	EXPECT_TRUE(strstr(text, ") in acquire\n") != NULL);
	free(text);
	scenario_free(&s);
}

/* Quotes, backslashes and control characters survive a round trip. */
TEST(json_escapes_hostile_strings)
{
	static const char name[] = "we\"ird\\na\x01me\n\t\x1f/end";
	static const char object[] = "/tmp/dir \"x\"/lib\\a.so";
	static const char cmd[] = "app\r\x7f";
	static const char note[] = "note: \"quoted\"\b";
	struct report_func hostile[NR_FUNCS];
	const char *notes[] = { note };
	const struct json_value *v, *a;
	struct scenario s;
	size_t i;
	bool seen = false;

	scenario_build(&s);
	memcpy(hostile, funcs, sizeof(hostile));
	hostile[F_COMPUTE].name = name;
	hostile[F_COMPUTE].object = object;
	s.rep.funcs = hostile;
	s.rep.command = cmd;
	s.rep.notes = notes;
	s.rep.nr_notes = 1;
	v = parse_report(&s.rep);
	EXPECT_STREQ(field_str(field(v, "target", JSON_OBJ), "command"), cmd);
	a = field(v, "functions", JSON_ARR);
	for (i = 0; i < a->n; i++) {
		if (s.sci->funcs[i].func_id != F_COMPUTE)
			continue;
		EXPECT_STREQ(field_str(&a->items[i], "name"), name);
		EXPECT_STREQ(field_str(&a->items[i], "object"), object);
		seen = true;
	}
	EXPECT_TRUE(seen);
	a = field(v, "notes", JSON_ARR);
	ASSERT_EQ(a->n, 1);
	EXPECT_STREQ(a->items[0].s, note);
	scenario_free(&s);
}

/* C++: "name" demangled, "linkage_name" mangled; C: both the name. */
TEST(json_linkage_name)
{
	struct report_func cxx[NR_FUNCS];
	const struct json_value *v, *a;
	struct scenario s;
	size_t i, seen = 0;

	scenario_build(&s);
	memcpy(cxx, funcs, sizeof(cxx));
	cxx[F_COMPUTE].name = "ns::Pool::compute(int)";
	cxx[F_COMPUTE].linkage_name = "_ZN2ns4Pool7computeEi";
	s.rep.funcs = cxx;
	v = parse_report(&s.rep);
	a = field(v, "functions", JSON_ARR);
	for (i = 0; i < a->n; i++) {
		const struct json_value *fn = &a->items[i];

		if (s.sci->funcs[i].func_id == F_COMPUTE) {
			EXPECT_STREQ(field_str(fn, "name"),
				     "ns::Pool::compute(int)");
			EXPECT_STREQ(field_str(fn, "linkage_name"),
				     "_ZN2ns4Pool7computeEi");
			seen++;
		} else if (s.sci->funcs[i].func_id == F_FLUSH) {
			EXPECT_STREQ(field_str(fn, "name"), "flush_log");
			EXPECT_STREQ(field_str(fn, "linkage_name"),
				     "flush_log");
			seen++;
		}
	}
	EXPECT_EQ(seen, 2);
	scenario_free(&s);
}

/* The table row that contains needle. */
static const char *row_containing(const struct lines *l, const char *needle)
{
	size_t i;

	for (i = l->header + 1; i < l->end; i++)
		if (strstr(l->line[i], needle))
			return l->line[i];
	TH_LOG("no row with '%s'", needle);
	ASSERT_TRUE(0);
	return NULL;
}

/* The width of that row up to its OBJECT column ("app"). */
static size_t row_span(const struct lines *l, const char *needle)
{
	const char *row = row_containing(l, needle);
	const char *obj = strstr(row, "  app");

	ASSERT_TRUE(obj);
	return (size_t)(obj - row) + 5;
}

/*
 * A long C++ name that keeps its parameters (an overload of a traced
 * function) is elided to the width asked for: its parameter list first,
 * then its middle; a short name too long is cut in the middle.  Without a
 * width (a pipe), names are short but never elided; with --wide and in
 * JSON they are whole.
 */
TEST(text_long_names_elided)
{
	static const char long_name[] =
		"rocksdb::lru_cache::LRUCacheShard::Lookup(rocksdb::Slice const&, unsigned int, rocksdb::Cache::CacheItemHelper const*, rocksdb::Cache::CreateContext*, rocksdb::Cache::Priority, rocksdb::Statistics*)";
	static const char longer[] =
		"rocksdb::lru_cache::very_long_namespace_name_for_testing::LRUCacheShardWithAVeryLongClassNameIndeed::LookupSomethingElse(int)";
	struct report_func cxx[NR_FUNCS];
	struct scenario s;
	const char *row;
	struct lines l;
	char *text;

	scenario_build(&s);
	memcpy(cxx, funcs, sizeof(cxx));
	cxx[F_COMPUTE].name = long_name;
	cxx[F_FLUSH].name = longer;
	/* An overload: Lookup keeps its parameters. */
	cxx[F_ACQUIRE].name = "rocksdb::lru_cache::LRUCacheShard::Lookup(int)";
	s.rep.funcs = cxx;

	s.rep.width = 148;
	text = render_text(&s.rep, 0);
	EXPECT_TRUE(strstr(text,
			   "  rocksdb::lru_cache::LRUCacheShard::Lookup(...)  "));
	EXPECT_FALSE(strstr(text, longer));
	split(text, &l);	/* cuts text into lines */
	EXPECT_LE(row_span(&l, "Lookup(...)"), 148);
	/* Too long even without parameters: the middle goes. */
	EXPECT_LE(row_span(&l, "[callsite]"), 148);
	row = row_containing(&l, "[callsite]");
	EXPECT_EQ(strncmp(strstr(row, "rocksdb"), "rocksdb::lru_cache::very",
			  24), 0);
	EXPECT_TRUE(strstr(row, "...") && strstr(row, "Else [callsite]"));
	free(text);

	/* Not a terminal and no width: nothing elided, as perf in a pipe. */
	s.rep.width = 0;
	text = render_text(&s.rep, 0);
	EXPECT_TRUE(strstr(text, long_name));
	EXPECT_FALSE(strstr(text, longer));
	EXPECT_TRUE(strstr(text, "::LookupSomethingElse [callsite]"));
	free(text);

	/* --wide: whole, whatever the width. */
	s.rep.width = 140;
	s.rep.wide = true;
	text = render_text(&s.rep, 0);
	EXPECT_TRUE(strstr(text, long_name));
	EXPECT_TRUE(strstr(text, longer));
	free(text);

	s.rep.width = 140;
	text = render_json(&s.rep, &(size_t){ 0 });
	EXPECT_TRUE(strstr(text, long_name));
	EXPECT_TRUE(strstr(text, longer));
	free(text);
	scenario_free(&s);
}

/* A score the engine could not compute is still a JSON number. */
TEST(json_nonfinite_scores_are_numbers)
{
	struct sci_result res = {
		.func_id = F_COMPUTE, .nr_keys = 1, .calls = 1, .threads = 1,
		.mean_ns = NAN, .sci = NAN, .sci_worst_thread = INFINITY,
	};
	struct sci_report sci = { .nr_funcs = 1, .funcs = &res };
	struct report rep = {
		.pid = 1, .command = "x", .sci = &sci, .funcs = funcs,
		.nr_funcs = NR_FUNCS,
	};
	const struct json_value *v, *fn;

	v = parse_report(&rep);
	ASSERT_EQ(field(v, "functions", JSON_ARR)->n, 1);
	fn = &field(v, "functions", JSON_ARR)->items[0];
	EXPECT_EQ(field_num(fn, "sci"), 0);
	EXPECT_EQ(field_num(fn, "sci_worst_thread"), 0);
	EXPECT_EQ(field_u64(fn, "mean_ns"), 0);
}

/* A full disk is an error the caller hears about, not a short file. */
TEST(write_error_is_returned)
{
	struct scenario s;
	FILE *f;

	f = fopen("/dev/full", "w");
	if (!f)
		SKIP("no /dev/full");
	scenario_build(&s);
	EXPECT_EQ(report_json(f, &s.rep), -ENOSPC);
	fclose(f);
	f = fopen("/dev/full", "w");
	ASSERT_TRUE(f);
	EXPECT_EQ(report_text(f, &s.rep, 0), -ENOSPC);
	fclose(f);
	scenario_free(&s);
}

TEST(format_pct)
{
	char buf[16];

	EXPECT_STREQ(report_format_pct(buf, sizeof(buf), 0.612), "61.2%");
	EXPECT_STREQ(report_format_pct(buf, sizeof(buf), 1.0), "100.0%");
	EXPECT_STREQ(report_format_pct(buf, sizeof(buf), 0.0), "0.0%");
	EXPECT_STREQ(report_format_pct(buf, sizeof(buf), 0.0035), "0.35%");
	EXPECT_STREQ(report_format_pct(buf, sizeof(buf), 0.00001), "<0.01%");
	EXPECT_STREQ(report_format_pct(buf, sizeof(buf), NAN), "0.0%");
}

/* Header naming the target, every column, the functions, basenames. */
TEST(text_header_and_columns)
{
	static const char *const headers[] = {
		"SCI", "LOSS", "CALLS", "THREADS", "MIN", "P50", "P99", "MAX",
		"WORST@TID", "FUNCTION", "OBJECT",
	};
	char dur[32], pid[32], *text;
	const char *p;
	struct scenario s;
	struct lines l;
	size_t i;

	scenario_build(&s);
	text = render_text(&s.rep, 0);
	split(text, &l);
	ASSERT_GT(l.n, 2);
	format_ns(dur, sizeof(dur), TRACE_END);
	snprintf(pid, sizeof(pid), "pid %d", PID);
	EXPECT_TRUE(strstr(l.line[0], "app") != NULL);
	EXPECT_TRUE(strstr(l.line[0], pid) != NULL);
	EXPECT_TRUE(strstr(l.line[0], dur) != NULL);
	EXPECT_TRUE(strstr(l.line[0], "3 of 4 probed functions") != NULL);
	ASSERT_EQ(l.header, 1);
	for (p = l.line[l.header], i = 0; i < 11; i++) {
		const char *h = strstr(p, headers[i]);

		if (!h)
			TH_LOG("column %s missing or out of order", headers[i]);
		ASSERT_TRUE(h);
		p = h + strlen(headers[i]);
	}
	for (i = 0; i < s.sci->nr_funcs; i++)
		EXPECT_GE(row_of(&l, funcs[s.sci->funcs[i].func_id].name), 0);
	EXPECT_EQ(row_of(&l, "never_called"), -1);
	/* Objects by basename: the directories are noise in a table. */
	for (i = 0; i < l.n; i++)
		EXPECT_TRUE(strstr(l.line[i], "/usr/lib/") == NULL);
	ASSERT_GE(row_of(&l, "acquire"), 0);
	EXPECT_TRUE(strstr(l.line[row_of(&l, "acquire")], " libapp.so.1") !=
		    NULL);
	free(text);
	scenario_free(&s);
}

/* Rows in SCI order, and each row's cells are that function's numbers. */
TEST(text_rows_sorted_and_valued)
{
	char tok[16][CELL_MAX_TEST], want[64], pct[16], *text;
	struct scenario s;
	struct lines l;
	int prev = -1;
	size_t i;

	scenario_build(&s);
	text = render_text(&s.rep, 0);
	split(text, &l);
	for (i = 0; i < s.sci->nr_funcs; i++) {
		const struct sci_result *res = &s.sci->funcs[i];
		int row = row_of(&l, funcs[res->func_id].name);

		ASSERT_GT(row, prev);
		prev = row;
		ASSERT_GT(tokens(l.line[row], tok, 16), 10);
		EXPECT_STREQ(tok[0], report_format_pct(want, sizeof(want),
						       res->sci));
		report_interference_cell(res, want, sizeof(want));
		EXPECT_STREQ(tok[1], want);
		EXPECT_STREQ(tok[2], format_ns(want, sizeof(want),
					       res->loss_ns));
		snprintf(want, sizeof(want), "%" PRIu64, res->calls);
		EXPECT_STREQ(tok[3], want);
		snprintf(want, sizeof(want), "%" PRIu32, res->threads);
		EXPECT_STREQ(tok[4], want);
		EXPECT_STREQ(tok[5], format_ns(want, sizeof(want),
					       res->min_ns));
		EXPECT_STREQ(tok[6], format_ns(want, sizeof(want),
					       res->p50_ns));
		EXPECT_STREQ(tok[7], format_ns(want, sizeof(want),
					       res->p99_ns));
		EXPECT_STREQ(tok[8], format_ns(want, sizeof(want),
					       res->max_ns));
		report_format_pct(pct, sizeof(pct), res->sci_worst_thread);
		snprintf(want, sizeof(want), "%s@%" PRIu32, pct,
			 res->worst_tid);
		EXPECT_STREQ(tok[9], want);
	}
	/* The ranking is real: not every function scores the same. */
	EXPECT_TRUE(s.sci->funcs[0].sci > s.sci->funcs[2].sci);
	free(text);
	scenario_free(&s);
}

/*
 * The causes column names the largest share of a function's loss, and
 * stays empty for functions whose executions carried no causes.
 */
TEST(text_causes_column)
{
	static const char *const names[] = {
		"futex", "blocked", "runqueue", "on-cpu",
	};
	const struct sci_result *res = NULL;
	char want[64], *text;
	struct scenario s;
	struct lines l;
	int k, best = 0, row;
	size_t i;

	scenario_build(&s);
	text = render_text(&s.rep, 0);
	split(text, &l);
	EXPECT_TRUE(strstr(l.line[l.header], "LOSS BY CAUSE") != NULL);
	for (i = 0; i < s.sci->nr_funcs; i++)
		if (s.sci->funcs[i].func_id == F_COMPUTE)
			res = &s.sci->funcs[i];
	ASSERT_TRUE(res);
	ASSERT_GT(res->caused_calls, 0);
	for (k = 1; k < SCI_NR_CAUSES; k++)
		if (res->cause_loss_ns[k] > res->cause_loss_ns[best])
			best = k;
	if (res->unknown_loss_ns > res->cause_loss_ns[best])
		snprintf(want, sizeof(want), "? %.0f%%",
			 100.0 * res->unknown_loss_ns / res->loss_ns);
	else
		snprintf(want, sizeof(want), "%s %.0f%%", names[best],
			 100.0 * res->cause_loss_ns[best] / res->loss_ns);
	row = row_of(&l, "compute_chunk");
	ASSERT_GE(row, 0);
	if (!strstr(l.line[row], want))
		TH_LOG("'%s' lacks '%s'", l.line[row], want);
	EXPECT_TRUE(strstr(l.line[row], want) != NULL);
	row = row_of(&l, "flush_log");
	ASSERT_GE(row, 0);
	for (k = 0; k < SCI_NR_CAUSES; k++)
		EXPECT_TRUE(strstr(l.line[row], names[k]) == NULL);
	free(text);
	scenario_free(&s);
}

/*
 * Slower calls that waited less than the fastest one (its futex part
 * negative): the other parts are shares of the time above the fastest
 * call, never over 100%, and the cause below it is named.
 */
TEST(text_causes_with_a_negative_part)
{
	struct sci_result res = {
		.func_id = F_COMPUTE, .nr_keys = 1, .calls = 10, .threads = 2,
		.loss_ns = 335, .caused_calls = 10,
		.cause_loss_ns = { [SCI_CAUSE_FUTEX] = -300,
				   [SCI_CAUSE_ONCPU] = 600 },
		.unknown_loss_ns = 35,
	};
	struct sci_report sci = { .nr_funcs = 1, .funcs = &res };
	struct report rep = {
		.pid = 1, .command = "x", .sci = &sci, .funcs = funcs,
		.nr_funcs = NR_FUNCS,
	};
	char *text = render_text(&rep, 0);
	const char *want = "on-cpu 94%, ? 6% (futex less than the fastest call)";

	if (!strstr(text, want))
		TH_LOG("'%s' lacks '%s'", text, want);
	EXPECT_TRUE(strstr(text, want) != NULL);
	EXPECT_TRUE(strstr(text, "179%") == NULL);
	free(text);
}

/* Numbers end under their header's last letter, names start under it. */
TEST(text_columns_aligned)
{
	static const char *const right[] = {
		"SCI", "LOSS", "CALLS", "THREADS", "MIN", "P50", "P99", "MAX",
		"WORST@TID",
	};
	const char *hdr;
	struct scenario s;
	struct lines l;
	size_t i, c, fcol, ocol;
	char *text;

	scenario_build(&s);
	text = render_text(&s.rep, 0);
	split(text, &l);
	hdr = l.line[l.header];
	fcol = strstr(hdr, "FUNCTION") - hdr;
	ocol = strstr(hdr, "OBJECT") - hdr;
	ASSERT_GT(l.end, l.header + s.sci->nr_funcs);
	for (i = l.header + 1; i < l.end; i++) {
		const char *row = l.line[i];
		size_t len = strlen(row);

		EXPECT_EQ(row[len - 1] != ' ', 1);	/* no trailing blank */
		ASSERT_GT(len, fcol);
		EXPECT_EQ(row[fcol - 1], ' ');
		if (strstr(row, "more keys"))
			continue;
		for (c = 0; c < sizeof(right) / sizeof(right[0]); c++) {
			size_t end = strstr(hdr, right[c]) - hdr +
				     strlen(right[c]);

			EXPECT_NE(row[end - 1], ' ');
			EXPECT_EQ(row[end], ' ');
		}
		if (row[fcol] != ' ') {		/* a function row */
			ASSERT_GT(len, ocol);
			EXPECT_EQ(row[ocol - 1], ' ');
			EXPECT_NE(row[ocol], ' ');
		} else {			/* a key row, indented by two */
			EXPECT_EQ(row[fcol + 1], ' ');
			EXPECT_NE(row[fcol + 2], ' ');
		}
	}
	free(text);
	scenario_free(&s);
}

/* Up to REPORT_TEXT_KEYS keys under a keyed function, best first. */
TEST(text_key_rows)
{
	char tok[16][CELL_MAX_TEST], want[64], *text;
	struct scenario s;
	struct lines l;
	size_t b, k = 0;
	int row;

	scenario_build(&s);
	text = render_text(&s.rep, 0);
	split(text, &l);
	row = row_of(&l, "acquire");
	ASSERT_GE(row, 0);
	EXPECT_TRUE(strstr(l.line[row], "acquire [arg0]") != NULL);
	for (b = 0; b < s.sci->nr_blocks && k < REPORT_TEXT_KEYS; b++) {
		const struct sci_result *blk = &s.sci->blocks[b];

		if (blk->func_id != F_ACQUIRE)
			continue;
		k++;
		ASSERT_GT(tokens(l.line[row + k], tok, 16), 10);
		key_name(NULL, blk->func_id, blk->key, want, sizeof(want));
		EXPECT_STREQ(tok[10], want);
		EXPECT_STREQ(tok[0], report_format_pct(want, sizeof(want),
						       blk->sci));
		snprintf(want, sizeof(want), "%" PRIu64, blk->calls);
		EXPECT_STREQ(tok[3], want);
	}
	ASSERT_EQ(k, REPORT_TEXT_KEYS);
	snprintf(want, sizeof(want), "(+%d more keys", ACQUIRE_KEYS -
		 REPORT_TEXT_KEYS);
	EXPECT_TRUE(strstr(l.line[row + k + 1], want) != NULL);
	/* One key is no breakdown: flush_log's call site is not listed. */
	EXPECT_GE(row_of(&l, "flush_log"), 0);
	EXPECT_TRUE(strstr(text, "k4198964/f3") == NULL);	/* 0x401234 */
	free(text);
	scenario_free(&s);
}

/* More than 1% dropped or unpaired warns, with what to do; less does not. */
TEST(warnings_threshold)
{
	char w[4][REPORT_WARNING_LEN];
	struct report r = { .recorded = 9800, .dropped = 200 };

	ASSERT_EQ(report_warnings(&r, w, 4), 1);	/* 2% */
	EXPECT_TRUE(strstr(w[0], "dropped") != NULL);
	EXPECT_TRUE(strstr(w[0], "--ring-size") != NULL);
	EXPECT_TRUE(strstr(w[0], "--sample") != NULL);
	r.dropped = 50;					/* 0.5% */
	EXPECT_EQ(report_warnings(&r, w, 4), 0);
	r.recorded = 9900;
	r.dropped = 100;				/* exactly 1% */
	EXPECT_EQ(report_warnings(&r, w, 4), 0);
	r.dropped = 101;
	EXPECT_EQ(report_warnings(&r, w, 4), 1);
	r.dropped = 0;
	r.unpaired = 300;
	ASSERT_EQ(report_warnings(&r, w, 4), 1);
	EXPECT_TRUE(strstr(w[0], "longjmp") != NULL);
	r.dropped = 500;
	EXPECT_EQ(report_warnings(&r, w, 4), 2);
	EXPECT_EQ(report_warnings(&r, w, 1), 1);
	EXPECT_EQ(report_warnings(&r, w, 0), 0);
	memset(&r, 0, sizeof(r));
	EXPECT_EQ(report_warnings(&r, w, 4), 0);
	/*
	 * A recording stopped at --max-size holds 9,800 of the session's
	 * 98,000 records; its 200 drops are the session's: 0.2%, no warning
	 * (set against the file's records they read as 2%).
	 */
	r.recorded = 9800;
	r.dropped = 200;
	r.drop_base = 98000;
	EXPECT_EQ(report_warnings(&r, w, 4), 0);
	r.dropped = 2000;				/* 2% */
	ASSERT_EQ(report_warnings(&r, w, 4), 1);
	EXPECT_TRUE(strstr(w[0], "(2000 of 100000)") != NULL);
}

/*
 * Blocks that admitted calls, none timing out, and made no reference:
 * threads inside calls longer than a block kept every call from running
 * alone (xz's workers and its main thread's waits); the warning says a
 * longer run will not help.  Not with a reference, nor when every block
 * timed out (the other warning says why then).
 */
TEST(warnings_solo_crowded)
{
	char w[4][REPORT_WARNING_LEN];
	struct solo_stats solo = { .blocks = 17, .contaminated = 2,
				   .gated_calls = 31930, .crowded = 17,
				   .longest_block_ns = 200000000 };
	struct report r = { .recorded = 1000, .solo = &solo };

	ASSERT_EQ(report_warnings(&r, w, 4), 1);
	EXPECT_TRUE(strstr(w[0], "none ran alone") != NULL);
	EXPECT_TRUE(strstr(w[0], "17 began with a thread") != NULL);
	EXPECT_TRUE(strstr(w[0], "a longer run will not help") != NULL);
	solo.reference_calls = 30;
	EXPECT_EQ(report_warnings(&r, w, 4), 0);
	solo.reference_calls = 0;
	solo.contaminated = solo.blocks;
	ASSERT_EQ(report_warnings(&r, w, 4), 1);
	EXPECT_TRUE(strstr(w[0], "timed out") != NULL);
	solo.contaminated = 0;
	solo.crowded = 0;
	EXPECT_EQ(report_warnings(&r, w, 4), 0);
	/* One crowded block of 17 explains nothing: no warning. */
	solo.crowded = 1;
	EXPECT_EQ(report_warnings(&r, w, 4), 0);
}

/* The same warnings in the table's footer and in JSON, only when due. */
TEST(warnings_in_text_and_json)
{
	char *text, line[128];
	const struct json_value *v;
	struct scenario s;

	scenario_build(&s);
	/* 0.5% lost: counted in the footer, not warned about. */
	s.rep.dropped = s.rep.recorded / 199;
	text = render_text(&s.rep, 0);
	EXPECT_TRUE(strstr(text, "warning:") == NULL);
	snprintf(line, sizeof(line), "%" PRIu64 " dropped (", s.rep.dropped);
	EXPECT_TRUE(strstr(text, line) != NULL);
	EXPECT_EQ(field(parse_report(&s.rep), "warnings", JSON_ARR)->n, 0);
	free(text);

	s.rep.dropped = s.rep.recorded / 49;		/* 2% */
	s.rep.unpaired = s.rep.recorded / 30;
	text = render_text(&s.rep, 0);
	EXPECT_TRUE(strstr(text, "warning: ") != NULL);
	EXPECT_TRUE(strstr(text, "--ring-size") != NULL);
	EXPECT_TRUE(strstr(text, "longjmp") != NULL);
	snprintf(line, sizeof(line), "%" PRIu64 " unpaired (", s.rep.unpaired);
	EXPECT_TRUE(strstr(text, line) != NULL);
	v = parse_report(&s.rep);
	ASSERT_EQ(field(v, "warnings", JSON_ARR)->n, 2);
	EXPECT_TRUE(strstr(field(v, "warnings", JSON_ARR)->items[0].s,
			   "--ring-size") != NULL);
	free(text);
	scenario_free(&s);
}

TEST(empty_function_list)
{
	struct sci_engine *e = sci_new();
	struct report rep = {
		.pid = 7, .command = "idle", .duration_ns = 1000000000,
		.funcs = funcs, .nr_funcs = NR_FUNCS,
	};
	struct sci_report *sci;
	const struct json_value *v;
	char *text;

	ASSERT_TRUE(e);
	sci_finish(e, 1000000000);
	sci = sci_report(e, 0);
	ASSERT_TRUE(sci);
	rep.sci = sci;
	text = render_text(&rep, 0);
	EXPECT_TRUE(strstr(text, "no probed function was called") != NULL);
	EXPECT_TRUE(strstr(text, "FUNCTION") == NULL);
	EXPECT_TRUE(strstr(text, "0 recorded") != NULL);
	EXPECT_TRUE(strstr(text, "0 of 4 probed functions") != NULL);
	v = parse_report(&rep);
	EXPECT_EQ(field(v, "functions", JSON_ARR)->n, 0);
	EXPECT_EQ(field(v, "threads", JSON_ARR)->n, 0);
	EXPECT_EQ(field(v, "futexes", JSON_ARR)->n, 0);
	EXPECT_EQ(field(v, "counters", JSON_OBJ)->n, 0);
	free(text);
	sci_report_free(sci);
	sci_free(e);
}

/* max_rows keeps the best functions and says how many it left out. */
TEST(text_max_rows)
{
	struct scenario s;
	struct lines l;
	char *text;

	scenario_build(&s);
	text = render_text(&s.rep, 1);
	EXPECT_TRUE(strstr(text, "(+2 more functions") != NULL);
	split(text, &l);
	EXPECT_GE(row_of(&l, funcs[s.sci->funcs[0].func_id].name), 0);
	EXPECT_EQ(row_of(&l, funcs[s.sci->funcs[1].func_id].name), -1);
	EXPECT_EQ(row_of(&l, funcs[s.sci->funcs[2].func_id].name), -1);
	free(text);
	text = render_text(&s.rep, 3);
	EXPECT_TRUE(strstr(text, "more functions") == NULL);
	free(text);
	scenario_free(&s);
}

/* ---- counters ---- */

/* One execution with cpu-clock (slot 0) and page-faults (slot 1). */
static void counted(struct excess *x, uint32_t func, uint64_t key,
		    uint64_t ns, uint32_t valid, uint64_t cpu_ns,
		    uint64_t faults)
{
	struct pair_exec e;

	memset(&e, 0, sizeof(e));
	e.tid = threads[0].tid;
	e.entry_ts = 5000000;
	e.exit_ts = e.entry_ts + ns;
	e.nr_counters = 2;
	e.counters_valid = valid;
	e.counter_delta[0] = cpu_ns;
	e.counter_delta[1] = faults;
	ASSERT_EQ(excess_add(x, func, key, &e), 0);
}

/*
 * flush_log, 12 executions with counters:
 *   9 of 2us, both valid: 1.9us on CPU, 2 faults;
 *   1 of 50us, both valid: 48us, 12 faults;
 *   1 of 3us, only page-faults valid: 2 faults;
 *   1 of 100ns, neither valid.
 * cpu-clock: 10 valid, mean (9 * 1900 + 48000) / 10 = 6510, the fastest
 * 10% are the 2us bucket: 1900, excess 4610 = "+4.61us (1.90us)".
 * page-faults: 11 valid, mean 32 / 11, fastest 2 (the 2us bucket),
 * excess 10 / 11 = "+0.909 (2)".
 * acquire, 3 executions with counters, none valid: "0/3" and "-".
 * compute_chunk has none.
 */
#define FLUSH_CALLS		12
#define FLUSH_CPU_VALID		10
#define FLUSH_CPU_MEAN		6510.0
#define FLUSH_CPU_FASTEST	1900.0
#define FLUSH_PF_VALID		11
#define FLUSH_PF_MEAN		(32.0 / 11)
#define FLUSH_PF_FASTEST	2.0

static struct excess *scenario_counters(struct scenario *s)
{
	struct excess *x = excess_new();
	int i;

	ASSERT_TRUE(x);
	for (i = 0; i < 9; i++)
		counted(x, F_FLUSH, 0x401234, 2000, 0x3, 1900, 2);
	counted(x, F_FLUSH, 0x401234, 50000, 0x3, 48000, 12);
	counted(x, F_FLUSH, 0x401234, 3000, 0x2, 999999999, 2);
	counted(x, F_FLUSH, 0x401234, 100, 0x0, 999999999, 999999);
	for (i = 0; i < 3; i++)
		counted(x, F_ACQUIRE, 0x1000 + 0x40 * i, 1000, 0x0, 5, 5);
	s->rep.excess = x;
	return x;
}

static int line_of(const struct lines *l, const char *text)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->line[i], text))
			return (int)i;
	return -1;
}

static int line_starting(const struct lines *l, const char *prefix)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strncmp(l->line[i], prefix, strlen(prefix)))
			return (int)i;
	return -1;
}

/* Which counters are counted, and which the machine could not count. */
TEST(text_counter_support_lines)
{
	static const struct report_counter sw_missing[] = {
		{ "cpu-clock", true, false, true, 0 },
		{ "cycles", false, true, false, -1 },
		{ "page-faults", false, false, false, -1 },
		{ "raw:0x1cd", false, true, false, -1 },
		{ "instructions", true, true, false, 1 },
	};
	struct scenario s;
	struct lines l;
	char *text;

	scenario_build(&s);
	text = render_text(&s.rep, 0);
	split(text, &l);
	EXPECT_GE(line_of(&l, "counters: cpu-clock, page-faults"), 0);
	EXPECT_GE(line_of(&l, "hardware counters: unsupported (cycles)"), 0);
	EXPECT_EQ(line_starting(&l, "counters unsupported"), -1);
	free(text);

	s.rep.counters = sw_missing;
	s.rep.nr_counters = sizeof(sw_missing) / sizeof(sw_missing[0]);
	text = render_text(&s.rep, 0);
	split(text, &l);
	EXPECT_GE(line_of(&l, "counters: cpu-clock, instructions"), 0);
	EXPECT_GE(line_of(&l, "hardware counters: unsupported (cycles, "
			  "raw:0x1cd)"), 0);
	EXPECT_GE(line_of(&l, "counters unsupported: page-faults"), 0);
	free(text);

	/* None asked: no such lines. */
	s.rep.counters = NULL;
	s.rep.nr_counters = 0;
	text = render_text(&s.rep, 0);
	split(text, &l);
	EXPECT_EQ(line_starting(&l, "counters"), -1);
	EXPECT_EQ(line_starting(&l, "hardware counters"), -1);
	free(text);
	scenario_free(&s);
}

/* The excess table: its header, one row per function with counters. */
TEST(text_excess_table)
{
	char tok[16][CELL_MAX_TEST], want[64];
	struct excess *x;
	struct scenario s;
	struct lines l;
	int title, hdr, flush = -1, acquire = -1, order_flush = -1,
	    order_acquire = -1;
	size_t i, k;
	char *text;

	scenario_build(&s);
	x = scenario_counters(&s);
	text = render_text(&s.rep, 0);
	split(text, &l);
	title = line_starting(&l, "ON-CPU EXCESS PER CALL");
	ASSERT_GE(title, 0);
	EXPECT_TRUE(strstr(l.line[title], "fastest 10%") != NULL);
	/* After the main table. */
	EXPECT_GE(title, (int)l.end);
	hdr = title + 1;
	ASSERT_LT(hdr, (int)l.n);
	ASSERT_EQ(tokens(l.line[hdr], tok, 16), 4);
	EXPECT_STREQ(tok[0], "FUNCTION");
	EXPECT_STREQ(tok[1], "VALID");
	EXPECT_STREQ(tok[2], "cpu-clock");
	EXPECT_STREQ(tok[3], "page-faults");	/* not cycles: no slot */

	for (i = hdr + 1; i < l.n; i++) {
		size_t n = tokens(l.line[i], tok, 16);

		if (n && !strcmp(tok[0], "flush_log"))
			flush = i;
		else if (n && !strcmp(tok[0], "acquire"))
			acquire = i;
		else
			break;
	}
	ASSERT_GT(flush, hdr);
	ASSERT_GT(acquire, hdr);
	/* compute_chunk has no counter data: no row, and nothing else. */
	EXPECT_EQ((int)i, hdr + 3);

	ASSERT_EQ(tokens(l.line[flush], tok, 16), 6);
	snprintf(want, sizeof(want), "%d/%d", FLUSH_CPU_VALID, FLUSH_CALLS);
	EXPECT_STREQ(tok[1], want);
	EXPECT_STREQ(tok[2], "+4.61us");
	EXPECT_STREQ(tok[3], "(1.90us)");
	EXPECT_STREQ(tok[4], "+0.909");
	EXPECT_STREQ(tok[5], "(2)");

	ASSERT_EQ(tokens(l.line[acquire], tok, 16), 4);
	EXPECT_STREQ(tok[1], "0/3");
	EXPECT_STREQ(tok[2], "-");
	EXPECT_STREQ(tok[3], "-");

	/* Rows in the main table's order. */
	for (k = 0; k < s.sci->nr_funcs; k++) {
		if (s.sci->funcs[k].func_id == F_FLUSH)
			order_flush = k;
		if (s.sci->funcs[k].func_id == F_ACQUIRE)
			order_acquire = k;
	}
	EXPECT_EQ(flush < acquire, order_flush < order_acquire);

	/* Names from the left, the rest right-aligned under the headers. */
	for (i = hdr + 1; i < (size_t)hdr + 3; i++) {
		const char *h = l.line[hdr], *row = l.line[i];
		static const char *const cols[] = {
			"VALID", "cpu-clock", "page-faults",
		};

		EXPECT_NE(row[0], ' ');
		EXPECT_EQ(strlen(row), strlen(h));
		for (k = 0; k < 3; k++) {
			size_t end = strstr(h, cols[k]) - h + strlen(cols[k]);

			EXPECT_NE(row[end - 1], ' ');
			if (row[end])
				EXPECT_EQ(row[end], ' ');
		}
	}
	free(text);

	/* max_rows: only the functions the main table shows. */
	ASSERT_EQ(s.sci->funcs[0].func_id, F_COMPUTE);
	ASSERT_EQ(s.sci->funcs[1].func_id, F_ACQUIRE);
	text = render_text(&s.rep, 1);
	EXPECT_TRUE(strstr(text, "ON-CPU EXCESS") == NULL);
	free(text);
	text = render_text(&s.rep, 2);
	split(text, &l);
	title = line_starting(&l, "ON-CPU EXCESS PER CALL");
	ASSERT_GE(title, 0);
	ASSERT_LT(title + 2, (int)l.n);
	ASSERT_GE(tokens(l.line[title + 2], tok, 16), 1);
	EXPECT_STREQ(tok[0], "acquire");
	EXPECT_TRUE(strstr(text, "10/12") == NULL);
	free(text);
	excess_free(x);
	scenario_free(&s);
}

/* No counter data for any function shown: no table at all. */
TEST(text_excess_absent)
{
	struct excess *x = excess_new();
	struct scenario s;
	char *text;

	ASSERT_TRUE(x);
	scenario_build(&s);
	text = render_text(&s.rep, 0);
	EXPECT_TRUE(strstr(text, "ON-CPU EXCESS") == NULL);
	EXPECT_TRUE(strstr(text, "VALID") == NULL);
	free(text);
	/* Data only for a function that was never called. */
	counted(x, F_NEVER, 0, 1000, 0x3, 900, 1);
	s.rep.excess = x;
	text = render_text(&s.rep, 0);
	EXPECT_TRUE(strstr(text, "ON-CPU EXCESS") == NULL);
	EXPECT_TRUE(strstr(text, "never_called") == NULL);
	free(text);
	/* An empty excess. */
	excess_free(x);
	x = excess_new();
	ASSERT_TRUE(x);
	s.rep.excess = x;
	text = render_text(&s.rep, 0);
	EXPECT_TRUE(strstr(text, "ON-CPU EXCESS") == NULL);
	free(text);
	excess_free(x);
	scenario_free(&s);
}

/* The counter fields of a function in JSON, with the exact values. */
TEST(json_function_counters)
{
	const struct json_value *v, *a, *c, *o;
	struct excess *x;
	struct scenario s;
	size_t i, k, seen = 0;

	scenario_build(&s);
	x = scenario_counters(&s);
	v = parse_report(&s.rep);
	a = field(v, "functions", JSON_ARR);
	ASSERT_EQ(a->n, s.sci->nr_funcs);
	for (i = 0; i < a->n; i++) {
		const struct json_value *fn = &a->items[i];
		uint32_t id = s.sci->funcs[i].func_id;

		if (id == F_COMPUTE) {
			EXPECT_TRUE(json_get(fn, "counted_calls") == NULL);
			EXPECT_TRUE(json_get(fn, "counters") == NULL);
			seen++;
			continue;
		}
		c = field(fn, "counters", JSON_OBJ);
		/* The counted events only: cycles had no slot. */
		ASSERT_EQ(c->n, 2);
		EXPECT_STREQ(c->keys[0], "cpu-clock");
		EXPECT_STREQ(c->keys[1], "page-faults");
		if (id == F_ACQUIRE) {
			EXPECT_EQ(field_u64(fn, "counted_calls"), 3);
			for (k = 0; k < c->n; k++) {
				o = &c->items[k];
				EXPECT_EQ(field_u64(o, "valid_calls"), 0);
				EXPECT_EQ(field_num(o, "mean"), 0);
				EXPECT_EQ(field_num(o, "fastest_mean"), 0);
				EXPECT_EQ(field_num(o, "excess_per_call"), 0);
			}
			seen++;
			continue;
		}
		ASSERT_EQ(id, F_FLUSH);
		EXPECT_EQ(field_u64(fn, "counted_calls"), FLUSH_CALLS);
		o = field(c, "cpu-clock", JSON_OBJ);
		EXPECT_EQ(o->n, 4);
		EXPECT_EQ(field_u64(o, "valid_calls"), FLUSH_CPU_VALID);
		EXPECT_SCORE(field_num(o, "mean"), FLUSH_CPU_MEAN);
		EXPECT_SCORE(field_num(o, "fastest_mean"), FLUSH_CPU_FASTEST);
		EXPECT_SCORE(field_num(o, "excess_per_call"),
			     FLUSH_CPU_MEAN - FLUSH_CPU_FASTEST);
		o = field(c, "page-faults", JSON_OBJ);
		EXPECT_EQ(o->n, 4);
		EXPECT_EQ(field_u64(o, "valid_calls"), FLUSH_PF_VALID);
		EXPECT_SCORE(field_num(o, "mean"), FLUSH_PF_MEAN);
		EXPECT_SCORE(field_num(o, "fastest_mean"), FLUSH_PF_FASTEST);
		EXPECT_SCORE(field_num(o, "excess_per_call"),
			     FLUSH_PF_MEAN - FLUSH_PF_FASTEST);
		seen++;
	}
	EXPECT_EQ(seen, 3);
	/* The top-level support object is unchanged by it. */
	o = field(v, "counters", JSON_OBJ);
	EXPECT_EQ(o->n, 3);
	EXPECT_STREQ(field_str(o, "cycles"), "unsupported");
	excess_free(x);
	scenario_free(&s);
}

/* Without counter data, no function has counter fields. */
TEST(json_no_counters_without_excess)
{
	const struct json_value *v, *a;
	struct scenario s;
	size_t i;

	scenario_build(&s);
	ASSERT_TRUE(s.rep.excess == NULL);
	v = parse_report(&s.rep);
	a = field(v, "functions", JSON_ARR);
	ASSERT_EQ(a->n, 3);
	for (i = 0; i < a->n; i++) {
		EXPECT_TRUE(json_get(&a->items[i], "counted_calls") == NULL);
		EXPECT_TRUE(json_get(&a->items[i], "counters") == NULL);
	}
	/* The support object is there all the same. */
	EXPECT_EQ(field(v, "counters", JSON_OBJ)->n, 3);
	scenario_free(&s);
}


/* ---- names that fit a terminal (issue 22 item 3) ---- */

#define PUT_SIG "leveldb::DB::Put(leveldb::WriteOptions const&, " \
		"leveldb::Slice const&, leveldb::Slice const&)"

/* The scenario's functions under C++ names, a pipe (no elision). */
static void cxx_names(struct scenario *s, struct report_func *cxx,
		      const char *compute, const char *flush)
{
	scenario_build(s);
	memcpy(cxx, funcs, sizeof(funcs));
	cxx[F_COMPUTE].name = compute;
	cxx[F_COMPUTE].linkage_name = "_ZN7leveldb2DB3PutERKNS_12WriteOptionsERKNS_5SliceES6_";
	cxx[F_FLUSH].name = flush;
	s->rep.funcs = cxx;
}

/*
 * The table says "leveldb::DB::Put": no parameter list, no template
 * arguments, no return type; an operator keeps its name whole.  JSON keeps
 * "name" as it was.
 */
TEST(text_cxx_name_shortened)
{
	struct report_func cxx[NR_FUNCS];
	struct scenario s;
	struct lines l;
	char *text;

	cxx_names(&s, cxx, PUT_SIG, "std::vector<int, std::allocator<int> >"
		  "::operator<(std::vector<int, std::allocator<int> > const&) "
		  "const");
	text = render_text(&s.rep, 0);
	TH_LOG("%s", text);
	EXPECT_FALSE(strstr(text, "WriteOptions"));
	EXPECT_TRUE(strstr(text, " std::vector::operator< [callsite] "));
	split(text, &l);
	EXPECT_GE(row_of(&l, "leveldb::DB::Put"), 0);
	free(text);
	text = render_json(&s.rep, &(size_t){ 0 });
	EXPECT_TRUE(strstr(text, "\"name\": \"" PUT_SIG "\""));
	free(text);
	scenario_free(&s);
}

/* Two traced overloads would read the same: both keep their parameters. */
TEST(text_cxx_overloads_keep_params)
{
	struct report_func cxx[NR_FUNCS];
	struct scenario s;
	char *text;

	cxx_names(&s, cxx, "ns::Pool::get(int)", "ns::Pool::get(long) const");
	cxx[F_ACQUIRE].name = "ns::Pool::acquire(int)";
	text = render_text(&s.rep, 0);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, " ns::Pool::get(int) "));
	EXPECT_TRUE(strstr(text, " ns::Pool::get(long) const [callsite] "));
	EXPECT_TRUE(strstr(text, " ns::Pool::acquire [arg0] "));
	free(text);
	scenario_free(&s);
}

/* --wide: every name whole, even on a narrow terminal. */
TEST(text_wide_keeps_whole_names)
{
	struct report_func cxx[NR_FUNCS];
	struct scenario s;
	char *text;

	cxx_names(&s, cxx, PUT_SIG, "flush_log");
	s.rep.wide = true;
	s.rep.width = 80;
	text = render_text(&s.rep, 0);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, " " PUT_SIG " "));
	free(text);
	scenario_free(&s);
}

/* No line of @text is wider than @width, but for one word alone. */
static void lines_fit(const char *text, int width)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchrnul(p, '\n'), *sp;
		int w = (int)(nl - p);

		sp = memchr(p, ' ', w);
		/* A row of the table may be wider: it is not a note. */
		if (w > width && sp && !strstr(p, "  ") &&
		    (!strncmp(p, "note", 4) || !strncmp(p, "warning", 7))) {
			TH_LOG("too wide: %.*s", w, p);
			ispot_test_fail(1);
		}
		p = *nl ? nl + 1 : nl;
	}
}

/*
 * A note longer than the width wraps at word boundaries with a hanging
 * indent, never cut: the suggestion at its end survives.
 */
TEST(text_notes_wrap)
{
	struct report_func cxx[NR_FUNCS];
	char note[512], *text, *all;
	const char *notes[1];
	struct scenario s;
	const char *p;

	cxx_names(&s, cxx, PUT_SIG, "flush_log");
	snprintf(note, sizeof(note), "%s made different probed calls from "
		 "one execution to another (a, b): --key %s=shape compares "
		 "like with like", PUT_SIG, PUT_SIG);
	cxx[F_COMPUTE].shape_note = note;
	notes[0] = note;
	s.rep.notes = notes;
	s.rep.nr_notes = 1;
	text = render_text(&s.rep, 0);
	TH_LOG("%s", text);
	lines_fit(text, 100);
	/* Wrapped: the continuation hangs under the first line's text. */
	p = strstr(text, "note: leveldb::DB::Put(");
	ASSERT_TRUE(p);
	ASSERT_TRUE(strchr(p, '\n'));
	EXPECT_EQ(strncmp(strchr(p, '\n') + 1, "        ", 8), 0);
	all = text_unwrapped(text);
	EXPECT_TRUE(strstr(all, "note: " PUT_SIG " made different probed "
			   "calls from one execution to another (a, b): --key "
			   PUT_SIG "=shape compares like with like "));
	free(all);
	free(text);

	/* A terminal's width, asked for. */
	s.rep.width = 60;
	text = render_text(&s.rep, 0);
	lines_fit(text, 60);
	free(text);
	scenario_free(&s);
}

/* ---- a report without noise (issue 22 item 5) ---- */

static const struct report_waker untraced_waker[] = {
	{ "(untraced)", 5000, "" },
};

/*
 * gm_lock: waited in acquire, woken from untraced code only; a word only
 * main waited on (pthread_join), waited in no traced function.
 */
static const struct report_futex quiet_futexes[] = {
	{ 0x55d0c0de1040ull, "app:gm_lock", 1234567, 89, 3, futex_funcs, 1,
	  untraced_waker, 1 },
	{ 0x7fd55ef1c990ull, "anon", 628000000, 1, 1, NULL, 0,
	  untraced_waker, 1 },
	{ 0x7fd55ef1c9a0ull, "anon", 1000, 1, 1, NULL, 0, NULL, 0 },
};

static void quiet_scenario(struct scenario *s)
{
	scenario_build(s);
	s->rep.futexes = quiet_futexes;
	s->rep.nr_futexes = 3;
}

/* Waited on outside the traced functions: hidden, counted in one line. */
TEST(text_untraced_futex_hidden_and_counted)
{
	const struct json_value *v, *a;
	struct scenario s;
	char *text;

	quiet_scenario(&s);
	text = render_text(&s.rep, 0);
	TH_LOG("%s", text);
	EXPECT_FALSE(strstr(text, "0x7fd55ef1c990"));
	EXPECT_FALSE(strstr(text, "0x7fd55ef1c9a0"));
	EXPECT_TRUE(strstr(text, "\nfutex 0x55d0c0de1040 app:gm_lock: waited "));
	EXPECT_TRUE(strstr(text, "\n2 futexes waited on outside traced "
			   "functions: --all-futexes shows them\n"));
	free(text);
	/* JSON has every word, as before. */
	v = parse_report(&s.rep);
	a = field(v, "futexes", JSON_ARR);
	ASSERT_EQ(a->n, 3);
	EXPECT_EQ(field(&a->items[1], "functions", JSON_ARR)->n, 0);
	EXPECT_STREQ(field_str(&a->items[2], "address"), "0x7fd55ef1c9a0");
	scenario_free(&s);
}

/* --all-futexes: every word, every waker, no count line, no hint. */
TEST(text_all_futexes_shows_them)
{
	struct scenario s;
	char *text;

	quiet_scenario(&s);
	s.rep.all_futexes = true;
	text = render_text(&s.rep, 0);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "\nfutex 0x7fd55ef1c990 anon: waited 628ms "
			   "(1 wait, 1 thread); woken from (untraced) "
			   "(100%)\n"));
	EXPECT_TRUE(strstr(text, "\nfutex 0x7fd55ef1c9a0 anon: waited "));
	EXPECT_TRUE(strstr(text, "threads) in acquire; woken from (untraced) "
			   "(100%)\n"));
	EXPECT_FALSE(strstr(text, "--all-futexes shows"));
	EXPECT_FALSE(strstr(text, "names who woke them"));
	free(text);
	scenario_free(&s);
}

/* The notes as one line each: wrapped lines joined, indents dropped. */
static void unwrap(char *text)
{
	char *r = text, *w = text;

	while (*r) {
		if (*r == '\n' && r[1] == ' ') {
			while (r[1] == ' ')
				r++;
			*r = ' ';
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/*
 * "woken from (untraced) (100%)" names nothing: the line ends at its
 * waiters, and one line says what would name the wakers.  A line whose
 * wakers are named keeps its clause.
 */
TEST(text_untraced_wakers_one_hint)
{
	struct report_futex two[2];
	struct scenario s;
	const char *p;
	char *text;

	quiet_scenario(&s);
	memcpy(two, quiet_futexes, sizeof(two));
	two[1].functions = futex_funcs;
	two[1].nr_functions = 2;
	s.rep.futexes = two;
	s.rep.nr_futexes = 2;
	text = render_text(&s.rep, 0);
	TH_LOG("%s", text);
	EXPECT_FALSE(strstr(text, "(untraced)"));
	EXPECT_TRUE(strstr(text, ") in acquire\n"));
	EXPECT_TRUE(strstr(text, ") in acquire, compute_chunk\n"));
	p = strstr(text, "\nwoken from untraced code: --sync or tracing the "
		   "lock's holders names who woke them\n");
	ASSERT_TRUE(p);
	EXPECT_FALSE(strstr(p + 2, "woken from untraced code"));
	EXPECT_FALSE(strstr(text, "--all-futexes shows"));
	free(text);
	/* Under --sync, the hint does not offer --sync. */
	s.rep.sync = true;
	text = render_text(&s.rep, 0);
	unwrap(text);
	EXPECT_TRUE(strstr(text, "woken from untraced code (a thread's exit "
			   "wakes its joiner, a call --sync does not cover): "
			   "tracing the waking functions names them"));
	EXPECT_FALSE(strstr(text, "--sync or tracing"));
	free(text);
	s.rep.sync = false;

	/* Named wakers: the clause as before, no hint. */
	two[0].woken_from = futex_wakers;
	two[0].nr_woken_from = 2;
	two[1].nr_woken_from = 0;
	text = render_text(&s.rep, 0);
	EXPECT_TRUE(strstr(text, "in acquire; woken from update_stats (90%), "
			   "flush (10%)\n"));
	EXPECT_FALSE(strstr(text, "names who woke them"));
	free(text);
	scenario_free(&s);
}

/*
 * The interference figure everywhere the SCI is: thread 101 runs
 * compute_chunk alone (work from 100 to 1,000 us: SCI high, INTERF 0);
 * acquire waits for locks the other threads release and never runs
 * alone (INTERF a bound: the waits, up to the paper's minimum on the
 * rest); flush_log waits for CPUs other processes hold (external).
 */
static void interf_exec(struct scenario *s, uint32_t func, size_t t,
			uint64_t d, uint64_t waited, uint64_t rq,
			uint64_t others)
{
	struct sci_causes c = {
		.futex_ns = waited, .runqueue_ns = rq, .context = true,
		.waited_ns = waited, .others_ns = others,
	};

	exec(s, func, func == F_ACQUIRE ? 0x1000 : 0, t, d, &c);
}

static void interf_scenario(struct scenario *s)
{
	size_t c;

	scenario_build(s);
	sci_report_free(s->sci);
	sci_free(s->e);
	s->e = sci_new();
	ASSERT_TRUE(s->e);
	for (c = 0; c < 3; c++) {
		ASSERT_EQ(sci_thread_seen(s->e, threads[c].tid,
					  threads[c].from), 0);
		s->cursor[c] = threads[c].from + 1000;
	}
	for (c = 0; c < 60; c++)
		interf_exec(s, F_COMPUTE, 0, 100000 + 150000 * (c % 7), 0, 0,
			    0);
	for (c = 0; c < 50; c++)
		interf_exec(s, F_ACQUIRE, 1 + c % 2, 20000 + 1000 * (c % 5),
			    15000, 0, 40000);
	for (c = 0; c < 40; c++)
		interf_exec(s, F_FLUSH, 2, 200000 + 1000 * (c % 3), 0, 150000,
			    0);
	sci_finish(s->e, TRACE_END);
	s->sci = sci_report(s->e, 0);
	ASSERT_TRUE(s->sci);
	s->rep.sci = s->sci;
	s->rep.futexes = NULL;
	s->rep.nr_futexes = 0;
}


TEST(interference_in_text_and_json)
{
	const struct sci_result *fn;
	const struct json_value *v, *a, *o, *w;
	char want[32], *text;
	struct scenario s;
	struct lines l;
	size_t i;

	interf_scenario(&s);
	text = render_text(&s.rep, 0);
	TH_LOG("%s", text);
	split(text, &l);
	/* Ranked by INTERF (or its bound), not by SCI. */
	EXPECT_EQ(s.sci->funcs[0].func_id, F_ACQUIRE);
	fn = sci_report_func(s.sci, F_COMPUTE);
	ASSERT_TRUE(fn);
	EXPECT_TRUE(fn->sci > 0.05);
	EXPECT_EQ(fn->interf.loss_ns, 0);
	fn = sci_report_func(s.sci, F_ACQUIRE);
	ASSERT_TRUE(fn);
	EXPECT_EQ(fn->interf.ref, INTERF_REF_NONE);
	EXPECT_EQ(fn->interf.loss_ns, 50 * 15000);
	EXPECT_EQ(fn->interf.bound_ns, 50 * 15000 + 50 * 2000);
	report_interference_cell(fn, want, sizeof(want));
	EXPECT_TRUE(!strncmp(want, "<=", 2));
	EXPECT_TRUE(strstr(l.line[row_of(&l, "acquire")], want) != NULL);
	free(text);
	text = render_text(&s.rep, 0);
	unwrap(text);
	EXPECT_TRUE(strstr(text, "note: INTERF between "));
	EXPECT_TRUE(strstr(text, "0 calls in solo blocks and 0 solo calls are "
			   "too few (30 needed) to tell its own variance from "
			   "interference; solo blocks (--solo-blocks, on by "
			   "default) give it a reference"));
	EXPECT_TRUE(strstr(text, "note: compute_chunk: ") &&
		    strstr(text, "but no other thread of the program was "
			   "active during any of its 60 calls: "));
	EXPECT_TRUE(strstr(text, "waiting for CPUs that other processes held "
			   "(external, not interference)"));
	free(text);
	/* Calls in solo blocks too: the note's count says it leaves them. */
	fn = sci_report_func(s.sci, F_COMPUTE);
	ASSERT_TRUE(fn);
	((struct sci_result *)fn)->calls += 20;
	text = render_text(&s.rep, 0);
	unwrap(text);
	EXPECT_TRUE(strstr(text, "active during any of its 60 calls outside "
			   "solo blocks: "));
	free(text);

	v = parse_report(&s.rep);
	a = field(v, "functions", JSON_ARR);
	for (i = 0; i < a->n; i++) {
		o = &a->items[i];
		/* JSON lists the functions in the report's order. */
		fn = &s.sci->funcs[i];
		EXPECT_STREQ(field_str(o, "name"), funcs[fn->func_id].name);
		EXPECT_SCORE(field_num(o, "interference"), fn->interference);
		EXPECT_EQ(field_i64(o, "solo_calls"), fn->interf.solo_calls);
		EXPECT_EQ(field_i64(o, "external_ns"),
			  fn->interf.external_ns);
		/* Only a bound: weak; 60 calls, all solo: not. */
		w = json_get(o, "interference_reference_weak");
		ASSERT_TRUE(w && w->t == JSON_BOOL);
		EXPECT_EQ(w->b, fn->func_id == F_ACQUIRE);
		EXPECT_EQ(field_i64(o, "seeded_solo_calls"), 0);
		if (fn->func_id == F_ACQUIRE)
			EXPECT_SCORE(field_num(o, "interference_bound"),
				     fn->interference_bound);
		else
			EXPECT_FALSE(json_get(o, "interference_bound"));
	}
	/* Keys carry it too. */
	o = &field(&a->items[0], "keys", JSON_ARR)->items[0];
	EXPECT_EQ(field_i64(o, "solo_calls"), 0);
	EXPECT_TRUE(field_num(o, "interference_bound") > 0);
	w = json_get(o, "interference_reference_weak");
	EXPECT_TRUE(w && w->t == JSON_BOOL && w->b);
	scenario_free(&s);
}

/*
 * Solo calls faster than the rest but INTERF under half the SCI: the note
 * gives both means instead of calling it "as slow when it runs alone".
 * compute_chunk alone: 100 and 300 us (mean 200); beside another thread:
 * 260 us.  INTERF 40 x 60 us, SCI 40 x 100 + 40 x 160 us, of 100 ms.
 */
TEST(interference_note_gives_both_means)
{
	struct scenario s;
	char *text;
	size_t c;

	scenario_build(&s);
	sci_report_free(s.sci);
	sci_free(s.e);
	s.e = sci_new();
	ASSERT_TRUE(s.e);
	ASSERT_EQ(sci_thread_seen(s.e, threads[0].tid, threads[0].from), 0);
	s.cursor[0] = threads[0].from + 1000;
	for (c = 0; c < 40; c++)
		interf_exec(&s, F_COMPUTE, 0, c % 2 ? 300000 : 100000, 0, 0,
			    0);
	for (c = 0; c < 40; c++)
		interf_exec(&s, F_COMPUTE, 0, 260000, 0, 0, 260000);
	ASSERT_EQ(sci_thread_exit(s.e, threads[0].tid, threads[0].to), 0);
	sci_finish(s.e, TRACE_END);
	s.sci = sci_report(s.e, 0);
	ASSERT_TRUE(s.sci);
	s.rep.sci = s.sci;
	EXPECT_EQ(s.sci->funcs[0].interf.loss_ns, 40 * 60000);
	text = render_text(&s.rep, 0);
	unwrap(text);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "but alone it takes 200us on average (40 "
			   "solo calls) against 230us for all calls"));
	EXPECT_FALSE(strstr(text, "as slow when it runs alone"));
	/* Half its calls were solo: a reference of substance. */
	EXPECT_FALSE(strstr(text, "INTERF judges its calls against"));
	free(text);
	scenario_free(&s);
}

/*
 * A pool's calls: one thread's 1,000 calls of 20 us beside other threads
 * and @own of 10 us with fewer beside, after @seed's solo calls, if any,
 * were handed in (--baseline, ispotd's earlier windows: sci_seed()).
 * The 1,000 have one other thread beside them, the @own none, or with
 * @fit 0.2 or 0.3 on average: then no call is solo, and the reference is
 * the FIT's line through all of them, anchored by the @own alone.
 */
static void pool_scenario(struct scenario *s, const struct sci_block_min *seed,
			  size_t own, bool fit)
{
	size_t c;

	scenario_build(s);
	sci_report_free(s->sci);
	sci_free(s->e);
	s->e = sci_new();
	ASSERT_TRUE(s->e);
	if (seed)
		ASSERT_EQ(sci_seed(s->e, seed), 0);
	ASSERT_EQ(sci_thread_seen(s->e, threads[0].tid, threads[0].from), 0);
	s->cursor[0] = threads[0].from + 1000;
	for (c = 0; c < 1000; c++)
		interf_exec(s, F_COMPUTE, 0, 20000 + 100 * (c % 3), 0, 0,
			    20000);
	for (c = 0; c < own; c++)
		interf_exec(s, F_COMPUTE, 0, 10000 + 100 * (c % 3), 0, 0,
			    fit ? 2000 + 1000 * (c % 2) : 0);
	ASSERT_EQ(sci_thread_exit(s->e, threads[0].tid, threads[0].to), 0);
	sci_finish(s->e, TRACE_END);
	s->sci = sci_report(s->e, 0);
	ASSERT_TRUE(s->sci);
	s->rep.sci = s->sci;
}

/* The JSON member "interference_reference_weak" of the one function. */
static bool reference_weak_in_json(struct scenario *s)
{
	const struct json_value *v, *o, *w;

	v = parse_report(&s->rep);
	o = &field(v, "functions", JSON_ARR)->items[0];
	w = json_get(o, "interference_reference_weak");
	EXPECT_TRUE(w && w->t == JSON_BOOL);
	return w && w->t == JSON_BOOL && w->b;
}

/*
 * A pool's reference: 40 solo calls (the last worker's) against 1,000
 * beside another thread, twice as long: the figure stands, with a note
 * that its reference is 3.8% of the calls and how to get a steadier one,
 * and the JSON calls the reference weak.
 */
TEST(interference_note_thin_solo_reference)
{
	const struct sci_result *fn;
	struct scenario s;
	char *text;

	pool_scenario(&s, NULL, 40, false);
	fn = sci_report_func(s.sci, F_COMPUTE);
	ASSERT_TRUE(fn);
	EXPECT_EQ(fn->interf.ref, INTERF_REF_SOLO);
	EXPECT_TRUE(fn->interference > 0.09);	/* 1,000 x 10 us of 100 ms */
	text = render_text(&s.rep, 0);
	unwrap(text);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "note: compute_chunk: INTERF judges its calls "
			   "against 40 solo calls, 3.8% of its 1040: a "
			   "stretch of the run"));
	EXPECT_TRUE(strstr(text, "solo blocks (--solo-blocks, on by default) "
			   "give a steadier reference"));
	EXPECT_TRUE(reference_weak_in_json(&s));
	free(text);
	scenario_free(&s);
	/* 60 solo calls of 1,060 are 5.6%: a reference of substance. */
	pool_scenario(&s, NULL, 60, false);
	text = render_text(&s.rep, 0);
	unwrap(text);
	EXPECT_TRUE(strstr(text, "compute_chunk"));
	EXPECT_FALSE(strstr(text, "INTERF judges its calls against"));
	EXPECT_FALSE(reference_weak_in_json(&s));
	free(text);
	scenario_free(&s);
}

/*
 * The same when the reference is the FIT's line: through all 1,040 calls,
 * but anchored near e = 0 by 40 of them.
 */
TEST(interference_note_thin_fit_reference)
{
	const struct sci_result *fn;
	struct scenario s;
	char *text;

	pool_scenario(&s, NULL, 40, true);
	fn = sci_report_func(s.sci, F_COMPUTE);
	ASSERT_TRUE(fn);
	EXPECT_EQ(fn->interf.ref, INTERF_REF_FIT);
	EXPECT_EQ(fn->interf.fit_calls, 1040);
	EXPECT_EQ(fn->interf.ref_calls, 40);
	text = render_text(&s.rep, 0);
	unwrap(text);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "note: compute_chunk: INTERF takes its own "
			   "time from a line anchored by 40 calls with at "
			   "most one other thread beside on average, 3.8% of "
			   "its 1040: a stretch of the run (in a pool, while "
			   "few workers ran)"));
	EXPECT_TRUE(reference_weak_in_json(&s));
	free(text);
	scenario_free(&s);
}

/*
 * The same reference with 30 of its solo calls handed in and 10 of its
 * own: still 3.8% of its calls, but not only this run's, and the advice
 * is already taken.  With 10 handed in, it is not yet.
 */
TEST(interference_no_thin_note_when_solo_calls_are_handed_in)
{
	struct sci_block_min m = {
		.func_id = F_COMPUTE, .key = 0, .min = UINT64_MAX,
		.ref_dur = UINT64_MAX,
		.solo = { .solo = 30, .solo_rest_ns = 30 * 10000,
			  .solo_ns = 30 * 10000 },
	};
	const struct sci_result *fn;
	struct scenario s;
	char *text;

	pool_scenario(&s, &m, 10, false);
	fn = sci_report_func(s.sci, F_COMPUTE);
	ASSERT_TRUE(fn);
	EXPECT_EQ(fn->interf.ref, INTERF_REF_SOLO);
	EXPECT_EQ(fn->interf.solo_calls, 40);
	EXPECT_EQ(fn->interf.seeded_solo_calls, 30);
	text = render_text(&s.rep, 0);
	unwrap(text);
	TH_LOG("%s", text);
	EXPECT_FALSE(strstr(text, "INTERF judges its calls against"));
	EXPECT_FALSE(reference_weak_in_json(&s));
	free(text);
	scenario_free(&s);

	/* 10 handed in and 25 of its own: weak still, and a longer one. */
	m.solo.solo = 10;
	m.solo.solo_rest_ns = m.solo.solo_ns = 10 * 10000;
	pool_scenario(&s, &m, 25, false);
	s.rep.baseline = "one.isr";
	text = render_text(&s.rep, 0);
	unwrap(text);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "INTERF judges its calls against 25 solo "
			   "calls, 2.4% of its 1025: a stretch of the run"));
	EXPECT_TRUE(strstr(text, "may not be typical; a longer --baseline "
			   "gives a steadier reference"));
	EXPECT_TRUE(reference_weak_in_json(&s));
	free(text);
	scenario_free(&s);
}

/*
 * Only a bound (10 solo calls of 1,010): the note says what a baseline
 * gives, did not give, or gave too little of.
 */
TEST(interference_bound_note_says_what_a_baseline_gives)
{
	const struct sci_block_min m = {
		.func_id = F_COMPUTE, .key = 0, .min = UINT64_MAX,
		.ref_dur = UINT64_MAX,
		.solo = { .solo = 5, .solo_rest_ns = 5 * 10000,
			  .solo_ns = 5 * 10000 },
	};
	const struct json_value *v, *o;
	struct scenario s;
	char *text;

	pool_scenario(&s, NULL, 10, false);
	ASSERT_EQ(s.sci->funcs[0].interf.ref, INTERF_REF_NONE);
	text = render_text(&s.rep, 0);
	unwrap(text);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "and 10 solo calls are too few (30 needed) "
			   "to tell its own variance from interference; solo "
			   "blocks (--solo-blocks, on by default) give it a "
			   "reference"));
	free(text);
	/* Given, but it had no solo call of this function keyed so. */
	s.rep.baseline = "one.isr";
	text = render_text(&s.rep, 0);
	unwrap(text);
	EXPECT_TRUE(strstr(text, "from interference; --baseline has none of "
			   "it, keyed as here"));
	free(text);
	scenario_free(&s);

	pool_scenario(&s, &m, 10, false);
	ASSERT_EQ(s.sci->funcs[0].interf.ref, INTERF_REF_NONE);
	s.rep.baseline = "one.isr";
	text = render_text(&s.rep, 0);
	unwrap(text);
	EXPECT_TRUE(strstr(text, "15 solo calls are too few (30 needed) to "
			   "tell its own variance from interference; a longer "
			   "--baseline gives it more"));
	v = parse_report(&s.rep);
	o = &field(v, "functions", JSON_ARR)->items[0];
	EXPECT_EQ(field_i64(o, "seeded_solo_calls"), 5);
	EXPECT_TRUE(reference_weak_in_json(&s));
	free(text);
	scenario_free(&s);
}

/* Without wait records there is no figure: "-" and null, not a zero. */
TEST(interference_absent_without_context)
{
	const struct json_value *v, *o;
	struct scenario s;
	char *text;

	scenario_build(&s);
	text = render_text(&s.rep, 0);
	EXPECT_TRUE(strstr(text, "  INTERF  "));
	free(text);
	v = parse_report(&s.rep);
	o = &field(v, "functions", JSON_ARR)->items[0];
	EXPECT_EQ(field(o, "interference", JSON_NULL)->t, JSON_NULL);
	EXPECT_FALSE(json_get(o, "solo_calls"));
	scenario_free(&s);
}

TEST_HARNESS_MAIN
