/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which processes ispotd traces: --pid, --exe and --cgroup, kept up to
 * date as processes start, exec and exit.
 *
 * A process is its (pid, start time): a reused pid is another process.
 * New processes are learnt from the kernel's process events connector
 * (netlink; needs CAP_NET_ADMIN): a fork or an exec is checked against
 * the targets at once, an exit removes the process.  Without the
 * connector, or when its socket overflowed (ENOBUFS), /proc is scanned
 * instead, every DISCOVER_SCAN_NS.  Moving a process into a cgroup raises
 * no event, so --cgroup targets are rescanned every DISCOVER_SCAN_NS in
 * any case, and every known process is checked to still exist.
 *
 * Matching:
 *  --exe PATH: /proc/PID/exe is the same file as PATH (same device and
 *    inode), or names PATH, " (deleted)" or not: a binary replaced by an
 *    upgrade still matches the processes that run the old one.
 *  --cgroup PATH (from the cgroup2 root, "/a/b"): the process's cgroup is
 *    /a/b or below it ("/a/b/c", not "/a/bc").
 *  --pid PID: that process, until it exits.
 * Kernel threads and ispotd itself never match.
 *
 * ISPOT_DISCOVER_NO_NETLINK=1 in the environment forces scans only (for
 * tests of the fallback).
 */
#ifndef ISPOT_DISCOVER_H
#define ISPOT_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DISCOVER_SCAN_NS	(1000 * 1000000ull)

enum discover_source { DISCOVER_PID, DISCOVER_EXE, DISCOVER_CGROUP };

struct discover_proc {
	pid_t pid;
	uint64_t start_time;	/* clock ticks since boot */
	enum discover_source source;
	size_t index;		/* which --pid, --exe or --cgroup */
};

struct discover;

/* NULL and a one-line reason in @err (e.g. no cgroup2 mount). */
struct discover *discover_new(const pid_t *pids, size_t nr_pids,
			      const char *const *exes, size_t nr_exes,
			      const char *const *cgroups, size_t nr_cgroups,
			      char *err, size_t errlen);
void discover_free(struct discover *d);

/* The connector's socket, to poll for POLLIN; -1 when only scanning. */
int discover_fd(const struct discover *d);
bool discover_netlink(const struct discover *d);

/* Read pending events and rescan when due.  Returns 0 or -errno. */
int discover_update(struct discover *d, uint64_t now_ns);

/* The matching processes, by pid. */
size_t discover_procs(const struct discover *d,
		      const struct discover_proc **out);

#endif /* ISPOT_DISCOVER_H */
