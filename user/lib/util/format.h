/* SPDX-License-Identifier: GPL-2.0 */
/* Human units for reports: ns/us/ms/s, B/KiB/MiB/GiB and 45.1k counts. */
#ifndef ISPOT_FORMAT_H
#define ISPOT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* Three significant digits, e.g. "812ns", "1.25us", "3.40ms", "12.0s". */
char *format_ns(char *buf, size_t len, double ns);
char *format_bytes(char *buf, size_t len, uint64_t bytes);
/* Counts and rates the way perf shows them: "812", "45.1k", "1.23M". */
char *format_count(char *buf, size_t len, double n);

#endif /* ISPOT_FORMAT_H */
