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

void ispot_error(const char *fmt, ...)
{
	va_list ap;

	if (error_hook)
		error_hook(error_hook_ctx);
	fflush(stdout);
	fprintf(stderr, "%s: ", ispot_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
