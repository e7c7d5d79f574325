/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An HTTP/1.1 request head, both ways: `ispotctl top --from` writes its
 * GET with http_request_get(), ispotd's server (user/daemon/http.h) reads
 * whatever any local user sends with http_parse_request().  Only what a
 * GET of /metrics needs; a body is never read.
 */
#ifndef ISPOT_WIRE_HTTP_REQUEST_H
#define ISPOT_WIRE_HTTP_REQUEST_H

#include <stddef.h>

/* The longest request head the server reads. */
#define HTTP_MAX_HEAD		8192

/* Where a request head's parts are, in the caller's buffer. */
struct http_request {
	const char *method;
	size_t method_len;
	const char *target;	/* origin form: "/path?query" */
	size_t target_len;
	size_t path_len;	/* of target, up to any '?' */
	int minor;		/* HTTP/1.minor */
	int has_host;
};

/*
 * Parse the request head in @buf[0..@len).  Returns its length when it is
 * complete and well formed (@rq filled), 0 while more may make it so, or
 * -STATUS when nothing can: -400 (malformed, or HTTP/1.1 without Host),
 * -414 (request line longer than HTTP_MAX_HEAD), -431 (head longer than
 * that), -505 (not HTTP/1.x).  A bad request line is found as soon as
 * it is whole, before the headers arrive.  Lines may end in CRLF or LF.
 */
int http_parse_request(const char *buf, size_t len, struct http_request *rq);

/*
 * The head of "GET @path" to @host (an IPv6 address is bracketed) and
 * @port, asking for plain text and a close after the answer, into @buf.
 * Returns its length, or -1 when it does not fit in @len bytes.
 */
int http_request_get(char *buf, size_t len, const char *path,
		     const char *host, const char *port);

#endif /* ISPOT_WIRE_HTTP_REQUEST_H */
