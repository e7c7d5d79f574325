// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>

#include "util/errors.h"

const char *ispot_progname = "ispot";

static void (*error_hook)(void *ctx);
static void *error_hook_ctx;

void ispot_error_hook(void (*fn)(void *ctx), void *ctx)
{
	error_hook = fn;
	error_hook_ctx = ctx;
}

static void ispot_line(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", ispot_progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
