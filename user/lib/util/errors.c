// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/errors.h"
#include "util/utf8.h"

const char *ispot_progname = "ispot";

static void (*error_hook)(void *ctx);
static void *error_hook_ctx;

void ispot_error_hook(void (*fn)(void *ctx), void *ctx)
{
	error_hook = fn;
	error_hook_ctx = ctx;
}

/*
 * @line as it is written: each control character, and each byte that
 * starts no UTF-8 sequence, as \xNN.  A message quotes paths and names
 * that any user makes: a file name with a newline and "ispotd: " after it
 * would forge a line of the daemon's journal, and one byte that is not
 * UTF-8 makes journald keep the whole message as a blob.
 */
static void ispot_put_escaped(FILE *f, const char *line)
{
	const char *c = line;
	size_t n;

	for (; *c; c += n ? n : 1) {
		unsigned char b = (unsigned char)*c;

		n = utf8_valid(c);
		if (!n || b < 0x20 || b == 0x7f)
			fprintf(f, "\\x%02x", b);
		else
			fwrite(c, 1, n, f);
	}
}

/*
 * The line built whole, then written at once: stderr is unbuffered, and
 * threads that say things together (ispotd's picker threads and loop)
 * would interleave it byte by byte.
 */
static void ispot_line(const char *fmt, va_list ap)
{
	char small[1024], *line = small, *out = NULL;
	size_t len = 0;
	va_list again;
	FILE *f;
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
	if (n < 0)
		small[0] = '\0';
	f = open_memstream(&out, &len);
	if (f) {
		fprintf(f, "%s: ", ispot_progname);
		ispot_put_escaped(f, line);
		fputc('\n', f);
		if (fclose(f)) {
			free(out);
			out = NULL;
		}
	}
	fflush(stdout);
	if (out) {
		fwrite(out, 1, len, stderr);
		free(out);
	} else {
		fprintf(stderr, "%s: ", ispot_progname);
		ispot_put_escaped(stderr, line);
		fputc('\n', stderr);
	}
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
