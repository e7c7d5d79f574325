/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One target's scores, window by window (Documentation/ispotd.rst,
 * "A window").
 *
 * A window gathers the armed bursts that end inside it.  Every burst of a
 * window scores into the same SCI engine: at the start of a burst the
 * target's live threads are seen, at its end they are closed (sci_finish),
 * so a thread's lifetime is the armed time it lived, never the disarmed
 * gaps, and SCI = armed loss / armed thread time whatever the duty cycle.
 * Executions that straddle a burst's end are left open and never scored
 * (counted apart from the unpaired events: they are an effect of sampling,
 * not a fault of the trace).
 *
 * Across windows only the fastest execution of each (function, key)
 * carries over (sci_seed), so each window's loss is measured against the
 * fastest execution seen since the target was found, and memory is the
 * functions x keys of the minima plus one window's engine, which holds
 * the live threads only: an exited thread is folded into its functions'
 * figures and freed (window_burst_started).
 *
 * Function ids are the window set's own, stable across bursts (each
 * burst resolves the functions anew, possibly in another order or with
 * new matches from a glob), keyed by (name, object).
 *
 * Running totals since the target was found are kept per function for
 * counters that only grow (calls, loss by cause, observed thread time),
 * which is what Prometheus rates need.
 *
 * --key FUNC=auto (autokey.h) fits the windows this way: the first time
 * the set meets an auto function it reserves the three ids after it for
 * its shadow scores (entries of funcs[] that are never reported), so the
 * shadows live in the window's engine and carry their minima over like
 * any key; the argument buckets are kept since the target was found, as
 * the minima are; and each window_close() judges every function on them
 * (argbuckets.h) and reports an auto function scored as its verdict
 * says (window_workload()).
 */
#ifndef ISPOT_WINDOW_H
#define ISPOT_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "elf/elf.h"
#include "cli/options.h"
#include "analysis/sci.h"
#include "trace/trace.h"

struct window_func {
	char *name;
	char *linkage_name;	/* C++: mangled, else "" */
	char *object;
	char key_desc[32];
	struct key_rule key;
	/* Since the target was found, over armed time. */
	uint64_t total_calls;
	uint64_t total_loss_ns;
	int64_t total_cause_ns[SCI_NR_CAUSES];
	int64_t total_unknown_ns;
	uint64_t total_observed_ns;
	uint64_t total_aside_ns;	/* of that, while solo blocks admitted */
	uint64_t total_interference_ns;
	uint64_t total_external_ns;
	bool has_interference;		/* some window had the figure */
	double last_sci;		/* of the last window it ran in */
	/*
	 * --key auto: a function's first shadow id (0: none); a shadow's
	 * argument (0..2, -1 for a function) and function.  @chosen is what
	 * the last window closed keyed an auto function by.
	 */
	uint32_t shadow;
	int shadow_arg;
	uint32_t owner;
	struct key_rule chosen;
	char chosen_desc[32];
};

struct window_futex {
	uint64_t uaddr;
	uint64_t wait_ns;
	uint64_t waits;
	uint32_t threads;	/* the most of any one burst */
	uint64_t funcs;		/* bit i: window function i waited on it */
	struct timeline_wakers wakers;	/* by window function id */
};

struct autopick;
struct window_target {
	int pid;
	const char *exe;
	const char *cgroup;	/* "" unless found through --cgroup */
	/* --auto: the last profile, and its age; NULL: none (no --auto). */
	const struct autopick *picked;
	const char *pick_error;	/* why it picked nothing, or NULL */
	unsigned int picked_windows_ago;
	const char *profile_why;	/* repick_why_name() of the last */
	uint64_t profile_cost_ns;	/* profiles in this window */
};

/*
 * What a closed window adds up to, handed to the set's observer (the
 * metrics, user/daemon/metrics.h) before the next window starts: one
 * entry per function that ran in it.  The JSON line stays as it was.
 */
struct window_func_figures {
	const char *name;
	const char *object;
	uint32_t func_id;		/* in @engine */
	uint64_t calls;
	uint64_t sum_ns;		/* of the durations */
	uint64_t loss_ns;
	/* The loss split (sci.h, "Causes"); parts may be negative. */
	int64_t cause_loss_ns[SCI_NR_CAUSES];
	int64_t unknown_loss_ns;
	uint64_t observed_ns;		/* the threads' armed lifetimes */
	/*
	 * Of observed_ns, the time solo blocks admitted: set aside from the
	 * interference figure's denominator (analysis/sci.h).
	 */
	uint64_t aside_ns;
	double sci;
	/*
	 * Interference (sci.h): its loss (a floor when unjudged) and the
	 * external time; has_interference false: no wait records, none.
	 */
	bool has_interference;
	uint64_t interference_ns;
	uint64_t external_ns;
};

struct window_figures {
	const struct window_target *target;
	uint64_t now;			/* when the window closed */
	uint64_t window_ns;
	uint64_t armed_ns;
	double duty, overhead;
	uint64_t recorded, dropped, unpaired;
	/* The window's engine: sci_func_hist() gives the durations. */
	const struct sci_engine *engine;
	size_t nr_funcs;
	const struct window_func_figures *funcs;
};

/* Returns 0 or -ENOMEM; an error does not stop the window from closing. */
typedef int window_observer(void *ctx, const struct window_figures *wf);

struct window_set {
	struct window_func *funcs;
	uint32_t nr_funcs;
	size_t cap_funcs;

	/* The current window, seeded with the minima of those before. */
	struct sci_engine *sci;
	/* Shapes seen since the start: they name the shape keys (shape.h). */
	struct shapes *shapes;
	/* Argument buckets since the start: the workload verdicts. */
	struct argbuckets *args;
	/* The burst's first shadow ids (trace.h), by its function index. */
	uint32_t *burst_shadows;
	size_t cap_burst_shadows;
	uint64_t start_ns;		/* CLOCK_MONOTONIC */
	uint64_t armed_ns;
	uint64_t calls;			/* probed calls entered while armed */
	uint64_t cpu_ns;		/* target CPU time over the window */
	uint64_t daemon_ns;		/* ispotd's CPU time on its bursts */
	double call_cost_ns;		/* what the estimate assumed */
	uint64_t recorded, dropped, unpaired, open_at_stop;
	uint64_t lost_exits;	/* closed by a scan (trace.h) */
	/* Threads' time whose records a full ring dropped (pipeline.h) */
	uint64_t dropped_time_ns;
	uint32_t bursts;
	struct solo_stats solo;		/* the bursts' solo blocks */
	double solo_share;		/* asked for (--solo-blocks), 0: off */
	struct window_futex *futexes;
	size_t nr_futexes, cap_futexes;

	/* Names keys and futex words; made once the objects are mapped. */
	struct elf_symbolizer *sym;
	int pid;
	uint64_t windows;		/* written so far */
	/*
	 * The window window_close() closed last: its functions' timed
	 * calls, their durations and the lifetimes of the threads that made
	 * them, each summed over the functions (ispotd --auto's drift rule,
	 * repick.h).
	 */
	uint64_t closed_calls, closed_sum_ns, closed_lived_ns;

	bool blocks_noted;		/* WINDOW_MAX_BLOCKS reached, said */
	/* Told of every window that closes; set after window_set_init(). */
	window_observer *observer;
	void *observer_ctx;
};

int window_set_init(struct window_set *w, int pid, uint64_t now);
void window_set_free(struct window_set *w);

/*
 * Before trace_start(): map the burst's resolved functions to the set's
 * ids (written to @ids, t->nr_funcs of them) and point the trace at the
 * window's engine.  Returns 0 or -ENOMEM.
 */
int window_burst_begin(struct window_set *w, struct trace *t, uint32_t *ids);

/*
 * Exited threads are folded into the window's totals and freed (sci.h,
 * "Folding"), so the daemon's memory follows the target's live threads:
 * those that ended while disarmed when the next burst starts, those that
 * end during a burst this long after their exit (record time), once their
 * last records from other CPUs' rings are in.
 */
#define WINDOW_FORGET_DELAY_NS	(2 * 1000000000ull)

/*
 * A target chooses its keys (an argument's value, a call site): its
 * engine holds at most WINDOW_MAX_BLOCKS blocks (58 KiB each: 116 MiB),
 * WINDOW_MAX_KEYS of one function, but always a function's first
 * (sci_limit_blocks()); the calls of keys past them go unscored, and one
 * note says so.  Minima are carried into the next window (sci_seed()),
 * but once the engine holds half its bound, not those of blocks that ran
 * no call in the last WINDOW_SEED_IDLE windows that took any (scored or
 * refused), so that keys that stopped make room for new ones.
 */
#define WINDOW_MAX_BLOCKS	2048
#define WINDOW_MAX_KEYS		512
#define WINDOW_SEED_IDLE	8

/* After trace_start(): fold what ended meanwhile, forget exits from now. */
void window_burst_started(struct window_set *w, struct trace *t);

/* After trace_stop(): count the burst into the window. */
void window_burst_end(struct window_set *w, struct trace *t);

/*
 * Write the window as one JSON line to @f (may be NULL), fold it into
 * the totals, tell the observer, and start the next window at @now,
 * carrying the minima over.  @duty and @overhead are what the budget says
 * of the window; the caller sets w->cpu_ns, the target's CPU time during
 * it, before.  Returns 0, -ENOMEM or -errno of the write.
 */
int window_close(struct window_set *w, FILE *f, const struct window_target *tg,
		 uint64_t now, double duty, double overhead);

/*
 * At window_close() (window_workload.c): judge every function of @w on
 * its argument buckets, key each auto function as its verdict says and
 * rewrite @sr to that scoring (autokey_apply()), the shadows dropped.
 * Returns the verdicts by window function id (free() them), or NULL
 * without memory.
 */
struct argb_verdict *window_workload(struct window_set *w,
				     struct sci_report *sr);

/* The rule @f's keys are named by: an auto function's choice. */
const struct key_rule *window_func_rule(const struct window_func *f);

/*
 * A window's line, its own members (window_json.c), for window_close():
 * @w's armed time at most its length; the envelope (times, budget,
 * target, events); --auto's picks, if any; the notes on auto functions
 * whose @verdicts are undecided; the run's totals per function.
 */
struct json;
uint64_t window_armed_ns(const struct window_set *w, uint64_t now);
void window_json_envelope(struct json *j, const struct window_set *w,
			  const struct window_target *tg, uint64_t now,
			  double duty, double overhead);
void window_json_picks(struct json *j, const struct window_target *tg);
void window_json_notes(struct json *j, const struct window_set *w,
		       const struct argb_verdict *verdicts);
void window_json_totals(struct json *j, const struct window_set *w);

#endif /* ISPOT_WINDOW_H */
