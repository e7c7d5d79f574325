/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A short cpu-clock sample of a process's user-space instruction pointers,
 * for `--auto`: which functions is it running?
 *
 * One perf software event (PERF_COUNT_SW_CPU_CLOCK, user space only) per
 * thread, each with its own small mmap ring read by hand: a per-thread
 * event needs no CPU list and no perf_event_paranoid below 2 for one's own
 * processes.  /proc/PID/task is rescanned while sampling, so threads the
 * target starts meanwhile are sampled too (a command `run` just started
 * creates its workers after the sampling began).  The choice counts each
 * sample for the function its IP is in, as perf's "self" column does;
 * the user call chain the kernel walks with frame pointers is kept too,
 * per distinct stack, for the wall-clock profile's folded stacks
 * (wall_folded.h).
 */
#ifndef ISPOT_SAMPLER_H
#define ISPOT_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/hashmap.h"

/* 1 kHz per thread: 2,000 samples per busy thread in the default 2 s. */
#define SAMPLER_PERIOD_NS	(1000 * 1000ull)

/*
 * Threads sampled at once, the busiest by CPU time when there are more
 * (a thread that ends or idles gives its slot back: sampler_slots.c):
 * each costs a file descriptor and a 36 KiB ring, and a server of a
 * thousand threads took ispotd's whole default of 1,024 descriptors (perf
 * record -p does the same for every thread and every CPU).  A sample of
 * this many says which functions a pool runs.
 */
#define SAMPLER_MAX_THREADS	256

struct sampler_ip {
	uint64_t ip;
	uint64_t count;
};

/* Frames of a sample's user call chain kept, at most. */
#define SAMPLER_MAX_FRAMES	32

/* One distinct call chain: frames[0] the IP, then return addresses. */
struct sampler_stack {
	uint32_t nr;
	uint64_t frames[SAMPLER_MAX_FRAMES];
	uint64_t count;
};

struct sampler_result {
	struct sampler_ip *ips;	/* distinct IPs, sorted by ip */
	size_t nr_ips, cap_ips;
	struct sampler_stack *stacks;	/* distinct call chains */
	size_t nr_stacks, cap_stacks;
	struct hashmap stack_map;	/* chain's hash -> index */
	uint64_t samples;	/* taken, in user space */
	uint64_t lost;		/* the kernel's PERF_RECORD_LOST counts */
	/*
	 * threads sampled, over the run (those that ended or idled gave
	 * their slots back; one that idled and ran again counts again)
	 */
	uint32_t threads;
	uint32_t swapped;	/* idle threads' slots given to busier ones */
	uint32_t unsampled;	/* past SAMPLER_MAX_THREADS, at most seen */
	bool exited;		/* the process exited before the end */
	/* *@stop was set before the end (also when it then exited) */
	bool stopped;
	uint64_t stopped_after_ns;	/* then: how long it sampled */
};

/* Called after each round of reading (every 50 ms) while sampling. */
typedef void (*sampler_round_fn)(void *ctx);

/*
 * Sample @pid's threads for @duration_ns, calling @round(@ctx) (if not
 * NULL) after each round, and ending early, r->stopped, once @stop (if not
 * NULL: a signal handler's flag) is set.  Returns 0 (even with no sample:
 * check r->samples; r->exited when the process is gone, or went before
 * the end), or a negative errno after writing one line saying what to do
 * to @err: -EACCES when perf_event_paranoid or a missing CAP_PERFMON
 * forbids it, -ENODEV when the kernel has no perf events.  Free with
 * sampler_result_free() either way.
 */
int sampler_run(pid_t pid, uint64_t duration_ns, struct sampler_result *r,
		sampler_round_fn round, void *round_ctx,
		const volatile sig_atomic_t *stop, char *err, size_t errlen);
void sampler_result_free(struct sampler_result *r);

/* Count @n samples at @ip (sampler_run()'s own accumulator; for tests). */
int sampler_add(struct sampler_result *r, uint64_t ip, uint64_t n);
/* Count a sample of the call chain @frames[0..@nr) (the same, for it). */
int sampler_add_stack(struct sampler_result *r, const uint64_t *frames,
		      uint32_t nr);

#endif /* ISPOT_SAMPLER_H */
