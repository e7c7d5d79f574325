/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the parts of one trace session (trace.c: the session and its
 * rounds; trace_funcs.c: what it probes).  Not for front ends.
 */
#ifndef ISPOT_TRACE_INTERNAL_H
#define ISPOT_TRACE_INTERNAL_H

#include "trace.h"

/*
 * Add every resolved function and block to the session: one probe pair
 * per function, one entry probe per marker site of a block.  After SETUP,
 * before ENABLE.  Returns 0 or prints one line and returns -1.
 */
int trace_arm(struct trace *t);

/* Free what trace_resolve() gathered. */
void trace_funcs_free(struct trace *t);

#endif /* ISPOT_TRACE_INTERNAL_H */
