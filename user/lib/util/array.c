// SPDX-License-Identifier: GPL-2.0
/* The growable array's one growth step; see array.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

#define ARRAY_MIN_CAP	8

int array_grow(void *arrp, size_t *cap, size_t want, size_t size)
{
	void **arr = arrp;
	size_t n = *cap;
	char *grown;

	if (want <= n)
		return 0;
	n = n > SIZE_MAX / 2 ? want : 2 * n;
	if (n < want)
		n = want;
	if (n < ARRAY_MIN_CAP)
		n = ARRAY_MIN_CAP;
	if (!size || n > SIZE_MAX / size)
		return -ENOMEM;
	grown = realloc(*arr, n * size);
	if (!grown)
		return -ENOMEM;
	memset(grown + *cap * size, 0, (n - *cap) * size);
	*arr = grown;
	*cap = n;
	return 0;
}

int idarray_reserve(void *arrp, uint32_t *nr, size_t size, uint32_t id)
{
	size_t cap = *nr;
	int err;

	if (id < *nr)
		return 0;
	err = array_grow(arrp, &cap, (size_t)id + 1, size);
	if (err)
		return err;
	/* Growth past UINT32_MAX elements is clamped: ids are 32-bit. */
	*nr = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
	return 0;
}
