// SPDX-License-Identifier: GPL-2.0
/*
 * The character device and its ioctl contract: version handshake, unknown
 * commands, reserved fields, privileges, session churn and global info.
 */
#include <sys/syscall.h>
#include <linux/capability.h>

#include "ispot_kmod_test.h"

TEST(version_handshake)
{
	struct ispot_version v;
	int fd = ispot_open_or_skip();

	ASSERT_GE(fd, 0);
	/* 0xcc catches output fields the module forgot to write. */
	memset(&v, 0xcc, sizeof(v));
	v.flags = 0;
	v.reserved = 0;
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_GET_VERSION, &v), 0);
	EXPECT_EQ(v.abi_major, ISPOT_ABI_MAJOR);
	EXPECT_EQ(v.abi_minor, ISPOT_ABI_MINOR);
	ASSERT_NE(memchr(v.module_version, 0, sizeof(v.module_version)), NULL);
	EXPECT_GT(strlen(v.module_version), 0);
	/* The tail of the string buffer is zeroed, not left as input. */
	EXPECT_EQ((unsigned char)v.module_version[sizeof(v.module_version) - 1], 0);
	close(fd);
}

TEST(unknown_ioctl_is_enotty)
{
	char buf[64] = { 0 };
	int fd = ispot_open_or_skip();

	EXPECT_EQ(ispot_ioctl(fd, _IOWR(ISPOT_IOC_MAGIC, 0x7f, buf), buf), -ENOTTY);
	EXPECT_EQ(ispot_ioctl(fd, _IO('T', 0x01), NULL), -ENOTTY);
	/* A known number with the wrong size is a different command. */
	EXPECT_EQ(ispot_ioctl(fd, _IOWR(ISPOT_IOC_MAGIC, 0x00, buf), buf), -ENOTTY);
	close(fd);
}

TEST(reserved_fields_rejected)
{
	struct ispot_version v = { 0 };
	struct ispot_setup s = { 0 };
	struct ispot_info info = { 0 };
	struct ispot_probe_add a = { 0 };
	struct ispot_ring_consume rc = { 0 };
	struct ispot_stats st = { 0 };
	int fd = ispot_open_or_skip();

	v.reserved = 1;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_GET_VERSION, &v), -EINVAL);
	v.reserved = 0;
	v.flags = 1;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_GET_VERSION, &v), -EINVAL);

	s.pid = getpid();
	s.ring_pages = 1;
	s.reserved[2] = 1;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SETUP, &s), -EINVAL);
	s.reserved[2] = 0;
	s.reserved32 = 1;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SETUP, &s), -EINVAL);
	s.reserved32 = 0;
	s.flags = 0x80;		/* a bit outside ISPOT_SETUP_FLAGS */
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SETUP, &s), -EINVAL);
	s.flags = 0;
	s.nr_rings = 3;		/* an output field given as input */
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SETUP, &s), -EINVAL);

	info.reserved[0] = 1;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &info), -EINVAL);
	st.stop_reason = 1;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_STATS, &st), -EINVAL);

	/* The session is still NEW, and the reserved checks come first. */
	ASSERT_EQ(ispot_setup(fd, getpid(), 1, NULL), 0);
	a.fd = -1;
	a.flags = ISPOT_PROBE_BOTH;
	a.reserved = 1;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_PROBE_ADD, &a), -EINVAL);
	rc.reserved = 1;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_RING_CONSUME, &rc), -EINVAL);
	close(fd);
}

static void drop_to_nobody(void)
{
	if (setgid(65534) || setuid(65534))
		_exit(KSFT_FAIL);
}

TEST(unprivileged_open_is_eperm)
{
	pid_t pid = fork();
	int status;

	ASSERT_GE(pid, 0);
	if (pid == 0) {
		drop_to_nobody();
		_exit(ispot_open() < 0 && errno == EPERM ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

/* Root uid but without CAP_SYS_ADMIN and CAP_PERFMON: still refused. */
TEST(open_without_capabilities_is_eperm)
{
	pid_t pid = fork();
	int status;

	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct __user_cap_header_struct h = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct d[2];

		if (syscall(SYS_capget, &h, d))
			_exit(2);
		d[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
		d[CAP_PERFMON / 32].effective &= ~(1u << (CAP_PERFMON % 32));
		if (syscall(SYS_capset, &h, d))
			_exit(3);
		_exit(ispot_open() < 0 && errno == EPERM ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(open_close_10000_cycles)
{
	struct ispot_info before = { 0 }, after = { 0 };
	int i, fd = ispot_open_or_skip();

	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &before), 0);
	for (i = 0; i < 10000; i++) {
		int s = ispot_open();

		ASSERT_GE(s, 0);
		/* Half of them allocate rings, so release frees real work. */
		if (i & 1)
			ASSERT_EQ(ispot_setup(s, getpid(), 1, NULL), 0);
		ASSERT_EQ(close(s), 0);
	}
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &after), 0);
	EXPECT_EQ(after.sessions, before.sessions);
	EXPECT_EQ(after.ring_bytes, before.ring_bytes);
	close(fd);
}

TEST(info_counts_sessions_and_rings)
{
	struct ispot_info a, b;
	struct ispot_setup s;
	int fd = ispot_open_or_skip(), fd2 = ispot_open();

	ASSERT_GE(fd2, 0);
	memset(&a, 0xcc, sizeof(a));
	a.tracepoints = 0;
	a.reserved32 = 0;
	memset(a.reserved, 0, sizeof(a.reserved));
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &a), 0);
	EXPECT_GE(a.sessions, 2);
	EXPECT_GT(a.nr_cpus, 0);
	EXPECT_GT(a.max_sessions, 0);
	EXPECT_NE(a.dropped, 0xccccccccccccccccull);
	ASSERT_EQ(ispot_setup(fd2, getpid(), 4, &s), 0);
	memset(&b, 0, sizeof(b));
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &b), 0);
	EXPECT_EQ(b.ring_bytes - a.ring_bytes, (uint64_t)s.nr_rings * s.ring_mmap_size);
	close(fd2);
	memset(&b, 0, sizeof(b));
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &b), 0);
	EXPECT_EQ(b.sessions, a.sessions - 1);
	EXPECT_EQ(b.ring_bytes, a.ring_bytes);
	close(fd);
}

TEST(session_limit_is_ebusy)
{
	char old[32] = { 0 };
	int p, fd = ispot_open_or_skip(), fd2;

	p = open("/sys/module/ispot/parameters/max_sessions", O_RDWR);
	ASSERT_GE(p, 0);
	ASSERT_GT(read(p, old, sizeof(old) - 1), 0);
	ASSERT_EQ(pwrite(p, "1", 1, 0), 1);
	fd2 = ispot_open();
	EXPECT_LT(fd2, 0);
	EXPECT_EQ(errno, EBUSY);
	ASSERT_EQ(pwrite(p, old, strlen(old), 0), (ssize_t)strlen(old));
	fd2 = ispot_open();
	EXPECT_GE(fd2, 0);
	close(fd2);
	close(p);
	close(fd);
}

TEST_HARNESS_MAIN
