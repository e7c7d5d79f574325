// SPDX-License-Identifier: GPL-2.0
/* ispotd's /metrics read back into running totals; see metrics_read.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/names.h"
#include "top/metrics_read.h"
#include "util/array.h"
#include "wire/promtext.h"

static struct metrics_series *series_get(struct metrics_snapshot *m,
					 const struct prom_sample *s)
{
	const char *exe = prom_label(s, LABEL_EXE);
	const char *function = prom_label(s, LABEL_FUNCTION);
	const char *object = prom_label(s, LABEL_OBJECT);
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
	if (ARRAY_RESERVE(m->series, m->cap_series, m->nr_series + 1))
		return NULL;
	ser = &m->series[m->nr_series++];
	memset(ser, 0, sizeof(*ser));
	/* An ispotd without the figure (older, or no wait records): none. */
	ser->interference_ns = NAN;
	ser->exe = exe;
	ser->function = function;
	ser->object = object;
	return ser;
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

/* ispot_events_total{outcome}: the events the daemon took and lost. */
static void add_events(struct metrics_snapshot *m, const struct prom_sample *s)
{
	switch (outcome_of(prom_label(s, LABEL_OUTCOME))) {
	case OUTCOME_RECORDED:
		m->recorded += s->value;
		break;
	case OUTCOME_DROPPED:
		m->dropped += s->value;
		break;
	case OUTCOME_UNPAIRED:
		m->unpaired += s->value;
		break;
	}
}

/* One sample of a per-function metric into its series. */
static void add_series(struct metrics_series *ser, const struct prom_sample *s)
{
	const char *v;
	int k;

	if (!strcmp(s->name, METRIC_CALLS)) {
		ser->calls = s->value;
	} else if (!strcmp(s->name, METRIC_OBSERVED)) {
		ser->observed_ns = s->value * 1e9;
	} else if (!strcmp(s->name, METRIC_SOLO_BLOCK)) {
		ser->aside_ns = s->value * 1e9;
	} else if (!strcmp(s->name, METRIC_INTERFERENCE)) {
		ser->interference_ns = s->value * 1e9;
	} else if (!strcmp(s->name, METRIC_AUTO_SHARE)) {
		/* A gauge: NaN or a negative share read as not picked. */
		ser->pick_share = s->value > 0 && s->value <= 1 ? s->value : 0;
	} else if (!strcmp(s->name, METRIC_LOSS)) {
		k = cause_of_metric(prom_label(s, LABEL_CAUSE));
		if (k < 0)
			k = CAUSE_UNKNOWN;
		ser->cause_ns[k] += s->value * 1e9;
		ser->loss_ns += s->value * 1e9;
	} else {
		v = prom_label(s, LABEL_LE);
		if (v)
			add_bucket(ser, strtod(v, NULL) * 1e9, s->value);
	}
}

static int on_sample(void *ctx, const struct prom_sample *s)
{
	struct metrics_snapshot *m = ctx;
	struct metrics_series *ser;

	if (strncmp(s->name, METRIC_PREFIX, strlen(METRIC_PREFIX)))
		return 0;
	m->nr_ispot++;
	if (!strcmp(s->name, METRIC_TARGETS)) {
		m->targets = s->value;
		return 0;
	}
	if (!strcmp(s->name, METRIC_EVENTS)) {
		add_events(m, s);
		return 0;
	}
	if (strcmp(s->name, METRIC_CALLS) && strcmp(s->name, METRIC_LOSS) &&
	    strcmp(s->name, METRIC_OBSERVED) &&
	    strcmp(s->name, METRIC_INTERFERENCE) &&
	    strcmp(s->name, METRIC_SOLO_BLOCK) &&
	    strcmp(s->name, METRIC_AUTO_SHARE) &&
	    strcmp(s->name, METRIC_DURATION_BUCKET))
		return 0;
	ser = series_get(m, s);
	if (!ser)
		return prom_label(s, LABEL_EXE) &&
		       prom_label(s, LABEL_FUNCTION) ? -ENOMEM : 0;
	add_series(ser, s);
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
	c->aside_ns = s->aside_ns;
	c->interference_ns = s->interference_ns;
	c->pick_share = s->pick_share;
	c->nr_buckets = s->nr_buckets;
	c->le_ns = s->le_ns;
	c->cum = s->cum;
}
