// SPDX-License-Identifier: GPL-2.0
/*
 * The probe engine: exact counts, pairing by sp, address-space filtering,
 * libc probes, ring overflow accounting, sampling, call stacks, CPU
 * migration and the process lifecycle (fork, exec, exit, close, kill).
 */
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>

#include "ispot_kmod_test.h"
#include "analysis/pair.h"

static volatile int sink;

/* The probed functions: not inlined, not cloned, not merged. */
__attribute__((noinline, noclone)) int target_fn(int x)
{
	sink += x;
	return x + 1;
}

__attribute__((noinline, noclone)) int target_recurse(int depth)
{
	sink++;
	if (depth > 1)
		target_recurse(depth - 1);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
	return depth;
}

__attribute__((noinline, noclone)) void target_jump(jmp_buf *env)
{
	sink++;
	if (env)
		longjmp(*env, 1);
}

/* Moves the calling thread to the other CPU from inside a probed call. */
__attribute__((noinline, noclone)) int target_migrate(int to_cpu)
{
	ispot_pin_cpu(to_cpu);
	sink++;
	return to_cpu;
}

/* Blocks inside a probed call until a byte arrives on @fd. */
__attribute__((noinline, noclone)) int target_block(int fd)
{
	char b;

	return read(fd, &b, 1);
}

static int calls_n(void *arg)
{
	long i, n = (long)arg;

	for (i = 0; i < n; i++)
		target_fn(i);
	return 0;
}

/* A traced child, its session and everything drained from it. */
struct trace {
	int fd;
	struct ispot_setup setup;
	struct ispot_rings rings;
	struct ispot_child child;
	struct ispot_record *recs;
	size_t n, cap;
	struct pairer *pairer;
	size_t entries, exits, stacks;
};

static void trace_start_flags(struct trace *t, int (*work)(void *),
			      void *arg, uint32_t pages,
			      uint32_t stack_period, uint32_t flags)
{
	memset(t, 0, sizeof(*t));
	t->fd = ispot_open_or_skip();
	ASSERT_GE(t->fd, 0);
	ASSERT_EQ(ispot_child_start(&t->child, work, arg), 0);
	t->setup.pid = t->child.pid;
	t->setup.ring_pages = pages;
	t->setup.stack_period = stack_period;
	t->setup.flags = flags;
	ASSERT_EQ(ispot_ioctl(t->fd, ISPOT_IOC_SETUP, &t->setup), 0);
	ASSERT_EQ(ispot_map_rings(t->fd, &t->setup, &t->rings), 0);
}

static void trace_start(struct trace *t, int (*work)(void *), void *arg,
			uint32_t pages, uint32_t stack_period)
{
	trace_start_flags(t, work, arg, pages, stack_period, 0);
}

static int trace_probe(struct trace *t, void *fn, uint32_t flags,
		       uint32_t sample)
{
	int id = ispot_add_probe_fn(t->fd, fn, flags, sample);

	ASSERT_GT(id, 0);
	return id;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct ispot_record *x = a, *y = b;

	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/* Sort by time (merging CPUs) and feed the real pairer. */
static void trace_analyse(struct trace *t)
{
	struct ispot_record *flat;
	size_t i, m = 0;

	flat = calloc(t->n + 1, sizeof(*flat));
	ASSERT_NE(flat, NULL);
	for (i = 0; i < t->n; i += t->recs[i].nslots) {
		ASSERT_GE(t->recs[i].nslots, 1);
		flat[m++] = t->recs[i];
	}
	qsort(flat, m, sizeof(*flat), rec_cmp);
	t->pairer = pairer_new(NULL, NULL);
	ASSERT_NE(t->pairer, NULL);
	for (i = 0; i < m; i++) {
		t->entries += flat[i].kind == ISPOT_REC_ENTRY;
		t->exits += flat[i].kind == ISPOT_REC_EXIT;
		t->stacks += flat[i].kind == ISPOT_REC_STACK;
		pairer_feed(t->pairer, &flat[i]);
	}
	pairer_flush(t->pairer);
	free(flat);
}

/* Run the child to completion, then drain everything and pair it. */
static void trace_run(struct trace *t)
{
	ASSERT_EQ(ispot_ioctl(t->fd, ISPOT_IOC_ENABLE, NULL), 0);
	ispot_child_go(&t->child);
	ASSERT_EQ(ispot_child_wait(&t->child), 0);
	ASSERT_EQ(ispot_ioctl(t->fd, ISPOT_IOC_DISABLE, NULL), 0);
	t->n = ispot_drain(t->fd, &t->rings, &t->recs, &t->cap, 0);
	trace_analyse(t);
}

static void trace_stats(struct trace *t, struct ispot_ring_stats *rings,
			struct ispot_probe_stats *probes, uint32_t nprobes)
{
	struct ispot_stats st = {
		.rings = (uintptr_t)rings,
		.probes = (uintptr_t)probes,
		.nr_rings = t->setup.nr_rings,
		.nr_probes = nprobes,
	};

	ASSERT_EQ(ispot_ioctl(t->fd, ISPOT_IOC_STATS, &st), 0);
}

TEST(n_calls_give_n_entries_and_exits)
{
	struct ispot_probe_stats ps;
	struct ispot_ring_stats rs[64];
	const struct pair_stats *p;
	struct trace t;
	size_t i;

	trace_start(&t, calls_n, (void *)2000L, 64, 0);
	trace_probe(&t, target_fn, ISPOT_PROBE_BOTH, 0);
	trace_run(&t);
	p = pairer_stats(t.pairer);
	EXPECT_EQ(t.entries, 2000);
	EXPECT_EQ(t.exits, 2000);
	EXPECT_EQ(p->paired, 2000);
	EXPECT_EQ(p->unpaired_entries, 0);
	EXPECT_EQ(p->unpaired_exits, 0);
	for (i = 0; i < t.n; i += t.recs[i].nslots) {
		ASSERT_EQ(t.recs[i].tgid, (uint32_t)t.child.pid);
		ASSERT_EQ(t.recs[i].tid, (uint32_t)t.child.pid);
		if (t.recs[i].kind == ISPOT_REC_ENTRY)
			ASSERT_NE(t.recs[i].ip, 0);
	}
	ASSERT_LE(t.setup.nr_rings, 64);
	trace_stats(&t, rs, &ps, 1);
	EXPECT_EQ(ps.entry_hits, 2000);
	EXPECT_EQ(ps.return_hits, 2000);
	EXPECT_EQ(ps.filtered, 0);
	for (i = 0; i < t.setup.nr_rings; i++) {
		EXPECT_EQ(rs[i].dropped, 0);
		EXPECT_EQ(rs[i].produced, rs[i].consumed);
	}
}

/*
 * NO_CALLSITE: entries carry no call site, and each exit's ip is the
 * return address the entry would have read: the same one for every call
 * from the same place.
 */
TEST(no_callsite_entries_and_exit_ip)
{
	uint64_t ret_ip = 0;
	struct trace t;
	size_t i;

	trace_start(&t, calls_n, (void *)100L, 64, 0);
	trace_probe(&t, target_fn,
		    ISPOT_PROBE_BOTH | ISPOT_PROBE_NO_CALLSITE, 0);
	trace_run(&t);
	EXPECT_EQ(t.entries, 100);
	EXPECT_EQ(pairer_stats(t.pairer)->paired, 100);
	for (i = 0; i < t.n; i += t.recs[i].nslots) {
		if (t.recs[i].kind == ISPOT_REC_ENTRY)
			ASSERT_EQ(t.recs[i].ip, 0);
		if (t.recs[i].kind != ISPOT_REC_EXIT)
			continue;
		ASSERT_NE(t.recs[i].ip, 0);
		if (!ret_ip)
			ret_ip = t.recs[i].ip;
		ASSERT_EQ(t.recs[i].ip, ret_ip);
	}
	EXPECT_NE(ret_ip, 0);
}

TEST(count_only_counts_and_writes_nothing)
{
	struct ispot_probe_stats ps;
	struct ispot_ring_stats rs[64];
	struct trace t;
	size_t i;

	trace_start(&t, calls_n, (void *)1000L, 64, 0);
	trace_probe(&t, target_fn,
		    ISPOT_PROBE_BOTH | ISPOT_PROBE_COUNT_ONLY, 0);
	trace_run(&t);
	EXPECT_EQ(t.n, 0);
	ASSERT_LE(t.setup.nr_rings, 64);
	trace_stats(&t, rs, &ps, 1);
	EXPECT_EQ(ps.entry_hits, 1000);
	EXPECT_EQ(ps.return_hits, 1000);
	for (i = 0; i < t.setup.nr_rings; i++)
		EXPECT_EQ(rs[i].produced, 0);
}

static int recurse_5x100(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 5; i++)
		target_recurse(100);
	return 0;
}

TEST(deep_recursion_pairs_by_sp)
{
	const struct pair_stats *p;
	struct trace t;

	trace_start(&t, recurse_5x100, NULL, 64, 0);
	trace_probe(&t, target_recurse, ISPOT_PROBE_BOTH, 0);
	trace_run(&t);
	p = pairer_stats(t.pairer);
	EXPECT_EQ(t.entries, 500);
	/* The kernel skips returns beyond its nesting limit. */
	EXPECT_LT(t.exits, 500);
	EXPECT_GT(t.exits, 0);
	EXPECT_EQ(p->paired, t.exits);
	EXPECT_EQ(p->unpaired_exits, 0);
	EXPECT_EQ(p->unpaired_entries, 500 - t.exits);
}

static int jump_around(void *arg)
{
	jmp_buf env;
	volatile int i;

	(void)arg;
	for (i = 0; i < 20; i++) {
		if (i & 1) {
			if (!setjmp(env))
				target_jump(&env);
		} else {
			target_jump(NULL);
		}
	}
	return 0;
}

TEST(longjmp_leaves_counted_unpaired)
{
	const struct pair_stats *p;
	struct trace t;

	trace_start(&t, jump_around, NULL, 64, 0);
	trace_probe(&t, target_jump, ISPOT_PROBE_BOTH, 0);
	trace_run(&t);
	p = pairer_stats(t.pairer);
	EXPECT_EQ(t.entries, 20);
	EXPECT_EQ(t.exits, 10);
	EXPECT_EQ(p->paired, 10);
	EXPECT_EQ(p->unpaired_entries, 10);
	EXPECT_EQ(p->unpaired_exits, 0);
}

TEST(other_process_same_binary_takes_no_trap)
{
	struct ispot_probe_stats ps;
	struct ispot_ring_stats rs[64];
	struct ispot_child other;
	struct trace t;
	size_t i;

	trace_start(&t, calls_n, (void *)500L, 64, 0);
	ASSERT_EQ(ispot_child_start(&other, calls_n, (void *)700L), 0);
	trace_probe(&t, target_fn, ISPOT_PROBE_BOTH, 0);
	ispot_child_go(&other);
	trace_run(&t);
	ASSERT_EQ(ispot_child_wait(&other), 0);
	EXPECT_EQ(t.entries, 500);
	for (i = 0; i < t.n; i += t.recs[i].nslots)
		ASSERT_EQ(t.recs[i].tgid, (uint32_t)t.child.pid);
	trace_stats(&t, rs, &ps, 1);
	EXPECT_EQ(ps.entry_hits, 500);
	EXPECT_EQ(ps.filtered, 0);
}

static int getppid_n(void *arg)
{
	long i, n = (long)arg;

	for (i = 0; i < n; i++)
		getppid();
	return 0;
}

TEST(libc_function_traced_for_target_only)
{
	struct ispot_probe_stats ps;
	struct ispot_ring_stats rs[64];
	struct trace t;
	int i;

	trace_start(&t, getppid_n, (void *)300L, 64, 0);
	trace_probe(&t, (void *)getppid, ISPOT_PROBE_BOTH, 0);
	ASSERT_EQ(ispot_ioctl(t.fd, ISPOT_IOC_ENABLE, NULL), 0);
	/* The tracer itself calls the same libc function meanwhile. */
	for (i = 0; i < 1000; i++)
		getppid();
	ispot_child_go(&t.child);
	ASSERT_EQ(ispot_child_wait(&t.child), 0);
	for (i = 0; i < 1000; i++)
		getppid();
	t.n = ispot_drain(t.fd, &t.rings, &t.recs, &t.cap, 0);
	trace_analyse(&t);
	EXPECT_EQ(t.entries, 300);
	EXPECT_EQ(pairer_stats(t.pairer)->paired, 300);
	trace_stats(&t, rs, &ps, 1);
	EXPECT_EQ(ps.entry_hits, 300);
	EXPECT_EQ(ps.filtered, 0);
}

TEST(full_ring_counts_every_drop)
{
	struct ispot_ring_stats rs[64];
	struct ispot_probe_stats ps;
	uint64_t dropped = 0, consumed = 0;
	struct trace t;
	size_t i;

	/*
	 * One data page: 64 slots, against 40000 records unread, plus the
	 * probe's first call stack (the period is too long for a second).
	 */
	trace_start(&t, calls_n, (void *)20000L, 1, 0xffffffffu);
	trace_probe(&t, target_fn, ISPOT_PROBE_BOTH, 0);
	trace_run(&t);
	trace_stats(&t, rs, &ps, 1);
	for (i = 0; i < t.setup.nr_rings; i++) {
		EXPECT_EQ(rs[i].produced, rs[i].consumed + rs[i].dropped);
		EXPECT_EQ(ispot_ring_ctrl(&t.rings, i)->dropped, rs[i].dropped);
		dropped += rs[i].dropped;
		consumed += rs[i].consumed;
	}
	EXPECT_GT(dropped, 0);
	EXPECT_EQ(consumed, t.entries + t.exits + t.stacks);
	EXPECT_EQ(consumed + dropped, 40000 + 1);	/* + first stack */
	/* Without ISPOT_SETUP_LOST, no LOST record. */
	for (i = 0; i < t.n; i += t.recs[i].nslots)
		EXPECT_NE(t.recs[i].kind, ISPOT_REC_LOST);
}

/* 20,000 calls on CPU 0, a stop (SIGSTOP) for the reader, 10 more. */
static int calls_stop_calls(void *arg)
{
	ispot_pin_cpu(0);
	calls_n((void *)20000L);
	raise(SIGSTOP);
	return calls_n(arg);
}

/*
 * ISPOT_SETUP_LOST: the ring full, then read empty while the child is
 * stopped, the first record it takes after is a LOST record: the drops
 * of the ring, the child's, timed between the records around it, and
 * every drop is told by one.  It is a record like any other: produced,
 * consumed, counted.  With a call stack every @stack_period calls, the
 * record after it takes several slots.
 */
static void full_ring_tells(uint32_t pages, uint32_t stack_period,
			    uint64_t stacks)
{
	struct ispot_ring_stats rs[64];
	struct ispot_probe_stats ps;
	const struct ispot_record *lost = NULL, *before = NULL, *after = NULL;
	uint64_t dropped = 0, told = 0;
	struct trace t;
	size_t i, nr_lost = 0, stopped_at;
	int status;

	trace_start_flags(&t, calls_stop_calls, (void *)10L, pages,
			  stack_period, ISPOT_SETUP_LOST);
	ASSERT_LE(t.setup.nr_rings, 64);
	trace_probe(&t, target_fn, ISPOT_PROBE_BOTH, 0);
	ASSERT_EQ(ispot_ioctl(t.fd, ISPOT_IOC_ENABLE, NULL), 0);
	ispot_child_go(&t.child);
	ASSERT_EQ(waitpid(t.child.pid, &status, WUNTRACED), t.child.pid);
	ASSERT_TRUE(WIFSTOPPED(status));
	t.n = ispot_drain(t.fd, &t.rings, &t.recs, &t.cap, 0);
	stopped_at = t.n;
	ASSERT_EQ(kill(t.child.pid, SIGCONT), 0);
	ASSERT_EQ(ispot_child_wait(&t.child), 0);
	ASSERT_EQ(ispot_ioctl(t.fd, ISPOT_IOC_DISABLE, NULL), 0);
	t.n = ispot_drain(t.fd, &t.rings, &t.recs, &t.cap, t.n);
	trace_stats(&t, rs, &ps, 1);
	for (i = 0; i < t.setup.nr_rings; i++) {
		EXPECT_EQ(rs[i].produced, rs[i].consumed + rs[i].dropped);
		dropped += rs[i].dropped;
	}
	/* The LOST after the stop: the first record read after it. */
	for (i = 0; i < t.n; i += t.recs[i].nslots) {
		if (t.recs[i].kind == ISPOT_REC_LOST) {
			nr_lost++;
			told += t.recs[i].data[0];
		}
		if (i < stopped_at)
			before = &t.recs[i];
		else if (!lost)
			lost = &t.recs[i];
		else if (!after)
			after = &t.recs[i];
	}
	/*
	 * With stacks, the full ring had room for an entry (and a LOST)
	 * where a stack, which reserves room for its most frames, found
	 * none: LOST records came in the full stretch too, each telling
	 * its drops.
	 */
	if (stacks == 1)
		ASSERT_EQ(nr_lost, 1);
	ASSERT_TRUE(before && lost && after);
	ASSERT_EQ(lost->kind, ISPOT_REC_LOST);
	EXPECT_GT(dropped, 0);
	EXPECT_EQ(told, dropped);
	EXPECT_EQ(lost->tid, (uint32_t)t.child.pid);
	EXPECT_EQ(lost->data[2], 0);	/* one thread's */
	EXPECT_EQ(lost->tgid, 0);
	EXPECT_EQ(lost->cpu, 0);
	EXPECT_EQ(lost->nslots, 1);
	EXPECT_LE(before->ts_ns, lost->ts_ns);
	EXPECT_LE(lost->ts_ns, lost->data[1]);
	EXPECT_LE(lost->data[1], after->ts_ns);
	EXPECT_EQ(after->kind, stacks > 1 ? ISPOT_REC_STACK : ISPOT_REC_ENTRY);
	if (stacks > 1)
		EXPECT_GT(after->nslots, 1);
	/* Every record after it whole: the counts add up. */
	trace_analyse(&t);
	EXPECT_EQ(t.entries + t.exits + t.stacks + dropped,
		  40000 + 20 + stacks);
}

TEST(full_ring_tells_its_drops_in_a_lost_record)
{
	/* One page, 64 slots; the period too long for a second stack. */
	full_ring_tells(1, 0xffffffffu, 1);
}

TEST(a_lost_record_before_a_record_of_several_slots)
{
	/*
	 * A stack before every call, 20,010 of them: four pages, as a stack
	 * reserves room for its most frames (more than a page's slots).
	 */
	full_ring_tells(4, 1, 20010);
}

static int pinned_calls(void *arg)
{
	ispot_pin_cpu(0);
	return calls_n(arg);
}

TEST(sampling_records_one_in_n)
{
	const struct pair_stats *p;
	struct trace t;

	trace_start(&t, pinned_calls, (void *)1000L, 64, 0);
	trace_probe(&t, target_fn, ISPOT_PROBE_BOTH, 10);
	trace_run(&t);
	p = pairer_stats(t.pairer);
	EXPECT_GE(t.entries, 99);
	EXPECT_LE(t.entries, 101);
	EXPECT_EQ(t.exits, t.entries);
	EXPECT_EQ(p->paired, t.entries);
	EXPECT_EQ(p->unpaired_entries + p->unpaired_exits, 0);
}

TEST(call_stack_first_and_every_nth)
{
	struct trace t;
	size_t i, first = (size_t)-1;

	trace_start(&t, pinned_calls, (void *)1000L, 64, 100);
	trace_probe(&t, target_fn, ISPOT_PROBE_BOTH, 0);
	trace_run(&t);
	EXPECT_GE(t.stacks, 10);
	EXPECT_LE(t.stacks, 11);
	for (i = 0; i < t.n; i += t.recs[i].nslots) {
		if (t.recs[i].kind == ISPOT_REC_STACK) {
			first = i;
			break;
		}
	}
	ASSERT_NE(first, (size_t)-1);
	/* The first record of the probe is its stack, then the entry. */
	ASSERT_EQ(first, 0);
	ASSERT_GE(t.recs[0].data[0], 2);
	ASSERT_EQ(t.recs[0].nslots, 1 + (t.recs[0].data[0] + 7) / 8);
	ASSERT_EQ(t.recs[t.recs[0].nslots].kind, ISPOT_REC_ENTRY);
	/* Frame 0 is the call site, as in the entry record. */
	EXPECT_EQ(((uint64_t *)&t.recs[1])[0], t.recs[t.recs[0].nslots].ip);
}

static int migrate_around(void *arg)
{
	int i;

	(void)arg;
	pinned_calls((void *)0L);
	for (i = 0; i < 50; i++)
		target_migrate(!(i & 1));
	return 0;
}

static uint64_t migrated;

static void count_migrated(const struct pair_exec *e, void *ctx)
{
	(void)ctx;
	migrated += e->entry_cpu != e->exit_cpu;
}

/*
 * A USDT semaphore (ABI 1.5): a short in the file-backed data, which the
 * kernel counts up in each process the probe is armed in.  Zero-initialised
 * in .data, not .bss, because the kernel only counts it in a file mapping.
 */
volatile unsigned short test_semaphore __attribute__((section(".data")));

/*
 * The child reads its own semaphore and answers over a pipe (not through
 * process_vm_readv(), which a kernel may be built without): 'r' reads,
 * 'c' calls target_fn first, 'q' ends it.
 */
struct sem_pipes {
	int cmd[2];
	int reply[2];
};

static int sem_child(void *arg)
{
	struct sem_pipes *p = arg;
	unsigned short v;
	int fd;
	char c;

	/* The session's fd came with the fork: only the tracer's may hold it. */
	for (fd = 3; fd < 1024; fd++)
		if (fd != p->cmd[0] && fd != p->reply[1])
			close(fd);
	while (read(p->cmd[0], &c, 1) == 1 && c != 'q') {
		if (c == 'c')
			target_fn(1);
		v = test_semaphore;
		if (write(p->reply[1], &v, sizeof(v)) != sizeof(v))
			return 1;
	}
	return 0;
}

static unsigned short child_semaphore(struct sem_pipes *p, char c)
{
	unsigned short v = 0xffff;

	if (write(p->cmd[1], &c, 1) != 1 ||
	    read(p->reply[0], &v, sizeof(v)) != sizeof(v))
		return 0xffff;
	return v;
}

/* A child, its session, and the file offsets of target_fn and @other. */
static void sem_start(struct trace *t, struct sem_pipes *p, void *other,
		      char *path, size_t len, uint64_t *fn_off,
		      uint64_t *other_off, uint64_t *sem_off)
{
	char data_path[4096];

	ASSERT_EQ(pipe(p->cmd), 0);
	ASSERT_EQ(pipe(p->reply), 0);
	trace_start(t, sem_child, p, 64, 0);
	ispot_child_go(&t->child);
	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)target_fn, path,
				     len, fn_off), 0);
	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)other, data_path,
				     sizeof(data_path), other_off), 0);
	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)&test_semaphore,
				     data_path, sizeof(data_path), sem_off), 0);
	ASSERT_EQ(strcmp(path, data_path), 0);
}

static void sem_end(struct trace *t, struct sem_pipes *p)
{
	ASSERT_EQ(write(p->cmd[1], "q", 1), 1);
	ASSERT_EQ(ispot_child_wait(&t->child), 0);
	close(p->cmd[0]);
	close(p->cmd[1]);
	close(p->reply[0]);
	close(p->reply[1]);
}

TEST(semaphore_counted_while_armed_in_the_target_only)
{
	struct ispot_probe_add a = { .fd = -1, .flags = ISPOT_PROBE_ENTRY };
	uint64_t fn_off, other_off, sem_off;
	struct sem_pipes pipes;
	char path[4096];
	struct trace t;

	sem_start(&t, &pipes, target_recurse, path, sizeof(path), &fn_off,
		  &other_off, &sem_off);
	a.path = (uintptr_t)path;
	a.offset = fn_off;
	a.ref_ctr_offset = sem_off;
	ASSERT_EQ(ispot_ioctl(t.fd, ISPOT_IOC_PROBE_ADD, &a), 0);
	EXPECT_EQ(child_semaphore(&pipes, 'r'), 0);

	ASSERT_EQ(ispot_ioctl(t.fd, ISPOT_IOC_ENABLE, NULL), 0);
	/* Its one call, with the probe armed. */
	EXPECT_EQ(child_semaphore(&pipes, 'c'), 1);
	/* This process maps the same file but is not the target. */
	EXPECT_EQ(test_semaphore, 0);

	/* Disarmed, the count goes back: nothing is left behind. */
	ASSERT_EQ(ispot_ioctl(t.fd, ISPOT_IOC_DISABLE, NULL), 0);
	EXPECT_EQ(child_semaphore(&pipes, 'c'), 0);
	sem_end(&t, &pipes);
	t.n = ispot_drain(t.fd, &t.rings, &t.recs, &t.cap, 0);
	trace_analyse(&t);
	EXPECT_EQ(t.entries, 1);
}

/*
 * Two probes on one semaphore count twice; DISABLE and ENABLE again, and
 * closing the session without a DISABLE, each take back exactly what they
 * raised.
 */
TEST(semaphore_counts_per_probe_across_cycles_and_close)
{
	struct ispot_probe_add a = { .fd = -1, .flags = ISPOT_PROBE_ENTRY };
	uint64_t fn_off, fn2_off, sem_off;
	struct sem_pipes pipes;
	char path[4096];
	struct trace t;
	int i;

	sem_start(&t, &pipes, target_recurse, path, sizeof(path), &fn_off,
		  &fn2_off, &sem_off);
	a.path = (uintptr_t)path;
	a.ref_ctr_offset = sem_off;
	a.offset = fn_off;
	ASSERT_EQ(ispot_ioctl(t.fd, ISPOT_IOC_PROBE_ADD, &a), 0);
	a.offset = fn2_off;
	a.probe_id = 0;
	ASSERT_EQ(ispot_ioctl(t.fd, ISPOT_IOC_PROBE_ADD, &a), 0);

	ASSERT_EQ(ispot_ioctl(t.fd, ISPOT_IOC_ENABLE, NULL), 0);
	EXPECT_EQ(child_semaphore(&pipes, 'r'), 2);
	ASSERT_EQ(ispot_ioctl(t.fd, ISPOT_IOC_DISABLE, NULL), 0);
	EXPECT_EQ(child_semaphore(&pipes, 'r'), 0);
	ASSERT_EQ(ispot_ioctl(t.fd, ISPOT_IOC_ENABLE, NULL), 0);
	EXPECT_EQ(child_semaphore(&pipes, 'r'), 2);
	/* The session goes with its last reference, armed. */
	for (i = 0; i < t.rings.nr; i++)
		munmap(t.rings.maps[i], t.rings.size);
	close(t.fd);
	EXPECT_EQ(child_semaphore(&pipes, 'r'), 0);
	EXPECT_EQ(test_semaphore, 0);
	sem_end(&t, &pipes);
}

TEST(exit_on_another_cpu_pairs)
{
	struct trace t;
	size_t i, m = 0;
	struct ispot_record *flat;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP("needs 2 CPUs");
	trace_start(&t, migrate_around, NULL, 64, 0);
	trace_probe(&t, target_migrate, ISPOT_PROBE_BOTH, 0);
	trace_run(&t);
	EXPECT_EQ(pairer_stats(t.pairer)->paired, 50);
	/* Pair again, counting executions that changed CPU. */
	flat = calloc(t.n, sizeof(*flat));
	for (i = 0; i < t.n; i += t.recs[i].nslots)
		flat[m++] = t.recs[i];
	qsort(flat, m, sizeof(*flat), rec_cmp);
	pairer_free(t.pairer);
	t.pairer = pairer_new(count_migrated, NULL);
	for (i = 0; i < m; i++)
		pairer_feed(t.pairer, &flat[i]);
	EXPECT_GE(migrated, 25);
	free(flat);
}

TEST_HARNESS_MAIN
