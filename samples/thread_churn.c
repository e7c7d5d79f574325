// SPDX-License-Identifier: GPL-2.0
/*
 * A server that starts a short-lived thread per request: --threads of
 * them at a time, --rounds times over, each calling churn_request()
 * --iterations times.  It is what an always-on tracer must survive
 * without growing: 100,000 threads over a life, few alive at once.
 *
 * With --hold-us, each request also works that long inside one lock all
 * threads share, so that the tracer sees every new thread wait on the
 * same futex word (what a per-waiter list would grow with).
 *
 *   ispotd --exe samples/thread_churn --func churn_request
 */
#include "sample.h"

static long rounds = 1000;
static const struct sample_opt extra[] = {
	{ "rounds", "N", "batches of --threads short-lived threads",
	  &rounds, NULL, 1, 100000000 },
	{ }
};
static struct sample_opts opts = { .threads = 4, .delay_us = 1,
				   .iterations = 1, .extra = extra };
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long served;

__attribute__((noinline)) void churn_request(void)
{
	compute(opts.delay_us);
	if (opts.hold_us) {
		pthread_mutex_lock(&shared_lock);
		compute(opts.hold_us);
		pthread_mutex_unlock(&shared_lock);
	}
	__atomic_fetch_add(&served, 1, __ATOMIC_RELAXED);
}

static void *request(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < opts.iterations; i++)
		churn_request();
	return NULL;
}

int main(int argc, char **argv)
{
	long r;

	sample_parse(argc, argv, &opts);
	for (r = 0; r < rounds; r++)
		sample_run_threads(&opts, request);
	printf("thread_churn: %ld threads, %lu requests\n",
	       rounds * opts.threads, served);
	return opts.exit_status;
}
