/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a process waits while `--auto` samples where it runs: a session
 * of the module with off-CPU stacks and no probe (ABI 1.8, a wall-clock
 * profile before any function is chosen), drained into a wallprof
 * (analysis/wallprof.h) at each round of the sampler, so that its rings
 * never fill however often the threads switch.
 */
#ifndef ISPOT_OFFPROF_H
#define ISPOT_OFFPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "analysis/drain.h"
#include "analysis/wallprof.h"
#include "trace/device.h"

/* Rings of 1 MiB per CPU: a drain every 50 ms keeps them far from full. */
#define OFFPROF_RING_PAGES	256

struct offprof {
	struct ispot_device dev;
	struct ispot_rings rings;
	struct drain *drain;
	struct wallprof wp;
	bool enabled;
};

/*
 * Start profiling @pid.  0, or -1 with one line in @err saying why there
 * is no off-CPU evidence (no module, one older than ABI 1.8, no
 * permission): the caller goes on with on-CPU samples alone.
 */
int offprof_start(struct offprof *op, pid_t pid, char *err, size_t errlen);
/* Drain what is old enough (a sampler_round_fn). */
void offprof_round(void *op);
/* Stop, drain the rest and share the time out (wallprof_finish()). */
void offprof_stop(struct offprof *op);
/* Lost records: the rings' drops. */
uint64_t offprof_dropped(const struct offprof *op);
void offprof_free(struct offprof *op);

#endif /* ISPOT_OFFPROF_H */
