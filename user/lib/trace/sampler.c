// SPDX-License-Identifier: GPL-2.0
/* A cpu-clock sample of a process's user IPs; see sampler.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace/sampler_internal.h"
#include "trace/tasks.h"
#include "util/array.h"
#include "util/procstat.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int sampler_add(struct sampler_result *r, uint64_t ip, uint64_t n)
{
	size_t lo = 0, hi = r->nr_ips;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ips[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->nr_ips && r->ips[lo].ip == ip) {
		r->ips[lo].count += n;
		return 0;
	}
	if (ARRAY_RESERVE(r->ips, r->cap_ips, r->nr_ips + 1))
		return -ENOMEM;
	memmove(&r->ips[lo + 1], &r->ips[lo],
		(r->nr_ips - lo) * sizeof(*r->ips));
	r->ips[lo].ip = ip;
	r->ips[lo].count = n;
	r->nr_ips++;
	return 0;
}

static uint64_t stack_hash(const uint64_t *frames, uint32_t nr)
{
	uint64_t h = 0xcbf29ce484222325ull ^ nr;
	uint32_t i;

	for (i = 0; i < nr; i++)
		h = hash_u64(h ^ frames[i]);
	return h;
}

int sampler_add_stack(struct sampler_result *r, const uint64_t *frames,
		      uint32_t nr)
{
	uint64_t h, idx;
	struct sampler_stack *s;

	if (nr > SAMPLER_MAX_FRAMES)
		nr = SAMPLER_MAX_FRAMES;
	h = stack_hash(frames, nr);
	if (hashmap_find(&r->stack_map, h, &idx)) {
		s = &r->stacks[idx];
		/* A 64-bit hash's collision: the chain goes uncounted. */
		if (s->nr == nr &&
		    !memcmp(s->frames, frames, nr * sizeof(*frames)))
			s->count++;
		return 0;
	}
	if (ARRAY_RESERVE(r->stacks, r->cap_stacks, r->nr_stacks + 1) ||
	    hashmap_insert(&r->stack_map, h, r->nr_stacks))
		return -ENOMEM;
	s = &r->stacks[r->nr_stacks++];
	s->nr = nr;
	memcpy(s->frames, frames, nr * sizeof(*frames));
	s->count = 1;
	return 0;
}

void sampler_result_free(struct sampler_result *r)
{
	free(r->ips);
	free(r->stacks);
	hashmap_free(&r->stack_map);
	memset(r, 0, sizeof(*r));
}

static int open_error(int e, pid_t pid, char *err, size_t errlen)
{
	if (e == EACCES || e == EPERM) {
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
		int level = 3;

		if (f) {
			if (fscanf(f, "%d", &level) != 1)
				level = 3;
			fclose(f);
		}
		snprintf(err, errlen, "not allowed to sample pid %d with perf "
			 "events (kernel.perf_event_paranoid is %d): run as "
			 "root or with CAP_PERFMON, or set it to 2 (sysctl "
			 "kernel.perf_event_paranoid=2), or name functions "
			 "with --func", (int)pid, level);
		return -EACCES;
	}
	if (e == ENOENT || e == ENODEV || e == EOPNOTSUPP || e == ENOSYS) {
		snprintf(err, errlen, "this kernel has no cpu-clock perf "
			 "event (CONFIG_PERF_EVENTS): name functions with "
			 "--func instead of --auto");
		return -ENODEV;
	}
	if (e == EMFILE || e == ENFILE) {
		snprintf(err, errlen, "out of file descriptors sampling pid "
			 "%d's threads: raise ulimit -n", (int)pid);
		return -e;
	}
	snprintf(err, errlen, "cannot sample pid %d (perf_event_open: %s): "
		 "name functions with --func", (int)pid, strerror(e));
	return -e;
}

/* Sample thread @tid too.  A thread that just exited is no error. */
int sampler_open(struct sampler *s, uint32_t tid, char *err, size_t errlen)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = SAMPLER_PERIOD_NS,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.exclude_callchain_kernel = 1,
		.sample_max_stack = SAMPLER_MAX_FRAMES,
	};
	size_t len = (1 + SAMPLER_DATA_PAGES) * s->page;
	struct sampler_event *e;
	void *base;
	int fd;

	if (ARRAY_RESERVE(s->ev, s->cap, s->nr + 1)) {
		snprintf(err, errlen, "out of memory sampling");
		return -ENOMEM;
	}
	fd = syscall(SYS_perf_event_open, &a, (pid_t)tid, -1, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno == ESRCH ? 0 : open_error(errno, s->pid, err,
						       errlen);
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		int e2 = errno;

		close(fd);
		snprintf(err, errlen, "cannot map a perf ring (%s): raise "
			 "kernel.perf_event_mlock_kb or RLIMIT_MEMLOCK",
			 strerror(e2));
		return -e2;
	}
	/* Whole: the slot may hold a copy of an event moved from the end. */
	e = &s->ev[s->nr++];
	*e = (struct sampler_event){ .tid = tid, .fd = fd, .base = base };
	s->r->threads++;
	return 0;
}

void sampler_event_close(struct sampler *s, struct sampler_event *e)
{
	munmap(e->base, (1 + SAMPLER_DATA_PAGES) * s->page);
	close(e->fd);
}

/*
 * A sample's call chain (@rec: ip, nr, then nr addresses, @words of it
 * read): the user addresses, the kernel's context markers left out; the
 * IP alone when there is none.
 */
static int sampler_take_chain(struct sampler_result *r, const uint64_t *rec,
			      size_t words)
{
	uint64_t frames[SAMPLER_MAX_FRAMES];
	uint32_t n = 0;
	size_t i, end = words >= 2 && rec[1] < words - 2 ? 2 + rec[1] : words;

	for (i = 2; i < end && n < SAMPLER_MAX_FRAMES; i++)
		if (rec[i] < PERF_CONTEXT_MAX)
			frames[n++] = rec[i];
	if (!n)
		frames[n++] = rec[0];
	return sampler_add_stack(r, frames, n);
}

/* Take what the kernel wrote into @e's ring, and hand the space back. */
int sampler_read(struct sampler *s, struct sampler_event *e)
{
	struct perf_event_mmap_page *pg = e->base;
	const unsigned char *data = (const unsigned char *)e->base + s->page;
	uint64_t size = SAMPLER_DATA_PAGES * s->page;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	int ret = 0;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		/* ip, nr, and a chain with room for its context markers */
		uint64_t rec[2 + 2 * SAMPLER_MAX_FRAMES] = { 0 };
		size_t i, n;

		for (i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		n = h.size - sizeof(h) < sizeof(rec) ? h.size - sizeof(h) :
		    sizeof(rec);
		for (i = 0; i < n; i++)
			((unsigned char *)rec)[i] =
				data[(tail + sizeof(h) + i) % size];
		if (h.type == PERF_RECORD_SAMPLE)
			e->fresh++;
		if (h.type == PERF_RECORD_SAMPLE && n >= 8 &&
		    (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		    PERF_RECORD_MISC_USER) {
			if (!ret)
				ret = sampler_add(s->r, rec[0], 1);
			if (!ret)
				ret = sampler_take_chain(s->r, rec, n / 8);
			s->r->samples++;
		} else if (h.type == PERF_RECORD_LOST && n >= 16) {
			s->r->lost += rec[1];
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

static void sampler_close(struct sampler *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		sampler_event_close(s, &s->ev[i]);
	free(s->ev);
	free(s->cand);
	hashmap_free(&s->ranked);
}

int sampler_run(pid_t pid, uint64_t duration_ns, struct sampler_result *r,
		sampler_round_fn round, void *round_ctx,
		const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	struct sampler s = {
		.pid = pid, .page = sysconf(_SC_PAGESIZE), .r = r,
	};
	struct task_set ts = { 0 };
	uint64_t start = now_ns(), end = start + duration_ns;
	size_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = sampler_scan(&s, &ts, err, errlen);
	if (ret == -ESRCH) {
		r->exited = true;
		ret = 0;
	}
	while (!ret && !r->exited) {
		struct timespec nap = { 0, SAMPLER_ROUND_MS * 1000000L };
		uint64_t now = now_ns();

		if (now >= end)
			break;
		if (stop && *stop) {
			r->stopped = true;
			r->stopped_after_ns = now - start;
			break;
		}
		if (end - now < (uint64_t)nap.tv_nsec)
			nap.tv_nsec = end - now;
		/* A signal cuts the nap short (no SA_RESTART needed). */
		nanosleep(&nap, NULL);
		for (i = 0; !ret && i < s.nr; i++)
			ret = sampler_read(&s, &s.ev[i]);
		if (ret) {
			snprintf(err, errlen, "out of memory sampling");
			break;
		}
		if (round)
			round(round_ctx);
		if (task_exited(pid)) {
			r->exited = true;
			break;
		}
		ret = sampler_scan(&s, &ts, err, errlen);
		if (ret == -ESRCH) {
			r->exited = true;
			ret = 0;
			break;
		}
	}
	/*
	 * Gone and asked to stop: a Ctrl-C reaches run's command too (one
	 * process group), so the stop is the cause, and says so.
	 */
	if (r->exited && stop && *stop && !r->stopped) {
		r->stopped = true;
		r->stopped_after_ns = now_ns() - start;
	}
	for (i = 0; !ret && i < s.nr; i++)
		ret = sampler_read(&s, &s.ev[i]);
	sampler_close(&s);
	task_set_free(&ts);
	return ret;
}
