// SPDX-License-Identifier: GPL-2.0
/*
 * The value parsers of the option table (opttab.h): a time, a size, a
 * count and a percentage, read the same way by every program.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opttab.h"
#include "cli/opttab_internal.h"

uint64_t options_parse_duration(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || v > 1e7)
		return 0;
	if (!*end || !strcmp(end, "s"))
		v *= 1e9;
	else if (!strcmp(end, "ms"))
		v *= 1e6;
	else if (!strcmp(end, "us"))
		v *= 1e3;
	else if (!strcmp(end, "m"))
		v *= 60e9;
	else if (!strcmp(end, "h"))
		v *= 3600e9;
	else
		return 0;
	return v < 1 ? 1 : (uint64_t)v;
}

/* "4096", "512K", "4M", "1G" -> bytes; 0 on error or overflow. */
static uint64_t parse_size(const char *s)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (v > UINT64_MAX >> shift)
		return 0;
	v <<= shift;
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	return *end ? 0 : v;
}

uint64_t options_parse_ring_size(const char *s)
{
	uint64_t v = parse_size(s);

	if (v < MIN_RING_BYTES || v > MAX_RING_BYTES || (v & (v - 1)))
		return 0;
	return v;
}

uint64_t options_parse_bytes(const char *s, uint64_t min)
{
	uint64_t v = parse_size(s);

	return v < min ? 0 : v;
}

bool options_parse_u32(const char *s, uint32_t min, uint32_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min ||
	    v > UINT32_MAX)
		return false;
	*out = v;
	return true;
}

bool options_parse_percent(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || strspn(s, "0123456789.") != (size_t)(end - s))
		return false;
	if (*end == '%')
		end++;
	if (*end || !(v >= 0 && v <= 100))
		return false;
	*out = v / 100;
	return true;
}
