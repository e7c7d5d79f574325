// SPDX-License-Identifier: GPL-2.0
/*
 * Control workload for lock_contention: the same loop, but each thread has
 * its own mutex, so acquire() never waits for another thread and its SCI
 * should stay near zero.
 *
 *   ispotctl run --func acquire -- samples/no_contention
 */
#include "sample.h"

static struct sample_opts opts = { .threads = 2, .delay_us = 0,
				   .iterations = 20000 };

struct padded_lock {
	pthread_mutex_t m;
	unsigned long counter;
} __attribute__((aligned(64)));

static struct padded_lock locks[1024];

__attribute__((noinline)) void acquire(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
}

static void *worker(void *arg)
{
	struct padded_lock *l = &locks[(long)arg];
	long i;

	for (i = 0; i < opts.iterations; i++) {
		compute(opts.delay_us);
		sample_lock_arrive();
		acquire(&l->m);
		sample_lock_taken();
		if (opts.hold_us)
			compute(opts.hold_us);
		l->counter++;
		pthread_mutex_unlock(&l->m);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int i;

	sample_parse(argc, argv, &opts);
	for (i = 0; i < opts.threads; i++)
		pthread_mutex_init(&locks[i].m, NULL);
	sample_run_threads(&opts, worker);
	printf("no_contention: %d threads x %ld iterations, delay %ld us\n",
	       opts.threads, opts.iterations, opts.delay_us);
	return opts.exit_status;
}
