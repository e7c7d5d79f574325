// SPDX-License-Identifier: GPL-2.0
/* The Prometheus text exposition format, read in place; see promtext.h. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top/promtext.h"

static char *skip_blanks(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool name_start(char c, bool metric)
{
	return isalpha((unsigned char)c) || c == '_' || (metric && c == ':');
}

static char *skip_name(char *p, bool metric)
{
	if (!name_start(*p, metric))
		return p;
	while (name_start(*p, metric) || isdigit((unsigned char)*p))
		p++;
	return p;
}

/* A quoted label value at @p (past the quote), unescaped in place. */
static char *read_value(char *p, const char **value, const char **why)
{
	char *out = p;

	*value = p;
	for (;;) {
		if (!*p) {
			*why = "a label value lacks its closing quote";
			return NULL;
		}
		if (*p == '"')
			break;
		if (*p == '\\') {
			p++;
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
static char *read_labels(char *p, struct prom_sample *s, const char **why)
{
	for (;;) {
		struct prom_label *l;
		char *end;

		p = skip_blanks(p);
		if (*p == '}')
			return p + 1;
		end = skip_name(p, false);
		if (end == p) {
			*why = "a label name was expected";
			return NULL;
		}
		if (s->nr_labels == PROM_MAX_LABELS) {
			*why = "too many labels";
			return NULL;
		}
		l = &s->labels[s->nr_labels++];
		l->name = p;
		p = skip_blanks(end);
		if (*p != '=') {
			*why = "a label lacks its '='";
			return NULL;
		}
		*end = '\0';	/* after the '=' was seen: end may be it */
		p = skip_blanks(p + 1);
		if (*p != '"') {
			*why = "a label value must be quoted";
			return NULL;
		}
		p = read_value(p + 1, &l->value, why);
		if (!p)
			return NULL;
		p = skip_blanks(p);
		if (*p == ',')
			p++;
		else if (*p != '}') {
			*why = "labels must be separated by ','";
			return NULL;
		}
	}
}

static int parse_line(char *p, struct prom_sample *s, const char **why)
{
	char *end, *num;
	char c;

	memset(s, 0, sizeof(*s));
	end = skip_name(p, true);
	if (end == p) {
		*why = "a metric name must start the line";
		return -1;
	}
	s->name = p;
	c = *end;
	*end = '\0';
	p = end + 1;
	if (c == '{') {
		p = read_labels(p, s, why);
		if (!p)
			return -1;
		c = *p;
		if (c)
			p++;
	}
	if (c != ' ' && c != '\t') {
		*why = "a value must follow the name";
		return -1;
	}
	p = skip_blanks(p);
	errno = 0;
	s->value = strtod(p, &num);
	if (num == p || errno == EINVAL) {
		*why = "the value is not a number";
		return -1;
	}
	p = skip_blanks(num);
	/* An optional timestamp, in ms: not needed here. */
	if (*p == '-')
		p++;
	while (isdigit((unsigned char)*p))
		p++;
	p = skip_blanks(p);
	if (*p && *p != '\r') {
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
			eol = end;	/* text[len] is the NUL */
		*eol = '\0';
		line++;
		p = skip_blanks(p);
		if (*p && *p != '#' && *p != '\r') {
			if (memchr(p, '\0', eol - p)) {
				snprintf(err, errlen, "line %lu: a NUL byte",
					 line);
				return -1;
			}
			if (parse_line(p, &s, &why)) {
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
