// SPDX-License-Identifier: GPL-2.0
/*
 * Threads that take turns: each computes on data of its own, then waits in
 * wait_turn() on a condition variable until the thread before it hands it
 * the turn.  With N threads each spends (N - 1) / N of its time waiting
 * there and almost no CPU: a profile of where the CPU is finds compute()
 * and the C library's futex calls, not the function that waits.  Where the
 * threads wait is what `--auto` must also see (Documentation/usage.rst,
 * "Choosing functions"): wait_turn(), via pthread_cond_wait().
 *
 * --queue-after N changes the phase after N turns of the first thread to
 * reach them: the threads stop taking turns (wait_turn() returns at once)
 * and queue instead on a mutex held while they compute, in queue_up().
 * One thread still computes at a time, so the CPU rate stays the same,
 * but the waiting moved to another function: ispotd --auto must see that
 * its picks no longer hold the time, and pick again.
 *
 *   ispotctl run --auto=3 -- samples/cond_turns --threads 4
 */
#include "sample.h"

static long queue_after;
static const struct sample_opt extra[] = {
	{ .name = "queue-after", .arg = "N", .num = &queue_after, .min = 1,
	  .max = -1, .help = "after N turns, queue on a mutex in queue_up() "
	  "instead of taking turns in wait_turn()" },
	{ },
};
static struct sample_opts opts = { .threads = 4, .delay_us = 2000,
				   .iterations = 300, .no_hold = true,
				   .extra = extra };
static pthread_mutex_t turn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cond = PTHREAD_COND_INITIALIZER;
static long turn;		/* whose turn: turn % threads */
static bool turns_over;		/* --queue-after: no more turns */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static long done[1024];

/* The block that loses its time to the others: waiting for its turn. */
__attribute__((noinline)) void wait_turn(long me)
{
	pthread_mutex_lock(&turn_lock);
	while (!turns_over && turn % opts.threads != me)
		pthread_cond_wait(&turn_cond, &turn_lock);
	pthread_mutex_unlock(&turn_lock);
}

/* The second phase's work: one thread at a time, queued on a mutex. */
__attribute__((noinline)) void queue_up(void)
{
	pthread_mutex_lock(&queue_lock);
	compute(opts.delay_us);
	pthread_mutex_unlock(&queue_lock);
}

static void end_turns(void)
{
	pthread_mutex_lock(&turn_lock);
	__atomic_store_n(&turns_over, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&turn_cond);
	pthread_mutex_unlock(&turn_lock);
}

static void pass_turn(void)
{
	pthread_mutex_lock(&turn_lock);
	turn++;
	pthread_cond_broadcast(&turn_cond);
	pthread_mutex_unlock(&turn_lock);
}

static void *worker(void *arg)
{
	long me = (long)arg, i;

	for (i = 0; i < opts.iterations; i++) {
		if (queue_after && i == queue_after)
			end_turns();
		wait_turn(me);
		if (__atomic_load_n(&turns_over, __ATOMIC_ACQUIRE)) {
			queue_up();
			continue;
		}
		compute(opts.delay_us);
		pass_turn();
	}
	done[me] = i;
	return NULL;
}

int main(int argc, char **argv)
{
	int bad = 0, i;

	sample_parse(argc, argv, &opts);
	sample_run_threads(&opts, worker);
	for (i = 0; i < opts.threads; i++)
		bad |= done[i] != opts.iterations;
	printf("cond_turns: %d threads x %ld turns of %ld us\n", opts.threads,
	       opts.iterations, opts.delay_us);
	return bad ? 1 : opts.exit_status;
}
