// SPDX-License-Identifier: GPL-2.0
/*
 * Which connection the server gives up when its pool is full or a peer
 * holds its share of it (http.h, "Limits"), so that neither idle sockets
 * nor one busy peer can lock a scraper out.
 */
#include <netinet/in.h>
#include <string.h>

#include "http_internal.h"

void http_sweep(struct http_server *s)
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
 * one that has sent nothing yet, one halfway through its request, and
 * last one whose client has taken none of its answer for HTTP_STALL_NS
 * up to @now.  One whose answer moves is never given up: its work is
 * done and a client takes it.  A stalled one held its place to its
 * deadline: clients that asked for /metrics and never read it, from as
 * many loopback addresses as it took to fill the pool, locked a scraper
 * out (503) for as long as they went on.
 */
static int http_evict_rank(const struct http_conn *c, uint64_t now)
{
	if (c->state == HTTP_LINGERING)
		return 0;
	if (c->state == HTTP_READING)
		return c->in_len ? 2 : 1;
	if (now >= c->moved && now - c->moved >= HTTP_STALL_NS)
		return 3;
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
 * The connection to give up for a newcomer at @now: the lowest rank, then
 * the peer holding the most connections (a flood pays for itself before
 * it costs anyone else), then the oldest.  With @peer set, only that
 * peer's own connections are candidates.  NULL if none may go.
 */
static struct http_conn *http_victim(struct http_server *s,
				     const unsigned char *peer, size_t len,
				     uint64_t now)
{
	struct http_conn *best = NULL;
	size_t best_share = 0, i;
	int best_rank = 0;

	for (i = 0; i < s->nr_conns; i++) {
		struct http_conn *c = &s->conns[i];
		int rank = http_evict_rank(c, now);
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
 * A peer at its share of the pool gives up one of its own connections,
 * otherwise a full pool gives up the one http_victim() picks.  So neither
 * idle sockets nor answered clients that keep their sockets open can lock
 * a scraper out, and one busy peer cannot evict everyone else's requests.
 */
bool http_make_room(struct http_server *s, const unsigned char *peer,
		    size_t len, uint64_t now)
{
	struct http_conn *victim = NULL;

	if (http_peer_conns(s, peer, len) >= HTTP_MAX_PER_PEER)
		victim = http_victim(s, peer, len, now);
	if (!victim && s->nr_conns < HTTP_MAX_CONNS)
		return true;
	if (!victim)
		victim = http_victim(s, NULL, 0, now);
	if (!victim)
		return false;
	http_conn_expire(victim);
	http_sweep(s);
	return true;
}

size_t http_peer_of(const struct sockaddr_storage *sa, unsigned char peer[16])
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
