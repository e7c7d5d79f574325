// SPDX-License-Identifier: GPL-2.0
/* File names taken apart; see path.h. */
#include <string.h>

#include "util/path.h"

const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}
