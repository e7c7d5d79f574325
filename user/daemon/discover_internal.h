/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The set of processes ispotd traces, as its two files see it
 * (discover.h): discover.c keeps and scans the set, discover_netlink.c
 * reads the kernel's process events and asks discover.c to look again.
 */
#ifndef ISPOTD_DISCOVER_INTERNAL_H
#define ISPOTD_DISCOVER_INTERNAL_H

#include <limits.h>
#include <sys/types.h>

#include "discover.h"

/* An --exe target, looked up again at each periodic pass. */
struct discover_exe {
	char *path;		/* as given */
	char *real;		/* its last realpath(), NULL if never resolved */
	dev_t dev;
	ino_t ino;		/* 0 while PATH does not exist */
};

struct discover {
	pid_t *pids;
	uint64_t *pid_start;	/* the process each pid named at the start */
	size_t nr_pids;
	struct discover_exe *exes;
	size_t nr_exes;
	char **cgroups;		/* "/a/b", from the cgroup2 root */
	size_t nr_cgroups;
	char cg_mount[PATH_MAX];

	int nl;			/* the connector's socket, or -1 */
	bool rescan;		/* a scan is due now: start, or lost events */
	uint64_t next_scan;

	struct discover_proc *procs;	/* by pid */
	size_t nr, cap;
};

/* The index of @pid in the set, or -(where it would go) - 1. */
long discover_find(const struct discover *d, pid_t pid);
void discover_remove(struct discover *d, pid_t pid);
/* Look at one process again: it started, exec'd, or was moved. */
int discover_check(struct discover *d, pid_t pid);

/*
 * The connector's socket, subscribed to process events; -1 if not (no
 * privilege, another namespace, ISPOT_DISCOVER_NO_NETLINK=1).
 */
int discover_netlink_open(void);
/* Unsubscribe and close. */
void discover_netlink_close(int fd);
/*
 * The pending events, each a process to look at again; an overflow sets
 * d->rescan.  0 or -ENOMEM.
 */
int discover_read_events(struct discover *d);

#endif /* ISPOTD_DISCOVER_INTERNAL_H */
