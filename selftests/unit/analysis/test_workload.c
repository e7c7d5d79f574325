// SPDX-License-Identifier: GPL-2.0
/*
 * Workload-dependent functions (argbuckets.h) and --key FUNC=auto
 * (autokey.h), through the pipeline fed with synthetic ENTRY/EXIT records
 * that carry arguments, and through the session's report-time glue
 * (trace_workload()):
 *   - work proportional to arg0 is flagged, arg0:log2 is suggested with
 *     its evidence, and auto keys it: the loss drops to the noise;
 *   - time independent of a widely varying argument, plus interference
 *     (the paper's DC example: small writes whose time is the syscall's)
 *     is not flagged, and auto keeps no key and hides no loss;
 *   - minima 3x apart whose loss is mostly interference are not flagged,
 *     nor an argument that explains all the variation but only 1.5x;
 *   - lone executions never flag, however far apart: 7 calls per bucket
 *     do not, 8 do;
 *   - an auto function recorded too sparsely to judge gets a note;
 *   - a live report (ispotctl top) keys it too, report after report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ispot_test.h"
#include "text_unwrap.h"
#include "analysis/autokey.h"
#include "analysis/pipeline.h"
#include "pipeline_feed.h"
#include "report/report.h"
#include "trace/trace_internal.h"

#define TGID		777
#define SP(tid)		(0x7ffd00000008ULL + 0x100000ULL * (tid))
#define PTR		0x7ffd12345678ULL	/* an argument that never varies */

struct feed {
	struct pipeline *p;
	uint64_t now;
};

static void record(struct feed *f, uint8_t kind, uint32_t tid,
		   uint32_t probe, uint64_t sp, const uint64_t *args)
{
	pipeline_feed_record(f->p, f->now, kind, TGID, tid, probe, sp,
			     args);
}

/* One execution of @probe in @tid lasting @dur, then a 50ns gap. */
static void exec1(struct feed *f, uint32_t tid, uint32_t probe, uint64_t a0,
		  uint64_t a1, uint64_t a2, uint64_t dur)
{
	uint64_t args[3] = { a0, a1, a2 };

	record(f, ISPOT_REC_ENTRY, tid, probe, SP(tid), args);
	f->now += dur;
	record(f, ISPOT_REC_EXIT, tid, probe, SP(tid) + 8, NULL);
	f->now += 50;
}

/* Function i (probe i + 1) keyed by @kinds[i]; shadows above @nr. */
static void feed_init(struct feed *f, const enum key_kind *kinds, size_t nr)
{
	size_t i;

	f->p = pipeline_new();
	ASSERT_TRUE(f->p);
	f->now = 1000;
	for (i = 0; i < nr; i++) {
		struct key_rule rule = { .kind = kinds[i] };

		ASSERT_EQ(pipeline_add_probe(f->p, i + 1, i, &rule), 0);
		if (kinds[i] == KEY_AUTO)
			ASSERT_EQ(pipeline_set_shadows(f->p, i + 1,
					autokey_shadow_id(nr, i, 0)), 0);
	}
	ASSERT_EQ(pipeline_thread_seen(f->p, 1, 0), 0);
	ASSERT_EQ(pipeline_thread_seen(f->p, 2, 0), 0);
}

static struct sci_report *feed_report(struct feed *f)
{
	struct sci_report *r;

	pipeline_finish(f->p, f->now);
	r = sci_report(f->p->sci, f->now);
	ASSERT_TRUE(r);
	return r;
}

/* The session glue over @f's pipeline, for functions named @names. */
struct session {
	struct trace t;
	char notes[4][256];
	size_t nr_notes;
	struct argb_verdict *v;
};

static void session_report(struct session *s, struct feed *f,
			   const char *const *names, const enum key_kind *kinds,
			   size_t nr, struct sci_report *r)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->t.pipe = f->p;
	s->t.nr_funcs = nr;
	s->t.funcs = calloc(nr, sizeof(*s->t.funcs));
	ASSERT_TRUE(s->t.funcs);
	for (i = 0; i < nr; i++) {
		snprintf(s->t.funcs[i].sym.name, sizeof(s->t.funcs[i].sym.name),
			 "%s", names[i]);
		s->t.funcs[i].key.kind = kinds[i];
		key_rule_format(&s->t.funcs[i].key, s->t.funcs[i].key_desc,
				sizeof(s->t.funcs[i].key_desc));
	}
	s->v = trace_workload(&s->t, r, s->notes, &s->nr_notes, 4);
	ASSERT_TRUE(s->v);
}

/* Deterministic noise: every 10th call of each bucket 10% slower. */
static uint64_t work_duration(unsigned int i, uint64_t n)
{
	return 100 * n + (i % 10 == 3 ? 10 * n : 0);
}

static void feed_work(struct feed *f, uint32_t probe, unsigned int calls)
{
	unsigned int i;

	for (i = 0; i < calls; i++) {
		uint64_t n = 1ull << (i % 7);	/* 1 .. 64 */

		/* arg2 varies widely too, but the work does not follow it */
		exec1(f, 1 + (i & 1), probe, n, PTR, (i * 37) % 4000,
		      work_duration(i / 7, n));
	}
}

TEST(work_follows_arg0_flagged)
{
	static const enum key_kind kinds[] = { KEY_NONE };
	struct argb_verdict v;
	struct feed f;
	char buf[128];

	feed_init(&f, kinds, 1);
	feed_work(&f, 1, 700);
	argb_judge(argbuckets_of(f.p->args, 0), &v);
	EXPECT_TRUE(v.dependent);
	EXPECT_EQ(v.arg, 0);
	EXPECT_FALSE(v.undecided);
	EXPECT_EQ(v.calls, 700);
	EXPECT_TRUE(v.cut > 0.95);
	EXPECT_TRUE(v.ratio > 63.9);
	argb_key_name(&v, buf, sizeof(buf));
	EXPECT_STREQ(buf, "arg0:log2");
	argb_evidence(&v, buf, sizeof(buf));
	EXPECT_STREQ(buf, "min 100ns at arg0=1, 6.40us at arg0\u22482^6");
	/* Not keyed by auto: the scores stay unkeyed. */
	pipeline_free(f.p);
}

TEST(auto_keys_work_loss_near_zero)
{
	static const enum key_kind kinds[] = { KEY_AUTO, KEY_NONE };
	static const char *const names[] = { "work", "plain" };
	const struct sci_result *fn, *plain;
	struct sci_report *r;
	struct session s;
	double unkeyed;
	struct feed f;
	size_t i;

	feed_init(&f, kinds, 2);
	feed_work(&f, 1, 700);
	feed_work(&f, 2, 700);	/* the same work, not auto: stays unkeyed */
	r = feed_report(&f);
	fn = sci_report_func(r, 0);
	ASSERT_TRUE(fn);
	unkeyed = fn->sci;
	EXPECT_EQ(fn->nr_keys, 1);
	EXPECT_TRUE(unkeyed > 0.1);
	/* Three shadows of work, none of plain. */
	EXPECT_EQ(r->nr_funcs, 5);

	session_report(&s, &f, names, kinds, 2, r);
	EXPECT_TRUE(s.v[0].dependent);
	EXPECT_TRUE(s.v[1].dependent);
	EXPECT_EQ(s.nr_notes, 0);
	EXPECT_STREQ(s.t.funcs[0].key_desc, "arg0:log2");
	EXPECT_TRUE(s.t.funcs[0].key_auto);
	EXPECT_EQ(s.t.funcs[0].key.kind, KEY_ARG);
	EXPECT_STREQ(s.t.funcs[1].key_desc, "");
	EXPECT_FALSE(s.t.funcs[1].key_auto);

	/* Only the real ids are left, work keyed by its 7 buckets. */
	EXPECT_EQ(r->nr_funcs, 2);
	for (i = 0; i < r->nr_funcs; i++)
		EXPECT_LT(r->funcs[i].func_id, 2);
	for (i = 0; i < r->nr_blocks; i++)
		EXPECT_LT(r->blocks[i].func_id, 2);
	fn = sci_report_func(r, 0);
	plain = sci_report_func(r, 1);
	ASSERT_TRUE(fn && plain);
	EXPECT_EQ(fn->nr_keys, 7);
	EXPECT_EQ(fn->calls, 700);
	EXPECT_EQ(fn->threads, 2);
	/* Keyed: only the 10% noise is left, against 60-odd x unkeyed. */
	TH_LOG("work SCI unkeyed %.4f, auto %.4f", unkeyed, fn->sci);
	EXPECT_TRUE(fn->sci < 0.05 * unkeyed);
	EXPECT_NEAR(plain->sci, unkeyed, 1e-9);

	free(s.v);
	free(s.t.funcs);
	sci_report_free(r);
	pipeline_free(f.p);
}

/*
 * ispotctl top takes a report every second (trace_auto_keys()): each
 * keys the auto function as the verdict then says, the second as well
 * as the first, although the first already set the function's key.
 */
TEST(auto_keys_every_live_report)
{
	static const enum key_kind kinds[] = { KEY_AUTO };
	static const char *const names[] = { "work" };
	const struct sci_result *fn;
	struct sci_report *r;
	struct session s;
	struct feed f;
	int round;

	feed_init(&f, kinds, 1);
	feed_work(&f, 1, 700);
	r = feed_report(&f);
	session_report(&s, &f, names, kinds, 1, r);
	sci_report_free(r);
	for (round = 0; round < 2; round++) {
		feed_work(&f, 1, 70);
		r = sci_report(f.p->sci, f.now);
		ASSERT_TRUE(r);
		ASSERT_EQ(trace_auto_keys(&s.t, r), 0);
		/* work alone, keyed by its 7 buckets: no shadow left. */
		EXPECT_EQ(r->nr_funcs, 1);
		fn = sci_report_func(r, 0);
		ASSERT_TRUE(fn);
		EXPECT_EQ(fn->nr_keys, 7);
		EXPECT_EQ(fn->calls, 770 + 70 * round);
		EXPECT_TRUE(s.t.funcs[0].key_auto);
		sci_report_free(r);
	}
	free(s.v);
	free(s.t.funcs);
	pipeline_free(f.p);
}

/*
 * The DC example: a write of 1 B .. 4 KiB costs the syscall, 5us, plus
 * under 64ns of copying; a third of the calls are slowed 2-5x by another
 * thread.  The size varies over 13 buckets, the minima do not.
 */
static void feed_small_writes(struct feed *f, uint32_t probe,
			      unsigned int calls)
{
	unsigned int i;

	for (i = 0; i < calls; i++) {
		uint64_t size = 1ull << (i % 13);
		uint64_t d = 5000 + size / 64;

		if (i % 3 == 0)
			d *= 2 + (i / 3) % 4;
		exec1(f, 1 + (i & 1), probe, 3, PTR, size, d);
	}
}

TEST(dc_small_writes_not_flagged)
{
	static const enum key_kind kinds[] = { KEY_AUTO };
	static const char *const names[] = { "put" };
	const struct sci_result *fn;
	struct sci_report *r;
	struct argb_verdict v;
	struct session s;
	double unkeyed;
	struct feed f;

	feed_init(&f, kinds, 1);
	feed_small_writes(&f, 1, 1300);
	argb_judge(argbuckets_of(f.p->args, 0), &v);
	EXPECT_FALSE(v.dependent);
	EXPECT_FALSE(v.undecided);

	r = feed_report(&f);
	unkeyed = sci_report_func(r, 0)->sci;
	session_report(&s, &f, names, kinds, 1, r);
	EXPECT_FALSE(s.v[0].dependent);
	EXPECT_EQ(s.nr_notes, 0);
	EXPECT_TRUE(s.t.funcs[0].key_auto);
	EXPECT_STREQ(s.t.funcs[0].key_desc, "");
	EXPECT_EQ(s.t.funcs[0].key.kind, KEY_NONE);
	EXPECT_EQ(r->nr_funcs, 1);
	fn = sci_report_func(r, 0);
	ASSERT_TRUE(fn);
	/* The interference is all still there. */
	EXPECT_EQ(fn->nr_keys, 1);
	EXPECT_NEAR(fn->sci, unkeyed, 1e-12);
	EXPECT_TRUE(fn->sci > 0.1);

	free(s.v);
	free(s.t.funcs);
	sci_report_free(r);
	pipeline_free(f.p);
}

/* Minima 3x apart, but keying would remove a sliver of the loss. */
TEST(mostly_interference_not_flagged)
{
	static const enum key_kind kinds[] = { KEY_NONE };
	struct argb_verdict v;
	struct feed f;
	unsigned int i;

	feed_init(&f, kinds, 1);
	for (i = 0; i < 400; i++) {
		uint64_t big = i & 1, base = big ? 300 : 100;

		exec1(&f, 1, 1, big ? 1024 : 1, PTR, 0,
		      base + (i % 5 ? 3000 + 100 * (i % 7) : 0));
	}
	argb_judge(argbuckets_of(f.p->args, 0), &v);
	EXPECT_FALSE(v.dependent);
	/* The first test passed: the second is what stopped it. */
	EXPECT_TRUE(v.ratio >= 2.9);
	EXPECT_TRUE(v.cut < 0.5);
	pipeline_free(f.p);
}

/*
 * The argument explains all the variation, but only 1.5x of it: below
 * ARGB_MIN_RATIO that is not worth splitting the function's calls for.
 */
TEST(small_arg_effect_not_flagged)
{
	static const enum key_kind kinds[] = { KEY_NONE };
	struct argb_verdict v;
	struct feed f;
	unsigned int i;

	feed_init(&f, kinds, 1);
	for (i = 0; i < 400; i++)
		exec1(&f, 1, 1, i & 1 ? 1024 : 1, PTR, 0, i & 1 ? 150 : 100);
	argb_judge(argbuckets_of(f.p->args, 0), &v);
	EXPECT_FALSE(v.dependent);
	EXPECT_TRUE(v.cut > 0.99);
	EXPECT_NEAR(v.ratio, 1.5, 1e-9);
	pipeline_free(f.p);
}

/* @per calls at arg0 = 1 (100ns) and at 1024 (10us) each. */
static void judge_two_buckets(unsigned int per, struct argb_verdict *v)
{
	static const enum key_kind kinds[] = { KEY_NONE };
	struct feed f;
	unsigned int i;

	feed_init(&f, kinds, 1);
	for (i = 0; i < per; i++) {
		exec1(&f, 1, 1, 1, PTR, 0, 100);
		exec1(&f, 1, 1, 1024, PTR, 0, 10000);
	}
	argb_judge(argbuckets_of(f.p->args, 0), v);
	pipeline_free(f.p);
}

TEST(lone_executions_never_flag)
{
	struct argb_verdict v;

	judge_two_buckets(1, &v);
	EXPECT_FALSE(v.dependent);
	EXPECT_TRUE(v.undecided);
	judge_two_buckets(ARGB_MIN_CALLS - 1, &v);
	EXPECT_FALSE(v.dependent);
	judge_two_buckets(ARGB_MIN_CALLS, &v);
	EXPECT_TRUE(v.dependent);
	EXPECT_FALSE(v.undecided);
	/* Nothing ran: nothing to say. */
	argb_judge(NULL, &v);
	EXPECT_FALSE(v.dependent);
	EXPECT_FALSE(v.undecided);
}

TEST(sparse_auto_gets_a_note)
{
	static const enum key_kind kinds[] = { KEY_AUTO, KEY_NONE, KEY_AUTO };
	static const char *const names[] = { "work", "plain", "once" };
	struct sci_report *r;
	struct session s;
	struct feed f;
	unsigned int i;

	feed_init(&f, kinds, 3);
	/* As if sampled 1 in 1000: five calls over five buckets. */
	for (i = 0; i < 5; i++) {
		exec1(&f, 1, 1, 1ull << (2 * i), PTR, 0, 100ull << (2 * i));
		exec1(&f, 1, 2, 1ull << (2 * i), PTR, 0, 100ull << (2 * i));
	}
	/* One call cannot vary: keying cannot matter, no note. */
	exec1(&f, 1, 3, 5, PTR, 0, 100);
	r = feed_report(&f);
	session_report(&s, &f, names, kinds, 3, r);
	EXPECT_TRUE(s.v[0].undecided);
	EXPECT_FALSE(s.v[0].dependent);
	ASSERT_EQ(s.nr_notes, 1);
	TH_LOG("%s", s.notes[0]);
	EXPECT_STREQ(s.notes[0], "--key work=auto kept no key: its 5 recorded "
		     "calls fill no two argument buckets with 8 each; trace "
		     "longer or lower --sample");
	EXPECT_STREQ(s.t.funcs[0].key_desc, "");
	EXPECT_TRUE(s.t.funcs[0].key_auto);
	EXPECT_EQ(r->nr_funcs, 3);

	free(s.v);
	free(s.t.funcs);
	sci_report_free(r);
	pipeline_free(f.p);
}

static char *json_of(const struct report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ASSERT_TRUE(out);
	ASSERT_EQ(report_json(out, rep), 0);
	fclose(out);
	return buf;
}

static char *text_of(const struct report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ASSERT_TRUE(out);
	ASSERT_EQ(report_text(out, rep, 0), 0);
	fclose(out);
	return buf;
}

TEST(report_flags_and_suggests)
{
	static const enum key_kind kinds[] = { KEY_NONE, KEY_AUTO, KEY_NONE };
	static const char *const names[] = { "work", "scan", "put" };
	struct report_func rf[3];
	struct report rep = { .pid = 1, .command = "app", .width = -1 };
	struct sci_report *r;
	struct session s;
	struct feed f;
	char *json, *text, *one;
	size_t i;

	feed_init(&f, kinds, 3);
	feed_work(&f, 1, 700);
	feed_work(&f, 2, 700);
	feed_small_writes(&f, 3, 1300);
	r = feed_report(&f);
	session_report(&s, &f, names, kinds, 3, r);
	memset(rf, 0, sizeof(rf));
	for (i = 0; i < 3; i++) {
		rf[i].name = names[i];
		rf[i].object = "/bin/app";
		rf[i].key = s.t.funcs[i].key_desc;
		rf[i].key_auto = s.t.funcs[i].key_auto;
	}
	rep.sci = r;
	rep.funcs = rf;
	rep.nr_funcs = 3;
	rep.verdicts = s.v;

	json = json_of(&rep);
	TH_LOG("%s", json);
	EXPECT_TRUE(strstr(json, "\"name\": \"work\", \"linkage_name\": "
			   "\"work\", \"object\": \"/bin/app\", \"key\": \"\""));
	EXPECT_TRUE(strstr(json, "\"workload_dependent\": true, "
			   "\"suggested_key\": \"arg0:log2\", "
			   "\"workload_evidence\": \"min 100ns at arg0=1, "
			   "6.40us at arg0\u22482^6\""));
	EXPECT_TRUE(strstr(json, "\"key\": \"arg0:log2\", \"key_auto\": true"));
	EXPECT_TRUE(strstr(json, "\"workload_dependent\": false, "
			   "\"suggested_key\": \"\""));
	free(json);

	text = text_of(&rep);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "work\n") || strstr(text, "work  "));
	EXPECT_TRUE(strstr(text, "scan [arg0:log2 (auto)]"));
	EXPECT_TRUE(strstr(text, "put [none (auto)]") == NULL);
	/* Wrapped at 100 columns: the line is longer. */
	one = text_unwrapped(text);
	EXPECT_TRUE(strstr(one, "WORKLOAD-DEPENDENT on arg0: min 100ns at "
			   "arg0=1, 6.40us at arg0\u22482^6; keyed by "
			   "arg0:log2, the loss is"));
	EXPECT_TRUE(strstr(one, "--key 'work=arg0:log2' or 'work=auto'"));
	EXPECT_TRUE(strstr(one, "(so keyed)"));
	free(one);
	free(text);

	/* ispotd's windows carry no verdicts: nothing is said. */
	rep.verdicts = NULL;
	json = json_of(&rep);
	EXPECT_TRUE(strstr(json, "workload_dependent") == NULL);
	free(json);

	free(s.v);
	free(s.t.funcs);
	sci_report_free(r);
	pipeline_free(f.p);
}

TEST(auto_chooses_none_is_shown)
{
	static const enum key_kind kinds[] = { KEY_AUTO };
	static const char *const names[] = { "put" };
	struct report_func rf = { .name = "put", .object = "/bin/app" };
	struct report rep = { .pid = 1, .command = "app", .width = -1 };
	struct sci_report *r;
	struct session s;
	struct feed f;
	char *text;

	feed_init(&f, kinds, 1);
	feed_small_writes(&f, 1, 1300);
	r = feed_report(&f);
	session_report(&s, &f, names, kinds, 1, r);
	rf.key = s.t.funcs[0].key_desc;
	rf.key_auto = s.t.funcs[0].key_auto;
	rep.sci = r;
	rep.funcs = &rf;
	rep.nr_funcs = 1;
	rep.verdicts = s.v;
	text = text_of(&rep);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "put [none (auto)]"));
	EXPECT_TRUE(strstr(text, "WORKLOAD-DEPENDENT") == NULL);
	free(text);
	free(s.v);
	free(s.t.funcs);
	sci_report_free(r);
	pipeline_free(f.p);
}

TEST_HARNESS_MAIN
