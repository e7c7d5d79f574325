// SPDX-License-Identifier: GPL-2.0
/* The one FIFO queue; see fifo.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/fifo.h"

void fifo_init(struct fifo *q, size_t item_size)
{
	memset(q, 0, sizeof(*q));
	q->item_size = item_size;
}

void fifo_free(struct fifo *q)
{
	free(q->items);
	fifo_init(q, q->item_size);
}

int fifo_push(struct fifo *q, const void *item)
{
	/* Half the array given up at the front: slide the rest down. */
	if (q->tail == q->cap && q->head && q->head >= q->tail / 2) {
		memmove(q->items, fifo_at(q, 0), fifo_len(q) * q->item_size);
		q->tail -= q->head;
		q->head = 0;
	}
	if (array_grow(&q->items, &q->cap, q->tail + 1, q->item_size))
		return -ENOMEM;
	memcpy((char *)q->items + q->tail * q->item_size, item,
	       q->item_size);
	q->tail++;
	return 0;
}

void fifo_pop(struct fifo *q)
{
	/* Empty again: the next item starts at the front. */
	if (++q->head == q->tail)
		q->head = q->tail = 0;
}
