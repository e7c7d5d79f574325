// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's HTTP server (user/daemon/http.h) on what any local user can
 * send it.  Each input goes two ways:
 *
 *  - http_parse_request() (user/lib/wire/http_request.c) on an
 *    exact-size copy (no NUL after it, so a read past the bytes received
 *    is an ASan report), with the parts it returns checked to lie inside
 *    them;
 *  - the server's state machine: the input is sent in pieces (their size
 *    from its length) over a socketpair whose server end is handed to
 *    the server as an accepted connection, with http_service() after
 *    each piece, then the client's end shut, then the deadlines passed.
 *    Whatever the server answers must start with a status line.
 *
 * The server has no listening socket: the connection is given to it by
 * http_conn_open(), as http_accept() gives one (http_internal.h).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http_internal.h"

static int render(void *ctx, FILE *body)
{
	(void)ctx;
	fputs("# TYPE ispot_targets gauge\nispot_targets 1\n", body);
	return 0;
}

static int render_fail(void *ctx, FILE *body)
{
	(void)ctx;
	(void)body;
	return -1;
}

static struct http_server *server(void)
{
	static struct http_server *s;

	if (s)
		return s;
	s = http_server_new(-1, "fuzz");	/* connections are given */
	if (!s || http_route(s, "/metrics", "text/plain; version=0.0.4",
			     render, NULL) ||
	    http_route(s, "/fail", "text/plain", render_fail, NULL))
		abort();
	return s;
}

static void check_parse(const uint8_t *data, size_t size)
{
	struct http_request rq;
	char *buf = malloc(size ? size : 1);
	const char *end, *line;
	int ret;

	if (!buf)
		return;
	memcpy(buf, data, size);
	end = buf + size;
	ret = http_parse_request(buf, size, &rq);
	/* One empty line before the request line is skipped (RFC 9112 2.2). */
	line = buf;
	if (size && buf[0] == '\n')
		line = buf + 1;
	else if (size > 1 && buf[0] == '\r' && buf[1] == '\n')
		line = buf + 2;
	if (ret > 0) {
		if ((size_t)ret > size || rq.method != line ||
		    rq.method_len == 0 || rq.target < buf ||
		    rq.target + rq.target_len > end ||
		    rq.path_len > rq.target_len || rq.target[0] != '/' ||
		    (rq.minor >= 1 && !rq.has_host))
			__builtin_trap();
	} else if (ret < 0) {
		if (ret != -400 && ret != -414 && ret != -431 && ret != -505)
			__builtin_trap();
	} else if (size >= HTTP_MAX_HEAD) {
		__builtin_trap();	/* a full head must be decided */
	}
	free(buf);
}

/* Serve the connection's pending events at @now. */
static void service(struct http_server *s, uint64_t now)
{
	struct pollfd pfd[HTTP_MAX_POLLFDS];
	size_t n = http_pollfds(s, pfd);

	if (n && poll(pfd, n, 0) < 0)
		abort();
	http_service(s, pfd, n, now);
}

/* Read what the server sent so far; keep the first bytes in @got. */
static void drain(int fd, char *got, size_t *len, size_t cap)
{
	char buf[4096];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		size_t take = (size_t)n < cap - *len ? (size_t)n : cap - *len;

		memcpy(got + *len, buf, take);
		*len += take;
	}
}

static void check_server(const uint8_t *data, size_t size)
{
	struct http_server *s = server();
	uint64_t now = 1000000000ull;
	size_t piece, off, got_len = 0;
	char got[64];
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
		       sv))
		return;
	/* No peer address: a socketpair's, as a Unix socket's would be. */
	if (http_conn_open(s, sv[0], (const unsigned char *)"", 0, now))
		abort();

	/*
	 * 1 to 256 bytes a piece, chosen by the input's length so that
	 * every byte is the request's; the whole input at most 64 KiB.
	 */
	piece = 1 + ((uint32_t)size * 2654435761u >> 16) % 256;
	if (size > 65536)
		size = 65536;
	for (off = 0; off < size; off += piece) {
		size_t n = size - off < piece ? size - off : piece;

		if (send(sv[1], data + off, n, MSG_NOSIGNAL) < 0)
			break;	/* the server closed, or its buffer is full */
		now += 1000;
		service(s, now);
		drain(sv[1], got, &got_len, sizeof(got));
	}
	shutdown(sv[1], SHUT_WR);
	service(s, now += 1000);
	drain(sv[1], got, &got_len, sizeof(got));
	service(s, now += HTTP_TIMEOUT_NS + HTTP_LINGER_NS);
	drain(sv[1], got, &got_len, sizeof(got));
	if (got_len && (got_len < 9 || memcmp(got, "HTTP/1.1 ", 9)))
		__builtin_trap();	/* an answer that is not HTTP */
	close(sv[1]);
	while (s->nr_conns)
		http_conn_close(&s->conns[--s->nr_conns]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_parse(data, size);
	check_server(data, size);
	return 0;
}
