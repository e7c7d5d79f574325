/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The smallest HTTP/1.1 client that reads a Prometheus endpoint: one GET
 * per connection ("Connection: close"), a body delimited by
 * Content-Length, chunked transfer coding or the server's close, all of it
 * within a deadline and a size bound, so a stuck or hostile server can
 * neither hang nor swell its caller.  libc only; IPv4 and IPv6.  The
 * request and the response are read and written by the wire units
 * (wire/http_request.h, wire/http_response.h); this is the socket's side.
 */
#ifndef ISPOT_HTTP_GET_H
#define ISPOT_HTTP_GET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/http_response.h"

struct http_addr {
	char host[256];		/* without the brackets of "[::1]" */
	char port[8];
};

/*
 * "127.0.0.1:9464", "localhost:9464", "[::1]:9464" into @a.  Checks the
 * form only (a port from 1 to 65535 after the last ':'); names are
 * resolved by http_get().  Returns false with why in @err.
 */
bool http_addr_parse(const char *spec, struct http_addr *a, char *err,
		     size_t errlen);

/*
 * GET @path from @a within @timeout_ms, a body of at most @max_body
 * bytes.  Returns 0 whatever the status, or -1 with a phrase in @err that
 * fits after "cannot read X: " ("connection refused", "no answer within
 * 2.0s", "the answer is not HTTP", ...).  http_response_free() frees @r.
 */
int http_get(const struct http_addr *a, const char *path, int timeout_ms,
	     size_t max_body, struct http_response *r, char *err,
	     size_t errlen);

/*
 * The answer to a request sent on @fd, read by @deadline (CLOCK_MONOTONIC
 * ms): what http_get() does once its request is sent.  Returns as it.
 */
int http_read(int fd, uint64_t deadline, size_t max_body,
	      struct http_response *r, char *err, size_t errlen);

#endif /* ISPOT_HTTP_GET_H */
