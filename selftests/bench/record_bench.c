// SPDX-License-Identifier: GPL-2.0
/*
 * What a recording costs: its size per million records, what writing it
 * adds to the live pipeline per record, and how long `ispotctl report`
 * takes to replay it against the live session's own time in the
 * pipeline.  Natively, without the kernel, on the synthetic session of
 * the recording unit test (selftests/unit/recording_session.h: two
 * functions, two threads, a call stack every tenth call).  Times are
 * the process's CPU time (the write()s' included), the least of --runs
 * runs of each, the three taken in turn in every run, so that a busy host
 * slows them alike.  A live time is the records' handling alone: they
 * are made in runs of 4096 slots outside it, as the module makes them
 * outside ispotctl, and the drain reads each run from a ring
 * (bench_ring.h) inside it, as a live session reads them and as
 * pipeline_bench times them.  Never pass/fail.
 *
 *   record_bench [--calls N] [--runs N]
 *	(default 250,000 calls: ~1.05M records; 3 runs)
 *
 * Figures, on stdout:
 *   record_bytes_per_million_records   the file's size per 1M records
 *   record_bytes_per_record            the same, per record
 *   record_live_ns_per_record          pipeline and recording, per record
 *   pipeline_live_ns_per_record        the pipeline alone, per record
 *   record_write_vs_pipeline           the first over the second
 *   report_replay_ns_per_record        `report FILE`, per record
 *   report_replay_vs_live              report's time over the live time
 *                                      in the pipeline and recording
 *   perfetto_bytes_per_record          `report FILE --perfetto`'s trace,
 *                                      per record
 *   perfetto_replay_ns_per_record      `report FILE --perfetto`, per
 *                                      record (the replay and the trace)
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/drain.h"
#include "bench/bench_ring.h"
#include "unit/pipeline_feed.h"
#include "unit/recording_session.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * The records are made a run at a time outside the timed part, as the
 * module makes them outside ispotctl, into a buffer, copied into a ring
 * of a run that the drain empties in the timed part (256 KiB each, in
 * the L2 caches of the hosts measured).  Not smaller: each run costs two
 * reads of the process's CPU clock, system calls.
 */
#define RUN_SLOTS	4096

/* A drained record into the session, as a live session's drain hands it. */
static void on_record(void *ctx, const struct ispot_record *rec)
{
	trace_on_record(ctx, rec);
}

/* @n slots of @buf into @r, published: what the module would have written. */
static void ring_put(struct bench_ring *r, const struct ispot_record *buf,
		     size_t n)
{
	size_t i;

	if (n > ring_free(r)) {
		fprintf(stderr, "record_bench: a run of %zu slots does not "
			"fit its ring\n", n);
		exit(1);
	}
	for (i = 0; i < n; i++)
		*ring_slot(r, i) = buf[i];
	ring_publish(r, (uint32_t)n);
}

/*
 * One live session of @calls: its CPU time handling the records (and
 * starting and ending the recording), in ns.
 */
static double live(const char *rec, const char *json, unsigned int calls)
{
	struct ispot_record *buf = malloc(RUN_SLOTS * sizeof(*buf));
	const struct drain_stats *ds;
	struct recording_session s;
	struct bench_ring ring;
	struct drain *d = NULL;
	struct rs_gen g;
	double t0, spent;
	long drained;
	void *base;
	size_t n;

	if (!buf || ring_init(&ring, 0, RUN_SLOTS, &base) ||
	    !(d = drain_new(&base, 1, ring_release, &ring)) ||
	    rs_start(&s, rec, json, 64ull << 30)) {
		fprintf(stderr, "record_bench: cannot start the session\n");
		exit(1);
	}
	t0 = now_ns();
	rs_gen_begin(&s, &g, calls);
	spent = now_ns() - t0;
	while ((n = rs_gen_next(&s, &g, buf, RUN_SLOTS))) {
		ring_put(&ring, buf, n);
		t0 = now_ns();
		drained = drain_round(d, UINT64_MAX, on_record, &s.t);
		spent += now_ns() - t0;
		if (drained < 0) {
			fprintf(stderr, "record_bench: drain: %s\n",
				strerror((int)-drained));
			exit(1);
		}
	}
	t0 = now_ns();
	rs_gen_end(&s, &g);
	spent += now_ns() - t0;
	ds = drain_stats(d);
	if (ds->records != g.drained || ds->late || ds->corrupt) {
		fprintf(stderr, "record_bench: the drain read %llu of %llu "
			"records (late %llu, corrupt %llu)\n",
			(unsigned long long)ds->records,
			(unsigned long long)g.drained,
			(unsigned long long)ds->late,
			(unsigned long long)ds->corrupt);
		exit(1);
	}
	if (rs_stop(&s)) {
		fprintf(stderr, "record_bench: cannot write %s\n", rec);
		exit(1);
	}
	trace_free(&s.t);
	drain_free(d);
	free(base);
	free(buf);
	return spent;
}

static double least(double a, double b)
{
	return a < b ? a : b;
}

/* `report @o->recording`: its CPU time, in ns. */
static double replay_time(const struct trace_opts *o)
{
	double t = now_ns();

	if (trace_replay(o))
		exit(1);
	return now_ns() - t;
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "calls", required_argument, NULL, 'c' },
		{ "runs", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	char dir[] = "/tmp/ispot-record-bench-XXXXXX";
	char rec[64], json[64], off[64], pft[64];
	unsigned int calls = 250000, runs = 3, i;
	struct trace_opts o = { .json = true };
	double with = 1e300, without = 1e300, replay = 1e300, records;
	double traced = 1e300;
	struct stat st, pst;
	int c;

	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		unsigned long v = strtoul(optarg, NULL, 10);

		if ((c != 'c' && c != 'r') || !v) {
			fprintf(stderr, "usage: record_bench [--calls N] "
				"[--runs N]\n");
			return 2;
		}
		if (c == 'c')
			calls = v;
		else
			runs = v;
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(rec, sizeof(rec), "%s/r.isr", dir);
	snprintf(json, sizeof(json), "%s/live.json", dir);
	snprintf(off, sizeof(off), "%s/offline.json", dir);
	snprintf(pft, sizeof(pft), "%s/trace.pftrace", dir);
	o.output = off;
	o.recording = rec;
	for (i = 0; i < runs; i++) {
		without = least(without, live(NULL, json, calls));
		with = least(with, live(rec, json, calls));
		replay = least(replay, replay_time(&o));
		o.perfetto = pft;
		traced = least(traced, replay_time(&o));
		o.perfetto = NULL;
	}
	if (stat(rec, &st))
		return 1;
	if (stat(pft, &pst))
		return 1;
	/* Four records a call, and a call stack every tenth call. */
	records = calls * 4.0 + (calls + 9) / 10;
	printf("record_bytes_per_million_records: %.0f\n",
	       st.st_size / records * 1e6);
	printf("record_bytes_per_record: %.2f\n", st.st_size / records);
	printf("record_live_ns_per_record: %.1f\n", with / records);
	printf("pipeline_live_ns_per_record: %.1f\n", without / records);
	printf("record_write_vs_pipeline: %.2f\n", with / without);
	printf("report_replay_ns_per_record: %.1f\n", replay / records);
	printf("report_replay_vs_live: %.2f\n", replay / with);
	printf("perfetto_bytes_per_record: %.1f\n", pst.st_size / records);
	printf("perfetto_replay_ns_per_record: %.1f\n", traced / records);
	fprintf(stderr, "# %.0f records, %lld bytes, least of %u runs\n",
		records, (long long)st.st_size, runs);
	unlink(rec);
	unlink(json);
	unlink(off);
	unlink(pft);
	rmdir(dir);
	return 0;
}
