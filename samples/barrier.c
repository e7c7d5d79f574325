// SPDX-License-Identifier: GPL-2.0
/*
 * Barrier imbalance (the paper's §5: streamcluster's and UA's barriers): the
 * threads meet at a barrier after every round, but do unequal work before
 * it, so the faster ones lose the difference waiting in sync_point().
 * Thread i computes --delay-us × (1 + i × --imbalance / 100) per round:
 * the default 100 makes it (i + 1) × delay, and 0 is the balanced
 * control, where only scheduling noise is left to wait for.
 *
 *   ispotctl run --sync --func sync_point -- samples/barrier --delay-us 1000
 */
#include "sample.h"

static long imbalance = 100;
static const struct sample_opt extra[] = {
	{ .name = "imbalance", .arg = "PCT", .num = &imbalance, .min = 0,
	  .max = 100000,
	  .help = "each thread works PCT% of --delay-us more than the one "
		  "before (default 100; 0 balances the work)" },
	{ },
};
static struct sample_opts opts = { .threads = 2, .delay_us = 100,
				   .iterations = 2000, .no_hold = true,
				   .extra = extra };
static pthread_barrier_t gb_barrier;
static unsigned long rounds[1024], serial;

/* The block ISPOT measures: waiting for the slowest thread of the round. */
__attribute__((noinline)) int sync_point(pthread_barrier_t *b)
{
	return pthread_barrier_wait(b);
}

static void *worker(void *arg)
{
	long tid = (long)arg, i;
	long work = opts.delay_us + opts.delay_us * tid * imbalance / 100;

	for (i = 0; i < opts.iterations; i++) {
		compute(work);
		sample_lock_arrive();	/* the barrier's wait, for the stats */
		/* Exactly one thread per round is told it is the last in. */
		if (sync_point(&gb_barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
			__atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED);
		sample_lock_taken();
	}
	/* Once, at the end: a shared counter line would add false sharing. */
	rounds[tid] = i;
	return NULL;
}

int main(int argc, char **argv)
{
	int bad, i;

	sample_parse(argc, argv, &opts);
	if (pthread_barrier_init(&gb_barrier, NULL, opts.threads)) {
		perror("pthread_barrier_init");
		return 1;
	}
	sample_run_threads(&opts, worker);
	bad = serial != (unsigned long)opts.iterations;
	for (i = 0; i < opts.threads; i++)
		bad |= rounds[i] != (unsigned long)opts.iterations;
	printf("barrier: %d threads x %ld rounds, delay %ld us, imbalance %ld%%\n",
	       opts.threads, opts.iterations, opts.delay_us, imbalance);
	pthread_barrier_destroy(&gb_barrier);
	return bad ? 1 : opts.exit_status;
}
