/* SPDX-License-Identifier: GPL-2.0 */
/* Whether two paths name one file, whatever their spelling. */
#ifndef ISPOT_SAME_FILE_H
#define ISPOT_SAME_FILE_H

#include <stdbool.h>

/*
 * Whether @a and @b name the same file: one that exists (the same device
 * and inode: "x", "./x", a hard or symbolic link), or, for a file not made
 * yet, the same name in the same directory.  False when either is NULL.
 */
bool same_file(const char *a, const char *b);

#endif /* ISPOT_SAME_FILE_H */
