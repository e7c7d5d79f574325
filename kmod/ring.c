// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU record rings.
 *
 * Each ring is a control page followed by a power-of-two number of data
 * pages holding 64-byte slots, allocated on the ring CPU's node, charged to
 * the memory cgroup of the process that set the session up, and made
 * virtually contiguous with vmap() so that the handlers index it directly
 * and the reader maps it read-only in one piece (as BPF's ring buffer
 * does).  The producer is always the CPU that owns the ring, running with
 * preemption disabled, so reserving space needs no atomic operation.  When
 * the ring is full the new record is dropped and counted; with
 * ISPOT_SETUP_LOST, a LOST record ahead of the next record taken says
 * where, as perf's PERF_RECORD_LOST does.  The reader gives space back
 * through ISPOT_IOC_RING_CONSUME, which walks the released records so
 * that produced == consumed + dropped holds exactly once the ring is
 * drained.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "ispot_internal.h"

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

/* Ring memory is charged to the tracer's cgroup; large asks fail quietly. */
#define ISPOT_RING_GFP	(GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN | \
			 __GFP_RETRY_MAYFAIL)

static void ispot_ring_free_pages(struct page **pages, u32 nr)
{
	while (nr--)
		__free_page(pages[nr]);
	kvfree(pages);
}

/*
 * @pages data pages plus the control page, mapped contiguously.  The
 * caller has bounded @pages (ISPOT_RING_MAX_PAGES), so nothing overflows.
 */
static void *ispot_ring_area_alloc(int node, u32 pages, struct page ***out)
{
	u32 nr = pages + 1, i;
	struct page **pg;
	void *area;

	pg = kvmalloc_array(nr, sizeof(*pg), GFP_KERNEL_ACCOUNT);
	if (!pg)
		return NULL;
	for (i = 0; i < nr; i++) {
		pg[i] = alloc_pages_node(node, ISPOT_RING_GFP, 0);
		if (!pg[i])
			goto err_free_pages;
	}
	/* VM_USERMAP: remap_vmalloc_range() maps only such areas. */
	area = vmap(pg, nr, VM_MAP | VM_USERMAP, PAGE_KERNEL);
	if (!area)
		goto err_free_pages;
	*out = pg;
	return area;

err_free_pages:
	ispot_ring_free_pages(pg, i);
	return NULL;
}

struct ispot_ring *ispot_ring_create(unsigned int cpu, u32 pages,
				     u32 watermark, wait_queue_head_t *wq)
{
	size_t data_bytes = (size_t)pages << PAGE_SHIFT;
	u32 nr_slots = data_bytes / ISPOT_SLOT_SIZE;
	int node = cpu_to_node(cpu);
	struct ispot_ring *ring;
	void *area;

	if (WARN_ON_ONCE(!pages || pages > ISPOT_RING_MAX_PAGES ||
			 !is_power_of_2(pages)))
		return NULL;
	ring = kzalloc_node(sizeof(*ring), GFP_KERNEL_ACCOUNT, node);
	if (!ring)
		return NULL;
	area = ispot_ring_area_alloc(node, pages, &ring->pages);
	if (!area)
		goto err_free_ring;

	ring->nr_pages = pages + 1;
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
	/* Pages still mapped by a reader keep their own references. */
	vunmap(ring->ctrl);
	ispot_ring_free_pages(ring->pages, ring->nr_pages);
	kfree(ring);
}

/*
 * A record dropped: counted, and with ISPOT_SETUP_LOST timed and named for
 * the LOST record.  @t is the record's subject (NULL for none), @ts its
 * time if already read (else 0: read now, as its caller would next).
 */
static void ispot_ring_drop(struct ispot_ring *ring, struct ispot_session *s,
			    struct task_struct *t, u64 ts)
{
	u32 tid;

	WRITE_ONCE(ring->dropped, ring->dropped + 1);
	WRITE_ONCE(ring->ctrl->dropped, ring->dropped);
	if (!ring->report_lost)
		return;
	if (!ts)
		ts = ktime_get_mono_fast_ns();
	tid = t ? ispot_vpid(s, t) : 0;
	if (!ring->lost.count++) {
		ring->lost.first_ns = ts;
		ring->lost.tid = tid;
		ring->lost.several = false;
	} else if (tid && tid != ring->lost.tid) {
		if (ring->lost.tid)
			ring->lost.several = true;
		else
			ring->lost.tid = tid;
	}
	ring->lost.last_ns = ts;
}

/* The LOST record of the drops since the last record, in the next slot. */
static void ispot_ring_tell_lost(struct ispot_ring *ring)
{
	struct ispot_record *rec = ispot_ring_slot(ring, ring->head);

	memset(rec, 0, sizeof(*rec));
	rec->ts_ns = ring->lost.first_ns;
	rec->tid = ring->lost.tid;
	rec->cpu = ring->ctrl->cpu;
	rec->kind = ISPOT_REC_LOST;
	rec->nslots = 1;
	rec->data[0] = ring->lost.count;
	rec->data[1] = ring->lost.last_ns;
	rec->data[2] = ring->lost.several ? ISPOT_LOST_SEVERAL : 0;
	ring->lost.count = 0;
	/* A record like any other: RING_CONSUME counts it as consumed. */
	WRITE_ONCE(ring->produced, ring->produced + 1);
	ispot_ring_commit(ring, 1);
}

/*
 * Reserve @nslots consecutive slots, or count a drop (of a record about
 * @t, at @ts: see ispot_ring_drop()).  After drops, a LOST record goes
 * first, in the same room or not at all.  Called with preemption disabled
 * on the CPU that owns @ring.
 */
struct ispot_record *ispot_ring_reserve(struct ispot_ring *ring, u32 nslots,
					struct ispot_session *s,
					struct task_struct *t, u64 ts)
{
	u64 tail = smp_load_acquire(&ring->tail);
	u32 lost_slot = ring->lost.count ? 1 : 0;

	/* Plain increments by the only writer; STATS reads them racily. */
	WRITE_ONCE(ring->produced, ring->produced + 1);
	if (ring->head - tail + nslots + lost_slot > (u64)ring->mask + 1) {
		ispot_ring_drop(ring, s, t, ts);
		return NULL;
	}
	if (lost_slot)
		ispot_ring_tell_lost(ring);
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
		/* A ring holds up to 2^24 slots; the caller may sleep. */
		if (!(++records & 4095))
			cond_resched();
	}
	if (pos != new_tail)
		return -EINVAL;

	WRITE_ONCE(ring->consumed, ring->consumed + records);
	WRITE_ONCE(ring->ctrl->tail, new_tail);
	smp_store_release(&ring->tail, new_tail);
	WRITE_ONCE(ring->wakeup_armed, false);
	return 0;
}

int ispot_ring_mmap(struct ispot_ring *ring, struct vm_area_struct *vma)
{
	return remap_vmalloc_range(vma, ring->ctrl, 0);
}
