/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The server's state, shared by its three files (http.h): the listener
 * and the service loop (http.c), a connection's states (http_conn.c) and
 * the choice of a connection to give up (http_evict.c).  The fuzz harness
 * selftests/fuzz/http_request.c hands connections in through it too.
 */
#ifndef ISPOTD_HTTP_INTERNAL_H
#define ISPOTD_HTTP_INTERNAL_H

#include <stdbool.h>
#include <sys/socket.h>

#include "http.h"

enum http_state {
	HTTP_READING,		/* the request head */
	HTTP_WRITING,		/* the response */
	HTTP_LINGERING,		/* answered; dropping what still comes */
};

struct http_conn {
	int fd;			/* -1: closed, to be swept */
	enum http_state state;
	uint64_t since;		/* accepted */
	uint64_t deadline;	/* of the current state */
	uint64_t moved;		/* HTTP_WRITING: when its answer last moved */
	char *in;		/* HTTP_MAX_HEAD bytes */
	size_t in_len;
	char *out;
	size_t out_len, out_off;
	/* The peer's address (not its port), for the per-peer share. */
	unsigned char peer[16];
	unsigned char peer_len;
};

struct http_route {
	char *path;
	char *content_type;
	http_render_fn *fn;
	void *ctx;
};

struct http_server {
	int fd;			/* -1: no listener, connections are given */
	char *addr;
	struct http_route routes[HTTP_MAX_ROUTES];
	size_t nr_routes;
	struct http_conn conns[HTTP_MAX_CONNS];
	size_t nr_conns;
	uint64_t accept_paused_until;	/* 0: accepting */
};

/* http.c: a server on @fd (may be -1), answering as @addr; NULL: memory. */
struct http_server *http_server_new(int fd, const char *addr);

/* ---- http_conn.c: one connection's life ---- */

/*
 * Take @fd, a connected socket from @peer (@peer_len bytes, 0: not IP),
 * as the server's next connection, waiting for its request from @now.
 * The caller made room (http_make_room()).  0, or -ENOMEM: @fd is closed.
 */
int http_conn_open(struct http_server *s, int fd, const unsigned char *peer,
		   size_t peer_len, uint64_t now);
void http_conn_close(struct http_conn *c);
/* What poll() said of @c's socket. */
void http_conn_event(struct http_server *s, struct http_conn *c,
		     short revents, uint64_t now);
/* Its deadline passed, or it is given up: 408 if it never asked, close. */
void http_conn_expire(struct http_conn *c);
/* An error answer sent now or never, on the way to a close. */
void http_send_now(int fd, int status);

/* ---- http_evict.c: who gives up a place ---- */

/*
 * Room for a newcomer from @peer at @now: true when there is a place for
 * it, having expired one connection if needed; false if none may go (503).
 */
bool http_make_room(struct http_server *s, const unsigned char *peer,
		    size_t len, uint64_t now);
/* Forget the closed connections, keeping the others in order. */
void http_sweep(struct http_server *s);
/* The address part of @sa, which accept4() filled, into @peer: its size. */
size_t http_peer_of(const struct sockaddr_storage *sa,
		    unsigned char peer[16]);

#endif /* ISPOTD_HTTP_INTERNAL_H */
