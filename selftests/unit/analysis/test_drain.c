// SPDX-License-Identifier: GPL-2.0
/*
 * The drain on rings built in ordinary memory, laid out as the module lays
 * them out (a 4096-byte control page, then nr_slots 64-byte slots), with a
 * release callback standing in for ISPOT_IOC_RING_CONSUME: one ring in
 * order, several rings merged into one time order, the horizon, the exact
 * release positions, a call stack that wraps around the end of its ring,
 * late records, malformed control pages and records, a failing release,
 * and random streams checked to come out sorted and each record once.
 *
 * Every record carries an id in @ip (ring << 32 | sequence), so the output
 * can be checked to be a permutation of the input, and a STACK record's
 * frames are a function of its id, so a torn or misplaced slot shows.
 */
#include <stdint.h>

#include "ispot_test.h"
#include "analysis/drain.h"

#define CTRL_SIZE	4096
#define MAX_RINGS	8
#define ID(ring, seq)	(((uint64_t)(ring) << 32) | (seq))
#define FRAME(id, k)	(0x7f0000000000ULL ^ ((id) * 131 + (k)))

static uint64_t rng_state = 0xb7e151628aed2a6bULL;

static uint64_t rng(void)
{
	return ispot_test_rand(&rng_state);
}

struct fake_ring {
	void *base;
	struct ispot_ring_ctrl *ctrl;
	struct ispot_record *slots;
	uint64_t seq;		/* next id sequence number */
};

/* Every call of the release callback, and what it should answer. */
struct release_log {
	struct fake_ring *rings;
	uint32_t nr;
	int fail;		/* returned instead of 0 while non-zero */
	unsigned int calls;
	uint32_t cpu[64];
	uint64_t tail[64];
};

static void ring_init(struct fake_ring *r, uint32_t nr_slots, uint32_t cpu,
		      uint64_t start)
{
	size_t size = CTRL_SIZE + (size_t)nr_slots * ISPOT_SLOT_SIZE;

	memset(r, 0, sizeof(*r));
	r->base = aligned_alloc(4096, size);
	ASSERT_TRUE(r->base);
	/* Garbage everywhere a reader has no business looking. */
	memset(r->base, 0xcc, size);
	r->ctrl = r->base;
	memset(r->ctrl, 0, sizeof(*r->ctrl));
	r->ctrl->nr_slots = nr_slots;
	r->ctrl->cpu = cpu;
	r->ctrl->data_offset = CTRL_SIZE;
	r->ctrl->head = r->ctrl->tail = start;
	r->slots = (void *)((char *)r->base + CTRL_SIZE);
}

static uint64_t ring_free_slots(const struct fake_ring *r)
{
	return r->ctrl->nr_slots - (r->ctrl->head - r->ctrl->tail);
}

/* Write @n slots at head (wrapping) and publish them, as the module does. */
static void ring_publish(struct fake_ring *r, const struct ispot_record *v,
			 uint32_t n)
{
	uint64_t head = r->ctrl->head;
	uint32_t i;

	ASSERT_LE(n, ring_free_slots(r));
	for (i = 0; i < n; i++)
		r->slots[(head + i) & (r->ctrl->nr_slots - 1)] = v[i];
	__atomic_store_n(&r->ctrl->head, head + n, __ATOMIC_RELEASE);
}

static uint64_t push(struct fake_ring *r, uint64_t ts)
{
	struct ispot_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.ts_ns = ts;
	rec.tid = 1000 + r->ctrl->cpu;
	rec.tgid = 1000;
	rec.probe_id = 1;
	rec.cpu = r->ctrl->cpu;
	rec.kind = ISPOT_REC_ENTRY;
	rec.nslots = 1;
	rec.sp = 0x7ffd00000000ULL + ts;
	rec.ip = ID(r->ctrl->cpu, r->seq++);
	rec.data[0] = ts * 3;
	rec.data[1] = ts * 5;
	rec.data[2] = ts * 7;
	ring_publish(r, &rec, 1);
	return rec.ip;
}

/* A STACK record with @frames frames: one header slot, then the frames. */
static uint64_t push_stack(struct fake_ring *r, uint64_t ts, uint32_t frames)
{
	struct ispot_record v[DRAIN_MAX_SLOTS];
	uint64_t *f = (uint64_t *)&v[1];
	uint32_t k, n = 1 + (frames + 7) / 8;

	ASSERT_LE(frames, ISPOT_STACK_MAX_FRAMES);
	memset(v, 0, sizeof(v));
	v[0].ts_ns = ts;
	v[0].tid = 1000 + r->ctrl->cpu;
	v[0].tgid = 1000;
	v[0].probe_id = 1;
	v[0].cpu = r->ctrl->cpu;
	v[0].kind = ISPOT_REC_STACK;
	v[0].nslots = n;
	v[0].ip = ID(r->ctrl->cpu, r->seq++);
	v[0].data[0] = frames;
	for (k = 0; k < frames; k++)
		f[k] = FRAME(v[0].ip, k);
	ring_publish(r, v, n);
	return v[0].ip;
}

static void ring_free(struct fake_ring *r)
{
	free(r->base);
}

static int release_cb(void *ctx, uint32_t cpu, uint64_t tail)
{
	struct release_log *log = ctx;
	struct ispot_ring_ctrl *ctrl;

	ASSERT_LT(cpu, log->nr);
	ctrl = log->rings[cpu].ctrl;
	if (log->calls < 64) {
		log->cpu[log->calls] = cpu;
		log->tail[log->calls] = tail;
	}
	log->calls++;
	/* What the module checks before it accepts a tail. */
	ASSERT_GT(tail, ctrl->tail);
	ASSERT_LE(tail, ctrl->head);
	if (log->fail)
		return log->fail;
	ctrl->tail = tail;
	return 0;
}

/* What the drain emitted, with a check of every STACK record's frames. */
struct out {
	uint64_t ts;
	uint64_t id;
	uint32_t cpu;
	uint8_t kind;
	uint8_t nslots;
};

struct sink {
	struct out *v;
	size_t n;
	size_t cap;
	uint64_t bad_frames;
};

static void sink_cb(void *ctx, const struct ispot_record *rec)
{
	struct sink *s = ctx;
	struct out *o;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct out *v = realloc(s->v, cap * sizeof(*v));

		ASSERT_TRUE(v);
		s->v = v;
		s->cap = cap;
	}
	o = &s->v[s->n++];
	o->ts = rec->ts_ns;
	o->id = rec->ip;
	o->cpu = rec->cpu;
	o->kind = rec->kind;
	o->nslots = rec->nslots;
	if (rec->kind == ISPOT_REC_STACK) {
		/* The frames must follow the header in memory. */
		const uint64_t *f = (const uint64_t *)&rec[1];
		uint64_t k;

		if (rec->data[0] > ISPOT_STACK_MAX_FRAMES ||
		    rec->nslots != 1 + (rec->data[0] + 7) / 8) {
			s->bad_frames++;
			return;
		}
		for (k = 0; k < rec->data[0]; k++)
			if (f[k] != FRAME(rec->ip, k))
				s->bad_frames++;
	}
}

struct rig {
	struct fake_ring rings[MAX_RINGS];
	void *bases[MAX_RINGS];
	uint32_t nr;
	struct release_log log;
	struct sink sink;
	struct drain *d;
};

static void rig_init(struct rig *g, uint32_t nr, uint32_t nr_slots,
		     uint64_t start)
{
	uint32_t i;

	/* A merge that stops making progress fails by SIGALRM, not hangs. */
	alarm(10);
	memset(g, 0, sizeof(*g));
	ASSERT_LE(nr, MAX_RINGS);
	g->nr = nr;
	for (i = 0; i < nr; i++) {
		ring_init(&g->rings[i], nr_slots, i, start);
		g->bases[i] = g->rings[i].base;
	}
	g->log.rings = g->rings;
	g->log.nr = nr;
	g->d = drain_new(g->bases, nr, release_cb, &g->log);
	ASSERT_TRUE(g->d);
}

static void rig_free(struct rig *g)
{
	uint32_t i;

	drain_free(g->d);
	for (i = 0; i < g->nr; i++)
		ring_free(&g->rings[i]);
	free(g->sink.v);
}

static long run_round(struct rig *g, uint64_t horizon)
{
	return drain_round(g->d, horizon, sink_cb, &g->sink);
}

/* Non-decreasing timestamps over the whole output. */
static void assert_sorted(const struct sink *s)
{
	size_t i;

	for (i = 1; i < s->n; i++)
		if (s->v[i].ts < s->v[i - 1].ts) {
			TH_LOG("out of order at %zu: %llu after %llu", i,
			       (unsigned long long)s->v[i].ts,
			       (unsigned long long)s->v[i - 1].ts);
			ASSERT_TRUE(0);
		}
}

TEST(single_ring_in_order)
{
	struct rig g;
	uint64_t i, ids[10];

	rig_init(&g, 1, 16, 0);
	for (i = 0; i < 10; i++)
		ids[i] = push(&g.rings[0], 100 + i);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 10);
	ASSERT_EQ(g.sink.n, 10);
	for (i = 0; i < 10; i++) {
		EXPECT_EQ(g.sink.v[i].ts, 100 + i);
		EXPECT_EQ(g.sink.v[i].id, ids[i]);
		EXPECT_EQ(g.sink.v[i].kind, ISPOT_REC_ENTRY);
	}
	/* One release per round per ring, at the end of what was read. */
	ASSERT_EQ(g.log.calls, 1);
	EXPECT_EQ(g.log.cpu[0], 0);
	EXPECT_EQ(g.log.tail[0], 10);
	EXPECT_EQ(g.rings[0].ctrl->tail, 10);
	EXPECT_EQ(drain_pending(g.d), 0);
	EXPECT_EQ(drain_oldest_pending(g.d), UINT64_MAX);

	/* Nothing new: nothing emitted, nothing to give back. */
	ASSERT_EQ(run_round(&g, UINT64_MAX), 0);
	EXPECT_EQ(g.log.calls, 1);
	EXPECT_EQ(drain_stats(g.d)->records, 10);
	EXPECT_EQ(drain_stats(g.d)->rounds, 2);
	EXPECT_EQ(drain_stats(g.d)->late, 0);
	EXPECT_EQ(drain_stats(g.d)->corrupt, 0);
	rig_free(&g);
}


static void copy_cb(void *ctx, const struct ispot_record *rec)
{
	memcpy(ctx, rec, sizeof(*rec));
}

/* Every field arrives exactly as published, reserved bits included. */
TEST(record_carried_intact)
{
	struct ispot_record want, got;
	struct rig g;

	rig_init(&g, 1, 4, 0);
	memset(&want, 0x5a, sizeof(want));
	want.ts_ns = 12345;
	want.kind = ISPOT_REC_EXIT;
	want.nslots = 1;
	ring_publish(&g.rings[0], &want, 1);
	memset(&got, 0, sizeof(got));
	ASSERT_EQ(drain_round(g.d, UINT64_MAX, copy_cb, &got), 1);
	ASSERT_EQ(memcmp(&got, &want, sizeof(got)), 0);
	rig_free(&g);
}

TEST(two_rings_interleaved)
{
	const uint64_t n = 20;
	struct rig g;
	uint64_t i;

	rig_init(&g, 2, 32, 0);
	for (i = 0; i < n; i++) {
		push(&g.rings[0], 2 * i);
		push(&g.rings[1], 2 * i + 1);
	}
	ASSERT_EQ(run_round(&g, UINT64_MAX), 2 * n);
	ASSERT_EQ(g.sink.n, 2 * n);
	for (i = 0; i < 2 * n; i++) {
		EXPECT_EQ(g.sink.v[i].ts, i);
		EXPECT_EQ(g.sink.v[i].cpu, i & 1);
		EXPECT_EQ(g.sink.v[i].id, ID(i & 1, i / 2));
	}
	ASSERT_EQ(g.log.calls, 2);
	EXPECT_EQ(g.log.tail[0], n);
	EXPECT_EQ(g.log.tail[1], n);
	EXPECT_NE(g.log.cpu[0], g.log.cpu[1]);
	EXPECT_EQ(g.rings[0].ctrl->tail, n);
	EXPECT_EQ(g.rings[1].ctrl->tail, n);
	EXPECT_EQ(drain_stats(g.d)->late, 0);
	rig_free(&g);
}

/*
 * Bursts of random length go to random rings, as records do when a thread
 * runs for a while on one CPU: the output is exactly the global order.
 */
TEST(four_rings_bursts)
{
	const uint64_t n = 400;
	uint64_t want[400], ts = 0;
	struct rig g;
	uint64_t i;

	rig_init(&g, 4, 256, 0);
	while (ts < n) {
		struct fake_ring *r = &g.rings[rng() % 4];
		uint64_t burst = 1 + rng() % 8;

		while (burst-- && ts < n) {
			want[ts] = push(r, ts);
			ts++;
		}
	}
	ASSERT_EQ(run_round(&g, UINT64_MAX), n);
	ASSERT_EQ(g.sink.n, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(g.sink.v[i].ts, i);
		EXPECT_EQ(g.sink.v[i].id, want[i]);
	}
	for (i = 0; i < 4; i++)
		EXPECT_EQ(g.rings[i].ctrl->tail, g.rings[i].ctrl->head);
	EXPECT_EQ(drain_stats(g.d)->late, 0);
	rig_free(&g);
}

/* Equal timestamps in different rings are not late, and none is lost. */
TEST(equal_timestamps)
{
	struct rig g;

	rig_init(&g, 3, 8, 0);
	push(&g.rings[0], 5);
	push(&g.rings[0], 5);
	push(&g.rings[1], 5);
	push(&g.rings[2], 4);
	push(&g.rings[2], 5);
	push(&g.rings[1], 6);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 6);
	assert_sorted(&g.sink);
	EXPECT_EQ(g.sink.v[0].ts, 4);
	EXPECT_EQ(g.sink.v[5].ts, 6);
	EXPECT_EQ(drain_stats(g.d)->late, 0);
	rig_free(&g);
}

/*
 * A record at or after the horizon stays in its ring, unreleased, and
 * comes out in a later round: once, and in order.
 */
TEST(horizon_holds_back)
{
	struct rig g;
	const uint64_t want[] = { 10, 15, 20, 25, 30, 35, 40 };
	size_t i;

	rig_init(&g, 2, 8, 0);
	push(&g.rings[0], 10);
	push(&g.rings[0], 20);
	push(&g.rings[0], 30);
	push(&g.rings[0], 40);
	push(&g.rings[1], 15);
	push(&g.rings[1], 25);
	push(&g.rings[1], 35);

	ASSERT_EQ(run_round(&g, 26), 4);
	ASSERT_EQ(g.sink.n, 4);
	EXPECT_EQ(drain_pending(g.d), 3);
	EXPECT_EQ(drain_oldest_pending(g.d), 30);
	/* Released up to the first held-back record, not beyond. */
	ASSERT_EQ(g.log.calls, 2);
	EXPECT_EQ(g.rings[0].ctrl->tail, 2);
	EXPECT_EQ(g.rings[1].ctrl->tail, 2);

	/* The horizon is exclusive: ts == horizon waits. */
	ASSERT_EQ(run_round(&g, 30), 0);
	EXPECT_EQ(g.log.calls, 2);
	EXPECT_EQ(drain_pending(g.d), 3);

	ASSERT_EQ(run_round(&g, 31), 1);
	ASSERT_EQ(g.log.calls, 3);
	EXPECT_EQ(g.log.cpu[2], 0);
	EXPECT_EQ(g.log.tail[2], 3);
	EXPECT_EQ(g.rings[1].ctrl->tail, 2);

	/* A horizon that went back emits nothing and breaks nothing. */
	ASSERT_EQ(run_round(&g, 12), 0);

	ASSERT_EQ(run_round(&g, UINT64_MAX), 2);
	ASSERT_EQ(g.sink.n, 7);
	for (i = 0; i < 7; i++)
		EXPECT_EQ(g.sink.v[i].ts, want[i]);
	EXPECT_EQ(g.rings[0].ctrl->tail, 4);
	EXPECT_EQ(g.rings[1].ctrl->tail, 3);
	EXPECT_EQ(drain_pending(g.d), 0);
	EXPECT_EQ(drain_stats(g.d)->records, 7);
	EXPECT_EQ(drain_stats(g.d)->late, 0);
	rig_free(&g);
}

/*
 * Positions count slots and never wrap, so a ring that has been in use for
 * a while starts far from 0; the release gets those positions exactly.
 */
TEST(release_positions)
{
	const uint64_t start = 5 * 16 + 13;
	struct rig g;
	uint64_t i;

	rig_init(&g, 2, 16, start);
	for (i = 0; i < 10; i++)
		push(&g.rings[0], 100 + i);
	push(&g.rings[1], 50);
	ASSERT_EQ(run_round(&g, 105), 6);
	ASSERT_EQ(g.log.calls, 2);
	for (i = 0; i < 2; i++) {
		if (g.log.cpu[i] == 0)
			EXPECT_EQ(g.log.tail[i], start + 5);
		else
			EXPECT_EQ(g.log.tail[i], start + 1);
	}
	EXPECT_NE(g.log.cpu[0], g.log.cpu[1]);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 5);
	ASSERT_EQ(g.log.calls, 3);
	EXPECT_EQ(g.log.cpu[2], 0);
	EXPECT_EQ(g.log.tail[2], start + 10);
	for (i = 0; i < g.sink.n; i++)
		EXPECT_EQ(g.sink.v[i].ts, i ? 99 + i : 50);
	rig_free(&g);
}

/*
 * A call stack that wraps around the end of its ring reaches the callback
 * in one piece, and the records around it are not disturbed.
 */
TEST(stack_record_wraps)
{
	uint64_t a, s, b;
	struct rig g;

	/* 8 slots from 6: the 4-slot stack sits in slots 7, 0, 1, 2. */
	rig_init(&g, 1, 8, 6);
	a = push(&g.rings[0], 10);
	s = push_stack(&g.rings[0], 11, 20);
	b = push(&g.rings[0], 12);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 3);
	ASSERT_EQ(g.sink.n, 3);
	EXPECT_EQ(g.sink.v[0].id, a);
	EXPECT_EQ(g.sink.v[1].id, s);
	EXPECT_EQ(g.sink.v[1].kind, ISPOT_REC_STACK);
	EXPECT_EQ(g.sink.v[1].nslots, 4);
	EXPECT_EQ(g.sink.v[2].id, b);
	EXPECT_EQ(g.sink.bad_frames, 0);
	EXPECT_EQ(g.rings[0].ctrl->tail, 6 + 6);

	/* A full stack, 5 slots, wrapping again (slots 4..7, 0). */
	push(&g.rings[0], 13);
	push(&g.rings[0], 14);
	push(&g.rings[0], 15);
	push(&g.rings[0], 16);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 4);
	s = push_stack(&g.rings[0], 17, ISPOT_STACK_MAX_FRAMES);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 1);
	EXPECT_EQ(g.sink.v[7].id, s);
	EXPECT_EQ(g.sink.v[7].nslots, 1 + ISPOT_STACK_MAX_FRAMES / 8);
	/* And one that fits without wrapping, read in place. */
	s = push_stack(&g.rings[0], 18, 3);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 1);
	EXPECT_EQ(g.sink.v[8].id, s);
	EXPECT_EQ(g.sink.v[8].nslots, 2);
	EXPECT_EQ(g.sink.bad_frames, 0);
	EXPECT_EQ(drain_stats(g.d)->corrupt, 0);
	rig_free(&g);
}

/*
 * A record published after a newer one was emitted from another ring is
 * still passed on (pairing only needs each thread in order), and counted.
 */
TEST(late_record)
{
	struct rig g;

	rig_init(&g, 2, 8, 0);
	push(&g.rings[0], 100);
	push(&g.rings[0], 200);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 2);
	push(&g.rings[1], 150);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 1);
	ASSERT_EQ(g.sink.n, 3);
	EXPECT_EQ(g.sink.v[2].ts, 150);
	EXPECT_EQ(g.sink.v[2].cpu, 1);
	EXPECT_EQ(drain_stats(g.d)->late, 1);
	EXPECT_EQ(drain_stats(g.d)->records, 3);
	EXPECT_EQ(g.rings[1].ctrl->tail, 1);

	/* Back in step: not late. */
	push(&g.rings[0], 300);
	push(&g.rings[1], 250);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 2);
	EXPECT_EQ(g.sink.v[3].ts, 250);
	EXPECT_EQ(g.sink.v[4].ts, 300);
	EXPECT_EQ(drain_stats(g.d)->late, 1);

	/* Out of order inside one ring: passed on in ring order, counted. */
	push(&g.rings[0], 400);
	push(&g.rings[0], 350);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 2);
	EXPECT_EQ(g.sink.v[5].ts, 400);
	EXPECT_EQ(g.sink.v[6].ts, 350);
	EXPECT_EQ(drain_stats(g.d)->late, 2);
	rig_free(&g);
}

TEST(malformed_control_page)
{
	static const uint32_t bad_slots[] = { 0, 3, 12, 0x80000001u };
	struct fake_ring good, bad;
	void *bases[2];
	struct drain *d;
	size_t i;

	ring_init(&good, 16, 0, 0);
	ring_init(&bad, 16, 1, 0);
	bases[0] = good.base;
	bases[1] = bad.base;
	d = drain_new(bases, 2, NULL, NULL);
	ASSERT_TRUE(d);
	drain_free(d);

	for (i = 0; i < sizeof(bad_slots) / sizeof(bad_slots[0]); i++) {
		bad.ctrl->nr_slots = bad_slots[i];
		EXPECT_FALSE(drain_new(bases, 2, NULL, NULL));
		EXPECT_FALSE(drain_new(&bases[1], 1, NULL, NULL));
	}
	/* Slot 0 cannot overlap the control fields. */
	bad.ctrl->nr_slots = 16;
	bad.ctrl->data_offset = 8;
	EXPECT_FALSE(drain_new(bases, 2, NULL, NULL));
	ring_free(&good);
	ring_free(&bad);
}

/* No ring at all is a valid, empty stream. */
TEST(no_rings)
{
	struct sink s;
	struct drain *d;

	memset(&s, 0, sizeof(s));
	d = drain_new(NULL, 0, NULL, NULL);
	ASSERT_TRUE(d);
	EXPECT_EQ(drain_round(d, UINT64_MAX, sink_cb, &s), 0);
	EXPECT_EQ(drain_pending(d), 0);
	EXPECT_EQ(drain_oldest_pending(d), UINT64_MAX);
	drain_free(d);
}

/*
 * Malformed records (which only a module bug could write) are counted and
 * skipped; the drain neither loops nor stalls the ring, the other rings go
 * on, and records published afterwards are read normally.
 */
static void check_corrupt(uint8_t nslots, uint32_t published)
{
	struct ispot_record v[4];
	const struct drain_stats *st;
	struct rig g;

	ASSERT_LE(published, 4);
	rig_init(&g, 2, 16, 0);
	st = drain_stats(g.d);
	push(&g.rings[0], 10);
	memset(v, 0, sizeof(v));
	v[0].ts_ns = 20;
	v[0].kind = ISPOT_REC_STACK;
	v[0].nslots = nslots;
	v[0].data[0] = 8;
	ring_publish(&g.rings[0], v, published);
	push(&g.rings[0], 30);
	push(&g.rings[1], 15);
	push(&g.rings[1], 25);

	/* 10, 15 and 25 at least; nothing of the corrupt record. */
	ASSERT_GE(run_round(&g, UINT64_MAX), 3);
	ASSERT_GE(g.sink.n, 3);
	EXPECT_EQ(g.sink.v[0].ts, 10);
	EXPECT_EQ(g.sink.v[g.sink.n - 1].ts, g.sink.n == 3 ? 25 : 30);
	EXPECT_GE(st->corrupt, 1);
	EXPECT_LE(st->corrupt, published + 1);
	EXPECT_EQ(st->records + st->corrupt, 4 + published);
	EXPECT_EQ(g.sink.bad_frames, 0);
	EXPECT_EQ(drain_pending(g.d), 0);
	/* The slots went back to the producer: the ring is not stuck. */
	EXPECT_EQ(g.rings[0].ctrl->tail, g.rings[0].ctrl->head);
	EXPECT_EQ(g.rings[1].ctrl->tail, g.rings[1].ctrl->head);

	push(&g.rings[0], 40);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 1);
	EXPECT_EQ(g.sink.v[g.sink.n - 1].ts, 40);
	EXPECT_EQ(drain_stats(g.d)->late, 0);
	rig_free(&g);
}

TEST(corrupt_nslots_zero)
{
	check_corrupt(0, 1);
}

TEST(corrupt_nslots_too_large)
{
	check_corrupt(DRAIN_MAX_SLOTS + 1, 1);
	check_corrupt(255, 1);
}

/* A header that claims more slots than were published. */
TEST(corrupt_nslots_past_head)
{
	struct ispot_record v;
	struct rig g;

	rig_init(&g, 1, 16, 0);
	push(&g.rings[0], 10);
	memset(&v, 0, sizeof(v));
	v.ts_ns = 20;
	v.kind = ISPOT_REC_STACK;
	v.nslots = 3;
	ring_publish(&g.rings[0], &v, 1);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 1);
	EXPECT_EQ(drain_stats(g.d)->corrupt, 1);
	EXPECT_EQ(g.rings[0].ctrl->tail, 2);
	rig_free(&g);
}

/* A head more than a ring ahead of the tail: the control page lies. */
TEST(corrupt_head_overrun)
{
	struct rig g;

	rig_init(&g, 2, 16, 0);
	push(&g.rings[1], 7);
	g.rings[0].ctrl->head = 1000;
	ASSERT_EQ(run_round(&g, UINT64_MAX), 1);
	EXPECT_EQ(g.sink.v[0].ts, 7);
	EXPECT_EQ(drain_stats(g.d)->corrupt, 1000);
	EXPECT_EQ(drain_pending(g.d), 0);
	rig_free(&g);
}

/*
 * A release that fails makes the round fail with its errno.  The records
 * were handed out already, so they are not handed out again; the tail is
 * given back at the next round instead.
 */
TEST(release_failure)
{
	struct rig g;

	rig_init(&g, 2, 16, 0);
	push(&g.rings[0], 1);
	push(&g.rings[0], 2);
	push(&g.rings[1], 3);
	g.log.fail = -EPERM;
	ASSERT_EQ(run_round(&g, UINT64_MAX), -EPERM);
	EXPECT_EQ(g.sink.n, 3);
	EXPECT_EQ(g.rings[0].ctrl->tail, 0);
	EXPECT_EQ(g.rings[1].ctrl->tail, 0);

	/* Not an errno: the drain must still report a failure. */
	g.log.fail = 1;
	ASSERT_EQ(run_round(&g, UINT64_MAX), -EIO);
	EXPECT_EQ(g.sink.n, 3);

	g.log.fail = 0;
	ASSERT_EQ(run_round(&g, UINT64_MAX), 0);
	EXPECT_EQ(g.sink.n, 3);
	EXPECT_EQ(g.rings[0].ctrl->tail, 2);
	EXPECT_EQ(g.rings[1].ctrl->tail, 1);
	EXPECT_EQ(drain_pending(g.d), 0);

	push(&g.rings[1], 4);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 1);
	EXPECT_EQ(g.sink.n, 4);
	EXPECT_EQ(g.rings[1].ctrl->tail, 2);
	rig_free(&g);
}

/*
 * What is left for later, as of the last round: pending counts slots (a
 * call stack is several), the oldest is the smallest ring front.
 */
TEST(pending_and_oldest)
{
	struct rig g;

	rig_init(&g, 2, 16, 0);
	EXPECT_EQ(drain_pending(g.d), 0);
	EXPECT_EQ(drain_oldest_pending(g.d), UINT64_MAX);
	push(&g.rings[0], 10);
	push(&g.rings[0], 20);
	push(&g.rings[0], 30);
	push(&g.rings[0], 40);
	push(&g.rings[1], 15);
	push(&g.rings[1], 35);
	push_stack(&g.rings[1], 50, 9);

	ASSERT_EQ(run_round(&g, 21), 3);
	EXPECT_EQ(drain_pending(g.d), 2 + 1 + 3);
	EXPECT_EQ(drain_oldest_pending(g.d), 30);
	ASSERT_EQ(run_round(&g, 36), 2);
	EXPECT_EQ(drain_pending(g.d), 1 + 3);
	EXPECT_EQ(drain_oldest_pending(g.d), 40);
	ASSERT_EQ(run_round(&g, 41), 1);
	EXPECT_EQ(drain_pending(g.d), 3);
	EXPECT_EQ(drain_oldest_pending(g.d), 50);
	ASSERT_EQ(run_round(&g, UINT64_MAX), 1);
	EXPECT_EQ(drain_pending(g.d), 0);
	EXPECT_EQ(drain_oldest_pending(g.d), UINT64_MAX);
	EXPECT_EQ(g.sink.bad_frames, 0);
	rig_free(&g);
}

/* Drops are read live from the control pages, summed over the rings. */
TEST(dropped_from_control_pages)
{
	struct rig g;

	rig_init(&g, 3, 16, 0);
	EXPECT_EQ(drain_dropped(g.d), 0);
	g.rings[0].ctrl->dropped = 5;
	g.rings[2].ctrl->dropped = 7;
	EXPECT_EQ(drain_dropped(g.d), 12);
	/* No round needed: a producer's new drops show at once. */
	g.rings[1].ctrl->dropped = 1;
	EXPECT_EQ(drain_dropped(g.d), 13);
	rig_free(&g);
}

/*
 * Random streams: producers publish sorted timestamps (random steps, ties
 * included) and sometimes call stacks, never older than a horizon already
 * used (the contract the slack stands for), while rounds run with random
 * horizons, some of them going back.  The output must be globally sorted,
 * hold every record once, each ring's records in ring order, nothing
 * emitted at or after its round's horizon and nothing older held back.
 */
static void random_stream(uint32_t nr, uint32_t nr_slots, uint32_t rounds)
{
	uint64_t last[MAX_RINGS] = { 0 }, next_seq[MAX_RINGS] = { 0 };
	uint64_t hw = 0, published = 0;
	const struct drain_stats *st;
	struct rig g;
	uint32_t i, k;
	size_t j, from;

	rig_init(&g, nr, nr_slots, rng() & 0xffffffffffULL);
	st = drain_stats(g.d);
	for (k = 0; k < rounds; k++) {
		uint64_t horizon, max_ts = 0;
		long n;

		for (i = 0; i < nr; i++) {
			struct fake_ring *r = &g.rings[i];
			uint32_t want = rng() % (nr_slots / 2 + 1);

			while (want-- &&
			       ring_free_slots(r) >= DRAIN_MAX_SLOTS) {
				uint64_t ts = last[i] + rng() % 40;

				if (ts < hw)
					ts = hw + rng() % 4;
				last[i] = ts;
				if (rng() % 16 == 0)
					push_stack(r, ts, rng() % 33);
				else
					push(r, ts);
				published++;
			}
			if (last[i] > max_ts)
				max_ts = last[i];
		}
		switch (rng() % 8) {
		case 0:
			horizon = UINT64_MAX;
			break;
		case 1:
			horizon = hw > 50 ? hw - rng() % 50 : 0;
			break;
		default:
			horizon = hw + rng() % (max_ts - hw + 60);
			break;
		}
		from = g.sink.n;
		n = run_round(&g, horizon);
		ASSERT_GE(n, 0);
		ASSERT_EQ(g.sink.n - from, (size_t)n);
		/* Unsigned: the harness compares as long long. */
		for (j = from; j < g.sink.n; j++)
			ASSERT_TRUE(g.sink.v[j].ts < horizon);
		ASSERT_TRUE(drain_oldest_pending(g.d) >= horizon);
		if (horizon > hw && horizon != UINT64_MAX)
			hw = horizon;
		else if (horizon == UINT64_MAX)
			hw = max_ts;
	}
	ASSERT_GE(run_round(&g, UINT64_MAX), 0);

	ASSERT_EQ(g.sink.n, published);
	assert_sorted(&g.sink);
	for (j = 0; j < g.sink.n; j++) {
		uint32_t ring = g.sink.v[j].id >> 32;

		ASSERT_LT(ring, nr);
		ASSERT_EQ(g.sink.v[j].cpu, ring);
		/* In ring order, so once each and none missing. */
		ASSERT_EQ(g.sink.v[j].id & 0xffffffffu, next_seq[ring]);
		next_seq[ring]++;
	}
	for (i = 0; i < nr; i++) {
		EXPECT_EQ(next_seq[i], g.rings[i].seq);
		EXPECT_EQ(g.rings[i].ctrl->tail, g.rings[i].ctrl->head);
	}
	EXPECT_EQ(g.sink.bad_frames, 0);
	EXPECT_EQ(st->records, published);
	EXPECT_EQ(st->late, 0);
	EXPECT_EQ(st->corrupt, 0);
	EXPECT_EQ(st->rounds, rounds + 1);
	EXPECT_EQ(drain_pending(g.d), 0);
	rig_free(&g);
}

TEST(random_one_ring)
{
	random_stream(1, 64, 500);
}

TEST(random_two_rings)
{
	random_stream(2, 64, 1000);
}

TEST(random_many_rings)
{
	random_stream(3, 32, 1000);
	random_stream(5, 128, 500);
	random_stream(8, 64, 1000);
}

/*
 * drain_peek() shows each published record once, young ones included,
 * and takes nothing: drain_round() still emits them all, in order.
 */
TEST(peek_sees_young_records_once_and_consumes_nothing)
{
	struct sink peeked = { 0 };
	struct rig g;

	rig_init(&g, 2, 16, 0);
	push(&g.rings[0], 10);
	push_stack(&g.rings[1], 20, 12);
	push(&g.rings[1], 30);
	drain_peek(g.d, sink_cb, &peeked);
	ASSERT_EQ(peeked.n, 3);
	EXPECT_EQ(peeked.v[0].id, ID(0, 0));
	EXPECT_EQ(peeked.v[1].kind, ISPOT_REC_STACK);
	EXPECT_EQ(peeked.v[2].id, ID(1, 1));
	EXPECT_EQ(g.log.calls, 0);

	/* Seen already: nothing new to show. */
	drain_peek(g.d, sink_cb, &peeked);
	EXPECT_EQ(peeked.n, 3);

	/* A round up to 25 emits two; the peek shows only the newcomer. */
	EXPECT_EQ(run_round(&g, 25), 2);
	push(&g.rings[0], 40);
	drain_peek(g.d, sink_cb, &peeked);
	ASSERT_EQ(peeked.n, 4);
	EXPECT_EQ(peeked.v[3].id, ID(0, 1));
	EXPECT_EQ(run_round(&g, UINT64_MAX), 2);
	EXPECT_EQ(g.sink.n, 4);
	assert_sorted(&g.sink);
	free(peeked.v);
	rig_free(&g);
}

TEST_HARNESS_MAIN
