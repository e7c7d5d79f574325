// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU record rings.
 *
 * Each ring is one vmalloc_user() area: a control page followed by a
 * power-of-two number of data pages holding 64-byte slots.  The whole area
 * is mapped read-only into the reader.  The producer is always the CPU that
 * owns the ring, running with preemption disabled, so reserving space needs
 * no atomic operation.  When the ring is full the new record is dropped and
 * counted; the reader gives space back through ISPOT_IOC_RING_CONSUME, which
 * walks the released records so that produced == consumed + dropped holds
 * exactly once the ring is drained.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "ispot.h"

size_t ispot_ring_bytes(u32 pages)
{
	return (size_t)(pages + 1) << PAGE_SHIFT;
}

/*
 * Wakeups are deferred to irq_work: a producer may run where taking the
 * wait-queue lock is forbidden (sched_switch holds the run-queue lock), and
 * the wait-queue lock is shared across CPUs.
 */
static void ispot_ring_wakeup(struct irq_work *work)
{
	struct ispot_ring *ring = container_of(work, struct ispot_ring, wakeup);

	wake_up_all(ring->wq);
}

struct ispot_ring *ispot_ring_create(unsigned int cpu, u32 pages,
				     u32 watermark, wait_queue_head_t *wq)
{
	struct ispot_ring *ring;
	u32 nr_slots = (pages << PAGE_SHIFT) / ISPOT_SLOT_SIZE;
	void *area;

	ring = kzalloc_node(sizeof(*ring), GFP_KERNEL, cpu_to_node(cpu));
	if (!ring)
		return NULL;
	area = vmalloc_user(ispot_ring_bytes(pages));
	if (!area)
		goto err_free_ring;

	ring->ctrl = area;
	ring->data = (u8 *)area + PAGE_SIZE;
	ring->mask = nr_slots - 1;
	ring->watermark = watermark ? watermark / ISPOT_SLOT_SIZE : nr_slots / 2;
	ring->watermark = clamp_t(u32, ring->watermark, 1, nr_slots);
	ring->wq = wq;
	init_irq_work(&ring->wakeup, ispot_ring_wakeup);

	ring->ctrl->nr_slots = nr_slots;
	ring->ctrl->cpu = cpu;
	ring->ctrl->data_offset = PAGE_SIZE;
	return ring;

err_free_ring:
	kfree(ring);
	return NULL;
}

void ispot_ring_destroy(struct ispot_ring *ring)
{
	if (!ring)
		return;
	irq_work_sync(&ring->wakeup);
	vfree(ring->ctrl);
	kfree(ring);
}

/*
 * Reserve @nslots consecutive slots, or count a drop.  Called with
 * preemption disabled on the CPU that owns @ring.
 */
struct ispot_record *ispot_ring_reserve(struct ispot_ring *ring, u32 nslots)
{
	u64 tail = smp_load_acquire(&ring->tail);

	ring->produced++;
	if (ring->head - tail + nslots > (u64)ring->mask + 1) {
		ring->dropped++;
		WRITE_ONCE(ring->ctrl->dropped, ring->dropped);
		return NULL;
	}
	return ispot_ring_slot(ring, ring->head);
}

/* Publish the slots filled since ispot_ring_reserve(). */
void ispot_ring_commit(struct ispot_ring *ring, u32 nslots)
{
	ring->head += nslots;
	smp_store_release(&ring->ctrl->head, ring->head);

	if (!READ_ONCE(ring->wakeup_armed) &&
	    ring->head - READ_ONCE(ring->tail) >= ring->watermark) {
		WRITE_ONCE(ring->wakeup_armed, true);
		irq_work_queue(&ring->wakeup);
	}
}

bool ispot_ring_readable(struct ispot_ring *ring)
{
	return smp_load_acquire(&ring->ctrl->head) != READ_ONCE(ring->tail);
}

/*
 * Give the slots before @new_tail back to the producer.  @new_tail must lie
 * on a record boundary between the current tail and head; the records are
 * walked (they live in memory only the module writes) to count them.
 */
int ispot_ring_consume(struct ispot_ring *ring, u64 new_tail)
{
	u64 head = smp_load_acquire(&ring->ctrl->head);
	u64 pos = ring->tail;
	u64 records = 0;

	if (new_tail < pos || new_tail > head)
		return -EINVAL;
	while (pos < new_tail) {
		u8 nslots = READ_ONCE(ispot_ring_slot(ring, pos)->nslots);

		if (WARN_ON_ONCE(!nslots))
			return -EIO;
		pos += nslots;
		records++;
	}
	if (pos != new_tail)
		return -EINVAL;

	ring->consumed += records;
	WRITE_ONCE(ring->ctrl->tail, new_tail);
	smp_store_release(&ring->tail, new_tail);
	WRITE_ONCE(ring->wakeup_armed, false);
	return 0;
}

int ispot_ring_mmap(struct ispot_ring *ring, struct vm_area_struct *vma)
{
	return remap_vmalloc_range(vma, ring->ctrl, 0);
}
