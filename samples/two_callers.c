// SPDX-License-Identifier: GPL-2.0
/*
 * One function, two callers: every iteration, parse() runs step() three
 * times and store() once, each inside its own mutex.  The report's CALLED
 * FROM block should split step()'s calls 75% / 25% between the two, and
 * with --sync split pthread_mutex_lock's the same way, naming the two
 * critical sections that take a lock.
 *
 *   ispotctl run --func step --stack-period 1 -- samples/two_callers
 */
#include "sample.h"

static struct sample_opts opts = { .threads = 1, .delay_us = 0,
				   .iterations = 1000, .no_hold = true };
static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long parsed, stored;

/* The block ISPOT measures, reached from two places. */
__attribute__((noinline)) void step(unsigned long *counter)
{
	compute(opts.delay_us);
	(*counter)++;
}

__attribute__((noinline)) void parse(void)
{
	pthread_mutex_lock(&parse_lock);
	step(&parsed);
	step(&parsed);
	step(&parsed);
	pthread_mutex_unlock(&parse_lock);
}

__attribute__((noinline)) void store(void)
{
	pthread_mutex_lock(&store_lock);
	step(&stored);
	pthread_mutex_unlock(&store_lock);
}

static void *worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < opts.iterations; i++) {
		parse();
		store();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	sample_parse(argc, argv, &opts);
	sample_run_threads(&opts, worker);
	printf("two_callers: %d threads x %ld iterations, %lu parsed, "
	       "%lu stored\n", opts.threads, opts.iterations, parsed, stored);
	return opts.exit_status;
}
