/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the selftests that run inside the VM against ispot.ko:
 * open a session, find a function's file offset from /proc/PID/maps, map
 * and drain the rings, and control a child that calls a function on cue.
 */
#ifndef ISPOT_KMOD_TEST_H
#define ISPOT_KMOD_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ispot.h>

#include "ispot_test.h"

#define ISPOT_DEV	"/dev/ispot"

static inline int ispot_open(void)
{
	return open(ISPOT_DEV, O_RDWR | O_CLOEXEC);
}

/* Run the calling thread on @cpu only; 0 or -1 with errno. */
static inline int ispot_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Skip the whole test when the module is not loaded (kselftest rule). */
static inline int ispot_open_or_skip(void)
{
	int fd = ispot_open();

	if (fd < 0 && errno == ENOENT)
		SKIP("%s missing: ispot.ko not loaded", ISPOT_DEV);
	return fd;
}

/* Skip unless the module is loaded; leaves nothing open. */
static inline void ispot_require_module(void)
{
	close(ispot_open_or_skip());
}

/* ioctl() returning -errno, so ASSERT_EQ(..., -EINVAL) reads naturally. */
static inline int ispot_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

/*
 * The file and file offset of the code at @addr in process @pid: what a
 * uprobe needs, read from the mapping that holds it.
 */
static inline int ispot_addr_to_file(pid_t pid, uintptr_t addr, char *path,
				     size_t pathlen, uint64_t *offset)
{
	char maps[64], line[4096];
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, off;
		char perms[8], file[4096];
		int n;

		file[0] = 0;
		n = sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start,
			   &end, perms, &off, file);
		if (n < 4 || addr < start || addr >= end || file[0] != '/')
			continue;
		snprintf(path, pathlen, "%s", file);
		*offset = addr - start + off;
		fclose(f);
		return 0;
	}
	fclose(f);
	return -1;
}

struct ispot_rings {
	int nr;
	size_t size;
	void **maps;
};

static inline int ispot_setup(int fd, pid_t pid, uint32_t pages,
			      struct ispot_setup *out)
{
	struct ispot_setup s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.pid = pid;
	s.ring_pages = pages;
	ret = ispot_ioctl(fd, ISPOT_IOC_SETUP, &s);
	if (ret)
		return ret;
	if (out)
		*out = s;
	return 0;
}

static inline int ispot_add_probe(int fd, const char *path, uint64_t offset,
				  uint32_t flags, uint32_t sample)
{
	struct ispot_probe_add a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.fd = -1;
	a.path = (uintptr_t)path;
	a.offset = offset;
	a.flags = flags;
	a.sample_period = sample;
	ret = ispot_ioctl(fd, ISPOT_IOC_PROBE_ADD, &a);
	return ret ? ret : (int)a.probe_id;
}

/* Probe the function at @fn in this binary (children share the file). */
static inline int ispot_add_probe_fn(int fd, void *fn, uint32_t flags,
				     uint32_t sample)
{
	char path[4096];
	uint64_t off;

	if (ispot_addr_to_file(getpid(), (uintptr_t)fn, path, sizeof(path),
			       &off))
		return -ENOENT;
	return ispot_add_probe(fd, path, off, flags, sample);
}

static inline int ispot_map_rings(int fd, const struct ispot_setup *s,
				  struct ispot_rings *r)
{
	int i;

	r->nr = s->nr_rings;
	r->size = s->ring_mmap_size;
	r->maps = calloc(r->nr, sizeof(*r->maps));
	if (!r->maps)
		return -ENOMEM;
	for (i = 0; i < r->nr; i++) {
		r->maps[i] = mmap(NULL, r->size, PROT_READ, MAP_SHARED, fd,
				  (off_t)i * r->size);
		if (r->maps[i] == MAP_FAILED)
			return -errno;
	}
	return 0;
}

static inline struct ispot_ring_ctrl *ispot_ring_ctrl(struct ispot_rings *r,
						      int cpu)
{
	return r->maps[cpu];
}

/*
 * Copy every readable record of every ring into a growing array, release
 * the space, and return the number of records (slots of multi-slot records
 * are copied too; use rec->nslots to step).
 */
static inline size_t ispot_drain(int fd, struct ispot_rings *r,
				 struct ispot_record **out, size_t *cap,
				 size_t n)
{
	int cpu;

	for (cpu = 0; cpu < r->nr; cpu++) {
		struct ispot_ring_ctrl *c = ispot_ring_ctrl(r, cpu);
		const struct ispot_record *slots = (const void *)
			((const char *)r->maps[cpu] + c->data_offset);
		uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
		uint64_t pos = c->tail;
		struct ispot_ring_consume rc = { .cpu = cpu };

		while (pos < head) {
			const struct ispot_record *rec =
				&slots[pos & (c->nr_slots - 1)];
			unsigned int k;

			for (k = 0; k < rec->nslots; k++) {
				if (n == *cap) {
					*cap = *cap ? *cap * 2 : 4096;
					*out = realloc(*out, *cap * sizeof(**out));
				}
				(*out)[n++] = slots[(pos + k) & (c->nr_slots - 1)];
			}
			pos += rec->nslots;
		}
		rc.tail = pos;
		if (ioctl(fd, ISPOT_IOC_RING_CONSUME, &rc) < 0)
			TH_LOG("RING_CONSUME cpu %d: %s", cpu, strerror(errno));
	}
	return n;
}

/*
 * No ring of the session on @fd (@nr_rings of them) dropped a record;
 * with @consumed, every record produced was consumed too.
 */
static inline void ispot_expect_no_drops(int fd, uint32_t nr_rings,
					 bool consumed)
{
	struct ispot_ring_stats rs[64];
	struct ispot_stats st = {
		.rings = (uintptr_t)rs,
		.nr_rings = nr_rings,
	};
	uint32_t i;

	ASSERT_LE(nr_rings, 64);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_STATS, &st), 0);
	for (i = 0; i < nr_rings; i++) {
		EXPECT_EQ(rs[i].dropped, 0);
		if (consumed)
			EXPECT_EQ(rs[i].produced, rs[i].consumed);
	}
}

/* A record and where it came, for a stable sort by time. */
struct ispot_seq_rec {
	struct ispot_record r;
	size_t seq;
};

static inline int ispot_seq_cmp(const void *a, const void *b)
{
	const struct ispot_seq_rec *x = a, *y = b;

	if (x->r.ts_ns != y->r.ts_ns)
		return x->r.ts_ns < y->r.ts_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Drain every ring into *@recs (*@n kept so far), keeping head slots only,
 * and sort everything kept by time; records of one CPU keep their ring
 * order.
 */
static inline void ispot_drain_sorted(int fd, struct ispot_rings *rings,
				      struct ispot_record **recs, size_t *n)
{
	struct ispot_record *all = NULL;
	size_t cap = 0, got, i, m = 0;
	struct ispot_seq_rec *s;

	got = ispot_drain(fd, rings, &all, &cap, 0);
	s = calloc(*n + got + 1, sizeof(*s));
	ASSERT_NE(s, NULL);
	for (i = 0; i < *n; i++, m++) {
		s[m].r = (*recs)[i];
		s[m].seq = m;
	}
	for (i = 0; i < got; i += all[i].nslots) {
		ASSERT_GE(all[i].nslots, 1);
		s[m].r = all[i];
		s[m].seq = m;
		m++;
	}
	qsort(s, m, sizeof(*s), ispot_seq_cmp);
	free(*recs);
	*recs = calloc(m + 1, sizeof(**recs));
	ASSERT_NE(*recs, NULL);
	for (i = 0; i < m; i++)
		(*recs)[i] = s[i].r;
	*n = m;
	free(s);
	free(all);
}

/*
 * A child that runs @work when told to, so the session is armed before
 * the first call.  ispot_child_go() starts it; ispot_child_wait() returns
 * its exit status.
 */
struct ispot_child {
	pid_t pid;
	int go;		/* write end: one byte starts the work */
};

static inline int ispot_child_start(struct ispot_child *c,
				    int (*work)(void *), void *arg)
{
	int p[2];
	char b;

	if (pipe(p))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(99);
		_exit(work(arg));
	}
	close(p[0]);
	c->go = p[1];
	return 0;
}

static inline void ispot_child_go(struct ispot_child *c)
{
	if (write(c->go, "g", 1) != 1)
		TH_LOG("cannot start child %d", (int)c->pid);
	close(c->go);
}

static inline int ispot_child_wait(struct ispot_child *c)
{
	int status;

	if (waitpid(c->pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif /* ISPOT_KMOD_TEST_H */
