// SPDX-License-Identifier: GPL-2.0
/*
 * False positives (paper §3.4): executions that are slower because they
 * were given more work, not because of another thread.  work(n) spins for
 * n x --unit-us, n = 1, 2, 4 ... 64 in turn: its time follows arg0, so
 * unkeyed it scores a high SCI that no interference caused, and the
 * report flags it as workload-dependent and suggests arg0:log2.  put(n)
 * writes n = 1 B .. 4 KiB to /dev/null: its time is the system call's
 * whatever the size (the paper's DC example), so it is not flagged.
 *
 *   ispotctl run --func work --func put -- samples/workload
 *   ispotctl run --func work --func put --key 'work=auto' -- samples/workload
 */
#include <fcntl.h>
#include <unistd.h>

#include "sample.h"

#define WORK_SIZES	7	/* n = 1 .. 64 */
#define PUT_SIZES	13	/* 1 B .. 4 KiB */

static long unit_us = 50;
static const struct sample_opt extra[] = {
	{ "unit-us", "US", "work(n) spins n x US microseconds (50)", &unit_us,
	  NULL, 1, 100000 },
	{ }
};
static struct sample_opts opts = { .threads = 2, .iterations = 40,
				   .no_hold = true, .extra = extra };
static int null_fd;
static char buf[1 << (PUT_SIZES - 1)];

/* Work proportional to @n. */
__attribute__((noinline)) void work(long n)
{
	compute(n * unit_us);
}

/* A small write: the syscall, whatever @n. */
__attribute__((noinline)) long put(long n)
{
	return write(null_fd, buf, n);
}

static void *worker(void *arg)
{
	long i, k;

	(void)arg;
	for (i = 0; i < opts.iterations; i++) {
		for (k = 0; k < WORK_SIZES; k++) {
			work(1L << k);
			compute(opts.delay_us);
		}
		/*
		 * Each round starts at another size: under emulation the
		 * first write after a long spin is slower, which would
		 * otherwise always land on the same size.
		 */
		for (k = 0; k < PUT_SIZES; k++)
			if (put(1L << (k + i) % PUT_SIZES) !=
			    1L << (k + i) % PUT_SIZES) {
				perror("write /dev/null");
				exit(1);
			}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	sample_parse(argc, argv, &opts);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null_fd < 0) {
		perror("/dev/null");
		return 1;
	}
	sample_run_threads(&opts, worker);
	printf("workload: %d threads x %ld iterations, work(1..64) x %ld us, put(1..4096)\n",
	       opts.threads, opts.iterations, unit_us);
	return opts.exit_status;
}
