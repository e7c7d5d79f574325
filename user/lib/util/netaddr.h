/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One reading of "ADDR:PORT" for the server (ispotd --listen) and the
 * client (ispotctl top --from), so that what one accepts the other does.
 */
#ifndef ISPOT_NETADDR_H
#define ISPOT_NETADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct addrinfo;

/*
 * Split "HOST:PORT" or "[V6ADDR]:PORT" into @host (brackets removed) and
 * @port (1-65535).  A bare port is refused rather than read as every
 * address.  Returns NULL, or what is wrong, as words that follow the value
 * in an error ("'9464' lacks an address: ...").
 */
const char *netaddr_split(const char *s, char *host, size_t hostlen,
			  uint16_t *port);

/*
 * Whether @ai is an fe80:: address without its %INTERFACE, which bind()
 * and connect() refuse with only EINVAL.
 */
bool netaddr_unscoped_link_local(const struct addrinfo *ai);

#endif /* ISPOT_NETADDR_H */
