// SPDX-License-Identifier: GPL-2.0
/* A small non-blocking HTTP/1.1 server for a poll loop; see http.h. */
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http.h"
#include "util/netaddr.h"

/* Connections accepted per http_service(): a flood waits its turn. */
#define HTTP_ACCEPT_BATCH	64
/* Bytes read and dropped per lingering connection per http_service(). */
#define HTTP_LINGER_BATCH	(64 * 1024)
#define HTTP_BACKLOG		64
/*
 * Out of file descriptors (or memory) to accept with, the listening socket
 * stays readable: stop polling it this long rather than spin, and let the
 * backlog wait (a scraper retries; the drain loop must not starve).
 */
#define HTTP_ACCEPT_PAUSE_NS	(1000 * 1000 * 1000ull)

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
	int fd;
	char *addr;
	struct http_route routes[HTTP_MAX_ROUTES];
	size_t nr_routes;
	struct http_conn conns[HTTP_MAX_CONNS];
	size_t nr_conns;
	uint64_t accept_paused_until;	/* 0: accepting */
};

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
	const char *end = buf + len, *p, *lend, *next;
	int ret, hosts = 0;

	memset(rq, 0, sizeof(*rq));
	lend = http_line(buf, end, &next);
	if (!lend)
		return len >= HTTP_MAX_HEAD ? -414 : 0;
	ret = http_parse_request_line(buf, lend, rq);
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
	freeaddrinfo(res);
	if (fd < 0) {
		http_bind_error(addr, bind_err, err, errlen);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->addr = strdup(addr))) {
		free(s);
		close(fd);
		snprintf(err, errlen, "out of memory listening on %s", addr);
		return NULL;
	}
	s->fd = fd;
	return s;
}

static void http_conn_close(struct http_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
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

static const char *http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	}
	return "Error";
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

/*
 * The whole response in one buffer: a head, then @body unless @head_only
 * (HEAD keeps the Content-Length GET would have).  NULL without memory.
 */
static char *http_response(int status, const char *content_type,
			   const char *body, size_t body_len, bool head_only,
			   size_t *len)
{
	char head[512], date[64];
	struct tm tm;
	time_t t = time(NULL);
	size_t n;
	char *out;

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %d %s\r\n"
		     "Content-Type: %s\r\n"
		     "Content-Length: %zu\r\n"
		     "Date: %s\r\n"
		     "%s"
		     "Connection: close\r\n\r\n",
		     status, http_reason(status), content_type, body_len, date,
		     status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (n >= sizeof(head))
		return NULL;
	if (head_only)
		body_len = 0;
	out = malloc(n + body_len);
	if (!out)
		return NULL;
	memcpy(out, head, n);
	memcpy(out + n, body, body_len);
	*len = n + body_len;
	return out;
}

/* An answer that is sent now or never: errors on the way to a close. */
static void http_send_now(int fd, int status)
{
	const char *body = http_error_body(status);
	size_t len;
	char *out = http_response(status, "text/plain; charset=utf-8", body,
				  strlen(body), false, &len);

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
	c->out = http_response(status, content_type, body, body_len,
			       head_only, &c->out_len);
	if (!c->out) {
		http_conn_close(c);
		return;
	}
	c->out_off = 0;
	c->state = HTTP_WRITING;
	c->deadline = now + HTTP_TIMEOUT_NS;
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

static void http_conn_event(struct http_server *s, struct http_conn *c,
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

static void http_conn_expire(struct http_conn *c)
{
	if (c->state == HTTP_READING)
		http_send_now(c->fd, 408);
	http_conn_close(c);
}

static struct http_conn *http_find_conn(struct http_server *s, int fd)
{
	size_t i;

	for (i = 0; i < s->nr_conns; i++)
		if (s->conns[i].fd == fd)
			return &s->conns[i];
	return NULL;
}

/* Forget the closed connections, keeping the others in order. */
static void http_sweep(struct http_server *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr_conns; i++)
		if (s->conns[i].fd >= 0)
			s->conns[n++] = s->conns[i];
	s->nr_conns = n;
}

/*
 * Which connection to give up first when the pool is full, lowest first:
 * one already answered (it lingers only to keep its answer from a reset),
 * one that has sent nothing yet, one halfway through its request.  One
 * being answered is never given up: its work is done and a client waits
 * for it.
 */
static int http_evict_rank(const struct http_conn *c)
{
	if (c->state == HTTP_LINGERING)
		return 0;
	if (c->state == HTTP_READING)
		return c->in_len ? 2 : 1;
	return -1;
}

static bool http_same_peer(const struct http_conn *a,
			   const unsigned char *peer, size_t len)
{
	return a->peer_len == len && !memcmp(a->peer, peer, len);
}

static size_t http_peer_conns(const struct http_server *s,
			      const unsigned char *peer, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr_conns; i++)
		n += http_same_peer(&s->conns[i], peer, len);
	return n;
}

/*
 * The connection to give up for a newcomer: the lowest rank, then the
 * peer holding the most connections (a flood pays for itself before it
 * costs anyone else), then the oldest.  With @peer set, only that peer's
 * own connections are candidates.  NULL if none may go.
 */
static struct http_conn *http_victim(struct http_server *s,
				     const unsigned char *peer, size_t len)
{
	struct http_conn *best = NULL;
	size_t best_share = 0, i;
	int best_rank = 0;

	for (i = 0; i < s->nr_conns; i++) {
		struct http_conn *c = &s->conns[i];
		int rank = http_evict_rank(c);
		size_t share;

		if (rank < 0 || (peer && !http_same_peer(c, peer, len)))
			continue;
		share = http_peer_conns(s, c->peer, c->peer_len);
		if (!best || rank < best_rank ||
		    (rank == best_rank && share > best_share) ||
		    (rank == best_rank && share == best_share &&
		     c->since < best->since)) {
			best = c;
			best_rank = rank;
			best_share = share;
		}
	}
	return best;
}

/*
 * Room for a newcomer from @peer: a peer at its share of the pool gives up
 * one of its own connections, otherwise a full pool gives up the one
 * http_victim() picks.  So neither idle sockets nor answered clients that
 * keep their sockets open can lock a scraper out, and one busy peer cannot
 * evict everyone else's requests.
 */
static bool http_make_room(struct http_server *s, const unsigned char *peer,
			   size_t len)
{
	struct http_conn *victim = NULL;

	if (http_peer_conns(s, peer, len) >= HTTP_MAX_PER_PEER)
		victim = http_victim(s, peer, len);
	if (!victim && s->nr_conns < HTTP_MAX_CONNS)
		return true;
	if (!victim)
		victim = http_victim(s, NULL, 0);
	if (!victim)
		return false;
	http_conn_expire(victim);
	http_sweep(s);
	return true;
}

/* The address part of @sa, which accept4() filled, into @peer. */
static size_t http_peer_of(const struct sockaddr_storage *sa,
			   unsigned char peer[16])
{
	if (sa->ss_family == AF_INET) {
		memcpy(peer, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 4;
	}
	if (sa->ss_family == AF_INET6) {
		memcpy(peer, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 16;
	}
	return 0;
}

static void http_accept(struct http_server *s, uint64_t now)
{
	int i;

	for (i = 0; i < HTTP_ACCEPT_BATCH; i++) {
		struct sockaddr_storage sa;
		socklen_t salen = sizeof(sa);
		unsigned char peer[16];
		struct http_conn *c;
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
		if (!http_make_room(s, peer, peer_len)) {
			http_send_now(fd, 503);
			close(fd);
			continue;
		}
		c = &s->conns[s->nr_conns];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		memcpy(c->peer, peer, peer_len);
		c->peer_len = peer_len;
		c->in = malloc(HTTP_MAX_HEAD);
		if (!c->in) {
			http_conn_close(c);
			continue;
		}
		c->state = HTTP_READING;
		c->since = now;
		c->deadline = now + HTTP_TIMEOUT_NS;
		s->nr_conns++;
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
