/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one probed call costs on this host: the budget's unit.  ispotd
 * traces a function of its own, ispotd_calibration_target(), and times
 * calls to it armed against the same calls unarmed.  A trap pair costs
 * ~2-5 us on hardware, ~30 us under an emulator: a constant would be
 * wrong by an order of magnitude somewhere.
 */
#ifndef ISPOT_CALIBRATE_H
#define ISPOT_CALIBRATE_H

#include <stddef.h>

/* The probed function; exported (ispotd links with -rdynamic). */
void ispotd_calibration_target(void);

/*
 * The median over a few rounds of (armed - unarmed) time per call, in ns,
 * and of the daemon's CPU time to open, resolve, arm and close the
 * session around them (@session_ns, NULL: not wanted): what a burst costs
 * the daemon before it records anything, the budget's guess until a
 * target's own bursts say.  Returns 0, or -1 with a one-line reason in
 * @err (module absent, ...).
 */
int calibrate_call_cost(double *cost_ns, double *session_ns, char *err,
			size_t errlen);

#endif /* ISPOT_CALIBRATE_H */
