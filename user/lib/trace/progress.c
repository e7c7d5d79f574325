// SPDX-License-Identifier: GPL-2.0
/* The status line of a trace in progress; see progress.h. */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/errors.h"
#include "util/format.h"
#include "trace/progress.h"

/*
 * VT100 sequences: save and restore the cursor (DECSC, DECRC), set the
 * scrolling region (DECSTBM; no argument: the whole screen), move, erase
 * to the end of the line.
 */
#define SAVE		"\0337"
#define RESTORE		"\0338"
#define EOL		"\033[K"

static void progress_write(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return;	/* not worth failing for */
		s += w;
		n -= w;
	}
}

static int terminal_rows(int fd)
{
	struct winsize ws;

	return !ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_row >= 2 ? ws.ws_row : 0;
}

/*
 * Keep the bottom row for the line: a newline first makes room when the
 * cursor is already there (the screen scrolls up one), the region is set
 * (which homes the cursor, hence save and restore), and the cursor goes
 * back up to the line it was on.
 */
static void region_take(struct progress *p)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "\n" SAVE "\033[1;%dr" RESTORE
			 "\033[1A", p->rows - 1);

	progress_write(p->fd, buf, n);
}

static void progress_erase(void *ctx)
{
	struct progress *p = ctx;
	char buf[64];
	int n;

	if (!p->shown)
		return;
	n = snprintf(buf, sizeof(buf), SAVE "\033[r\033[%d;1H" EOL RESTORE,
		     p->rows);
	progress_write(p->fd, buf, n);
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
	/* A serial console has no size (nor, often, a reader). */
	p->on = isatty(fd) && terminal_rows(fd);
	p->start_ns = p->mark_ns = now_ns;
	if (p->on)
		ispot_error_hook(progress_erase, p);
}

void progress_update(struct progress *p, uint64_t now_ns, uint64_t records,
		     uint64_t dropped)
{
	char text[160], line[256];
	int n, rows;

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
	progress_format(text, sizeof(text), now_ns - p->start_ns, p->rate,
			dropped);
	/*
	 * The bottom row is taken at the first draw, and again after an
	 * error line or a resize (the old line erased where it was).  A
	 * terminal that lost its size keeps the last one known.
	 */
	rows = terminal_rows(p->fd);
	if (p->shown && rows && rows != p->rows)
		progress_erase(p);
	if (!p->shown) {
		if (rows)
			p->rows = rows;
		region_take(p);
	}
	n = snprintf(line, sizeof(line), SAVE "\033[%d;1H%s" EOL RESTORE,
		     p->rows, text);
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
