// SPDX-License-Identifier: GPL-2.0
/* Solo blocks' timing; see solo_sched.h. */
#include <stdint.h>
#include <linux/ispot.h>

#include "trace/solo_sched.h"

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Uniform in [0, 1). */
static double solo_rand(struct solo_sched *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (double)(s->rng >> 11) / (double)(1ull << 53);
}

/*
 * The gap before the next block: uniform around the mean gap that makes
 * blocks of @block_ns cover @cover of the run, so that blocks fall at
 * random times (no rhythm of the program locks onto them) yet never bunch
 * up.
 */
static uint64_t solo_gap(struct solo_sched *s, uint64_t block_ns,
			 double cover)
{
	double mean = (double)block_ns * (1 - cover) / cover;

	return (uint64_t)(mean * (0.5 + solo_rand(s)));
}

/* How much of the run blocks may cover: a share asked above it raises it. */
static double solo_cover(const struct solo_sched *s)
{
	if (s->cover > 0)
		return s->cover;
	return s->share > SOLO_MAX_COVER ? s->share : SOLO_MAX_COVER;
}

void solo_sched_cap(struct solo_sched *s, double cover)
{
	s->cover = cover;
}

void solo_sched_burst(struct solo_sched *s)
{
	s->burst = true;
}

static uint64_t solo_block_ns(uint64_t mean_call_ns)
{
	return clamp_u64(SOLO_CALLS_PER_BLOCK * mean_call_ns,
			 SOLO_MIN_BLOCK_NS, SOLO_MAX_BLOCK_NS);
}

/*
 * What the block about to start will cost: as much of its length as the
 * blocks before cost of theirs; before any has ended, the most it can,
 * (n - 1) / n of it for a program of n threads (all but the holder wait
 * at the gate, and the cost is their waits over n), or the whole length
 * while n is not known.  The blocks' cost is read from records a drain
 * late, so the last block's may be short of whole; the next block pays
 * for that.
 */
static double solo_expected_cost(const struct solo_sched *s,
				 uint64_t block_ns, uint64_t cost_ns)
{
	double per_ns = s->threads ? (double)(s->threads - 1) / s->threads :
				     1.0;

	if (s->on_ns && cost_ns < s->on_ns)
		per_ns = (double)cost_ns / (double)s->on_ns;
	return per_ns * (double)block_ns;
}

/*
 * Whether a block may start at @now for what the blocks cost so far and
 * what it will: a run of T may have cost share * T, the block to come
 * included, so that a short run is not over its share by a whole block
 * (a burst of ispotd's is the exception: solo_sched_burst()).  If not,
 * the start moves to when it may, and a random part of a gap later, as
 * the gaps are random.
 */
static bool solo_affordable(struct solo_sched *s, uint64_t now,
			    uint64_t block_ns, uint64_t cost_ns)
{
	double ahead = s->burst && !s->blocks ? 0 :
		       solo_expected_cost(s, block_ns, cost_ns);
	uint64_t from = s->t0 + (uint64_t)(((double)cost_ns + ahead) /
					    s->share);

	if (from <= now)
		return true;
	s->postponed++;
	s->next_ns = from + solo_gap(s, block_ns, solo_cover(s)) / 2;
	return false;
}

void solo_sched_init(struct solo_sched *s, double share, uint64_t now,
		     uint64_t seed, solo_ioctl_fn fn, void *ctx)
{
	*s = (struct solo_sched){ .ioctl = fn, .ctx = ctx, .share = share,
				  .rng = seed | 1, .t0 = now };
	/*
	 * The first block comes after a uniform share of a mean gap, as if
	 * the session had joined a run of blocks at a random moment: ispotd's
	 * bursts, each a session, may be shorter than a gap, and must still
	 * get their share of blocks on average.  The gap is the one of
	 * blocks that cost their whole length, the most one can.
	 */
	if (share > 0)
		s->next_ns = now + (uint64_t)(solo_rand(s) * (double)
			SOLO_MIN_BLOCK_NS * (1 - share) / share);
}

void solo_sched_threads(struct solo_sched *s, unsigned int threads)
{
	s->threads = threads;
}

uint64_t solo_sched_next(const struct solo_sched *s)
{
	return s->share > 0 && !s->stopped ? s->next_ns : UINT64_MAX;
}

void solo_sched_act(struct solo_sched *s, uint64_t now,
		    uint64_t mean_call_ns, uint64_t cost_ns)
{
	struct ispot_solo arg = { 0 };
	uint64_t block_ns;

	if (s->share <= 0 || s->stopped || now < s->next_ns)
		return;
	if (s->on) {
		/* The module ended admission at the deadline already. */
		s->on = false;
		s->on_ns += now - s->started_ns;
		if (s->ioctl(s->ctx, &arg))
			s->stopped = true;
		s->next_ns = now + solo_gap(s, s->block_ns, solo_cover(s));
		return;
	}
	if (!mean_call_ns) {
		s->next_ns = now + SOLO_RETRY_NS;
		return;
	}
	block_ns = solo_block_ns(mean_call_ns);
	if (!solo_affordable(s, now, block_ns, cost_ns))
		return;
	arg.duration_ns = block_ns;
	arg.wait_max_ns = clamp_u64(SOLO_WAIT_CALLS * mean_call_ns,
				    SOLO_MIN_WAIT_NS, SOLO_MAX_WAIT_NS);
	if (s->ioctl(s->ctx, &arg)) {
		s->stopped = true;
		return;
	}
	s->on = true;
	s->started_ns = now;
	s->blocks++;
	/* The gap after it is drawn at its end, sized by this block. */
	s->next_ns = now + block_ns;
	s->block_ns = block_ns;
}
