// SPDX-License-Identifier: GPL-2.0
/* Which processes ispotd traces; see discover.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "discover.h"
#include "tasks.h"

struct discover {
	pid_t *pids;
	uint64_t *pid_start;	/* of the process first found, 0 = not yet */
	size_t nr_pids;
	char **exes;
	size_t nr_exes;
	char **cgroups;		/* "/a/b", from the cgroup2 root */
	size_t nr_cgroups;
	char cg_mount[PATH_MAX];

	int nl;			/* the connector's socket, or -1 */
	bool rescan;		/* a full /proc scan is due now */
	uint64_t next_scan;

	struct discover_proc *procs;	/* by pid */
	size_t nr, cap;
};

static const char deleted[] = " (deleted)";

/* Where cgroup2 is mounted, from /proc/self/mountinfo. */
static int cgroup2_mount(char *buf, size_t len)
{
	char line[4096], mnt[PATH_MAX], *sep;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		/* "id parent maj:min root mountpoint opts ... - fstype ..." */
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1) {
			snprintf(buf, len, "%s", mnt);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* The process's executable, " (deleted)" stripped; false for kthreads. */
static bool proc_exe(pid_t pid, char *buf, size_t len, struct stat *st)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, buf, len - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if ((size_t)n > sizeof(deleted) - 1 &&
	    !strcmp(buf + n - (sizeof(deleted) - 1), deleted))
		buf[n - (sizeof(deleted) - 1)] = '\0';
	if (stat(link, st))
		memset(st, 0, sizeof(*st));
	return true;
}

/* The cgroup2 path of @pid ("0::/a/b"), or false. */
static bool proc_cgroup(pid_t pid, char *buf, size_t len)
{
	char path[64], line[PATH_MAX + 8];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		found = strlen(line + 3) < len;
		if (found)
			memcpy(buf, line + 3, strlen(line + 3) + 1);
	}
	fclose(f);
	return found;
}

static bool cgroup_within(const char *cg, const char *target)
{
	size_t n = strlen(target);

	if (!strcmp(target, "/"))
		return true;
	return !strncmp(cg, target, n) && (cg[n] == '\0' || cg[n] == '/');
}

static bool exe_is(const char *exe, const struct stat *st, const char *want)
{
	char real[PATH_MAX];
	struct stat ws;

	if (!stat(want, &ws) && st->st_ino && ws.st_dev == st->st_dev &&
	    ws.st_ino == st->st_ino)
		return true;
	if (!realpath(want, real))
		snprintf(real, sizeof(real), "%s", want);
	return !strcmp(exe, real);
}

/* Whether @pid is a target; fills @p. */
static bool discover_match(struct discover *d, pid_t pid,
			   struct discover_proc *p)
{
	char exe[PATH_MAX], cg[PATH_MAX];
	struct stat st;
	size_t i;

	if (pid == getpid() || task_times(pid, &p->start_time, NULL))
		return false;
	p->pid = pid;
	for (i = 0; i < d->nr_pids; i++) {
		if (d->pids[i] == pid) {
			/* That process only: never its pid's next owner. */
			if (d->pid_start[i] &&
			    d->pid_start[i] != p->start_time)
				return false;
			d->pid_start[i] = p->start_time;
			p->source = DISCOVER_PID;
			p->index = i;
			return !task_exited(pid);
		}
	}
	/* Kernel threads have no executable, and are nobody's target. */
	if (!proc_exe(pid, exe, sizeof(exe), &st))
		return false;
	for (i = 0; i < d->nr_exes; i++) {
		if (exe_is(exe, &st, d->exes[i])) {
			p->source = DISCOVER_EXE;
			p->index = i;
			return true;
		}
	}
	if (d->nr_cgroups && proc_cgroup(pid, cg, sizeof(cg))) {
		for (i = 0; i < d->nr_cgroups; i++) {
			if (cgroup_within(cg, d->cgroups[i])) {
				p->source = DISCOVER_CGROUP;
				p->index = i;
				return true;
			}
		}
	}
	return false;
}

static long discover_find(const struct discover *d, pid_t pid)
{
	size_t lo = 0, hi = d->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->procs[mid].pid == pid)
			return mid;
		if (d->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -(long)lo - 1;
}

static void discover_remove(struct discover *d, pid_t pid)
{
	long i = discover_find(d, pid);

	if (i < 0)
		return;
	memmove(&d->procs[i], &d->procs[i + 1],
		(d->nr - i - 1) * sizeof(*d->procs));
	d->nr--;
}

static int discover_put(struct discover *d, const struct discover_proc *p)
{
	long i = discover_find(d, p->pid);

	if (i >= 0) {
		d->procs[i] = *p;
		return 0;
	}
	i = -i - 1;
	if (d->nr == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		struct discover_proc *n = realloc(d->procs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		d->procs = n;
		d->cap = cap;
	}
	memmove(&d->procs[i + 1], &d->procs[i],
		(d->nr - i) * sizeof(*d->procs));
	d->procs[i] = *p;
	d->nr++;
	return 0;
}

/* Check one process again: it started, exec'd, or was moved. */
static int discover_check(struct discover *d, pid_t pid)
{
	struct discover_proc p;

	if (discover_match(d, pid, &p))
		return discover_put(d, &p);
	discover_remove(d, pid);
	return 0;
}

static int discover_scan_all(struct discover *d)
{
	struct dirent *de;
	DIR *dir = opendir("/proc");
	int ret = 0;

	if (!dir)
		return -errno;
	d->nr = 0;
	while (!ret && (de = readdir(dir))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		ret = discover_check(d, (pid_t)pid);
	}
	closedir(dir);
	return ret;
}

/* A process moved into a cgroup raises no event: read cgroup.procs. */
static int discover_scan_cgroup(struct discover *d, const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	FILE *f;
	DIR *sub;
	long pid;
	int ret = 0;

	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >=
	    (int)sizeof(path))
		return 0;
	f = fopen(path, "re");
	if (f) {
		while (!ret && fscanf(f, "%ld", &pid) == 1)
			if (discover_find(d, (pid_t)pid) < 0)
				ret = discover_check(d, (pid_t)pid);
		fclose(f);
	}
	sub = opendir(dir);
	if (!sub)
		return ret;
	while (!ret && (de = readdir(sub))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) <
		    (int)sizeof(path))
			ret = discover_scan_cgroup(d, path);
	}
	closedir(sub);
	return ret;
}

/* Forget processes that are gone (an EXIT event can be lost). */
static void discover_prune(struct discover *d)
{
	size_t i, kept = 0;

	for (i = 0; i < d->nr; i++) {
		uint64_t st;

		if (!task_times(d->procs[i].pid, &st, NULL) &&
		    st == d->procs[i].start_time &&
		    !task_exited(d->procs[i].pid))
			d->procs[kept++] = d->procs[i];
	}
	d->nr = kept;
}

static int discover_netlink_open(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC,
		.nl_pid = 0,
	};
	struct {
		struct nlmsghdr nl;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) msg;
	const char *off = getenv("ISPOT_DISCOVER_NO_NETLINK");
	int fd;

	if (off && !strcmp(off, "1"))
		return -1;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_CONNECTOR);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	memset(&msg, 0, sizeof(msg));
	msg.nl.nlmsg_len = sizeof(msg);
	msg.nl.nlmsg_type = NLMSG_DONE;
	msg.nl.nlmsg_pid = getpid();
	msg.cn.id.idx = CN_IDX_PROC;
	msg.cn.id.val = CN_VAL_PROC;
	msg.cn.len = sizeof(msg.op);
	msg.op = PROC_CN_MCAST_LISTEN;
	if (send(fd, &msg, sizeof(msg), 0) != sizeof(msg))
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

struct discover *discover_new(const pid_t *pids, size_t nr_pids,
			      const char *const *exes, size_t nr_exes,
			      const char *const *cgroups, size_t nr_cgroups,
			      char *err, size_t errlen)
{
	struct discover *d = calloc(1, sizeof(*d));
	size_t i;

	if (!d)
		goto nomem;
	d->nl = -1;
	d->pids = calloc(nr_pids + 1, sizeof(*d->pids));
	d->pid_start = calloc(nr_pids + 1, sizeof(*d->pid_start));
	d->exes = calloc(nr_exes + 1, sizeof(*d->exes));
	d->cgroups = calloc(nr_cgroups + 1, sizeof(*d->cgroups));
	if (!d->pids || !d->pid_start || !d->exes || !d->cgroups)
		goto nomem;
	memcpy(d->pids, pids, nr_pids * sizeof(*pids));
	d->nr_pids = nr_pids;
	for (i = 0; i < nr_exes; i++, d->nr_exes++)
		if (!(d->exes[i] = strdup(exes[i])))
			goto nomem;
	for (i = 0; i < nr_cgroups; i++, d->nr_cgroups++)
		if (!(d->cgroups[i] = strdup(cgroups[i])))
			goto nomem;
	if (nr_cgroups && cgroup2_mount(d->cg_mount, sizeof(d->cg_mount))) {
		snprintf(err, errlen, "--cgroup needs cgroup v2, and no "
			 "cgroup2 file system is mounted: mount it (mount -t "
			 "cgroup2 none /sys/fs/cgroup)");
		discover_free(d);
		return NULL;
	}
	d->nl = discover_netlink_open();
	d->rescan = true;
	return d;
nomem:
	snprintf(err, errlen, "out of memory");
	discover_free(d);
	return NULL;
}

void discover_free(struct discover *d)
{
	size_t i;

	if (!d)
		return;
	if (d->nl >= 0)
		close(d->nl);
	for (i = 0; i < d->nr_exes; i++)
		free(d->exes[i]);
	for (i = 0; i < d->nr_cgroups; i++)
		free(d->cgroups[i]);
	free(d->exes);
	free(d->cgroups);
	free(d->pids);
	free(d->pid_start);
	free(d->procs);
	free(d);
}

int discover_fd(const struct discover *d)
{
	return d->nl;
}

bool discover_netlink(const struct discover *d)
{
	return d->nl >= 0;
}

static int discover_event(struct discover *d, const struct proc_event *ev)
{
	switch (ev->what) {
	case PROC_EVENT_FORK:
		/* Threads are forks too; only a new process matters. */
		if (ev->event_data.fork.child_pid !=
		    ev->event_data.fork.child_tgid)
			return 0;
		return discover_check(d, ev->event_data.fork.child_tgid);
	case PROC_EVENT_EXEC:
		return discover_check(d, ev->event_data.exec.process_tgid);
	case PROC_EVENT_EXIT:
		if (ev->event_data.exit.process_pid ==
		    ev->event_data.exit.process_tgid)
			discover_remove(d, ev->event_data.exit.process_tgid);
		return 0;
	default:
		return 0;
	}
}

static int discover_read_events(struct discover *d)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t n;
	int ret = 0;

	while ((n = recv(d->nl, buf, sizeof(buf), 0)) > 0) {
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;

		for (; NLMSG_OK(nh, (size_t)n) && !ret;
		     nh = NLMSG_NEXT(nh, n)) {
			struct cn_msg *cn = NLMSG_DATA(nh);

			if (nh->nlmsg_type == NLMSG_ERROR ||
			    nh->nlmsg_type == NLMSG_NOOP)
				continue;
			if (cn->id.idx != CN_IDX_PROC ||
			    cn->id.val != CN_VAL_PROC ||
			    cn->len < sizeof(struct proc_event))
				continue;
			ret = discover_event(d,
					     (struct proc_event *)cn->data);
		}
	}
	/* Events were lost: only a full scan can tell what happened. */
	if (n < 0 && errno == ENOBUFS)
		d->rescan = true;
	return ret;
}

int discover_update(struct discover *d, uint64_t now_ns)
{
	size_t i;
	int ret = 0;

	if (d->nl >= 0)
		ret = discover_read_events(d);
	if (ret)
		return ret;
	if (d->rescan || (d->nl < 0 && now_ns >= d->next_scan)) {
		d->rescan = false;
		d->next_scan = now_ns + DISCOVER_SCAN_NS;
		return discover_scan_all(d);
	}
	if (now_ns < d->next_scan)
		return 0;
	d->next_scan = now_ns + DISCOVER_SCAN_NS;
	discover_prune(d);
	for (i = 0; !ret && i < d->nr_cgroups; i++) {
		char dir[PATH_MAX];

		if (snprintf(dir, sizeof(dir), "%s%s", d->cg_mount,
			     strcmp(d->cgroups[i], "/") ? d->cgroups[i] : "") <
		    (int)sizeof(dir))
			ret = discover_scan_cgroup(d, dir);
	}
	/* A --pid target that exec'd or a late one: cheap to recheck. */
	for (i = 0; !ret && i < d->nr_pids; i++)
		if (discover_find(d, d->pids[i]) < 0)
			ret = discover_check(d, d->pids[i]);
	return ret;
}

size_t discover_procs(const struct discover *d,
		      const struct discover_proc **out)
{
	*out = d->procs;
	return d->nr;
}
