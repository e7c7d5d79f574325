/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the recording's writer and reader share (recording_write.c,
 * recording_read.c): a set of addresses with a byte each.  The writer
 * keeps the addresses a report may name and the frame checks' answers in
 * it, the reader the frame checks' answers it has replayed.
 *
 * It is the one hash map of user/ (util/hashmap.h), holding at most
 * REC_MAX_ADDRS addresses (address 0 aside); an insert beyond that is
 * refused and counted.  Slots are chosen by a per-process random seed
 * mixed through splitmix64, so a file's author cannot choose addresses
 * that share a slot: probe runs stay short for any input.
 */
#ifndef ISPOT_RECORDING_ADDRS_H
#define ISPOT_RECORDING_ADDRS_H

#include <stddef.h>
#include <stdint.h>

#include "util/hashmap.h"

/* A frame check's byte: the answer is known, and it is true. */
#define FRAME_KNOWN		1
#define FRAME_OK		2

/* Addresses kept in one set; more are refused (and counted). */
#define REC_MAX_ADDRS		(1u << 20)

/* Zeroed, an empty set. */
struct rec_addrs {
	struct hashmap map;	/* address -> its byte, in the value */
	unsigned char zero;	/* address 0's byte, kept aside */
	uint64_t refused;	/* inserts past REC_MAX_ADDRS or memory */
};

/*
 * @a's byte, or NULL if @a is not in the set (never changes the set).
 * Like rec_addrs_add()'s, the pointer is good until the next insert.
 */
const unsigned char *rec_addrs_find(const struct rec_addrs *s, uint64_t a);

/* @a's byte, added as 0 if new; NULL if the set is full or no memory. */
unsigned char *rec_addrs_add(struct rec_addrs *s, uint64_t a);

/* The byte of an entry met by hashmap_for_each() over @s->map. */
static inline unsigned char rec_addrs_byte(const struct hashmap_entry *e)
{
	return *(const unsigned char *)&e->value;
}

/* How many addresses the set holds, address 0 aside. */
static inline size_t rec_addrs_size(const struct rec_addrs *s)
{
	return hashmap_size(&s->map);
}

void rec_addrs_free(struct rec_addrs *s);

#endif /* ISPOT_RECORDING_ADDRS_H */
