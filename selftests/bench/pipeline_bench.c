// SPDX-License-Identifier: GPL-2.0
/*
 * How fast ispotctl turns records into scores, and in how much memory:
 * the drain -> pair -> SCI pipeline on one core, natively, without the
 * kernel, with every analysis on.  Never pass/fail.
 *
 *   pipeline_bench [--events N] [--slots N] [--stage drain|pair|full]
 *                  [--rounds N] [--cost-events N]
 *
 * Per-CPU rings are built in ordinary memory, laid out as the module lays
 * them out (control page, then 64-byte slots; 2 MiB per ring by default,
 * ispotctl's default --ring-size), and the drain reads them with a release
 * function in place of ISPOT_IOC_RING_CONSUME.  One thread plays both
 * sides: it fills the rings as far as they go, drains them into
 * pipeline_record(), and fills them again, so the same ring memory is
 * reused for the whole run and the memory stays flat.
 *
 * The records are what a traced program would give (pipeline_gen.h): 8
 * threads on 2 CPUs (running in bursts, migrating now and then), with a
 * SWITCH_OUT (preempted) of the thread that stops and a SWITCH_IN of the
 * one that runs at every change of thread, 4 probed functions, calls
 * nested up to 3 deep, one function keyed by its shapes, one by every
 * argument's log2 (KEY_AUTO's shadows), one by call site (3 of them) and
 * one by a lock address (4 of them), exits at entry sp + 8, timestamps
 * that increase, and a call stack every 10,000 entries.  Each round holds
 * back the newest eighth of what it published (the horizon), as a real
 * drain holds back what is newer than its slack.  Every analysis is on:
 * the timeline (causes), interference, stacks, shapes and argument keys.
 *
 * Only the drain_round() calls are timed, in CPU time of the thread (the
 * host may be shared), and they include everything downstream (pairing,
 * keys, the timeline, the SCI engine, the histograms): generating the
 * records is outside the timed part.  Two clock reads per round of some
 * 50,000 records cost nothing measurable.
 *
 * Figures, on stdout:
 *   pipeline_events_per_sec  records through the pipeline per second,
 *                            every analysis on (--events, 100M)
 *   pipeline_ns_per_event    the same, as ns per record
 *   pipeline_rss_mib_10m     peak RSS after 10M records
 *   pipeline_rss_mib_100m    peak RSS after 100M records
 *   pipeline_cost_ns_NAME    what analysis NAME adds per record: ns per
 *                            record with every analysis on, less with
 *                            NAME alone off (timeline, interference,
 *                            stacks, shapes, argkeys)
 *   pipeline_all_ns_per_event_short  every analysis on, in those runs
 *   pipeline_plain_events_per_sec    and pipeline_plain_ns_per_event:
 *                            the plain pipeline of earlier figures (no
 *                            switch records, no timeline, the first
 *                            function unkeyed, the second by log2 of
 *                            its size), as before
 * ru_maxrss is the process' peak, so both RSS figures come from one run:
 * the first is taken when the count crosses 10M, the second when it
 * crosses 100M; equal figures mean memory did not grow with events.  The
 * prices come after, from --rounds rounds (3; 0: none) of --cost-events
 * records (10M) per run: each round runs all on, then each analysis off
 * in turn, then the plain pipeline, so that the host's drift falls on all
 * alike, and a price is the median of its rounds' differences.  Notes
 * start with '#'.
 *
 * --stage cuts the headline run short to see where the time goes:
 * "drain" hands each record to a callback that only reads its timestamp,
 * "pair" feeds the pairer and drops the executions.  Those runs print
 * their ns per record as notes, not figures, and price nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "analysis/drain.h"
#include "analysis/pipeline.h"

#include "bench/pipeline_gen.h"

/* The host is shared: CPU time of this thread, not wall time, is timed. */
static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static double peak_rss_mib(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_maxrss / 1024.0;	/* KiB on Linux */
}

enum stage { STAGE_DRAIN, STAGE_PAIR, STAGE_FULL };

static const char *const stage_names[] = { "drain", "pair", "full" };

/*
 * The analyses a run can leave out, to price each per record.  The
 * timeline's price includes interference's, which needs it.
 */
enum analysis { AN_TIMELINE, AN_INTERF, AN_STACKS, AN_SHAPES, AN_ARGKEYS,
		NR_AN };
#define AN_ALL		((1u << NR_AN) - 1)
#define AN_SHADOW	100	/* argkeys: probe 2's shadow ids, 100..102 */

static const char *const an_names[NR_AN] = {
	"timeline", "interference", "stacks", "shapes", "argkeys",
};

/*
 * One run of the pipeline over fresh records, in rings of its own, and
 * what it measured; run_step() takes it one round further, so that runs
 * can take turns.
 */
struct run {
	unsigned int on;	/* of enum analysis */
	bool waits;		/* switch records */
	enum stage stage;
	uint64_t events;
	bool report;		/* the headline: RSS figures and the stats */
	uint64_t drained;
	uint64_t cpu_ns;	/* CPU time in drain_round(), all included */
	uint64_t wall_ns;	/* the whole run, generating included */
	/* Its state while it runs. */
	struct gen g;
	struct pipeline *p;
	struct drain *d;
	struct pairer *pairer;	/* --stage pair */
	uint64_t sum;		/* --stage drain */
	uint64_t prev_now;
	bool done;
};

static uint64_t slots = 32768;

/* --stage drain: read what the drain hands over, and nothing else. */
static void drain_only(void *ctx, const struct ispot_record *rec)
{
	*(uint64_t *)ctx += rec->ts_ns;
}

/* --stage pair: the pipeline up to the pairer, no keys and no engine. */
static void pair_only(void *ctx, const struct ispot_record *rec)
{
	pairer_feed(ctx, rec);
}

/*
 * 4 functions: 1 unkeyed (by its shapes with shapes on), 2 by log2 of a
 * size (by every argument's log2, KEY_AUTO's shadows, with argkeys on), 3
 * by call site, 4 by a lock address.
 */
static struct pipeline *run_pipeline(const struct run *r)
{
	const struct key_rule by_size = { .kind = KEY_ARG, .arg = 0,
					  .log2 = true };
	const struct key_rule by_site = { .kind = KEY_CALLSITE };
	const struct key_rule by_lock = { .kind = KEY_ARG, .arg = 1 };
	const struct key_rule by_shape = { .kind = KEY_SHAPE };
	const struct key_rule by_auto = { .kind = KEY_AUTO };
	struct pipeline *p = pipeline_new();
	bool args = r->on & 1u << AN_ARGKEYS;

	if (!p || ((r->on & 1u << AN_TIMELINE) && pipeline_enable_causes(p)) ||
	    pipeline_add_probe(p, 1, 1, (r->on & 1u << AN_SHAPES) ?
				     &by_shape : NULL) ||
	    pipeline_add_probe(p, 2, 2, args ? &by_auto : &by_size) ||
	    (args && pipeline_set_shadows(p, 2, AN_SHADOW)) ||
	    pipeline_add_probe(p, 3, 3, &by_site) ||
	    pipeline_add_probe(p, 4, 4, &by_lock)) {
		pipeline_free(p);
		return NULL;
	}
	p->no_interference = !(r->on & 1u << AN_INTERF);
	return p;
}

static void print_stats(struct pipeline *p, struct drain *d,
			const struct run *r)
{
	const struct drain_stats *ds = drain_stats(d);
	const struct pair_stats *ps = pairer_stats(p->pairer);
	struct sci_report *rep = sci_report(p->sci, 0);

	printf("# %llu records in %.2f s of CPU draining, %.2f s in all "
	       "(generating included); %llu rounds\n",
	       (unsigned long long)r->drained, r->cpu_ns / 1e9,
	       r->wall_ns / 1e9, (unsigned long long)ds->rounds);
	printf("# peak RSS after %llu records: %.1f MiB; SCI engine %zu "
	       "bytes, %zu blocks, %zu threads, %zu pairs, %zu hot slots\n",
	       (unsigned long long)r->drained, peak_rss_mib(),
	       sci_mem_bytes(p->sci), sci_nr_blocks(p->sci),
	       sci_nr_threads(p->sci), sci_nr_block_threads(p->sci),
	       sci_hot_slots(p->sci));
	printf("# paired %llu, unpaired entries %llu, exits %llu; "
	       "stacks %llu; late %llu, corrupt %llu, unknown %llu\n",
	       (unsigned long long)ps->paired,
	       (unsigned long long)ps->unpaired_entries,
	       (unsigned long long)ps->unpaired_exits,
	       (unsigned long long)p->stats.stacks,
	       (unsigned long long)ds->late,
	       (unsigned long long)ds->corrupt,
	       (unsigned long long)(p->stats.unknown_probe +
				    p->stats.unknown_kind));
	if (rep && rep->nr_blocks)
		printf("# top block: function %u key %#llx, %llu calls, "
		       "SCI %.3f\n", rep->blocks[0].func_id,
		       (unsigned long long)rep->blocks[0].key,
		       (unsigned long long)rep->blocks[0].calls,
		       rep->blocks[0].sci);
	sci_report_free(rep);
}

/* One round: fill the rings, drain them (timed); the last empties them. */
static int run_step(struct run *r)
{
	drain_record_fn fn = pipeline_record;
	void *fn_ctx = r->p;
	uint64_t horizon, t0, t1, w0 = clock_ns(CLOCK_MONOTONIC);
	bool last;
	long n;

	if (r->stage == STAGE_DRAIN) {
		fn = drain_only;
		fn_ctx = &r->sum;
	} else if (r->stage == STAGE_PAIR) {
		fn = pair_only;
		fn_ctx = r->pairer;
	}
	gen_fill(&r->g, r->events);
	last = r->g.records >= r->events;
	horizon = last ? UINT64_MAX : r->g.now - (r->g.now - r->prev_now) / 8;
	r->prev_now = r->g.now;
	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	n = drain_round(r->d, horizon, fn, fn_ctx);
	t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (n < 0) {
		fprintf(stderr, "pipeline_bench: drain: %s\n", strerror((int)-n));
		return -1;
	}
	r->cpu_ns += t1 - t0;
	r->wall_ns += clock_ns(CLOCK_MONOTONIC) - w0;
	if (r->report && r->drained < 10000000 && r->drained + n >= 10000000)
		printf("pipeline_rss_mib_10m: %.1f\n", peak_rss_mib());
	if (r->report && r->drained < 100000000 &&
	    r->drained + n >= 100000000)
		printf("pipeline_rss_mib_100m: %.1f\n", peak_rss_mib());
	fflush(stdout);
	r->drained += n;
	r->done = last;
	return 0;
}

/* Set up @r (its kind filled in) to run from fresh records. */
static int run_start(struct run *r)
{
	void *bases[NR_RINGS];
	uint32_t i;

	memset(&r->g, 0, sizeof(r->g));
	for (i = 0; i < NR_RINGS; i++) {
		if (ring_init(&r->g.rings[i], i, slots, &bases[i]))
			return -1;
	}
	r->g.waits = r->waits;
	r->g.stacks = r->on & 1u << AN_STACKS;
	r->g.rng = 0x9e3779b97f4a7c15ULL;
	r->prev_now = r->g.now = 1000000000;
	r->p = run_pipeline(r);
	r->d = drain_new(bases, NR_RINGS, ring_release, r->g.rings);
	if (r->stage == STAGE_PAIR)
		r->pairer = pairer_new(NULL, NULL);
	if (!r->p || !r->d || (r->stage == STAGE_PAIR && !r->pairer))
		return -1;
	for (i = 0; i < NR_THREADS; i++) {
		r->g.threads[i].tid = TID_BASE + i;
		r->g.threads[i].cpu = i % NR_RINGS;
		pipeline_thread_seen(r->p, r->g.threads[i].tid, r->g.now);
	}
	r->g.cur = &r->g.threads[0];
	r->drained = r->cpu_ns = r->wall_ns = 0;
	r->done = false;
	return 0;
}

/* Free @r's state; -1 if its pipeline lost records. */
static int run_end(struct run *r)
{
	const struct drain_stats *ds = drain_stats(r->d);
	uint64_t lost_exits = pairer_stats(r->p->pairer)->unpaired_exits;
	int ret = 0;
	uint32_t i;

	pipeline_finish(r->p, r->g.now);
	if (r->report && r->stage == STAGE_FULL)
		print_stats(r->p, r->d, r);
	/* A pipeline that loses records measured something else. */
	if (r->stage == STAGE_FULL &&
	    (r->drained != r->g.records || ds->corrupt || lost_exits)) {
		fprintf(stderr, "pipeline_bench: %llu of %llu records came "
			"through (corrupt %llu, unpaired exits %llu)\n",
			(unsigned long long)r->drained,
			(unsigned long long)r->g.records,
			(unsigned long long)ds->corrupt,
			(unsigned long long)lost_exits);
		ret = -1;
	}
	pairer_free(r->pairer);
	drain_free(r->d);
	pipeline_free(r->p);
	for (i = 0; i < NR_RINGS; i++)
		free(r->g.rings[i].ctrl);
	return ret;
}

/* Runs @runs[0..@n) by turns, a round each, till all are done. */
static int run_all(struct run *runs, uint32_t n)
{
	uint32_t i, left = n;
	int ret = 0;

	for (i = 0; i < n; i++)
		if (run_start(&runs[i])) {
			fprintf(stderr, "pipeline_bench: cannot set up the "
				"pipeline\n");
			return -1;
		}
	while (left && !ret)
		for (i = 0, left = 0; i < n && !ret; i++)
			if (!runs[i].done) {
				ret = run_step(&runs[i]);
				left += !runs[i].done;
			}
	for (i = 0; i < n; i++)
		ret |= run_end(&runs[i]);
	return ret;
}

static double ns_per(const struct run *r)
{
	return r->drained ? (double)r->cpu_ns / r->drained : 0.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, uint32_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAX_ROUNDS	15

/*
 * Each analysis's price: every round runs everything on, each analysis
 * left out in turn, and the plain pipeline (no switch records, the old
 * keys, stacks), side by side, a drain round of each by turns, so that
 * the host's drift falls on all alike; the price is the median over the
 * rounds of the difference.
 */
static int run_costs(uint64_t events, uint32_t rounds)
{
	static double cost[NR_AN][MAX_ROUNDS], all[MAX_ROUNDS];
	static double plain[MAX_ROUNDS];
	static struct run runs[NR_AN + 2];
	uint32_t k, a;

	for (k = 0; k < rounds; k++) {
		for (a = 0; a < NR_AN + 1; a++)
			runs[a] = (struct run){
				.on = a ? AN_ALL & ~(1u << (a - 1)) : AN_ALL,
				.waits = true, .stage = STAGE_FULL,
				.events = events };
		runs[NR_AN + 1] = (struct run){ .on = 1u << AN_STACKS,
						.stage = STAGE_FULL,
						.events = events };
		if (run_all(runs, NR_AN + 2))
			return -1;
		all[k] = ns_per(&runs[0]);
		printf("# round %u: all on %.1f ns/record", k + 1, all[k]);
		for (a = 0; a < NR_AN; a++) {
			cost[a][k] = all[k] - ns_per(&runs[a + 1]);
			printf(", %s off %.1f", an_names[a],
			       ns_per(&runs[a + 1]));
		}
		plain[k] = ns_per(&runs[NR_AN + 1]);
		printf(", plain %.1f\n", plain[k]);
		fflush(stdout);
	}
	for (a = 0; a < NR_AN; a++)
		printf("pipeline_cost_ns_%s: %.1f\n", an_names[a],
		       median(cost[a], rounds));
	printf("pipeline_all_ns_per_event_short: %.1f\n",
	       median(all, rounds));
	k = rounds;
	printf("pipeline_plain_ns_per_event: %.1f\n", median(plain, k));
	printf("pipeline_plain_events_per_sec: %.0f\n",
	       1e9 / median(plain, k));
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: pipeline_bench [--events N] [--slots N] "
		"[--stage drain|pair|full] [--rounds N] [--cost-events N]\n");
	exit(2);
}

static uint64_t parse_count(const char *s, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "slots", required_argument, NULL, 's' },
		{ "stage", required_argument, NULL, 'S' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "cost-events", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct run head = { .on = AN_ALL, .waits = true,
				   .stage = STAGE_FULL, .events = 100000000 };
	uint64_t cost_events = 10000000;
	uint32_t i, rounds = 3;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			head.events = parse_count(optarg, 1, UINT64_MAX);
			break;
		case 's':
			slots = parse_count(optarg, 64, 1u << 24);
			if (slots & (slots - 1))
				usage();
			break;
		case 'r':
			rounds = parse_count(optarg, 0, MAX_ROUNDS);
			break;
		case 'c':
			cost_events = parse_count(optarg, 1, UINT64_MAX);
			break;
		case 'S':
			for (i = 0; i <= STAGE_FULL; i++)
				if (!strcmp(optarg, stage_names[i]))
					break;
			if (i > STAGE_FULL)
				usage();
			head.stage = i;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	head.report = head.stage == STAGE_FULL;
	printf("# %llu records, %d rings of %llu slots, %d threads, "
	       "%d functions, switch records, every analysis on; stage %s\n",
	       (unsigned long long)head.events, NR_RINGS,
	       (unsigned long long)slots, NR_THREADS, NR_PROBES,
	       stage_names[head.stage]);
	printf("# peak RSS before the first record: %.1f MiB\n",
	       peak_rss_mib());
	fflush(stdout);
	if (run_all(&head, 1))
		return 1;
	if (head.stage != STAGE_FULL) {
		printf("# stage %s: %.1f ns per record (%llu records)\n",
		       stage_names[head.stage], ns_per(&head),
		       (unsigned long long)head.drained);
		return 0;
	}
	printf("pipeline_events_per_sec: %.0f\n",
	       head.cpu_ns ? head.drained * 1e9 / head.cpu_ns : 0.0);
	printf("pipeline_ns_per_event: %.1f\n", ns_per(&head));
	fflush(stdout);
	if (rounds && run_costs(cost_events, rounds))
		return 1;
	return 0;
}
