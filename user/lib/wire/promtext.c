// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text exposition format, read in place and written; see
 * promtext.h.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"
#include "wire/promtext.h"

/*
 * Each line is parsed within [p, end), end its '\n' or the end of the
 * text, never past it: the text need not be followed by a NUL.  The NULs
 * that end names and values are written over the byte after each, which
 * is inside the line ('=', '{', a blank, the closing quote).
 */
static char *skip_blanks(char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static bool name_start(char c, bool metric)
{
	return isalpha((unsigned char)c) || c == '_' || (metric && c == ':');
}

static char *skip_name(char *p, const char *end, bool metric)
{
	if (p == end || !name_start(*p, metric))
		return p;
	while (p < end && (name_start(*p, metric) || isdigit((unsigned char)*p)))
		p++;
	return p;
}

/* A quoted label value at @p (past the quote), unescaped in place. */
static char *read_value(char *p, const char *end, const char **value,
			const char **why)
{
	char *out = p;

	*value = p;
	for (;;) {
		if (p == end) {
			*why = "a label value lacks its closing quote";
			return NULL;
		}
		if (*p == '"')
			break;
		if (*p == '\\') {
			if (++p == end)
				continue;	/* lacks its closing quote */
			if (*p == 'n')
				*out++ = '\n';
			else if (*p == '\\' || *p == '"')
				*out++ = *p;
			else {
				*why = "a label value has an unknown escape";
				return NULL;
			}
			p++;
			continue;
		}
		*out++ = *p++;
	}
	*out = '\0';	/* at or before the closing quote, already read */
	return p + 1;
}

/* The {...} after a metric name, @p past the brace. */
static char *read_labels(char *p, const char *end, struct prom_sample *s,
			 const char **why)
{
	for (;;) {
		struct prom_label *l;
		char *name_end;

		p = skip_blanks(p, end);
		if (p < end && *p == '}')
			return p + 1;
		name_end = skip_name(p, end, false);
		if (name_end == p) {
			*why = "a label name was expected";
			return NULL;
		}
		if (s->nr_labels == PROM_MAX_LABELS) {
			*why = "too many labels";
			return NULL;
		}
		l = &s->labels[s->nr_labels++];
		l->name = p;
		p = skip_blanks(name_end, end);
		if (p == end || *p != '=') {
			*why = "a label lacks its '='";
			return NULL;
		}
		*name_end = '\0';	/* after the '=' was seen: may be it */
		p = skip_blanks(p + 1, end);
		if (p == end || *p != '"') {
			*why = "a label value must be quoted";
			return NULL;
		}
		p = read_value(p + 1, end, &l->value, why);
		if (!p)
			return NULL;
		p = skip_blanks(p, end);
		if (p < end && *p == ',') {
			p++;
		} else if (p == end || *p != '}') {
			*why = "labels must be separated by ','";
			return NULL;
		}
	}
}

/* The value at @p into @v: a copy of its token, which strtod() may end. */
static char *read_number(char *p, const char *end, double *v)
{
	char tok[64], *num;
	size_t len = 0;

	while (p + len < end && p[len] != ' ' && p[len] != '\t' &&
	       p[len] != '\r')
		len++;
	if (!len || len >= sizeof(tok))
		return NULL;
	memcpy(tok, p, len);
	tok[len] = '\0';
	errno = 0;
	*v = strtod(tok, &num);
	if (num == tok || errno == EINVAL)
		return NULL;
	return p + (num - tok);
}

static int parse_line(char *p, const char *end, struct prom_sample *s,
		      const char **why)
{
	char *name_end;
	char c;

	memset(s, 0, sizeof(*s));
	name_end = skip_name(p, end, true);
	if (name_end == p) {
		*why = "a metric name must start the line";
		return -1;
	}
	s->name = p;
	c = name_end < end ? *name_end : '\0';
	if (c == '{' || c == ' ' || c == '\t')
		*name_end = '\0';
	p = name_end + 1;
	if (c == '{') {
		p = read_labels(p, end, s, why);
		if (!p)
			return -1;
		c = p < end ? *p : '\0';
		if (c)
			p++;
	}
	if (c != ' ' && c != '\t') {
		*why = "a value must follow the name";
		return -1;
	}
	p = read_number(skip_blanks(p, end), end, &s->value);
	if (!p) {
		*why = "the value is not a number";
		return -1;
	}
	p = skip_blanks(p, end);
	/* An optional timestamp, in ms: not needed here. */
	if (p < end && *p == '-')
		p++;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	p = skip_blanks(p, end);
	if (p < end && *p != '\r') {
		*why = "unexpected text after the value";
		return -1;
	}
	return 0;
}

int prom_parse(char *text, size_t len, prom_sample_fn fn, void *ctx,
	       char *err, size_t errlen)
{
	char *p = text, *end = text + len;
	struct prom_sample s;
	unsigned long line = 0;

	while (p < end) {
		char *eol = memchr(p, '\n', end - p);
		const char *why = NULL;
		int ret;

		if (!eol)
			eol = end;
		line++;
		p = skip_blanks(p, eol);
		if (p < eol && *p != '#' && *p != '\r') {
			if (memchr(p, '\0', eol - p)) {
				snprintf(err, errlen, "line %lu: a NUL byte",
					 line);
				return -1;
			}
			if (parse_line(p, eol, &s, &why)) {
				snprintf(err, errlen, "line %lu: %s", line,
					 why);
				return -1;
			}
			ret = fn(ctx, &s);
			if (ret)
				return ret;
		}
		p = eol + 1;
	}
	return 0;
}

const char *prom_label(const struct prom_sample *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nr_labels; i++)
		if (!strcmp(s->labels[i].name, name))
			return s->labels[i].value;
	return NULL;
}

void prom_write_family(FILE *f, const char *name, const char *type,
		       const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * A label value: backslash, double quote and newline escaped, and each
 * byte that is not UTF-8 written as U+FFFD (utf8.h says why).
 */
static void prom_write_value(FILE *f, const char *v)
{
	size_t n;

	for (; *v; v += n ? n : 1) {
		n = utf8_valid(v);
		if (*v == '\\')
			fputs("\\\\", f);
		else if (*v == '"')
			fputs("\\\"", f);
		else if (*v == '\n')
			fputs("\\n", f);
		else if (!n)
			fputs(UTF8_REPLACEMENT, f);
		else
			fwrite(v, 1, n, f);
	}
}

void prom_write_series(FILE *f, const char *name,
		       const struct prom_label *labels, size_t nr_labels)
{
	size_t i;

	fputs(name, f);
	for (i = 0; i < nr_labels; i++) {
		fprintf(f, "%c%s=\"", i ? ',' : '{', labels[i].name);
		prom_write_value(f, labels[i].value);
		fputc('"', f);
	}
	fputs(nr_labels ? "} " : " ", f);
}

void prom_write_u64(FILE *f, uint64_t v)
{
	fprintf(f, "%" PRIu64 "\n", v);
}

void prom_write_double(FILE *f, double v)
{
	if (isnan(v))
		fputs("NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf\n" : "-Inf\n", f);
	else
		fprintf(f, "%.9g\n", v);
}

void prom_write_seconds(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64 "\n", ns / 1000000000,
		ns % 1000000000);
}
