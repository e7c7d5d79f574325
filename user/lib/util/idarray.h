/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arrays indexed by a small id (a probe id, a function id) that grow when
 * an id beyond their end comes: to the id, or to twice their length if
 * that is more, the new elements zeroed so that "unused" reads as 0.
 */
#ifndef ISPOT_IDARRAY_H
#define ISPOT_IDARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Make @id a valid index of *@arr (*@nr elements of @size bytes).
 * Returns 0 or -ENOMEM (the array is then unchanged).
 */
static inline int idarray_reserve(void *arr, uint32_t *nr, size_t size,
				  uint32_t id)
{
	void **a = arr;
	uint32_t n;
	char *grown;

	if (id < *nr)
		return 0;
	n = id + 1 > 2 * *nr ? id + 1 : 2 * *nr;
	grown = realloc(*a, (size_t)n * size);
	if (!grown)
		return -ENOMEM;
	memset(grown + (size_t)*nr * size, 0, (size_t)(n - *nr) * size);
	*a = grown;
	*nr = n;
	return 0;
}

#endif /* ISPOT_IDARRAY_H */
