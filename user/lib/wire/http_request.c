// SPDX-License-Identifier: GPL-2.0
/* An HTTP/1.1 request head, written and parsed; see http_request.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "wire/http_request.h"

/* RFC 9110 tchar: what a method and a header name are made of. */
static bool http_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The line at @p: its end (before any CR) and the start of the next. */
static const char *http_line(const char *p, const char *end,
			     const char **next)
{
	const char *eol = memchr(p, '\n', end - p);

	if (!eol)
		return NULL;
	*next = eol + 1;
	return eol > p && eol[-1] == '\r' ? eol - 1 : eol;
}

/* "METHOD SP TARGET SP HTTP/1.x": 0 or -STATUS. */
static int http_parse_request_line(const char *p, const char *lend,
				   struct http_request *rq)
{
	const char *sp, *v;

	rq->method = p;
	while (p < lend && http_tchar(*p))
		p++;
	rq->method_len = p - rq->method;
	if (!rq->method_len || p == lend || *p != ' ')
		return -400;
	rq->target = ++p;
	sp = memchr(p, ' ', lend - p);
	if (!sp || sp == p)
		return -400;
	rq->target_len = sp - p;
	for (; p < sp; p++)
		if (*p < 0x21 || *p > 0x7e)
			return -400;
	/* Absolute form (RFC 9112 3.2.2): the path after the authority. */
	if (!strncasecmp(rq->target, "http://", 7) ||
	    !strncasecmp(rq->target, "https://", 8)) {
		const char *a = memchr(rq->target, '/', rq->target_len) + 2;
		const char *slash = memchr(a, '/', sp - a);

		if (!slash)
			return -400;
		rq->target_len -= slash - rq->target;
		rq->target = slash;
	}
	if (rq->target[0] != '/')
		return -400;
	v = memchr(rq->target, '?', rq->target_len);
	rq->path_len = v ? (size_t)(v - rq->target) : rq->target_len;
	v = sp + 1;
	if (lend - v != 8 || memcmp(v, "HTTP/", 5) || v[6] != '.' ||
	    v[5] < '0' || v[5] > '9' || v[7] < '0' || v[7] > '9')
		return -400;
	if (v[5] != '1')
		return -505;
	rq->minor = v[7] - '0';
	return 0;
}

int http_parse_request(const char *buf, size_t len, struct http_request *rq)
{
	const char *end = buf + len, *start = buf, *p, *lend, *next;
	int ret, hosts = 0;

	memset(rq, 0, sizeof(*rq));
	lend = http_line(buf, end, &next);
	/*
	 * RFC 9112 2.2: one empty line before the request line is ignored
	 * (what a client that ended its last body with an extra CRLF sends).
	 */
	if (lend == buf) {
		start = next;
		lend = http_line(start, end, &next);
	}
	if (!lend)
		return len >= HTTP_MAX_HEAD ? -414 : 0;
	ret = http_parse_request_line(start, lend, rq);
	if (ret)
		return ret;
	for (;;) {
		const char *line = next;

		lend = http_line(line, end, &next);
		if (!lend)
			return len >= HTTP_MAX_HEAD ? -431 : 0;
		if (lend == line)
			break;
		/* No folded lines (RFC 9112 5.2 lets a server refuse them). */
		for (p = line; p < lend && http_tchar(*p); p++)
			;
		if (p == line || p == lend || *p != ':')
			return -400;
		if (p - line == 4 && !strncasecmp(line, "host", 4))
			hosts++;
	}
	/* RFC 9112 3.2: exactly one Host in HTTP/1.1. */
	if (hosts > 1 || (rq->minor >= 1 && !hosts))
		return -400;
	rq->has_host = hosts;
	return next - buf;
}

int http_request_get(char *buf, size_t len, const char *path,
		     const char *host, const char *port)
{
	bool v6 = strchr(host, ':');
	int n;

	n = snprintf(buf, len,
		     "GET %s HTTP/1.1\r\nHost: %s%s%s:%s\r\n"
		     "User-Agent: ispotctl\r\nAccept: text/plain\r\n"
		     "Connection: close\r\n\r\n", path, v6 ? "[" : "",
		     host, v6 ? "]" : "", port);
	return n < 0 || (size_t)n >= len ? -1 : n;
}
