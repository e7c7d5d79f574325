// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/errors.h"

const char *ispot_progname = "ispot";

static void (*error_hook)(void *ctx);
static void *error_hook_ctx;

void ispot_error_hook(void (*fn)(void *ctx), void *ctx)
{
	error_hook = fn;
	error_hook_ctx = ctx;
}

/*
 * The line, with each control character in it written as \xNN: a message
 * quotes paths and names that any user makes (a file name with a newline
 * and "ispotd: " after it would forge a line of the daemon's journal).
 */
static void ispot_line(const char *fmt, va_list ap)
{
	char small[1024], *line = small;
	const unsigned char *c;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small)) {
		line = malloc((size_t)n + 1);
		if (line)
			vsnprintf(line, (size_t)n + 1, fmt, again);
		else
			line = small;	/* cut short, but said */
	}
	va_end(again);
	fflush(stdout);
	fprintf(stderr, "%s: ", ispot_progname);
	for (c = (const unsigned char *)line; n >= 0 && *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			fprintf(stderr, "\\x%02x", *c);
		else
			fputc(*c, stderr);
	}
	fputc('\n', stderr);
	if (line != small)
		free(line);
}

void ispot_error(const char *fmt, ...)
{
	va_list ap;

	if (error_hook)
		error_hook(error_hook_ctx);
	va_start(ap, fmt);
	ispot_line(fmt, ap);
	va_end(ap);
}

void ispot_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ispot_line(fmt, ap);
	va_end(ap);
}
