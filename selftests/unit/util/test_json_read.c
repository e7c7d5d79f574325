// SPDX-License-Identifier: GPL-2.0
/*
 * The strict JSON reader (util/json_read.c): what it takes, what not; and
 * what the writer (util/json.c) writes of names that are not UTF-8.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ispot_test.h"
#include "util/json.h"
#include "util/json_read.h"

TEST(json_parser_is_strict)
{
	static const char *const good[] = {
		"{}", "[]", " [1, -2, 3.5e-3, 0, -0.0, 1E+2] ",
		"{\"a\": {\"b\": [true, false, null, "
		"\"\\u00e9\\ud83d\\ude00\"]}}",
		"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"caf\xc3\xa9\"",
	};
	static const char *const bad[] = {
		"", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a: 1}", "[01]",
		"[1.]", "[.5]", "[1e]", "[+1]", "[NaN]", "[nan]", "[inf]",
		"\"\\x41\"", "\"\\u12G4\"", "\"\\ud83d\"", "\"tab\there\"",
		"\"abc", "{} {}", "[1] x", "{\"a\":1,\"a\":2}", "[tru]",
		"\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"",
	};
	const char *err, *p;
	struct json_value *v;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		err = NULL;
		v = json_parse(good[i], strlen(good[i]), &err);
		if (!v)
			TH_LOG("rejected %s: %s", good[i], err);
		EXPECT_TRUE(v);
		json_value_free(v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = json_parse(bad[i], strlen(bad[i]), &err);
		if (v)
			TH_LOG("accepted %s", bad[i]);
		EXPECT_FALSE(v);
	}
	p = "[18446744073709551615, -9223372036854775808, 1.5]";
	v = json_parse(p, strlen(p), &err);
	ASSERT_TRUE(v);
	ASSERT_EQ(v->n, 3);
	EXPECT_TRUE(v->items[0].is_uint);
	EXPECT_TRUE(v->items[0].u == UINT64_MAX);
	EXPECT_TRUE(v->items[1].is_int && v->items[1].i == INT64_MIN);
	EXPECT_FALSE(v->items[2].is_uint || v->items[2].is_int);
	json_value_free(v);
	p = "\"\\ud83d\\ude00\"";
	v = json_parse(p, strlen(p), &err);
	ASSERT_TRUE(v);
	EXPECT_STREQ(v->s, "\xf0\x9f\x98\x80");
	json_value_free(v);
}

/*
 * Numbers past a double's range would read as inf (strtod): refused, so
 * inf or nan never reaches a reader (an SVG coordinate, a score).
 */
TEST(non_finite_numbers_are_refused)
{
	static const char *const bad[] = {
		"[1e999]", "[-1e999]", "{\"sci\": 1E+400}", "[0, 2.5e308]",
	};
	const char *err, *p;
	struct json_value *v;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = NULL;
		v = json_parse(bad[i], strlen(bad[i]), &err);
		if (v)
			TH_LOG("accepted %s", bad[i]);
		EXPECT_FALSE(v);
		EXPECT_TRUE(err && strstr(err, "number out of range"));
		json_value_free(v);
	}
	/* The largest finite ones, and underflow to 0, are numbers. */
	p = "[1.7976931348623157e308, 1e-400]";
	v = json_parse(p, strlen(p), &err);
	ASSERT_TRUE(v);
	EXPECT_TRUE(v->items[0].d > 1e308 && v->items[1].d == 0);
	json_value_free(v);
}

TEST(trees_are_freed_whole_even_after_an_error)
{
	static const char *const texts[] = {
		"{\"a\": [1, {\"b\": \"x\"}, [true]], \"c\": \"d\"}",
		"{\"a\": [1, {\"b\": \"x\"}, [tru]]}",
		"{\"a\": \"x\", \"a\": \"y\"}",
		"[\"abc\", {\"k\": \"\\ud83d\"}]",
	};
	const char *err = NULL;
	struct json_value *v;
	size_t i;

	/* Under valgrind or ASan, a leak here is a failure of the run. */
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		v = json_parse(texts[i], strlen(texts[i]), &err);
		EXPECT_EQ(!!v, i == 0);
		json_value_free(v);
	}
	v = json_parse(texts[0], strlen(texts[0]), &err);
	ASSERT_TRUE(v);
	EXPECT_STREQ(json_get(v, "c")->s, "d");
	EXPECT_EQ(json_get(v, "a")->n, 3);
	EXPECT_TRUE(!json_get(v, "z"));
	EXPECT_TRUE(!json_get(json_get(v, "a"), "b"));
	json_value_free(v);
}

/*
 * Names any user writes (a file's, a symbol's) in a report: each byte
 * that starts no UTF-8 sequence is written as U+FFFD, the rest as it is,
 * so that the strict reader (as any strict parser) takes the report.
 */
TEST(names_written_as_utf8)
{
	static const char name[] = "x\xff\xe2\x82 \xed\xa0\x80 caf\xc3\xa9 "
				   "\xf0\x9f\x94\x92\t\xc0\xaf";
	static const char want[] = "x\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
				   "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
				   "caf\xc3\xa9 \xf0\x9f\x94\x92\t"
				   "\xef\xbf\xbd\xef\xbf\xbd";
	const struct json_value *got;
	struct json_value *v;
	const char *err = NULL;
	char *text = NULL;
	size_t len = 0;
	struct json j;
	FILE *f = open_memstream(&text, &len);

	ASSERT_TRUE(f);
	json_init(&j, f);
	json_object_begin(&j, NULL);
	json_string(&j, name, name);
	json_object_end(&j);
	fclose(f);
	v = json_parse(text, len, &err);
	if (!v)
		TH_LOG("%s: %s", text, err);
	ASSERT_TRUE(v);
	got = json_get(v, want);
	ASSERT_TRUE(got);
	ASSERT_EQ(got->t, JSON_STR);
	EXPECT_STREQ(got->s, want);
	json_value_free(v);
	free(text);
}

TEST_HARNESS_MAIN
