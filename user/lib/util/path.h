/* SPDX-License-Identifier: GPL-2.0 */
/* File names taken apart, without touching the file system. */
#ifndef ISPOT_PATH_H
#define ISPOT_PATH_H

/*
 * What follows the last '/' of @path ("/usr/lib/libc.so.6" -> "libc.so.6"),
 * or @path itself when it has no '/' or ends in one: unlike basename(3) it
 * neither copies nor changes @path, and never makes a non-empty name empty.
 */
const char *path_base(const char *path);

#endif /* ISPOT_PATH_H */
