/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A strict JSON reader (RFC 8259): what ISPOT reads back of what it
 * wrote, ispotd's window log (ispotctl plot) and, in the unit tests,
 * ispotctl's JSON object.  A stray comma, a bad escape, a NaN, a
 * duplicate key, bytes that are not UTF-8 are errors, never guesses.
 */
#ifndef ISPOT_JSON_READ_H
#define ISPOT_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR,
		 JSON_OBJ };

struct json_value {
	enum json_type t;
	bool b;
	double d;
	bool is_uint;		/* an integer literal that fits a u64 */
	bool is_int;		/* an integer literal that fits an s64 */
	uint64_t u;
	int64_t i;
	char *s;		/* JSON_STR: decoded, NUL-terminated */
	size_t slen;
	size_t n;		/* JSON_ARR and JSON_OBJ */
	struct json_value *items;
	char **keys;		/* JSON_OBJ */
	size_t items_cap, keys_cap;	/* their room (util/array.h) */
};

/*
 * The value that @len bytes of @text are, exactly one; NULL and a reason
 * in *@err ("duplicate key", "out of memory") otherwise.  Nesting is
 * limited to 64 levels.  Free with json_value_free().
 */
struct json_value *json_parse(const char *text, size_t len, const char **err);
void json_value_free(struct json_value *v);

/* Member @key of object @o; NULL if @o is not an object or lacks it. */
const struct json_value *json_get(const struct json_value *o,
				  const char *key);

#endif /* ISPOT_JSON_READ_H */
