// SPDX-License-Identifier: GPL-2.0
/* Two paths, one file?  See same_file.h. */
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "util/path.h"
#include "util/same_file.h"

/* @path's directory, as stat() sees it; false if it cannot be read. */
static bool dir_of(const char *path, struct stat *st)
{
	const char *base = path_base(path);
	char dir[PATH_MAX];
	size_t n = (size_t)(base - path);

	if (!n)
		return !stat(".", st);
	if (n >= sizeof(dir))
		return false;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return !stat(dir, st);
}

bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	bool ea, eb;

	if (!a || !b)
		return false;
	if (!strcmp(a, b))
		return true;
	ea = !stat(a, &sa);
	eb = !stat(b, &sb);
	if (ea || eb)
		return ea && eb && sa.st_dev == sb.st_dev &&
		       sa.st_ino == sb.st_ino;
	/* Neither made yet: one name in one directory. */
	return !strcmp(path_base(a), path_base(b)) && dir_of(a, &sa) &&
	       dir_of(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}
