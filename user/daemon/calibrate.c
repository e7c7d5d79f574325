// SPDX-License-Identifier: GPL-2.0
/* What one probed call costs on this host; see calibrate.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "calibrate.h"
#include "trace/device.h"
#include "trace/trace.h"

#define CALIBRATE_CALLS		2000
#define CALIBRATE_ROUNDS	5

static volatile unsigned long calibrate_sink;

__attribute__((noinline, used)) void ispotd_calibration_target(void)
{
	/* A body the compiler must keep, and nothing that could vary. */
	calibrate_sink++;
	__asm__ volatile("" ::: "memory");
}

static uint64_t calibrate_time(void)
{
	uint64_t t0 = trace_now();
	int i;

	for (i = 0; i < CALIBRATE_CALLS; i++)
		ispotd_calibration_target();
	return trace_now() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int calibrate_call_cost(double *cost_ns, double *session_ns, char *err,
			size_t errlen)
{
	static const char *const funcs[] = { "ispotd_calibration_target" };
	struct trace_opts o = { .ring_bytes = OPT_DEFAULT_RING_BYTES };
	struct ispot_device dev;
	double cost[CALIBRATE_ROUNDS], session[CALIBRATE_ROUNDS];
	int r;

	/* Said here in one line rather than by trace_open(). */
	if (ispot_device_open(&dev, err, errlen))
		return -1;
	ispot_device_close(&dev);
	o.funcs[0] = funcs[0];
	o.nr_funcs = 1;
	for (r = 0; r < CALIBRATE_ROUNDS; r++) {
		uint64_t unarmed, armed, c0, c1, c2;
		struct trace t;

		unarmed = calibrate_time();
		c0 = budget_thread_cpu_ns();
		if (trace_open(&t, &o, MODE_ATTACH) ||
		    trace_resolve(&t, getpid(), NULL) ||
		    trace_start(&t, getpid())) {
			trace_free(&t);
			snprintf(err, errlen, "cannot trace ispotd itself "
				 "(see the line above)");
			return -1;
		}
		c1 = budget_thread_cpu_ns();
		armed = calibrate_time();
		c2 = budget_thread_cpu_ns();
		/* Nothing is drained: a full ring drops, it never blocks. */
		trace_free(&t);
		session[r] = (double)(c1 - c0) +
			     (double)(budget_thread_cpu_ns() - c2);
		cost[r] = armed > unarmed ?
			  (double)(armed - unarmed) / CALIBRATE_CALLS : 0.0;
	}
	/*
	 * The median, not the fastest round: the budget wants what a call
	 * costs the target as it runs, preemption and all, and erring high
	 * only arms less.  (Taking the fastest rounds, tried on a loaded
	 * host, underestimated the cost and overspent a 10% budget by 88%.)
	 */
	qsort(cost, CALIBRATE_ROUNDS, sizeof(*cost), cmp_double);
	qsort(session, CALIBRATE_ROUNDS, sizeof(*session), cmp_double);
	*cost_ns = cost[CALIBRATE_ROUNDS / 2];
	if (session_ns)
		*session_ns = session[CALIBRATE_ROUNDS / 2];
	if (*cost_ns <= 0) {
		snprintf(err, errlen, "armed calls were not slower");
		return -1;
	}
	return 0;
}
