// SPDX-License-Identifier: GPL-2.0
/*
 * Two critical sections share one lock: every thread alternates between
 * update_stats(), which holds stats_lock for --hold-us, and flush(), which
 * holds it for --flush-us (9:1 by default).  The waits for the lock all
 * happen in acquire_lock(); the futex report's "woken from" says which
 * section the lock was held in when a wait ended: mostly update_stats.
 * Two threads (the default) make each wait span one section; with more,
 * a wait spans several and is credited to the last (Documentation/
 * design.rst, "Who held the lock"), so the shares drift towards 1:1.
 *
 *   ispotctl run --func acquire_lock --func update_stats --func flush \
 *	-- samples/two_sections
 */
#include "sample.h"

static long flush_us = 20;
static const struct sample_opt extra[] = {
	{ "flush-us", "US", "work inside the lock in flush() (20)", &flush_us,
	  NULL, 0, 1000000 },
	{ }
};
static struct sample_opts opts = { .threads = 2, .delay_us = 20,
				   .hold_us = 180, .iterations = 2000,
				   .extra = extra };
pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long updates, flushes;

/* Where every thread waits for the lock. */
__attribute__((noinline)) void acquire_lock(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
}

/* The long critical section: its unlock ends most of the waits. */
__attribute__((noinline)) void update_stats(void)
{
	sample_lock_arrive();
	acquire_lock(&stats_lock);
	sample_lock_taken();
	compute(opts.hold_us);
	updates++;
	pthread_mutex_unlock(&stats_lock);
}

/* The short one. */
__attribute__((noinline)) void flush(void)
{
	sample_lock_arrive();
	acquire_lock(&stats_lock);
	sample_lock_taken();
	compute(flush_us);
	flushes++;
	pthread_mutex_unlock(&stats_lock);
}

static void *worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < opts.iterations; i++) {
		compute(opts.delay_us);
		update_stats();
		compute(opts.delay_us);
		flush();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	sample_parse(argc, argv, &opts);
	sample_run_threads(&opts, worker);
	printf("two_sections: %d threads x %ld iterations, update_stats %ld us, flush %ld us\n",
	       opts.threads, opts.iterations, opts.hold_us, flush_us);
	return updates == flushes &&
	       updates == (unsigned long)opts.threads * opts.iterations ?
	       opts.exit_status : 1;
}
