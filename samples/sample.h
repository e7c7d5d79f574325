/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every interference sample shares: the --threads/--delay-us/
 * --iterations options, a calibrated busy wait standing for useful work,
 * and starting N threads at once.
 *
 * --sleep makes that work a sleep instead of a busy wait.  Two spinning
 * threads need two CPUs for themselves; in a guest whose vCPUs share a
 * loaded host's cores, a busy wait then lasts until the host runs the
 * vCPU again, and that wait, not the threads' own interference, decides
 * the timings.  A sleeping thread needs a CPU only to wake up.
 *
 * A sample with options of its own lists them in opts.extra, so that one
 * parser and one usage line serve every sample and a mistyped option is a
 * usage error (exit 2) everywhere.
 */
#ifndef ISPOT_SAMPLE_H
#define ISPOT_SAMPLE_H

#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * An option of one sample.  With @arg NULL it is a flag that sets *@num
 * to 1; otherwise its value goes to *@str, or to *@num after a check
 * against @min..@max.
 */
struct sample_opt {
	const char *name;
	const char *arg;	/* shown in the usage line, e.g. "MIB" */
	const char *help;
	long *num;
	const char **str;
	long min, max;
};

struct sample_opts {
	int threads;
	long delay_us;
	long hold_us;		/* --hold-us: work inside the lock, 0 by default */
	long iterations;
	int exit_status;	/* --exit-status: what a correct run returns */
	/* Set by the sample, not by the user: */
	bool no_hold;		/* nothing is held: --hold-us is refused */
	const struct sample_opt *extra;	/* its own options, { } ends */
};

/* --sleep: compute() sleeps instead of spinning. */
static bool sample_work_sleeps;

/* Where a sample's own options start in getopt's return values. */
#define SAMPLE_OPT_EXTRA	0x100

static inline void sample_usage(const char *prog,
				const struct sample_opts *o, FILE *f)
{
	const struct sample_opt *e;

	fprintf(f, "usage: %s [--threads N] [--delay-us US] [--iterations N]%s "
		"[--sleep] [--exit-status N]", prog,
		o->no_hold ? "" : " [--hold-us US]");
	for (e = o->extra; e && e->name; e++)
		fprintf(f, e->arg ? " [--%s %s]" : " [--%s]", e->name,
			e->arg ? e->arg : "");
	fputc('\n', f);
	if (f != stdout)
		return;
	for (e = o->extra; e && e->name; e++)
		fprintf(f, "  --%s%s%s\n\t%s\n", e->name, e->arg ? " " : "",
			e->arg ? e->arg : "", e->help);
}

static inline void sample_bad_value(const char *prog,
				    const struct sample_opts *o,
				    const char *name, const char *val)
{
	fprintf(stderr, "%s: invalid value '%s' for --%s\n", prog, val, name);
	sample_usage(prog, o, stderr);
	exit(2);
}

/* Parse the common options; exits 2 on a usage error, as ispotctl does. */
static inline void sample_parse(int argc, char **argv, struct sample_opts *o)
{
	static const struct option common[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "delay-us", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "exit-status", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ "sleep", no_argument, NULL, 's' },
		/* Last, so that a sample without a lock can leave it out. */
		{ "hold-us", required_argument, NULL, 'H' },
	};
	size_t nr_common = sizeof(common) / sizeof(*common) - o->no_hold;
	size_t nr_extra = 0, i;
	struct option *opts;
	int c;

	while (o->extra && o->extra[nr_extra].name)
		nr_extra++;
	opts = calloc(nr_common + nr_extra + 1, sizeof(*opts));
	if (!opts) {
		perror("calloc");
		exit(1);
	}
	memcpy(opts, common, nr_common * sizeof(*opts));
	for (i = 0; i < nr_extra; i++) {
		opts[nr_common + i].name = o->extra[i].name;
		opts[nr_common + i].has_arg = o->extra[i].arg ?
					      required_argument : no_argument;
		opts[nr_common + i].val = SAMPLE_OPT_EXTRA + (int)i;
	}

	while ((c = getopt_long(argc, argv, o->no_hold ? "t:d:i:x:h" :
				"t:d:i:H:x:h", opts, NULL)) != -1) {
		const struct sample_opt *e = NULL;
		long min = 0, max = -1;		/* no upper bound */
		const char *name;
		char *end = NULL;
		long v;

		if (c == '?') {
			sample_usage(argv[0], o, stderr);
			exit(2);
		}
		if (c == 'h') {
			sample_usage(argv[0], o, stdout);
			exit(0);
		}
		if (c == 's') {
			sample_work_sleeps = true;
			continue;
		}
		if (c >= SAMPLE_OPT_EXTRA) {
			e = &o->extra[c - SAMPLE_OPT_EXTRA];
			if (!e->arg) {
				*e->num = 1;
				continue;
			}
			if (e->str) {
				*e->str = optarg;
				continue;
			}
			name = e->name;
			min = e->min;
			max = e->max;
		} else {
			name = c == 't' ? "threads" : c == 'd' ? "delay-us" :
			       c == 'i' ? "iterations" : c == 'H' ? "hold-us" :
			       "exit-status";
			if (c == 't') {
				min = 1;
				max = 1024;
			} else if (c == 'x') {
				max = 255;
			}
		}
		v = strtol(optarg, &end, 10);
		if (end == optarg || *end || v < min || (max >= 0 && v > max))
			sample_bad_value(argv[0], o, name, optarg);
		if (e)
			*e->num = v;
		else if (c == 't')
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
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0],
			argv[optind]);
		sample_usage(argv[0], o, stderr);
		exit(2);
	}
	free(opts);
}

static inline unsigned long long sample_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Useful work: spin on-CPU for @us microseconds, or sleep with --sleep. */
__attribute__((noinline)) void compute(long us)
{
	unsigned long long end = sample_now_ns() + us * 1000ull;

	if (sample_work_sleeps) {
		struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

		if (us > 0)
			nanosleep(&ts, NULL);
		return;
	}
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
