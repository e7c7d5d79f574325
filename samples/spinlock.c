// SPDX-License-Identifier: GPL-2.0
/*
 * Spinlock contention (seed 001, the second lock micro-benchmark of §4):
 * Listing 1's loop with a pthread spinlock.  A waiter never sleeps, so
 * the time spin_acquire() loses is on-CPU time: no futex wait and no
 * blocked time will explain it, only the duration itself.  The shorter
 * --delay-us, the more of it; --hold-us adds work inside the lock.
 *
 * The block is a wrapper because pthread_spin_lock() itself cannot be
 * probed on x86: glibc's starts with a LOCK-prefixed instruction, and
 * x86 uprobes refuse any such instruction (is_prefix_bad() in
 * arch/x86/kernel/uprobes.c), so registering fails with ENOTSUPP.
 *
 *   ispotctl run --func spin_acquire -- samples/spinlock --delay-us 0
 */
#include "sample.h"

static struct sample_opts opts = { .threads = 2, .delay_us = 0,
				   .iterations = 20000 };
static pthread_spinlock_t gs_lock;
static unsigned long counter;

/* The block ISPOT measures: spinning until the lock is free. */
__attribute__((noinline)) void spin_acquire(pthread_spinlock_t *l)
{
	pthread_spin_lock(l);
}

static void *worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < opts.iterations; i++) {
		compute(opts.delay_us);
		spin_acquire(&gs_lock);
		if (opts.hold_us)
			compute(opts.hold_us);
		counter++;
		pthread_spin_unlock(&gs_lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	sample_parse(argc, argv, &opts);
	pthread_spin_init(&gs_lock, PTHREAD_PROCESS_PRIVATE);
	sample_run_threads(&opts, worker);
	printf("spinlock: %d threads x %ld iterations, delay %ld us, counter %lu\n",
	       opts.threads, opts.iterations, opts.delay_us, counter);
	return counter == (unsigned long)opts.threads * opts.iterations ?
	       opts.exit_status : 1;
}
