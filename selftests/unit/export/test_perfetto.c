// SPDX-License-Identifier: GPL-2.0
/*
 * The Perfetto writer (export/perfetto.h), fed hand-built records (its
 * encoder, util/protobuf.h, is test_protobuf's).  The trace is read back with
 * a reader of the wire format written here; selftests/host/perfetto_test.sh
 * reads the same trace with protoc.  With PERFETTO_TEST_OUT set, the
 * two-thread trace is also written there, for that test.
 */
#include <linux/futex.h>
#include <time.h>

#include "ispot_test.h"
#include "export/perfetto.h"
#include "export/perfetto_internal.h"
#include "util/hash.h"
#include "perfetto_reader.h"
#include "wait_records.h"

#define TID_WAITER	10
#define TID_WAKER	11
#define PROBE_ACQUIRE	1
#define PROBE_WORK	2
#define PROBE_MARKER	3	/* no traced function: left out */
#define WORD		0x5000
/* The longest name the writer is given (PF_NAME_MAX, less its NUL). */
#define PERFETTO_NAME_TEST_MAX	511

/* ---- reading it back ---- */

static void decode(const char *buf, size_t len, struct pr_trace *d)
{
	ASSERT_EQ(pr_read(buf, len, d), 0);
}

/* @tid's thread track (@waits false) or its waits track. */
static uint64_t track_of(const struct pr_trace *d, uint32_t tid, bool waits)
{
	size_t i;

	for (i = 0; i < d->nr_tr; i++) {
		const struct pr_track *t = &d->tr[i];

		if (t->tid == tid && !waits)
			return t->uuid;
		if (waits && !strcmp(t->name, "waits")) {
			const struct pr_track *p = pr_find_track(d, t->parent);

			if (p && p->tid == tid)
				return t->uuid;
		}
	}
	return 0;
}

/* On @track, every slice that begins ends, and time never goes back. */
static void track_balanced(const struct pr_trace *d, uint64_t track)
{
	uint64_t last = 0;
	int depth = 0;
	size_t i;

	for (i = 0; i < d->nr_ev; i++) {
		const struct pr_event *e = &d->ev[i];

		if (e->track != track)
			continue;
		EXPECT_GE(e->ts, last);
		last = e->ts;
		if (e->type == 1)
			depth++;
		if (e->type == 2)
			ASSERT_GT(depth--, 0);
	}
	EXPECT_EQ(depth, 0);
}

/*
 * @track's events as "B:name", "E", "I:name" joined by spaces, checking
 * that its slices balance and its time never goes back.
 */
static void track_story(const struct pr_trace *d, uint64_t track, char *out,
			size_t len)
{
	size_t i, n = 0;

	track_balanced(d, track);
	out[0] = 0;
	for (i = 0; i < d->nr_ev && n < len; i++) {
		const struct pr_event *e = &d->ev[i];

		if (e->track != track)
			continue;
		n += snprintf(out + n, len - n, "%s%s%s", n ? " " : "",
			      e->type == 1 ? "B:" : e->type == 2 ? "E" : "I:",
			      e->type == 2 ? "" : e->name);
	}
}

/* The @nth (from 0) event of @type on @track, named @name if not NULL. */
static const struct pr_event *find_event(const struct pr_trace *d,
					 uint64_t track, unsigned int type,
					 const char *name, int nth)
{
	size_t i;

	for (i = 0; i < d->nr_ev; i++)
		if (d->ev[i].track == track && d->ev[i].type == type &&
		    (!name || !strcmp(d->ev[i].name, name)) && !nth--)
			return &d->ev[i];
	return NULL;
}

/* ---- the writer ---- */

static int name_call(void *ctx, const struct ispot_record *entry, char *buf,
		     size_t len)
{
	(void)ctx;
	if (entry->probe_id == PROBE_ACQUIRE)
		return snprintf(buf, len, "acquire %llu",
				(unsigned long long)entry->data[0]);
	if (entry->probe_id == PROBE_WORK)
		return snprintf(buf, len, "work");
	return -1;
}

static int name_thread(void *ctx, uint32_t tid, char *buf, size_t len)
{
	(void)ctx;
	return tid == TID_WAITER ? snprintf(buf, len, "waiter") : -1;
}

static const struct perfetto_names names = {
	.call = name_call, .thread = name_thread,
};

static const struct perfetto_clock clock0 = { 1000, 5000 };
/*
 * A host's times a week after boot, for the trace the host test reads
 * with protoc: a reader that added times up in too narrow a number
 * would be seen there.
 */
#define WEEK_NS		604800000000000ull
#define T(ns)		(WEEK_NS + (ns))
static const struct perfetto_clock clock_week = { T(1000), T(5000) };

static struct ispot_record call(uint8_t kind, uint32_t tid, uint64_t ts,
				uint32_t probe, uint64_t sp, uint64_t arg)
{
	struct ispot_record r = wait_record(kind, tid, tid & 1, ts, arg, 0);

	r.probe_id = probe;
	r.sp = sp;
	return r;
}

static struct ispot_record futex(uint32_t tid, uint64_t ts, uint32_t op,
				 uint64_t val)
{
	struct ispot_record r = wait_record(ISPOT_REC_FUTEX_ENTER, tid, tid & 1,
					    ts, WORD, op);

	r.data[2] = val;
	return r;
}

/*
 * Two threads contend in acquire(): the waiter waits on the word and is
 * switched out; the waker, inside its acquire(), wakes it, then is
 * preempted.  The waiter's next call is still open at the end; an exit
 * without an entry and a marker's entry are left out.
 */
static void feed_contention(struct perfetto *pf)
{
	const struct ispot_record r[] = {
		call(ISPOT_REC_ENTRY, TID_WAITER, T(1000), PROBE_ACQUIRE,
		     0x1000, 7),
		call(ISPOT_REC_ENTRY, TID_WAKER, T(1100), PROBE_ACQUIRE,
		     0x2000, 7),
		futex(TID_WAITER, T(1200), FUTEX_WAIT_PRIVATE, 2),
		wait_record(ISPOT_REC_SWITCH_OUT, TID_WAITER, 0, T(1300), 0,
			    1),
		futex(TID_WAKER, T(1400), FUTEX_WAKE_PRIVATE, 1),
		wait_record(ISPOT_REC_FUTEX_EXIT, TID_WAKER, 1, T(1450), 1,
			    0),
		wait_record(ISPOT_REC_SWITCH_IN, TID_WAITER, 0, T(1500), 0,
			    0),
		wait_record(ISPOT_REC_SWITCH_OUT, TID_WAKER, 1, T(1550), 1,
			    0),
		wait_record(ISPOT_REC_FUTEX_EXIT, TID_WAITER, 0, T(1600), 0,
			    0),
		call(ISPOT_REC_EXIT, TID_WAITER, T(1700), PROBE_ACQUIRE,
		     0x1008, 0),
		wait_record(ISPOT_REC_SWITCH_IN, TID_WAKER, 1, T(1800), 0,
			    0),
		call(ISPOT_REC_EXIT, TID_WAKER, T(1900), PROBE_ACQUIRE,
		     0x2008, 0),
		call(ISPOT_REC_ENTRY, TID_WAITER, T(2000), PROBE_WORK, 0x1000,
		     0),
		call(ISPOT_REC_EXIT, TID_WAKER, T(2100), PROBE_WORK, 0x3008,
		     0),
		call(ISPOT_REC_ENTRY, TID_WAKER, T(2200), PROBE_MARKER, 0x2000,
		     0),
	};
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		perfetto_record(pf, &r[i]);
}

/*
 * Write what @feed gives into memory (and to PERFETTO_TEST_OUT), from
 * clock0, or clock_week for feed_contention.
 */
static void write_trace(void (*feed)(struct perfetto *), char **buf,
			size_t *len, const char *out_env)
{
	const struct perfetto_clock *clock = feed == feed_contention ?
					     &clock_week : &clock0;
	FILE *f = open_memstream(buf, len);
	struct perfetto *pf;
	const char *path = out_env ? getenv(out_env) : NULL;

	ASSERT_TRUE(f);
	pf = perfetto_open(f, 1, "contention", &names, clock);
	ASSERT_TRUE(pf);
	feed(pf);
	ASSERT_EQ(perfetto_close(pf), 0);
	ASSERT_EQ(fclose(f), 0);
	if (path) {
		FILE *o = fopen(path, "w");

		ASSERT_TRUE(o);
		ASSERT_EQ(fwrite(*buf, 1, *len, o), *len);
		ASSERT_EQ(fclose(o), 0);
	}
}

TEST(packets_open_in_perfetto)
{
	struct pr_trace d;
	char *buf;
	size_t len, i;

	write_trace(feed_contention, &buf, &len, NULL);
	decode(buf, len, &d);
	EXPECT_TRUE(d.first_cleared);
	EXPECT_TRUE(d.all_sequenced);
	EXPECT_TRUE(d.clock_snapshot);
	EXPECT_TRUE(d.descriptors_first);
	ASSERT_GT(d.nr_ev, 0);
	for (i = 0; i < d.nr_ev; i++) {
		EXPECT_TRUE(d.ev[i].monotonic);
		EXPECT_TRUE(d.ev[i].needs_state);
	}
	pr_free(&d);
	free(buf);
}

/*
 * Times on the incremental clock, and a time before the last written
 * (another ring's record, read late; one before the snapshot) on
 * MONOTONIC as it is: each read back as it was given.  A name is
 * defined once and given by its id after; past PF_NAMES_MAX, whole.
 */
TEST(times_go_back_and_names_are_defined_once)
{
	static const struct {
		uint8_t kind;
		uint32_t tid, probe;
		uint64_t ts, clock;	/* the clock named: 0, the default */
	} feed[] = {
		{ ISPOT_REC_ENTRY, TID_WAITER, PROBE_ACQUIRE, 2000, 0 },
		{ ISPOT_REC_ENTRY, TID_WAKER, PROBE_WORK, 1500, 3 },
		{ ISPOT_REC_EXIT, TID_WAITER, PROBE_ACQUIRE, 2600, 0 },
		{ ISPOT_REC_EXIT, TID_WAKER, PROBE_WORK, 2600, 0 },
		{ ISPOT_REC_ENTRY, TID_WAITER, PROBE_ACQUIRE, 3000, 0 },
		{ ISPOT_REC_ENTRY, TID_WAKER, PROBE_WORK, 2999, 3 },
		{ ISPOT_REC_EXIT, TID_WAKER, PROBE_WORK, 3001, 0 },
	};
	struct ispot_record r;
	struct perfetto *pf;
	struct pr_trace d;
	size_t len, i, iids = 0;
	char *buf;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_TRUE(f);
	pf = perfetto_open(f, 1, "contention", &names, &clock0);
	ASSERT_TRUE(pf);
	/* Before the snapshot's time: MONOTONIC, as it is. */
	r = call(ISPOT_REC_ENTRY, TID_WAITER, 500, PROBE_WORK, 0x8000, 0);
	perfetto_record(pf, &r);
	r = call(ISPOT_REC_EXIT, TID_WAITER, 600, PROBE_WORK, 0x8008, 0);
	perfetto_record(pf, &r);
	for (i = 0; i < sizeof(feed) / sizeof(feed[0]); i++) {
		r = call(feed[i].kind, feed[i].tid, feed[i].ts, feed[i].probe,
			 feed[i].kind == ISPOT_REC_ENTRY ? 0x8000 : 0x8008,
			 7);
		perfetto_record(pf, &r);
	}
	/* The table full: a new name is written whole. */
	pf->nr_names = PF_NAMES_MAX;
	r = call(ISPOT_REC_ENTRY, TID_WAITER, 4000, PROBE_ACQUIRE, 0x7ff0, 8);
	perfetto_record(pf, &r);
	ASSERT_EQ(perfetto_close(pf), 0);
	ASSERT_EQ(fclose(f), 0);
	decode(buf, len, &d);
	/* The feed's, then the last begin and the two ends of the close. */
	ASSERT_EQ(d.nr_ev, 2 + sizeof(feed) / sizeof(feed[0]) + 3);
	EXPECT_EQ(d.ev[0].ts, 500);
	EXPECT_EQ(d.ev[0].clock, 3);
	EXPECT_EQ(d.ev[1].ts, 600);
	EXPECT_EQ(d.ev[1].clock, 3);
	for (i = 0; i < sizeof(feed) / sizeof(feed[0]); i++) {
		const struct pr_event *e = &d.ev[2 + i];

		EXPECT_EQ(e->ts, feed[i].ts);
		EXPECT_EQ(e->clock, feed[i].clock);
		EXPECT_TRUE(e->monotonic);
		EXPECT_TRUE(e->needs_state);
		if (e->type != 1)
			continue;
		EXPECT_NE(e->name_iid, 0);
		EXPECT_STREQ(e->name, feed[i].probe == PROBE_WORK ?
			     "work" : "acquire 7");
	}
	EXPECT_EQ(d.nr_names, 2);	/* work and acquire 7, once each */
	for (i = 0; i < d.nr_ev; i++)
		iids += d.ev[i].name_iid != 0;
	EXPECT_EQ(iids, 5);		/* every begin but the last */
	EXPECT_EQ(d.ev[d.nr_ev - 3].ts, 4000);
	EXPECT_EQ(d.ev[d.nr_ev - 3].type, 1);
	EXPECT_EQ(d.ev[d.nr_ev - 3].name_iid, 0);
	EXPECT_STREQ(d.ev[d.nr_ev - 3].name, "acquire 8");
	pr_free(&d);
	free(buf);
}

TEST(calls_waits_and_flow)
{
	uint64_t waiter, waiter_waits, waker, waker_waits;
	const struct pr_event *wake, *woken;
	struct pr_trace d;
	char story[512];
	char *buf;
	size_t len;

	write_trace(feed_contention, &buf, &len, "PERFETTO_TEST_OUT");
	decode(buf, len, &d);
	waiter = track_of(&d, TID_WAITER, false);
	waiter_waits = track_of(&d, TID_WAITER, true);
	waker = track_of(&d, TID_WAKER, false);
	waker_waits = track_of(&d, TID_WAKER, true);
	ASSERT_TRUE(waiter && waiter_waits && waker && waker_waits);

	/* The open call ends at the last timestamp written. */
	track_story(&d, waiter, story, sizeof(story));
	EXPECT_STREQ(story, "B:acquire 7 E B:work E");
	track_story(&d, waiter_waits, story, sizeof(story));
	EXPECT_STREQ(story, "B:futex wait B:futex E E");
	track_story(&d, waker, story, sizeof(story));
	EXPECT_STREQ(story, "B:acquire 7 I:futex wake E");
	track_story(&d, waker_waits, story, sizeof(story));
	EXPECT_STREQ(story, "B:runqueue E");

	wake = find_event(&d, waker, 3, "futex wake", 0);
	ASSERT_TRUE(wake);
	EXPECT_EQ(wake->ts, T(1400));
	ASSERT_EQ(wake->nr_flows, 1);
	/* The second end: the wait's, after its off-CPU stretch's. */
	woken = find_event(&d, waiter_waits, 2, NULL, 1);
	ASSERT_TRUE(woken);
	EXPECT_EQ(woken->ts, T(1600));
	EXPECT_EQ(woken->terminating, wake->flows[0]);
	EXPECT_EQ(d.ev[d.nr_ev - 1].ts, T(2000));
	pr_free(&d);
	free(buf);
}

/* A wait that timed out (-ETIMEDOUT) was ended by no one: no arrow. */
static void feed_timeout(struct perfetto *pf)
{
	const struct ispot_record r[] = {
		futex(TID_WAITER, 100, FUTEX_WAIT_PRIVATE, 2),
		futex(TID_WAKER, 150, FUTEX_WAKE_PRIVATE, 1),
		wait_record(ISPOT_REC_FUTEX_EXIT, TID_WAITER, 0, 200,
			    (uint64_t)-110, 0),
		/* The wake came before this wait began: not its waker. */
		futex(TID_WAITER, 300, FUTEX_WAIT_PRIVATE, 2),
		wait_record(ISPOT_REC_FUTEX_EXIT, TID_WAITER, 0, 400, 0, 0),
	};
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		perfetto_record(pf, &r[i]);
}

TEST(no_flow_to_a_wait_no_traced_wake_ended)
{
	struct pr_trace d;
	char *buf;
	size_t len, i;

	write_trace(feed_timeout, &buf, &len, NULL);
	decode(buf, len, &d);
	for (i = 0; i < d.nr_ev; i++)
		EXPECT_EQ(d.ev[i].terminating, 0);
	pr_free(&d);
	free(buf);
}

/* A broadcast wakes two waiters: each wait ends a flow of its own. */
static void feed_broadcast(struct perfetto *pf)
{
	const struct ispot_record r[] = {
		futex(TID_WAITER, 100, FUTEX_WAIT_PRIVATE, 2),
		futex(TID_WAITER + 2, 110, FUTEX_WAIT_PRIVATE, 2),
		futex(TID_WAKER, 200, FUTEX_WAKE_PRIVATE, 0x7fffffff),
		wait_record(ISPOT_REC_FUTEX_EXIT, TID_WAITER, 0, 300, 0, 0),
		wait_record(ISPOT_REC_FUTEX_EXIT, TID_WAITER + 2, 0, 310, 0,
			    0),
	};
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		perfetto_record(pf, &r[i]);
}

TEST(a_broadcast_ends_a_flow_per_wait)
{
	const struct pr_event *wake, *a, *b;
	struct pr_trace d;
	char *buf;
	size_t len;

	write_trace(feed_broadcast, &buf, &len, NULL);
	decode(buf, len, &d);
	wake = find_event(&d, track_of(&d, TID_WAKER, false), 3, NULL, 0);
	a = find_event(&d, track_of(&d, TID_WAITER, true), 2, NULL, 0);
	b = find_event(&d, track_of(&d, TID_WAITER + 2, true), 2, NULL, 0);
	ASSERT_TRUE(wake && a && b);
	ASSERT_EQ(wake->nr_flows, PERFETTO_WAKE_FLOWS);
	EXPECT_EQ(a->terminating, wake->flows[0]);
	EXPECT_EQ(b->terminating, wake->flows[1]);
	pr_free(&d);
	free(buf);
}

/*
 * Broken streams still balance: a lost SWITCH_IN (the thread's own record
 * says it runs), a late record behind its thread's time, a longjmp that
 * leaves a frame (the pairer gives it up when an outer one returns), a
 * thread's exit with a call and a wait open, and its records after it.
 */
static void feed_broken(struct perfetto *pf)
{
	const struct ispot_record r[] = {
		call(ISPOT_REC_ENTRY, TID_WAITER, 100, PROBE_WORK, 0x1000, 0),
		call(ISPOT_REC_ENTRY, TID_WAITER, 110, PROBE_ACQUIRE,
		     0x0f00, 1),
		wait_record(ISPOT_REC_SWITCH_OUT, TID_WAITER, 0, 120, 1, 0),
		/* No SWITCH_IN; then the outer call returns. */
		call(ISPOT_REC_EXIT, TID_WAITER, 130, PROBE_WORK, 0x1008, 0),
		/* Late: behind the thread's time. */
		call(ISPOT_REC_ENTRY, TID_WAITER, 90, PROBE_ACQUIRE, 0x1000, 2),
		futex(TID_WAITER, 140, FUTEX_WAIT_PRIVATE, 2),
		wait_record(ISPOT_REC_TASK_EXIT, TID_WAITER, 0, 150, 0, 0),
		call(ISPOT_REC_EXIT, TID_WAITER, 160, PROBE_ACQUIRE,
		     0x1008, 0),
	};
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		perfetto_record(pf, &r[i]);
}

TEST(broken_streams_still_balance)
{
	struct pr_trace d;
	char story[512];
	char *buf;
	size_t len;

	write_trace(feed_broken, &buf, &len, NULL);
	decode(buf, len, &d);
	track_story(&d, track_of(&d, TID_WAITER, false), story, sizeof(story));
	EXPECT_STREQ(story, "B:work B:acquire 1 E E B:acquire 2 E");
	track_story(&d, track_of(&d, TID_WAITER, true), story, sizeof(story));
	EXPECT_STREQ(story, "B:runqueue E B:futex wait E");
	/* Nothing after the exit at 150. */
	EXPECT_EQ(d.ev[d.nr_ev - 1].ts, 150);
	pr_free(&d);
	free(buf);
}

/*
 * A target with many per-object mutexes wakes many distinct words: each
 * wake looks its word up once, in O(1) (a scan of every word woken before
 * would take seconds here).  The waiter waits on the last word woken, and
 * its wait ends that wake's flow.
 */
#define MANY_WORDS	100000u
static unsigned int nr_words_fed;

static struct ispot_record word_wake(uint64_t ts, uint64_t uaddr)
{
	struct ispot_record r = futex(TID_WAKER, ts, FUTEX_WAKE_PRIVATE, 1);

	r.data[0] = uaddr;
	return r;
}

static void feed_many_words(struct perfetto *pf)
{
	struct ispot_record r = futex(TID_WAITER, 50, FUTEX_WAIT_PRIVATE, 2);
	unsigned int i;

	r.data[0] = 0x100000 + 8ull * (nr_words_fed - 1);
	perfetto_record(pf, &r);
	for (i = 0; i < nr_words_fed; i++) {
		r = word_wake(100 + i, 0x100000 + 8ull * i);
		perfetto_record(pf, &r);
	}
	r = wait_record(ISPOT_REC_FUTEX_EXIT, TID_WAITER, 0,
			200 + nr_words_fed, 0, 0);
	perfetto_record(pf, &r);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

TEST(many_futex_words_are_fast)
{
	const struct pr_event *wake, *woken;
	struct pr_trace d;
	double t0, ms;
	char *buf;
	size_t len;

	nr_words_fed = MANY_WORDS;
	t0 = now_s();
	write_trace(feed_many_words, &buf, &len, NULL);
	ms = (now_s() - t0) * 1000;
	/* Linear: some 50 ms; a scan per wake: 5e9 compares. */
	EXPECT_LT(ms, 2000);
	decode(buf, len, &d);
	wake = find_event(&d, track_of(&d, TID_WAKER, false), 3, NULL,
			  MANY_WORDS - 1);
	ASSERT_TRUE(wake);
	ASSERT_EQ(wake->nr_flows, 1);
	EXPECT_EQ(wake->ts, 100 + MANY_WORDS - 1);
	woken = find_event(&d, track_of(&d, TID_WAITER, true), 2, NULL, 0);
	ASSERT_TRUE(woken);
	EXPECT_EQ(woken->terminating, wake->flows[0]);
	pr_free(&d);
	free(buf);
}

/*
 * Past PERFETTO_WORDS_MAX words the wakes are still drawn, without
 * arrows, and the memory stays bounded; the words before keep theirs.
 */
TEST(futex_words_are_bounded)
{
	const struct pr_event *last, *before;
	struct pr_trace d;
	uint64_t waker;
	char *buf;
	size_t len;

	nr_words_fed = PERFETTO_WORDS_MAX + 1;
	write_trace(feed_many_words, &buf, &len, NULL);
	decode(buf, len, &d);
	waker = track_of(&d, TID_WAKER, false);
	before = find_event(&d, waker, 3, NULL, PERFETTO_WORDS_MAX - 1);
	last = find_event(&d, waker, 3, NULL, PERFETTO_WORDS_MAX);
	ASSERT_TRUE(before && last);
	EXPECT_EQ(before->nr_flows, 1);
	EXPECT_EQ(last->nr_flows, 0);
	EXPECT_STREQ(last->name, "futex wake");
	pr_free(&d);
	free(buf);
}

/* A TASK_EXIT carrying @comm (ABI 1.10), or none (an older module's). */
static struct ispot_record task_exit(uint32_t tid, uint64_t ts,
				     const char *comm)
{
	struct ispot_record r = wait_record(ISPOT_REC_TASK_EXIT, tid, tid & 1,
					    ts, 0, 0);

	memset(&r.data[1], 0, 2 * sizeof(r.data[1]));
	if (comm)
		memcpy(&r.data[1], comm, strlen(comm));
	return r;
}

/*
 * The waker has no name to read (name_thread()), as a thread gone before
 * its first event: its exit names its track.  The waiter, named at its
 * first event, renamed itself since: its exit's name wins, as in a
 * recording of it.  A thread whose exit carries no comm stays unnamed; a
 * comm of 15 bytes is whole; a reused tid's threads are named apart.
 */
static void feed_exit_names(struct perfetto *pf)
{
	struct ispot_record task_new = wait_record(ISPOT_REC_TASK_NEW, 14, 0,
						   185, 1, 0);
	const struct ispot_record r[] = {
		call(ISPOT_REC_ENTRY, TID_WAITER, 100, PROBE_WORK, 0x1000, 0),
		call(ISPOT_REC_ENTRY, TID_WAKER, 110, PROBE_WORK, 0x2000, 0),
		call(ISPOT_REC_ENTRY, 12, 120, PROBE_WORK, 0x3000, 0),
		call(ISPOT_REC_ENTRY, 13, 125, PROBE_WORK, 0x4000, 0),
		call(ISPOT_REC_ENTRY, 14, 127, PROBE_WORK, 0x5000, 0),
		task_exit(TID_WAITER, 130, "renamed"),
		task_exit(TID_WAKER, 140, "pool-worker-7"),
		task_exit(12, 150, NULL),
		task_exit(13, 160, "fifteen-bytes-x"),
		task_exit(14, 180, "first-of-14"),
		task_new,
		call(ISPOT_REC_ENTRY, 14, 190, PROBE_WORK, 0x5000, 0),
		task_exit(14, 200, "second-of-14"),
	};
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		perfetto_record(pf, &r[i]);
}

TEST(a_thread_gone_unnamed_is_named_by_its_exit)
{
	const struct pr_track *tr;
	struct pr_trace d;
	char story[256];
	int n14 = 0;
	size_t len, i;
	char *buf;

	write_trace(feed_exit_names, &buf, &len, NULL);
	decode(buf, len, &d);
	EXPECT_TRUE(d.descriptors_first);
	tr = pr_find_track(&d, track_of(&d, TID_WAITER, false));
	ASSERT_TRUE(tr);
	EXPECT_STREQ(tr->name, "renamed");
	tr = pr_find_track(&d, track_of(&d, TID_WAKER, false));
	ASSERT_TRUE(tr);
	EXPECT_STREQ(tr->name, "pool-worker-7");
	tr = pr_find_track(&d, track_of(&d, 12, false));
	ASSERT_TRUE(tr);
	EXPECT_STREQ(tr->name, "");
	tr = pr_find_track(&d, track_of(&d, 13, false));
	ASSERT_TRUE(tr);
	EXPECT_STREQ(tr->name, "fifteen-bytes-x");
	for (i = 0; i < d.nr_tr; i++)
		if (d.tr[i].tid == 14)
			EXPECT_STREQ(d.tr[i].name, n14++ ? "second-of-14" :
				     "first-of-14");
	EXPECT_EQ(n14, 2);
	/* Named anew, not a second track: its call is still on it. */
	track_story(&d, track_of(&d, TID_WAKER, false), story, sizeof(story));
	EXPECT_STREQ(story, "B:work E");
	pr_free(&d);
	free(buf);
}

/*
 * perfetto_names.call_key: a probe's calls by one key are named once, by
 * call(); by another key, or another probe, anew.  A (probe, key) whose
 * cache id is another's (made to collide here) is never kept, so it is
 * formatted each time and still named right; so is one whose name may
 * change (call_key() says 0), and a name past the interned names'
 * table.
 */
static unsigned int calls_formatted;

static int keyed_call(void *ctx, const struct ispot_record *entry, char *buf,
		      size_t len)
{
	(void)ctx;
	calls_formatted++;
	return snprintf(buf, len, "f%u [%llu]", entry->probe_id,
			(unsigned long long)entry->data[0]);
}

/* Probe 4's calls may be named otherwise later: never kept. */
#define PROBE_MAY_CHANGE	4

static int keyed_call_key(void *ctx, const struct ispot_record *entry,
			  uint64_t *key, bool *keyed)
{
	(void)ctx;
	*key = entry->data[0];
	*keyed = true;
	return entry->probe_id != PROBE_MAY_CHANGE;
}

static const struct perfetto_names keyed_names = {
	.call = keyed_call, .call_key = keyed_call_key,
};

/* A trace into memory by @names, from clock0; @m holds its stream. */
struct mem_trace {
	FILE *f;
	char *buf;
	size_t len;
};

static struct perfetto *mem_open(struct mem_trace *m, const char *process,
				 const struct perfetto_names *names)
{
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f)
		return NULL;
	return perfetto_open(m->f, 1, process, names, &clock0);
}

/* Close @pf and read back what it wrote into @d (pr_free() it, then @m). */
static int mem_read(struct mem_trace *m, struct perfetto *pf,
		    struct pr_trace *d)
{
	int closed = perfetto_close(pf);

	/* Both closed whatever the first says: m->buf is whole after. */
	if (fclose(m->f) || closed)
		return -1;
	decode(m->buf, m->len, d);
	return 0;
}

/* Ten calls of @probe by @key on one thread, from @ts; their begins' names. */
static void ten_calls(struct perfetto *pf, uint32_t probe, uint64_t key,
		      uint64_t *ts)
{
	struct ispot_record r;
	int i;

	for (i = 0; i < 10; i++) {
		r = call(ISPOT_REC_ENTRY, TID_WAITER, (*ts)++, probe, 0x8000,
			 key);
		perfetto_record(pf, &r);
		r = call(ISPOT_REC_EXIT, TID_WAITER, (*ts)++, probe, 0x8008, 0);
		perfetto_record(pf, &r);
	}
}

TEST(call_names_are_formatted_once_a_probe_and_key)
{
	/* Probe 2's key whose id is probe 1's key 5's (perfetto.c). */
	uint64_t collide = 5 ^ hash_mix64(1 << 1 | 1) ^ hash_mix64(2 << 1 | 1);
	static const char *const want[] = {
		"f1 [5]", "f1 [6]", NULL, "f1 [5]", "f4 [5]", "f3 [9]",
	};
	char collided[64];
	struct mem_trace m;
	struct perfetto *pf;
	struct pr_trace d;
	uint64_t ts = 2000;
	size_t i;

	snprintf(collided, sizeof(collided), "f2 [%llu]",
		 (unsigned long long)collide);
	calls_formatted = 0;
	pf = mem_open(&m, "keyed", &keyed_names);
	ASSERT_TRUE(pf);
	ten_calls(pf, 1, 5, &ts);
	ten_calls(pf, 1, 6, &ts);
	ten_calls(pf, 2, collide, &ts);
	ten_calls(pf, 1, 5, &ts);
	EXPECT_EQ(calls_formatted, 1 + 1 + 10 + 0);
	ten_calls(pf, PROBE_MAY_CHANGE, 5, &ts);
	EXPECT_EQ(calls_formatted, 12 + 10);
	/* The interned names' table full: formatted, written whole. */
	pf->nr_names = PF_NAMES_MAX;
	ten_calls(pf, 3, 9, &ts);
	EXPECT_EQ(calls_formatted, 22 + 10);
	ASSERT_EQ(mem_read(&m, pf, &d), 0);
	ASSERT_EQ(d.nr_ev, 2 * 60);
	for (i = 0; i < d.nr_ev; i += 2) {
		const char *name = want[i / 20] ? want[i / 20] : collided;

		EXPECT_EQ(d.ev[i].type, 1);
		EXPECT_STREQ(d.ev[i].name, name);
		EXPECT_EQ(d.ev[i].name_iid != 0, i / 20 != 5);
	}
	EXPECT_EQ(d.nr_names, 4);
	pr_free(&d);
	free(m.buf);
}

/*
 * perfetto_names.generation: a name kept under one generation is
 * formatted again under the next (a library replaced at the same
 * address, live), and kept anew; the same generation again keeps it.
 */
static uint64_t names_generation;

static int library_call(void *ctx, const struct ispot_record *entry,
			char *buf, size_t len)
{
	(void)ctx;
	calls_formatted++;
	return snprintf(buf, len, "f%u [lib%llu:%llu]", entry->probe_id,
			(unsigned long long)names_generation,
			(unsigned long long)entry->data[0]);
}

static uint64_t library_generation(void *ctx)
{
	(void)ctx;
	return names_generation;
}

static const struct perfetto_names library_names = {
	.call = library_call, .call_key = keyed_call_key,
	.generation = library_generation,
};

TEST(a_kept_name_is_formatted_again_when_its_generation_moves)
{
	static const char *const want[] = {
		"f1 [lib7:5]", "f1 [lib8:5]", "f1 [lib8:5]",
	};
	struct mem_trace m;
	struct perfetto *pf;
	struct pr_trace d;
	uint64_t ts = 2000;
	size_t i;

	calls_formatted = 0;
	names_generation = 7;
	pf = mem_open(&m, "library", &library_names);
	ASSERT_TRUE(pf);
	ten_calls(pf, 1, 5, &ts);
	EXPECT_EQ(calls_formatted, 1);
	names_generation = 8;
	ten_calls(pf, 1, 5, &ts);
	EXPECT_EQ(calls_formatted, 2);
	ten_calls(pf, 1, 5, &ts);
	EXPECT_EQ(calls_formatted, 2);
	ASSERT_EQ(mem_read(&m, pf, &d), 0);
	ASSERT_EQ(d.nr_ev, 2 * 30);
	for (i = 0; i < d.nr_ev; i += 2)
		EXPECT_STREQ(d.ev[i].name, want[i / 20]);
	EXPECT_EQ(d.nr_names, 2);
	pr_free(&d);
	free(m.buf);
}

/*
 * --perfetto-max-size: the longest names the writer takes (calls and
 * threads), deep calls open on many threads, waits off the CPU and
 * broadcast wakes, so that the room kept for the open slices' ends and
 * for one record is tested where it is tightest.
 */
#define BOUND_THREADS	32
#define BOUND_DEPTH	48
/* Cycles enough that the whole feed takes more than a megabyte. */
#define BOUND_STEPS	(BOUND_THREADS * (2 * BOUND_DEPTH + 4) * 16)

static int long_name(char *buf, size_t len, unsigned int salt)
{
	size_t n = len - 1;

	if (n > PERFETTO_NAME_TEST_MAX)
		n = PERFETTO_NAME_TEST_MAX;

	memset(buf, 'a' + salt % 26, n);
	buf[n] = 0;
	return (int)n;
}

static int long_call(void *ctx, const struct ispot_record *entry, char *buf,
		     size_t len)
{
	(void)ctx;
	return long_name(buf, len, entry->probe_id);
}

static int long_thread(void *ctx, uint32_t tid, char *buf, size_t len)
{
	(void)ctx;
	return long_name(buf, len, tid);
}

static const struct perfetto_names long_names = {
	.call = long_call, .thread = long_thread,
};

/*
 * Each thread goes BOUND_DEPTH calls deep, waits, and comes back up; the
 * times and tids as large as a host's, for the packets' longest varints.
 */
static void feed_bounded(struct perfetto *pf)
{
	unsigned int depth[BOUND_THREADS] = { 0 }, i;
	uint64_t ts = 1ull << 62;

	for (i = 0; i < BOUND_STEPS; i++) {
		unsigned int k = i % BOUND_THREADS, *d = &depth[k];
		uint32_t tid = (1u << 22) - BOUND_THREADS + k;
		uint64_t sp = 0x100000 - 16ull * *d;
		struct ispot_record r;
		unsigned int phase = i / BOUND_THREADS %
				     (2 * BOUND_DEPTH + 4);

		ts += 10;
		if (phase < BOUND_DEPTH) {
			r = call(ISPOT_REC_ENTRY, tid, ts, 1 + *d, sp - 16, *d);
			(*d)++;
		} else if (phase == BOUND_DEPTH) {
			r = futex(tid, ts, FUTEX_WAIT_PRIVATE, 2);
		} else if (phase == BOUND_DEPTH + 1) {
			r = wait_record(ISPOT_REC_SWITCH_OUT, tid, k & 1, ts, 0,
					0);
		} else if (phase == BOUND_DEPTH + 2) {
			r = futex(tid, ts, FUTEX_WAKE_PRIVATE,
				  PERFETTO_WAKE_FLOWS);
		} else if (phase == BOUND_DEPTH + 3) {
			r = wait_record(ISPOT_REC_FUTEX_EXIT, tid, k & 1, ts, 0,
					0);
		} else if (*d) {
			(*d)--;
			r = call(ISPOT_REC_EXIT, tid, ts, 1 + *d,
				 0x100000 - 16ull * *d - 8, 0);
		} else {
			continue;
		}
		perfetto_record(pf, &r);
	}
}

/*
 * The trace of feed_bounded() within @bound: stopped where the bound
 * needed it (not before), whole, balanced, and nothing after the stop,
 * though the session goes on telling of losses and exits.
 */
static void check_bounded(uint64_t bound)
{
	struct ispot_record lost = wait_record(ISPOT_REC_LOST, 0, 0,
					       UINT64_MAX - 10, 1, 0);
	struct perfetto *pf;
	struct pr_trace d;
	uint64_t full_ts = 0, need;
	size_t len, i, calls = 0, whole = 0;
	char *buf;
	FILE *f;

	f = open_memstream(&buf, &len);
	ASSERT_TRUE(f);
	pf = perfetto_open(f, 1, "bounded", &long_names, &clock0);
	ASSERT_TRUE(pf);
	perfetto_set_max_size(pf, bound);
	feed_bounded(pf);
	ASSERT_TRUE(perfetto_full(pf, &full_ts));
	need = (pf->open + PF_RECORD_OPENS) * PF_END_MAX + PF_RECORD_MAX;
	EXPECT_GT(pf->written + need, bound);
	lost.data[1] = UINT64_MAX - 5;
	lost.data[2] = ISPOT_LOST_SEVERAL;
	perfetto_record(pf, &lost);
	perfetto_lost(pf, UINT64_MAX - 4);
	perfetto_thread_exit(pf, (1u << 22) - 1, UINT64_MAX - 3);
	ASSERT_EQ(perfetto_close(pf), 0);
	ASSERT_EQ(fclose(f), 0);
	EXPECT_LE(len, bound);
	decode(buf, len, &d);
	for (i = 0; i < d.nr_tr; i++)
		track_balanced(&d, d.tr[i].uuid);
	for (i = 0; i < d.nr_ev; i++) {
		EXPECT_LT(d.ev[i].ts, full_ts);
		/* Every call's name, interned, reads back whole. */
		if (d.ev[i].type == 1 && d.ev[i].name_len > 10)
			whole += d.ev[i].name_len == PERFETTO_NAME_TEST_MAX;
		if (d.ev[i].type == 1 && d.ev[i].name_len > 10)
			calls++;
	}
	EXPECT_GT(calls, 0);
	EXPECT_EQ(whole, calls);
	pr_free(&d);
	free(buf);
}

TEST(a_bound_keeps_the_trace_whole)
{
	static const uint64_t bounds[] = {
		PERFETTO_MIN_SIZE, 5000, 20000, 100000, 300000, 600000,
		900000,
	};
	size_t i;

	for (i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++)
		check_bounded(bounds[i]);
}

/* Unbounded (0), the same feed is written whole, past every bound above. */
TEST(no_bound_keeps_every_record)
{
	FILE *f;
	struct perfetto *pf;
	uint64_t ts = 0;
	char *buf;
	size_t len;

	f = open_memstream(&buf, &len);
	ASSERT_TRUE(f);
	pf = perfetto_open(f, 1, "bounded", &long_names, &clock0);
	ASSERT_TRUE(pf);
	feed_bounded(pf);
	EXPECT_FALSE(perfetto_full(pf, &ts));
	ASSERT_EQ(perfetto_close(pf), 0);
	ASSERT_EQ(fclose(f), 0);
	EXPECT_GT(len, 1000000);
	free(buf);
}

/*
 * The bytes @f took since *@at (@pf's packets written out, and flushed),
 * and *@at moved to its end.
 */
static size_t grown(struct perfetto *pf, FILE *f, const size_t *len,
		    size_t *at)
{
	size_t n;

	pf_out_flush(pf);
	fflush(f);
	n = *len - *at;
	*at = *len;
	return n;
}

/*
 * The bound's arithmetic (perfetto_internal.h) against the packets at
 * their largest: ids, generation and times at their widest (a time
 * before the last, written whole on MONOTONIC), names at their longest
 * (the process's 255 bytes, calls' and threads' 511) and interned with
 * the last id there is.
 */
TEST(the_bound_holds_the_largest_packets)
{
	static const struct perfetto_clock clock_max = {
		UINT64_MAX, UINT64_MAX,
	};
	struct pf_thread t = { .tid = UINT32_MAX, .gen = UINT32_MAX };
	char process[256], name[PERFETTO_NAME_TEST_MAX + 1];
	size_t len, at = 0, head, record, end, wake, renamed;
	struct perfetto *pf;
	char *buf;
	FILE *f;

	memset(process, 'p', sizeof(process) - 1);
	process[sizeof(process) - 1] = 0;
	long_name(name, sizeof(name), 0);
	f = open_memstream(&buf, &len);
	ASSERT_TRUE(f);
	pf = perfetto_open(f, UINT32_MAX, process, &long_names, &clock_max);
	ASSERT_TRUE(pf);
	head = grown(pf, f, &len, &at);
	pf->nr_names = PF_NAMES_MAX - 1;
	/* A new thread's first call: its two tracks, then the begin. */
	pf_begin(pf, &t, PF_TRACK_THREAD, UINT64_MAX - 1, name, 0);
	record = grown(pf, f, &len, &at);
	/* Its name defined with the widest id too (not read back). */
	pf->nr_names = PF_NAMES_MAX - 1;
	pf_event(pf, &t, PF_TRACK_THREAD, UINT64_MAX - 1, TYPE_INSTANT,
		 "futex wake", UINT64_MAX - PERFETTO_WAKE_FLOWS,
		 PERFETTO_WAKE_FLOWS, false);
	wake = grown(pf, f, &len, &at);
	pf_event(pf, &t, PF_TRACK_WAITS, UINT64_MAX - 1, TYPE_SLICE_END, NULL,
		 UINT64_MAX, 1, true);
	end = grown(pf, f, &len, &at);
	/* An exit's name: a comm, 15 bytes at most. */
	pf_name_thread(pf, &t, "fifteen-bytes-x");
	renamed = grown(pf, f, &len, &at);
	TH_LOG("first packets %zu, a new thread's call %zu, a wake %zu, "
	       "an end %zu, a track named anew %zu bytes", head, record,
	       wake, end, renamed);
	EXPECT_LE(head, PF_HEAD_MAX);
	EXPECT_LE(record, PF_RECORD_MAX);
	EXPECT_LE(wake + end, PF_RECORD_MAX);
	EXPECT_LE(renamed + end, PF_RECORD_MAX);
	EXPECT_LE(end, PF_END_MAX);
	EXPECT_EQ(pf->written, len);
	ASSERT_EQ(perfetto_close(pf), 0);
	ASSERT_EQ(fclose(f), 0);
	free(buf);
}

/* A full disk: perfetto_close() says so, as the disk did (ENOSPC). */
TEST(write_error_is_reported)
{
	FILE *f = fopen("/dev/full", "w");
	struct perfetto *pf;

	if (!f)
		SKIP("no /dev/full");
	pf = perfetto_open(f, 1, "contention", &names, &clock_week);
	ASSERT_TRUE(pf);
	feed_contention(pf);
	EXPECT_EQ(perfetto_close(pf), -ENOSPC);
	fclose(f);
}

/* Past a chunk, the write that fails is the chunk's, not the close's. */
TEST(write_error_of_a_chunk_is_reported)
{
	FILE *f = fopen("/dev/full", "w");
	struct perfetto *pf;
	uint64_t ts = 2000;

	if (!f)
		SKIP("no /dev/full");
	pf = perfetto_open(f, 1, "keyed", &keyed_names, &clock0);
	ASSERT_TRUE(pf);
	setvbuf(f, NULL, _IONBF, 0);
	while (!pf->err && pf->written < 2 * PF_OUT_CHUNK)
		ten_calls(pf, 1, 5, &ts);
	EXPECT_EQ(pf->err, -ENOSPC);
	EXPECT_EQ(perfetto_close(pf), -ENOSPC);
	fclose(f);
}

TEST_HARNESS_MAIN
