/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interference next to SCI (Documentation/design.rst, "Interference, not
 * variance"): the part of a block's loss that the program's *other
 * threads* cost it, apart from how much the block varies by itself and
 * from what other processes took.
 *
 * Each call comes with its duration d and what the timeline saw while it
 * ran (timeline.h, "Context"):
 *
 *	waited      off-CPU time in futex waits that a wake from another
 *		    traced thread ended
 *	runqueue    run-queue time, and rq_program, the part of it during
 *		    which the CPU the thread was preempted on ran another
 *		    thread of the program while the program had more
 *		    threads wanting a CPU than CPUs (timeline.h)
 *	others      the integral of the number of the program's other
 *		    *active* threads (alive, and not in a futex wait) over
 *		    the call, in ns x threads
 *
 * and is split into
 *
 *	direct   = waited + rq_program	  waiting for the program's threads
 *	external = runqueue - rq_program  waiting for a CPU taken by others
 *	rest r   = d - direct - external  its own work, plus interference
 *					  that leaves no wait behind
 *					  (spinning, shared caches, a disk)
 *	exposure e = others / d		  how much of the program ran beside
 *
 * A call is *solo* when e = 0: no other thread of the program was active
 * at any moment of it, so nothing of the program could slow its rest.  A
 * call is a *reference call* when a solo block's gate let it run with no
 * other thread inside a traced function (solo.h): it is made to be free of
 * their interference, whatever its length, and is not itself counted as a
 * call that could lose to interference.  The reference for r, the block's
 * own time, is:
 *
 *	GATED	the mean r of its reference calls, when there are at least
 *		INTERF_MIN_EVIDENCE of them;
 *	SOLO	else, the mean r of its solo calls, when there are at least
 *		INTERF_MIN_EVIDENCE of them;
 *	FIT	else, the intercept at e = 0 of the least-squares line
 *		r = a + b e through the calls near it, e <= INTERF_FIT_BAND,
 *		when INTERF_MIN_EVIDENCE of them anchor it: calls with
 *		e <= INTERF_NEAR_EXPOSURE, or calls with e <=
 *		INTERF_LOW_EXPOSURE if the band's exposures spread by at
 *		least INTERF_FIT_SPREAD (standard deviation); held within
 *		[floor, mean r] (the floor as below).  Only the calls near
 *		e = 0: a shared device or the CPUs saturate, so r grows
 *		with e at first and then flattens, and a line through
 *		the crowded calls, the many, would miss the intercept;
 *	NONE	else.
 *
 *	interference loss = sum direct + max(0, sum' r - n' * reference)
 *
 * where sum' and n' run over the calls that were not solo: only those can
 * have been slowed by other threads, and ispotd's windows judge theirs
 * against solo calls of earlier windows too.  The other calls a solo
 * block's gate admitted (the one that took the gate, one that met another
 * thread inside) are the block's, *aside*: neither reference nor loss,
 * as the threads' time while blocks admit is no part of the share the
 * loss is taken of (sci.h, sci_solo_begin()).  With no reference the rest
 * cannot be judged: the loss is then sum direct, which is measured and so
 * a lower bound, and the upper bound is sum direct + sum' r - n' * floor:
 * the paper's minimum applied to the rest, the floor being the fastest
 * rest of the *clean* calls (no direct or external time) when there are
 * any, else of all calls, since a call that waited may have done less of
 * its own work in its time (a loop that runs until a deadline).  Being a
 * minimum over calls, it bounds the rest's interference the way SCI
 * bounds a block's: as the paper's method reads it, not beyond doubt.
 * External time is never interference.
 *
 * Memory is one struct interf_acc per block: running sums and the
 * co-moments of (e, r) updated in place (Welford), nothing per call.
 */
#ifndef ISPOT_INTERFERENCE_H
#define ISPOT_INTERFERENCE_H

#include <stdbool.h>
#include <stdint.h>

/* Solo calls (or calls at low exposure) a reference needs. */
#define INTERF_MIN_EVIDENCE	30
/* Exposure at or below which a call anchors a FIT by itself. */
#define INTERF_NEAR_EXPOSURE	0.5
/*
 * Exposure at or below which a call anchors a FIT whose exposures vary:
 * at most one other thread active beside it on average.
 */
#define INTERF_LOW_EXPOSURE	1.5
/* The calls the FIT's line goes through: at most two threads beside. */
#define INTERF_FIT_BAND		2.5
/* Their exposures' spread (standard deviation) a slope needs. */
#define INTERF_FIT_SPREAD	0.25
/*
 * A reference that rests on calls of the run itself under this share of
 * the block's calls is *weak* (struct interf_estimate's weak): in a pool
 * whose workers start and end together, the solo calls are the last
 * worker's, after the others ended, and the FIT's anchors the few calls
 * when few workers ran; such a reference put two readers' INTERF anywhere
 * between 13% and 43% over runs of one program
 * (Documentation/evaluation.rst, "Interference beside SCI").
 */
#define INTERF_THIN_SHARE	0.05

struct interf_call {
	uint64_t duration_ns;
	uint64_t waited_ns;
	uint64_t runqueue_ns;
	uint64_t rq_program_ns;
	uint64_t others_ns;	/* ns x threads */
	bool reference;		/* a clean call of a solo block */
	bool aside;		/* another call of a solo block: no loss */
};

/*
 * A block's evidence for its reference: its solo calls and its reference
 * calls; what earlier windows knew of them (ispotd), or a --baseline.
 */
struct interf_seed {
	uint64_t solo;
	uint64_t solo_rest_ns;
	uint64_t solo_ns;	/* their durations */
	uint64_t gated;
	uint64_t gated_rest_ns;
	uint64_t gated_ns;
	/*
	 * When the oldest of the reference calls was made (ispotd: the
	 * start of its window, CLOCK_MONOTONIC); 0: not known.
	 */
	uint64_t gated_since_ns;
};

/*
 * What every call updates comes last, in three cache lines and a half
 * after what few calls touch, so that the SCI engine can lay the block's
 * own sums right after it (sci_internal.h).
 */
struct interf_acc {
	struct interf_seed seed;	/* given by interf_seed() */
	struct interf_seed solo;	/* this engine's own solo and
					 * reference calls */
	uint64_t n;
	uint64_t direct_ns;
	uint64_t external_ns;
	uint64_t rest_ns;
	uint64_t rest_min;
	uint64_t clean_rest_min;	/* over calls with no wait counted */
	uint64_t near;		/* calls with e <= INTERF_NEAR_EXPOSURE */
	uint64_t low;		/* calls with e <= INTERF_LOW_EXPOSURE */
	/* The FIT's calls, e <= INTERF_FIT_BAND: their count and moments. */
	uint64_t band;
	double mean_e, mean_r, m2_e, c_er;
};

enum interf_ref {
	INTERF_REF_NONE,
	INTERF_REF_SOLO,
	INTERF_REF_FIT,
	INTERF_REF_GATED,
};

struct interf_estimate {
	enum interf_ref ref;
	uint64_t calls;		/* that carried a context */
	uint64_t loss_ns;	/* a lower bound when ref is NONE */
	uint64_t bound_ns;	/* the upper bound; = loss_ns unless NONE */
	uint64_t direct_ns;
	uint64_t external_ns;
	uint64_t solo_calls;	/* the seed's included */
	uint64_t seeded_solo_calls;	/* of those, the seed's */
	uint64_t gated_calls;	/* reference calls, the seed's included */
	uint64_t seeded_gated_calls;	/* of those, the seed's */
	uint64_t seeded_since_ns;	/* the seed's gated_since_ns */
	uint64_t fit_calls;	/* the FIT's line went through, when FIT */
	/*
	 * The run's own calls the reference rests on: its solo calls
	 * (SOLO), the calls near e = 0 that anchor the line (FIT), none
	 * (NONE).  A sum of keys (a function: interf_estimate_add(), even
	 * of one key) adds the weak keys' only, and sets weak_calls, their
	 * calls, and weak_ref, their reference kind (SOLO if any of them
	 * has it), so that a note about them counts theirs.
	 */
	uint64_t ref_calls;
	uint64_t weak_calls;
	enum interf_ref weak_ref;
	/*
	 * Whether the figure lacks a reference a user can lean on: only a
	 * bound, or a reference whose ref_calls are under INTERF_THIN_SHARE
	 * of the calls, unless INTERF_MIN_EVIDENCE solo calls were handed
	 * in (interf_seed(): --baseline, ispotd's earlier windows), which a
	 * SOLO reference then rests on too.  A FIT never uses the seed.  A
	 * function is weak if any of its keys is, as it is bounded if any
	 * is.
	 */
	bool weak;
	double solo_mean_ns;	/* mean duration of those, 0 if none */
	double gated_mean_ns;	/* of the reference calls, 0 if none */
	double ref_ns;		/* a block's reference for r, 0 when NONE;
				 * a sum of keys has none (0) */
};

/*
 * A call's split (direct, external, rest) and exposure, worked out once
 * by interf_split() and added to each block it counts for by
 * interf_add_split(): a --key auto function's call counts in four.
 */
struct interf_split {
	uint64_t duration_ns;
	uint64_t direct_ns;
	uint64_t external_ns;
	uint64_t rest_ns;
	uint64_t others_ns;
	double exposure;
	bool reference;
	bool aside;
};

static inline uint64_t interf_at_most(uint64_t v, uint64_t max)
{
	return v < max ? v : max;
}

/* Inline: the SCI engine splits every call, from a struct it fills. */
static inline void interf_split(const struct interf_call *c,
				struct interf_split *out)
{
	uint64_t d = c->duration_ns;
	uint64_t rq_program = interf_at_most(c->rq_program_ns, c->runqueue_ns);
	uint64_t direct = interf_at_most(c->waited_ns + rq_program, d);
	uint64_t external = interf_at_most(c->runqueue_ns - rq_program,
					   d - direct);

	out->duration_ns = d;
	out->direct_ns = direct;
	out->external_ns = external;
	out->rest_ns = d - direct - external;
	out->others_ns = c->others_ns;
	out->exposure = d ? (double)c->others_ns / (double)d : 0.0;
	out->reference = c->reference;
	out->aside = c->aside;
}

/*
 * Inline: the SCI engine adds every call to each block it counts for, and
 * the call's prologue cost as much as the sums.
 */
static inline void interf_add_split(struct interf_acc *a,
				    const struct interf_split *s)
{
	uint64_t rest = s->rest_ns;
	double e = s->exposure;
	double de, dr;

	if (s->reference) {
		a->solo.gated++;
		a->solo.gated_rest_ns += rest;
		a->solo.gated_ns += s->duration_ns;
		return;
	}
	if (s->aside)
		return;
	a->n++;
	a->direct_ns += s->direct_ns;
	a->external_ns += s->external_ns;
	a->rest_ns += rest;
	if (rest < a->rest_min)
		a->rest_min = rest;
	if (!s->direct_ns && !s->external_ns && rest < a->clean_rest_min)
		a->clean_rest_min = rest;
	if (!s->others_ns) {
		a->solo.solo++;
		a->solo.solo_rest_ns += rest;
		a->solo.solo_ns += s->duration_ns;
	}
	if (e <= INTERF_NEAR_EXPOSURE)
		a->near++;
	if (e <= INTERF_LOW_EXPOSURE)
		a->low++;
	if (e > INTERF_FIT_BAND)
		return;
	/* Welford's update of the means and co-moments of (e, r). */
	a->band++;
	de = e - a->mean_e;
	a->mean_e += de / (double)a->band;
	dr = (double)rest - a->mean_r;
	a->mean_r += dr / (double)a->band;
	a->m2_e += de * (e - a->mean_e);
	a->c_er += de * ((double)rest - a->mean_r);
}

void interf_init(struct interf_acc *a);
/* Both in one: a call that counts for one block. */
void interf_add(struct interf_acc *a, const struct interf_call *c);
/* Take @s's solo calls as evidence too (not as calls of this block). */
void interf_seed(struct interf_acc *a, const struct interf_seed *s);
/* The seed to hand to the next engine: @a's solo calls and its seed's. */
void interf_seed_out(const struct interf_acc *a, struct interf_seed *out);
void interf_estimate(const struct interf_acc *a, struct interf_estimate *out);
/*
 * Sum @b into @sum, as a function sums its keys: each key keeps its own
 * reference, so losses and bounds add; the reference kind becomes NONE
 * when any key with a bound above its loss had none.
 */
void interf_estimate_add(struct interf_estimate *sum,
			 const struct interf_estimate *b);

#endif /* ISPOT_INTERFERENCE_H */
