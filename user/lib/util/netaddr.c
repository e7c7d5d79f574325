// SPDX-License-Identifier: GPL-2.0
/* ADDR:PORT as ispotd --listen and ispotctl top --from take it; netaddr.h. */
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "util/netaddr.h"

const char *netaddr_split(const char *s, char *host, size_t hostlen,
			  uint16_t *port)
{
	static const char *const no_port =
		"lacks a port: give ADDR:PORT, e.g. 127.0.0.1:9464";
	const char *p, *h, *colon;
	size_t len, n;

	if (s[0] == '[') {
		colon = strchr(s, ']');
		if (!colon)
			return "lacks the ']' after its IPv6 address, e.g. "
			       "[::1]:9464";
		if (colon == s + 1)
			return "has an empty address: give [::]:PORT for every "
			       "IPv6 address";
		if (!colon[1])
			return no_port;
		if (colon[1] != ':')
			return "must be [V6ADDR]:PORT, e.g. [::1]:9464";
		h = s + 1;
		n = colon - h;
		p = colon + 2;
	} else {
		/* A bare port would be every address: say so, not guess. */
		if (*s && strspn(s, "0123456789") == strlen(s))
			return "lacks an address: give 127.0.0.1:PORT for this "
			       "host only, 0.0.0.0:PORT for every address";
		colon = strrchr(s, ':');
		if (!colon)
			return no_port;
		if (colon == s)
			return "has an empty address: give 127.0.0.1:PORT for "
			       "this host only, 0.0.0.0:PORT for every address";
		if (memchr(s, ':', colon - s))
			return "has an IPv6 address without brackets: write "
			       "[ADDR]:PORT, e.g. [::1]:9464";
		h = s;
		n = colon - s;
		p = colon + 1;
	}
	if (!*p)
		return no_port;
	len = strspn(p, "0123456789");
	if (p[len] || len > 5 || atoi(p) < 1 || atoi(p) > 65535)
		return "needs a port from 1 to 65535";
	if (n >= hostlen)
		return "has an address too long to be one";
	memcpy(host, h, n);
	host[n] = '\0';
	*port = atoi(p);
	return NULL;
}

bool netaddr_unscoped_link_local(const struct addrinfo *ai)
{
	const struct sockaddr_in6 *sin6 = (const void *)ai->ai_addr;

	return ai->ai_family == AF_INET6 &&
	       IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr) && !sin6->sin6_scope_id;
}
