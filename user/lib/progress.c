// SPDX-License-Identifier: GPL-2.0
/* The status line of a trace in progress; see progress.h. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "errors.h"
#include "format.h"
#include "progress.h"

/* Back to the start of the line, and erase it. */
#define PROGRESS_ERASE	"\r\033[K"

static void progress_write(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return;	/* a status line is not worth failing for */
		s += w;
		n -= w;
	}
}

static void progress_erase(void *ctx)
{
	struct progress *p = ctx;

	if (p->shown)
		progress_write(p->fd, PROGRESS_ERASE,
			       sizeof(PROGRESS_ERASE) - 1);
	p->shown = false;
}

void progress_format(char *buf, size_t len, uint64_t elapsed_ns,
		     double events_per_s, uint64_t dropped)
{
	char rate[32], drops[32];

	format_count(drops, sizeof(drops), (double)dropped);
	snprintf(buf, len, "[ispot] %.1fs  %s events/s  %s dropped",
		 elapsed_ns / 1e9,
		 format_count(rate, sizeof(rate), events_per_s), drops);
}

void progress_start(struct progress *p, int fd, uint64_t now_ns)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->on = isatty(fd);
	p->start_ns = p->mark_ns = now_ns;
	if (p->on)
		ispot_error_hook(progress_erase, p);
}

void progress_update(struct progress *p, uint64_t now_ns, uint64_t records,
		     uint64_t dropped)
{
	char line[160];
	int n;

	if (!p->on || (p->shown && now_ns - p->drawn_ns < PROGRESS_PERIOD_NS))
		return;
	/* Over the last second or so; over what there is, at first. */
	if (now_ns - p->mark_ns >= PROGRESS_RATE_NS) {
		p->rate = (records - p->mark_records) * 1e9 /
			  (now_ns - p->mark_ns);
		p->mark_ns = now_ns;
		p->mark_records = records;
	} else if (p->mark_ns == p->start_ns && now_ns > p->start_ns) {
		p->rate = records * 1e9 / (now_ns - p->start_ns);
	}
	n = snprintf(line, sizeof(line), "\r");
	progress_format(line + n, sizeof(line) - n, now_ns - p->start_ns,
			p->rate, dropped);
	n = strlen(line);
	n += snprintf(line + n, sizeof(line) - n, "\033[K");
	progress_write(p->fd, line, n);
	p->shown = true;
	p->drawn_ns = now_ns;
}

void progress_stop(struct progress *p)
{
	if (!p->on)
		return;
	progress_erase(p);
	ispot_error_hook(NULL, NULL);
	p->on = false;
}
