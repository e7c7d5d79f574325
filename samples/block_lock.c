// SPDX-License-Identifier: GPL-2.0
/*
 * Lock contention inside a function, timed with block markers rather than
 * a probed function (include/ispot.h; the paper's §3 "two lines" around a
 * block).  Each worker iteration runs two blocks of its loop body:
 *
 *   "private"  --delay-us of computation on the thread's own data: no
 *              other thread can slow it down, the control;
 *   "locked"   taking the one shared mutex and --hold-us of work under it,
 *              which the other threads slow down.
 *
 * Nothing here is a function of its own, so --func could not time either.
 *
 *   ispotctl run --func block:locked --func block:private -- \
 *	samples/block_lock --threads 2 --delay-us 100 --hold-us 100
 *
 * It also shows the markers' semaphore: ISPOT_BLOCK_ENABLED(locked) is
 * true only while a tracer has the begin marker armed, and the program
 * counts the iterations that saw it so (the "traced" figure it prints).
 */
#include "ispot.h"
#include "sample.h"

static struct sample_opts opts = { .threads = 2, .delay_us = 0,
				   .iterations = 20000 };
static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long counter;
static unsigned long traced;	/* iterations that saw the semaphore up */

static void *worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < opts.iterations; i++) {
		ISPOT_BLOCK_BEGIN(private);
		compute(opts.delay_us);
		ISPOT_BLOCK_END(private);

		ISPOT_BLOCK_BEGIN(locked);
		sample_lock_arrive();
		pthread_mutex_lock(&big_lock);
		sample_lock_taken();
		if (opts.hold_us)
			compute(opts.hold_us);
		counter++;
		/* Under the lock: a plain counter is enough. */
		if (ISPOT_BLOCK_ENABLED(locked))
			traced++;
		pthread_mutex_unlock(&big_lock);
		ISPOT_BLOCK_END(locked);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	sample_parse(argc, argv, &opts);
	sample_run_threads(&opts, worker);
	printf("block_lock: %d threads x %ld iterations, delay %ld us, hold %ld us, counter %lu, traced %lu\n",
	       opts.threads, opts.iterations, opts.delay_us, opts.hold_us,
	       counter, traced);
	return counter == (unsigned long)opts.threads * opts.iterations ?
	       opts.exit_status : 1;
}
