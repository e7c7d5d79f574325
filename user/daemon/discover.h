/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which processes ispotd traces: --pid, --exe and --cgroup, kept up to
 * date as processes start, exec, move and exit.
 *
 * A process is its (pid, start time): a reused pid is another process.
 *
 * How processes are found:
 *  - At the first discover_update(), a full scan of /proc.
 *  - With the kernel's process events connector (netlink; the initial
 *    pid and user namespaces, and CAP_NET_ADMIN on older kernels), each
 *    fork and exec is checked against the targets as it is read, and an
 *    exit removes the process.  The subscription is confirmed by the
 *    kernel's acknowledgement: in a container the kernel ignores it
 *    without a word, and scanning is then the only way.  If the socket
 *    overflowed (ENOBUFS), events were lost, and /proc is scanned again.
 *  - Without the connector, /proc is scanned every DISCOVER_SCAN_NS.
 *  - Every DISCOVER_SCAN_NS in any case, each process in the set is
 *    checked again (gone, exec'd into another binary, moved out of its
 *    cgroup), and each --cgroup target's cgroup.procs files, its
 *    descendants' included, are read: moving a process into a cgroup
 *    raises no event.  cgroup.procs lists only the processes that are in
 *    the cgroup, so this costs what the targets hold, not what the host
 *    runs.
 *
 * Matching:
 *  --pid PID: the process that had that pid at discover_new(), until it
 *    exits; a later process given the same pid is not it.
 *  --exe PATH: /proc/PID/exe is the same file as PATH (same device and
 *    inode), or names PATH's real path, " (deleted)" or not: a binary
 *    replaced by an upgrade still matches the processes that run the old
 *    one, and the new one matches those started after.  PATH is looked
 *    up again at each periodic pass.  A fork child runs its parent's
 *    binary, so it matches too.
 *  --cgroup PATH, from the cgroup2 root ("/a/b", as config.c gives it):
 *    the process's cgroup2 path ("0::/a/b/c" in /proc/PID/cgroup) is
 *    PATH or below it: "/a/b/c" is within "/a/b", "/a/bc" is not.
 * The first target that matches gives the source and index, --pid
 * before --exe before --cgroup.  Kernel threads (no executable) and the
 * calling process itself never match, zombies neither.
 *
 * Memory follows the number of matching processes, not the number of
 * events.  Nothing here is thread-safe.
 *
 * ISPOT_DISCOVER_NO_NETLINK=1 in the environment of discover_new() forces
 * scans only, as in a container (for the tests of the fallback).
 *
 * The set and its scans are discover.c, the connector discover_netlink.c,
 * and what /proc and cgroupfs say of a process procfs.h.
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
	uint64_t start_time;	/* clock ticks since boot, /proc/PID/stat */
	enum discover_source source;
	size_t index;		/* into the --pid, --exe or --cgroup array */
};

struct discover;

/*
 * Copies the arrays.  NULL and a one-line reason in @err on failure (no
 * cgroup2 mount while @cgroups are given, out of memory).
 */
struct discover *discover_new(const pid_t *pids, size_t nr_pids,
			      const char *const *exes, size_t nr_exes,
			      const char *const *cgroups, size_t nr_cgroups,
			      char *err, size_t errlen);
void discover_free(struct discover *d);

/*
 * A reload: each --pid of @d that @old had too names the process it
 * named in @old, not the one that has the pid now (the first may have
 * exited, and its pid gone to another user's process), so that reading
 * the configuration again never adds a process.
 */
void discover_keep_pids(struct discover *d, const struct discover *old);

/*
 * At start, what is given but not there: a --pid with no process (one
 * line each; with nothing else to trace, -1: exit 1), an --exe with no
 * file yet (traced once it runs, which may be later: a note); and an
 * --exe that is a link, since what runs is the file it names, whatever
 * name ran it (/bin/true, busybox's, is every busybox process).  0 or -1.
 */
int discover_say_absent(const struct discover *d);

/* The connector's socket, to poll for POLLIN; -1 when only scanning. */
int discover_fd(const struct discover *d);
/* Whether the connector is in use (the daemon says so once if not). */
bool discover_netlink(const struct discover *d);

/*
 * Read the pending events without blocking, and scan when due: at the
 * first call, after an overflow, and when @now_ns (CLOCK_MONOTONIC) is
 * DISCOVER_SCAN_NS past the last scan.  Returns 0 or -errno (-ENOMEM, or
 * /proc unreadable); the set is then what could be learnt.
 */
int discover_update(struct discover *d, uint64_t now_ns);

/*
 * The matching processes, sorted by pid, in *@out: valid until the next
 * discover_update() or discover_free().
 */
size_t discover_procs(const struct discover *d,
		      const struct discover_proc **out);

#endif /* ISPOT_DISCOVER_H */
