/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every interference sample shares: the --threads/--delay-us/
 * --iterations options, a calibrated busy wait standing for useful work,
 * and starting N threads at once.
 */
#ifndef ISPOT_SAMPLE_H
#define ISPOT_SAMPLE_H

#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sample_opts {
	int threads;
	long delay_us;
	long hold_us;		/* --hold-us: work inside the lock, 0 by default */
	long iterations;
	int exit_status;	/* --exit-status: what a correct run returns */
};

static inline void sample_usage(const char *prog, FILE *f)
{
	fprintf(f, "usage: %s [--threads N] [--delay-us US] [--iterations N] "
		"[--hold-us US] [--exit-status N]\n", prog);
}

/* Parse the common options; exits 2 on a usage error, as ispotctl does. */
static inline void sample_parse(int argc, char **argv, struct sample_opts *o)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "delay-us", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "hold-us", required_argument, NULL, 'H' },
		{ "exit-status", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "t:d:i:H:x:h", opts, NULL)) != -1) {
		char *end = NULL;
		long v = 0;

		if (c == 'h') {
			sample_usage(argv[0], stdout);
			exit(0);
		}
		if (c == 't' || c == 'd' || c == 'i' || c == 'H' || c == 'x')
			v = strtol(optarg, &end, 10);
		if (c == '?' || !end || *end || v < 0 ||
		    (c == 't' && (v < 1 || v > 1024)) || (c == 'x' && v > 255)) {
			sample_usage(argv[0], stderr);
			exit(2);
		}
		if (c == 't')
			o->threads = (int)v;
		else if (c == 'd')
			o->delay_us = v;
		else if (c == 'H')
			o->hold_us = v;
		else if (c == 'x')
			o->exit_status = (int)v;
		else
			o->iterations = v;
	}
}

static inline unsigned long long sample_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Useful work: spin on-CPU for @us microseconds. */
__attribute__((noinline)) void compute(long us)
{
	unsigned long long end = sample_now_ns() + us * 1000ull;

	while (sample_now_ns() < end)
		;
}

/* Run @fn on o->threads threads, each given its index, and join them. */
static inline void sample_run_threads(const struct sample_opts *o,
				      void *(*fn)(void *))
{
	pthread_t *t = calloc(o->threads, sizeof(*t));
	long i;

	if (!t) {
		perror("calloc");
		exit(1);
	}
	for (i = 0; i < o->threads; i++) {
		if (pthread_create(&t[i], NULL, fn, (void *)i)) {
			perror("pthread_create");
			exit(1);
		}
	}
	for (i = 0; i < o->threads; i++)
		pthread_join(t[i], NULL);
	free(t);
}

#endif /* ISPOT_SAMPLE_H */
