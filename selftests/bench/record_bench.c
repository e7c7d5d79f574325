// SPDX-License-Identifier: GPL-2.0
/*
 * What a recording costs: its size per million records, what writing it
 * adds to the live pipeline per record, and how long `ispotctl report`
 * takes to replay it against the live session's own time in the
 * pipeline.  Natively, without the kernel, on the synthetic session of
 * the recording unit test (selftests/unit/recording_session.h: two
 * functions, two threads, a call stack every tenth call).  Never
 * pass/fail.
 *
 *   record_bench [--calls N]     (default 250,000 calls: ~1.05M records)
 *
 * Figures, on stdout:
 *   record_bytes_per_million_records   the file's size per 1M records
 *   record_live_ns_per_record          pipeline and recording, per record
 *   pipeline_live_ns_per_record        the pipeline alone, per record
 *   report_replay_ns_per_record        `report FILE`, per record
 *   report_replay_vs_live              report's time over the live time
 *                                      in the pipeline and recording
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "unit/pipeline_feed.h"
#include "unit/recording_session.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One live session of @calls; its time in rs_trace(), in ns. */
static double live(const char *rec, const char *json, unsigned int calls)
{
	struct recording_session s;
	double t0, t1;

	if (rs_start(&s, rec, json, 64ull << 30)) {
		fprintf(stderr, "record_bench: cannot start the session\n");
		exit(1);
	}
	t0 = now_ns();
	rs_trace(&s, calls);
	t1 = now_ns();
	if (rs_stop(&s)) {
		fprintf(stderr, "record_bench: cannot write %s\n", rec);
		exit(1);
	}
	trace_free(&s.t);
	return t1 - t0;
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "calls", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	char dir[] = "/tmp/ispot-record-bench-XXXXXX";
	char rec[64], json[64], off[64];
	unsigned int calls = 250000;
	struct trace_opts o = { .json = true };
	double with, without, replay, records;
	struct stat st;
	int c;

	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		if (c != 'c' || (calls = strtoul(optarg, NULL, 10)) == 0) {
			fprintf(stderr, "usage: record_bench [--calls N]\n");
			return 2;
		}
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(rec, sizeof(rec), "%s/r.isr", dir);
	snprintf(json, sizeof(json), "%s/live.json", dir);
	snprintf(off, sizeof(off), "%s/offline.json", dir);
	without = live(NULL, json, calls);
	with = live(rec, json, calls);
	o.output = off;
	o.recording = rec;
	replay = now_ns();
	if (trace_replay(&o))
		return 1;
	replay = now_ns() - replay;
	if (stat(rec, &st))
		return 1;
	/* Four records a call, and a call stack every tenth call. */
	records = calls * 4.0 + (calls + 9) / 10;
	printf("record_bytes_per_million_records: %.0f\n",
	       st.st_size / records * 1e6);
	printf("record_live_ns_per_record: %.1f\n", with / records);
	printf("pipeline_live_ns_per_record: %.1f\n", without / records);
	printf("report_replay_ns_per_record: %.1f\n", replay / records);
	printf("report_replay_vs_live: %.2f\n", replay / with);
	fprintf(stderr, "# %.0f records, %lld bytes\n", records,
		(long long)st.st_size);
	unlink(rec);
	unlink(json);
	unlink(off);
	rmdir(dir);
	return 0;
}
