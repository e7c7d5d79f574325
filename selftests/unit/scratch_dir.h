/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One scratch directory for every test of a unit test (each runs in a
 * child), made before them and removed with all it holds at the end.
 * Define TEST_DIR_TEMPLATE ("/tmp/ispot-NAME-XXXXXX") before including.
 */
#ifndef ISPOT_SCRATCH_DIR_H
#define ISPOT_SCRATCH_DIR_H

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "ispot_test.h"

static char dir[64] = TEST_DIR_TEMPLATE;

__attribute__((constructor)) static void dir_make(void)
{
	if (!mkdtemp(dir))
		dir[0] = '\0';
}

static int dir_remove_one(const char *path, const struct stat *st, int flag,
			  struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

__attribute__((destructor)) static void dir_remove(void)
{
	if (dir[0])
		nftw(dir, dir_remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* @name in the directory, into @buf (PATH_MAX). */
static void path_in(char *buf, const char *name)
{
	ASSERT_TRUE(dir[0] != '\0');
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
}

#endif /* ISPOT_SCRATCH_DIR_H */
