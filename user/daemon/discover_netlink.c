// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's process events connector (netlink), for ispotd's
 * discovery: subscribe, confirm the kernel took it, and turn each fork,
 * exec and exit into a look at that process (discover.h).
 */
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "discover_internal.h"

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

/* The subscription message: a connector header and one operation. */
struct discover_mcast {
	struct nlmsghdr nl;
	struct cn_msg cn;
	__u32 op;		/* enum proc_cn_mcast_op */
} __attribute__((packed));

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

int discover_netlink_open(void)
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

void discover_netlink_close(int fd)
{
	/* Kernels before 6.6 keep counting a listener until told. */
	discover_netlink_send(fd, PROC_CN_MCAST_IGNORE, 0);
	close(fd);
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

int discover_read_events(struct discover *d)
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
