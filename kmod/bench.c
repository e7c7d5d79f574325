// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel micro-benchmarks for `make bench`, in debugfs.
 *
 * Reading /sys/kernel/debug/ispot/ring_bench times the ring's write path
 * (reserve, fill a 64-byte record, commit) in isolation, and the clock the
 * handlers read, on a private ring that is never mapped: nothing reaches
 * user space but the two figures.  Without debugfs there is nothing here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "ispot_internal.h"

#define ISPOT_BENCH_OPS		1000000
#define ISPOT_BENCH_CHUNK	4096	/* operations per preempt-off stretch */
/*
 * 16384 slots: the default watermark (half) stays above a chunk, so the
 * commit never queues a wakeup and the ring never fills.
 */
#define ISPOT_BENCH_RING_PAGES	256

static struct dentry *ispot_bench_dir;
static DECLARE_WAIT_QUEUE_HEAD(ispot_bench_wq);	/* never woken */

static void ispot_bench_fill(struct ispot_record *rec, u64 i)
{
	rec->ts_ns = i;
	rec->tid = current->pid;
	rec->tgid = current->tgid;
	rec->probe_id = 1;
	rec->cpu = smp_processor_id();
	rec->kind = ISPOT_REC_ENTRY;
	rec->nslots = 1;
	rec->sp = i;
	rec->ip = i;
	rec->data[0] = i;
	rec->data[1] = i;
	rec->data[2] = i;
}

/*
 * Time ISPOT_BENCH_OPS ring writes.  Only the writes are inside the timed
 * stretches; the consumer releases each chunk between them.
 */
static int ispot_bench_time_ring(u64 *total_ns)
{
	struct ispot_ring *ring;
	u64 done = 0;
	int err = 0;

	ring = ispot_ring_create(raw_smp_processor_id(),
				 ISPOT_BENCH_RING_PAGES, 0, &ispot_bench_wq);
	if (!ring)
		return -ENOMEM;

	*total_ns = 0;
	while (done < ISPOT_BENCH_OPS) {
		u64 n = min_t(u64, ISPOT_BENCH_CHUNK, ISPOT_BENCH_OPS - done);
		u64 i, t0, t1;

		preempt_disable();
		t0 = ktime_get_mono_fast_ns();
		for (i = 0; i < n; i++) {
			struct ispot_record *rec;

			rec = ispot_ring_reserve(ring, 1, NULL, NULL, 0);
			if (unlikely(!rec))
				break;
			ispot_bench_fill(rec, done + i);
			ispot_ring_commit(ring, 1);
		}
		t1 = ktime_get_mono_fast_ns();
		preempt_enable();

		if (WARN_ON_ONCE(i != n) ||
		    WARN_ON_ONCE(ispot_ring_consume(ring, ring->head))) {
			err = -EIO;
			break;
		}
		*total_ns += t1 - t0;
		done += n;
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		cond_resched();
	}
	ispot_ring_destroy(ring);
	return err;
}

/* Time ISPOT_BENCH_OPS reads of the handlers' clock. */
static int ispot_bench_time_clock(u64 *total_ns)
{
	u64 done = 0, sink = 0;

	*total_ns = 0;
	while (done < ISPOT_BENCH_OPS) {
		u64 n = min_t(u64, ISPOT_BENCH_CHUNK, ISPOT_BENCH_OPS - done);
		u64 i, t0, t1;

		preempt_disable();
		t0 = ktime_get_mono_fast_ns();
		for (i = 0; i < n; i++)
			sink += ktime_get_mono_fast_ns();
		t1 = ktime_get_mono_fast_ns();
		preempt_enable();

		*total_ns += t1 - t0;
		done += n;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	/* Keep the reads: the sum is never zero. */
	return sink ? 0 : -EIO;
}

/* @total_ns / ISPOT_BENCH_OPS, with one decimal. */
static void ispot_bench_print(struct seq_file *m, const char *name,
			      u64 total_ns)
{
	u64 tenths = div64_u64(total_ns * 10 + ISPOT_BENCH_OPS / 2,
			       ISPOT_BENCH_OPS);

	seq_printf(m, "%s: %llu.%llu\n", name, tenths / 10, tenths % 10);
}

static int ispot_bench_ring_show(struct seq_file *m, void *v)
{
	u64 ring_ns, clock_ns;
	int err;

	err = ispot_bench_time_ring(&ring_ns);
	if (err)
		return err;
	err = ispot_bench_time_clock(&clock_ns);
	if (err)
		return err;
	ispot_bench_print(m, "ring_write_ns", ring_ns);
	ispot_bench_print(m, "clock_read_ns", clock_ns);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ispot_bench_ring);

void ispot_bench_init(void)
{
	ispot_bench_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("ring_bench", 0400, ispot_bench_dir, NULL,
			    &ispot_bench_ring_fops);
}

void ispot_bench_exit(void)
{
	debugfs_remove_recursive(ispot_bench_dir);
	ispot_bench_dir = NULL;
}
