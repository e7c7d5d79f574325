/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `--auto[=N]`: choose the functions to trace from where the process spends
 * its wall time: a cpu-clock sample (sampler.h) of where it runs, as the
 * paper (Documentation/design.rst, References) used perf in §5, and, where
 * the module takes off-CPU stacks (ABI 1.8, offprof.h), where it waits.
 * Every function with at least 1% of that time is chosen, or the N with
 * the most.
 *
 * An on-CPU sample counts for the function whose code it hit ("self"
 * time), as SAMPLER_PERIOD_NS of it.  An off-CPU stack's share of its
 * thread's waiting (analysis/wallprof.h) counts twice: for the function
 * the thread waits in (pthread_cond_wait, read: the innermost frame, or
 * the C library's function the program called), and for the first
 * function of the program's own code or libraries on the way there
 * (outside the C and C++ runtimes and the loader), where a developer would
 * fix the wait.  Waiting in an interruptible sleep that is no futex (poll,
 * epoll_wait, accept, nanosleep, a socket read) is the process being idle:
 * it is counted and shown, never a reason to pick.
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

#include "analysis/wallprof.h"
#include "elf/elf.h"
#include "trace/sampler.h"
#include "trace/wall_folded.h"

/* The paper's §5: functions above 1% of the samples. */
#define AUTOPICK_MIN_SHARE	0.01
/*
 * Fewer stacks than this (on-CPU samples and off-CPU stacks) and the picks
 * may be chance: a 1% share is then under one stack.  Said, not refused.
 */
#define AUTOPICK_FEW_STACKS	100

struct autopick_func {
	struct elf_target_sym sym;
	uint64_t samples;		/* on-CPU */
	uint64_t off_ns[WALL_NR_KINDS];	/* off-CPU, by kind */
	/*
	 * Its largest off-CPU share's other end: the function of the
	 * program it was called from (it is a wait: "via"), or the one it
	 * waited in (it is the program's: "waiting in").
	 */
	char partner[ELF_SYM_NAME_MAX];
	bool waits;
	uint64_t wall_ns;		/* what it was chosen by */
	/*
	 * Its object was mapped as the sampling began, not as it ended (a
	 * library unloaded meanwhile): its probe, set on the file, times
	 * calls only if the process loads it again.
	 */
	bool unloaded;
};

struct autopick {
	struct autopick_func *funcs;	/* by wall_ns, most first */
	size_t nr;
	uint64_t samples;		/* all the user-space samples */
	uint64_t unprobeable;		/* of them, in code no probe times */
	uint32_t top;			/* N of --auto=N, 0 for the 1% rule */
	uint64_t duration_ns;
	bool stopped;		/* the sampling was ended early (a signal) */
	/* Off-CPU: whether there was evidence, else why not. */
	bool offcpu;
	char offcpu_note[160];
	uint64_t off_ns[WALL_NR_KINDS];	/* measured, every thread */
	uint64_t off_unnamed_ns;	/* in stacks with no function */
	uint64_t off_stacks;		/* off-CPU stacks the module took */
	uint64_t wall_ns;		/* on-CPU and counted off-CPU time */
	struct wall_lines wall;		/* the profile, by stack */
};

struct json;
/*
 * @a as the "auto" member of a JSON report: the figures, the picks and
 * why, and the profile's AUTOPICK_JSON_STACKS heaviest stacks.
 */
void autopick_json(struct json *j, const struct autopick *a);
/* The same members, in an object the caller has begun. */
void autopick_json_members(struct json *j, const struct autopick *a);
#define AUTOPICK_JSON_STACKS	20

/*
 * Name @r's samples, and @wp's off-CPU stacks (NULL: none), in @pid's
 * address space and choose: the functions with at least
 * AUTOPICK_MIN_SHARE of the wall time counted, or the @top ones with the
 * most (@top > 0).  Returns 0 (maybe with a->nr == 0) or a
 * negative errno after writing one line to @err.  autopick_free() either
 * way.
 */
int autopick_choose(pid_t pid, const struct sampler_result *r,
		    const struct wallprof *wp, uint32_t top,
		    struct autopick *a, char *err, size_t errlen);

/*
 * sampler_run(), with an off-CPU profile beside it where the module takes
 * one (offprof.h), then autopick_choose(); the profile is also written to
 * @folded as folded stacks (wall_folded.h) unless it is NULL.  It ends
 * early once @stop is set (sampler_run()), picking from what it has
 * (a->stopped).  A process with no sample, or with none in a function
 * that can be probed, is an error (-ENODATA) saying what to do.
 */
int autopick_sample(pid_t pid, uint64_t duration_ns, uint32_t top,
		    const char *folded, const volatile sig_atomic_t *stop,
		    struct autopick *a, char *err, size_t errlen);

/* What was picked and why: a header line, then one line per function. */
void autopick_print(FILE *f, pid_t pid, const struct autopick *a);

void autopick_free(struct autopick *a);

#endif /* ISPOT_AUTOPICK_H */
