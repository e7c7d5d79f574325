// SPDX-License-Identifier: GPL-2.0
/*
 * One connection of the server, from accepted to closed (http.h): reading
 * the request head, writing the answer, lingering after it; never a
 * blocking call, each step taken when poll() says the socket is ready.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http_internal.h"
#include "wire/http_response.h"

/* Bytes read and dropped per lingering connection per http_service(). */
#define HTTP_LINGER_BATCH	(64 * 1024)

int http_conn_open(struct http_server *s, int fd, const unsigned char *peer,
		   size_t peer_len, uint64_t now)
{
	struct http_conn *c = &s->conns[s->nr_conns];

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	memcpy(c->peer, peer, peer_len);
	c->peer_len = peer_len;
	c->in = malloc(HTTP_MAX_HEAD);
	if (!c->in) {
		http_conn_close(c);
		return -ENOMEM;
	}
	c->state = HTTP_READING;
	c->since = now;
	c->deadline = now + HTTP_TIMEOUT_NS;
	s->nr_conns++;
	return 0;
}

void http_conn_close(struct http_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* What each error says, in one line a person can act on. */
static const char *http_error_body(int status)
{
	switch (status) {
	case 400: return "bad request: send 'GET /metrics HTTP/1.1' with a "
			 "Host header\n";
	case 405: return "method not allowed: only GET and HEAD\n";
	case 408: return "request timeout: send the whole request at once\n";
	case 414: return "request line too long\n";
	case 431: return "request headers too long\n";
	case 500: return "internal error: the response could not be made; "
			 "see the daemon's log\n";
	case 503: return "busy: too many connections; retry\n";
	case 505: return "only HTTP/1.0 and HTTP/1.1\n";
	}
	return "error\n";
}

void http_send_now(int fd, int status)
{
	const char *body = http_error_body(status);
	size_t len;
	char *out = http_response_make(status, "text/plain; charset=utf-8",
				       body, strlen(body), false, &len);

	if (out && send(fd, out, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		errno = 0;	/* nothing more to do for that client */
	free(out);
}

static void http_conn_write(struct http_conn *c, uint64_t now)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			c->out_off += n;
			c->moved = now;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else {
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
				http_conn_close(c);
			return;
		}
	}
	free(c->out);
	c->out = NULL;
	shutdown(c->fd, SHUT_WR);
	c->state = HTTP_LINGERING;
	c->deadline = now + HTTP_LINGER_NS;
}

static void http_conn_respond(struct http_conn *c, int status,
			      const char *content_type, const char *body,
			      size_t body_len, bool head_only, uint64_t now)
{
	c->out = http_response_make(status, content_type, body, body_len,
				    head_only, &c->out_len);
	if (!c->out) {
		http_conn_close(c);
		return;
	}
	c->out_off = 0;
	c->state = HTTP_WRITING;
	c->deadline = now + HTTP_TIMEOUT_NS;
	c->moved = now;
	http_conn_write(c, now);
}

static void http_conn_error(struct http_conn *c, int status, uint64_t now)
{
	const char *body = http_error_body(status);

	http_conn_respond(c, status, "text/plain; charset=utf-8", body,
			  strlen(body), false, now);
}

static const struct http_route *http_find_route(const struct http_server *s,
						const struct http_request *rq)
{
	size_t i;

	for (i = 0; i < s->nr_routes; i++)
		if (strlen(s->routes[i].path) == rq->path_len &&
		    !memcmp(s->routes[i].path, rq->target, rq->path_len))
			return &s->routes[i];
	return NULL;
}

static void http_conn_answer(struct http_server *s, struct http_conn *c,
			     const struct http_request *rq, uint64_t now)
{
	bool head = rq->method_len == 4 && !memcmp(rq->method, "HEAD", 4);
	const struct http_route *r;
	char *body = NULL, msg[128];
	size_t len = 0;
	int failed;
	FILE *f;

	if (!head && !(rq->method_len == 3 && !memcmp(rq->method, "GET", 3))) {
		http_conn_error(c, 405, now);
		return;
	}
	r = http_find_route(s, rq);
	if (!r) {
		len = snprintf(msg, sizeof(msg), "not found: try %s\n",
			       s->nr_routes ? s->routes[0].path : "nothing");
		http_conn_respond(c, 404, "text/plain; charset=utf-8", msg,
				  len < sizeof(msg) ? len : sizeof(msg) - 1,
				  head, now);
		return;
	}
	f = open_memstream(&body, &len);
	if (!f) {
		http_conn_error(c, 500, now);
		return;
	}
	failed = r->fn(r->ctx, f);
	if (fclose(f) || failed) {
		free(body);
		http_conn_error(c, 500, now);
		return;
	}
	http_conn_respond(c, 200, r->content_type, body, len, head, now);
	free(body);
}

static void http_conn_read(struct http_server *s, struct http_conn *c,
			   uint64_t now)
{
	struct http_request rq;
	bool eof = false;
	int ret;

	while (c->in_len < HTTP_MAX_HEAD) {
		ssize_t n = recv(c->fd, c->in + c->in_len,
				 HTTP_MAX_HEAD - c->in_len, 0);

		if (n > 0) {
			c->in_len += n;
			continue;
		}
		if (n == 0) {
			eof = true;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		http_conn_close(c);
		return;
	}
	ret = http_parse_request(c->in, c->in_len, &rq);
	if (ret == 0) {
		/* Gone before asking for anything whole: nobody to answer. */
		if (eof)
			http_conn_close(c);
		return;
	}
	if (ret < 0)
		http_conn_error(c, -ret, now);
	else
		http_conn_answer(s, c, &rq, now);
}

static void http_conn_linger(struct http_conn *c)
{
	char sink[4096];
	size_t total = 0;

	while (total < HTTP_LINGER_BATCH) {
		ssize_t n = recv(c->fd, sink, sizeof(sink), 0);

		if (n > 0) {
			total += n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			http_conn_close(c);
		return;
	}
}

void http_conn_event(struct http_server *s, struct http_conn *c,
		     short revents, uint64_t now)
{
	switch (c->state) {
	case HTTP_READING:
		http_conn_read(s, c, now);
		break;
	case HTTP_WRITING:
		if (revents & (POLLERR | POLLNVAL))
			http_conn_close(c);
		else
			http_conn_write(c, now);
		break;
	case HTTP_LINGERING:
		http_conn_linger(c);
		break;
	}
}

void http_conn_expire(struct http_conn *c)
{
	if (c->state == HTTP_READING)
		http_send_now(c->fd, 408);
	http_conn_close(c);
}
