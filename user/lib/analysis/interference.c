// SPDX-License-Identifier: GPL-2.0
/* Interference beside SCI; see interference.h for the definitions. */
#include <string.h>

#include "analysis/interference.h"

void interf_init(struct interf_acc *a)
{
	memset(a, 0, sizeof(*a));
	a->rest_min = UINT64_MAX;
	a->clean_rest_min = UINT64_MAX;
}

void interf_add(struct interf_acc *a, const struct interf_call *c)
{
	struct interf_split s;

	interf_split(c, &s);
	interf_add_split(a, &s);
}

void interf_seed(struct interf_acc *a, const struct interf_seed *s)
{
	a->seed = *s;
}

void interf_seed_out(const struct interf_acc *a, struct interf_seed *out)
{
	out->solo = a->solo.solo + a->seed.solo;
	out->solo_rest_ns = a->solo.solo_rest_ns + a->seed.solo_rest_ns;
	out->solo_ns = a->solo.solo_ns + a->seed.solo_ns;
	out->gated = a->solo.gated + a->seed.gated;
	out->gated_rest_ns = a->solo.gated_rest_ns + a->seed.gated_rest_ns;
	out->gated_ns = a->solo.gated_ns + a->seed.gated_ns;
	/* The window that hands it on dates its own calls (window.c). */
	out->gated_since_ns = a->seed.gated ? a->seed.gated_since_ns : 0;
}

/* The fastest rest: of the clean calls if any (interference.h). */
static uint64_t rest_floor(const struct interf_acc *a)
{
	return a->clean_rest_min != UINT64_MAX ? a->clean_rest_min :
	       a->rest_min;
}

/*
 * Whether enough calls with at most one thread beside them spread in
 * exposure for a slope to be more than noise (a pair of threads always
 * beside each other sits at e = 1).
 */
static bool fit_spreads(const struct interf_acc *a)
{
	return a->low >= INTERF_MIN_EVIDENCE &&
	       a->m2_e >= INTERF_FIT_SPREAD * INTERF_FIT_SPREAD *
			  (double)a->band;
}

/*
 * Whether the band's calls can carry a line: enough of them at e = 0 or
 * close to it, or enough that spread (fit_spreads()).
 */
static bool fit_ok(const struct interf_acc *a)
{
	if (a->band < 2 || a->m2_e <= 0)
		return false;
	return a->near >= INTERF_MIN_EVIDENCE || fit_spreads(a);
}

/* The calls that anchor a fit_ok() line: the most that qualify. */
static uint64_t fit_anchors(const struct interf_acc *a)
{
	return fit_spreads(a) ? a->low : a->near;
}

/*
 * The FIT reference: the band's line at e = 0.  Held within [min r, mean
 * r]: a block cannot take less than its fastest rest, and a line falling
 * as exposure grows says its time does not grow with the threads beside
 * it: its calls' own mean, not a negative interference.
 */
static double fit_reference(const struct interf_acc *a)
{
	double slope = a->c_er / a->m2_e;
	double ref = a->mean_r - slope * a->mean_e;
	double mean = (double)a->rest_ns / (double)a->n;

	if (ref > mean)
		ref = mean;
	if (ref < (double)rest_floor(a))
		ref = (double)rest_floor(a);
	return ref;
}

void interf_estimate(const struct interf_acc *a, struct interf_estimate *out)
{
	/* Interference is only in calls beside other threads: not solo. */
	double shared_n = (double)(a->n - a->solo.solo);
	double shared_rest = (double)(a->rest_ns - a->solo.solo_rest_ns);
	double thin = INTERF_THIN_SHARE * (double)a->n;
	struct interf_seed solo;
	double over;

	memset(out, 0, sizeof(*out));
	interf_seed_out(a, &solo);
	out->calls = a->n;
	out->direct_ns = a->direct_ns;
	out->external_ns = a->external_ns;
	out->solo_calls = solo.solo;
	out->seeded_solo_calls = a->seed.solo;
	out->gated_calls = solo.gated;
	out->seeded_gated_calls = a->seed.gated;
	out->seeded_since_ns = a->seed.gated ? a->seed.gated_since_ns : 0;
	if (solo.solo)
		out->solo_mean_ns = (double)solo.solo_ns / (double)solo.solo;
	if (solo.gated)
		out->gated_mean_ns = (double)solo.gated_ns /
				     (double)solo.gated;
	out->loss_ns = out->bound_ns = a->direct_ns;
	if (!a->n)
		return;
	if (solo.gated >= INTERF_MIN_EVIDENCE) {
		/* Made to be clean, so never thin: no length bias either. */
		out->ref = INTERF_REF_GATED;
		out->ref_ns = (double)solo.gated_rest_ns / (double)solo.gated;
		out->ref_calls = a->solo.gated;
	} else if (solo.solo >= INTERF_MIN_EVIDENCE) {
		out->ref = INTERF_REF_SOLO;
		out->ref_ns = (double)solo.solo_rest_ns / (double)solo.solo;
		out->ref_calls = a->solo.solo;
		out->weak = a->seed.solo < INTERF_MIN_EVIDENCE &&
			    (double)a->solo.solo < thin;
	} else if (fit_ok(a)) {
		out->ref = INTERF_REF_FIT;
		out->ref_ns = fit_reference(a);
		out->fit_calls = a->band;
		out->ref_calls = fit_anchors(a);
		out->weak = (double)out->ref_calls < thin;
	} else {
		over = shared_rest - shared_n * rest_floor(a);
		out->bound_ns += over > 0 ? (uint64_t)(over + 0.5) : 0;
		out->weak = out->bound_ns > out->loss_ns;
		return;
	}
	over = shared_rest - shared_n * out->ref_ns;
	if (over > 0)
		out->loss_ns += (uint64_t)(over + 0.5);
	out->bound_ns = out->loss_ns;
}

/*
 * Which reference a sum of keys shows: any bound wins, then SOLO, FIT,
 * and GATED only when every key has it.
 */
static enum interf_ref ref_of_sum(const struct interf_estimate *sum,
				  const struct interf_estimate *b)
{
	if (!sum->calls)
		return b->ref;
	if (sum->bound_ns > sum->loss_ns || b->bound_ns > b->loss_ns)
		return INTERF_REF_NONE;
	if (sum->ref == INTERF_REF_SOLO || b->ref == INTERF_REF_SOLO)
		return INTERF_REF_SOLO;
	return sum->ref == INTERF_REF_FIT ? sum->ref : b->ref;
}

void interf_estimate_add(struct interf_estimate *sum,
			 const struct interf_estimate *b)
{
	uint64_t solo = sum->solo_calls + b->solo_calls;
	uint64_t gated = sum->gated_calls + b->gated_calls;
	uint64_t calls = sum->calls + b->calls;

	if (!b->calls)
		return;
	if (solo)
		sum->solo_mean_ns = (sum->solo_mean_ns * sum->solo_calls +
				     b->solo_mean_ns * b->solo_calls) / solo;
	if (gated)
		sum->gated_mean_ns = (sum->gated_mean_ns * sum->gated_calls +
				      b->gated_mean_ns * b->gated_calls) /
				     gated;
	sum->gated_calls = gated;
	sum->seeded_gated_calls += b->seeded_gated_calls;
	/* A sum of keys is as old as its oldest key's reference. */
	if (b->seeded_since_ns && (!sum->seeded_since_ns ||
				   b->seeded_since_ns < sum->seeded_since_ns))
		sum->seeded_since_ns = b->seeded_since_ns;
	sum->ref = ref_of_sum(sum, b);
	sum->calls = calls;
	sum->solo_calls = solo;
	sum->seeded_solo_calls += b->seeded_solo_calls;
	sum->fit_calls += b->fit_calls;
	if (b->weak) {
		/* A note about the weak keys counts theirs only. */
		if (!sum->weak || b->ref == INTERF_REF_SOLO)
			sum->weak_ref = b->ref;
		sum->weak = true;
		sum->ref_calls += b->ref_calls;
		sum->weak_calls += b->calls;
	}
	sum->loss_ns += b->loss_ns;
	sum->bound_ns += b->bound_ns;
	sum->direct_ns += b->direct_ns;
	sum->external_ns += b->external_ns;
}
