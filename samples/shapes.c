// SPDX-License-Identifier: GPL-2.0
/*
 * One function, two shapes: handle() runs step() once on even iterations
 * and three times on odd ones.  Unkeyed, its slow calls are slow because
 * they do more work, not because of interference, and its SCI is high;
 * keyed by shape, each call is compared with calls that made the same
 * step() calls, and the SCI falls to nearly 0.
 *
 *   ispotctl run --func handle --func step --key handle=shape -- \
 *	samples/shapes
 */
#include "sample.h"

static struct sample_opts opts = { .threads = 1, .delay_us = 200,
				   .iterations = 200, .no_hold = true };
static unsigned long steps;

__attribute__((noinline)) void step(void)
{
	compute(opts.delay_us);
	steps++;
}

__attribute__((noinline)) void handle(long i)
{
	step();
	if (i & 1) {
		step();
		step();
	}
}

static void *worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < opts.iterations; i++)
		handle(i);
	return NULL;
}

int main(int argc, char **argv)
{
	sample_parse(argc, argv, &opts);
	sample_run_threads(&opts, worker);
	printf("shapes: %d threads x %ld iterations, %lu steps\n",
	       opts.threads, opts.iterations, steps);
	return opts.exit_status;
}
