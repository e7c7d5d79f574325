/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Threads of the test's own process, started and ended when a test says,
 * for the tests of what scans /proc/PID/task (test_tasks.c,
 * test_trace_rounds.c).  A batch of workers lives until the write end of
 * its stop pipe closes; drop_tid() makes a listing that skipped one.
 */
#ifndef ISPOT_TEST_THREAD_WORKERS_H
#define ISPOT_TEST_THREAD_WORKERS_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ispot_test.h"
#include "trace/tasks.h"

struct worker {
	pthread_t thread;
	pid_t tid;
	int stop_fd;		/* read end: the worker waits on it */
};

static inline void *worker_main(void *arg)
{
	struct worker *w = arg;
	char c;

	__atomic_store_n(&w->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (read(w->stop_fd, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* Start @n workers that live until @stop's write end closes. */
static inline void start_workers(struct worker *w, size_t n, int stop[2])
{
	size_t i;

	if (pipe(stop))
		ispot_test_fail(1);
	for (i = 0; i < n; i++) {
		w[i].stop_fd = stop[0];
		w[i].tid = 0;
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]))
			ispot_test_fail(1);
		while (!__atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE))
			usleep(1000);
	}
}

/*
 * End the @n workers start_workers() started with @stop, and wait (a
 * second at most each) until their /proc/PID/task/TID are gone: a join
 * returns once a thread's tid is cleared, and its reaping may follow a
 * little.
 */
static inline void stop_workers(struct worker *w, size_t n, int stop[2])
{
	size_t i;
	int tries;

	close(stop[1]);
	for (i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
	close(stop[0]);
	for (i = 0; i < n; i++)
		for (tries = 0; tries < 1000 &&
		     task_thread_alive(getpid(), (uint32_t)w[i].tid); tries++)
			usleep(1000);
}

/* The tid of a thread that has ended and whose /proc entry is gone. */
static inline uint32_t ended_thread_tid(void)
{
	struct worker w;
	int stop[2];

	start_workers(&w, 1, stop);
	stop_workers(&w, 1, stop);
	return (uint32_t)w.tid;
}

/* @s without @tid, as a listing of /proc/PID/task that skipped it reads. */
static inline void drop_tid(struct task_set *s, uint32_t tid)
{
	size_t i, j = 0;

	for (i = 0; i < s->n; i++)
		if (s->tids[i] != tid)
			s->tids[j++] = s->tids[i];
	s->n = j;
}

#endif /* ISPOT_TEST_THREAD_WORKERS_H */
