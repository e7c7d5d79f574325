// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to the probe engine gets a clean errno, no kernel warning and
 * no leaked memory: each case below is one kind of mistake.
 */
#include <sys/mman.h>

#include "ispot_kmod_test.h"

static volatile int data_word = 1;	/* lives in a non-executable segment */

__attribute__((noinline, noclone)) int input_fn(int x)
{
	return x + data_word;
}

static int setup_self(int fd)
{
	return ispot_setup(fd, getpid(), 1, NULL);
}

static int add(int fd, int ofd, const char *path, uint64_t off, uint32_t flags)
{
	struct ispot_probe_add a = {
		.fd = ofd, .path = (uintptr_t)path, .offset = off, .flags = flags,
	};

	int ret = ispot_ioctl(fd, ISPOT_IOC_PROBE_ADD, &a);

	return ret ? ret : (int)a.probe_id;
}

TEST(probe_offsets_and_files)
{
	char exe[4096];
	uint64_t fn_off, data_off;
	struct stat st;
	int p[2], fd = ispot_open_or_skip();

	ASSERT_EQ(setup_self(fd), 0);
	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)input_fn, exe,
				     sizeof(exe), &fn_off), 0);
	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)&data_word, exe,
				     sizeof(exe), &data_off), 0);
	ASSERT_EQ(stat(exe, &st), 0);

	EXPECT_EQ(add(fd, -1, exe, st.st_size + 4096, ISPOT_PROBE_BOTH), -EINVAL);
	EXPECT_EQ(add(fd, -1, exe, data_off, ISPOT_PROBE_BOTH), -EINVAL);
	EXPECT_EQ(add(fd, -1, "/ispot", 0, ISPOT_PROBE_BOTH), -EISDIR);
	EXPECT_EQ(add(fd, -1, "/ispot/README.md", 0, ISPOT_PROBE_BOTH), -ENOEXEC);
	EXPECT_EQ(add(fd, -1, "/no/such/file", 0, ISPOT_PROBE_BOTH), -ENOENT);
	EXPECT_EQ(add(fd, -1, (const char *)8, 0, ISPOT_PROBE_BOTH), -EFAULT);
	ASSERT_EQ(pipe(p), 0);
	EXPECT_EQ(add(fd, p[0], NULL, 0, ISPOT_PROBE_BOTH), -EINVAL);
	EXPECT_EQ(add(fd, 9999, NULL, 0, ISPOT_PROBE_BOTH), -EBADF);
	EXPECT_EQ(add(fd, -5, NULL, 0, ISPOT_PROBE_BOTH), -EBADF);
	EXPECT_EQ(add(fd, -1, exe, fn_off, 0), -EINVAL);
	EXPECT_EQ(add(fd, -1, exe, fn_off, 0x80), -EINVAL);
	/* Counting needs something to count. */
	EXPECT_EQ(add(fd, -1, exe, fn_off, ISPOT_PROBE_COUNT_ONLY), -EINVAL);
	/* The good one works, by path and by fd, once. */
	EXPECT_GT(add(fd, -1, exe, fn_off, ISPOT_PROBE_BOTH), 0);
	EXPECT_EQ(add(fd, -1, exe, fn_off, ISPOT_PROBE_ENTRY), -EEXIST);
	close(p[0]);
	close(p[1]);
	close(fd);
}

TEST(setup_pids_and_ring_sizes)
{
	struct ispot_info before = { 0 }, after = { 0 };
	int fd = ispot_open_or_skip();

	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &before), 0);
	EXPECT_EQ(ispot_setup(fd, 999999, 1, NULL), -ESRCH);
	EXPECT_EQ(ispot_setup(fd, 0, 1, NULL), -ESRCH);
	EXPECT_EQ(ispot_setup(fd, 2, 1, NULL), -EINVAL);	/* kthreadd */
	EXPECT_EQ(ispot_setup(fd, getpid(), 0, NULL), -EINVAL);
	EXPECT_EQ(ispot_setup(fd, getpid(), 3, NULL), -EINVAL);
	EXPECT_EQ(ispot_setup(fd, getpid(), 1u << 30, NULL), -E2BIG);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &after), 0);
	EXPECT_EQ(after.ring_bytes, before.ring_bytes);
	/* After all those refusals the session is still usable. */
	EXPECT_EQ(ispot_setup(fd, getpid(), 1, NULL), 0);
	close(fd);
}

TEST(probe_limit_is_enospc)
{
	char exe[4096], old[32] = { 0 };
	uint64_t off;
	int prm, fd = ispot_open_or_skip();

	ASSERT_EQ(setup_self(fd), 0);
	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)input_fn, exe,
				     sizeof(exe), &off), 0);
	prm = open("/sys/module/ispot/parameters/max_probes", O_RDWR);
	ASSERT_GE(prm, 0);
	ASSERT_GT(read(prm, old, sizeof(old) - 1), 0);
	ASSERT_EQ(pwrite(prm, "2", 1, 0), 1);
	EXPECT_GT(add(fd, -1, exe, off, ISPOT_PROBE_BOTH), 0);
	EXPECT_GT(add(fd, -1, exe, off + 1, ISPOT_PROBE_ENTRY), 0);
	EXPECT_EQ(add(fd, -1, exe, off + 2, ISPOT_PROBE_ENTRY), -ENOSPC);
	ASSERT_EQ(pwrite(prm, old, strlen(old), 0), (ssize_t)strlen(old));
	close(prm);
	close(fd);
}

TEST(commands_in_the_wrong_state)
{
	struct ispot_probe_remove rm = { .probe_id = 1 };
	struct ispot_ring_consume rc = { 0 };
	struct ispot_setup s;
	char exe[4096];
	uint64_t off;
	void *m;
	int fd = ispot_open_or_skip();

	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)input_fn, exe,
				     sizeof(exe), &off), 0);
	/* NEW */
	EXPECT_EQ(add(fd, -1, exe, off, ISPOT_PROBE_BOTH), -EBADFD);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), -EBADFD);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL), -EBADFD);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_RING_CONSUME, &rc), -EBADFD);
	m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(m, MAP_FAILED);
	EXPECT_EQ(errno, EBADFD);
	/* READY */
	ASSERT_EQ(ispot_setup(fd, getpid(), 1, &s), 0);
	EXPECT_EQ(ispot_setup(fd, getpid(), 1, NULL), -EBADFD);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), -ENOENT);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_PROBE_REMOVE, &rm), -ENOENT);
	m = mmap(NULL, s.ring_mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(m, MAP_FAILED);
	EXPECT_EQ(errno, EPERM);
	m = mmap(NULL, s.ring_mmap_size, PROT_READ, MAP_SHARED, fd,
		 (off_t)s.nr_rings * s.ring_mmap_size);
	EXPECT_EQ(m, MAP_FAILED);
	m = mmap(NULL, s.ring_mmap_size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(m, MAP_FAILED);
	/* Read-only for good: mprotect cannot make the ring writable. */
	EXPECT_NE(mprotect(m, s.ring_mmap_size, PROT_READ | PROT_WRITE), 0);
	rc.tail = 1;		/* past head */
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_RING_CONSUME, &rc), -EINVAL);
	rc.tail = 0;
	rc.cpu = s.nr_rings;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_RING_CONSUME, &rc), -EINVAL);
	ASSERT_GT(add(fd, -1, exe, off, ISPOT_PROBE_BOTH), 0);
	/* ENABLED */
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), -EBADFD);
	EXPECT_EQ(add(fd, -1, exe, off + 1, ISPOT_PROBE_BOTH), -EBADFD);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_PROBE_REMOVE, &rm), -EBADFD);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL), 0);
	/* Back to READY: the probe can go. */
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_PROBE_REMOVE, &rm), 0);
	munmap(m, s.ring_mmap_size);
	close(fd);
}

TEST_HARNESS_MAIN
