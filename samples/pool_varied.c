// SPDX-License-Identifier: GPL-2.0
/*
 * A worker pool with no tail: --threads workers start together (a
 * barrier) and stop together (a shared stop flag, set when the pool has
 * taken up its fixed total of work), each calling varied_lock_work() in
 * a loop.  Each call does its own amount of work, log-uniform from 1 to
 * 64 units of --delay-us (a seed per thread, rand_r()), and does the
 * last quarter of it holding one mutex that every worker shares.
 * --private-locks gives each worker a mutex of its own: the same work
 * with nothing to wait for, the fix.
 *
 * The total is as much work as --iterations calls of the mean size per
 * thread (63 / ln 64 = 15.1 units).  Before a call a worker takes its
 * amount from what is left; the worker that finds too little left sets
 * the stop flag, and every worker ends within one call of the others.
 * So its run time (T) and its calls per second compare the shared lock
 * with private ones for the same work, and no worker ever runs alone.
 *
 * Why: in such a pool the calls that happen to run alone are few and
 * biased short (a long call is likelier to overlap another), and the
 * calls vary 64-fold by themselves, so SCI is high whether or not the
 * lock binds, and a reference taken from solo calls or a bound
 * overstates the interference.  Only solo blocks give it a reference
 * (Documentation/evaluation.rst, "Solo blocks: the accuracy sweep").
 * The accuracy benchmark's pool configurations.
 *
 * It prints its own run time, from the barrier to the last worker's end:
 *
 *   pool_varied: 4 threads, shared lock: 4000 calls, 60531 units in 2.345 s, 1705.8 calls/s
 *
 *   ispotctl run --func varied_lock_work -- samples/pool_varied --threads 4 --sleep
 *   samples/pool_varied --threads 4 --sleep --private-locks
 */
#include <math.h>

#include "sample.h"

static long private_locks;
static const struct sample_opt extra[] = {
	{ .name = "private-locks", .num = &private_locks,
	  .help = "a mutex per thread: no contention, the fix" },
	{ },
};
static struct sample_opts opts = { .threads = 2, .delay_us = 50,
				   .iterations = 1000, .no_hold = true,
				   .extra = extra };

/* Units of work per call: 1 to this, log-uniform. */
#define POOL_MAX_UNITS	64

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start_line;
static unsigned long long start_ns;
static long work_left_us;	/* what the pool has yet to take up */
static int stop;

/* --private-locks: one lock per thread; and each thread's counts. */
static struct {
	pthread_mutex_t m;
	unsigned long calls;
	unsigned long long us;
} __attribute__((aligned(64))) own[SAMPLE_MAX_THREADS];

/* The block ISPOT measures: its own work, the last quarter under @m. */
__attribute__((noinline)) void varied_lock_work(pthread_mutex_t *m, long us)
{
	long held = us / 4;

	compute(us - held);
	sample_lock_arrive();
	pthread_mutex_lock(m);
	sample_lock_taken();
	compute(held);
	pthread_mutex_unlock(m);
}

/* One call's work in microseconds: --delay-us x 2^(6u), u in [0, 1). */
static long draw_us(unsigned int *seed)
{
	double u = rand_r(seed) / ((double)RAND_MAX + 1);
	long us = lround(opts.delay_us * exp2(log2(POOL_MAX_UNITS) * u));

	return us > 0 ? us : 1;
}

static void *worker(void *arg)
{
	long self = (long)arg;
	/* Per thread, so that no thread waits for another's generator. */
	unsigned int seed = 0x9e3779b9u * (unsigned int)(self + 1);
	pthread_mutex_t *m = private_locks ? &own[self].m : &shared_lock;

	if (pthread_barrier_wait(&start_line) == PTHREAD_BARRIER_SERIAL_THREAD)
		start_ns = sample_now_ns();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		long us = draw_us(&seed);

		if (__atomic_sub_fetch(&work_left_us, us, __ATOMIC_RELAXED) < 0) {
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
			break;
		}
		varied_lock_work(m, us);
		own[self].calls++;
		own[self].us += us;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double mean_units = (POOL_MAX_UNITS - 1) / log(POOL_MAX_UNITS), s;
	unsigned long calls = 0;
	unsigned long long us = 0;
	int i;

	sample_parse(argc, argv, &opts);
	work_left_us = lround(opts.threads * (double)opts.iterations *
			      mean_units * opts.delay_us);
	for (i = 0; i < opts.threads; i++)
		pthread_mutex_init(&own[i].m, NULL);
	if (pthread_barrier_init(&start_line, NULL, opts.threads)) {
		perror("pthread_barrier_init");
		return 1;
	}
	sample_run_threads(&opts, worker);
	s = (sample_now_ns() - start_ns) / 1e9;
	for (i = 0; i < opts.threads; i++) {
		calls += own[i].calls;
		us += own[i].us;
	}
	printf("pool_varied: %d threads, %s: %lu calls, %.0f units in %.3f s, %.1f calls/s\n",
	       opts.threads, private_locks ? "private locks" : "shared lock",
	       calls, opts.delay_us ? (double)us / opts.delay_us : 0, s,
	       s > 0 ? calls / s : 0);
	return opts.exit_status;
}
