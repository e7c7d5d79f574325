// SPDX-License-Identifier: GPL-2.0
/*
 * A target's --auto profiles: how long one the budget can pay, starting
 * it, and keeping what it picked; see target.h and target_internal.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "target_internal.h"
#include "util/errors.h"
#include "util/procstat.h"

/*
 * What a sample is taken to cost before a profile was seen, in probed
 * calls: its trap, and naming it in the daemon, which in the emulated
 * guest took 7 traps' time (a 1 s profile of cond_turns cost 129 ms, at
 * 16 us a call); on hardware it is nearer 2.  Too much only shortens
 * the first profile; the next ones go by what it cost.
 */
#define TARGET_SAMPLE_COSTS	8
/* The shortest profile worth its fixed cost (naming, the off-CPU setup). */
#define TARGET_MIN_PROFILE_NS	(100 * 1000000ull)

/* Say @msg about the profile of @tg, unless it was the last thing said. */
static void target_say_once(struct target *tg, const char *msg)
{
	if (!strcmp(tg->pick_said, msg))
		return;
	snprintf(tg->pick_said, sizeof(tg->pick_said), "%s", msg);
	ispot_error("pid %d: --auto: %s", (int)tg->pid, msg);
}

/*
 * How long a profile the window can pay now, at most --auto-time; 0 to
 * wait for the next window (budget_fit_profile()).  It costs about its
 * length times the last one's cost a ns; before any, a sample a CPU ms
 * at TARGET_SAMPLE_COSTS probed calls each.
 */
uint64_t target_profile_length(const struct target *tg,
			       const struct target_auto *au, uint64_t now)
{
	const struct budget *b = &tg->budget;
	double rate = tg->profile_rate;

	if (rate <= 0)
		rate = fmax(b->own_rate, 1.0) * TARGET_SAMPLE_COSTS *
		       b->call_cost_ns / SAMPLER_PERIOD_NS;
	return budget_fit_profile(b, now, au->time_ns, rate,
				  au->time_ns < TARGET_MIN_PROFILE_NS ?
				  au->time_ns : TARGET_MIN_PROFILE_NS);
}

/* --auto: start the profile that replaces the burst due now. */
void target_profile(struct target *tg, const struct target_auto *au,
		    uint64_t now, uint64_t len)
{
	tg->profile_why = tg->pick_due;
	tg->pick_due = REPICK_NO;
	if (!picker_start(&tg->picker, tg->pid, len, au->top)) {
		tg->picked = false;
		return;
	}
	/* Still due: it is tried again after the backoff. */
	tg->pick_due = tg->profile_why;
	target_say_once(tg, "cannot start a thread to profile it");
	target_backoff(tg, now);
}

/*
 * The profile ended: its picks replace the last ones (cut to --max-
 * functions), or, when it could not pick (the target idles, or its
 * samples fell in no function a probe can time), the last ones stay and
 * the problem is said once.  Its cost is the budget's like a burst's:
 * the samples, and the off-CPU stacks the module took, cost the target
 * about a probed call each (a trap or a switch, and a walk of the user
 * stack), and the profile's thread what it took.  Like a burst's cost,
 * its rate rises at once and falls through an average: the thread's
 * part (loading the symbols, naming the samples) varies from one
 * profile to the next by half.
 */
void target_picked(struct target *tg, const struct target_auto *au,
		   uint64_t now)
{
	struct picker *p = &tg->picker;
	struct autopick *a = &p->result;
	enum proc_state st;
	size_t i, n;
	uint64_t cost;

	picker_join(p);
	/* Its cost was paid whoever the pid's process turned out to be. */
	cost = (uint64_t)((double)(a->samples + a->off_stacks) *
			  tg->budget.call_cost_ns) + p->thread_cpu_ns;
	tg->pick_cost_ns += cost;
	if (p->duration_ns)
		tg->profile_rate = budget_ceiling(tg->profile_rate,
						  (double)cost /
						  (double)p->duration_ns);
	budget_charge(&tg->budget, cost, now);
	/*
	 * A profile of the pid's next process is none of the target's: not
	 * kept, so that the last window shows none of it.  One of a target
	 * that exited, its pid free, is kept with its error.
	 */
	st = proc_state(tg->pid, tg->start_time);
	if (st == PROC_OTHER) {
		tg->gone = true;
		return;
	}
	n = a->nr < au->max ? a->nr : au->max;
	tg->picked = true;
	repick_reset(&tg->repick);
	tg->bursts_since_pick = 0;
	if (p->ret && st == PROC_GONE) {
		tg->gone = true;
		return;
	}
	if (p->ret) {
		target_say_once(tg, p->err);
	} else if (n) {
		struct elf_target_sym *picks = malloc(n * sizeof(*picks));

		if (picks) {
			for (i = 0; i < n; i++)
				picks[i] = a->funcs[i].sym;
			free(tg->picks);
			tg->picks = picks;
			tg->nr_picks = n;
			tg->pick_said[0] = '\0';
		} else {
			target_say_once(tg, "out of memory keeping the picks");
		}
	}
	target_schedule(tg, now);
}
