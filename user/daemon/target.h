/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One process ispotd traces: its armed bursts and its windows.
 *
 * A burst is a whole ispotctl-style session: open /dev/ispot, resolve the
 * functions, arm, drain, disarm and close.  Between bursts the daemon
 * holds no session at all, so a disarmed target has no breakpoint, the
 * module holds no ring for it, and the module can even be unloaded and
 * reloaded (the next burst finds it again).  The price is resolving the
 * symbols once per burst, which the daemon pays, not the target.
 */
#ifndef ISPOT_TARGET_H
#define ISPOT_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "budget.h"
#include "picker.h"
#include "repick.h"
#include "trace/trace.h"
#include "window.h"

/* ispotd --auto, as configured: see picker.h and target_tick(). */
struct target_auto {
	bool on;
	uint32_t top;		/* --auto=N; 0: the 1% rule */
	uint32_t max;		/* --max-functions: picks beyond are cut */
	uint64_t time_ns;	/* --auto-time */
	uint32_t every;		/* --auto-every: windows between profiles */
};

struct target {
	pid_t pid;
	uint64_t start_time;	/* /proc/PID/stat field 22: tells reuse */
	char exe[PATH_MAX];
	char cgroup[PATH_MAX];	/* the --cgroup it was found through, or "" */

	struct budget budget;
	struct window_set win;

	struct trace tr;
	uint32_t *ids;		/* the burst's function ids in win */
	size_t cap_ids;
	bool armed;
	uint64_t burst_start;	/* the next burst, or the current one */
	uint64_t burst_end;
	unsigned int failures;	/* bursts in a row that could not start */

	/* The target's CPU time, for the budget and the window. */
	uint64_t cpu_armed;		/* when the burst was armed */
	uint64_t cpu_window;		/* at the start of the window */
	uint64_t cpu_last;		/* the last reading */
	/* The daemon's own CPU time spent on the burst (budget.h's D). */
	uint64_t daemon_ns;
	bool gone;		/* exited, or exec'd away from --exe */

	/*
	 * --auto: the profile, the functions it picked (traced beside
	 * --func's), and when to profile again.  The last profile stays for
	 * the window lines, until the next one replaces it.
	 */
	struct trace_opts opts;	/* the burst's: --func's and the picks */
	struct picker picker;
	bool picked;		/* picker holds a finished profile */
	struct elf_target_sym *picks;
	size_t nr_picks;
	enum repick_why pick_due;	/* REPICK_NO: none due */
	enum repick_why profile_why;	/* why the last profile ran */
	struct repick repick;
	unsigned int bursts_since_pick;	/* a pick is traced before the next */
	uint64_t pick_cost_ns;	/* the profiles' cost in this window */
	double profile_rate;	/* the profiles' cost a ns they sampled */
	char pick_said[512];	/* the last problem said, said once */
	/*
	 * The --func and --block it lacks, as last said (trace.h's
	 * unresolved): said when they change, and not searched again but
	 * in a window's first burst (dlopen() may bring them).
	 */
	uint64_t unresolved_said[OPT_SPEC_WORDS];
	/* Those of which some functions were left out (trace.h), as said. */
	uint64_t left_out_said[OPT_SPEC_WORDS];
	bool over_said;		/* budget_over(), said once */
	/*
	 * Its CPU rate is read when it was found and again at rate_check,
	 * before the first burst (target_tick()).
	 */
	uint64_t rate_check;
	uint64_t found_ns, cpu_found;
};

/*
 * ispotd's targets.  Each is allocated on its own and stays where it is
 * until it is removed: only the array of pointers grows and is compacted.
 * An armed burst's session (tr) is the context the library's callbacks
 * keep (the pipeline's frame check, the drain, the solo gate, Perfetto),
 * the session points at the target's opts, and a running profile's thread
 * writes into its picker: a target copied or moved while any of those
 * lives would leave them pointing at freed memory.
 */
struct target_list {
	struct target **v;
	size_t nr, cap;
};

/*
 * A new target, zeroed, at the end of @l (v[nr - 1]), for target_init();
 * NULL when out of memory.  Whether target_init() succeeds or not, it is
 * listed: target_list_remove() it on failure.
 */
struct target *target_list_add(struct target_list *l);
/*
 * target_free() v[@i] and forget it; the last one takes its place in v
 * (its pointer: no target moves).
 */
void target_list_remove(struct target_list *l, size_t i);
/* Remove every target, and free the array. */
void target_list_free(struct target_list *l);

/*
 * Start tracing @pid at @now, in a window of ispotd's that ends at
 * @window_end; the next ones are @window_ns long.  @call_cost_ns and
 * @session_ns are calibrate_call_cost()'s.  0, -ENOMEM, or -ESRCH if
 * the process that started at @start_time is gone (its pid may be
 * another's): either way target_free() it.
 */
int target_init(struct target *tg, pid_t pid, uint64_t start_time,
		const char *cgroup, double budget, double call_cost_ns,
		double session_ns, uint64_t now, uint64_t window_end,
		uint64_t window_ns);
void target_free(struct target *tg);

/*
 * Start the burst that is due, step the one that is armed, stop it when
 * its time is over or the target exited.  @o are the functions to trace.
 */
void target_tick(struct target *tg, const struct trace_opts *o,
		 const struct target_auto *au, uint64_t now);

/* Arm at @now (the module is back), forgetting failed bursts. */
void target_resume(struct target *tg, uint64_t now);

/* Stop an armed burst now (end of window, reload, shutdown). */
void target_disarm(struct target *tg);

/*
 * Write the window's JSON line to @log (may be NULL) and start the next;
 * with --auto (@au->on), a profile is due every @au->every windows.
 * The next window lasts @next_window_ns (--window, which a reload may
 * have changed).
 */
int target_close_window(struct target *tg, FILE *log,
			const struct target_auto *au, uint64_t now,
			uint64_t next_window_ns);

/*
 * Charge @ns of ispotd's loop to @tg's armed burst: the wakeups its ring
 * and its solo blocks cause cost the loop around target_tick() too (its
 * poll, its discovery and reconcile rounds).  Nothing when @tg is not
 * armed.
 */
void target_charge_loop(struct target *tg, uint64_t ns);

/* The device fd to poll while armed, else -1. */
int target_fd(const struct target *tg);

/*
 * When target_tick() next has something to do, and the events to poll
 * target_fd() for until then.
 */
uint64_t target_next_event(const struct target *tg, uint64_t now,
			   short *events);

#endif /* ISPOT_TARGET_H */
