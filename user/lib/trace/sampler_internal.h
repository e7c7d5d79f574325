/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sampler's parts (sampler.h): sampler.c opens and reads the perf
 * events and runs the rounds; sampler_slots.c chooses which threads hold
 * the SAMPLER_MAX_THREADS slots.
 */
#ifndef ISPOT_SAMPLER_INTERNAL_H
#define ISPOT_SAMPLER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/sampler.h"
#include "trace/tasks.h"
#include "util/hashmap.h"

/* 32 KiB per thread: 2,000 samples of 16 bytes, far more than a round. */
#define SAMPLER_DATA_PAGES	8
#define SAMPLER_ROUND_MS	50
/* Threads waiting for a slot ranked by CPU time at most (sampler_scan()). */
#define SAMPLER_RANK_MAX	(4 * SAMPLER_MAX_THREADS)
/*
 * A sampled thread with no sample in this many rounds (200 ms: under 1 ms
 * of user CPU time, 0.5 %) is idle, and its slot goes to a waiting thread
 * that ran at least a sample's worth (1 ms) since the last ranking.  The
 * two are measured apart: samples are of user time only, the waiting
 * threads' CPU time counts the kernel's too, so a thread busy in system
 * calls may take an idle slot, give no sample and give it up again, at
 * most once a ranking.
 */
#define SAMPLER_IDLE_ROUNDS	4
/*
 * With every slot taken, the waiting threads are ranked again for idle
 * slots at most once in this many rounds (1 s): each ranking reads every
 * waiting thread's CPU time from /proc, some 2 us a thread (schedstat,
 * measured natively on a 2-core host), so at most SAMPLER_RANK_MAX of
 * them cost about 0.2 % of a CPU.
 */
#define SAMPLER_RERANK_ROUNDS	20

struct sampler_event {
	uint32_t tid;
	int fd;
	void *base;		/* control page, then the data pages */
	uint32_t fresh;		/* samples since the last round's count */
	/* rounds since it last gave a sample, up to SAMPLER_IDLE_ROUNDS */
	uint32_t quiet_rounds;
};

/* A thread not sampled yet, and its CPU time since it was last ranked. */
struct sampler_candidate {
	uint32_t tid;
	uint64_t cpu_ns;
};

struct sampler {
	pid_t pid;
	struct sampler_event *ev;
	size_t nr, cap;
	struct sampler_candidate *cand;	/* a scan's, kept for the next */
	size_t cand_cap;
	/*
	 * waiting tid -> its CPU time at the last ranking that kept its
	 * readings (sampler_rank()), or when it left its slot since
	 */
	struct hashmap ranked;
	unsigned int rounds_since_rank;
	uint32_t window_tid;	/* the last tid of the last window ranked */
	size_t page;
	struct sampler_result *r;
};

/*
 * Sample thread @tid too, in a slot of its own: 0 (also when it has just
 * exited), or a negative errno after writing to @err what to do.
 */
int sampler_open(struct sampler *s, uint32_t tid, char *err, size_t errlen);
/* Take what the kernel wrote into @e's ring: 0 or -ENOMEM. */
int sampler_read(struct sampler *s, struct sampler_event *e);
/* @e's ring unmapped and its event closed (its slot is the caller's). */
void sampler_event_close(struct sampler *s, struct sampler_event *e);

/*
 * A round's rescan of /proc/PID/task (@ts): the slots of threads gone or
 * idle given back, and threads not sampled yet given free ones
 * (sampler_slots.c).  0, -ESRCH once the process is gone, or another
 * negative errno after writing to @err what to do.
 */
int sampler_scan(struct sampler *s, struct task_set *ts, char *err,
		 size_t errlen);

#endif /* ISPOT_SAMPLER_INTERNAL_H */
