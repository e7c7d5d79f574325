/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ispotd's window log (its --log FILE; Documentation/ispotd.rst, "A
 * window"), one JSON object a line per closed window: the line's time
 * stamp, which user/daemon/window.c writes with window_log_time(), and a
 * line read back as `ispotctl plot` takes it (report/window_plot.c):
 *
 *	"time"				RFC 3339 UTC, with milliseconds
 *	"target": {"pid": N, ...}
 *	"functions": [{"name": "...", "sci": X, "interference": Y}, ...]
 *
 * every other member ignored, so that members added later cost nothing
 * (the members are an interface: none is renamed or removed).
 */
#ifndef ISPOT_WIRE_WINDOW_LOG_H
#define ISPOT_WIRE_WINDOW_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "util/json_read.h"

/* @ts as "2026-11-23T13:40:02.512Z" into @buf. */
void window_log_time(char *buf, size_t len, const struct timespec *ts);

/* What window_log_time() wrote, as seconds since the epoch; false if not. */
bool window_log_parse_time(const char *s, double *out);

/* One window as read: it points into the parsed line it keeps. */
struct window_log_line {
	struct json_value *json;
	double time;			/* seconds since the epoch */
	int64_t pid;
	size_t nr_funcs;
	const struct json_value *funcs;	/* window_log_func() reads them */
};

struct window_log_func {
	const char *name;
	double sci;
	double interference;		/* NAN: the window had none */
};

/*
 * Read the @len bytes of one line (no line end) into @w.  Returns NULL,
 * or what is wrong with it ("out of memory" being ours, not the line's);
 * window_log_line_free() is right after either.
 */
const char *window_log_read(const char *line, size_t len,
			    struct window_log_line *w);
void window_log_line_free(struct window_log_line *w);

/* Function @i (below w->nr_funcs) of the line. */
void window_log_func(const struct window_log_line *w, size_t i,
		     struct window_log_func *f);

#endif /* ISPOT_WIRE_WINDOW_LOG_H */
