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
 *
 * What really happened in a run, measured by the sample itself (not by
 * ISPOT), for the tests that must tell a busy host from a misjudged SCI
 * (selftests/kmod/tap.sh, tap_parallel).  With ISPOT_SAMPLE_STATS=FILE in
 * the environment ("-" for stderr) a sample appends one line to FILE when
 * it ends (at exit, or on SIGTERM or SIGINT, which then still kill it),
 * and one more on each SIGUSR1 (it goes on):
 *
 *   lock_contention: overlap 0.83 of 5120 looks, waited 61234 of 204800 us in 2000 takes
 *
 * overlap: while a thread spins in compute() it bumps a counter of its
 * own, and every 20 us looks whether another thread's counter moved since
 * its last look; the share of looks that saw one move: near 1 when the
 * threads' work runs at the same moments, near 0 when the vCPUs take
 * turns.  waited (samples with a lock, and barrier's barrier): the time
 * the threads took to get the lock beyond each one's fastest take, timed
 * around the call that takes it (outside the traced function), over the
 * threads' lives: the contention that really happened, whatever caused
 * it.  Without the variable nothing is measured or written and no signal
 * is caught.
 */
#ifndef ISPOT_SAMPLE_H
#define ISPOT_SAMPLE_H

#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static inline void sample_stats_init(const char *argv0);

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
	sample_stats_init(argv[0]);
}

static inline unsigned long long sample_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The samples' own measures (see the top of this file).  Each thread's
 * counters sit on a cache line of their own; sample_self is the thread's
 * index, -1 outside sample_run_threads().  Nothing is counted unless
 * ISPOT_SAMPLE_STATS is set.
 */
#define SAMPLE_MAX_THREADS	1024
#define SAMPLE_LOOK_NS		20000ull

static struct sample_progress {
	unsigned long bumps;		/* written by its thread only */
	unsigned long looks, overlapped;
	unsigned long long next_look;
	unsigned long seen[2];		/* the neighbours' bumps last seen */
	unsigned long long start, end;	/* the thread's life */
	unsigned long long arrived;	/* at the lock, 0 if not waiting */
	unsigned long long wait_sum, wait_min;
	unsigned long waits;
} __attribute__((aligned(64))) sample_prog[SAMPLE_MAX_THREADS];
static int sample_nr_threads;
static __thread int sample_self = -1;
static const char *sample_name;
static const char *sample_stats;

/*
 * One spin of compute(): bump this thread's counter and, every 20 us,
 * look at two other threads' (the next two in index order: enough to
 * tell whether anyone else ran, and cheap with many threads).
 */
static inline void sample_spin(unsigned long long now)
{
	struct sample_progress *p;
	int k, moved = 0;

	if (!sample_stats || sample_self < 0 || sample_nr_threads < 2)
		return;
	p = &sample_prog[sample_self];
	__atomic_store_n(&p->bumps, p->bumps + 1, __ATOMIC_RELAXED);
	if (now < p->next_look)
		return;
	for (k = 0; k < 2 && k < sample_nr_threads - 1; k++) {
		int j = (sample_self + 1 + k) % sample_nr_threads;
		unsigned long b = __atomic_load_n(&sample_prog[j].bumps,
						  __ATOMIC_RELAXED);

		if (b != p->seen[k])
			moved = 1;
		p->seen[k] = b;
	}
	/* The first look only takes the counters. */
	if (p->next_look) {
		p->looks++;
		p->overlapped += moved;
	}
	p->next_look = now + SAMPLE_LOOK_NS;
}

/*
 * Around the call that takes the lock (the traced one: these run outside
 * it): how long the thread waited for it beyond its fastest take.
 */
static inline void sample_lock_arrive(void)
{
	if (sample_stats && sample_self >= 0)
		sample_prog[sample_self].arrived = sample_now_ns();
}

static inline void sample_lock_taken(void)
{
	struct sample_progress *p;
	unsigned long long d;

	if (!sample_stats || sample_self < 0)
		return;
	p = &sample_prog[sample_self];
	d = sample_now_ns() - p->arrived;
	p->wait_sum += d;
	if (!p->waits || d < p->wait_min)
		p->wait_min = d;
	p->waits++;
}

/* Append the stats line to ISPOT_SAMPLE_STATS (also from a handler). */
static void sample_write_stats(void)
{
	unsigned long looks = 0, over = 0, waits = 0;
	unsigned long long now = sample_now_ns(), loss = 0, life = 0;
	char line[256];
	int i, n, fd;

	if (!sample_stats)
		return;
	for (i = 0; i < sample_nr_threads && i < SAMPLE_MAX_THREADS; i++) {
		struct sample_progress *p = &sample_prog[i];

		looks += p->looks;
		over += p->overlapped;
		if (p->start)
			life += (p->end ? p->end : now) - p->start;
		waits += p->waits;
		loss += p->wait_sum - p->waits * p->wait_min;
	}
	n = snprintf(line, sizeof(line), "%s: overlap %lu.%02lu of %lu looks",
		     sample_name, looks ? over / looks : 0,
		     looks ? over * 100 / looks % 100 : 0, looks);
	if (waits)
		n += snprintf(line + n, sizeof(line) - n,
			      ", waited %llu of %llu us in %lu takes",
			      loss / 1000, life / 1000, waits);
	n += snprintf(line + n, sizeof(line) - n, "\n");
	if (strcmp(sample_stats, "-") == 0) {
		(void)!write(2, line, n);
		return;
	}
	fd = open(sample_stats, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return;
	(void)!write(fd, line, n);
	close(fd);
}

static void sample_stats_signal(int sig)
{
	sample_write_stats();
	if (sig == SIGUSR1)
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void sample_stats_at_exit(void)
{
	sample_write_stats();
}

/* From sample_parse(): arm the stats line if the environment asks. */
static inline void sample_stats_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	sample_stats = getenv("ISPOT_SAMPLE_STATS");
	if (!sample_stats || !*sample_stats) {
		sample_stats = NULL;
		return;
	}
	sample_name = slash ? slash + 1 : argv0;
	atexit(sample_stats_at_exit);
	signal(SIGTERM, sample_stats_signal);
	signal(SIGINT, sample_stats_signal);
	signal(SIGUSR1, sample_stats_signal);
}

/* Useful work: spin on-CPU for @us microseconds, or sleep with --sleep. */
__attribute__((noinline)) void compute(long us)
{
	unsigned long long now, end = sample_now_ns() + us * 1000ull;

	if (sample_work_sleeps) {
		struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

		if (us > 0)
			nanosleep(&ts, NULL);
		return;
	}
	while ((now = sample_now_ns()) < end)
		sample_spin(now);
}

static void *(*sample_thread_fn)(void *);

static void *sample_thread(void *arg)
{
	struct sample_progress *p;
	void *ret;

	sample_self = (int)(long)arg;
	if (!sample_stats || sample_self >= SAMPLE_MAX_THREADS)
		return sample_thread_fn(arg);
	p = &sample_prog[sample_self];
	/* thread_churn starts new threads on the same slots: their lives add. */
	if (p->end)
		p->start += sample_now_ns() - p->end;
	else
		p->start = sample_now_ns();
	p->end = 0;
	ret = sample_thread_fn(arg);
	p->end = sample_now_ns();
	return ret;
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
	sample_thread_fn = fn;
	sample_nr_threads = o->threads;
	for (i = 0; i < o->threads; i++) {
		if (pthread_create(&t[i], NULL, sample_thread, (void *)i)) {
			perror("pthread_create");
			exit(1);
		}
	}
	for (i = 0; i < o->threads; i++)
		pthread_join(t[i], NULL);
	free(t);
}

#endif /* ISPOT_SAMPLE_H */
