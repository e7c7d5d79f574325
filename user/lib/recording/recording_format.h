/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The layout of a recording's sections, shared by its writer and its
 * reader (recording_write.c, recording_read.c): the fields of META and
 * STATS that are plain integers and strings, in file order, each named
 * by where it lives in struct recording_file, and each event's payload.
 * The writer fills a struct recording_file as the reader will, then both
 * walk the same tables: one description, so the two cannot drift apart.
 */
#ifndef ISPOT_RECORDING_FORMAT_H
#define ISPOT_RECORDING_FORMAT_H

#include <stddef.h>
#include <stdint.h>

enum rec_field_kind {
	REC_INT,	/* an unsigned integer of @bytes, little-endian */
	REC_BOOL,	/* the same, any value but 0 read as true */
	REC_STR,	/* a u32 length and its bytes, into a char[@size] */
};

struct rec_field {
	size_t off;		/* in struct recording_file */
	size_t size;		/* there */
	uint8_t bytes;		/* in the file (REC_INT, REC_BOOL) */
	uint8_t kind;		/* enum rec_field_kind */
};

struct rec_fields {
	const struct rec_field *f;
	size_t n;
};

/* META up to its counters, and STATS, whole. */
extern const struct rec_fields rec_meta_fields, rec_stats_fields;

/* An integer field of @rf, or one to set (REC_BOOL: to @v != 0). */
uint64_t rec_field_get(const void *rf, const struct rec_field *f);
void rec_field_set(void *rf, const struct rec_field *f, uint64_t v);

/* The bytes of an input's tid, a and b in its event (0: not there). */
struct rec_payload {
	uint8_t tid, a, b;
};

/*
 * How an event of @type (source.h) carries its input, for every type but
 * INPUT_RECORD (the record's slots); all 0 for a type not known.
 */
struct rec_payload rec_payload(uint8_t type);

#endif /* ISPOT_RECORDING_FORMAT_H */
