// SPDX-License-Identifier: GPL-2.0
/* An HTTP/1.1 response, made and read; see http_response.h. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util/array.h"
#include "wire/http_response.h"

/* What a reader takes at first: any metrics body of a few targets. */
#define HTTP_READER_FIRST	(64 * 1024)

const char *http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	}
	return "Error";
}

char *http_response_make(int status, const char *content_type,
			 const char *body, size_t body_len, bool head_only,
			 size_t *len)
{
	char head[512], date[64];
	struct tm tm;
	time_t t = time(NULL);
	size_t n;
	char *out;

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %d %s\r\n"
		     "Content-Type: %s\r\n"
		     "Content-Length: %zu\r\n"
		     "Date: %s\r\n"
		     "%s"
		     "Connection: close\r\n\r\n",
		     status, http_reason(status), content_type, body_len, date,
		     status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (n >= sizeof(head))
		return NULL;
	if (head_only)
		body_len = 0;
	out = malloc(n + body_len);
	if (!out)
		return NULL;
	memcpy(out, head, n);
	memcpy(out + n, body, body_len);
	*len = n + body_len;
	return out;
}

/*
 * The size at the start of the chunk-size line [p, eol): hex digits, then
 * ';' (an extension), '\r' or the line's end.  Nothing outside the line
 * is read: it need not be followed by a NUL.  0, or -1 if malformed.
 */
static int chunk_size(const char *p, const char *eol, uint64_t *size)
{
	const char *s = p;

	*size = 0;
	for (; s < eol && isxdigit((unsigned char)*s); s++) {
		if (*size >> 60)
			return -1;	/* over 64 bits */
		*size = *size << 4 | (uint64_t)(isdigit((unsigned char)*s) ?
			*s - '0' : (tolower((unsigned char)*s) - 'a' + 10));
	}
	if (s == p)
		return -1;
	return s == eol || *s == ';' || *s == '\r' ? 0 : -1;
}

int http_chunked(char *p, size_t n, bool decode, size_t *len)
{
	size_t in = 0, out = 0;

	for (;;) {
		char *eol = memchr(p + in, '\n', n - in);
		uint64_t size;

		if (!eol)
			return 0;
		if (chunk_size(p + in, eol, &size))
			return -1;
		in = eol - p + 1;
		if (!size)
			break;
		if (size > (1ull << 40))
			return -1;
		if (n - in < size + 2)
			return 0;
		if (decode)
			memmove(p + out, p + in, size);
		out += size;
		in += size;
		if (p[in] == '\r')
			in++;
		if (p[in++] != '\n')
			return -1;
	}
	/* Trailers, up to an empty line. */
	for (;;) {
		char *eol = memchr(p + in, '\n', n - in);

		if (!eol)
			return 0;
		if (eol == p + in || (eol == p + in + 1 && p[in] == '\r'))
			break;
		in = eol - p + 1;
	}
	*len = out;
	return 1;
}

/*
 * A Content-Length's value at @p, up to the line's CR: 1*DIGIT between
 * optional blanks, at most 2^62; -1 otherwise (a sign, a list, garbage).
 */
static long long http_content_length(const char *p)
{
	long long v = 0;
	bool digits = false;

	while (*p == ' ' || *p == '\t')
		p++;
	for (; *p >= '0' && *p <= '9'; p++, digits = true) {
		if (v > ((1ll << 62) - (*p - '0')) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	while (*p == ' ' || *p == '\t')
		p++;
	/* A bare CR is no line end (RFC 9112 2.2): "3\rX" is not 3. */
	return digits && ((p[0] == '\r' && p[1] == '\n') || !*p) ? v : -1;
}

/* Whether @word is in the rest of the line at @p (up to CR LF or NUL). */
static bool http_line_has(const char *p, const char *word)
{
	const char *eol = strstr(p, "\r\n");
	size_t len = eol ? (size_t)(eol - p) : strlen(p);
	const char *hit = strcasestr(p, word);

	return hit && (size_t)(hit - p) + strlen(word) <= len;
}

int http_head_parse(char *buf, size_t n, struct http_head *h)
{
	char *end = memmem(buf, n, "\r\n\r\n", 4), *line;

	if (n >= 5 && memcmp(buf, "HTTP/", 5))
		return -1;
	if (!end)
		return n > HTTP_MAX_RESPONSE_HEAD ? -1 : 0;
	h->size = end - buf + 4;
	h->content_length = -1;
	h->chunked = false;
	*end = '\0';	/* the body starts after it, untouched */
	if (sscanf(buf, "HTTP/1.%*d %3d", &h->status) != 1 ||
	    h->status < 100 || h->status > 999)
		return -1;
	for (line = strstr(buf, "\r\n"); line; line = strstr(line, "\r\n")) {
		line += 2;
		if (!strncasecmp(line, "Content-Length:", 15)) {
			long long cl = http_content_length(line + 15);

			/* Not a number, or two that differ (RFC 9110 8.6). */
			if (cl < 0 || (h->content_length >= 0 &&
				       h->content_length != cl))
				return -2;
			h->content_length = cl;
		} else if (!strncasecmp(line, "Transfer-Encoding:", 18) &&
			   http_line_has(line + 18, "chunked")) {
			h->chunked = true;
		}
	}
	/* Both: a message to refuse (RFC 9112 6.3), not to guess at. */
	if (h->chunked && h->content_length >= 0)
		return -2;
	return 1;
}

void http_response_free(struct http_response *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

static int http_too_large(const struct http_reader *rd, char *err,
			  size_t errlen)
{
	snprintf(err, errlen, "the answer is larger than %zu bytes",
		 rd->max_body);
	return -1;
}

int http_reader_init(struct http_reader *rd, size_t max_body, char *err,
		     size_t errlen)
{
	memset(rd, 0, sizeof(*rd));
	rd->cap = HTTP_READER_FIRST;
	/* Chunk sizes and line ends around the body. */
	rd->limit = HTTP_MAX_RESPONSE_HEAD + max_body + max_body / 8 + 1024;
	rd->max_body = max_body;
	if (ARRAY_RESERVE(rd->buf, rd->alloc, rd->cap + 1)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Room for more, doubling up to the limit (the buffer is cap + 1). */
int http_reader_room(struct http_reader *rd, char *err, size_t errlen)
{
	if (rd->n < rd->cap)
		return 0;
	if (rd->cap >= rd->limit)
		return http_too_large(rd, err, errlen);
	rd->cap = rd->cap * 2 > rd->limit ? rd->limit : rd->cap * 2;
	if (ARRAY_RESERVE(rd->buf, rd->alloc, rd->cap + 1)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Whether the bytes so far complete the answer. */
int http_reader_feed(struct http_reader *rd, size_t got, char *err,
		     size_t errlen)
{
	struct http_head *h = &rd->h;
	int ret;

	rd->n += got;
	if (!rd->head) {
		ret = http_head_parse(rd->buf, rd->n, h);
		if (ret < 0) {
			snprintf(err, errlen, ret == -2 ?
				 "the answer's length is not one number, or "
				 "it is also chunked" :
				 "the answer is not HTTP");
			return -1;
		}
		rd->head = ret;
	}
	if (rd->head && h->content_length >= 0) {
		if ((unsigned long long)h->content_length > rd->max_body)
			return http_too_large(rd, err, errlen);
		rd->done = rd->n - h->size >= (size_t)h->content_length;
		rd->body_len = h->content_length;
	} else if (rd->head && h->chunked) {
		ret = http_chunked(rd->buf + h->size, rd->n - h->size, false,
				   &rd->body_len);
		if (ret < 0) {
			snprintf(err, errlen,
				 "the answer's chunked body is malformed");
			return -1;
		}
		rd->done = ret;
	}
	return 0;
}

int http_reader_finish(struct http_reader *rd, struct http_response *r,
		       char *err, size_t errlen)
{
	const struct http_head *h = &rd->h;

	if (!rd->head) {
		snprintf(err, errlen, rd->n ? "the answer is not HTTP" :
			 "the server closed the connection without answering");
		return -1;
	}
	if (h->content_length >= 0 || h->chunked) {
		if (!rd->done) {
			snprintf(err, errlen, "the answer was cut short");
			return -1;
		}
		if (h->content_length < 0)
			http_chunked(rd->buf + h->size, rd->n - h->size, true,
				     &rd->body_len);
	} else {
		rd->body_len = rd->n - h->size;	/* delimited by the close */
	}
	if (rd->body_len > rd->max_body)
		return http_too_large(rd, err, errlen);
	memmove(rd->buf, rd->buf + h->size, rd->body_len);
	rd->buf[rd->body_len] = '\0';
	r->status = h->status;
	r->body = rd->buf;
	r->len = rd->body_len;
	rd->buf = NULL;
	return 0;
}

void http_reader_free(struct http_reader *rd)
{
	free(rd->buf);
	rd->buf = NULL;
}
