// SPDX-License-Identifier: GPL-2.0
/*
 * A target that is gone in a few milliseconds: two threads take turns on
 * the global short_lock, holding it 1 ms each time, three times, and the
 * process exits.  Linked statically, so no dynamic loader slows its start:
 * it lives less than the tracer's 100 ms thread scan even in an emulated
 * guest.  The futex report must still name short_lock, from maps read
 * while the process lived (selftests/kmod/short_lived_test.sh).
 *
 *   ispotctl run --func acquire --json -- samples/short_lived
 */
#include "sample.h"

static struct sample_opts opts = { .threads = 2, .hold_us = 1000,
				   .iterations = 3 };
pthread_mutex_t short_lock = PTHREAD_MUTEX_INITIALIZER;
/* The threads start their loops together, so one does wait for the lock
 * (started one after the other, a slow guest let the first finish
 * before the second began, and nothing waited on short_lock). */
static pthread_barrier_t start;

__attribute__((noinline)) void acquire(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
}

static void *worker(void *arg)
{
	long i;

	(void)arg;
	pthread_barrier_wait(&start);
	for (i = 0; i < opts.iterations; i++) {
		compute(opts.delay_us);
		acquire(&short_lock);
		compute(opts.hold_us);
		pthread_mutex_unlock(&short_lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	sample_parse(argc, argv, &opts);
	pthread_barrier_init(&start, NULL, opts.threads);
	sample_run_threads(&opts, worker);
	return opts.exit_status;
}
