/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One scratch directory for every test of a unit test (each runs in a
 * child), made before them and removed with all it holds at the end.
 * Define TEST_DIR_TEMPLATE ("/tmp/ispot-NAME-XXXXXX") before including.
 */
#ifndef ISPOT_SCRATCH_DIR_H
#define ISPOT_SCRATCH_DIR_H

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * A copy of file @from at @to, a new file (its own inode) that its owner
 * may run.
 */
static inline void copy_file(const char *from, const char *to)
{
	char buf[4096];
	ssize_t n;
	int in, out;

	in = open(from, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(in, 0);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	ASSERT_GE(out, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ASSERT_EQ(write(out, buf, n), n);
	ASSERT_EQ(n, 0);
	close(in);
	close(out);
}

#endif /* ISPOT_SCRATCH_DIR_H */
