// SPDX-License-Identifier: GPL-2.0
/*
 * A live session's rounds as its loop runs them, trace_step() by
 * trace_step() (trace_rounds.c), on this process, with rings the test
 * fills itself:
 *
 * - With task records, a thread the SCI engine holds open can lose its
 *   exit record (a full ring drops records): the round that scans
 *   /proc/PID/task asks the engine for its open threads
 *   (sci_each_open_thread()), and one the listing misses and whose own
 *   entry is gone is closed once the drain is past the scan, counted as
 *   a lost exit; unless its record turns up by then, and closes it.
 *   Without that a thread is held, and ispotd's memory grows, for as
 *   long as the target runs.  One the listing skipped while it lives
 *   (as a listing read while threads exit can) keeps running.
 * - A live Perfetto trace whose key is an address reads the maps about
 *   once a second (trace_maps_follow()), whether or not a miss does: its
 *   names (the writer's generation) follow a library replaced at the
 *   same address a second later at most, and the rounds in between read
 *   nothing (reads counted by elf_symbolizer_reads()).
 *
 * The rounds are given their time as the loop would (trace_now()), or
 * set ahead where a test needs a round due (past the drain's slack, a
 * second of rounds 100 ms apart), with no sleep.
 */
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ispot_test.h"
#define TEST_DIR_TEMPLATE "/tmp/ispot-trace-rounds-XXXXXX"
#include "scratch_dir.h"
#include "export/perfetto_internal.h"
#include "trace/trace_internal.h"
#include "thread_workers.h"

#define MS		(1000 * 1000ull)
#define PROBE		1
#define NR_RECS		8
#define FILE_SIZE	4096

struct session {
	struct trace_opts o;
	struct trace t;
	/* One function, keyed by its argument 1: a key that is an address. */
	struct trace_func func;
	char path[PATH_MAX];
	/* The rings: records the test put there, handed out by horizon. */
	struct ispot_record recs[NR_RECS];
	size_t nr_recs, given;
};

/* t.live.src's read: the records older than @horizon, in order. */
static long rings_read(struct record_source *src, uint64_t horizon,
		       session_input_fn fn, void *ctx)
{
	struct session *s = (struct session *)((char *)src -
				offsetof(struct session, t.live.src));
	struct session_input in = { .type = INPUT_RECORD };
	long n = 0;

	for (; s->given < s->nr_recs && s->recs[s->given].ts_ns < horizon;
	     s->given++, n++) {
		in.rec = &s->recs[s->given];
		fn(ctx, &in);
	}
	return n;
}

/* A TASK_EXIT of this process's thread @tid at @ts into the rings. */
static void ring_task_exit(struct session *s, uint32_t tid, uint64_t ts)
{
	struct ispot_record *r;

	ASSERT_LT(s->nr_recs, NR_RECS);
	r = &s->recs[s->nr_recs++];
	memset(r, 0, sizeof(*r));
	r->kind = ISPOT_REC_TASK_EXIT;
	r->nslots = 1;
	r->tid = tid;
	r->tgid = (uint32_t)getpid();
	r->ts_ns = ts;
}

/*
 * A live session of this process, its first scan taken (every thread
 * alive now is open in the engine) and dated a scan period ago, so that
 * the next round scans; with @trace, its Perfetto trace open at that
 * name.  No maps read yet.
 */
static void session_start(struct session *s, const char *trace)
{
	memset(s, 0, sizeof(*s));
	s->t.opts = &s->o;
	s->t.sum.pid = getpid();
	snprintf(s->t.sum.command, sizeof(s->t.sum.command), "trace_rounds");
	s->func.key = (struct key_rule){ .kind = KEY_ARG, .arg = 1 };
	snprintf(s->func.sym.name, ELF_SYM_NAME_MAX, "lock");
	s->t.funcs = &s->func;
	s->t.nr_funcs = 1;
	s->t.pipe = pipeline_new();
	ASSERT_TRUE(s->t.pipe);
	ASSERT_EQ(pipeline_add_probe(s->t.pipe, PROBE, 0, &s->func.key), 0);
	s->t.live.src.read = rings_read;
	/*
	 * A live session's, of no ring: the rings are rings_read()'s, and
	 * what asks the drain (futex peeks, pending records) finds none.
	 */
	s->t.live.drain = drain_new(NULL, 0, NULL, NULL);
	ASSERT_TRUE(s->t.live.drain);
	if (trace) {
		path_in(s->path, trace);
		s->o.perfetto = s->path;
		ASSERT_EQ(trace_perfetto_open(&s->t, NULL), 0);
		ASSERT_TRUE(s->t.out.perfetto);
	}
	s->t.sum.t_enable = trace_now() - TRACE_SCAN_NS;
	ASSERT_EQ(trace_first_scan(&s->t), 0);
}

static void session_end(struct session *s)
{
	if (s->t.out.perfetto)
		EXPECT_EQ(trace_perfetto_close(&s->t, false), 0);
	drain_free(s->t.live.drain);
	pipeline_free(s->t.pipe);
	if (s->t.sym)
		elf_symbolizer_free(s->t.sym);
	task_set_free(&s->t.live.alive);
	task_set_free(&s->t.live.scan);
	free(s->t.live.exits);
}

static void step(struct session *s, uint64_t now)
{
	ASSERT_EQ(trace_step(&s->t, now), 0);
}

static bool open_in_engine(const struct session *s, uint32_t tid)
{
	return sci_thread_is_open(s->t.pipe->sci, tid);
}

/*
 * Three workers and this thread open in the engine; two workers end, and
 * no exit record of theirs is drained by the round that scans: one's is
 * in the rings, within the drain's slack, the other's was lost.  The
 * scan finds both gone; the next round, its drain past the scan, closes
 * the first by its record and the other by the scan, one lost exit.  The
 * living stay open.
 */
TEST(a_thread_whose_exit_record_was_lost_is_closed_after_the_next_scan)
{
	struct worker ending[2], stays;
	int stop_ending[2], stop_stays[2];
	uint32_t lost, late, me = (uint32_t)getpid();
	struct session s;
	uint64_t ended;

	start_workers(ending, 2, stop_ending);
	start_workers(&stays, 1, stop_stays);
	lost = (uint32_t)ending[0].tid;
	late = (uint32_t)ending[1].tid;
	session_start(&s, NULL);
	/*
	 * Task records on: a scan ends a thread only by asking the engine
	 * (trace_scan_lost_exit()), not by comparing two listings.
	 */
	s.t.sum.tasks = true;
	EXPECT_TRUE(open_in_engine(&s, lost));
	EXPECT_TRUE(open_in_engine(&s, late));

	stop_workers(ending, 2, stop_ending);
	ended = trace_now();
	ASSERT_FALSE(task_thread_alive(getpid(), lost));
	ASSERT_FALSE(task_thread_alive(getpid(), late));
	ring_task_exit(&s, late, ended);
	/* The round whose horizon is that record's time: it scans only. */
	step(&s, ended + DRAIN_SLACK_NS);
	EXPECT_EQ(s.given, 0);
	EXPECT_TRUE(open_in_engine(&s, lost));
	EXPECT_TRUE(open_in_engine(&s, late));
	EXPECT_EQ(s.t.sum.lost_exits, 0);

	/* A round whose drain is past the scan. */
	step(&s, trace_now() + DRAIN_SLACK_NS + 1);
	EXPECT_EQ(s.given, 1);
	EXPECT_FALSE(open_in_engine(&s, lost));
	EXPECT_FALSE(open_in_engine(&s, late));
	EXPECT_EQ(s.t.sum.lost_exits, 1);
	EXPECT_EQ(s.t.live.nr_exits, 0);
	EXPECT_TRUE(open_in_engine(&s, (uint32_t)stays.tid));
	EXPECT_TRUE(open_in_engine(&s, me));

	stop_workers(&stays, 1, stop_stays);
	session_end(&s);
}

/*
 * A listing of /proc/PID/task read while threads exit can skip a live
 * one.  A thread the scan did not list is asked for by its path: a live
 * one keeps running, and only one whose entry is gone has its exit
 * queued, at its last record.
 */
TEST(a_live_thread_the_listing_skipped_keeps_running)
{
	struct worker w[2];
	int stop_live[2], stop_gone[2];
	uint32_t live_tid, gone_tid;
	struct session s;

	start_workers(&w[0], 1, stop_live);
	start_workers(&w[1], 1, stop_gone);
	live_tid = (uint32_t)w[0].tid;
	gone_tid = (uint32_t)w[1].tid;
	session_start(&s, NULL);
	s.t.sum.tasks = true;
	stop_workers(&w[1], 1, stop_gone);
	ASSERT_FALSE(task_thread_alive(getpid(), gone_tid));
	ASSERT_TRUE(task_thread_alive(getpid(), live_tid));
	/* Neither listed: the one gone, and the one skipped. */
	drop_tid(&s.t.live.alive, live_tid);
	drop_tid(&s.t.live.alive, gone_tid);

	trace_scan_lost_exit(&s.t, live_tid, 1000);
	EXPECT_EQ(s.t.live.nr_exits, 0);
	trace_scan_lost_exit(&s.t, gone_tid, 2000);
	ASSERT_EQ(s.t.live.nr_exits, 1);
	EXPECT_EQ(s.t.live.exits[0].tid, gone_tid);
	EXPECT_EQ(s.t.live.exits[0].alive_ts, 2000u);
	/* The next round closes it; the live one stays open. */
	step(&s, trace_now() + DRAIN_SLACK_NS + 1);
	EXPECT_FALSE(open_in_engine(&s, gone_tid));
	EXPECT_TRUE(open_in_engine(&s, live_tid));

	stop_workers(&w[0], 1, stop_live);
	session_end(&s);
}

/* @name, a page of it, mapped at @at (NULL: anywhere). */
static void *map_file(const char *name, void *at)
{
	char path[PATH_MAX];
	void *m;
	int fd;

	path_in(path, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, FILE_SIZE), 0);
	m = mmap(at, FILE_SIZE, PROT_READ, MAP_PRIVATE | (at ? MAP_FIXED : 0),
		 fd, 0);
	close(fd);
	ASSERT_NE(m, MAP_FAILED);
	return m;
}

/* The generation the writer names its calls' keys by. */
static uint64_t names_generation(const struct session *s)
{
	const struct perfetto_names *n = &s->t.out.perfetto->names;

	return n->generation(n->ctx);
}

/*
 * The maps read by the rounds from @from_ms to @to_ms after @start, one
 * every 100 ms.
 */
static uint64_t reads_in_rounds(struct session *s, uint64_t start,
				unsigned int from_ms, unsigned int to_ms)
{
	uint64_t reads = elf_symbolizer_reads(s->t.sym);
	unsigned int ms;

	for (ms = from_ms; ms <= to_ms; ms += 100)
		step(s, start + ms * MS);
	return elf_symbolizer_reads(s->t.sym) - reads;
}

/*
 * A library replaced at the same address, with no miss to read the maps
 * again: the first round read them, the rounds of the next second read
 * nothing and the names stay the old library's; the round a second after
 * the first read finds the new one, and the names move; the rounds of the
 * second after that read nothing again.
 */
TEST(a_live_trace_names_a_library_replaced_in_place_a_second_later)
{
	struct session s;
	uint64_t start, old;
	void *lib;

	session_start(&s, "follow.pftrace");
	lib = map_file("libold.so", NULL);
	trace_snapshot_maps(&s.t);
	ASSERT_TRUE(s.t.sym);
	start = trace_now();
	EXPECT_EQ(reads_in_rounds(&s, start, 0, 0), 1);
	old = names_generation(&s);

	ASSERT_EQ(map_file("libnew.so", lib), lib);
	EXPECT_EQ(reads_in_rounds(&s, start, 100, 900), 0);
	EXPECT_EQ(names_generation(&s), old);
	EXPECT_EQ(reads_in_rounds(&s, start, 1000, 1000), 1);
	EXPECT_NE(names_generation(&s), old);
	EXPECT_EQ(reads_in_rounds(&s, start, 1100, 1900), 0);
	munmap(lib, FILE_SIZE);
	session_end(&s);
}

TEST_HARNESS_MAIN
