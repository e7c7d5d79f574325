/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipeline_bench's records: what a traced program would write into the
 * per-CPU rings of bench_ring.h (pipeline_bench.c's header says what).
 * Included by pipeline_bench.c only.
 */
#ifndef ISPOT_PIPELINE_GEN_H
#define ISPOT_PIPELINE_GEN_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/drain.h"
#include "bench/bench_ring.h"

#define NR_RINGS	2
#define NR_THREADS	8
#define NR_PROBES	4
#define MAX_DEPTH	3
#define STACK_PERIOD	10000
#define STACK_FRAMES	16
#define TID_BASE	4100

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
	bool waits;		/* switch records too */
	bool stacks;		/* and call stacks */
};

static uint64_t rng(struct gen *g)
{
	/* xorshift64*: cheap, so the untimed part stays short too. */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545f4914f6cdd1dULL;
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
		if (++g->entries % STACK_PERIOD == 1 && g->stacks)
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

#endif /* ISPOT_PIPELINE_GEN_H */
