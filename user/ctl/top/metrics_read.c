// SPDX-License-Identifier: GPL-2.0
/* ispotd's /metrics read back into running totals; see metrics_read.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "top/metrics_read.h"
#include "top/promtext.h"

static struct metrics_series *series_get(struct metrics_snapshot *m,
					 const struct prom_sample *s)
{
	const char *exe = prom_label(s, "exe");
	const char *function = prom_label(s, "function");
	const char *object = prom_label(s, "object");
	struct metrics_series *ser;
	size_t i;

	if (!exe || !function)
		return NULL;	/* not a per-function series: ignore it */
	if (!object)
		object = "";
	/* Series come metric by metric, each in the same order. */
	for (i = 0; i < m->nr_series; i++) {
		ser = &m->series[i];
		if (!strcmp(ser->function, function) &&
		    !strcmp(ser->exe, exe) && !strcmp(ser->object, object))
			return ser;
	}
	if (m->nr_series == m->cap_series) {
		size_t cap = m->cap_series ? 2 * m->cap_series : 16;

		ser = realloc(m->series, cap * sizeof(*ser));
		if (!ser)
			return NULL;
		m->series = ser;
		m->cap_series = cap;
	}
	ser = &m->series[m->nr_series++];
	memset(ser, 0, sizeof(*ser));
	ser->exe = exe;
	ser->function = function;
	ser->object = object;
	return ser;
}

static int cause_index(const char *cause)
{
	int k;

	for (k = 0; cause && k < RATES_NR_CAUSES; k++)
		if (!strcmp(cause, rates_cause_names[k]))
			return k;
	return -1;
}

static void add_bucket(struct metrics_series *ser, double le, double count)
{
	size_t i;

	if (ser->too_many_buckets)
		return;
	if (ser->nr_buckets == RATES_MAX_BUCKETS) {
		ser->too_many_buckets = true;
		ser->nr_buckets = 0;
		return;
	}
	/* Usually in order already: insertion from the end. */
	for (i = ser->nr_buckets; i > 0 && ser->le_ns[i - 1] > le; i--) {
		ser->le_ns[i] = ser->le_ns[i - 1];
		ser->cum[i] = ser->cum[i - 1];
	}
	ser->le_ns[i] = le;
	ser->cum[i] = count;
	ser->nr_buckets++;
}

static int on_sample(void *ctx, const struct prom_sample *s)
{
	struct metrics_snapshot *m = ctx;
	struct metrics_series *ser;
	const char *v;
	int k;

	if (strncmp(s->name, "ispot_", 6))
		return 0;
	m->nr_ispot++;
	if (!strcmp(s->name, "ispot_targets")) {
		m->targets = s->value;
		return 0;
	}
	if (!strcmp(s->name, "ispot_events_total")) {
		v = prom_label(s, "outcome");
		if (v && !strcmp(v, "recorded"))
			m->recorded += s->value;
		else if (v && !strcmp(v, "dropped"))
			m->dropped += s->value;
		else if (v && !strcmp(v, "unpaired"))
			m->unpaired += s->value;
		return 0;
	}
	if (strcmp(s->name, "ispot_calls_total") &&
	    strcmp(s->name, "ispot_loss_seconds_total") &&
	    strcmp(s->name, "ispot_observed_seconds_total") &&
	    strcmp(s->name, "ispot_duration_seconds_bucket"))
		return 0;
	ser = series_get(m, s);
	if (!ser)
		return prom_label(s, "exe") && prom_label(s, "function") ?
		       -ENOMEM : 0;
	if (!strcmp(s->name, "ispot_calls_total")) {
		ser->calls = s->value;
	} else if (!strcmp(s->name, "ispot_observed_seconds_total")) {
		ser->observed_ns = s->value * 1e9;
	} else if (!strcmp(s->name, "ispot_loss_seconds_total")) {
		k = cause_index(prom_label(s, "cause"));
		if (k < 0)
			k = RATES_UNKNOWN;
		ser->cause_ns[k] += s->value * 1e9;
		ser->loss_ns += s->value * 1e9;
	} else {
		v = prom_label(s, "le");
		if (v)
			add_bucket(ser, strtod(v, NULL) * 1e9, s->value);
	}
	return 0;
}

int metrics_read(char *text, size_t len, struct metrics_snapshot *m,
		 char *err, size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->targets = -1;
	return prom_parse(text, len, on_sample, m, err, errlen);
}

void metrics_snapshot_free(struct metrics_snapshot *m)
{
	free(m->series);
	memset(m, 0, sizeof(*m));
}

void metrics_series_counts(const struct metrics_series *s,
			   struct rates_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->calls = s->calls;
	c->loss_ns = s->loss_ns;
	memcpy(c->cause_ns, s->cause_ns, sizeof(c->cause_ns));
	c->observed_ns = s->observed_ns;
	c->nr_buckets = s->nr_buckets;
	c->le_ns = s->le_ns;
	c->cum = s->cum;
}
