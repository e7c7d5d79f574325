// SPDX-License-Identifier: GPL-2.0
/*
 * False sharing (the paper's Listing 2; Documentation/design.rst,
 * References): each thread increments a field of its own, but the fields
 * share one cache line, so every increment takes the line away from the
 * other threads.  Thread 0 updates without a pause; the others compute for
 * --delay-us after each update, so a longer delay means less sharing.
 * --padded gives each field a line of its own:
 * the same work without the interference, the control.
 *
 * update() runs --updates increments per call, not Listing 2's single
 * one: a probe costs two traps, which would hide a few lost cache misses.
 *
 * The slowdown lives in the cache-coherence protocol.  The emulated VM of
 * the selftests has no cache model, so there update() takes as long with
 * --padded as without; it shows only on real hardware, best with a PMU
 * to confirm the misses (as Plastic does, Nanavati et al.).
 *
 *   ispotctl run --func update -- samples/false_sharing
 *   ispotctl run --func update -- samples/false_sharing --padded
 */
#include "sample.h"

#define CACHE_LINE	64
#define MAX_THREADS	1024

static long padded, updates = 1000;
static const struct sample_opt extra[] = {
	{ .name = "padded", .num = &padded,
	  .help = "put each thread's field on a cache line of its own" },
	{ .name = "updates", .arg = "N", .num = &updates, .min = 1,
	  .max = 100000000,
	  .help = "increments per call of update() (default 1000)" },
	{ },
};
static struct sample_opts opts = { .threads = 2, .delay_us = 0,
				   .iterations = 20000, .no_hold = true,
				   .extra = extra };

/*
 * Listing 2's struct { int x; int y; }, for any number of threads:
 * packed, eight fields share a line; padded, none do.
 */
static struct {
	volatile unsigned long packed[MAX_THREADS];
	struct {
		volatile unsigned long v;
	} __attribute__((aligned(CACHE_LINE))) padded[MAX_THREADS];
} data __attribute__((aligned(CACHE_LINE)));

/* The block ISPOT measures: increments of this thread's own field. */
__attribute__((noinline)) void update(volatile unsigned long *field)
{
	long i;

	for (i = 0; i < updates; i++)
		(*field)++;
}

static void *worker(void *arg)
{
	long tid = (long)arg, i;
	volatile unsigned long *field = padded ? &data.padded[tid].v :
					&data.packed[tid];

	for (i = 0; i < opts.iterations; i++) {
		update(field);
		if (tid)
			compute(opts.delay_us);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int bad = 0, i;

	sample_parse(argc, argv, &opts);
	sample_run_threads(&opts, worker);
	for (i = 0; i < opts.threads; i++) {
		unsigned long v = padded ? data.padded[i].v : data.packed[i];

		bad |= v != (unsigned long)opts.iterations * updates;
	}
	printf("false_sharing: %d threads x %ld iterations x %ld updates, "
	       "delay %ld us, %s\n", opts.threads, opts.iterations, updates,
	       opts.delay_us, padded ? "padded" : "one cache line");
	return bad ? 1 : opts.exit_status;
}
