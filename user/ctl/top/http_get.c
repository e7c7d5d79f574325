// SPDX-License-Identifier: GPL-2.0
/* A bounded HTTP/1.1 GET over a socket; see http_get.h. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "top/http_get.h"
#include "util/netaddr.h"
#include "wire/http_request.h"

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
	bool unscoped;

	ret = getaddrinfo(a->host, a->port, &hints, &res);
	if (ret) {
		snprintf(err, errlen, "cannot resolve '%s' (%s)", a->host,
			 ret == EAI_SYSTEM ? strerror(errno) :
			 gai_strerror(ret));
		return -1;
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next)
		fd = connect_one(ai, deadline, &e);
	unscoped = netaddr_unscoped_link_local(res);
	freeaddrinfo(res);
	if (fd >= 0)
		return fd;
	if (e == EINVAL && unscoped)
		snprintf(err, errlen, "a link-local address needs its "
			 "interface, e.g. [%s%%eth0]:%s", a->host, a->port);
	else if (e == ETIMEDOUT)
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

int http_read(int fd, uint64_t deadline, size_t max_body,
	      struct http_response *r, char *err, size_t errlen)
{
	struct http_reader rd;
	int ret = -1;

	if (http_reader_init(&rd, max_body, err, errlen))
		goto out;
	while (!rd.done) {
		ssize_t got;

		if (http_reader_room(&rd, err, errlen))
			goto out;
		got = reader_recv(&rd, fd, deadline, err, errlen);
		if (got < 0 || http_reader_feed(&rd, got, err, errlen))
			goto out;
		if (!got)
			break;	/* the server closed the connection */
	}
	ret = http_reader_finish(&rd, r, err, errlen);
out:
	http_reader_free(&rd);
	return ret;
}

int http_get(const struct http_addr *a, const char *path, int timeout_ms,
	     size_t max_body, struct http_response *r, char *err,
	     size_t errlen)
{
	uint64_t deadline = now_ms() + timeout_ms;
	char req[512];
	int fd, ret, n;

	memset(r, 0, sizeof(*r));
	n = http_request_get(req, sizeof(req), path, a->host, a->port);
	if (n < 0) {
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
