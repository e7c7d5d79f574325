/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP/1.1 server that lives inside a caller's poll loop: one
 * listening socket and a bounded set of connections, all non-blocking,
 * so a slow, silent or malformed client costs the loop one poll slot and
 * never a wait.  It serves GET and HEAD on a few fixed paths, each
 * rendered afresh per request into memory (ispotd's /metrics).
 *
 * One request per connection: every response says "Connection: close".
 * A scraper every 15 s gains nothing from keep-alive, and the state per
 * connection stays one head buffer and one response.
 *
 * Limits, each with its answer:
 *  - a request head over HTTP_MAX_HEAD: 414 (no end to the request
 *    line) or 431 (headers), then close;
 *  - a head not complete in HTTP_TIMEOUT_NS: 408, close;
 *  - a response not taken in HTTP_TIMEOUT_NS: close;
 *  - HTTP_MAX_CONNS connections open: one is given up for the newcomer,
 *    first one already answered (lingering), then one that has sent
 *    nothing, then one halfway through its request (408), then one whose
 *    client has taken nothing of its answer for HTTP_STALL_NS, from the
 *    peer address holding the most connections, oldest first; if every
 *    one is being answered and taken, the newcomer gets 503;
 *  - a peer address with HTTP_MAX_PER_PEER connections open gives up one
 *    of its own the same way, so a flood from one address evicts itself
 *    before anyone else (all local clients share 127.0.0.1: there the
 *    order above is what lets a scraper in).
 *
 * The loop's side:
 *
 *	n = http_pollfds(srv, pfd + k);	// at most HTTP_MAX_POLLFDS
 *	timeout = min(timeout, http_deadline(srv) - now);
 *	poll(...);
 *	http_service(srv, pfd + k, n, now);	// also after a timeout
 *
 * The request head is read by wire/http_request.h (HTTP_MAX_HEAD, the
 * statuses of a bad one), the answer made by wire/http_response.h; here
 * are the sockets: the listener and http_service() (http.c), each
 * connection's states (http_conn.c) and who gives up a place (http_evict.c).
 */
#ifndef ISPOTD_HTTP_H
#define ISPOTD_HTTP_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wire/http_request.h"

#define HTTP_MAX_CONNS		64
#define HTTP_MAX_PER_PEER	(HTTP_MAX_CONNS / 2)
#define HTTP_MAX_POLLFDS	(1 + HTTP_MAX_CONNS)
#define HTTP_TIMEOUT_NS		(5 * 1000000000ull)
/* After an answer, what the client still sends is read and dropped this
 * long, so that closing on unread data (a RST) cannot destroy the answer
 * before the client read it (nginx's lingering close). */
#define HTTP_LINGER_NS		(2 * 1000000000ull)
/* An answer its client has taken nothing of for this long may be given
 * up for a newcomer (a scrape's answer leaves in a few milliseconds). */
#define HTTP_STALL_NS		(1000000000ull)
#define HTTP_MAX_ROUTES		4

/* Writes a response body to @body; returns 0, or -1 for a 500. */
typedef int http_render_fn(void *ctx, FILE *body);

struct http_server;

/*
 * Bind and listen on @addr ("127.0.0.1:9464", "[::1]:9464",
 * "localhost:9464"; a host name is resolved now, and the first address
 * that binds is used).  Returns NULL with one line in @err naming the
 * address and what to do.
 */
struct http_server *http_listen(const char *addr, char *err, size_t errlen);
void http_free(struct http_server *s);

/* Serve GET/HEAD @path (ignoring any query) with @fn's output. */
int http_route(struct http_server *s, const char *path,
	       const char *content_type, http_render_fn *fn, void *ctx);

/* The address as given to http_listen(). */
const char *http_addr(const struct http_server *s);

/* Fill @pfd (room for HTTP_MAX_POLLFDS); returns how many. */
size_t http_pollfds(const struct http_server *s, struct pollfd *pfd);

/* When http_service() next has a timeout to act on; UINT64_MAX if none. */
uint64_t http_deadline(const struct http_server *s);

/*
 * Act on @pfd (what http_pollfds() filled, after poll) and on the
 * deadlines that passed by @now (CLOCK_MONOTONIC ns).  Never blocks.
 */
void http_service(struct http_server *s, const struct pollfd *pfd, size_t n,
		  uint64_t now);

/* Connections open now, for tests and status. */
size_t http_nr_conns(const struct http_server *s);

#endif /* ISPOTD_HTTP_H */
