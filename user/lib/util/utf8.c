// SPDX-License-Identifier: GPL-2.0
/* A name made valid UTF-8, and compared as made so; see utf8.h. */
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

char *utf8_dup_valid(const char *raw)
{
	size_t len = 0, n, rl = sizeof(UTF8_REPLACEMENT) - 1;
	const char *c;
	char *out, *o;

	for (c = raw; *c; c += n ? n : 1) {
		n = utf8_valid(c);
		len += n ? n : rl;
	}
	out = malloc(len + 1);
	if (!out)
		return NULL;
	for (c = raw, o = out; *c; c += n ? n : 1) {
		n = utf8_valid(c);
		memcpy(o, n ? c : UTF8_REPLACEMENT, n ? n : rl);
		o += n ? n : rl;
	}
	*o = '\0';
	return out;
}

bool utf8_eq_valid(const char *valid, const char *raw)
{
	size_t n, rl = sizeof(UTF8_REPLACEMENT) - 1;
	const char *c;

	for (c = raw; *c; c += n ? n : 1) {
		n = utf8_valid(c);
		if (strncmp(valid, n ? c : UTF8_REPLACEMENT, n ? n : rl))
			return false;
		valid += n ? n : rl;
	}
	return !*valid;
}
