/* SPDX-License-Identifier: GPL-2.0 */
/*
 * systemd's readiness protocol, by hand (libc only): one datagram with
 * "READY=1", "RELOADING=1", "STOPPING=1" or "STATUS=..." lines to the
 * AF_UNIX socket named by $NOTIFY_SOCKET ('@' = abstract namespace).
 * Without $NOTIFY_SOCKET it does nothing, as sd_notify(3) does.
 */
#ifndef ISPOT_NOTIFY_H
#define ISPOT_NOTIFY_H

/* Returns 1 if sent, 0 if there is no socket to tell, -errno on failure. */
int notify_send(const char *state);

#endif /* ISPOT_NOTIFY_H */
