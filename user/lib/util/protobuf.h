/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Protocol Buffers wire format, the little of it a writer needs
 * (https://protobuf.dev/programming-guides/encoding/): varints, fixed64
 * and length-delimited fields, appended to a growing buffer.  Nested
 * messages are written in place: pb_begin() opens one, pb_end() moves its
 * body up by the size of its length and writes the length before it, so
 * every length is the shortest varint, as protobuf's own encoders write.
 *
 * Out of memory is sticky: the buffer then says so (pb_failed()) instead
 * of every call returning an error the caller would have to check.
 */
#ifndef ISPOT_PROTOBUF_H
#define ISPOT_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
	bool nomem;
};

/* A varint is at most ten bytes: seven bits each. */
#define PB_VARINT_MAX	10
/* Wire types (the low three bits of a field's key). */
#define PB_VARINT	0
#define PB_FIXED64	1
#define PB_LEN		2

/*
 * Room for @n more bytes: at once where the buffer has it (in line, for
 * the encoders below, which a trace calls for every field of every
 * packet), else by growing it.
 */
static inline bool pb_room_fast(const struct pb_buf *b, size_t n)
{
	return !b->nomem && b->len + n <= b->cap;
}

bool pb_room_slow(struct pb_buf *b, size_t n);

static inline bool pb_room(struct pb_buf *b, size_t n)
{
	return pb_room_fast(b, n) || pb_room_slow(b, n);
}

/* Write @v at @p, which has room for it; returns the bytes written. */
static inline size_t pb_put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static inline void pb_raw_varint(struct pb_buf *b, uint64_t v)
{
	if (pb_room(b, PB_VARINT_MAX))
		b->len += pb_put_varint(b->data + b->len, v);
}

static inline void pb_key(struct pb_buf *b, uint32_t field,
			  unsigned int wire)
{
	pb_raw_varint(b, (uint64_t)field << 3 | wire);
}

/* An unsigned integer field (uint32, uint64, bool, enum). */
static inline void pb_varint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	pb_key(b, field, PB_VARINT);
	pb_raw_varint(b, v);
}

/* A fixed64 field: eight little-endian bytes. */
void pb_fixed64(struct pb_buf *b, uint32_t field, uint64_t v);
/* A bytes or string field. */
void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n);
void pb_string(struct pb_buf *b, uint32_t field, const char *s);
/*
 * Open an embedded message as field @field; what follows, up to the
 * pb_end() given the returned mark, is its body.  Messages nest.
 */
size_t pb_begin(struct pb_buf *b, uint32_t field);
void pb_end(struct pb_buf *b, size_t mark);

/*
 * Append @msg to @dst as field @field: a stream of them, written out, is
 * a repeated field of the file itself (a Perfetto trace is its packets,
 * field 1, one after the other).  The bytes appended, 0 if @dst ran out
 * of memory.
 */
size_t pb_append_field(struct pb_buf *dst, uint32_t field,
		       const struct pb_buf *msg);
/* Empty the buffer for the next message, keeping its memory. */
void pb_reset(struct pb_buf *b);
/* Whether some append ran out of memory since the last pb_reset(). */
bool pb_failed(const struct pb_buf *b);
void pb_free(struct pb_buf *b);

#endif /* ISPOT_PROTOBUF_H */
