// SPDX-License-Identifier: GPL-2.0
/* Text into XML and HTML; see xml.h. */
#include <stdio.h>

#include "util/xml.h"

/* Length of the UTF-8 sequence at @s (1..4), 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms, surrogates and beyond U+10FFFF are not UTF-8. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

void xml_escape(FILE *f, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t done = 0, n;

	while (*u) {
		if (max && done >= max) {
			fputs("...", f);
			return;
		}
		n = utf8_len(u);
		if (!n || (*u < 0x20 && *u != '\n' && *u != '\t') ||
		    *u == 0x7f) {
			fputc('?', f);
			n = 1;
		} else if (*u == '<') {
			fputs("&lt;", f);
		} else if (*u == '>') {
			fputs("&gt;", f);
		} else if (*u == '&') {
			fputs("&amp;", f);
		} else if (*u == '"') {
			fputs("&quot;", f);
		} else if (*u == '\'') {
			fputs("&#39;", f);
		} else {
			fwrite(u, 1, n, f);
		}
		u += n;
		done += n;
	}
}
