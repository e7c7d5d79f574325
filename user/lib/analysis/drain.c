// SPDX-License-Identifier: GPL-2.0
/*
 * The k-way merge of the per-CPU rings; see drain.h for why it stops at a
 * horizon.  The rings that have something to emit sit in a binary min-heap
 * keyed by the timestamp of their next record, and a ring keeps emitting
 * without touching the heap for as long as it stays ahead of the runner-up,
 * which is the common case: records come in bursts per CPU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/drain.h"

struct drain_ring {
	const struct ispot_ring_ctrl *ctrl;
	const struct ispot_record *slots;
	uint64_t mask;
	uint64_t pos;		/* next slot to read */
	uint64_t head;		/* producer position at the start of the round */
	uint64_t released;	/* last tail given back */
	uint64_t peeked;	/* drain_peek() has seen what lies before */
	uint32_t cpu;
};

struct drain {
	uint32_t nr;
	struct drain_ring *rings;
	uint32_t *heap;
	uint32_t heap_n;
	drain_release_fn release;
	void *release_ctx;
	uint64_t last_ts;
	struct drain_stats st;
	/* A wrapped multi-slot record is copied here to be contiguous. */
	struct ispot_record bounce[DRAIN_MAX_SLOTS];
};

struct drain *drain_new(void *const *bases, uint32_t nr_rings,
			drain_release_fn release, void *release_ctx)
{
	struct drain *d = calloc(1, sizeof(*d));
	uint32_t i;

	if (!d)
		return NULL;
	d->rings = calloc(nr_rings ? nr_rings : 1, sizeof(*d->rings));
	d->heap = calloc(nr_rings ? nr_rings : 1, sizeof(*d->heap));
	if (!d->rings || !d->heap)
		goto err;
	d->nr = nr_rings;
	d->release = release;
	d->release_ctx = release_ctx;
	for (i = 0; i < nr_rings; i++) {
		const struct ispot_ring_ctrl *ctrl = bases[i];
		struct drain_ring *r = &d->rings[i];
		uint32_t n = ctrl->nr_slots;

		if (!n || (n & (n - 1)) || ctrl->data_offset < sizeof(*ctrl))
			goto err;
		r->ctrl = ctrl;
		r->slots = (const void *)((const char *)bases[i] +
					  ctrl->data_offset);
		r->mask = n - 1;
		r->pos = r->head = r->released = ctrl->tail;
		r->cpu = i;
	}
	return d;
err:
	drain_free(d);
	return NULL;
}

void drain_free(struct drain *d)
{
	if (!d)
		return;
	free(d->rings);
	free(d->heap);
	free(d);
}

/*
 * The record at r->pos, made contiguous, or NULL if the ring is malformed
 * there (which only a module bug could cause: stop reading that ring).
 */
static inline const struct ispot_record *ring_peek(struct drain *d,
						   struct drain_ring *r)
{
	const struct ispot_record *rec = &r->slots[r->pos & r->mask];
	uint64_t first = r->pos & r->mask;
	uint32_t n = rec->nslots, i;

	if (!drain_record_ok(n, rec->ts_ns) || n > r->head - r->pos) {
		d->st.corrupt += r->head - r->pos;
		r->pos = r->head;
		return NULL;
	}
	if (first + n <= r->mask + 1)
		return rec;
	for (i = 0; i < n; i++)
		d->bounce[i] = r->slots[(r->pos + i) & r->mask];
	return d->bounce;
}

static uint64_t ring_next_ts(struct drain *d, struct drain_ring *r)
{
	const struct ispot_record *rec;

	if (r->pos == r->head)
		return UINT64_MAX;
	rec = ring_peek(d, r);
	return rec ? rec->ts_ns : UINT64_MAX;
}

/* Keys are cached by the caller's rule: a ring's key is its next ts. */
static uint64_t heap_key(struct drain *d, uint32_t idx)
{
	struct drain_ring *r = &d->rings[d->heap[idx]];

	return r->slots[r->pos & r->mask].ts_ns;
}

static void heap_sift_down(struct drain *d, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i, tmp;

		if (l < d->heap_n && heap_key(d, l) < heap_key(d, m))
			m = l;
		if (l + 1 < d->heap_n && heap_key(d, l + 1) < heap_key(d, m))
			m = l + 1;
		if (m == i)
			return;
		tmp = d->heap[i];
		d->heap[i] = d->heap[m];
		d->heap[m] = tmp;
		i = m;
	}
}

static void heap_build(struct drain *d)
{
	uint32_t i = d->heap_n / 2;

	while (i--)
		heap_sift_down(d, i);
}

static int ring_release(struct drain *d, struct drain_ring *r)
{
	int ret;

	if (r->pos == r->released)
		return 0;
	ret = d->release ? d->release(d->release_ctx, r->cpu, r->pos) : 0;
	if (ret)
		return ret;
	r->released = r->pos;
	return 0;
}

/*
 * Emit ring r's records while they are older than @limit (the runner-up's
 * next timestamp) and the horizon.  Returns the records emitted.
 */
static long ring_emit(struct drain *d, struct drain_ring *r, uint64_t limit,
		      uint64_t horizon, drain_record_fn fn, void *ctx)
{
	long n = 0;

	/* A ring is in the heap only if its next ts < horizon: horizon > 0. */
	if (limit > horizon - 1)
		limit = horizon - 1;
	while (r->pos != r->head) {
		const struct ispot_record *rec = &r->slots[r->pos & r->mask];

		/* The slots ahead were written by another CPU: fetch early. */
		__builtin_prefetch(&r->slots[(r->pos + 8) & r->mask]);
		/* Most records are one slot, complete once published. */
		if (rec->nslots != 1 || rec->ts_ns == UINT64_MAX) {
			rec = ring_peek(d, r);
			if (!rec)
				break;
		}
		if (rec->ts_ns > limit)
			break;
		/*
		 * A LOST record carries its first drop's time, behind the
		 * stream after a long stall: not a record that came late.
		 */
		if (rec->ts_ns >= d->last_ts)
			d->last_ts = rec->ts_ns;
		else if (rec->kind != ISPOT_REC_LOST)
			d->st.late++;
		fn(ctx, rec);
		r->pos += rec->nslots;
		n++;
	}
	return n;
}

long drain_round(struct drain *d, uint64_t horizon, drain_record_fn fn,
		 void *ctx)
{
	long emitted = 0;
	uint32_t i;
	int ret;

	d->st.rounds++;
	d->heap_n = 0;
	for (i = 0; i < d->nr; i++) {
		struct drain_ring *r = &d->rings[i];

		r->head = __atomic_load_n(&r->ctrl->head, __ATOMIC_ACQUIRE);
		if (r->head - r->pos > r->mask + 1) {
			/* The producer never overruns; the control page lies. */
			d->st.corrupt += r->head - r->pos;
			r->pos = r->head;
		}
		if (ring_next_ts(d, r) < horizon)
			d->heap[d->heap_n++] = i;
	}
	heap_build(d);

	while (d->heap_n) {
		struct drain_ring *r = &d->rings[d->heap[0]];
		uint64_t limit = UINT64_MAX;

		if (d->heap_n > 1)
			limit = heap_key(d, 1);
		if (d->heap_n > 2 && heap_key(d, 2) < limit)
			limit = heap_key(d, 2);
		emitted += ring_emit(d, r, limit, horizon, fn, ctx);
		if (ring_next_ts(d, r) >= horizon)
			d->heap[0] = d->heap[--d->heap_n];
		heap_sift_down(d, 0);
	}

	/* Counted even if a release fails: the callback has seen them. */
	d->st.records += emitted;
	for (i = 0; i < d->nr; i++) {
		ret = ring_release(d, &d->rings[i]);
		if (ret)
			return ret < 0 ? ret : -EIO;
	}
	return emitted;
}

void drain_peek(struct drain *d, drain_record_fn fn, void *ctx)
{
	uint32_t i;

	for (i = 0; i < d->nr; i++) {
		struct drain_ring *r = &d->rings[i];
		uint64_t head = __atomic_load_n(&r->ctrl->head,
						__ATOMIC_ACQUIRE);
		uint64_t p = r->peeked > r->pos ? r->peeked : r->pos;

		/* A lying control page is drain_round()'s to count. */
		if (head - r->pos > r->mask + 1)
			continue;
		while (p != head) {
			const struct ispot_record *rec =
				&r->slots[p & r->mask];

			if (!rec->nslots || rec->nslots > head - p)
				break;
			fn(ctx, rec);
			p += rec->nslots;
		}
		r->peeked = p;
	}
}

uint64_t drain_pending(const struct drain *d)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < d->nr; i++)
		n += d->rings[i].head - d->rings[i].pos;
	return n;
}

uint64_t drain_oldest_pending(const struct drain *d)
{
	uint64_t oldest = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < d->nr; i++) {
		const struct drain_ring *r = &d->rings[i];

		if (r->pos != r->head &&
		    r->slots[r->pos & r->mask].ts_ns < oldest)
			oldest = r->slots[r->pos & r->mask].ts_ns;
	}
	return oldest;
}

const struct drain_stats *drain_stats(const struct drain *d)
{
	return &d->st;
}

uint64_t drain_dropped(const struct drain *d)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < d->nr; i++)
		n += __atomic_load_n(&d->rings[i].ctrl->dropped,
				     __ATOMIC_RELAXED);
	return n;
}
