// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to the probe engine gets a clean errno, no kernel warning and
 * no leaked memory: each case below is one kind of mistake.  The last
 * test does the same for ISPOT_IOC_COUNTERS (ABI 1.3).
 */
#include <link.h>
#include <linux/perf_event.h>
#include <sys/mman.h>

#include "ispot_kmod_test.h"

static volatile int data_word = 1;	/* lives in a non-executable segment */
static int bss_word;			/* past the file-backed data */
static const short ro_word = 1;	/* in a read-only segment */

/* The main program's PT_GNU_RELRO file offset, 0 if it has none. */
static int relro_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO)
			*(uint64_t *)data = info->dlpi_phdr[i].p_offset;
	return 1;	/* the first object is the program */
}

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
	int p[2], ofd, fd = ispot_open_or_skip();

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
	/* A path beside an fd is refused, not ignored. */
	ofd = open(exe, O_RDONLY);
	ASSERT_GE(ofd, 0);
	EXPECT_EQ(add(fd, ofd, exe, fn_off, ISPOT_PROBE_BOTH), -EINVAL);
	/* The good one works, by path and by fd, once. */
	EXPECT_GT(add(fd, -1, exe, fn_off, ISPOT_PROBE_BOTH), 0);
	EXPECT_EQ(add(fd, -1, exe, fn_off, ISPOT_PROBE_ENTRY), -EEXIST);
	EXPECT_EQ(add(fd, ofd, NULL, fn_off, ISPOT_PROBE_ENTRY), -EEXIST);
	close(ofd);
	close(p[0]);
	close(p[1]);
	close(fd);
}

static int add_sem(int fd, const char *path, uint64_t off, uint64_t sem)
{
	struct ispot_probe_add a = {
		.fd = -1, .path = (uintptr_t)path, .offset = off,
		.flags = ISPOT_PROBE_ENTRY, .ref_ctr_offset = sem,
	};
	int ret = ispot_ioctl(fd, ISPOT_IOC_PROBE_ADD, &a);

	return ret ? ret : (int)a.probe_id;
}

/*
 * A semaphore (ABI 1.5) is a short the kernel will write in the target:
 * only an aligned one in the file-backed part of a writable segment.
 */
TEST(probe_semaphore_offsets)
{
	char exe[4096], bss_file[4096];
	uint64_t fn_off, data_off, bss_off, relro_off, ro_off;
	struct stat st;
	int fd = ispot_open_or_skip();
	struct ispot_probe_add a = {
		.fd = -1, .flags = ISPOT_PROBE_ENTRY,
	};

	ASSERT_EQ(setup_self(fd), 0);
	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)input_fn, exe,
				     sizeof(exe), &fn_off), 0);
	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)&data_word, exe,
				     sizeof(exe), &data_off), 0);
	ASSERT_EQ(stat(exe, &st), 0);
	/* .bss is anonymous memory, or the zeroed tail of the data page. */
	bss_off = 0;
	if (!ispot_addr_to_file(getpid(), (uintptr_t)&bss_word, bss_file,
				sizeof(bss_file), &bss_off) &&
	    !strcmp(bss_file, exe))
		EXPECT_EQ(add_sem(fd, exe, fn_off, bss_off), -EINVAL);

	/* Counted before ld.so write-protects it, never counted back. */
	relro_off = 0;
	dl_iterate_phdr(relro_cb, &relro_off);
	if (relro_off)
		EXPECT_EQ(add_sem(fd, exe, fn_off, relro_off & ~1ull), -EINVAL);
	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)&ro_word, exe,
				     sizeof(exe), &ro_off), 0);
	EXPECT_EQ(add_sem(fd, exe, fn_off, ro_off), -EINVAL);
	EXPECT_EQ(add_sem(fd, exe, fn_off, data_off + 1), -EINVAL);
	EXPECT_EQ(add_sem(fd, exe, fn_off, fn_off & ~1ull), -EINVAL);
	EXPECT_EQ(add_sem(fd, exe, fn_off, (st.st_size + 1) & ~1ull), -EINVAL);
	EXPECT_EQ(add_sem(fd, exe, fn_off, (st.st_size - 1) & ~1ull), -EINVAL);
	EXPECT_EQ(add_sem(fd, exe, fn_off, ~1ull), -EINVAL);
	/* The field that was reserved[1] before ABI 1.5 still is. */
	a.path = (uintptr_t)exe;
	a.offset = fn_off;
	a.reserved = 1;
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_PROBE_ADD, &a), -EINVAL);
	EXPECT_GT(add_sem(fd, exe, fn_off, data_off), 0);
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

/* One good spec: a software counter every machine has. */
static void counters_good(struct ispot_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->nr = 1;
	c->spec[0].type = PERF_TYPE_SOFTWARE;
	c->spec[0].config = PERF_COUNT_SW_CPU_CLOCK;
}

static int counters(int fd, struct ispot_counters *c)
{
	return ispot_ioctl(fd, ISPOT_IOC_COUNTERS, c);
}

TEST(counters_input_and_states)
{
	struct ispot_counters c, *ro;
	struct ispot_rings r;
	struct ispot_setup s;
	struct ispot_record *recs = NULL;
	size_t cap = 0, n, i, entries = 0;
	int fd = ispot_open_or_skip();

	/* Each mistake alone, on an otherwise good request, in NEW. */
	counters_good(&c);
	c.nr = 0;
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.nr = ISPOT_MAX_COUNTERS + 1;
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.nr = 0xffffffffu;
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.flags = 1u << 1;
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.flags = ISPOT_COUNTERS_TRY | 1u << 31;
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.reserved[0] = 1;
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.reserved[1] = 1;
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.spec[0].reserved = 1;
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.spec[0].result = -ENOENT;	/* an output given as input */
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.spec[1].type = PERF_TYPE_SOFTWARE;	/* past nr */
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.spec[ISPOT_MAX_COUNTERS - 1].config = 1;	/* past nr */
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.spec[ISPOT_MAX_COUNTERS - 1].reserved = 1;	/* past nr */
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.spec[0].type = 99;
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.spec[0].type = PERF_TYPE_TRACEPOINT;	/* known to perf, not here */
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	counters_good(&c);
	c.spec[0].type = PERF_TYPE_BREAKPOINT;
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	/* A bad type anywhere below nr, not only first. */
	counters_good(&c);
	c.nr = 2;
	c.spec[1].type = 99;
	EXPECT_EQ(counters(fd, &c), -EINVAL);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_COUNTERS, (void *)1), -EFAULT);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_COUNTERS, NULL), -EFAULT);
	/* Good, but only TRY is allowed before SETUP. */
	counters_good(&c);
	EXPECT_EQ(counters(fd, &c), -EBADFD);
	EXPECT_EQ(c.spec[0].result, 0);

	/* READY after all those refusals. */
	ASSERT_EQ(ispot_setup(fd, getpid(), 16, &s), 0);
	ASSERT_EQ(ispot_map_rings(fd, &s, &r), 0);
	/*
	 * Readable but not writable: the counters are made, the results
	 * cannot be returned, so none are kept and a retry is no -EBUSY.
	 */
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(ro, MAP_FAILED);
	counters_good(ro);
	ASSERT_EQ(mprotect(ro, 4096, PROT_READ), 0);
	EXPECT_EQ(counters(fd, ro), -EFAULT);
	munmap(ro, 4096);
	counters_good(&c);
	c.nr = 2;
	c.spec[1].type = PERF_TYPE_SOFTWARE;
	c.spec[1].config = PERF_COUNT_SW_PAGE_FAULTS;
	EXPECT_EQ(counters(fd, &c), 0);
	EXPECT_EQ(c.spec[0].result, 0);
	EXPECT_EQ(c.spec[1].result, 0);
	/* Once only, even with different specs. */
	counters_good(&c);
	EXPECT_EQ(counters(fd, &c), -EBUSY);
	/* Validation still comes first. */
	c.nr = 0;
	EXPECT_EQ(counters(fd, &c), -EINVAL);

	ASSERT_GT(ispot_add_probe_fn(fd, input_fn, ISPOT_PROBE_BOTH, 0), 0);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_ENABLE, NULL), 0);
	counters_good(&c);
	EXPECT_EQ(counters(fd, &c), -EBADFD);
	/* The session still works, with the two counters it kept. */
	for (i = 0; i < 10; i++)
		input_fn(i);
	EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_DISABLE, NULL), 0);
	/* READY again, but the counters are set: -EBUSY, not a second set. */
	counters_good(&c);
	EXPECT_EQ(counters(fd, &c), -EBUSY);
	n = ispot_drain(fd, &r, &recs, &cap, 0);
	for (i = 0; i < n; i += recs[i].nslots) {
		const struct ispot_counter_values *v;

		if (recs[i].kind != ISPOT_REC_ENTRY &&
		    recs[i].kind != ISPOT_REC_EXIT)
			continue;
		ASSERT_EQ(recs[i].nslots, 2);
		v = (const void *)&recs[i + 1];
		EXPECT_EQ(v->nr, 2);
		EXPECT_EQ(v->valid, 0x3);
		entries += recs[i].kind == ISPOT_REC_ENTRY;
	}
	EXPECT_EQ(entries, 10);
	free(recs);
	for (i = 0; i < (size_t)r.nr; i++)
		munmap(r.maps[i], r.size);
	free(r.maps);
	close(fd);
}

TEST_HARNESS_MAIN
