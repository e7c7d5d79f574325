// SPDX-License-Identifier: GPL-2.0
/*
 * Lock contention (the paper's Listing 1; Documentation/design.rst,
 * References): every thread computes for --delay-us, then takes one shared
 * mutex to bump a counter.  The shorter the delay, the more time acquire()
 * loses to the other threads.
 * --hold-us adds work inside the lock (0, Listing 1's case, by default):
 * a longer critical section makes contention stand out from the timing
 * noise of an emulated machine.
 *
 *   ispotctl run --func acquire -- samples/lock_contention --delay-us 0
 */
#include <unistd.h>

#include "sample.h"

static const char *then_exec;
static const struct sample_opt extra[] = {
	{ "then-exec", "PATH", "when done, exec PATH (a target that execs "
	  "away from its executable)", NULL, &then_exec, 0, 0 },
	{ }
};
static struct sample_opts opts = { .threads = 2, .delay_us = 0,
				   .iterations = 20000, .extra = extra };
pthread_mutex_t gm_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long counter;

/* The block ISPOT measures: the time to get the lock. */
__attribute__((noinline)) void acquire(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
}

static void *worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < opts.iterations; i++) {
		compute(opts.delay_us);
		sample_lock_arrive();
		acquire(&gm_lock);
		sample_lock_taken();
		if (opts.hold_us)
			compute(opts.hold_us);
		counter++;
		pthread_mutex_unlock(&gm_lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	sample_parse(argc, argv, &opts);
	sample_run_threads(&opts, worker);
	printf("lock_contention: %d threads x %ld iterations, delay %ld us, counter %lu\n",
	       opts.threads, opts.iterations, opts.delay_us, counter);
	if (then_exec) {
		fflush(stdout);
		execl(then_exec, then_exec, (char *)NULL);
		perror(then_exec);
		return 1;
	}
	return counter == (unsigned long)opts.threads * opts.iterations ?
	       opts.exit_status : 1;
}
