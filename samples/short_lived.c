// SPDX-License-Identifier: GPL-2.0
/*
 * A target that is gone in a few milliseconds: two threads take turns on
 * the global short_lock, holding it 1 ms each time, three times, and the
 * process exits.  Linked statically, so no dynamic loader slows its start:
 * it lives less than the tracer's 100 ms thread scan even in an emulated
 * guest.  The futex report must still name short_lock, from maps read
 * while the process lived (selftests/kmod/short_lived_test.sh).
 *
 *   ispotctl run --func acquire --json -- samples/short_lived
 */
#include <unistd.h>

#include "sample.h"

static struct sample_opts opts = { .threads = 2, .hold_us = 1000,
				   .iterations = 3 };
pthread_mutex_t short_lock = PTHREAD_MUTEX_INITIALIZER;
/* The threads start their loops together, so one does wait for the lock
 * (started one after the other, a slow guest let the first finish
 * before the second began, and nothing waited on short_lock). */
static pthread_barrier_t start;
/*
 * And in the first round worker 1 waits for the lock for certain: worker 0
 * holds it until worker 1 is on its way in, then sleeps.  Without this,
 * single-threaded emulation (one vCPU runs until the other is kicked, up
 * to 100 ms) let worker 0 do all its rounds before worker 1 ran at all.
 */
static int taken, coming;

__attribute__((noinline)) void acquire(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
}

static void *worker(void *arg)
{
	long i, id = (long)arg;
	bool handshake = opts.threads >= 2 && id < 2;

	pthread_barrier_wait(&start);
	for (i = 0; i < opts.iterations; i++) {
		compute(opts.delay_us);
		if (handshake && i == 0 && id == 1) {
			while (!__atomic_load_n(&taken, __ATOMIC_ACQUIRE))
				usleep(100);
			__atomic_store_n(&coming, 1, __ATOMIC_RELEASE);
		}
		acquire(&short_lock);
		if (handshake && i == 0 && id == 0) {
			__atomic_store_n(&taken, 1, __ATOMIC_RELEASE);
			while (!__atomic_load_n(&coming, __ATOMIC_ACQUIRE))
				usleep(100);
			usleep(2000);	/* worker 1 goes to sleep on the lock */
		}
		compute(opts.hold_us);
		pthread_mutex_unlock(&short_lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	sample_parse(argc, argv, &opts);
	pthread_barrier_init(&start, NULL, opts.threads);
	sample_run_threads(&opts, worker);
	return opts.exit_status;
}
