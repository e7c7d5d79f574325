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

/*
 * The chunked body at @p (@n bytes received): 1 complete (decoded in place
 * when @decode, its length in @len), 0 more to come, -1 malformed.
 */
static int chunked(char *p, size_t n, bool decode, size_t *len)
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

/* An answer being read: the bytes so far and what they say. */
struct http_reader {
	char *buf;		/* cap + 1 bytes, for the final NUL */
	size_t cap, n, limit, max_body, body_len;
	struct http_head h;
	bool head, done;
};

/* Room for more: 0, or -1 with why in err. */
static int reader_grow(struct http_reader *rd, char *err, size_t errlen)
{
	char *nb;

	if (rd->n < rd->cap)
		return 0;
	if (rd->cap >= rd->limit) {
		snprintf(err, errlen, "the answer is larger than %zu bytes",
			 rd->max_body);
		return -1;
	}
	rd->cap = rd->cap * 2 > rd->limit ? rd->limit : rd->cap * 2;
	nb = realloc(rd->buf, rd->cap + 1);
	if (!nb) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rd->buf = nb;
	return 0;
}

/* Bytes received (0: the server closed), or -1 with why in err. */
static ssize_t reader_recv(struct http_reader *rd, int fd, uint64_t deadline,
			   char *err, size_t errlen)
{
	for (;;) {
		int ret = wait_fd(fd, POLLIN, deadline);
		ssize_t got;

		if (!ret) {
			snprintf(err, errlen, "no answer within the timeout");
			return -1;
		}
		if (ret < 0)
			break;
		got = recv(fd, rd->buf + rd->n, rd->cap - rd->n, 0);
		if (got >= 0)
			return got;
		if (errno != EINTR && errno != EAGAIN)
			break;
	}
	snprintf(err, errlen, "cannot read (%s)", strerror(errno));
	return -1;
}

/* Whether the bytes so far complete the answer; -1 with why in err. */
static int reader_check(struct http_reader *rd, char *err, size_t errlen)
{
	struct http_head *h = &rd->h;
	int ret;

	if (!rd->head) {
		ret = parse_head(rd->buf, rd->n, h);
		if (ret < 0) {
			snprintf(err, errlen, "the answer is not HTTP");
			return -1;
		}
		rd->head = ret;
	}
	if (rd->head && h->content_length >= 0) {
		if ((unsigned long long)h->content_length > rd->max_body) {
			snprintf(err, errlen,
				 "the answer is larger than %zu bytes",
				 rd->max_body);
			return -1;
		}
		rd->done = rd->n - h->size >= (size_t)h->content_length;
		rd->body_len = h->content_length;
	} else if (rd->head && h->chunked) {
		ret = chunked(rd->buf + h->size, rd->n - h->size, false,
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

/* The body of a complete answer into r; -1 with why in err. */
static int reader_finish(struct http_reader *rd, struct http_response *r,
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
			chunked(rd->buf + h->size, rd->n - h->size, true,
				&rd->body_len);
	} else {
		rd->body_len = rd->n - h->size;	/* delimited by the close */
	}
	if (rd->body_len > rd->max_body) {
		snprintf(err, errlen, "the answer is larger than %zu bytes",
			 rd->max_body);
		return -1;
	}
	memmove(rd->buf, rd->buf + h->size, rd->body_len);
	rd->buf[rd->body_len] = '\0';
	r->status = h->status;
	r->body = rd->buf;
	r->len = rd->body_len;
	rd->buf = NULL;
	return 0;
}

static int http_read(int fd, uint64_t deadline, size_t max_body,
		     struct http_response *r, char *err, size_t errlen)
{
	/* Chunk sizes and line ends around the body. */
	struct http_reader rd = {
		.cap = 64 * 1024,
		.limit = HTTP_MAX_HEAD + max_body + max_body / 8 + 1024,
		.max_body = max_body,
	};
	int ret = -1;

	rd.buf = malloc(rd.cap + 1);
	if (!rd.buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (!rd.done) {
		ssize_t got;

		if (reader_grow(&rd, err, errlen))
			goto out;
		got = reader_recv(&rd, fd, deadline, err, errlen);
		if (got < 0)
			goto out;
		rd.n += got;
		if (reader_check(&rd, err, errlen))
			goto out;
		if (!got)
			break;	/* the server closed the connection */
	}
	ret = reader_finish(&rd, r, err, errlen);
out:
	free(rd.buf);
	return ret;
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
