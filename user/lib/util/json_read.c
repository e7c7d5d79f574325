// SPDX-License-Identifier: GPL-2.0
/* A strict JSON reader (RFC 8259); see json_read.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/json_read.h"
#include "util/utf8.h"

struct jparser {
	const char *p, *end;
	const char *err;
	int depth;
};

struct jbuf {
	char *s;
	size_t n, cap;
	bool nomem;	/* a realloc failed: the string is cut */
};

static void jbuf_put(struct jbuf *b, char c)
{
	if (b->nomem)
		return;
	if (ARRAY_RESERVE(b->s, b->cap, b->n + 1)) {
		b->nomem = true;
		return;
	}
	b->s[b->n++] = c;
}

static void jbuf_utf8(struct jbuf *b, uint32_t cp)
{
	if (cp < 0x80) {
		jbuf_put(b, cp);
	} else if (cp < 0x800) {
		jbuf_put(b, 0xc0 | cp >> 6);
		jbuf_put(b, 0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		jbuf_put(b, 0xe0 | cp >> 12);
		jbuf_put(b, 0x80 | ((cp >> 6) & 0x3f));
		jbuf_put(b, 0x80 | (cp & 0x3f));
	} else {
		jbuf_put(b, 0xf0 | cp >> 18);
		jbuf_put(b, 0x80 | ((cp >> 12) & 0x3f));
		jbuf_put(b, 0x80 | ((cp >> 6) & 0x3f));
		jbuf_put(b, 0x80 | (cp & 0x3f));
	}
}

static bool jfail(struct jparser *jp, const char *why)
{
	if (!jp->err)
		jp->err = why;
	return false;
}

static void jws(struct jparser *jp)
{
	while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' ||
				   *jp->p == '\n' || *jp->p == '\r'))
		jp->p++;
}

static bool jhex4(struct jparser *jp, uint32_t *out)
{
	int i;

	*out = 0;
	for (i = 0; i < 4; i++) {
		int c = jp->p < jp->end ? (unsigned char)*jp->p++ : -1;

		if (c < 0 || !isxdigit(c))
			return jfail(jp, "bad \\u escape");
		*out = *out << 4 |
		       (isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	return true;
}

/* One raw multi-byte UTF-8 sequence starting with @c, already consumed. */
static bool jutf8_raw(struct jparser *jp, unsigned char c, struct jbuf *b)
{
	size_t n = utf8_lead_len(c), i;

	if (n < 2)
		return jfail(jp, "invalid UTF-8 lead byte");
	jbuf_put(b, c);
	for (i = 1; i < n; i++) {
		unsigned char k;

		if (jp->p >= jp->end)
			return jfail(jp, "truncated UTF-8");
		k = *jp->p++;
		if (!utf8_cont_ok(c, i, k))
			return jfail(jp, "invalid UTF-8 continuation");
		jbuf_put(b, k);
	}
	return true;
}

/* The characters of a string into @b, up to its closing quote. */
static bool jstring_chars(struct jparser *jp, struct jbuf *b)
{
	if (jp->p >= jp->end || *jp->p != '"')
		return jfail(jp, "expected a string");
	jp->p++;
	for (;;) {
		unsigned char c;
		uint32_t cp, low;

		if (jp->p >= jp->end)
			return jfail(jp, "unterminated string");
		c = *jp->p++;
		if (c == '"')
			break;
		if (c < 0x20)
			return jfail(jp, "raw control character in a string");
		if (c >= 0x80) {
			if (!jutf8_raw(jp, c, b))
				return false;
			continue;
		}
		if (c != '\\') {
			jbuf_put(b, c);
			continue;
		}
		if (jp->p >= jp->end)
			return jfail(jp, "unterminated escape");
		switch (c = *jp->p++) {
		case '"': case '\\': case '/':
			jbuf_put(b, c);
			break;
		case 'b': jbuf_put(b, '\b'); break;
		case 'f': jbuf_put(b, '\f'); break;
		case 'n': jbuf_put(b, '\n'); break;
		case 'r': jbuf_put(b, '\r'); break;
		case 't': jbuf_put(b, '\t'); break;
		case 'u':
			if (!jhex4(jp, &cp))
				return false;
			if (cp >= 0xdc00 && cp < 0xe000)
				return jfail(jp, "lone low surrogate");
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (jp->end - jp->p < 2 || jp->p[0] != '\\' ||
				    jp->p[1] != 'u')
					return jfail(jp, "lone high surrogate");
				jp->p += 2;
				if (!jhex4(jp, &low))
					return false;
				if (low < 0xdc00 || low >= 0xe000)
					return jfail(jp, "bad surrogate pair");
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (low - 0xdc00);
			}
			jbuf_utf8(b, cp);
			break;
		default:
			return jfail(jp, "unknown escape");
		}
	}
	return true;
}

static bool jparse_string(struct jparser *jp, char **out, size_t *len)
{
	struct jbuf b = { 0 };

	if (!jstring_chars(jp, &b) || (jbuf_put(&b, '\0'), b.nomem)) {
		free(b.s);
		return b.nomem ? jfail(jp, "out of memory") : false;
	}
	*len = b.n - 1;
	*out = b.s;
	return true;
}

static bool jparse_number(struct jparser *jp, struct json_value *v)
{
	const char *q = jp->p;
	bool integral = true, neg = false;
	char buf[64];

#define DIGIT(q) ((q) < jp->end && *(q) >= '0' && *(q) <= '9')
	if (q < jp->end && *q == '-') {
		neg = true;
		q++;
	}
	if (!DIGIT(q))
		return jfail(jp, "unexpected character");
	if (*q == '0')
		q++;		/* no leading zeros: "01" stops after the 0 */
	else
		while (DIGIT(q))
			q++;
	if (q < jp->end && *q == '.') {
		integral = false;
		q++;
		if (!DIGIT(q))
			return jfail(jp, "digit expected after '.'");
		while (DIGIT(q))
			q++;
	}
	if (q < jp->end && (*q == 'e' || *q == 'E')) {
		integral = false;
		q++;
		if (q < jp->end && (*q == '+' || *q == '-'))
			q++;
		if (!DIGIT(q))
			return jfail(jp, "digit expected in exponent");
		while (DIGIT(q))
			q++;
	}
#undef DIGIT
	if (q - jp->p >= (long)sizeof(buf))
		return jfail(jp, "number too long");
	memcpy(buf, jp->p, q - jp->p);
	buf[q - jp->p] = '\0';
	jp->p = q;
	v->t = JSON_NUM;
	v->d = strtod(buf, NULL);
	/* "1e999" is inf: no reader of ours wants it (an SVG coordinate). */
	if (!isfinite(v->d))
		return jfail(jp, "number out of range");
	if (!integral)
		return true;
	errno = 0;
	if (neg) {
		v->i = strtoll(buf, NULL, 10);
		v->is_int = errno == 0;
	} else {
		v->u = strtoull(buf, NULL, 10);
		v->is_uint = errno == 0;
		v->is_int = v->is_uint && v->u <= INT64_MAX;
		v->i = (int64_t)v->u;
	}
	return true;
}

static bool jparse_value(struct jparser *jp, struct json_value *v);

/* What @v holds, not @v itself; @v is then null. */
static void json_value_clear(struct json_value *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		json_value_clear(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

void json_value_free(struct json_value *v)
{
	if (!v)
		return;
	json_value_clear(v);
	free(v);
}

/* Add @item (and @key) to @v, which then owns them; false without memory. */
static bool jappend(struct json_value *v, const struct json_value *item,
		    char *key)
{
	if (ARRAY_RESERVE(v->items, v->items_cap, v->n + 1))
		return false;
	if (v->t == JSON_OBJ) {
		if (ARRAY_RESERVE(v->keys, v->keys_cap, v->n + 1))
			return false;
		v->keys[v->n] = key;
	}
	v->items[v->n++] = *item;
	return true;
}

/* Arrays and objects: the same loop, objects add "key": before a value. */
static bool jparse_container(struct jparser *jp, struct json_value *v)
{
	char close = *jp->p == '{' ? '}' : ']';

	v->t = close == '}' ? JSON_OBJ : JSON_ARR;
	jp->p++;
	if (++jp->depth > 64)
		return jfail(jp, "nested too deep");
	jws(jp);
	if (jp->p < jp->end && *jp->p == close) {
		jp->p++;
		jp->depth--;
		return true;
	}
	for (;;) {
		char *key = NULL;
		struct json_value item;
		size_t klen, i;

		if (v->t == JSON_OBJ) {
			jws(jp);
			if (!jparse_string(jp, &key, &klen))
				return false;
			for (i = 0; i < v->n; i++)
				if (!strcmp(v->keys[i], key))
					break;
			jws(jp);
			if (i < v->n || jp->p >= jp->end || *jp->p != ':') {
				free(key);
				return jfail(jp, i < v->n ? "duplicate key" :
					     "expected ':'");
			}
			jp->p++;
		}
		if (!jparse_value(jp, &item)) {
			json_value_clear(&item);
			free(key);
			return false;
		}
		if (!jappend(v, &item, key)) {
			json_value_clear(&item);
			free(key);
			return jfail(jp, "out of memory");
		}
		jws(jp);
		if (jp->p >= jp->end)
			return jfail(jp, "unterminated array or object");
		if (*jp->p == ',') {
			jp->p++;
			continue;
		}
		if (*jp->p++ != close)
			return jfail(jp, "expected ',' or a closing bracket");
		break;
	}
	jp->depth--;
	return true;
}

static bool jliteral(struct jparser *jp, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(jp->end - jp->p) < n || memcmp(jp->p, word, n))
		return jfail(jp, "unexpected character");
	jp->p += n;
	return true;
}

static bool jparse_value(struct jparser *jp, struct json_value *v)
{
	memset(v, 0, sizeof(*v));
	jws(jp);
	if (jp->p >= jp->end)
		return jfail(jp, "unexpected end");
	switch (*jp->p) {
	case '{':
	case '[':
		return jparse_container(jp, v);
	case '"':
		v->t = JSON_STR;
		return jparse_string(jp, &v->s, &v->slen);
	case 't':
		v->t = JSON_BOOL;
		v->b = true;
		return jliteral(jp, "true");
	case 'f':
		v->t = JSON_BOOL;
		return jliteral(jp, "false");
	case 'n':
		v->t = JSON_NULL;
		return jliteral(jp, "null");
	default:
		return jparse_number(jp, v);
	}
}

struct json_value *json_parse(const char *text, size_t len, const char **err)
{
	struct jparser jp = { text, text + len, NULL, 0 };
	struct json_value *v = malloc(sizeof(*v));

	if (!v) {
		*err = "out of memory";
		return NULL;
	}
	if (jparse_value(&jp, v)) {
		jws(&jp);
		if (jp.p == jp.end)
			return v;
		jfail(&jp, "trailing garbage");
	}
	json_value_free(v);
	*err = jp.err;
	return NULL;
}

const struct json_value *json_get(const struct json_value *o,
				  const char *key)
{
	size_t i;

	if (!o || o->t != JSON_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->items[i];
	return NULL;
}
