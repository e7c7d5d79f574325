// SPDX-License-Identifier: GPL-2.0
/*
 * Spinlock contention (the paper's second lock micro-benchmark, §4):
 * Listing 1's loop with a pthread spinlock.  A waiter never sleeps, so
 * the time spin_acquire() loses is on-CPU time: no futex wait and no
 * blocked time will explain it, only the duration itself.  The shorter
 * --delay-us, the more of it; --hold-us adds work inside the lock.
 * --private gives each thread a spinlock of its own: the same work with
 * nothing to wait for, the control (as no_contention is for the mutex).
 *
 * The block is a wrapper because pthread_spin_lock() itself cannot be
 * probed on x86: glibc's starts with a LOCK-prefixed instruction, and
 * x86 uprobes refuse any such instruction (is_prefix_bad() in
 * arch/x86/kernel/uprobes.c), so registering fails with ENOTSUPP.
 *
 *   ispotctl run --func spin_acquire -- samples/spinlock --delay-us 0
 *   ispotctl run --func spin_acquire -- samples/spinlock --private
 */
#include "sample.h"

#define MAX_THREADS	1024

static long private_locks;
static const struct sample_opt extra[] = {
	{ .name = "private", .num = &private_locks,
	  .help = "a spinlock per thread: no contention, the control" },
	{ },
};
static struct sample_opts opts = { .threads = 2, .delay_us = 0,
				   .iterations = 20000, .extra = extra };
static pthread_spinlock_t gs_lock;
static unsigned long counter;

/* --private: one lock and counter per thread, each on a line of its own. */
static struct {
	pthread_spinlock_t l;
	unsigned long counter;
} __attribute__((aligned(64))) own[MAX_THREADS];

/* The block ISPOT measures: spinning until the lock is free. */
__attribute__((noinline)) void spin_acquire(pthread_spinlock_t *l)
{
	pthread_spin_lock(l);
}

static void *worker(void *arg)
{
	pthread_spinlock_t *l = private_locks ? &own[(long)arg].l : &gs_lock;
	unsigned long *c = private_locks ? &own[(long)arg].counter : &counter;
	long i;

	for (i = 0; i < opts.iterations; i++) {
		compute(opts.delay_us);
		sample_lock_arrive();
		spin_acquire(l);
		sample_lock_taken();
		if (opts.hold_us)
			compute(opts.hold_us);
		(*c)++;
		pthread_spin_unlock(l);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int i;

	sample_parse(argc, argv, &opts);
	pthread_spin_init(&gs_lock, PTHREAD_PROCESS_PRIVATE);
	for (i = 0; i < opts.threads; i++)
		pthread_spin_init(&own[i].l, PTHREAD_PROCESS_PRIVATE);
	sample_run_threads(&opts, worker);
	for (i = 0; private_locks && i < opts.threads; i++)
		counter += own[i].counter;
	printf("spinlock: %d threads x %ld iterations, delay %ld us, counter %lu%s\n",
	       opts.threads, opts.iterations, opts.delay_us, counter,
	       private_locks ? " (a lock per thread)" : "");
	return counter == (unsigned long)opts.threads * opts.iterations ?
	       opts.exit_status : 1;
}
