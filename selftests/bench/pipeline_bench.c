// SPDX-License-Identifier: GPL-2.0
/*
 * How fast ispotctl turns records into scores, and in how much memory:
 * the drain -> pair -> SCI pipeline on one core, natively, without the
 * kernel.  Never pass/fail.
 *
 *   pipeline_bench [--events N] [--slots N] [--stage drain|pair|full]
 *                  [--waits]
 *
 * Per-CPU rings are built in ordinary memory, laid out as the module lays
 * them out (control page, then 64-byte slots; 2 MiB per ring by default,
 * ispotctl's default --ring-size), and the drain reads them with a release
 * function in place of ISPOT_IOC_RING_CONSUME.  One thread plays both
 * sides: it fills the rings as far as they go, drains them into
 * pipeline_record(), and fills them again, so the same ring memory is
 * reused for the whole run and the memory stays flat.
 *
 * The records are what a traced program would give: 8 threads on 2 CPUs
 * (running in bursts, migrating now and then), 4 probed functions, calls
 * nested up to 3 deep, one function keyed by log2 of a size argument, one
 * by call site (3 of them) and one by a lock address (4 of them), exits at
 * entry sp + 8, timestamps that increase, and a call stack every 10,000
 * entries.  Each round holds back the newest eighth of what it published
 * (the horizon), as a real drain holds back what is newer than its slack.
 *
 * Only the drain_round() calls are timed, and they include everything
 * downstream (pairing, keys, the SCI engine, the histograms): generating
 * the records is outside the timed part, so no generation-only pass has to
 * be subtracted.  Two clock reads per round of some 50,000 records cost
 * nothing measurable.
 *
 * Figures, on stdout:
 *   pipeline_events_per_sec  records through the pipeline per second
 *   pipeline_ns_per_event    the same, as ns per record
 *   pipeline_rss_mib_10m     peak RSS after 10M records
 *   pipeline_rss_mib_100m    peak RSS after 100M records
 * ru_maxrss is the process' peak, so both come from one run: the first is
 * taken when the count crosses 10M, the second when it crosses 100M; equal
 * figures mean memory did not grow with events.  Notes start with '#'.
 *
 * --waits adds what the module's wait tracing adds: a SWITCH_OUT
 * (preempted) of the thread that stops and a SWITCH_IN of the one that
 * runs at every change of thread, and the timeline that turns them into
 * each call's causes and context (the interference figure's).  The
 * figures then count those records too.
 *
 * --stage cuts the pipeline short to see where the time goes: "drain"
 * hands each record to a callback that only reads its timestamp, "pair"
 * feeds the pairer and drops the executions.  Those runs print their
 * ns per record as notes, not figures.
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

#define NR_RINGS	2
#define NR_THREADS	8
#define NR_PROBES	4
#define MAX_DEPTH	3
#define STACK_PERIOD	10000
#define STACK_FRAMES	16
#define TID_BASE	4100
#define CTRL_SIZE	4096

struct bench_ring {
	struct ispot_ring_ctrl *ctrl;
	struct ispot_record *slots;
	uint64_t mask;
};

struct frame {
	uint32_t probe;
	uint64_t sp;
};

struct gen_thread {
	uint32_t tid;
	uint32_t cpu;
	uint32_t depth;
	struct frame stack[MAX_DEPTH];
};

struct gen {
	struct bench_ring rings[NR_RINGS];
	struct gen_thread threads[NR_THREADS];
	struct gen_thread *cur;
	uint32_t burst;		/* records before another thread runs */
	uint64_t now;		/* the clock */
	uint64_t rng;
	uint64_t entries;
	uint64_t records;	/* published */
	bool waits;		/* --waits: switch records too */
};

static uint64_t rng(struct gen *g)
{
	/* xorshift64*: cheap, so the untimed part stays short too. */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545f4914f6cdd1dULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static double peak_rss_mib(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_maxrss / 1024.0;	/* KiB on Linux */
}

static int ring_init(struct bench_ring *r, uint32_t cpu, uint32_t nr_slots,
		     void **base)
{
	size_t size = CTRL_SIZE + (size_t)nr_slots * ISPOT_SLOT_SIZE;

	*base = aligned_alloc(4096, size);
	if (!*base)
		return -ENOMEM;
	/* Touch it all now: the RSS figures should not see it arrive. */
	memset(*base, 0, size);
	r->ctrl = *base;
	r->ctrl->nr_slots = nr_slots;
	r->ctrl->cpu = cpu;
	r->ctrl->data_offset = CTRL_SIZE;
	r->slots = (void *)((char *)*base + CTRL_SIZE);
	r->mask = nr_slots - 1;
	return 0;
}

static int release(void *ctx, uint32_t cpu, uint64_t tail)
{
	struct gen *g = ctx;

	g->rings[cpu].ctrl->tail = tail;
	return 0;
}

static uint64_t ring_free(const struct bench_ring *r)
{
	return r->mask + 1 - (r->ctrl->head - r->ctrl->tail);
}

static struct ispot_record *ring_slot(struct bench_ring *r, uint64_t i)
{
	return &r->slots[(r->ctrl->head + i) & r->mask];
}

static void ring_publish(struct bench_ring *r, uint32_t n)
{
	__atomic_store_n(&r->ctrl->head, r->ctrl->head + n, __ATOMIC_RELEASE);
}

static void put_stack(struct gen *g, struct bench_ring *r,
		      const struct gen_thread *t)
{
	struct ispot_record *h = ring_slot(r, 0);
	uint32_t i, n = 1 + (STACK_FRAMES + 7) / 8;

	memset(h, 0, sizeof(*h));
	h->ts_ns = g->now;
	h->tid = t->tid;
	h->tgid = TID_BASE;
	h->probe_id = t->stack[t->depth - 1].probe;
	h->cpu = t->cpu;
	h->kind = ISPOT_REC_STACK;
	h->nslots = n;
	h->data[0] = STACK_FRAMES;
	for (i = 1; i < n; i++) {
		uint64_t *f = (uint64_t *)ring_slot(r, i);
		uint32_t k;

		for (k = 0; k < 8; k++)
			f[k] = 0x401000 + 0x100 * (i * 8 + k);
	}
	ring_publish(r, n);
	g->records++;
}

/* A switch record of @t on its CPU: out preempted, or in. */
static void gen_switch(struct gen *g, const struct gen_thread *t,
		       uint8_t kind)
{
	struct bench_ring *r = &g->rings[t->cpu];
	struct ispot_record *rec = ring_slot(r, 0);

	memset(rec, 0, sizeof(*rec));
	rec->ts_ns = ++g->now;
	rec->tid = t->tid;
	rec->tgid = TID_BASE;
	rec->cpu = t->cpu;
	rec->nslots = 1;
	rec->kind = kind;
	rec->data[0] = kind == ISPOT_REC_SWITCH_OUT;
	ring_publish(r, 1);
	g->records++;
}

/*
 * One record of the running thread: an entry (nested while not too deep,
 * sometimes) or the exit of its innermost call.
 */
static void gen_one(struct gen *g)
{
	struct gen_thread *t;
	struct bench_ring *r;
	struct ispot_record *rec;
	uint64_t x = rng(g);

	if (!g->burst) {
		if (g->waits)
			gen_switch(g, g->cur, ISPOT_REC_SWITCH_OUT);
		g->cur = &g->threads[x % NR_THREADS];
		if (g->waits)
			gen_switch(g, g->cur, ISPOT_REC_SWITCH_IN);
		g->burst = 1 + (x >> 8) % 16;
		if (((x >> 16) & 4095) == 0)
			g->cur->cpu ^= 1;	/* migrated */
	}
	g->burst--;
	t = g->cur;
	r = &g->rings[t->cpu];
	g->now += 1 + (x >> 24) % 64;

	rec = ring_slot(r, 0);
	rec->ts_ns = g->now;
	rec->tid = t->tid;
	rec->tgid = TID_BASE;
	rec->cpu = t->cpu;
	rec->nslots = 1;
	if (!t->depth || (t->depth < MAX_DEPTH && ((x >> 32) & 3) == 0)) {
		uint32_t probe = 1 + (x >> 40) % NR_PROBES;
		struct frame *f = &t->stack[t->depth++];

		f->probe = probe;
		f->sp = 0x7ffd00000008ULL + 0x1000000ULL * t->tid -
			0x40ULL * t->depth;
		rec->kind = ISPOT_REC_ENTRY;
		rec->probe_id = probe;
		rec->sp = f->sp;
		/* Call site: 3 of them, the key of probe 3. */
		rec->ip = 0x401000 + 0x40 * ((x >> 44) % 3);
		/* A size (probe 2's key, by log2) and a lock (probe 4's). */
		rec->data[0] = 1 + ((x >> 46) & 0xffff);
		rec->data[1] = 0x602000 + 0x40 * ((x >> 62) & 3);
		rec->data[2] = 0;
		ring_publish(r, 1);
		g->records++;
		if (++g->entries % STACK_PERIOD == 1)
			put_stack(g, r, t);
	} else {
		const struct frame *f = &t->stack[--t->depth];

		rec->kind = ISPOT_REC_EXIT;
		rec->probe_id = f->probe;
		rec->sp = f->sp + 8;
		rec->ip = 0x401005;
		rec->data[0] = x & 0xff;
		rec->data[1] = 0;
		rec->data[2] = 0;
		ring_publish(r, 1);
		g->records++;
	}
}

/* Publish until a ring could not take a full call stack, or @total. */
static void gen_fill(struct gen *g, uint64_t total)
{
	while (g->records < total &&
	       ring_free(&g->rings[0]) >= DRAIN_MAX_SLOTS + 1 &&
	       ring_free(&g->rings[1]) >= DRAIN_MAX_SLOTS + 1)
		gen_one(g);
}

enum stage { STAGE_DRAIN, STAGE_PAIR, STAGE_FULL };

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

static void usage(void)
{
	fprintf(stderr, "usage: pipeline_bench [--events N] [--slots N] "
		"[--stage drain|pair|full] [--waits]\n");
	exit(2);
}

static uint64_t parse_count(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || !v)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "slots", required_argument, NULL, 's' },
		{ "stage", required_argument, NULL, 'S' },
		{ "waits", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t events = 100000000, slots = 32768, drained = 0;
	uint64_t busy = 0, prev_now, t_start, wall;
	const struct key_rule by_size = { .kind = KEY_ARG, .arg = 0,
					  .log2 = true };
	const struct key_rule by_site = { .kind = KEY_CALLSITE };
	const struct key_rule by_lock = { .kind = KEY_ARG, .arg = 1 };
	const struct pair_stats *ps;
	const struct drain_stats *ds;
	void *bases[NR_RINGS];
	struct pipeline *p;
	struct sci_report *rep;
	struct drain *d;
	bool got_10m = false, got_100m = false;
	enum stage stage = STAGE_FULL;
	static const char *const stage_names[] = { "drain", "pair", "full" };
	struct pairer *pairer = NULL;
	drain_record_fn fn = pipeline_record;
	uint64_t sum = 0;
	void *fn_ctx;
	static struct gen g;
	uint32_t i;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			events = parse_count(optarg);
			break;
		case 's':
			slots = parse_count(optarg);
			if ((slots & (slots - 1)) || slots < 64 ||
			    slots > (1u << 24))
				usage();
			break;
		case 'w':
			g.waits = true;
			break;
		case 'S':
			for (stage = 0; stage <= STAGE_FULL; stage++)
				if (!strcmp(optarg, stage_names[stage]))
					break;
			if (stage > STAGE_FULL)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();

	g.rng = 0x9e3779b97f4a7c15ULL;
	g.now = 1000000000;
	for (i = 0; i < NR_RINGS; i++)
		if (ring_init(&g.rings[i], i, slots, &bases[i])) {
			fprintf(stderr, "pipeline_bench: out of memory\n");
			return 1;
		}
	p = pipeline_new();
	d = drain_new(bases, NR_RINGS, release, &g);
	if (!p || !d || (g.waits && pipeline_enable_causes(p)) ||
	    pipeline_add_probe(p, 1, 1, NULL) ||
	    pipeline_add_probe(p, 2, 2, &by_size) ||
	    pipeline_add_probe(p, 3, 3, &by_site) ||
	    pipeline_add_probe(p, 4, 4, &by_lock)) {
		fprintf(stderr, "pipeline_bench: cannot set up the pipeline\n");
		return 1;
	}
	for (i = 0; i < NR_THREADS; i++) {
		g.threads[i].tid = TID_BASE + i;
		g.threads[i].cpu = i % NR_RINGS;
		pipeline_thread_seen(p, g.threads[i].tid, g.now);
	}
	g.cur = &g.threads[0];
	/* The RSS figures describe the whole pipeline only. */
	got_10m = got_100m = stage != STAGE_FULL;
	fn_ctx = p;
	if (stage == STAGE_DRAIN) {
		fn = drain_only;
		fn_ctx = &sum;
	} else if (stage == STAGE_PAIR) {
		pairer = pairer_new(NULL, NULL);
		if (!pairer)
			return 1;
		fn = pair_only;
		fn_ctx = pairer;
	}
	printf("# %llu records, %d rings of %llu slots, %d threads, "
	       "%d functions; stage %s%s\n", (unsigned long long)events,
	       NR_RINGS, (unsigned long long)slots, NR_THREADS, NR_PROBES,
	       stage_names[stage], g.waits ? ", with switch records" : "");
	printf("# peak RSS before the first record: %.1f MiB\n",
	       peak_rss_mib());
	fflush(stdout);

	prev_now = g.now;
	t_start = now_ns();
	for (;;) {
		/* The last round empties the rings. */
		bool last;
		uint64_t horizon, t0, t1;
		long n;

		gen_fill(&g, events);
		last = g.records >= events;
		horizon = last ? UINT64_MAX : g.now - (g.now - prev_now) / 8;
		prev_now = g.now;
		t0 = now_ns();
		n = drain_round(d, horizon, fn, fn_ctx);
		t1 = now_ns();
		if (n < 0) {
			fprintf(stderr, "pipeline_bench: drain: %s\n",
				strerror((int)-n));
			return 1;
		}
		busy += t1 - t0;
		drained += n;
		if (!got_10m && drained >= 10000000) {
			printf("pipeline_rss_mib_10m: %.1f\n", peak_rss_mib());
			fflush(stdout);
			got_10m = true;
		}
		if (!got_100m && drained >= 100000000) {
			printf("pipeline_rss_mib_100m: %.1f\n", peak_rss_mib());
			fflush(stdout);
			got_100m = true;
		}
		if (last)
			break;
	}
	wall = now_ns() - t_start;

	pipeline_finish(p, g.now);
	rep = sci_report(p->sci, 0);
	ds = drain_stats(d);
	ps = pairer_stats(p->pairer);

	if (stage != STAGE_FULL) {
		printf("# stage %s: %.1f ns per record (%llu records, "
		       "sum %llx)\n", stage_names[stage],
		       drained ? (double)busy / drained : 0.0,
		       (unsigned long long)drained, (unsigned long long)sum);
		pairer_free(pairer);
		return 0;
	}
	printf("pipeline_events_per_sec: %.0f\n",
	       busy ? drained * 1e9 / busy : 0.0);
	printf("pipeline_ns_per_event: %.1f\n",
	       drained ? (double)busy / drained : 0.0);
	printf("# %llu records in %.2f s draining, %.2f s in all "
	       "(generating included); %llu rounds\n",
	       (unsigned long long)drained, busy / 1e9, wall / 1e9,
	       (unsigned long long)ds->rounds);
	printf("# peak RSS after %llu records: %.1f MiB; SCI engine %zu "
	       "bytes, %zu blocks, %zu threads\n",
	       (unsigned long long)drained, peak_rss_mib(),
	       sci_mem_bytes(p->sci), sci_nr_blocks(p->sci),
	       sci_nr_threads(p->sci));
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

	/* A pipeline that loses records measured something else. */
	if (drained != g.records || ds->corrupt || ps->unpaired_exits) {
		fprintf(stderr, "pipeline_bench: %llu of %llu records came "
			"through (corrupt %llu, unpaired exits %llu)\n",
			(unsigned long long)drained,
			(unsigned long long)g.records,
			(unsigned long long)ds->corrupt,
			(unsigned long long)ps->unpaired_exits);
		return 1;
	}
	drain_free(d);
	pipeline_free(p);
	for (i = 0; i < NR_RINGS; i++)
		free(bases[i]);
	return 0;
}
