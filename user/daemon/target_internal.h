/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What target.c (bursts, windows) and target_profile.c (--auto's
 * profiles) share of a target's scheduling.
 */
#ifndef ISPOTD_TARGET_INTERNAL_H
#define ISPOTD_TARGET_INTERNAL_H

#include <stdint.h>

#include "target.h"

/* budget_next_burst()'s "none in this window". */
#define TARGET_NO_BURST		UINT64_MAX

/* The next burst from @now, or none in this window. */
void target_schedule(struct target *tg, uint64_t now);
/* A burst or profile that could not start: retried later, backing off. */
void target_backoff(struct target *tg, uint64_t now);

/* How long a profile the window can pay now; 0: wait for the next one. */
uint64_t target_profile_length(const struct target *tg,
			       const struct target_auto *au, uint64_t now);
/* --auto: start the profile that replaces the burst due now. */
void target_profile(struct target *tg, const struct target_auto *au,
		    uint64_t now, uint64_t len);
/* The profile ended: keep its picks (or say why there are none). */
void target_picked(struct target *tg, const struct target_auto *au,
		   uint64_t now);

#endif /* ISPOTD_TARGET_INTERNAL_H */
