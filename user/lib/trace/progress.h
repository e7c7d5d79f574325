/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The status line of a trace in progress, on a terminal only:
 *
 *	[ispot] 12.3s  45.1k events/s  0 dropped
 *
 * redrawn about four times a second, and erased before anything else is
 * printed: the report, or an error line (through ispot_error_hook()).
 * When the file descriptor is not a terminal nothing at all is written,
 * so redirected output stays exactly what it was.
 *
 * The line lives on the terminal's bottom row, below a scrolling region
 * that holds everything else, as apt draws its progress bar: the traced
 * command (`ispotctl run`'s child) writes to the same terminal, and a
 * line redrawn in place with a carriage return would be torn by its
 * output and left behind in pieces.  A terminal that does not know its
 * size (a serial console, such as the test VM's) gets no line at all:
 * there is no bottom row to keep.
 */
#ifndef ISPOT_PROGRESS_H
#define ISPOT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROGRESS_PERIOD_NS	(250 * 1000 * 1000ull)
/* Events per second are counted over about this long. */
#define PROGRESS_RATE_NS	(1000 * 1000 * 1000ull)

struct progress {
	int fd;
	bool on;		/* @fd is a terminal */
	bool shown;		/* a line is on screen now */
	int rows;		/* the terminal's */
	uint64_t start_ns;
	uint64_t drawn_ns;
	uint64_t mark_ns;	/* where the rate is counted from */
	uint64_t mark_records;
	double rate;
};

/* Start at @now_ns on @fd: on only if @fd is a terminal. */
void progress_start(struct progress *p, int fd, uint64_t now_ns);
/* Redraw, if a period has passed since the last time. */
void progress_update(struct progress *p, uint64_t now_ns, uint64_t records,
		     uint64_t dropped);
/* Erase the line, give the terminal its whole height back, and stop. */
void progress_stop(struct progress *p);

/* The line's text, without the control characters around it. */
void progress_format(char *buf, size_t len, uint64_t elapsed_ns,
		     double events_per_s, uint64_t dropped);

#endif /* ISPOT_PROGRESS_H */
