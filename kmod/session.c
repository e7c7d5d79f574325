// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: everything one open of /dev/ispot owns.
 *
 * NEW --SETUP--> READY --ENABLE--> ENABLED --DISABLE--> READY
 * A session whose target has exited reports DEAD; its rings stay readable
 * until the fd is closed.  Closing the fd, or its owner dying, disarms the
 * probes, waits for running handlers and frees every buffer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "ispot.h"

/* Ring memory in use across all sessions, in pages (limit in main.c). */
static atomic_long_t ispot_ring_pages_used = ATOMIC_LONG_INIT(0);
/* Records dropped by sessions already closed. */
static atomic64_t ispot_dropped_closed = ATOMIC64_INIT(0);

/* Module-wide figures; live sessions' drops are added by the caller. */
void ispot_session_global_info(struct ispot_info *info)
{
	info->ring_bytes = (u64)atomic_long_read(&ispot_ring_pages_used)
			   << PAGE_SHIFT;
	info->ring_bytes_max = (u64)ispot_max_buffer_mib << 20;
	info->dropped = atomic64_read(&ispot_dropped_closed);
}

u64 ispot_session_dropped(struct ispot_session *s)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; s->rings && i < s->nr_rings; i++)
		if (s->rings[i])
			sum += READ_ONCE(s->rings[i]->dropped);
	return sum;
}

struct ispot_session *ispot_session_create(void)
{
	struct ispot_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	mutex_init(&s->lock);
	INIT_LIST_HEAD(&s->probes);
	init_waitqueue_head(&s->wq);
	s->state = ISPOT_STATE_NEW;
	return s;
}

static long ispot_session_pages(struct ispot_session *s)
{
	return (long)s->nr_rings * (s->ring_bytes >> PAGE_SHIFT);
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
	atomic_long_sub(ispot_session_pages(s), &ispot_ring_pages_used);
}

void ispot_session_destroy(struct ispot_session *s)
{
	ispot_session_disable(s);
	ispot_probe_free_all(s);
	ispot_counters_free(s);
	ispot_session_free_rings(s);
	if (s->target)
		put_task_struct(s->target);
	kfree(s);
}

int ispot_session_setup(struct ispot_session *s, struct ispot_setup *args)
{
	long limit = (long)ispot_max_buffer_mib << (20 - PAGE_SHIFT);
	u32 cpu;
	int err;

	if (!args->ring_pages || !is_power_of_2(args->ring_pages))
		return -EINVAL;
	if (args->ring_pages > limit)
		return -E2BIG;
	if (args->watermark > (u64)args->ring_pages << PAGE_SHIFT)
		return -EINVAL;

	if (!ispot_waits_supported(args->flags))
		return -EOPNOTSUPP;

	err = ispot_target_get(args->pid, &s->target);
	if (err)
		return err;
	s->tgid = s->target->tgid;
	s->signal = s->target->signal;
	s->setup_flags = args->flags;
	s->stack_period = args->stack_period ?: ISPOT_DEFAULT_STACK_PERIOD;
	s->nr_rings = nr_cpu_ids;
	s->ring_bytes = ispot_ring_bytes(args->ring_pages);

	if (atomic_long_add_return(ispot_session_pages(s),
				   &ispot_ring_pages_used) > limit) {
		atomic_long_sub(ispot_session_pages(s), &ispot_ring_pages_used);
		err = -E2BIG;
		goto err_put_target;
	}
	err = -ENOMEM;
	s->rings = kcalloc(s->nr_rings, sizeof(*s->rings), GFP_KERNEL);
	if (!s->rings) {
		atomic_long_sub(ispot_session_pages(s), &ispot_ring_pages_used);
		goto err_put_target;
	}
	for_each_possible_cpu(cpu) {
		s->rings[cpu] = ispot_ring_create(cpu, args->ring_pages,
						  args->watermark, &s->wq);
		if (!s->rings[cpu])
			goto err_free_rings;
	}

	args->nr_rings = s->nr_rings;
	args->ring_mmap_size = s->ring_bytes;
	s->state = ISPOT_STATE_READY;
	return 0;

err_free_rings:
	ispot_session_free_rings(s);
err_put_target:
	put_task_struct(s->target);
	s->target = NULL;
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

	if (list_empty(&s->probes))
		return -ENOENT;
	err = ispot_waits_start(s);
	if (err)
		return err;
	list_for_each_entry(p, &s->probes, node) {
		err = ispot_probe_arm(p);
		if (err)
			goto err_disarm;
	}
	s->state = ISPOT_STATE_ENABLED;
	return 0;

err_disarm:
	ispot_probe_disarm_all(s);
	ispot_waits_stop(s);
	return err;
}

/* When this returns, no handler or probe writes into the rings. */
void ispot_session_disable(struct ispot_session *s)
{
	ispot_waits_stop(s);
	ispot_probe_disarm_all(s);
	if (s->state == ISPOT_STATE_ENABLED)
		s->state = ISPOT_STATE_READY;
}

/* A target that has exited turns the session DEAD, whatever it was. */
void ispot_session_refresh_state(struct ispot_session *s)
{
	/* signal->live counts the group's threads that have not exited. */
	if (s->target && !atomic_read(&s->target->signal->live) &&
	    s->state != ISPOT_STATE_NEW)
		s->state = ISPOT_STATE_DEAD;
}
