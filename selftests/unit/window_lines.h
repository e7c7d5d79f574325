/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the JSON lines of ispotd's windows in the unit tests: close a
 * window and take its line, and pick fields out of it.
 */
#ifndef ISPOT_TEST_WINDOW_LINES_H
#define ISPOT_TEST_WINDOW_LINES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ispot_test.h"
#include "window.h"

/* window_close() into @f; the one line it wrote, from *@off on. */
static char *close_window(struct window_set *w,
			  const struct window_target *tg, FILE *f, long *off,
			  uint64_t now)
{
	static char line[1 << 16];
	size_t n;

	ASSERT_EQ(window_close(w, f, tg, now, 0.25, 0.005), 0);
	ASSERT_EQ(fseek(f, *off, SEEK_SET), 0);
	n = fread(line, 1, sizeof(line) - 1, f);
	line[n] = '\0';
	*off += n;
	/* Exactly one line, whole. */
	ASSERT_GT(n, 0);
	ASSERT_TRUE(strchr(line, '\n') == line + n - 1);
	return line;
}

/* The text from @from up to (not including) @to, in a buffer of its own. */
static char *between(const char *s, const char *from, const char *to)
{
	const char *a = strstr(s, from), *b;
	char *out;

	ASSERT_TRUE(a);
	b = to ? strstr(a, to) : a + strlen(a);
	ASSERT_TRUE(b);
	out = strndup(a, b - a);
	ASSERT_TRUE(out);
	return out;
}

/* The object in @s that starts with "name": @name, braces matched. */
static char *object_named(const char *s, const char *name)
{
	char want[128];
	const char *a, *p;
	int depth = 0;

	snprintf(want, sizeof(want), "{\"name\": \"%s\"", name);
	a = strstr(s, want);
	if (!a)
		return NULL;
	for (p = a; *p; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && !--depth)
			return strndup(a, p + 1 - a);
	}
	return NULL;
}

/* The number after "@key": in @s; fails the test if there is none. */
static double num(const char *s, const char *key)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "\"%s\": ", key);
	p = strstr(s, want);
	if (!p) {
		TH_LOG("no %s in %s", want, s);
		ispot_test_fail(1);
	}
	return strtod(p + strlen(want), NULL);
}

#endif /* ISPOT_TEST_WINDOW_LINES_H */
