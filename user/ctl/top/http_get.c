// SPDX-License-Identifier: GPL-2.0
/* A bounded HTTP/1.1 GET; see http_get.h. */
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "top/http_get.h"
#include "util/netaddr.h"

/* Status line and headers; a metrics endpoint sends a few hundred bytes. */
#define HTTP_MAX_HEAD	(16 * 1024)

bool http_addr_parse(const char *spec, struct http_addr *a, char *err,
		     size_t errlen)
{
	const char *problem;
	uint16_t port;

	memset(a, 0, sizeof(*a));
	problem = netaddr_split(spec, a->host, sizeof(a->host), &port);
	if (problem) {
		snprintf(err, errlen, "'%s' %s", spec, problem);
		return false;
	}
	snprintf(a->port, sizeof(a->port), "%u", port);
	return true;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/* 1 ready, 0 the deadline passed, -1 poll failed. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		uint64_t now = now_ms();
		int n;

		if (now >= deadline)
			return 0;
		n = poll(&p, 1, (int)(deadline - now));
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

static int connect_one(const struct addrinfo *ai, uint64_t deadline,
		       int *err)
{
	socklen_t len = sizeof(*err);
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
			SOCK_CLOEXEC, ai->ai_protocol);

	if (fd < 0) {
		*err = errno;
		return -1;
	}
	if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
		return fd;
	if (errno != EINPROGRESS) {
		*err = errno;
		close(fd);
		return -1;
	}
	switch (wait_fd(fd, POLLOUT, deadline)) {
	case 1:
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, err, &len) || *err) {
			if (!*err)
				*err = errno;
			break;
		}
		return fd;
	case 0:
		*err = ETIMEDOUT;
		break;
	default:
		*err = errno;
	}
	close(fd);
	return -1;
}

static int connect_addr(const struct http_addr *a, uint64_t deadline,
			char *err, size_t errlen)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV,
	}, *res, *ai;
	int fd = -1, e = 0, ret;

	ret = getaddrinfo(a->host, a->port, &hints, &res);
	if (ret) {
		snprintf(err, errlen, "cannot resolve '%s' (%s)", a->host,
			 ret == EAI_SYSTEM ? strerror(errno) :
			 gai_strerror(ret));
		return -1;
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next)
		fd = connect_one(ai, deadline, &e);
	freeaddrinfo(res);
	if (fd >= 0)
		return fd;
	if (e == ETIMEDOUT)
		snprintf(err, errlen, "no connection within the timeout");
	else if (e == ECONNREFUSED)
		snprintf(err, errlen, "connection refused");
	else
		snprintf(err, errlen, "cannot connect (%s)", strerror(e));
	return -1;
}

static int send_all(int fd, const char *p, size_t n, uint64_t deadline)
{
	while (n) {
		ssize_t w;
		int ret = wait_fd(fd, POLLOUT, deadline);

		if (!ret)
			errno = ETIMEDOUT;
		if (ret != 1)
			return -1;
		w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= w;
	}
	return 0;
}

/*
 * The chunked body at @p (@n bytes received): 1 complete (decoded in place
 * when @decode, its length in @len), 0 more to come, -1 malformed.
 */
static int chunked(char *p, size_t n, bool decode, size_t *len)
{
	size_t in = 0, out = 0;

	for (;;) {
		char *eol = memchr(p + in, '\n', n - in);
		unsigned long long size;
		char *end;

		if (!eol)
			return 0;
		errno = 0;
		size = strtoull(p + in, &end, 16);
		if (end == p + in || errno ||
		    (*end != ';' && *end != '\r' && *end != '\n'))
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

struct http_head {
	size_t size;		/* bytes up to and with the empty line */
	int status;
	long long content_length;	/* -1: none */
	bool chunked;
};

/* 1 parsed, 0 incomplete, -1 not HTTP. */
static int parse_head(char *buf, size_t n, struct http_head *h)
{
	char *end = memmem(buf, n, "\r\n\r\n", 4), *line;

	if (n >= 5 && memcmp(buf, "HTTP/", 5))
		return -1;
	if (!end)
		return n > HTTP_MAX_HEAD ? -1 : 0;
	h->size = end - buf + 4;
	h->content_length = -1;
	h->chunked = false;
	*end = '\0';	/* the body starts after it, untouched */
	if (sscanf(buf, "HTTP/1.%*d %3d", &h->status) != 1 ||
	    h->status < 100 || h->status > 999)
		return -1;
	for (line = strstr(buf, "\r\n"); line; line = strstr(line, "\r\n")) {
		line += 2;
		if (!strncasecmp(line, "Content-Length:", 15))
			h->content_length = strtoll(line + 15, NULL, 10);
		else if (!strncasecmp(line, "Transfer-Encoding:", 18) &&
			 strcasestr(line + 18, "chunked"))
			h->chunked = true;
	}
	return 1;
}

static int http_read(int fd, uint64_t deadline, size_t max_body,
		     struct http_response *r, char *err, size_t errlen)
{
	/* Chunk sizes and line ends around the body. */
	size_t cap = 64 * 1024, n = 0, limit = HTTP_MAX_HEAD + max_body +
		     max_body / 8 + 1024, body_len = 0;
	struct http_head h = { 0 };
	char *buf = malloc(cap + 1);
	bool head = false, done = false;
	int ret;

	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (!done) {
		ssize_t got;

		if (n == cap) {
			char *nb;

			if (cap >= limit)
				goto too_big;
			cap = cap * 2 > limit ? limit : cap * 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			buf = nb;
		}
		ret = wait_fd(fd, POLLIN, deadline);
		if (!ret) {
			snprintf(err, errlen, "no answer within the timeout");
			goto fail;
		}
		if (ret < 0) {
			snprintf(err, errlen, "cannot read (%s)",
				 strerror(errno));
			goto fail;
		}
		got = recv(fd, buf + n, cap - n, 0);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got < 0) {
			snprintf(err, errlen, "cannot read (%s)",
				 strerror(errno));
			goto fail;
		}
		n += got;
		if (!head) {
			ret = parse_head(buf, n, &h);
			if (ret < 0)
				goto not_http;
			head = ret;
		}
		if (head && h.content_length >= 0) {
			if ((unsigned long long)h.content_length > max_body)
				goto too_big;
			done = n - h.size >= (size_t)h.content_length;
			body_len = h.content_length;
		} else if (head && h.chunked) {
			ret = chunked(buf + h.size, n - h.size, false,
				      &body_len);
			if (ret < 0)
				goto bad_chunk;
			done = ret;
		}
		if (!got)
			break;	/* the server closed the connection */
	}
	if (!head) {
		if (n)
			goto not_http;
		snprintf(err, errlen, "the server closed the connection "
			 "without answering");
		goto fail;
	}
	if (h.chunked && h.content_length < 0) {
		if (!done)
			goto cut_short;
		chunked(buf + h.size, n - h.size, true, &body_len);
	} else if (h.content_length >= 0) {
		if (!done)
			goto cut_short;
	} else {
		body_len = n - h.size;	/* delimited by the close */
	}
	if (body_len > max_body)
		goto too_big;
	memmove(buf, buf + h.size, body_len);
	buf[body_len] = '\0';
	r->status = h.status;
	r->body = buf;
	r->len = body_len;
	return 0;
too_big:
	snprintf(err, errlen, "the answer is larger than %zu bytes",
		 max_body);
	goto fail;
not_http:
	snprintf(err, errlen, "the answer is not HTTP");
	goto fail;
bad_chunk:
	snprintf(err, errlen, "the answer's chunked body is malformed");
	goto fail;
cut_short:
	snprintf(err, errlen, "the answer was cut short");
fail:
	free(buf);
	return -1;
}

int http_get(const struct http_addr *a, const char *path, int timeout_ms,
	     size_t max_body, struct http_response *r, char *err,
	     size_t errlen)
{
	uint64_t deadline = now_ms() + timeout_ms;
	bool v6 = strchr(a->host, ':');
	char req[512];
	int fd, ret, n;

	memset(r, 0, sizeof(*r));
	n = snprintf(req, sizeof(req),
		     "GET %s HTTP/1.1\r\nHost: %s%s%s:%s\r\n"
		     "User-Agent: ispotctl\r\nAccept: text/plain\r\n"
		     "Connection: close\r\n\r\n", path, v6 ? "[" : "",
		     a->host, v6 ? "]" : "", a->port);
	if (n < 0 || (size_t)n >= sizeof(req)) {
		snprintf(err, errlen, "the request is too long");
		return -1;
	}
	fd = connect_addr(a, deadline, err, errlen);
	if (fd < 0)
		return -1;
	if (send_all(fd, req, n, deadline)) {
		snprintf(err, errlen, "cannot send the request (%s)",
			 strerror(errno));
		close(fd);
		return -1;
	}
	ret = http_read(fd, deadline, max_body, r, err, errlen);
	close(fd);
	return ret;
}

void http_response_free(struct http_response *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}
