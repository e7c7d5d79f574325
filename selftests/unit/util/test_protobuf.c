// SPDX-License-Identifier: GPL-2.0
/*
 * The protobuf encoder (util/protobuf.h) the Perfetto writer builds its
 * packets with, against the examples of protobuf's encoding guide and
 * the lengths of nested messages at their one-byte and two-byte edges.
 */
#include "ispot_test.h"
#include "util/protobuf.h"

static void expect_bytes(const struct pb_buf *b, const uint8_t *want,
			 size_t n)
{
	ASSERT_FALSE(pb_failed(b));
	ASSERT_EQ(b->len, n);
	ASSERT_EQ(memcmp(b->data, want, n), 0);
}

TEST(encoder_varint_string_nested_fixed64)
{
	static const uint8_t varint[] = { 0x08, 0x96, 0x01 };
	static const uint8_t str[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i',
				       'n', 'g' };
	static const uint8_t nested[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
	static const uint8_t fixed[] = { 0x21, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct pb_buf b = { 0 };
	size_t m;

	pb_varint(&b, 1, 150);
	expect_bytes(&b, varint, sizeof(varint));
	pb_reset(&b);
	pb_string(&b, 2, "testing");
	expect_bytes(&b, str, sizeof(str));
	pb_reset(&b);
	m = pb_begin(&b, 3);
	pb_varint(&b, 1, 150);
	pb_end(&b, m);
	expect_bytes(&b, nested, sizeof(nested));
	pb_reset(&b);
	pb_fixed64(&b, 4, 0x0807060504030201ull);
	expect_bytes(&b, fixed, sizeof(fixed));
	pb_free(&b);
}

/* A message appended as a field: its head and body, their bytes counted. */
TEST(encoder_append_field_counts_its_bytes)
{
	static const uint8_t want[] = { 0x0a, 0x03, 0x08, 0x96, 0x01 };
	struct pb_buf b = { 0 }, out = { 0 };

	pb_varint(&b, 1, 150);
	EXPECT_EQ(pb_append_field(&out, 1, &b), sizeof(want));
	expect_bytes(&out, want, sizeof(want));
	pb_varint(&b, 2, 1);
	EXPECT_EQ(pb_append_field(&out, 1, &b), sizeof(want) + 2);
	ASSERT_EQ(out.len, 2 * sizeof(want) + 2);
	EXPECT_EQ(memcmp(out.data + sizeof(want),
			 "\x0a\x05\x08\x96\x01\x10\x01", 7), 0);
	pb_free(&b);
	pb_free(&out);
}

/* A body of 202 bytes needs a two-byte length: the body moves up. */
TEST(encoder_long_nested_length)
{
	struct pb_buf b = { 0 };
	char s[198];
	size_t m;

	memset(s, 'x', sizeof(s) - 1);
	s[sizeof(s) - 1] = 0;
	m = pb_begin(&b, 1);
	pb_string(&b, 2, s);		/* 1 + 2 + 197 = 200 bytes */
	pb_varint(&b, 3, 1);		/* and 2: 202 */
	pb_end(&b, m);
	ASSERT_FALSE(pb_failed(&b));
	ASSERT_EQ(b.len, 1 + 2 + 202);
	ASSERT_EQ(b.data[1], 0xca);	/* 202: 0x4a | 0x80, then 1 */
	ASSERT_EQ(b.data[2], 0x01);
	ASSERT_EQ(b.data[3], 0x12);
	ASSERT_EQ(b.data[4], 0xc5);	/* 197 */
	ASSERT_EQ(b.data[6 + 197], 0x18);
	pb_free(&b);
}

/*
 * A body's length takes the one byte kept for it up to 127 bytes, two
 * from 128: the body moves up by one there, and not before.
 */
TEST(encoder_nested_length_at_one_byte_and_two)
{
	struct pb_buf b = { 0 };
	char s[130];
	size_t m, body;

	for (body = 126; body <= 129; body++) {
		/* A string of body - 2 bytes: its key and length, 2 more. */
		memset(s, 'y', body - 2);
		s[body - 2] = 0;
		pb_reset(&b);
		m = pb_begin(&b, 1);
		pb_string(&b, 2, s);
		pb_end(&b, m);
		ASSERT_FALSE(pb_failed(&b));
		ASSERT_EQ(b.len, 1 + (body < 128 ? 1 : 2) + body);
		if (body < 128) {
			EXPECT_EQ(b.data[1], body);
			EXPECT_EQ(b.data[2], 0x12);
		} else {
			EXPECT_EQ(b.data[1], 0x80 | (body & 0x7f));
			EXPECT_EQ(b.data[2], 1);
			EXPECT_EQ(b.data[3], 0x12);
			EXPECT_EQ(b.data[b.len - 1], 'y');
		}
	}
	pb_free(&b);
}

TEST_HARNESS_MAIN
