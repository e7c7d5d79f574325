// SPDX-License-Identifier: GPL-2.0
/*
 * The rounds of a live session: each drains the rings up to a horizon
 * into the session (trace_feed()), applies the thread exits the drain is
 * past, and rescans /proc for thread lifetimes when due (trace.h, "Thread
 * lifetimes"); trace_loop() paces them for attach and run, and callers
 * with a poll loop of their own (ispotd, top) call trace_step().
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "recording/recording.h"
#include "trace/progress.h"
#include "trace/trace_internal.h"
#include "util/array.h"
#include "util/errors.h"

/* With the rings empty, a round comes at least this often. */
#define TRACE_IDLE_POLL_MS	100
/*
 * For the first TRACE_EARLY_NS, idle rounds come every TRACE_EARLY_POLL_MS
 * and `run` re-reads its command's maps each round: a process that lives
 * a few ms is named only from maps read while it lives.
 */
#define TRACE_EARLY_NS		(1000 * 1000 * 1000ull)
#define TRACE_EARLY_POLL_MS	5
/*
 * While records wait in the rings for the horizon, rounds come at this
 * pace: the device is readable as long as any record is there, so a loop
 * that polled for POLLIN would spin (ispotd did, and took a vCPU).
 */
#define TRACE_BUSY_PACE_NS	(20 * 1000 * 1000ull)

volatile sig_atomic_t trace_signal;
volatile sig_atomic_t trace_signal_again;
/* Set by trace_arm_third_signal(), once the trace loop is over. */
static volatile sig_atomic_t trace_third_ends;

static const char trace_third_said[] =
	"ispotctl: a third signal: ended at once, with no report\n";

/*
 * A third signal, once armed: end ispotctl as the signal would have, by
 * its default action.  Only async-signal-safe calls.  The signal is
 * blocked in its own handler, so it is unblocked to be taken at once;
 * a PID namespace's init ignores a signal left at its default, hence the
 * _exit() after.  The exit closes the session's device, which detaches
 * its probes.
 */
static void trace_end_by(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	ssize_t said;
	sigset_t set;

	said = write(STDERR_FILENO, trace_third_said,
		     sizeof(trace_third_said) - 1);
	(void)said;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

static void trace_on_signal(int sig)
{
	if (trace_signal_again && trace_third_ends)
		trace_end_by(sig);
	if (trace_signal)
		trace_signal_again = 1;
	trace_signal = sig;
}

void trace_arm_third_signal(void)
{
	trace_third_ends = 1;
}

static const int trace_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define TRACE_NR_SIGNALS	(sizeof(trace_signals) / sizeof(int))
/* What each was before trace_catch_signals(), given back at the release. */
static struct sigaction trace_signals_before[TRACE_NR_SIGNALS];
static bool trace_signals_caught;

void trace_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = trace_on_signal };
	size_t i;

	if (trace_signals_caught)
		return;
	trace_third_ends = 0;
	/*
	 * No SA_RESTART: poll() and nanosleep() return to notice Ctrl-C.
	 * Each blocks the others while it runs, so that the flags move one
	 * signal at a time.
	 */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < TRACE_NR_SIGNALS; i++)
		sigaddset(&sa.sa_mask, trace_signals[i]);
	for (i = 0; i < TRACE_NR_SIGNALS; i++) {
		sigaction(trace_signals[i], NULL, &trace_signals_before[i]);
		/*
		 * nohup's SIGHUP stays ignored: a user asked for it.  An
		 * ignored SIGINT or SIGTERM is taken over: a non-interactive
		 * shell ignores SIGINT in every `cmd &`, and a script's
		 * kill -INT $! must still end the session with its report.
		 */
		if (trace_signals[i] == SIGHUP &&
		    trace_signals_before[i].sa_handler == SIG_IGN)
			continue;
		sigaction(trace_signals[i], &sa, NULL);
	}
	trace_signals_caught = true;
}

void trace_release_signals(void)
{
	size_t i;

	if (!trace_signals_caught)
		return;
	for (i = 0; i < TRACE_NR_SIGNALS; i++)
		sigaction(trace_signals[i], &trace_signals_before[i], NULL);
	trace_signals_caught = false;
}

int trace_first_scan(struct trace *t)
{
	struct trace_live *live = &t->live;
	size_t i;

	live->last_scan = t->sum.t_enable;
	live->last_sync = t->sum.t_enable;
	if (task_set_scan(&live->alive, t->sum.pid)) {
		trace_say_gone(t, t->sum.pid);
		return -1;
	}
	for (i = 0; i < live->alive.n; i++)
		trace_thread_seen(t, live->alive.tids[i], t->sum.t_enable);
	return 0;
}

/* [uprobes] is where uretprobes return through: tail calls show it. */
static void trace_find_trampoline(struct trace *t)
{
	struct elf_map *maps;
	size_t n, i;

	if (t->live.trampoline ||
	    elf_maps_read(t->sum.pid, &maps, &n, NULL, 0))
		return;
	for (i = 0; i < n; i++) {
		if (!strcmp(maps[i].path, "[uprobes]")) {
			trace_set_trampoline(t, maps[i].start, maps[i].end);
			t->live.trampoline = true;
		}
	}
	elf_maps_free(maps, n);
	/* The objects are mapped by now: a snapshot names call sites. */
	if (t->live.trampoline && !t->sym)
		t->sym = trace_symbolizer_new(t);
}

static void trace_queue_exit(struct trace *t, uint32_t tid,
			     uint64_t alive_ts, uint64_t now)
{
	struct trace_live *live = &t->live;

	/* Without memory it will close at the end of the trace. */
	if (ARRAY_RESERVE(live->exits, live->cap_exits, live->nr_exits + 1))
		return;
	live->exits[live->nr_exits++] = (struct trace_exit){ tid, alive_ts,
							     now };
}

/*
 * With task records, a thread that the engine holds open but the scan no
 * longer lists, and whose own /proc entry is gone, has exited, and its
 * exit record was lost (a full ring drops records, it never blocks):
 * without it the thread would be held, and ispotd's memory grow, for as
 * long as the target runs.  It closes at its last record, once the drain
 * is past the scan (trace_apply_exits()), unless the record turns up by
 * then.
 */
void trace_scan_lost_exit(void *ctx, uint32_t tid, uint64_t last)
{
	struct trace *t = ctx;
	size_t i;

	/* Called once the scan just taken is alive, at last_scan. */
	if (task_set_contains(&t->live.alive, tid))
		return;
	/* Queued already: its TASK_EXIT is still behind the drain. */
	for (i = 0; i < t->live.nr_exits; i++)
		if (t->live.exits[i].tid == tid)
			return;
	/* A listing can skip a live thread (tasks.h): asked by its path. */
	if (task_thread_alive(t->sum.pid, tid))
		return;
	/* Dated after that answer, which is what says it was gone. */
	trace_queue_exit(t, tid, last, trace_now());
}

static void trace_scan(struct trace *t)
{
	struct trace_live *live = &t->live;
	bool tasks = t->sum.tasks;
	struct task_set tmp;
	uint64_t now;
	size_t i;

	if (task_set_scan(&live->scan, t->sum.pid)) {
		t->sum.target_exited = true;
		return;
	}
	/*
	 * Without task records, lifetimes come from the scans, and a
	 * listing read while threads exit can skip live ones: without
	 * this, a thread still running would end here and begin again at
	 * the next scan.  On -ENOMEM a missed one ends early, as before.
	 * With them, trace_scan_lost_exit() asks for the few it needs.
	 */
	if (!tasks)
		task_set_keep_missed(&live->scan, &live->alive, t->sum.pid);
	/*
	 * Dated after reading /proc: a thread it misses was gone by then,
	 * not by the start of the round, which may have drained for
	 * milliseconds since (its records up to its exit then came after
	 * its "exit", and its last call was lost as unpaired).
	 */
	now = trace_now();
	for (i = 0; !tasks && i < live->scan.n; i++)
		if (!task_set_contains(&live->alive, live->scan.tids[i]))
			trace_thread_seen(t, live->scan.tids[i],
					  live->last_scan +
					  (now - live->last_scan) / 2);
	for (i = 0; !tasks && i < live->alive.n; i++)
		if (!task_set_contains(&live->scan, live->alive.tids[i]))
			trace_queue_exit(t, live->alive.tids[i],
					 live->last_scan, now);
	tmp = live->alive;
	live->alive = live->scan;
	live->scan = tmp;
	live->last_scan = now;
	if (tasks)
		sci_each_open_thread(t->pipe->sci, trace_scan_lost_exit, t);
	trace_find_trampoline(t);
}

/* Apply the exits whose records have all been drained by @horizon. */
static void trace_apply_exits(struct trace *t, uint64_t horizon)
{
	struct trace_live *live = &t->live;
	size_t i, kept = 0;

	for (i = 0; i < live->nr_exits; i++) {
		struct trace_exit *e = &live->exits[i];

		if (e->gone_ts >= horizon) {
			live->exits[kept++] = *e;
			continue;
		}
		if (t->sum.tasks) {
			/* The lost record (trace_scan_lost_exit()) came. */
			if (!sci_thread_is_open(t->pipe->sci, e->tid))
				continue;
			t->sum.lost_exits++;
		}
		trace_thread_exit(t, e->tid, e->alive_ts, e->gone_ts);
	}
	live->nr_exits = kept;
}

static int trace_round(struct trace *t, uint64_t horizon)
{
	if (trace_feed(t, &t->live.src, horizon) < 0)
		return -1;
	trace_apply_exits(t, horizon);
	return 0;
}

/*
 * What the solo blocks have cost the program so far, in its own time: its
 * threads' waits at the gate, over how many threads it has.  A thread
 * that waits while another runs for it on the same CPU costs less, so
 * this errs high.
 */
static uint64_t trace_solo_cost_ns(const struct pipeline *p)
{
	size_t threads = hashmap_size(&p->threads);

	return p->solo.gate_wait_ns / (threads ? threads : 1);
}

int trace_step(struct trace *t, uint64_t now)
{
	/*
	 * A command just started maps its libraries (and, right at the
	 * exec, may not have its own segments in place yet): follow its
	 * maps for its first moments, which are all a short one has.
	 */
	if (t->sum.mode == MODE_RUN && t->sym &&
	    now - t->sum.t_enable < TRACE_EARLY_NS) {
		elf_symbolizer_refresh(t->sym, NULL, 0);
		t->live.maps_reread_ns = now;
	}
	trace_peek_futexes(t);
	trace_maps_follow(t, now);
	solo_sched_threads(&t->live.solo,
			   (unsigned int)hashmap_size(&t->pipe->threads));
	solo_sched_act(&t->live.solo, now, sci_longest_mean(t->pipe->sci),
		       trace_solo_cost_ns(t->pipe));
	if (trace_round(t, now > DRAIN_SLACK_NS ? now - DRAIN_SLACK_NS : 0))
		return -1;
	if (now - t->live.last_scan >= TRACE_SCAN_NS)
		trace_scan(t);
	if (t->out.rec && now - t->live.last_sync >= TRACE_SYNC_NS) {
		recording_sync(t->out.rec);
		t->live.last_sync = now;
	}
	return 0;
}

static uint64_t trace_next_round(const struct trace *t, uint64_t now,
				 short *events)
{
	if (drain_pending(t->live.drain)) {
		*events = 0;
		return now + TRACE_BUSY_PACE_NS;
	}
	*events = POLLIN;
	/*
	 * Only `run` re-reads maps early (trace_step()): ispotd's bursts,
	 * attached, need not wake more often at their start.
	 */
	if (t->sum.mode == MODE_RUN && now - t->sum.t_enable < TRACE_EARLY_NS)
		return now + TRACE_EARLY_POLL_MS * 1000000ull;
	return now + TRACE_IDLE_POLL_MS * 1000000ull;
}

/* The next round, or a solo block's start or end if that comes first. */
uint64_t trace_next_step(const struct trace *t, uint64_t now, short *events)
{
	uint64_t next = trace_next_round(t, now, events);
	uint64_t solo = solo_sched_next(&t->live.solo);

	return solo < next ? (solo > now ? solo : now) : next;
}

int trace_loop(struct trace *t, trace_stop_fn stop, void *ctx)
{
	struct pollfd pfd = { .fd = t->live.dev.fd, .events = POLLIN };
	uint64_t deadline = t->opts->duration_ns ?
			    t->sum.t_enable + t->opts->duration_ns :
			    UINT64_MAX;
	struct progress progress;
	int ret = 0;

	trace_catch_signals();

	/* A status line on stderr, if it is a terminal; gone before the
	 * report. */
	progress_start(&progress, STDERR_FILENO, t->sum.t_enable);
	for (;;) {
		uint64_t now = trace_now();
		uint64_t next = trace_next_step(t, now, &pfd.events);

		pfd.revents = 0;
		if (poll(&pfd, 1, (int)((next - now + 999999) / 1000000)) < 0 &&
		    errno != EINTR) {
			ispot_error("poll on %s failed: %s", ISPOT_DEVICE_PATH,
				    strerror(errno));
			ret = -1;
			break;
		}
		now = trace_now();
		if (trace_step(t, now)) {
			ret = -1;
			break;
		}
		if (pfd.revents & POLLHUP)
			t->sum.target_exited = true;
		progress_update(&progress, now,
				drain_stats(t->live.drain)->records,
				drain_dropped(t->live.drain));
		if (trace_signal) {
			t->sum.interrupted = true;
			break;
		}
		if (t->sum.target_exited || now >= deadline ||
		    (stop && stop(ctx)))
			break;
	}
	progress_stop(&progress);
	/*
	 * Still caught: the last round and the recording's last chunk and
	 * tables come after, and a signal then must not end ispotctl with
	 * no report (trace_report() gives them back), but a third: the
	 * status line is gone, and what a user waits for then is only the
	 * session's end.
	 */
	trace_arm_third_signal();
	return ret;
}

void trace_last_round(struct trace *t)
{
	uint64_t last, disarm = 0;

	/* Stop the producers first, so the last round empties the rings. */
	if (!t->sum.target_exited) {
		if (t->live.enabled)
			disarm = trace_now();
		trace_live_disable(t);
	}
	t->live.enabled = false;
	t->sum.t_end = trace_now();
	if (trace_round(t, UINT64_MAX))
		return;
	last = sci_last_ts(t->pipe->sci);
	if (t->sum.target_exited) {
		/* It died after the last scan that saw it alive. */
		t->sum.t_end = t->live.last_scan > last ? t->live.last_scan :
			       last;
		if (t->sum.t_end < t->sum.t_enable)
			t->sum.t_end = t->sum.t_enable;
	} else if (disarm) {
		/*
		 * The probes came off when DISABLE began; it returned after
		 * the wait records' grace period, which is no traced time
		 * (tens of ms, hundreds under emulation): the threads' lives
		 * and the report's duration end at the later of the request
		 * and the last record.
		 */
		t->sum.t_end = disarm > last ? disarm : last;
	}
	trace_apply_exits(t, UINT64_MAX);
	trace_close_pipeline(t);
}
