// SPDX-License-Identifier: GPL-2.0
/*
 * Work that varies by itself: each call of varied_work() does an amount
 * drawn at random, from a tenth of --delay-us to twice it, and the
 * threads share nothing (not even a cache line).  Its SCI is high in any
 * run, because its fastest call is far below its typical one; nothing in
 * the program slows it, so its interference must stay near zero, alone or
 * beside other threads.  The accuracy benchmark's false-positive check.
 *
 *   ispotctl run --func varied_work -- samples/varied_work --threads 1
 */
#include "sample.h"

static struct sample_opts opts = { .threads = 1, .delay_us = 200,
				   .iterations = 2000, .no_hold = true };

__attribute__((noinline)) void varied_work(long us)
{
	compute(us);
}

static void *worker(void *arg)
{
	/* Per thread, so that no thread waits for another's generator. */
	unsigned int seed = 0x9e3779b9u * (unsigned int)((long)arg + 1);
	long i, lo = opts.delay_us / 10, span = 2 * opts.delay_us - lo;

	for (i = 0; i < opts.iterations; i++)
		varied_work(lo + (span > 0 ? rand_r(&seed) % (span + 1) : 0));
	return NULL;
}

int main(int argc, char **argv)
{
	sample_parse(argc, argv, &opts);
	sample_run_threads(&opts, worker);
	printf("varied_work: %d threads x %ld iterations, %ld..%ld us each\n",
	       opts.threads, opts.iterations, opts.delay_us / 10,
	       2 * opts.delay_us);
	return opts.exit_status;
}
