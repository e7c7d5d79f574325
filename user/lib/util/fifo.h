/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one first-in first-out queue of user/: items of a fixed size in a
 * growable array (util/array.h), taken from the front.  What the front
 * has given up is reclaimed by sliding the queue down once it is at least
 * half the array, so an item moves O(1) times on average and the array
 * follows the longest the queue has been.
 *
 *	struct fifo exits;
 *
 *	fifo_init(&exits, sizeof(struct pipeline_exit));
 *	if (fifo_push(&exits, &x))
 *		return -ENOMEM;
 *	while ((x = fifo_front(&exits)) && ...)
 *		fifo_pop(&exits);
 */
#ifndef ISPOT_FIFO_H
#define ISPOT_FIFO_H

#include <stddef.h>

struct fifo {
	void *items;
	size_t item_size;
	size_t head, tail;	/* items [head, tail) are queued */
	size_t cap;
};

void fifo_init(struct fifo *q, size_t item_size);
void fifo_free(struct fifo *q);
/* Copy *@item to the back: 0, or -ENOMEM with the queue unchanged. */
int fifo_push(struct fifo *q, const void *item);
/* Drop the front item (there must be one). */
void fifo_pop(struct fifo *q);

static inline size_t fifo_len(const struct fifo *q)
{
	return q->tail - q->head;
}

/* Item @i from the front (below fifo_len()), valid until a push. */
static inline void *fifo_at(const struct fifo *q, size_t i)
{
	return (char *)q->items + (q->head + i) * q->item_size;
}

/* The front item, NULL when the queue is empty. */
static inline void *fifo_front(const struct fifo *q)
{
	return fifo_len(q) ? fifo_at(q, 0) : NULL;
}

#endif /* ISPOT_FIFO_H */
