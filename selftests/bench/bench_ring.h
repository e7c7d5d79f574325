/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A per-CPU ring in ordinary memory, laid out as the module lays its
 * rings out (control page, then the slots), for the benchmarks that hand
 * records to the pipeline through a drain as a live session does
 * (pipeline_bench.c, record_bench.c).  The producer is the benchmark
 * itself; a release is a store of the tail, where the module takes it by
 * an ioctl.
 */
#ifndef ISPOT_BENCH_RING_H
#define ISPOT_BENCH_RING_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ispot.h>

#define CTRL_SIZE	4096

struct bench_ring {
	struct ispot_ring_ctrl *ctrl;
	struct ispot_record *slots;
	uint64_t mask;
};

/* Ring @r of CPU @cpu, @nr_slots (a power of two) at *@base. */
static inline int ring_init(struct bench_ring *r, uint32_t cpu,
			    uint32_t nr_slots, void **base)
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

static inline uint64_t ring_free(const struct bench_ring *r)
{
	return r->mask + 1 - (r->ctrl->head - r->ctrl->tail);
}

/* The slot @i past the head: where the next records go. */
static inline struct ispot_record *ring_slot(struct bench_ring *r,
					     uint64_t i)
{
	return &r->slots[(r->ctrl->head + i) & r->mask];
}

static inline void ring_publish(struct bench_ring *r, uint32_t n)
{
	__atomic_store_n(&r->ctrl->head, r->ctrl->head + n, __ATOMIC_RELEASE);
}

/*
 * The drain's release (drain_new()'s, @ctx the rings, by CPU): the tail
 * stored, where the module takes an ioctl.
 */
static inline int ring_release(void *ctx, uint32_t cpu, uint64_t tail)
{
	struct bench_ring *rings = ctx;

	rings[cpu].ctrl->tail = tail;
	return 0;
}

#endif /* ISPOT_BENCH_RING_H */
