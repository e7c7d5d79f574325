/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus text exposition format (0.0.4), both ways: ispotd writes
 * its /metrics with the prom_write_*() calls (user/daemon/metrics_render.c)
 * and `ispotctl top --from` reads it back with prom_parse()
 * (user/ctl/top/metrics_read.c), as much of the format as that needs:
 *
 *	# HELP and # TYPE lines, and any other comment, are skipped;
 *	name{label="value",...} value [timestamp]
 *
 * Label values may hold the escapes \\, \" and \n; values may be NaN,
 * +Inf, -Inf or any float strtod() reads; a trailing comma inside the
 * braces is allowed, as the format allows it.  Lines end with \n (a \r
 * before it is tolerated).  The text is parsed in place: names and
 * unescaped label values point into it.  What is written reads back the
 * same: label values escaped, seconds as exact decimals.
 */
#ifndef ISPOT_PROMTEXT_H
#define ISPOT_PROMTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* ---- Writing ---- */

/* "# HELP @name @help" and "# TYPE @name @type". */
void prom_write_family(FILE *f, const char *name, const char *type,
		       const char *help);

/*
 * A sample's name and labels, up to its value: "name{a=\"1\",b=\"2\"} ",
 * or "name " without labels.  One of the value writers below ends it.
 */
void prom_write_series(FILE *f, const char *name,
		       const struct prom_label *labels, size_t nr_labels);

/* A value and the line's end: a count, a gauge ("%.9g", NaN, +Inf). */
void prom_write_u64(FILE *f, uint64_t v);
void prom_write_double(FILE *f, double v);
/*
 * Nanoseconds as exact decimal seconds ("1.500000000"): no rounding can
 * make a counter step back.
 */
void prom_write_seconds(FILE *f, uint64_t ns);

#endif /* ISPOT_PROMTEXT_H */
