// SPDX-License-Identifier: GPL-2.0
/* Protocol Buffers wire format; see protobuf.h. */
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/protobuf.h"

bool pb_room_slow(struct pb_buf *b, size_t n)
{
	if (b->nomem)
		return false;
	if (ARRAY_RESERVE(b->data, b->cap, b->len + n))
		b->nomem = true;
	return !b->nomem;
}

static size_t pb_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void pb_fixed64(struct pb_buf *b, uint32_t field, uint64_t v)
{
	int i;

	pb_key(b, field, PB_FIXED64);
	if (!pb_room(b, 8))
		return;
	for (i = 0; i < 8; i++)
		b->data[b->len++] = (uint8_t)(v >> (8 * i));
}

void pb_bytes(struct pb_buf *b, uint32_t field, const void *p, size_t n)
{
	pb_key(b, field, PB_LEN);
	pb_raw_varint(b, n);
	if (n && pb_room(b, n)) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	}
}

void pb_string(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/*
 * A body's length is a varint before it, so not known until its end: one
 * byte is kept for it, which every body under 128 bytes needs, and a
 * longer one moves up by what its length needs more.
 */
size_t pb_begin(struct pb_buf *b, uint32_t field)
{
	pb_key(b, field, PB_LEN);
	if (pb_room(b, 1))
		b->len++;
	return b->len;
}

void pb_end(struct pb_buf *b, size_t mark)
{
	size_t body, n;

	if (b->nomem)
		return;
	body = b->len - mark;
	if (body < 0x80) {
		b->data[mark - 1] = (uint8_t)body;
		return;
	}
	n = pb_varint_len(body) - 1;
	if (!pb_room(b, n))
		return;
	memmove(b->data + mark + n, b->data + mark, body);
	pb_put_varint(b->data + mark - 1, body);
	b->len += n;
}

size_t pb_append_field(struct pb_buf *dst, uint32_t field,
		       const struct pb_buf *msg)
{
	size_t at = dst->len;

	pb_key(dst, field, PB_LEN);
	pb_raw_varint(dst, msg->len);
	if (msg->len && pb_room(dst, msg->len)) {
		memcpy(dst->data + dst->len, msg->data, msg->len);
		dst->len += msg->len;
	}
	return dst->nomem ? 0 : dst->len - at;
}

void pb_reset(struct pb_buf *b)
{
	b->len = 0;
	b->nomem = false;
}

bool pb_failed(const struct pb_buf *b)
{
	return b->nomem;
}

void pb_free(struct pb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
