// SPDX-License-Identifier: GPL-2.0
/* Human units for reports; see format.h. */
#include <stdio.h>

#include "util/format.h"

static char *format_scaled(char *buf, size_t len, double v,
			   const char *const *units, int nunits, double step)
{
	int i = 0;

	while (i + 1 < nunits && v >= step * 0.9995) {
		v /= step;
		i++;
	}
	if (i == 0 && v == (double)(long long)v)
		snprintf(buf, len, "%lld%s", (long long)v, units[0]);
	else if (v >= 99.95)
		snprintf(buf, len, "%.0f%s", v, units[i]);
	else if (v >= 9.995)
		snprintf(buf, len, "%.1f%s", v, units[i]);
	else
		snprintf(buf, len, "%.2f%s", v, units[i]);
	return buf;
}

char *format_ns(char *buf, size_t len, double ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };

	return format_scaled(buf, len, ns, units, 4, 1000.0);
}

char *format_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };

	return format_scaled(buf, len, (double)bytes, units, 5, 1024.0);
}

char *format_count(char *buf, size_t len, double n)
{
	static const char *const units[] = { "", "k", "M", "G", "T" };

	return format_scaled(buf, len, n, units, 5, 1000.0);
}
