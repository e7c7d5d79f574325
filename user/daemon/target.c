// SPDX-License-Identifier: GPL-2.0
/* One process ispotd traces; see target.h. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "target_internal.h"
#include "util/array.h"
#include "util/errors.h"
#include "util/procstat.h"

/* A process younger than this has no CPU rate /proc's ticks can tell. */
#define TARGET_RATE_AGE_NS	(200 * 1000000ull)
/* A burst that cannot start is retried after its period, up to this. */
#define TARGET_MAX_BACKOFF_NS	(300 * 1000000000ull)

/*
 * The target's CPU time so far.  Once it has exited (or its pid is
 * another process's), the last reading stands: it is what the target
 * used, up to the tick.
 */
static uint64_t target_cpu(struct target *tg)
{
	uint64_t ns;

	if (!proc_cpu_ns(tg->pid, tg->start_time, &ns) && ns > tg->cpu_last)
		tg->cpu_last = ns;
	return tg->cpu_last;
}

/*
 * The target's own CPU time a wall ns over its life so far (0 when
 * /proc's ticks cannot tell yet, or its pid is another's): with the rate
 * since it was found, what the budget's first window goes by
 * (target_tick()).
 */
static double target_life_rate(const struct target *tg)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t cpu, born, up;
	struct timespec ts;

	if (hz <= 0)
		hz = 100;
	if (proc_cpu_ns(tg->pid, tg->start_time, &cpu) ||
	    clock_gettime(CLOCK_BOOTTIME, &ts))
		return 0;
	up = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	born = tg->start_time * (1000000000ull / (uint64_t)hz);
	/* Old enough that a tick is a small part of its time. */
	if (!cpu || up <= born + TARGET_RATE_AGE_NS)
		return 0;
	return (double)cpu / (double)(up - born);
}

/* The CPUs @pid may run on: the most CPU time its traps can take. */
static unsigned int target_cpus(pid_t pid)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(pid, sizeof(set), &set) && CPU_COUNT(&set))
		return (unsigned int)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned int)n : 1;
}

/*
 * The next burst, or none in this window (burst_start TARGET_NO_BURST:
 * the window's close plans again).  A burst_end of UINT64_MAX is armed
 * until further notice (--budget 0).
 */
void target_schedule(struct target *tg, uint64_t now)
{
	uint64_t len;

	budget_next_burst(&tg->budget, now, &tg->burst_start, &len);
	if (tg->burst_start == TARGET_NO_BURST)
		tg->burst_end = 0;
	else
		tg->burst_end = len == UINT64_MAX ? UINT64_MAX :
				tg->burst_start + len;
}

void target_resume(struct target *tg, uint64_t now)
{
	uint64_t len;

	if (tg->armed)
		return;
	tg->failures = 0;
	/* A burst now, of the length the budget gives; then as planned. */
	target_schedule(tg, now);
	if (tg->burst_start == TARGET_NO_BURST)
		return;
	len = tg->burst_end == UINT64_MAX ? UINT64_MAX :
	      tg->burst_end - tg->burst_start;
	tg->burst_start = now;
	tg->burst_end = len == UINT64_MAX ? UINT64_MAX : now + len;
}

int target_init(struct target *tg, pid_t pid, uint64_t start_time,
		const char *cgroup, double budget, double call_cost_ns,
		double session_ns, uint64_t now, uint64_t window_end,
		uint64_t window_ns)
{
	char link[64];
	ssize_t n;

	memset(tg, 0, sizeof(*tg));
	tg->pid = pid;
	tg->start_time = start_time;
	tg->tr.live.dev.fd = -1;
	picker_init(&tg->picker);
	/* Gone already: nothing to read or to allocate. */
	if (!proc_is(pid, start_time))
		return -ESRCH;
	snprintf(tg->cgroup, sizeof(tg->cgroup), "%s", cgroup ? cgroup : "");
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, tg->exe, sizeof(tg->exe) - 1);
	tg->exe[n > 0 ? n : 0] = '\0';
	/* With --auto, a profile before any burst. */
	tg->pick_due = REPICK_FIRST;
	budget_init(&tg->budget, budget, call_cost_ns,
		    now ^ ((uint64_t)pid << 32) ^ start_time);
	/*
	 * No burst before its CPU rate is seen now, not only over its life:
	 * a process busier at its start (or in the past) than now would
	 * make the first window's allowance too large.
	 */
	budget_windows(&tg->budget, now, window_end, window_ns, 0,
		       target_cpus(pid), session_ns);
	if (budget > 0)
		tg->rate_check = now + TARGET_RATE_AGE_NS;
	tg->found_ns = now;
	tg->cpu_window = tg->cpu_found = target_cpu(tg);
	target_schedule(tg, now);
	if (window_set_init(&tg->win, pid, now))
		return -ENOMEM;
	/* Its exe and CPUs, read by the pid, are another's if it is gone. */
	return proc_is(pid, start_time) ? 0 : -ESRCH;
}

void target_free(struct target *tg)
{
	if (tg->armed)
		trace_free(&tg->tr);
	/* A profile still running is waited for: --auto-time at most. */
	picker_release(&tg->picker);
	free(tg->picks);
	free(tg->ids);
	window_set_free(&tg->win);
	memset(tg, 0, sizeof(*tg));
}

struct target *target_list_add(struct target_list *l)
{
	struct target *tg;

	if (ARRAY_RESERVE(l->v, l->cap, l->nr + 1))
		return NULL;
	tg = calloc(1, sizeof(*tg));
	if (!tg)
		return NULL;
	tg->tr.live.dev.fd = -1;
	l->v[l->nr++] = tg;
	return tg;
}

void target_list_remove(struct target_list *l, size_t i)
{
	target_free(l->v[i]);
	free(l->v[i]);
	l->v[i] = l->v[--l->nr];
	l->v[l->nr] = NULL;
}

void target_list_free(struct target_list *l)
{
	while (l->nr)
		target_list_remove(l, l->nr - 1);
	free(l->v);
	*l = (struct target_list){ 0 };
}

/*
 * A burst (or a profile) that could not start: try again later, backing
 * off.  The retry is planned again when it comes, against the window it
 * comes in (target_tick()).
 */
void target_backoff(struct target *tg, uint64_t now)
{
	uint64_t wait = 1000000000ull << (tg->failures < 8 ? tg->failures : 8);

	tg->failures++;
	if (wait > TARGET_MAX_BACKOFF_NS)
		wait = TARGET_MAX_BACKOFF_NS;
	tg->burst_start = now + wait;
	tg->burst_end = 0;
}

/*
 * A --func the process lacks (trace_resolve(), funcs_optional): said
 * when it is first so, not at every burst; the others are traced.
 */
static void target_say_unresolved(struct target *tg, const struct trace *t)
{
	char more[64] = "";

	if (!memcmp(tg->unresolved_said, t->unresolved,
		    sizeof(t->unresolved)))
		return;
	memcpy(tg->unresolved_said, t->unresolved, sizeof(t->unresolved));
	/* None, or only those said before (one found since): nothing new. */
	if (!t->nr_unresolved || !t->unresolved_msg[0])
		return;
	if (t->nr_unresolved > 1)
		snprintf(more, sizeof(more), " (and %zu more --func it lacks)",
			 t->nr_unresolved - 1);
	ispot_error("pid %d: %s%s: %s", (int)tg->pid, t->unresolved_msg, more,
		    t->nr_funcs ? "traced without it" : "nothing to trace");
}

/*
 * Functions of a --func a probe could not step over, left out while the
 * rest of it is traced: said when the specs so change, as above.
 */
static void target_say_left_out(struct target *tg, const struct trace *t)
{
	char more[64] = "";

	if (!memcmp(tg->left_out_said, t->left_out, sizeof(t->left_out)))
		return;
	memcpy(tg->left_out_said, t->left_out, sizeof(t->left_out));
	if (!t->nr_left_out)
		return;
	if (t->nr_left_out > 1)
		snprintf(more, sizeof(more), ", as of %zu more --func",
			 t->nr_left_out - 1);
	ispot_error("pid %d: %s; the rest of it is traced%s", (int)tg->pid,
		    t->left_out_msg, more);
}

static int target_arm(struct target *tg, const struct trace_opts *o)
{
	struct trace *t = &tg->tr;
	uint64_t c0 = budget_thread_cpu_ns();
	int ret;

	if (trace_open(t, o, MODE_ATTACH))
		goto fail;
	/*
	 * trace_start() refuses the session unless the start time read
	 * after the module's setup is still the target's, which vouches for
	 * what trace_resolve() read by the pid before it.
	 */
	t->pid_start = tg->start_time;
	ret = trace_resolve(t, tg->pid, NULL);
	if (!ret || ret == -ENOENT)
		target_say_unresolved(tg, t);
	if (!ret)
		target_say_left_out(tg, t);
	if (ret)
		goto fail;
	if (ARRAY_RESERVE(tg->ids, tg->cap_ids, t->nr_funcs + 1)) {
		ispot_error("out of memory arming pid %d", (int)tg->pid);
		goto fail;
	}
	if (window_burst_begin(&tg->win, t, tg->ids)) {
		ispot_error("out of memory arming pid %d", (int)tg->pid);
		goto fail;
	}
	if (trace_start(t, tg->pid))
		goto fail;
	window_burst_started(&tg->win, t);
	tg->cpu_armed = target_cpu(tg);
	tg->armed = true;
	tg->failures = 0;
	tg->daemon_ns = budget_thread_cpu_ns() - c0;
	return 0;
fail:
	trace_free(t);
	return -1;
}

void target_disarm(struct target *tg)
{
	struct trace *t = &tg->tr;
	uint64_t cpu, entries, armed_ns, gate_wait_ns;
	uint64_t c0 = budget_thread_cpu_ns();

	if (!tg->armed)
		return;
	/* The target's time armed, as its armed time: before DISABLE. */
	cpu = target_cpu(tg);
	trace_stop(t);
	window_burst_end(&tg->win, t);
	entries = t->pipe->stats.entries;
	armed_ns = trace_armed_ns(t);
	gate_wait_ns = t->pipe->solo.gate_wait_ns;
	if (t->sum.target_exited || t->sum.stop_reason)
		tg->gone = true;
	/* Closing the session (its rings, its probes) is the burst's too. */
	trace_free(t);
	tg->armed = false;
	tg->bursts_since_pick++;
	tg->daemon_ns += budget_thread_cpu_ns() - c0;
	tg->win.daemon_ns += tg->daemon_ns;
	/*
	 * The gate's waits cost the target thread time, as ispotd's drain
	 * costs CPU time: both count against the budget.
	 */
	budget_observe(&tg->budget, entries, armed_ns,
		       cpu > tg->cpu_armed ? cpu - tg->cpu_armed : 0,
		       tg->daemon_ns + gate_wait_ns);
}

void target_charge_loop(struct target *tg, uint64_t ns)
{
	if (tg->armed)
		tg->daemon_ns += ns;
}

/* Whether a burst would trace anything: --func, --sync or picks. */
static bool target_has_funcs(const struct target *tg,
			     const struct trace_opts *o)
{
	return o->nr_funcs || o->sync || tg->nr_picks;
}

/* The burst due at @now: --func's and the picks, armed. */
static void target_burst(struct target *tg, const struct trace_opts *o,
			 uint64_t now)
{
	tg->opts = *o;
	tg->opts.syms = tg->picks;
	tg->opts.nr_syms = tg->nr_picks;
	tg->opts.skip_specs = tg->win.bursts ? tg->unresolved_said : NULL;
	if (target_arm(tg, &tg->opts)) {
		if (!proc_is(tg->pid, tg->start_time))
			tg->gone = true;
		else
			target_backoff(tg, now);
		return;
	}
	/*
	 * The budget planned the burst's armed time, and arming (reading
	 * the target's symbols, registering the probes: milliseconds, tens
	 * under emulation) is the daemon's cost, charged apart: the burst
	 * runs its length from ENABLE, or a short one would see no call.
	 */
	if (tg->burst_end != UINT64_MAX && tg->tr.sum.t_enable > now)
		tg->burst_end += tg->tr.sum.t_enable - now;
}

void target_tick(struct target *tg, const struct trace_opts *o,
		 const struct target_auto *au, uint64_t now)
{
	if (tg->gone)
		return;
	if (picker_fd(&tg->picker) >= 0) {
		if (picker_done(&tg->picker))
			target_picked(tg, au, now);
		return;
	}
	if (tg->armed) {
		uint64_t c0 = budget_thread_cpu_ns();
		int err = trace_step(&tg->tr, now);

		tg->daemon_ns += budget_thread_cpu_ns() - c0;
		if (err) {
			target_disarm(tg);
			target_backoff(tg, now);
			return;
		}
		if (now >= tg->burst_end || tg->tr.sum.target_exited) {
			target_disarm(tg);
			target_schedule(tg, tg->burst_end > now ?
					now : tg->burst_end);
		}
		return;
	}
	/* Old enough now for its own rate: its first window may pay. */
	if (tg->rate_check && now >= tg->rate_check) {
		double own_rate = target_life_rate(tg), recent;
		uint64_t cpu = target_cpu(tg);

		tg->rate_check = 0;
		/* The lesser of its life's and since it was found. */
		recent = (double)(cpu - tg->cpu_found) /
			 (double)(now - tg->found_ns);
		if (own_rate <= 0 || recent < own_rate)
			own_rate = recent;
		/* A window closed first: its own rate is the budget's now. */
		if (!tg->budget.own_known)
			budget_own_rate(&tg->budget, own_rate);
		target_schedule(tg, now);
	}
	/* Backing off after a failure: nothing before the retry. */
	if (tg->failures && now < tg->burst_start)
		return;
	/*
	 * A profile takes the place of the bursts, when its window can pay
	 * it; not before the picks had a burst, or a profile due every
	 * window would take every slot the budget gives and nothing would
	 * be traced.
	 */
	if (au->on && tg->pick_due && !tg->rate_check &&
	    (!tg->picked || !target_has_funcs(tg, o) ||
	     tg->bursts_since_pick)) {
		uint64_t len = target_profile_length(tg, au, now);

		if (len) {
			target_profile(tg, au, now, len);
		} else {
			tg->burst_start = TARGET_NO_BURST;
			tg->failures = 0;
		}
		return;
	}
	/*
	 * A retry after a backoff (burst_end 0: a time, not a burst): as
	 * long as its window can pay now.
	 */
	if (tg->failures && !tg->burst_end && now >= tg->burst_start) {
		target_schedule(tg, now);
		if (now < tg->burst_start)
			return;
	}
	if (now < tg->burst_start)
		return;
	/* Nothing picked (it idles): wait for the next profile. */
	if (!target_has_funcs(tg, o)) {
		target_schedule(tg, now);
		return;
	}
	target_burst(tg, o, now);
}

int target_close_window(struct target *tg, FILE *log,
			const struct target_auto *au, uint64_t now,
			uint64_t next_window_ns)
{
	struct window_target wt = {
		.pid = tg->pid, .exe = tg->exe, .cgroup = tg->cgroup,
		.picked = au->on && tg->picked ? &tg->picker.result : NULL,
		.pick_error = au->on && tg->picked && tg->picker.ret ?
			      tg->picker.err : NULL,
		.picked_windows_ago = tg->repick.windows,
		.profile_why = repick_why_name(tg->profile_why),
	};
	int ret;
	uint64_t c0 = budget_thread_cpu_ns();
	uint64_t cpu = target_cpu(tg), wt_start = tg->win.start_ns;
	uint64_t wt_calls = tg->win.calls, wt_armed = tg->win.armed_ns, wt_cpu;
	double duty, overhead;

	tg->win.cpu_ns = cpu > tg->cpu_window ? cpu - tg->cpu_window : 0;
	wt_cpu = tg->win.cpu_ns;
	tg->win.call_cost_ns = tg->budget.call_cost_ns;
	tg->cpu_window = cpu;
	/* The armed time as the window's figures give it: at most its length. */
	duty = now > tg->win.start_ns ?
	       (double)window_armed_ns(&tg->win, now) /
	       (double)(now - tg->win.start_ns) : 0.0;
	/*
	 * What the window cost, as the budget holds it window by window:
	 * the traps, the daemon's time on the bursts, the waits at the
	 * gate and --auto's profiles, over the target's own CPU time in the
	 * window (CPU time less the traps).  A burst's own CPU ticks would
	 * say little: bursts are as short as a few ms.
	 */
	overhead = budget_overhead_estimate(tg->win.calls,
					    tg->budget.call_cost_ns,
					    tg->win.daemon_ns +
					    tg->win.solo.gate_wait_ns +
					    tg->pick_cost_ns, tg->win.cpu_ns);
	wt.profile_cost_ns = tg->pick_cost_ns;
	ret = window_close(&tg->win, log, &wt, now, duty, overhead);
	/*
	 * Whether to pick again, from what the window said of the target
	 * (read before the close reset it) and of its traced calls (the
	 * close's sums, so after it; none, and no share judged, if it failed
	 * before making them).
	 */
	if (au->on && tg->picked && picker_fd(&tg->picker) < 0 &&
	    !tg->pick_due) {
		const struct repick_window rw = {
			.window_ns = now - wt_start, .cpu_ns = wt_cpu,
			.armed_ns = wt_armed, .calls = wt_calls,
			.nr_picks = tg->nr_picks,
			.timed_calls = tg->win.closed_calls,
			.timed_ns = tg->win.closed_sum_ns,
			.lived_ns = tg->win.closed_lived_ns,
		};

		tg->pick_due = repick_check(&tg->repick, au->every, &rw);
	}
	tg->pick_cost_ns = 0;
	/*
	 * Closing the window (its report and its line) is the daemon's time
	 * on this target too: the next window's daemon_cpu_ns and
	 * overhead_estimate show it.  It is not charged to the plans: it is
	 * the price of the --window asked for, paid whatever the bursts do,
	 * and it can exceed a small target's whole allowance (an idle one's,
	 * or 1% of a 1 s window), which would then never burst or profile
	 * again (Documentation/evaluation.rst, "What the budget did not
	 * count").
	 */
	tg->win.daemon_ns += budget_thread_cpu_ns() - c0;
	/* The next window pays its own way: it plans its bursts anew. */
	budget_window(&tg->budget, now, now - wt_start, wt_cpu, wt_calls,
		      next_window_ns);
	if (budget_over(&tg->budget) && !tg->over_said) {
		tg->over_said = true;
		ispot_error("pid %d: one burst costs more than a window's "
			    "budget, so windows with a burst go over it: "
			    "give a longer --window or a larger --budget",
			    (int)tg->pid);
	}
	if (!tg->armed && picker_fd(&tg->picker) < 0 &&
	    (!tg->failures || tg->burst_start == TARGET_NO_BURST))
		target_schedule(tg, now);
	return ret;
}

int target_fd(const struct target *tg)
{
	if (picker_fd(&tg->picker) >= 0)
		return picker_fd(&tg->picker);
	return tg->armed ? tg->tr.live.dev.fd : -1;
}

uint64_t target_next_event(const struct target *tg, uint64_t now,
			   short *events)
{
	*events = 0;
	if (tg->gone)
		return UINT64_MAX;
	if (picker_fd(&tg->picker) >= 0) {
		*events = POLLIN;
		return UINT64_MAX;
	}
	if (tg->armed) {
		/* The library paces the rounds while records wait. */
		uint64_t next = trace_next_step(&tg->tr, now, events);

		return tg->burst_end < next ? tg->burst_end : next;
	}
	if (tg->rate_check && tg->rate_check < tg->burst_start)
		return tg->rate_check;
	return tg->burst_start;
}
