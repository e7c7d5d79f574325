// SPDX-License-Identifier: GPL-2.0
/* Perf events by name; see events.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/perf_event.h>

#include "cli/events.h"

/* Last-level cache read misses, as perf's LLC-load-misses. */
#define HW_CACHE_LL_READ_MISS						\
	(PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_READ << 8) |	\
	 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16))

static const struct event_spec known[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "llc-load-misses", PERF_TYPE_HW_CACHE, HW_CACHE_LL_READ_MISS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_EMULATION_FAULTS },
};

#define NR_KNOWN	(sizeof(known) / sizeof(known[0]))

/* Hardware and software: the PMU question, then the one always there. */
const char *const events_status_probe[] = {
	"cycles", "instructions", "cache-misses", "llc-load-misses",
	"cpu-clock", "page-faults", NULL,
};

const char *events_known(void)
{
	static char buf[512];
	size_t i, off = 0;

	if (buf[0])
		return buf;
	for (i = 0; i < NR_KNOWN; i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s",
				i ? "," : "", known[i].name);
	return buf;
}

static int events_append(const struct event_spec *e, struct event_spec *out,
			 size_t *n, size_t max, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (out[i].type == e->type && out[i].config == e->config)
			return 0;	/* asked twice: count it once */
	if (*n >= max) {
		snprintf(err, errlen, "at most %zu counters at a time: "
			 "drop one of --counters/--raw-event", max);
		return -1;
	}
	out[(*n)++] = *e;
	return 0;
}

int events_parse(const char *list, struct event_spec *out, size_t *n,
		 size_t max, char *err, size_t errlen)
{
	const char *p = list;

	if (!*list) {
		snprintf(err, errlen, "--counters needs a list of events, "
			 "e.g. --counters cpu-clock,page-faults");
		return -1;
	}
	while (*p) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < NR_KNOWN; i++)
			if (strlen(known[i].name) == len &&
			    !strncasecmp(known[i].name, p, len))
				break;
		if (i == NR_KNOWN) {
			snprintf(err, errlen, "unknown counter '%.*s': use "
				 "one of %s, or --raw-event 0xN", (int)len, p,
				 events_known());
			return -1;
		}
		if (events_append(&known[i], out, n, max, err, errlen))
			return -1;
		p += len;
		if (*p == ',' && !*++p) {
			snprintf(err, errlen, "--counters list ends with a "
				 "comma: remove it");
			return -1;
		}
	}
	return 0;
}

int events_parse_raw(const char *hex, struct event_spec *out, size_t *n,
		     size_t max, char *err, size_t errlen)
{
	struct event_spec e = { .type = PERF_TYPE_RAW };
	char *end;

	errno = 0;
	if (strncmp(hex, "0x", 2) && strncmp(hex, "0X", 2))
		goto bad;
	/* Digits only: strtoull would take a sign, blanks or a second 0x. */
	if (strspn(hex + 2, "0123456789abcdefABCDEF") != strlen(hex + 2))
		goto bad;
	e.config = strtoull(hex + 2, &end, 16);
	if (errno || end == hex + 2 || *end)
		goto bad;
	snprintf(e.name, sizeof(e.name), "raw:0x%" PRIx64, e.config);
	return events_append(&e, out, n, max, err, errlen);
bad:
	snprintf(err, errlen, "--raw-event '%s' is not a hex event code: "
		 "give it as the PMU's 0xUMASKEVENT, e.g. --raw-event 0x1cd",
		 hex);
	return -1;
}

bool event_is_hardware(const struct event_spec *e)
{
	return e->type != PERF_TYPE_SOFTWARE;
}

bool event_is_time(const struct event_spec *e)
{
	return e->type == PERF_TYPE_SOFTWARE &&
	       (e->config == PERF_COUNT_SW_CPU_CLOCK ||
		e->config == PERF_COUNT_SW_TASK_CLOCK);
}
