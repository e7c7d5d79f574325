// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's HTTP server (user/daemon/http.c): request heads parsed and
 * refused as RFC 9112 says, and the server on real loopback sockets,
 * driven the way ispotd's poll loop drives it, with a clock of the
 * test's own so that timeouts need no waiting.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "http.h"
#include "http_internal.h"
#include "util/netaddr.h"
#include "ispot_test.h"

#define NOW	1000000000ull

static int parse(const char *s, struct http_request *rq)
{
	return http_parse_request(s, strlen(s), rq);
}

TEST(parse_complete_request)
{
	static const char get[] = "GET /metrics?x=1 HTTP/1.1\r\n"
				  "Host: localhost:9464\r\n"
				  "Accept: */*\r\n\r\nBODY";
	struct http_request rq;

	ASSERT_EQ(parse(get, &rq), (int)strlen(get) - 4);
	EXPECT_EQ(rq.method_len, 3);
	EXPECT_EQ(memcmp(rq.method, "GET", 3), 0);
	EXPECT_EQ(rq.target_len, strlen("/metrics?x=1"));
	EXPECT_EQ(rq.path_len, strlen("/metrics"));
	EXPECT_EQ(rq.minor, 1);
	EXPECT_EQ(rq.has_host, 1);
	/* LF alone ends lines too; HTTP/1.0 needs no Host. */
	ASSERT_GT(parse("HEAD / HTTP/1.0\n\n", &rq), 0);
	EXPECT_EQ(rq.method_len, 4);
	EXPECT_EQ(rq.path_len, 1);
	/* The absolute form names the path after the authority. */
	ASSERT_GT(parse("GET http://h:1/metrics HTTP/1.1\r\nHost: h\r\n\r\n",
			&rq), 0);
	EXPECT_EQ(rq.path_len, 8);
	EXPECT_EQ(memcmp(rq.target, "/metrics", 8), 0);
	/* RFC 9112 2.2: one empty line before it is ignored, not two. */
	ASSERT_EQ(parse("\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", &rq),
		  (int)strlen("\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"));
	EXPECT_EQ(rq.method_len, 3);
	EXPECT_EQ(rq.path_len, 1);
	EXPECT_EQ(parse("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", &rq),
		  -400);
}

TEST(parse_needs_more)
{
	static const char *const partial[] = {
		"", "G", "GET /metrics HTTP/1.1", "GET /metrics HTTP/1.1\r\n",
		"GET /metrics HTTP/1.1\r\nHost: x\r\n",
		"GET /metrics HTTP/1.1\r\nHost: x\r\n\r",
	};
	struct http_request rq;
	size_t i;

	for (i = 0; i < sizeof(partial) / sizeof(partial[0]); i++) {
		EXPECT_EQ(parse(partial[i], &rq), 0);
		if (parse(partial[i], &rq))
			TH_LOG("'%s'", partial[i]);
	}
}

TEST(parse_refuses)
{
	static const struct {
		const char *s;
		int status;
	} bad[] = {
		/* found as soon as the request line is whole */
		{ "GARBAGE\r\n", -400 },
		{ "GET\r\n", -400 },
		{ "GET /metrics\r\n", -400 },
		{ "GET  /metrics HTTP/1.1\r\n", -400 },
		{ "GET metrics HTTP/1.1\r\n", -400 },
		{ "GET * HTTP/1.1\r\n", -400 },
		{ "GET http://h HTTP/1.1\r\n", -400 },
		{ "GET /a\x01 HTTP/1.1\r\n", -400 },
		{ "G(T / HTTP/1.1\r\n", -400 },
		{ "GET / HTTP/1.1 \r\n", -400 },
		{ "GET / HTTP/11\r\n", -400 },
		{ "GET / http/1.1\r\n", -400 },
		{ "GET / HTTP/2.0\r\n", -505 },
		{ "GET / HTTP/0.9\r\n", -505 },
		/* headers */
		{ "GET / HTTP/1.1\r\nHost x\r\n", -400 },
		{ "GET / HTTP/1.1\r\n: x\r\n", -400 },
		{ "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n", -400 },
		{ "GET / HTTP/1.1\r\n\r\n", -400 },
		{ "GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", -400 },
	};
	struct http_request rq;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int got = parse(bad[i].s, &rq);

		if (got != bad[i].status)
			TH_LOG("'%s': %d", bad[i].s, got);
		EXPECT_EQ(got, bad[i].status);
	}
}

TEST(parse_limits)
{
	char *buf = malloc(HTTP_MAX_HEAD + 1);
	struct http_request rq;
	size_t n;

	ASSERT_TRUE(buf);
	/* No end to the request line in HTTP_MAX_HEAD bytes: 414. */
	memset(buf, 'A', HTTP_MAX_HEAD);
	memcpy(buf, "GET /", 5);
	EXPECT_EQ(http_parse_request(buf, HTTP_MAX_HEAD, &rq), -414);
	EXPECT_EQ(http_parse_request(buf, HTTP_MAX_HEAD - 1, &rq), 0);
	/* A request line, then headers that never end: 431. */
	n = snprintf(buf, HTTP_MAX_HEAD, "GET / HTTP/1.1\r\n");
	while (n + 8 < HTTP_MAX_HEAD)
		n += snprintf(buf + n, HTTP_MAX_HEAD - n, "X-A: b\r\n");
	memset(buf + n, 'x', HTTP_MAX_HEAD - n);
	EXPECT_EQ(http_parse_request(buf, HTTP_MAX_HEAD, &rq), -431);
	free(buf);
}

TEST(addr_split)
{
	char host[64];
	uint16_t port;

	EXPECT_FALSE(netaddr_split("127.0.0.1:9464", host, sizeof(host),
				     &port));
	EXPECT_STREQ(host, "127.0.0.1");
	EXPECT_EQ(port, 9464);
	EXPECT_FALSE(netaddr_split("[::1]:1", host, sizeof(host), &port));
	EXPECT_STREQ(host, "::1");
	EXPECT_EQ(port, 1);
	EXPECT_TRUE(strstr(netaddr_split("9464", host, sizeof(host), &port),
			   "lacks an address"));
	EXPECT_TRUE(strstr(netaddr_split(":9464", host, sizeof(host),
					   &port), "empty address"));
	EXPECT_TRUE(strstr(netaddr_split("h:65536", host, sizeof(host),
					   &port), "port from 1 to 65535"));
	EXPECT_TRUE(strstr(netaddr_split("a-rather-long-name:1", host, 8,
					   &port), "too long"));
}

/* --- the server, on loopback --------------------------------------- */

static int render_hello(void *ctx, FILE *body)
{
	(*(int *)ctx)++;
	fputs("hello\n", body);
	return 0;
}

static int render_fails(void *ctx, FILE *body)
{
	(void)ctx;
	fputs("half", body);
	return -1;
}

/* A server on a free loopback port, with /hello and /fail. */
static struct http_server *serve(int *renders, uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct http_server *s;
	char addr[64], err[256];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	/* The kernel picks a free port; the server takes it over. */
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ASSERT_EQ(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	close(fd);
	*port = ntohs(sa.sin_port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", *port);
	s = http_listen(addr, err, sizeof(err));
	if (!s)
		TH_LOG("%s", err);
	ASSERT_TRUE(s);
	EXPECT_STREQ(http_addr(s), addr);
	ASSERT_EQ(http_route(s, "/hello", "text/plain", render_hello,
			     renders), 0);
	ASSERT_EQ(http_route(s, "/fail", "text/plain", render_fails, NULL),
		  0);
	return s;
}

/* What ispotd's loop does, a few rounds, at time @now. */
static void pump(struct http_server *s, uint64_t now)
{
	struct pollfd pfd[HTTP_MAX_POLLFDS];
	int i;

	for (i = 0; i < 5; i++) {
		size_t n = http_pollfds(s, pfd);
		int ret = poll(pfd, n, 10);

		ASSERT_GE(ret, 0);
		http_service(s, pfd, ret > 0 ? n : 0, now);
	}
}

static int client_from(uint16_t port, const char *from);

/*
 * A client from one of four loopback addresses in turn, so that a pool
 * filled by a test is not one peer's (HTTP_MAX_PER_PEER).
 */
static int client(uint16_t port)
{
	static const char *const from[] = {
		"127.0.0.10", "127.0.0.11", "127.0.0.12", "127.0.0.13",
	};
	static unsigned int next;

	return client_from(port, from[next++ % 4]);
}

/* What the server sent @fd so far (without waiting), in a static buffer. */
static const char *answer(int fd)
{
	static char buf[4096];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Send @req on a new connection, run the server, return the answer. */
static const char *ask(struct http_server *s, uint16_t port, const char *req)
{
	int fd = client(port);
	const char *a;

	ASSERT_EQ(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	pump(s, NOW);
	a = answer(fd);
	close(fd);
	pump(s, NOW);
	return a;
}

TEST(server_answers)
{
	struct http_server *s;
	int renders = 0;
	uint16_t port;
	const char *a;

	s = serve(&renders, &port);
	a = ask(s, port, "GET /hello?x HTTP/1.1\r\nHost: t\r\n\r\n");
	EXPECT_EQ(strncmp(a, "HTTP/1.1 200 OK\r\n", 17), 0);
	EXPECT_TRUE(strstr(a, "\r\nContent-Type: text/plain\r\n"));
	EXPECT_TRUE(strstr(a, "\r\nContent-Length: 6\r\n"));
	EXPECT_TRUE(strstr(a, "\r\nConnection: close\r\n"));
	EXPECT_TRUE(strstr(a, "\r\n\r\nhello\n"));
	EXPECT_EQ(renders, 1);
	/* HEAD: the same head, no body. */
	a = ask(s, port, "HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n");
	EXPECT_TRUE(strstr(a, "\r\nContent-Length: 6\r\n"));
	EXPECT_FALSE(strstr(a, "hello"));
	a = ask(s, port, "GET /other HTTP/1.1\r\nHost: t\r\n\r\n");
	EXPECT_EQ(strncmp(a, "HTTP/1.1 404 ", 13), 0);
	a = ask(s, port, "POST /hello HTTP/1.1\r\nHost: t\r\n\r\n");
	EXPECT_EQ(strncmp(a, "HTTP/1.1 405 ", 13), 0);
	EXPECT_TRUE(strstr(a, "\r\nAllow: GET, HEAD\r\n"));
	a = ask(s, port, "GET /fail HTTP/1.1\r\nHost: t\r\n\r\n");
	EXPECT_EQ(strncmp(a, "HTTP/1.1 500 ", 13), 0);
	EXPECT_FALSE(strstr(a, "half"));
	a = ask(s, port, "\x16\x03\x01 TLS hello\r\n");
	EXPECT_EQ(strncmp(a, "HTTP/1.1 400 ", 13), 0);
	a = ask(s, port, "GET /hello HTTP/3.0\r\n");
	EXPECT_EQ(strncmp(a, "HTTP/1.1 505 ", 13), 0);
	EXPECT_EQ(renders, 2);
	EXPECT_EQ(http_nr_conns(s), 0);
	http_free(s);
}

/* A request line longer than the head buffer: 414, the server goes on. */
TEST(server_oversized_request)
{
	char *big = malloc(4 * HTTP_MAX_HEAD + 1);
	struct http_server *s;
	int renders = 0, fd;
	uint16_t port;
	const char *a;

	ASSERT_TRUE(big);
	s = serve(&renders, &port);
	memset(big, 'a', 4 * HTTP_MAX_HEAD);
	memcpy(big, "GET /", 5);
	big[4 * HTTP_MAX_HEAD] = '\0';
	fd = client(port);
	ASSERT_EQ(send(fd, big, strlen(big), 0), (ssize_t)strlen(big));
	pump(s, NOW);
	a = answer(fd);
	EXPECT_EQ(strncmp(a, "HTTP/1.1 414 ", 13), 0);
	close(fd);
	pump(s, NOW);
	EXPECT_EQ(http_nr_conns(s), 0);
	a = ask(s, port, "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n");
	EXPECT_EQ(strncmp(a, "HTTP/1.1 200 ", 13), 0);
	free(big);
	http_free(s);
}

/* A client that sends half a request and waits: 408 at the deadline. */
TEST(server_times_out_silent_clients)
{
	struct http_server *s;
	int renders = 0, fd;
	uint16_t port;

	s = serve(&renders, &port);
	fd = client(port);
	ASSERT_EQ(send(fd, "GET /hel", 8, 0), 8);
	pump(s, NOW);
	EXPECT_EQ(http_nr_conns(s), 1);
	EXPECT_EQ(http_deadline(s), NOW + HTTP_TIMEOUT_NS);
	pump(s, NOW + HTTP_TIMEOUT_NS - 1);
	EXPECT_EQ(http_nr_conns(s), 1);
	EXPECT_STREQ(answer(fd), "");
	pump(s, NOW + HTTP_TIMEOUT_NS);
	EXPECT_EQ(http_nr_conns(s), 0);
	EXPECT_EQ(http_deadline(s), UINT64_MAX);
	EXPECT_EQ(strncmp(answer(fd), "HTTP/1.1 408 ", 13), 0);
	close(fd);
	http_free(s);
}

/*
 * HTTP_MAX_CONNS silent clients, and one more: the oldest silent one
 * makes room, so that a scraper is never locked out by idle sockets.
 */
TEST(server_bounded_connections)
{
	int fd[HTTP_MAX_CONNS + 1], renders = 0, i;
	struct http_server *s;
	uint16_t port;
	const char *a;

	s = serve(&renders, &port);
	for (i = 0; i < HTTP_MAX_CONNS; i++) {
		fd[i] = client(port);
		/* Accepted in order: each its own moment. */
		pump(s, NOW + i);
	}
	EXPECT_EQ(http_nr_conns(s), HTTP_MAX_CONNS);
	a = ask(s, port, "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n");
	EXPECT_EQ(strncmp(a, "HTTP/1.1 200 ", 13), 0);
	EXPECT_EQ(strncmp(answer(fd[0]), "HTTP/1.1 408 ", 13), 0);
	EXPECT_STREQ(answer(fd[1]), "");
	EXPECT_LE(http_nr_conns(s), HTTP_MAX_CONNS);
	for (i = 0; i < HTTP_MAX_CONNS; i++)
		close(fd[i]);
	pump(s, NOW + HTTP_TIMEOUT_NS + HTTP_MAX_CONNS);
	EXPECT_EQ(http_nr_conns(s), 0);
	http_free(s);
}

/* A client whose socket is bound to loopback address @from first. */
static int client_from(uint16_t port, const char *from)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(port),
	};
	struct sockaddr_in me = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(inet_pton(AF_INET, from, &me.sin_addr), 1);
	ASSERT_EQ(bind(fd, (struct sockaddr *)&me, sizeof(me)), 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/*
 * A full pool of clients that were answered and keep their sockets open
 * (the server lingers on each for HTTP_LINGER_NS): a scraper still gets
 * its answer, because an answered connection is the first to go.
 */
TEST(server_answered_clients_cannot_lock_out_a_scraper)
{
	const char *req = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n";
	int fd[HTTP_MAX_CONNS], renders = 0, i;
	struct http_server *s;
	uint16_t port;
	const char *a;

	s = serve(&renders, &port);
	for (i = 0; i < HTTP_MAX_CONNS; i++) {
		fd[i] = client(port);
		ASSERT_EQ(send(fd[i], req, strlen(req), 0),
			  (ssize_t)strlen(req));
		pump(s, NOW + i);
	}
	EXPECT_EQ(http_nr_conns(s), HTTP_MAX_CONNS);
	EXPECT_EQ(renders, HTTP_MAX_CONNS);
	a = ask(s, port, req);
	EXPECT_EQ(strncmp(a, "HTTP/1.1 200 ", 13), 0);
	EXPECT_EQ(renders, HTTP_MAX_CONNS + 1);
	for (i = 0; i < HTTP_MAX_CONNS; i++)
		close(fd[i]);
	http_free(s);
}

/*
 * The load of the report that asked for this policy, made harder: each
 * round, twice the pool of clients ask and keep their sockets open, then
 * a scraper asks.  Every scrape of 40 must be answered.
 */
TEST(server_scrapes_through_clients_that_keep_asking)
{
	const char *req = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n";
	int fd[2 * HTTP_MAX_CONNS], renders = 0, round, i, ok = 0;
	struct http_server *s;
	uint16_t port;
	uint64_t t = NOW;

	s = serve(&renders, &port);
	for (i = 0; i < 2 * HTTP_MAX_CONNS; i++)
		fd[i] = -1;
	for (round = 0; round < 40; round++) {
		for (i = 0; i < 2 * HTTP_MAX_CONNS; i++) {
			if (fd[i] >= 0)
				close(fd[i]);
			fd[i] = client(port);
			ASSERT_EQ(send(fd[i], req, strlen(req), 0),
				  (ssize_t)strlen(req));
			if (i % 16 == 15)
				pump(s, t);
		}
		t += 50 * 1000 * 1000ull;	/* well inside the linger */
		ok += !strncmp(ask(s, port, req), "HTTP/1.1 200 ", 13);
	}
	TH_LOG("%d of 40 scrapes answered", ok);
	EXPECT_EQ(ok, 40);
	EXPECT_LE(http_nr_conns(s), HTTP_MAX_CONNS);
	for (i = 0; i < 2 * HTTP_MAX_CONNS; i++)
		close(fd[i]);
	http_free(s);
}

/*
 * One address that floods the pool with silent sockets gives up its own
 * connections, not the half-sent request of another address.
 */
TEST(server_one_peer_flood_evicts_itself)
{
	int fd[HTTP_MAX_CONNS + 1], other, renders = 0, i;
	struct http_server *s;
	uint16_t port;

	s = serve(&renders, &port);
	other = client_from(port, "127.0.0.3");
	ASSERT_EQ(send(other, "GET /hel", 8, 0), 8);
	pump(s, NOW);
	for (i = 0; i <= HTTP_MAX_CONNS; i++) {
		fd[i] = client_from(port, "127.0.0.2");
		pump(s, NOW + 1 + i);
	}
	EXPECT_LE(http_nr_conns(s), HTTP_MAX_PER_PEER + 1);
	/* The flood's oldest went first; the other address still waits. */
	EXPECT_EQ(strncmp(answer(fd[0]), "HTTP/1.1 408 ", 13), 0);
	EXPECT_STREQ(answer(other), "");
	ASSERT_EQ(send(other, "lo HTTP/1.1\r\nHost: t\r\n\r\n", 27, 0), 27);
	pump(s, NOW + 2 + HTTP_MAX_CONNS);
	EXPECT_EQ(strncmp(answer(other), "HTTP/1.1 200 ", 13), 0);
	close(other);
	for (i = 0; i <= HTTP_MAX_CONNS; i++)
		close(fd[i]);
	http_free(s);
}

/* An answer far larger than a small receive buffer takes: 1 MiB. */
static int render_big(void *ctx, FILE *body)
{
	int i;

	(void)ctx;
	for (i = 0; i < 1024; i++)
		fprintf(body, "%01023d\n", i);
	return 0;
}

/*
 * A client from @from that asks for @path with a small receive buffer
 * and reads nothing: its answer stops in the sockets.
 */
static int client_not_reading(uint16_t port, const char *from,
			      const char *path)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(port),
	};
	struct sockaddr_in me = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0), small = 4096;
	char req[128];
	int len;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small,
			     sizeof(small)), 0);
	ASSERT_EQ(inet_pton(AF_INET, from, &me.sin_addr), 1);
	ASSERT_EQ(bind(fd, (struct sockaddr *)&me, sizeof(me)), 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	len = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: t\r\n\r\n",
		       path);
	ASSERT_EQ(send(fd, req, len, 0), (ssize_t)len);
	return fd;
}

/* Read @fd until its end (0) or for a second without a byte (-1). */
static int read_to_end(int fd)
{
	struct timeval second = { .tv_sec = 1 };
	char buf[4096];
	ssize_t n;

	ASSERT_EQ(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &second,
			     sizeof(second)), 0);
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		;
	return n == 0 ? 0 : -1;
}

/* A scrape from an address of its own at @now: the status line's code. */
static int scrape_at(struct http_server *s, uint16_t port, uint64_t now)
{
	const char *req = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n";
	int fd = client_from(port, "127.0.0.30"), code = 0;
	const char *a;

	ASSERT_EQ(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	pump(s, now);
	a = answer(fd);
	if (!strncmp(a, "HTTP/1.1 ", 9))
		code = atoi(a + 9);
	close(fd);
	pump(s, now);
	return code;
}

/*
 * A pool filled, from two addresses at their share each, by clients that
 * ask for a large answer and never read it: while their answers are new
 * a scraper is refused (503: an answer being taken is never given up),
 * but once they have not moved for HTTP_STALL_NS one of them makes room.
 * Before, such clients held the pool to their deadlines, and could renew
 * it for as long as they liked.
 */
TEST(server_stalled_answers_cannot_lock_out_a_scraper)
{
	int fd[HTTP_MAX_CONNS], renders = 0, small_buf = 16384, i;
	struct http_server *s;
	uint16_t port;
	uint64_t t;

	s = serve(&renders, &port);
	ASSERT_EQ(http_route(s, "/big", "text/plain", render_big, NULL), 0);
	/*
	 * Accepted sockets take the listener's send buffer: a small one
	 * that does not grow, or the answer would wait in the kernel.
	 */
	ASSERT_EQ(setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &small_buf,
			     sizeof(small_buf)), 0);
	for (i = 0; i < HTTP_MAX_CONNS; i++) {
		fd[i] = client_not_reading(port, i % 2 ? "127.0.0.20" :
					   "127.0.0.21", "/big");
		pump(s, NOW + i);
	}
	t = NOW + HTTP_MAX_CONNS;
	EXPECT_EQ(http_nr_conns(s), HTTP_MAX_CONNS);
	EXPECT_EQ(scrape_at(s, port, t), 503);
	EXPECT_EQ(renders, 0);
	EXPECT_EQ(scrape_at(s, port, NOW + HTTP_STALL_NS - 1), 503);
	EXPECT_EQ(scrape_at(s, port, t + HTTP_STALL_NS), 200);
	EXPECT_EQ(renders, 1);
	/* The oldest went (both addresses hold as many): its client
	 * reads what the kernel still had of it, then the end. */
	EXPECT_EQ(http_nr_conns(s), HTTP_MAX_CONNS - 1);
	EXPECT_EQ(read_to_end(fd[0]), 0);
	for (i = 0; i < HTTP_MAX_CONNS; i++)
		close(fd[i]);
	http_free(s);
}

/*
 * Out of descriptors, the listener is left out of the poll set (no busy
 * loop on a socket that stays readable) until the pause ends; then what
 * waited in the backlog is served.
 */
TEST(server_pauses_accepting_without_descriptors)
{
	struct pollfd pfd[HTTP_MAX_POLLFDS];
	struct rlimit lim;
	int fd, spare, renders = 0;
	struct http_server *s;
	const char *a;
	const char *req = "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n";
	uint16_t port;

	s = serve(&renders, &port);
	fd = client(port);
	ASSERT_EQ(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	/*
	 * The lowest free descriptor, taken, and the limit just above it:
	 * none is left, so the next accept4() fails with EMFILE.
	 */
	spare = dup(0);
	ASSERT_GE(spare, 0);
	ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
	lim.rlim_cur = spare + 1;
	ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lim), 0);
	pump(s, NOW);
	EXPECT_EQ(http_nr_conns(s), 0);
	http_pollfds(s, pfd);
	EXPECT_EQ(pfd[0].fd, -1);
	EXPECT_EQ(http_deadline(s), NOW + 1000000000ull);
	/* Room again, and the pause over: the request is answered. */
	close(spare);
	pump(s, NOW + 1000000000ull);
	a = answer(fd);
	EXPECT_EQ(strncmp(a, "HTTP/1.1 200 ", 13), 0);
	EXPECT_EQ(renders, 1);
	http_free(s);
}

TEST(listen_errors)
{
	struct http_server *s;
	char err[256], addr[64];
	int renders = 0;
	uint16_t port;

	s = serve(&renders, &port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	EXPECT_FALSE(http_listen(addr, err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "the port is in use"));
	EXPECT_TRUE(strstr(err, addr));
	http_free(s);
	/* TEST-NET-1 (RFC 5737): no host has it. */
	EXPECT_FALSE(http_listen("192.0.2.1:9464", err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "no interface of this host has that address"));
	EXPECT_FALSE(http_listen("[::1:9464", err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "--listen '[::1:9464' lacks the ']'"));
	EXPECT_FALSE(http_listen("300.1.2.3:9464", err, sizeof(err)));
	EXPECT_TRUE(strstr(err, "'300.1.2.3' is neither an IP address"));
	EXPECT_FALSE(strchr(err, '\n'));
}

TEST_HARNESS_MAIN
