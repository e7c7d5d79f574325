/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What /proc and the cgroup2 file system say of a process, as ispotd's
 * discovery (discover.h) matches it against --exe and --cgroup: its
 * executable, its cgroup2 path, and where cgroup2 is mounted.
 */
#ifndef ISPOTD_PROCFS_H
#define ISPOTD_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Where cgroup2 is mounted, from /proc/self/mountinfo, into @buf:
 * /sys/fs/cgroup on a unified system, /sys/fs/cgroup/unified on a hybrid
 * one.  A mount of the hierarchy's root is preferred: target paths are
 * from the root.  0, -ENOENT if none, or -errno.
 */
int cgroup2_mount(char *buf, size_t len);

/*
 * The process's executable, " (deleted)" stripped, and its stat (st_ino
 * 0 if that failed); false for kernel threads and zombies, which have
 * none.
 */
bool proc_exe(pid_t pid, char *buf, size_t len, struct stat *st);

/* The cgroup2 path of @pid (the "0::/a/b" line), or false. */
bool proc_cgroup(pid_t pid, char *buf, size_t len);

/* "/a/b/c" and "/a/b" are within "/a/b"; "/a/bc" is not. */
bool cgroup_within(const char *cg, const char *target);

/* A copy of the cgroup path @s without trailing slashes ("/" stays). */
char *cgroup_path_dup(const char *s);

#endif /* ISPOTD_PROCFS_H */
