// SPDX-License-Identifier: GPL-2.0
/* Names written in one place and read in another; see names.h. */
#include <string.h>

#include "report/names.h"

const struct cause_name cause_names[NR_CAUSES] = {
	[CAUSE_FUTEX]		= { "futex", "futex_ns", "futex" },
	[CAUSE_BLOCKED]		= { "blocked", "blocked_ns", "blocked" },
	[CAUSE_RUNQUEUE]	= { "runqueue", "runqueue_ns", "runqueue" },
	[CAUSE_ONCPU]		= { "on-cpu", "oncpu_ns", "oncpu" },
	/* The table's "?": executions that carried no causes. */
	[CAUSE_UNKNOWN]		= { "?", "unknown_ns", "unknown" },
};

const char *const outcome_names[NR_OUTCOMES] = {
	[OUTCOME_RECORDED]	= "recorded",
	[OUTCOME_DROPPED]	= "dropped",
	[OUTCOME_UNPAIRED]	= "unpaired",
};

int cause_of_metric(const char *value)
{
	int k;

	for (k = 0; value && k < NR_CAUSES; k++)
		if (!strcmp(value, cause_names[k].metric))
			return k;
	return -1;
}

int outcome_of(const char *value)
{
	int k;

	for (k = 0; value && k < NR_OUTCOMES; k++)
		if (!strcmp(value, outcome_names[k]))
			return k;
	return -1;
}
