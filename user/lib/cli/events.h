/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perf events by name, as `--counters` and `--raw-event` spell them: the
 * names are perf's (cycles, instructions, cache-misses, page-faults, ...),
 * so a perf user types what they already know.  Only events that mean
 * something over one call that stayed on one CPU are offered: context
 * switches and migrations would always read 0 there.  Names match
 * regardless of case, so perf's LLC-load-misses works too.
 */
#ifndef ISPOT_EVENTS_H
#define ISPOT_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EVENT_NAME_LEN	32

struct event_spec {
	char name[EVENT_NAME_LEN];	/* "cycles", "raw:0x1cd" */
	uint32_t type;			/* PERF_TYPE_* */
	uint64_t config;
};

/*
 * Append the comma-separated names in @list to @out (holding @*n, at most
 * @max).  Returns 0, or -1 with a one-line reason in @err.
 */
int events_parse(const char *list, struct event_spec *out, size_t *n,
		 size_t max, char *err, size_t errlen);
/* Append a raw PMU event, "0x1cd" (hex, as perf's rNNN). */
int events_parse_raw(const char *hex, struct event_spec *out, size_t *n,
		     size_t max, char *err, size_t errlen);
/* Anything but a software event needs a PMU. */
bool event_is_hardware(const struct event_spec *e);
/* Counts time (ns) rather than occurrences. */
bool event_is_time(const struct event_spec *e);
/* The names events_parse() knows, comma-separated, for help and errors. */
const char *events_known(void);

/* What `ispotctl status` asks the module about. */
extern const char *const events_status_probe[];

#endif /* ISPOT_EVENTS_H */
