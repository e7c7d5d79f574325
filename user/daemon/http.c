// SPDX-License-Identifier: GPL-2.0
/*
 * The server's listening socket and its service loop: bind, accept within
 * the limits, and hand each socket's events and deadlines to its
 * connection (http_conn.c); see http.h.
 */
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http_internal.h"
#include "util/netaddr.h"

/* Connections accepted per http_service(): a flood waits its turn. */
#define HTTP_ACCEPT_BATCH	64
#define HTTP_BACKLOG		64
/*
 * Out of file descriptors (or memory) to accept with, the listening socket
 * stays readable: stop polling it this long rather than spin, and let the
 * backlog wait (a scraper retries; the drain loop must not starve).
 */
#define HTTP_ACCEPT_PAUSE_NS	(1000 * 1000 * 1000ull)

struct http_server *http_server_new(int fd, const char *addr)
{
	struct http_server *s = calloc(1, sizeof(*s));

	if (!s || !(s->addr = strdup(addr))) {
		free(s);
		return NULL;
	}
	s->fd = fd;
	return s;
}

static int http_bind(const struct addrinfo *ai)
{
	int fd, one = 1;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0)
		return -1;
	/* A restart must not wait for the old connections' TIME_WAIT. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) ||
	    listen(fd, HTTP_BACKLOG)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

static void http_bind_error(const char *addr, int err, char *buf, size_t len)
{
	switch (err) {
	case EADDRINUSE:
		snprintf(buf, len, "cannot listen on %s: the port is in use; "
			 "choose another --listen port, or stop what holds it",
			 addr);
		break;
	case EADDRNOTAVAIL:
		snprintf(buf, len, "cannot listen on %s: no interface of this "
			 "host has that address; give 127.0.0.1, or 0.0.0.0 "
			 "for every address", addr);
		break;
	case EACCES:
		snprintf(buf, len, "cannot listen on %s: ports below 1024 "
			 "need CAP_NET_BIND_SERVICE; choose a port from 1024",
			 addr);
		break;
	default:
		snprintf(buf, len, "cannot listen on %s: %s", addr,
			 strerror(err));
	}
}

struct http_server *http_listen(const char *addr, char *err, size_t errlen)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	}, *res, *ai;
	struct http_server *s;
	const char *problem;
	char host[256], port[8];
	uint16_t portnum;
	int ret, fd = -1, bind_err = 0;

	problem = netaddr_split(addr, host, sizeof(host), &portnum);
	if (problem) {
		snprintf(err, errlen, "--listen '%s' %s", addr, problem);
		return NULL;
	}
	snprintf(port, sizeof(port), "%u", portnum);
	/* What looks like an address is one, or wrong: never a DNS query. */
	if (strspn(host, "0123456789.") == strlen(host) || strchr(host, ':'))
		hints.ai_flags |= AI_NUMERICHOST;
	ret = getaddrinfo(host, port, &hints, &res);
	if (ret) {
		snprintf(err, errlen, "cannot listen on %s: '%s' is neither an "
			 "IP address nor a host name this host knows (%s); "
			 "give an address, e.g. 127.0.0.1:%s", addr, host,
			 gai_strerror(ret), port);
		return NULL;
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = http_bind(ai);
		if (fd < 0 && !bind_err)
			bind_err = errno;
	}
	if (fd < 0 && bind_err == EINVAL && netaddr_unscoped_link_local(res)) {
		snprintf(err, errlen, "cannot listen on %s: a link-local "
			 "address needs its interface, e.g. [%s%%eth0]:%s",
			 addr, host, port);
		freeaddrinfo(res);
		return NULL;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		http_bind_error(addr, bind_err, err, errlen);
		return NULL;
	}
	s = http_server_new(fd, addr);
	if (!s) {
		close(fd);
		snprintf(err, errlen, "out of memory listening on %s", addr);
	}
	return s;
}

void http_free(struct http_server *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_conns; i++)
		http_conn_close(&s->conns[i]);
	for (i = 0; i < s->nr_routes; i++) {
		free(s->routes[i].path);
		free(s->routes[i].content_type);
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s->addr);
	free(s);
}

int http_route(struct http_server *s, const char *path,
	       const char *content_type, http_render_fn *fn, void *ctx)
{
	struct http_route *r;

	if (s->nr_routes == HTTP_MAX_ROUTES)
		return -ENOSPC;
	r = &s->routes[s->nr_routes];
	r->path = strdup(path);
	r->content_type = strdup(content_type);
	if (!r->path || !r->content_type) {
		free(r->path);
		free(r->content_type);
		return -ENOMEM;
	}
	r->fn = fn;
	r->ctx = ctx;
	s->nr_routes++;
	return 0;
}

const char *http_addr(const struct http_server *s)
{
	return s->addr;
}

size_t http_nr_conns(const struct http_server *s)
{
	return s->nr_conns;
}

size_t http_pollfds(const struct http_server *s, struct pollfd *pfd)
{
	size_t i, n = 0;

	/* poll() ignores a negative fd: a paused listener wakes no one. */
	pfd[n++] = (struct pollfd){
		.fd = s->accept_paused_until ? -1 : s->fd,
		.events = POLLIN,
	};
	for (i = 0; i < s->nr_conns; i++) {
		const struct http_conn *c = &s->conns[i];

		pfd[n++] = (struct pollfd){
			.fd = c->fd,
			.events = c->state == HTTP_WRITING ? POLLOUT : POLLIN,
		};
	}
	return n;
}

uint64_t http_deadline(const struct http_server *s)
{
	uint64_t next = s->accept_paused_until ? s->accept_paused_until :
						  UINT64_MAX;
	size_t i;

	for (i = 0; i < s->nr_conns; i++)
		if (s->conns[i].deadline < next)
			next = s->conns[i].deadline;
	return next;
}

static struct http_conn *http_find_conn(struct http_server *s, int fd)
{
	size_t i;

	for (i = 0; i < s->nr_conns; i++)
		if (s->conns[i].fd == fd)
			return &s->conns[i];
	return NULL;
}

static void http_accept(struct http_server *s, uint64_t now)
{
	int i;

	for (i = 0; i < HTTP_ACCEPT_BATCH; i++) {
		struct sockaddr_storage sa;
		socklen_t salen = sizeof(sa);
		unsigned char peer[16];
		size_t peer_len;
		int fd = accept4(s->fd, (struct sockaddr *)&sa, &salen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				s->accept_paused_until = now +
							 HTTP_ACCEPT_PAUSE_NS;
			return;
		}
		peer_len = http_peer_of(&sa, peer);
		if (!http_make_room(s, peer, peer_len, now)) {
			http_send_now(fd, 503);
			close(fd);
			continue;
		}
		/* Without memory for its head, it is closed: next one. */
		http_conn_open(s, fd, peer, peer_len, now);
	}
}

void http_service(struct http_server *s, const struct pollfd *pfd, size_t n,
		  uint64_t now)
{
	bool incoming = false;
	size_t i;

	for (i = 0; i < n; i++) {
		struct http_conn *c;

		if (!pfd[i].revents)
			continue;
		if (pfd[i].fd == s->fd) {
			incoming = true;
			continue;
		}
		c = http_find_conn(s, pfd[i].fd);
		if (c)
			http_conn_event(s, c, pfd[i].revents, now);
	}
	for (i = 0; i < s->nr_conns; i++)
		if (s->conns[i].fd >= 0 && now >= s->conns[i].deadline)
			http_conn_expire(&s->conns[i]);
	http_sweep(s);
	if (s->accept_paused_until && now >= s->accept_paused_until) {
		s->accept_paused_until = 0;
		incoming = true;	/* what waited in the backlog */
	}
	if (incoming)
		http_accept(s, now);
}
