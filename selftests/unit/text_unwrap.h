/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's notes wrap at the terminal's width, or 100 columns in a
 * pipe (report.h, report_wrap()): a test that looks for a whole note
 * reads the text with each line break and the indent after it as one
 * blank.  The caller frees the copy.
 */
#ifndef ISPOT_TEXT_UNWRAP_H
#define ISPOT_TEXT_UNWRAP_H

#include <stdlib.h>
#include <string.h>

static inline char *text_unwrapped(const char *text)
{
	char *out = strdup(text), *o = out;

	if (!out)
		abort();
	for (; *text; text++) {
		if (*text != '\n') {
			*o++ = *text;
			continue;
		}
		*o++ = ' ';
		while (text[1] == ' ')
			text++;
	}
	*o = '\0';
	return out;
}

#endif /* ISPOT_TEXT_UNWRAP_H */
