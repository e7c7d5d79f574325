// SPDX-License-Identifier: GPL-2.0
/* Which processes ispotd traces; see discover.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "discover.h"
#include "trace/tasks.h"

/*
 * The kernel answers a subscription from within send(); the wait only
 * covers a kernel that would not, and a container, where no answer comes.
 */
#define DISCOVER_ACK_MS		250
/*
 * The default receive buffer holds a few hundred events: a burst of forks
 * (a build, a shell loop) would overflow it and cost a full scan.
 */
#define DISCOVER_RCVBUF		(1 << 20)
/* Datagrams read per update, so that a fork storm cannot hold the daemon. */
#define DISCOVER_MAX_READS	1024
/* The start time of a --pid that named no process at discover_new(). */
#define DISCOVER_NO_PROCESS	UINT64_MAX

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

/* The subscription message: a connector header and one operation. */
struct discover_mcast {
	struct nlmsghdr nl;
	struct cn_msg cn;
	__u32 op;		/* enum proc_cn_mcast_op */
} __attribute__((packed));

static const char deleted[] = " (deleted)";

/* mountinfo writes ' ', '\t', '\n' and '\\' in a path as "\040" etc. */
static void unescape_octal(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 |
				 (s[3] - '0');
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/*
 * Where cgroup2 is mounted, from /proc/self/mountinfo: /sys/fs/cgroup on
 * a unified system, /sys/fs/cgroup/unified on a hybrid one.  A mount of
 * the hierarchy's root is preferred: target paths are from the root.
 */
static int cgroup2_mount(char *buf, size_t len)
{
	char *line = NULL, root[PATH_MAX], mnt[PATH_MAX], *sep;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t cap = 0;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		/* "id parent maj:min root mountpoint opts [opt...] - fstype" */
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2)
			continue;
		unescape_octal(mnt);
		if (ret || !strcmp(root, "/")) {
			snprintf(buf, len, "%s", mnt);
			ret = 0;
		}
		if (!strcmp(root, "/"))
			break;
	}
	free(line);
	fclose(f);
	return ret;
}

/*
 * The process's executable, " (deleted)" stripped, and its stat; false
 * for kernel threads and zombies, which have none.
 */
static bool proc_exe(pid_t pid, char *buf, size_t len, struct stat *st)
{
	char link[64];
	size_t tail = sizeof(deleted) - 1;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, buf, len - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if ((size_t)n > tail && !strcmp(buf + n - tail, deleted))
		buf[n - tail] = '\0';
	if (stat(link, st))
		st->st_ino = 0;
	return true;
}

/* The cgroup2 path of @pid (the "0::/a/b" line), or false. */
static bool proc_cgroup(pid_t pid, char *buf, size_t len)
{
	char path[64], *line = NULL;
	bool found = false;
	size_t cap = 0, n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "0::", 3))
			continue;
		n = strcspn(line + 3, "\n");
		found = n < len;
		if (found) {
			memcpy(buf, line + 3, n);
			buf[n] = '\0';
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* "/a/b/c" and "/a/b" are within "/a/b"; "/a/bc" is not. */
static bool cgroup_within(const char *cg, const char *target)
{
	size_t n = strlen(target);

	if (!strcmp(target, "/"))
		return cg[0] == '/';
	return !strncmp(cg, target, n) && (cg[n] == '\0' || cg[n] == '/');
}

static bool exe_is(const struct discover_exe *e, const char *exe,
		   const struct stat *st)
{
	if (e->ino && st->st_ino && e->dev == st->st_dev &&
	    e->ino == st->st_ino)
		return true;
	/* Replaced since it started: the path is all that is left. */
	return !strcmp(exe, e->real ? e->real : e->path);
}

/*
 * An upgrade gives PATH a new inode, and a symlink may be pointed
 * elsewhere: both are looked up again at each periodic pass.  A PATH
 * that is missing for a moment keeps its last real path.
 */
static void discover_exes_refresh(struct discover *d)
{
	size_t i;

	for (i = 0; i < d->nr_exes; i++) {
		struct discover_exe *e = &d->exes[i];
		char *real = realpath(e->path, NULL);
		struct stat st;

		if (real) {
			free(e->real);
			e->real = real;
		}
		if (stat(e->path, &st)) {
			e->ino = 0;
		} else {
			e->dev = st.st_dev;
			e->ino = st.st_ino;
		}
	}
}

/* Whether @pid is a target now; fills @p. */
static bool discover_match(struct discover *d, pid_t pid,
			   struct discover_proc *p)
{
	char exe[PATH_MAX], cg[PATH_MAX];
	bool found = false;
	uint64_t start, again;
	struct stat st;
	size_t i;

	if (pid <= 0 || pid == getpid() || proc_start_time(pid, &start))
		return false;
	for (i = 0; !found && i < d->nr_pids; i++) {
		/* That process only: never its pid's next owner. */
		if (d->pids[i] != pid || d->pid_start[i] != start ||
		    task_exited(pid))
			continue;
		p->source = DISCOVER_PID;
		p->index = i;
		found = true;
	}
	if (!found && (d->nr_exes || d->nr_cgroups) &&
	    proc_exe(pid, exe, sizeof(exe), &st)) {
		for (i = 0; !found && i < d->nr_exes; i++) {
			if (!exe_is(&d->exes[i], exe, &st))
				continue;
			p->source = DISCOVER_EXE;
			p->index = i;
			found = true;
		}
		if (!found && d->nr_cgroups &&
		    proc_cgroup(pid, cg, sizeof(cg))) {
			for (i = 0; !found && i < d->nr_cgroups; i++) {
				if (!cgroup_within(cg, d->cgroups[i]))
					continue;
				p->source = DISCOVER_CGROUP;
				p->index = i;
				found = true;
			}
		}
	}
	/* What was read may be a newer owner's of the pid: check. */
	if (!found || proc_start_time(pid, &again) || again != start)
		return false;
	p->pid = pid;
	p->start_time = start;
	return true;
}

/* The index of @pid in the set, or -(where it would go) - 1. */
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

/* Look at one process again: it started, exec'd, or was moved. */
static int discover_check(struct discover *d, pid_t pid)
{
	struct discover_proc p;

	if (discover_match(d, pid, &p))
		return discover_put(d, &p);
	discover_remove(d, pid);
	return 0;
}

/* Every process of the host: what --exe needs when events are missing. */
static int discover_scan_all(struct discover *d)
{
	struct dirent *de;
	DIR *dir = opendir("/proc");
	int ret = 0;

	if (!dir)
		return -errno;
	d->nr = 0;
	/* /proc lists by pid: each is appended, nothing moves. */
	while (!ret && (de = readdir(dir))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid > INT_MAX)
			continue;
		ret = discover_check(d, (pid_t)pid);
	}
	closedir(dir);
	return ret;
}

/*
 * The processes in the cgroup directory @path and below, checked when
 * new to the set.  @path has room for PATH_MAX bytes and is extended in
 * place for each child, so that a deep tree costs no stack per level
 * beyond a frame.
 */
static int discover_scan_cgroup(struct discover *d, char *path)
{
	static const char procs[] = "/cgroup.procs";
	size_t n = strlen(path);
	struct dirent *de;
	long pid;
	DIR *dir;
	FILE *f;
	int ret = 0;

	if (n + sizeof(procs) > PATH_MAX)
		return 0;
	memcpy(path + n, procs, sizeof(procs));
	f = fopen(path, "re");
	path[n] = '\0';
	if (f) {
		while (!ret && fscanf(f, "%ld", &pid) == 1)
			if (pid > 0 && pid <= INT_MAX &&
			    discover_find(d, (pid_t)pid) < 0)
				ret = discover_check(d, (pid_t)pid);
		fclose(f);
	}
	dir = opendir(path);
	if (!dir)
		return ret;
	while (!ret && (de = readdir(dir))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    n + 1 + len >= PATH_MAX)
			continue;
		path[n] = '/';
		memcpy(path + n + 1, de->d_name, len + 1);
		ret = discover_scan_cgroup(d, path);
		path[n] = '\0';
	}
	closedir(dir);
	return ret;
}

/*
 * The periodic pass: the set checked again, then what only a scan finds,
 * the processes moved into a target cgroup.  Costs what the targets hold.
 */
static int discover_scan_targets(struct discover *d)
{
	char dir[PATH_MAX];
	size_t i, kept = 0;
	int ret = 0;

	/* Gone (an EXIT can be lost), exec'd away, or moved out. */
	for (i = 0; i < d->nr; i++) {
		struct discover_proc p;

		if (discover_match(d, d->procs[i].pid, &p))
			d->procs[kept++] = p;
	}
	d->nr = kept;
	for (i = 0; !ret && i < d->nr_cgroups; i++) {
		const char *cg = strcmp(d->cgroups[i], "/") ? d->cgroups[i] : "";

		if (snprintf(dir, sizeof(dir), "%s%s", d->cg_mount, cg) <
		    (int)sizeof(dir))
			ret = discover_scan_cgroup(d, dir);
	}
	for (i = 0; !ret && i < d->nr_pids; i++)
		if (discover_find(d, d->pids[i]) < 0)
			ret = discover_check(d, d->pids[i]);
	return ret;
}

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/*
 * The connector message in @nh, copied out (its proc_event is not 8-byte
 * aligned in the datagram); false if it is not a process event.
 */
static bool discover_cn_event(const struct nlmsghdr *nh, struct cn_msg *cn,
			      struct proc_event *ev)
{
	const char *data = NLMSG_DATA(nh);

	if (nh->nlmsg_type == NLMSG_ERROR || nh->nlmsg_type == NLMSG_NOOP ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*cn) + sizeof(*ev)))
		return false;
	memcpy(cn, data, sizeof(*cn));
	if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC ||
	    cn->len < sizeof(*ev))
		return false;
	memcpy(ev, data + sizeof(*cn), sizeof(*ev));
	return true;
}

/*
 * Whether the kernel took the subscription: it answers with a
 * PROC_EVENT_NONE whose ack is ours + 1 and whose err is 0.  In another
 * pid or user namespace it ignores the request and never answers.
 */
static bool discover_netlink_acked(int fd, __u32 ack)
{
	char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	uint64_t end = monotonic_ms() + DISCOVER_ACK_MS;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = monotonic_ms();
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;
		struct proc_event ev;
		struct cn_msg cn;
		ssize_t n;

		/* Other listeners' events may come in a stream: a deadline. */
		if (now >= end)
			return false;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EAGAIN && poll(&pfd, 1, end - now) >= 0)
			continue;
		if (n < 0 && (errno == EINTR || errno == ENOBUFS))
			continue;
		if (n <= 0)
			return false;
		for (; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n))
			if (discover_cn_event(nh, &cn, &ev) &&
			    ev.what == PROC_EVENT_NONE && cn.ack == ack + 1)
				return ev.event_data.ack.err == 0;
	}
}

static int discover_netlink_send(int fd, enum proc_cn_mcast_op op, __u32 ack)
{
	struct discover_mcast msg;

	memset(&msg, 0, sizeof(msg));
	msg.nl.nlmsg_len = sizeof(msg);
	msg.nl.nlmsg_type = NLMSG_DONE;
	msg.cn.id.idx = CN_IDX_PROC;
	msg.cn.id.val = CN_VAL_PROC;
	msg.cn.ack = ack;
	msg.cn.len = sizeof(msg.op);
	msg.op = op;
	return send(fd, &msg, sizeof(msg), 0) == sizeof(msg) ? 0 : -1;
}

/* The connector's socket, subscribed to process events; -1 if not. */
static int discover_netlink_open(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC,
	};
	const char *off = getenv("ISPOT_DISCOVER_NO_NETLINK");
	/* Ours among the acks every listener sees. */
	__u32 ack = (__u32)getpid() << 8 | 0x5a;
	int fd, size = DISCOVER_RCVBUF;

	if (off && !strcmp(off, "1"))
		return -1;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_CONNECTOR);
	if (fd < 0)
		return -1;
	/* Binding to the group is what needs CAP_NET_ADMIN. */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto err_close;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (discover_netlink_send(fd, PROC_CN_MCAST_LISTEN, ack))
		goto err_close;
	if (!discover_netlink_acked(fd, ack))
		goto err_ignore;
	return fd;
err_ignore:
	/* A listen the kernel counted but we will not read costs it. */
	discover_netlink_send(fd, PROC_CN_MCAST_IGNORE, ack);
err_close:
	close(fd);
	return -1;
}

static char *cgroup_target_dup(const char *s)
{
	char *t = strdup(s);
	size_t n;

	if (!t)
		return NULL;
	/* "/a/b/" is "/a/b", so that "/a/b" itself is within it. */
	n = strlen(t);
	while (n > 1 && t[n - 1] == '/')
		t[--n] = '\0';
	return t;
}

struct discover *discover_new(const pid_t *pids, size_t nr_pids,
			      const char *const *exes, size_t nr_exes,
			      const char *const *cgroups, size_t nr_cgroups,
			      char *err, size_t errlen)
{
	struct discover *d = calloc(1, sizeof(*d));
	size_t i;

	if (!d)
		goto err_nomem;
	d->nl = -1;
	d->pids = calloc(nr_pids + 1, sizeof(*d->pids));
	d->pid_start = calloc(nr_pids + 1, sizeof(*d->pid_start));
	d->exes = calloc(nr_exes + 1, sizeof(*d->exes));
	d->cgroups = calloc(nr_cgroups + 1, sizeof(*d->cgroups));
	if (!d->pids || !d->pid_start || !d->exes || !d->cgroups)
		goto err_nomem;
	for (i = 0; i < nr_pids; i++, d->nr_pids++) {
		d->pids[i] = pids[i];
		/* The process that has the pid now is the one meant. */
		if (proc_start_time(pids[i], &d->pid_start[i]))
			d->pid_start[i] = DISCOVER_NO_PROCESS;
	}
	for (i = 0; i < nr_exes; i++, d->nr_exes++)
		if (!(d->exes[i].path = strdup(exes[i])))
			goto err_nomem;
	for (i = 0; i < nr_cgroups; i++, d->nr_cgroups++)
		if (!(d->cgroups[i] = cgroup_target_dup(cgroups[i])))
			goto err_nomem;
	if (nr_cgroups && cgroup2_mount(d->cg_mount, sizeof(d->cg_mount))) {
		snprintf(err, errlen, "--cgroup needs cgroup v2, and no "
			 "cgroup2 file system is mounted: mount it (mount -t "
			 "cgroup2 none /sys/fs/cgroup)");
		discover_free(d);
		return NULL;
	}
	discover_exes_refresh(d);
	d->nl = discover_netlink_open();
	d->rescan = true;
	return d;
err_nomem:
	snprintf(err, errlen, "out of memory");
	discover_free(d);
	return NULL;
}

void discover_free(struct discover *d)
{
	size_t i;

	if (!d)
		return;
	if (d->nl >= 0) {
		/* Kernels before 6.6 keep counting a listener until told. */
		discover_netlink_send(d->nl, PROC_CN_MCAST_IGNORE, 0);
		close(d->nl);
	}
	for (i = 0; i < d->nr_exes; i++) {
		free(d->exes[i].path);
		free(d->exes[i].real);
	}
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

/*
 * An event is a hint: what is kept is what /proc says when it is read,
 * so a late or forged event costs a look, never a wrong entry.
 */
static int discover_event(struct discover *d, const struct proc_event *ev)
{
	switch (ev->what) {
	case PROC_EVENT_FORK:
		/* A new thread is no new process. */
		if (ev->event_data.fork.child_pid !=
		    ev->event_data.fork.child_tgid)
			return 0;
		/*
		 * A child runs its parent's binary, and no --pid names a
		 * process younger than discover_new(): unless it can have
		 * been born into another cgroup (clone3 CLONE_INTO_CGROUP),
		 * only a member's child can match.  This keeps a busy host's
		 * forks from costing a look each.
		 */
		if (!d->nr_cgroups &&
		    discover_find(d, ev->event_data.fork.parent_tgid) < 0)
			return 0;
		return discover_check(d, ev->event_data.fork.child_tgid);
	case PROC_EVENT_EXEC:
		/* An exec changes the binary, never the pid or the cgroup. */
		if (!d->nr_exes)
			return 0;
		return discover_check(d, ev->event_data.exec.process_tgid);
	case PROC_EVENT_EXIT:
		/*
		 * A thread's exit is not its process's, but the leader's is:
		 * with the leader gone the process has no executable left
		 * to match, even if other threads still run.
		 */
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
	int reads, ret = 0;

	for (reads = 0; !ret && reads < DISCOVER_MAX_READS; reads++) {
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;
		struct sockaddr_nl from;
		socklen_t fromlen = sizeof(from);
		struct proc_event ev;
		struct cn_msg cn;
		ssize_t n;

		n = recvfrom(d->nl, buf, sizeof(buf), 0,
			     (struct sockaddr *)&from, &fromlen);
		if (n < 0 && errno == EINTR)
			continue;
		/* Events were lost: only a scan can tell what happened. */
		if (n < 0 && errno == ENOBUFS) {
			d->rescan = true;
			continue;
		}
		if (n <= 0)
			break;
		/* Only the kernel speaks for the connector. */
		if (from.nl_pid != 0)
			continue;
		for (; !ret && NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n))
			if (discover_cn_event(nh, &cn, &ev))
				ret = discover_event(d, &ev);
	}
	return ret;
}

int discover_update(struct discover *d, uint64_t now_ns)
{
	int ret = 0;

	if (d->nl >= 0)
		ret = discover_read_events(d);
	if (ret || (!d->rescan && now_ns < d->next_scan))
		return ret;
	d->next_scan = now_ns + DISCOVER_SCAN_NS;
	discover_exes_refresh(d);
	/*
	 * Only an --exe target needs every process looked at, and only when
	 * no events tell of new ones: the first time, after lost events, or
	 * without the connector.  --pid and --cgroup targets are found from
	 * their pids and cgroup.procs files alone.
	 */
	if (d->nr_exes && (d->rescan || d->nl < 0)) {
		d->rescan = false;
		return discover_scan_all(d);
	}
	d->rescan = false;
	return discover_scan_targets(d);
}

size_t discover_procs(const struct discover *d,
		      const struct discover_proc **out)
{
	*out = d->procs;
	return d->nr;
}
