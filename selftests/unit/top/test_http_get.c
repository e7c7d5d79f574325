// SPDX-License-Identifier: GPL-2.0
/*
 * The bounded HTTP GET client (http_get.h) against a server on loopback
 * that answers each connection as a test tells it: a body by
 * Content-Length while the server keeps the connection open, a chunked
 * body sent in pieces, a body delimited by the close, a 404, something
 * that is not HTTP, a body over the bound, a server that never answers,
 * a closed port, and the ADDR:PORT forms.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ispot_test.h"
#include "top/http_get.h"

struct server {
	int lfd;
	char port[8];
	const char *const *parts;	/* written one by one, 20 ms apart */
	bool hold;			/* keep open until the client closes */
	bool silent;			/* read the request, answer nothing */
	char request[1024];
	pthread_t thread;
};

static void *serve(void *arg)
{
	struct server *s = arg;
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	size_t n = 0;
	char c;
	int fd = accept(s->lfd, NULL, NULL);
	int i;

	if (fd < 0)
		return NULL;
	while (n + 1 < sizeof(s->request) && read(fd, &s->request[n], 1) == 1) {
		s->request[++n] = '\0';
		if (n >= 4 && !memcmp(&s->request[n - 4], "\r\n\r\n", 4))
			break;
	}
	for (i = 0; !s->silent && s->parts[i]; i++) {
		if (write(fd, s->parts[i], strlen(s->parts[i])) < 0)
			break;
		nanosleep(&pause, NULL);
	}
	if (s->hold || s->silent)
		while (read(fd, &c, 1) > 0)
			;
	close(fd);
	return NULL;
}

static void server_start(struct server *s, const char *const *parts)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);

	s->parts = parts;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_GE(s->lfd, 0);
	ASSERT_EQ(bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ASSERT_EQ(listen(s->lfd, 1), 0);
	ASSERT_EQ(getsockname(s->lfd, (struct sockaddr *)&sa, &len), 0);
	snprintf(s->port, sizeof(s->port), "%u", ntohs(sa.sin_port));
	ASSERT_EQ(pthread_create(&s->thread, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
	pthread_join(s->thread, NULL);
	close(s->lfd);
}

/* GET /metrics from @s; the result, the response and the error. */
static int get(struct server *s, int timeout_ms, size_t max,
	       struct http_response *r, char *err)
{
	struct http_addr a;
	char spec[64];

	snprintf(spec, sizeof(spec), "127.0.0.1:%s", s->port);
	ASSERT_TRUE(http_addr_parse(spec, &a, err, 256));
	return http_get(&a, "/metrics", timeout_ms, max, r, err, 256);
}

TEST(content_length_without_waiting_for_close)
{
	static const char *const parts[] = {
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n",
		"content-length: 11\r\n\r\nispot_",
		"targets 1", NULL,
	};
	struct server s = { .hold = true };
	struct http_response r;
	char err[256] = "";

	server_start(&s, parts);
	ASSERT_EQ(get(&s, 5000, 1 << 20, &r, err), 0);
	EXPECT_EQ(r.status, 200);
	EXPECT_EQ(r.len, 11);
	EXPECT_STREQ(r.body, "ispot_targe");
	http_response_free(&r);
	server_stop(&s);
	EXPECT_TRUE(strstr(s.request, "GET /metrics HTTP/1.1\r\n") ==
		    s.request);
	EXPECT_TRUE(strstr(s.request, "\r\nHost: 127.0.0.1:") != NULL);
	EXPECT_TRUE(strstr(s.request, "\r\nConnection: close\r\n") != NULL);
}

TEST(chunked_in_pieces)
{
	static const char *const parts[] = {
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		"5;ext=1\r\nhello\r\n", "7\r\n, world", "\r\n0\r\n",
		"Trailer: x\r\n\r\n", NULL,
	};
	struct server s = { .hold = true };
	struct http_response r;
	char err[256] = "";

	server_start(&s, parts);
	ASSERT_EQ(get(&s, 5000, 1 << 20, &r, err), 0);
	EXPECT_EQ(r.status, 200);
	EXPECT_STREQ(r.body, "hello, world");
	EXPECT_EQ(r.len, 12);
	http_response_free(&r);
	server_stop(&s);
}

/*
 * A chunk size is the hex digits of its own line, within the bytes
 * received: an empty size line is malformed, not the size on the next
 * line (strtoull() skips white space, a line end included, and reads on
 * past the line, past the bytes received even).
 */
TEST(chunk_size_line_must_hold_the_size)
{
	static const char *const empty_line[] = {
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		"\n2\r\n\n0\r\n\r\n", NULL,
	};
	static const char *const blank_then_size[] = {
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		" \r\n", "5\r\nhello\r\n0\r\n\r\n", NULL,
	};
	static const char *const signed_size[] = {
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		"+5\r\nhello\r\n0\r\n\r\n", NULL,
	};
	const char *const *cases[] = { empty_line, blank_then_size,
				       signed_size };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct server s = { .hold = true };
		struct http_response r = { 0 };
		char err[256] = "";

		server_start(&s, cases[i]);
		EXPECT_EQ(get(&s, 5000, 1 << 20, &r, err), -1);
		TH_LOG("case %zu: '%s' (%zu bytes)", i, err, r.len);
		EXPECT_STREQ(err, "the answer's chunked body is malformed");
		http_response_free(&r);
		server_stop(&s);
	}
}

TEST(body_until_close)
{
	static const char *const parts[] = {
		"HTTP/1.0 200 OK\r\n\r\n", "up 1\n", "x 2\n", NULL,
	};
	struct server s = { 0 };
	struct http_response r;
	char err[256] = "";

	server_start(&s, parts);
	ASSERT_EQ(get(&s, 5000, 1 << 20, &r, err), 0);
	EXPECT_STREQ(r.body, "up 1\nx 2\n");
	http_response_free(&r);
	server_stop(&s);
}

TEST(status_is_returned)
{
	static const char *const parts[] = {
		"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found",
		NULL,
	};
	struct server s = { 0 };
	struct http_response r;
	char err[256] = "";

	server_start(&s, parts);
	ASSERT_EQ(get(&s, 5000, 1 << 20, &r, err), 0);
	EXPECT_EQ(r.status, 404);
	http_response_free(&r);
	server_stop(&s);
}

/* An SSH server talks first and then waits: no waiting for a timeout. */
TEST(not_http)
{
	static const char *const parts[] = { "SSH-2.0-OpenSSH_9.2\r\n", NULL };
	struct server s = { .hold = true };
	struct http_response r;
	char err[256] = "";

	server_start(&s, parts);
	ASSERT_EQ(get(&s, 60000, 1 << 20, &r, err), -1);
	EXPECT_STREQ(err, "the answer is not HTTP");
	server_stop(&s);
}

/* A length that is not one number is not taken as no length. */
/*
 * A length that is not one number, or one beside chunked (RFC 9112 6.3),
 * is an error, not taken as no length (the body to the close).
 */
#define HEAD200 "HTTP/1.1 200 OK\r\n"
TEST(content_length_not_a_number)
{
	static const char *const heads[] = {
		HEAD200 "Content-Length: -5\r\n\r\nabc",
		HEAD200 "Content-Length: 3x\r\n\r\nabc",
		HEAD200 "Content-Length: \r\n\r\nabc",
		HEAD200 "Content-Length: 3, 3\r\n\r\nabc",
		HEAD200 "Content-Length: 99999999999999999999\r\n\r\n",
		HEAD200 "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabc",
		HEAD200 "Content-Length: +3\r\n\r\nabc",
		HEAD200 "Content-Length: 3\rX\r\n\r\nabc",
		/* 2^62 + 1 */
		HEAD200 "Content-Length: 4611686018427387905\r\n\r\n",
		HEAD200 "Content-Length: 0\r\nTransfer-Encoding: chunked\r\n"
			"\r\n3\r\nabc\r\n0\r\n\r\n",
	};
	/* Repeated equal values; "chunked" on another line is not chunked. */
	static const char *const same[] = {
		HEAD200 "Content-Length:  3 \r\ncontent-length: 3\r\n\r\nabc",
		HEAD200 "Content-Length: 3\r\nTransfer-Encoding: gzip\r\n"
			"X-Note: chunked\r\n\r\nabc",
	};
	struct server s = { .hold = true };
	struct http_response r;
	char err[256] = "";
	size_t i;

	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		const char *parts[] = { heads[i], NULL };

		memset(&s, 0, sizeof(s));
		s.hold = true;
		server_start(&s, parts);
		EXPECT_EQ(get(&s, 5000, 1 << 20, &r, err), -1);
		EXPECT_STREQ(err, "the answer's length is not one number, "
			     "or it is also chunked");
		server_stop(&s);
	}
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		const char *parts[] = { same[i], NULL };

		memset(&s, 0, sizeof(s));
		s.hold = true;
		server_start(&s, parts);
		ASSERT_EQ(get(&s, 5000, 1 << 20, &r, err), 0);
		EXPECT_EQ(r.len, 3);
		EXPECT_STREQ(r.body, "abc");
		http_response_free(&r);
		server_stop(&s);
	}
}

TEST(body_over_the_bound)
{
	static const char *const declared[] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n", NULL,
	};
	static char big[5000];
	static const char *const undeclared[] = {
		"HTTP/1.1 200 OK\r\n\r\n", big, NULL,
	};
	struct server s = { .hold = true };
	struct http_response r;
	char err[256] = "";

	server_start(&s, declared);
	ASSERT_EQ(get(&s, 5000, 1000, &r, err), -1);
	EXPECT_STREQ(err, "the answer is larger than 1000 bytes");
	server_stop(&s);

	memset(big, 'x', sizeof(big) - 1);
	memset(&s, 0, sizeof(s));
	server_start(&s, undeclared);
	ASSERT_EQ(get(&s, 5000, 1000, &r, err), -1);
	EXPECT_STREQ(err, "the answer is larger than 1000 bytes");
	server_stop(&s);
}

TEST(silent_server_times_out)
{
	struct server s = { .silent = true };
	struct http_response r;
	char err[256] = "";

	server_start(&s, NULL);
	ASSERT_EQ(get(&s, 300, 1 << 20, &r, err), -1);
	EXPECT_STREQ(err, "no answer within the timeout");
	/* The client closed: the server thread ends. */
	server_stop(&s);
}

TEST(cut_short)
{
	static const char *const parts[] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", NULL,
	};
	struct server s = { 0 };
	struct http_response r;
	char err[256] = "";

	server_start(&s, parts);
	ASSERT_EQ(get(&s, 5000, 1 << 20, &r, err), -1);
	EXPECT_STREQ(err, "the answer was cut short");
	server_stop(&s);
}

TEST(closed_port_refused)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct http_response r;
	struct http_addr a;
	char err[256] = "", spec[64];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	/* A port that was just free: bound, then closed without listening. */
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ASSERT_EQ(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	snprintf(spec, sizeof(spec), "127.0.0.1:%u", ntohs(sa.sin_port));
	ASSERT_TRUE(http_addr_parse(spec, &a, err, sizeof(err)));
	EXPECT_EQ(http_get(&a, "/metrics", 2000, 1 << 20, &r, err,
			   sizeof(err)), -1);
	EXPECT_STREQ(err, "connection refused");
}

/* connect() refuses an fe80:: address without its scope: say why. */
TEST(link_local_needs_its_interface)
{
	struct http_response r;
	struct http_addr a;
	char err[256] = "";
	int fd = socket(AF_INET6, SOCK_STREAM, 0);

	if (fd < 0)
		SKIP("no IPv6 on this host");
	close(fd);
	ASSERT_TRUE(http_addr_parse("[fe80::1]:9464", &a, err, sizeof(err)));
	EXPECT_EQ(http_get(&a, "/metrics", 2000, 1 << 20, &r, err,
			   sizeof(err)), -1);
	EXPECT_STREQ(err, "a link-local address needs its interface, e.g. "
		     "[fe80::1%eth0]:9464");
}

TEST(unresolvable_host)
{
	struct http_response r;
	struct http_addr a;
	char err[256] = "";

	ASSERT_TRUE(http_addr_parse("no-such-host.invalid:9464", &a, err,
				    sizeof(err)));
	EXPECT_EQ(http_get(&a, "/metrics", 2000, 1 << 20, &r, err,
			   sizeof(err)), -1);
	EXPECT_TRUE(strstr(err, "cannot resolve 'no-such-host.invalid'") ==
		    err);
}

TEST(addr_forms)
{
	static const char *const bad[] = {
		"", ":9464", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",
		"127.0.0.1:65536", "127.0.0.1:94x", "[::1]", "[::1]9464",
		"127.0.0.1:-1", "127.0.0.1: 80",
	};
	struct http_addr a;
	char err[256];
	size_t i;

	ASSERT_TRUE(http_addr_parse("127.0.0.1:9464", &a, err, sizeof(err)));
	EXPECT_STREQ(a.host, "127.0.0.1");
	EXPECT_STREQ(a.port, "9464");
	ASSERT_TRUE(http_addr_parse("localhost:80", &a, err, sizeof(err)));
	EXPECT_STREQ(a.host, "localhost");
	ASSERT_TRUE(http_addr_parse("[::1]:9464", &a, err, sizeof(err)));
	EXPECT_STREQ(a.host, "::1");
	EXPECT_STREQ(a.port, "9464");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (http_addr_parse(bad[i], &a, err, sizeof(err)))
			TH_LOG("'%s' was taken", bad[i]);
		EXPECT_FALSE(http_addr_parse(bad[i], &a, err, sizeof(err)));
		/* ispotd --listen's words (netaddr.c), after the value. */
		EXPECT_TRUE(!strncmp(err + 1, bad[i], strlen(bad[i])));
		EXPECT_TRUE(strstr(err, "port") || strstr(err, "address") ||
			    strstr(err, "[V6ADDR]"));
	}
	EXPECT_FALSE(http_addr_parse("::1:9464", &a, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "without brackets") != NULL);
}

TEST_HARNESS_MAIN
