/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A streaming JSON writer: enough for ispotctl's reports, with correct
 * string escaping and commas, and no allocation.
 */
#ifndef ISPOT_JSON_H
#define ISPOT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	16

struct json {
	FILE *f;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *f);
/* @key is NULL at the top level and inside arrays. */
void json_object_begin(struct json *j, const char *key);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_string(struct json *j, const char *key, const char *value);
void json_u64(struct json *j, const char *key, uint64_t value);
void json_i64(struct json *j, const char *key, int64_t value);
void json_double(struct json *j, const char *key, double value);
void json_bool(struct json *j, const char *key, bool value);
/* A figure that cannot be had here: null, not a made-up number. */
void json_null(struct json *j, const char *key);
/* Ends the top-level value with a newline. */
void json_finish(struct json *j);

#endif /* ISPOT_JSON_H */
