/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one growable array of user/: a plain C array whose pointer, length
 * and capacity stay the caller's own fields (so a struct keeps its
 * natural shape and a reader sees ordinary indexing), grown by doubling
 * in one place, with the size arithmetic checked for overflow once.
 *
 *	uint32_t *tids = NULL;
 *	size_t n = 0, cap = 0;
 *
 *	if (ARRAY_RESERVE(tids, cap, n + 1))
 *		return -ENOMEM;
 *	tids[n++] = tid;
 *
 * Elements that growth adds are zeroed, so an array indexed by a small id
 * (idarray_reserve()) reads "unused" as 0 without a second pass.
 */
#ifndef ISPOT_ARRAY_H
#define ISPOT_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/*
 * Make *@arrp (an array of *@cap elements of @size bytes) hold at least
 * @want elements: to @want, to twice *@cap, or to 8, whichever is most.
 * Returns 0, or -ENOMEM with the array and *@cap unchanged.
 */
int array_grow(void *arrp, size_t *cap, size_t want, size_t size);

/* array_grow() on a typed array and its size_t capacity; 0 or -ENOMEM. */
#define ARRAY_RESERVE(arr, cap, want)					\
	({								\
		_Static_assert(__builtin_types_compatible_p(		\
				typeof(cap), size_t),			\
			       "ARRAY_RESERVE: capacity must be size_t"); \
		(want) <= (cap) ? 0 :					\
			array_grow(&(arr), &(cap), (want), sizeof(*(arr))); \
	})

/*
 * Arrays indexed by a small id (a probe id, a function id), whose length
 * is their capacity: make @id a valid index of *@arrp (*@nr elements of
 * @size bytes).  Returns 0 or -ENOMEM (the array is then unchanged).
 */
int idarray_reserve(void *arrp, uint32_t *nr, size_t size, uint32_t id);

#endif /* ISPOT_ARRAY_H */
