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
#include <stdio.h>
#include <sys/types.h>

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
	bool nomem;
};

/* An unsigned integer field (uint32, uint64, bool, enum). */
void pb_varint(struct pb_buf *b, uint32_t field, uint64_t v);
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
 * Write @msg to @f as field @field of an enclosing message that is the
 * file itself: a stream of them is a repeated field (a Perfetto trace is
 * its packets, field 1, one after the other).  The bytes written (the
 * field's head and @msg), or the write's -errno (-EIO if it set none;
 * see ferror()).
 */
ssize_t pb_write_field(FILE *f, uint32_t field, const struct pb_buf *msg);

/* Empty the buffer for the next message, keeping its memory. */
void pb_reset(struct pb_buf *b);
/* Whether some append ran out of memory since the last pb_reset(). */
bool pb_failed(const struct pb_buf *b);
void pb_free(struct pb_buf *b);

#endif /* ISPOT_PROTOBUF_H */
