/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UTF-8 as RFC 3629 defines it: no overlong form, no surrogate, nothing
 * past U+10FFFF.  The strict JSON reader refuses anything else, and the
 * writers send U+FFFD in place of each byte that starts no valid
 * sequence: a Prometheus server drops a whole scrape for one label value
 * that is not UTF-8, and a strict JSON parser a whole report, while the
 * names written come from file names and symbol tables any user writes.
 */
#ifndef ISPOT_UTF8_H
#define ISPOT_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#define UTF8_REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD */

/* The length (1 to 4) of a sequence @lead starts, 0 if none. */
static inline size_t utf8_lead_len(unsigned char lead)
{
	if (lead < 0x80)
		return 1;
	if (lead < 0xc2 || lead > 0xf4)
		return 0;
	return lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
}

/* Whether @k may be byte @i (1 to 3) of a sequence @lead starts. */
static inline bool utf8_cont_ok(unsigned char lead, size_t i,
				unsigned char k)
{
	unsigned char lo = 0x80, hi = 0xbf;

	if (i == 1 && lead == 0xe0)
		lo = 0xa0;		/* an overlong 3-byte form */
	else if (i == 1 && lead == 0xed)
		hi = 0x9f;		/* a surrogate */
	else if (i == 1 && lead == 0xf0)
		lo = 0x90;		/* an overlong 4-byte form */
	else if (i == 1 && lead == 0xf4)
		hi = 0x8f;		/* past U+10FFFF */
	return k >= lo && k <= hi;
}

/*
 * The length of the valid sequence at @str, a NUL-terminated string, or 0
 * if its first byte starts none (its NUL, no continuation byte, ends a
 * sequence cut short before anything past it is read).
 */
static inline size_t utf8_valid(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = utf8_lead_len(s[0]), i;

	for (i = 1; i < n; i++)
		if (!utf8_cont_ok(s[0], i, s[i]))
			return 0;
	return n;
}

/*
 * @raw with each byte that starts no sequence replaced by U+FFFD, as the
 * writers write it: a malloc'd copy, or NULL.  Names that differ only in
 * such bytes come out the same, so a registry keyed by what it writes
 * keeps them as one (a Prometheus server takes two series with one label
 * set as a duplicate).
 */
char *utf8_dup_valid(const char *raw);
/* Whether @valid is what utf8_dup_valid(@raw) gives, without a copy. */
bool utf8_eq_valid(const char *valid, const char *raw);

#endif /* ISPOT_UTF8_H */
