// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: everything one open of /dev/ispot owns.
 *
 * NEW --SETUP--> READY --ENABLE--> ENABLED --DISABLE--> READY
 * A session whose target has exited, or exec'd a program it may not trace,
 * reports DEAD with the reason; its rings stay readable until the fd is
 * closed.  A failed SETUP leaves it NEW.  Closing the fd, or its owner
 * dying, disarms the probes, waits for running handlers and frees every
 * buffer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "ispot_internal.h"

/* Ring memory in use across all sessions, in pages (limit in main.c). */
static atomic_long_t ispot_ring_pages_used = ATOMIC_LONG_INIT(0);
/* Records dropped by sessions already closed. */
static atomic64_t ispot_dropped_closed = ATOMIC64_INIT(0);

/* Module-wide figures; live sessions' drops are added by the caller. */
void ispot_session_global_info(struct ispot_info *info)
{
	info->ring_bytes = (u64)atomic_long_read(&ispot_ring_pages_used)
			   << PAGE_SHIFT;
	info->ring_bytes_max = (u64)READ_ONCE(ispot_max_buffer_mib) << 20;
	info->dropped = atomic64_read(&ispot_dropped_closed);
}

/* Lockless: the rings live until the session leaves the device's list. */
u64 ispot_session_dropped(struct ispot_session *s)
{
	struct ispot_ring **rings = smp_load_acquire(&s->rings);
	u64 sum = 0;
	u32 i;

	for (i = 0; rings && i < s->nr_rings; i++)
		if (rings[i])
			sum += READ_ONCE(rings[i]->dropped);
	return sum;
}

struct ispot_session *ispot_session_create(void)
{
	struct ispot_session *s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);

	if (!s)
		return NULL;
	mutex_init(&s->lock);
	INIT_LIST_HEAD(&s->probes);
	init_waitqueue_head(&s->wq);
	ispot_gate_init(&s->gate);
	WRITE_ONCE(s->state, ISPOT_STATE_NEW);
	return s;
}

static void ispot_session_free_rings(struct ispot_session *s)
{
	u32 i;

	if (!s->rings)
		return;
	atomic64_add(ispot_session_dropped(s), &ispot_dropped_closed);
	for (i = 0; i < s->nr_rings; i++)
		ispot_ring_destroy(s->rings[i]);
	kfree(s->rings);
	s->rings = NULL;
	atomic_long_sub(s->ring_pages_charged, &ispot_ring_pages_used);
	s->ring_pages_charged = 0;
}

void ispot_session_destroy(struct ispot_session *s)
{
	ispot_session_disable(s);
	ispot_gate_free(&s->gate);
	ispot_probe_free_all(s);
	ispot_counters_free(s);
	ispot_session_free_rings(s);
	ispot_offcpu_free(s);
	ispot_target_put(s);
	kfree(s);
}

/*
 * Every field of @s is written only once everything has succeeded, so a
 * failed SETUP leaves the session NEW and exactly as it was; the rings are
 * published last, with release ordering, for ->mmap's lockless read.
 */
int ispot_session_setup(struct ispot_session *s, struct ispot_setup *args)
{
	long limit = (long)READ_ONCE(ispot_max_buffer_mib) << (20 - PAGE_SHIFT);
	u32 pages = args->ring_pages;
	struct ispot_ring **rings;
	long charge;
	u32 cpu;
	int err;

	if (!pages || !is_power_of_2(pages))
		return -EINVAL;
	if (pages > ISPOT_RING_MAX_PAGES)
		return -E2BIG;
	if (args->watermark > (u64)pages << PAGE_SHIFT)
		return -EINVAL;
	if (!ispot_waits_supported(args->flags))
		return -EOPNOTSUPP;
	/* Possible CPUs only: the mask may be sparse below nr_cpu_ids. */
	charge = (long)num_possible_cpus() * (pages + 1);
	if (charge > limit)
		return -E2BIG;

	err = ispot_target_get(s, args->pid);
	if (err)
		return err;

	if (atomic_long_add_return(charge, &ispot_ring_pages_used) > limit) {
		err = -E2BIG;
		goto err_uncharge;
	}
	err = -ENOMEM;
	rings = kcalloc(nr_cpu_ids, sizeof(*rings), GFP_KERNEL_ACCOUNT);
	if (!rings)
		goto err_uncharge;
	for_each_possible_cpu(cpu) {
		rings[cpu] = ispot_ring_create(cpu, pages, args->watermark,
					       &s->wq);
		if (!rings[cpu])
			goto err_free_rings;
		/* Before the rings are published: no handler reads it yet. */
		rings[cpu]->report_lost = args->flags & ISPOT_SETUP_LOST;
	}
	/* Sets s->offcpu only if it succeeds; no probe sees it before. */
	err = ispot_offcpu_create(s, args);
	if (err)
		goto err_free_rings;

	s->setup_flags = args->flags;
	s->stack_period = args->stack_period ?: ISPOT_DEFAULT_STACK_PERIOD;
	s->nr_rings = nr_cpu_ids;
	s->ring_bytes = ispot_ring_bytes(pages);
	s->ring_pages_charged = charge;
	smp_store_release(&s->rings, rings);
	WRITE_ONCE(s->state, ISPOT_STATE_READY);

	args->nr_rings = s->nr_rings;
	args->ring_mmap_size = s->ring_bytes;
	return 0;

err_free_rings:
	for_each_possible_cpu(cpu)
		ispot_ring_destroy(rings[cpu]);
	kfree(rings);
err_uncharge:
	atomic_long_sub(charge, &ispot_ring_pages_used);
	ispot_target_put(s);
	return err;
}

/*
 * Task and wait records start before the probes are armed, so that the
 * threads' lifetimes cover their first probe records.
 */
int ispot_session_enable(struct ispot_session *s)
{
	struct ispot_probe *p;
	int err;

	/* A session of off-CPU stacks alone is a profile: it needs none. */
	if (list_empty(&s->probes) && !(s->setup_flags & ISPOT_SETUP_OFFCPU))
		return -ENOENT;
	err = ispot_target_refresh(s);
	if (err)
		return err;
	ispot_offcpu_reset(s);
	err = ispot_waits_start(s);
	if (err)
		return err;
	list_for_each_entry(p, &s->probes, node) {
		err = ispot_probe_arm(p);
		if (err)
			goto err_disarm;
	}
	WRITE_ONCE(s->state, ISPOT_STATE_ENABLED);
	return 0;

err_disarm:
	ispot_probe_disarm_all(s);
	ispot_waits_stop(s);
	return err;
}

/*
 * When this returns, no handler or probe writes into the rings.  The gate
 * opens first, so that unregistering waits for no thread at the gate.
 * The wait records stop after the probes, as they started before them:
 * stopping them waits out a grace period (milliseconds, tens under
 * emulation), and a call recorded then without its waits would look like
 * pure CPU time.
 */
void ispot_session_disable(struct ispot_session *s)
{
	ispot_gate_stop(s);
	ispot_probe_disarm_all(s);
	ispot_waits_stop(s);
	/* No handler runs now: a hold that raced the stop is forgotten. */
	ispot_gate_reset(s);
	if (s->state == ISPOT_STATE_ENABLED)
		WRITE_ONCE(s->state, ISPOT_STATE_READY);
}

/*
 * A target whose every thread has exited, or whose tracing stopped at an
 * exec, turns the session DEAD, whatever it was; stop_reason says which.
 */
void ispot_session_refresh_state(struct ispot_session *s)
{
	if (s->state == ISPOT_STATE_NEW)
		return;
	/* signal->live counts the group's threads that have not exited. */
	if (!atomic_read(&s->signal->live))
		ispot_target_stop(s, ISPOT_STOP_EXITED);
	if (READ_ONCE(s->stop_reason))
		WRITE_ONCE(s->state, ISPOT_STATE_DEAD);
}
