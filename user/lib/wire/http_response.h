/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An HTTP/1.1 response, both ways: ispotd's server (user/daemon/http.h)
 * makes one whole with http_response_make(); `ispotctl top --from`
 * (user/ctl/top/http_get.h) reads one from a server that may be anyone's,
 * through a struct http_reader fed the bytes as they arrive: the status
 * line and headers, then a body delimited by Content-Length, chunked
 * transfer coding or the server's close, within a size bound.
 *
 * Nothing here touches a socket: the caller receives, the reader judges.
 */
#ifndef ISPOT_WIRE_HTTP_RESPONSE_H
#define ISPOT_WIRE_HTTP_RESPONSE_H

#include <stdbool.h>
#include <stddef.h>

/* Status line and headers; a metrics endpoint sends a few hundred bytes. */
#define HTTP_MAX_RESPONSE_HEAD	(16 * 1024)

/* "OK", "Not Found"...: the reason phrase of the statuses ispotd sends. */
const char *http_reason(int status);

/*
 * The whole response in one buffer of *@len bytes (free() it): a head
 * saying "Connection: close", then @body unless @head_only (HEAD keeps the
 * Content-Length GET would have).  NULL without memory.
 */
char *http_response_make(int status, const char *content_type,
			 const char *body, size_t body_len, bool head_only,
			 size_t *len);

/* What a response head says. */
struct http_head {
	size_t size;		/* bytes up to and with the empty line */
	int status;
	long long content_length;	/* -1: none */
	bool chunked;
};

/*
 * The head at @buf (@n bytes received; the byte of its last CRLF is
 * overwritten with a NUL).  1 parsed, 0 incomplete, -1 not HTTP, -2 a
 * Content-Length that is not one number of digits, or one beside a
 * chunked Transfer-Encoding.
 */
int http_head_parse(char *buf, size_t n, struct http_head *h);

/*
 * The chunked body at @p (@n bytes received): 1 complete (decoded in place
 * when @decode, its length in @len), 0 more to come, -1 malformed.
 * Nothing past @p[@n - 1] is read.
 */
int http_chunked(char *p, size_t n, bool decode, size_t *len);

struct http_response {
	int status;		/* 200, 404... */
	char *body;		/* body[len] is a writable NUL */
	size_t len;
};

void http_response_free(struct http_response *r);

/*
 * A response being read: the bytes so far and what they say.  The caller
 * puts what arrives at buf + n, at most cap - n bytes (room made by
 * http_reader_room()), and tells http_reader_feed() how many came, until
 * done or the server's close; http_reader_finish() then gives the body.
 */
struct http_reader {
	char *buf;		/* alloc bytes, at least cap + 1 */
	size_t alloc, cap, n, limit, max_body, body_len;
	struct http_head h;
	bool head, done;
};

/*
 * Each returns 0, or -1 with why in @err, a phrase that fits after
 * "cannot read X: " ("the answer is not HTTP", "the answer is larger
 * than N bytes", ...).  http_reader_free() is right after any of them.
 */
int http_reader_init(struct http_reader *rd, size_t max_body, char *err,
		     size_t errlen);
int http_reader_room(struct http_reader *rd, char *err, size_t errlen);
/* @got bytes more arrived; 0 is the server's close. */
int http_reader_feed(struct http_reader *rd, size_t got, char *err,
		     size_t errlen);
/* The body of the complete answer into @r: the buffer becomes its own. */
int http_reader_finish(struct http_reader *rd, struct http_response *r,
		       char *err, size_t errlen);
void http_reader_free(struct http_reader *rd);

#endif /* ISPOT_WIRE_HTTP_RESPONSE_H */
