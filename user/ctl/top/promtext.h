/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reader of the Prometheus text exposition format (0.0.4), as much of it
 * as reading ispotd's /metrics back needs:
 *
 *	# HELP and # TYPE lines, and any other comment, are skipped;
 *	name{label="value",...} value [timestamp]
 *
 * Label values may hold the escapes \\, \" and \n; values may be NaN,
 * +Inf, -Inf or any float strtod() reads; a trailing comma inside the
 * braces is allowed, as the format allows it.  Lines end with \n (a \r
 * before it is tolerated).  The text is parsed in place: names and
 * unescaped label values point into it.
 */
#ifndef ISPOT_PROMTEXT_H
#define ISPOT_PROMTEXT_H

#include <stddef.h>

#define PROM_MAX_LABELS	16

struct prom_label {
	const char *name;
	const char *value;
};

struct prom_sample {
	const char *name;	/* with its _bucket, _sum... suffix */
	size_t nr_labels;
	struct prom_label labels[PROM_MAX_LABELS];
	double value;
};

/* Called for every sample; a non-zero return stops the parse with it. */
typedef int (*prom_sample_fn)(void *ctx, const struct prom_sample *s);

/*
 * Parse @text (@len bytes, modified in place; it need not end with a NUL:
 * nothing past its last byte is read or written).
 * Returns 0, what @fn returned, or -1 with "line N: what is wrong" in
 * @err.
 */
int prom_parse(char *text, size_t len, prom_sample_fn fn, void *ctx,
	       char *err, size_t errlen);

/* The value of label @name, or NULL. */
const char *prom_label(const struct prom_sample *s, const char *name);

#endif /* ISPOT_PROMTEXT_H */
