// SPDX-License-Identifier: GPL-2.0
/* ispotd's window log, its time written and its lines read; window_log.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "wire/window_log.h"

void window_log_time(char *buf, size_t len, const struct timespec *ts)
{
	struct tm tm;
	char day[32];

	gmtime_r(&ts->tv_sec, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03ldZ", day, ts->tv_nsec / 1000000);
}

bool window_log_parse_time(const char *s, double *out)
{
	struct tm tm;
	const char *rest;
	unsigned int ms = 0;
	int used = 0;

	memset(&tm, 0, sizeof(tm));
	rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!rest)
		return false;
	if (*rest == '.' && sscanf(rest, ".%3u%n", &ms, &used) == 1)
		rest += used;
	if (strcmp(rest, "Z"))
		return false;
	*out = (double)timegm(&tm) + ms / 1000.0;
	return true;
}

static const struct json_value *member(const struct json_value *o,
				       const char *key, enum json_type t)
{
	const struct json_value *v = json_get(o, key);

	return v && v->t == t ? v : NULL;
}

const char *window_log_read(const char *line, size_t len,
			    struct window_log_line *w)
{
	const struct json_value *time, *fns, *pid;
	const char *why = NULL;
	size_t i;

	memset(w, 0, sizeof(*w));
	w->json = json_parse(line, len, &why);
	if (!w->json)
		return why ? why : "not JSON";
	if (w->json->t != JSON_OBJ)
		return "not an object";
	time = member(w->json, "time", JSON_STR);
	fns = member(w->json, "functions", JSON_ARR);
	pid = member(member(w->json, "target", JSON_OBJ), "pid", JSON_NUM);
	if (!time || !fns || !pid)
		return "no \"time\", \"target\" or \"functions\"";
	if (!window_log_parse_time(time->s, &w->time))
		return "\"time\" is not RFC 3339 UTC";
	for (i = 0; i < fns->n; i++)
		if (!member(&fns->items[i], "name", JSON_STR) ||
		    !member(&fns->items[i], "sci", JSON_NUM))
			return "a function without \"name\" or \"sci\"";
	w->pid = pid->i;
	w->nr_funcs = fns->n;
	w->funcs = fns->items;
	return NULL;
}

void window_log_line_free(struct window_log_line *w)
{
	json_value_free(w->json);
	memset(w, 0, sizeof(*w));
}

void window_log_func(const struct window_log_line *w, size_t i,
		     struct window_log_func *f)
{
	const struct json_value *fn = &w->funcs[i];
	const struct json_value *in = member(fn, "interference", JSON_NUM);

	f->name = member(fn, "name", JSON_STR)->s;
	f->sci = member(fn, "sci", JSON_NUM)->d;
	f->interference = in ? in->d : NAN;
}
