/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `--auto[=N]`: choose the functions to trace from a cpu-clock sample
 * (sampler.h), the way the paper (Documentation/design.rst, References) used
 * perf in §5: every function with at least 1% of the samples, or the N with
 * the most.
 *
 * A sample counts for the function whose code it hit ("self" time).
 * Samples that no probe could time are set aside and counted: code without
 * a symbol (PLT stubs, stripped code), the vdso, the uretprobe trampoline
 * and other anonymous code, functions of a Go program (no return probes
 * there), and functions whose first instruction uprobes cannot step over
 * (a LOCK prefix).
 */
#ifndef ISPOT_AUTOPICK_H
#define ISPOT_AUTOPICK_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "elf/elf.h"
#include "trace/sampler.h"

/* The paper's §5: functions above 1% of the samples. */
#define AUTOPICK_MIN_SHARE	0.01

struct autopick_func {
	struct elf_target_sym sym;
	uint64_t samples;
};

struct autopick {
	struct autopick_func *funcs;	/* by samples, most first */
	size_t nr;
	uint64_t samples;		/* all the user-space samples */
	uint64_t unprobeable;		/* of them, in code no probe times */
	uint32_t top;			/* N of --auto=N, 0 for the 1% rule */
	uint64_t duration_ns;
};

/*
 * Name @r's samples in @pid's address space and choose: the functions
 * with at least AUTOPICK_MIN_SHARE of r->samples, or the @top ones with the
 * most samples (@top > 0).  Returns 0 (maybe with a->nr == 0) or a
 * negative errno after writing one line to @err.  autopick_free() either
 * way.
 */
int autopick_choose(pid_t pid, const struct sampler_result *r, uint32_t top,
		    struct autopick *a, char *err, size_t errlen);

/*
 * sampler_run() then autopick_choose().  A process with no sample, or
 * with none in a function that can be probed, is an error (-ENODATA)
 * saying what to do.
 */
int autopick_sample(pid_t pid, uint64_t duration_ns, uint32_t top,
		    struct autopick *a, char *err, size_t errlen);

/* What was picked and why: a header line, then one line per function. */
void autopick_print(FILE *f, pid_t pid, const struct autopick *a);

void autopick_free(struct autopick *a);

#endif /* ISPOT_AUTOPICK_H */
