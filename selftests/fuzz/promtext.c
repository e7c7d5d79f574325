// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text `ispotctl top --from ADDR` reads from whatever
 * answers there (user/lib/wire/promtext.c, user/ctl/top/metrics_read.c).
 * The input is parsed twice, each time from an exact-size copy with no
 * NUL after it (promtext.h: nothing past the last byte is read or
 * written): by prom_parse() with a callback that reads every name and
 * label it is given, and by metrics_read(), whose series go through
 * metrics_series_counts() as top's rates take them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "top/metrics_read.h"
#include "wire/promtext.h"

static int visit(void *ctx, const struct prom_sample *s)
{
	size_t *sum = ctx, i;

	if (s->nr_labels > PROM_MAX_LABELS)
		__builtin_trap();
	*sum += strlen(s->name);
	for (i = 0; i < s->nr_labels; i++)
		*sum += strlen(s->labels[i].name) + strlen(s->labels[i].value);
	if (prom_label(s, "le"))
		(*sum)++;
	return 0;
}

static char *copy(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);

	if (text)
		memcpy(text, data, size);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metrics_snapshot m = { 0 };
	struct rates_counts c;
	char err[256], *text;
	size_t sum = 0, i;

	text = copy(data, size);
	if (!text)
		return 0;
	if (prom_parse(text, size, visit, &sum, err, sizeof(err)) == -1 &&
	    strncmp(err, "line ", 5))
		__builtin_trap();	/* an error names its line */
	free(text);

	text = copy(data, size);
	if (!text)
		return 0;
	if (!metrics_read(text, size, &m, err, sizeof(err))) {
		for (i = 0; i < m.nr_series; i++) {
			metrics_series_counts(&m.series[i], &c);
			if (c.nr_buckets > RATES_MAX_BUCKETS)
				__builtin_trap();
		}
	}
	metrics_snapshot_free(&m);
	free(text);
	return 0;
}
