// SPDX-License-Identifier: GPL-2.0
/* Streaming JSON writer; see json.h. */
#include <math.h>
#include <inttypes.h>

#include "util/json.h"
#include "util/utf8.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = false;
}

/* A string, escaped; a byte that is not UTF-8 is U+FFFD (utf8.h). */
static void json_escaped(FILE *f, const char *s)
{
	size_t n;

	fputc('"', f);
	for (; *s; s += n ? n : 1) {
		unsigned char c = (unsigned char)*s;

		n = utf8_valid(s);
		if (!n) {
			fputs(UTF8_REPLACEMENT, f);
			continue;
		}
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fwrite(s, 1, n, f);
		}
	}
	fputc('"', f);
}

/* Comma and key before a value at the current depth. */
static void json_key(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputs(", ", j->f);
	j->need_comma[j->depth] = true;
	if (key) {
		json_escaped(j->f, key);
		fputs(": ", j->f);
	}
}

static void json_open(struct json *j, const char *key, char c)
{
	json_key(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

void json_object_begin(struct json *j, const char *key)
{
	json_open(j, key, '{');
}

void json_object_end(struct json *j)
{
	fputc('}', j->f);
	if (j->depth)
		j->depth--;
}

void json_array_begin(struct json *j, const char *key)
{
	json_open(j, key, '[');
}

void json_array_end(struct json *j)
{
	fputc(']', j->f);
	if (j->depth)
		j->depth--;
}

void json_string(struct json *j, const char *key, const char *value)
{
	json_key(j, key);
	json_escaped(j->f, value ? value : "");
}

void json_u64(struct json *j, const char *key, uint64_t value)
{
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, value);
}

void json_i64(struct json *j, const char *key, int64_t value)
{
	json_key(j, key);
	fprintf(j->f, "%" PRId64, value);
}

/* JSON has no NaN or infinity: write null for them. */
void json_double(struct json *j, const char *key, double value)
{
	json_key(j, key);
	if (isfinite(value))
		fprintf(j->f, "%.6g", value);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool value)
{
	json_key(j, key);
	fputs(value ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	json_key(j, key);
	fputs("null", j->f);
}

void json_finish(struct json *j)
{
	fputc('\n', j->f);
}
