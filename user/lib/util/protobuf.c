// SPDX-License-Identifier: GPL-2.0
/* Protocol Buffers wire format; see protobuf.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/protobuf.h"

/* Wire types (the low three bits of a field's key). */
#define PB_VARINT	0
#define PB_FIXED64	1
#define PB_LEN		2

/* A varint is at most ten bytes: seven bits each. */
#define PB_VARINT_MAX	10

static bool pb_room(struct pb_buf *b, size_t n)
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

/* Write @v at @p, which has room for it; returns the bytes written. */
static size_t pb_put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static void pb_raw_varint(struct pb_buf *b, uint64_t v)
{
	if (pb_room(b, PB_VARINT_MAX))
		b->len += pb_put_varint(b->data + b->len, v);
}

static void pb_key(struct pb_buf *b, uint32_t field, unsigned int wire)
{
	pb_raw_varint(b, (uint64_t)field << 3 | wire);
}

void pb_varint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	pb_key(b, field, PB_VARINT);
	pb_raw_varint(b, v);
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

size_t pb_begin(struct pb_buf *b, uint32_t field)
{
	pb_key(b, field, PB_LEN);
	return b->len;
}

void pb_end(struct pb_buf *b, size_t mark)
{
	size_t body, n;

	if (b->nomem)
		return;
	body = b->len - mark;
	n = pb_varint_len(body);
	if (!pb_room(b, n))
		return;
	memmove(b->data + mark + n, b->data + mark, body);
	pb_put_varint(b->data + mark, body);
	b->len += n;
}

ssize_t pb_write_field(FILE *f, uint32_t field, const struct pb_buf *msg)
{
	uint8_t head[2 * PB_VARINT_MAX];
	size_t n;

	n = pb_put_varint(head, (uint64_t)field << 3 | PB_LEN);
	n += pb_put_varint(head + n, msg->len);
	errno = 0;
	if (fwrite(head, 1, n, f) != n ||
	    (msg->len && fwrite(msg->data, 1, msg->len, f) != msg->len))
		return errno ? -errno : -EIO;	/* ENOSPC, not a mystery */
	return (ssize_t)(n + msg->len);
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
