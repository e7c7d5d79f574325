// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer for /dev/ispot (issue "Hardening", item 3).
 *
 * Threads make random but structured calls: open and close of the device;
 * every ioctl with random fields, reserved bits and counts, and pointers
 * that are valid, NULL, unmapped, read-only, misaligned, straddling a
 * protection boundary, not yet faulted in, or kernel addresses; unknown
 * commands and wrong sizes; mmap, munmap, mprotect, mremap and madvise of
 * the rings at any offset and size; poll; and the life of the traced
 * processes: fork, exec, stop, kill and exit of targets that call two
 * functions of this binary in a loop, so that ENABLE arms real probes,
 * records flow, and small rings overflow.
 *
 * Checked: the kernel survives (the VM runner fails the run on any splat;
 * a watchdog prints the threads' kernel stacks if calls stop coming back);
 * oracles from the ABI (a non-zero reserved field is -EINVAL, an unknown
 * command -ENOTTY, no success for output into read-only memory, no
 * writable ring, sane outputs); and, for every session, once disabled and
 * drained, produced == consumed + dropped on every ring.
 *
 * Replay: main prints "# seed N"; "fuzz_test --seed N" (or FUZZ_SEED=N)
 * replays it.  Each thread draws FZ_NR_RAND values per operation from its
 * own PRNG, seeded from the seed, the test and the thread's index, so every
 * thread makes the same operations with the same arguments.  The kernel's
 * answers also depend on how the threads interleave and on timing (how far
 * a target got, which probe ids exist), which no seed reproduces:
 * FUZZ_THREADS=1 and FUZZ_ONLY=TEST make a replay as close as it gets.
 *
 * Environment:
 *   FUZZ_SEED=N	seed (default: random)
 *   FUZZ_ITER=N	calls in total over the four tests (default 40000)
 *   FUZZ_ONLY=NAME	run only that test (the others skip)
 *   FUZZ_THREADS=N	threads per test instead of each test's own count
 *   FUZZ_TRACE=1	print every call and its result (slow; for reducing)
 *   FUZZ_HANG_SEC=N	watchdog: report a hang after N s without progress
 *   FUZZ_HANG_PANIC=1	then crash the guest (sysrq-c) to end the run now;
 *			only in a VM
 *   FUZZ_SKIP=LIST	comma-separated known kernel bugs to steer around, so
 *			that a run can find others; off by default:
 *	e2big		no SETUP with a ring_pages that passes the first
 *			size check and fails the total one with -E2BIG
 *			(STATS then dereferenced the NULL rings)
 *	mmap_lock	no mmap() of a session while another thread is in an
 *			ioctl on it (mmap_lock vs session mutex inversion)
 */
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <time.h>
#include <linux/perf_event.h>
#include <sys/prctl.h>

#include "ispot_kmod_test.h"

#define PG		4096UL
#define FZ_NR_RAND	16	/* PRNG draws per operation */
#define FZ_MAX_THREADS	4
#define FZ_MAX_SLOTS	6
#define FZ_MAX_MAPS	4	/* per slot */
#define FZ_MAX_TARGETS	4
#define FZ_NR_ERRNO	134	/* errno values counted one by one */
#define FZ_DEFAULT_ITER	40000
#define FZ_MAX_REPORTS	20	/* oracle failures printed per test */

/* Every kind of call the fuzzer makes, for the counts and histograms. */
enum fz_call {
	C_OPEN, C_CLOSE, C_GET_VERSION, C_INFO, C_SETUP, C_PROBE_ADD,
	C_PROBE_REMOVE, C_ENABLE, C_DISABLE, C_RING_CONSUME, C_STATS,
	C_COUNTERS, C_BAD_IOCTL, C_MMAP, C_MUNMAP, C_MPROTECT, C_MREMAP,
	C_MADVISE, C_POLL, C_FORK, C_EXEC, C_KILL, C_NR
};

static const char *const fz_call_name[C_NR] = {
	"open", "close", "GET_VERSION", "INFO", "SETUP", "PROBE_ADD",
	"PROBE_REMOVE", "ENABLE", "DISABLE", "RING_CONSUME", "STATS",
	"COUNTERS", "bad ioctl", "mmap", "munmap", "mprotect", "mremap",
	"madvise", "poll", "fork", "exec", "kill",
};

/* Shared with the tests' processes, so that main can print the totals. */
struct fz_stats {
	uint64_t total;
	uint64_t calls[C_NR];
	uint64_t err[C_NR][FZ_NR_ERRNO + 1];	/* [0]: success; last: other */
	uint64_t oracle_failures;
	uint64_t checked, with_records, with_drops, records, drops;
};

static struct fz_stats *fz_stats;
static uint64_t fz_seed, fz_iter = FZ_DEFAULT_ITER;
static const char *fz_only;
static int fz_threads_override, fz_trace, fz_hang_sec = 120, fz_hang_panic;
static bool fz_skip_e2big, fz_skip_mmap_lock;

/* What the target binaries look like; filled in by each test. */
static char fz_exe[4096], fz_libc[4096];
static uint64_t fz_off_a, fz_off_b, fz_off_libc, fz_exe_size;
static uint64_t fz_text_off, fz_text_len, fz_span;
static int fz_exe_fd = -1, fz_libc_fd = -1, fz_dir_fd = -1, fz_pipe[2];
static uint32_t fz_nr_cpus, fz_max_probes, fz_max_sessions;
static size_t fz_big_size;

static volatile uint64_t fz_sink[8];

/* Probed in the targets.  The fuzzer process itself never calls them. */
__attribute__((noinline, noclone)) uint64_t fuzz_target_a(uint64_t x)
{
	int i;

	for (i = 0; i < 8; i++)
		fz_sink[i] += x ^ i;
	return fz_sink[x & 7];
}

/* Calls the other, so entries and exits nest. */
__attribute__((noinline, noclone)) uint64_t fuzz_target_b(uint64_t x)
{
	return fuzz_target_a(x + 1) ^ fz_sink[0];
}

/* ---- per-thread state and randomness ---- */

enum fz_ptr {
	P_VALID, P_MISALIGNED, P_RO, P_STRADDLE_RO, P_STRADDLE_NONE,
	P_UNFAULTED, P_NULL, P_UNMAPPED, P_KDIRECT, P_KTEXT, P_NONCANON,
	P_NR
};

struct fz_map {
	void *addr;
	size_t len;
	unsigned int gen;	/* session generation of the slot */
	int cpu;		/* a whole, intact ring: its index; else -1 */
	bool ctrl_ok;		/* the first page is a ctrl page, readable */
	bool data_ok;		/* and so are the data pages after it */
	bool dead;		/* zapped or a tail piece: never read */
};

/*
 * One fd, shared by the threads.  @rw is held for reading around every
 * call on @fd and for writing to open, close or check it, so an fd number
 * is never reused under a call.  @lock protects the other fields and is
 * held while ring memory is read, so that no mapping goes away under it.
 */
struct fz_slot {
	pthread_rwlock_t rw;
	pthread_mutex_t lock;
	int fd;
	unsigned int gen;	/* bumped at each open */
	bool keep_probes_safe;	/* a SETUP named a process that must not
				 * crash: only probe function entries */
	uint64_t ring_size;	/* from SETUP's output, 0 if unknown */
	uint32_t nr_rings;
	int nmaps;
	struct fz_map maps[FZ_MAX_MAPS];
};

struct fz_test;

struct fz_thread {
	struct fz_test *t;
	int idx;
	pthread_t pt;
	pid_t tid;
	uint64_t rng;
	uint64_t r[FZ_NR_RAND];
	unsigned int ri;
	uint64_t nop;
	volatile int cur;	/* operation in progress, -1 if none */
	char *arena;		/* pages: RW, RW, RO, PROT_NONE */
	char *big;		/* fz_big_size bytes RW, then a guard page */
};

enum fz_target_mode {
	T_LOOP,		/* call the functions until killed */
	T_FINITE,	/* a while, then exit */
	T_EXIT,		/* exit at once */
	T_EXEC,		/* exec this binary, which calls from threads */
	T_FORK,		/* a while, with a child that calls them too */
	T_OWNER,	/* trace itself with its own session, then be killed */
	T_NR_MODES
};

struct fz_test {
	const char *name;
	int nr_threads, nr_slots;
	const unsigned int *weights;
	unsigned int ring_order;	/* the recipe's rings: up to 2^N pages */
	uint64_t budget, start;
	volatile uint64_t ops, reaped;
	volatile int done, hung;
	const char *volatile phase;	/* for the hang report */
	pid_t pid, watchdog;
	unsigned int oracle_base;
	struct fz_thread th[FZ_MAX_THREADS];
	struct fz_slot slots[FZ_MAX_SLOTS];
	pthread_mutex_t tlock;		/* the targets below */
	pid_t targets[FZ_MAX_TARGETS];	/* live, not yet reaped; 0: free */
	pid_t gone[4];			/* recently killed or reaped */
	unsigned int ngone;
};

static __thread struct fz_thread *fz_self;

static uint64_t fz_splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * The next of this operation's draws.  Past FZ_NR_RAND they are derived
 * from the draws, so an operation never consumes more of the PRNG than
 * another, whatever the kernel answered.
 */
static uint64_t fz_rand(struct fz_thread *th)
{
	uint64_t v = th->r[th->ri % FZ_NR_RAND];

	if (th->ri >= FZ_NR_RAND)
		v = fz_splitmix(v + th->ri);
	th->ri++;
	return v;
}

static uint32_t fz_below(struct fz_thread *th, uint32_t n)
{
	return n ? fz_rand(th) % n : 0;
}

static bool fz_chance(struct fz_thread *th, unsigned int pct)
{
	return fz_below(th, 100) < pct;
}

/* A non-zero value for a reserved field of @width bits: one bit or many. */
static uint64_t fz_bits(struct fz_thread *th, unsigned int width)
{
	uint64_t v = 1ULL << fz_below(th, width);

	if (fz_chance(th, 50))
		v |= fz_rand(th);
	return width < 64 ? v & ((1ULL << width) - 1) : v;
}

/* ---- counting calls, oracles ---- */

static void fz_count(enum fz_call c, long ret, int err)
{
	int e = ret < 0 ? err : 0;

	if (e < 0 || e > FZ_NR_ERRNO)
		e = FZ_NR_ERRNO;
	__atomic_fetch_add(&fz_stats->total, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&fz_stats->calls[c], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&fz_stats->err[c][e], 1, __ATOMIC_RELAXED);
	if (fz_trace && fz_self)
		printf("# t%d.%llu %s = %ld %s\n", fz_self->idx,
		       (unsigned long long)fz_self->nop, fz_call_name[c],
		       ret, ret < 0 ? strerrorname_np(err) ?: "?" : "");
}

/* Make a counted call; returns its result with errno left as it set it. */
#define FZ_CALL(c, expr) ({						\
	long __r = (long)(expr);					\
	int __e = errno;						\
	fz_count(c, __r, __e);						\
	errno = __e;							\
	__r;								\
})

static int fz_ioctl(enum fz_call c, int fd, unsigned long cmd, uint64_t arg)
{
	return FZ_CALL(c, ioctl(fd, cmd, (unsigned long)arg)) < 0 ? -errno : 0;
}

static void *fz_mmap(size_t len, int prot, int flags, int fd, off_t off)
{
	void *m = mmap(NULL, len, prot, flags, fd, off);

	fz_count(C_MMAP, m == MAP_FAILED ? -1 : 0, errno);
	return m;
}

static void fz_munmap(void *addr, size_t len)
{
	FZ_CALL(C_MUNMAP, munmap(addr, len));
}

static __attribute__((format(printf, 2, 3)))
void fz_oracle_fail(int line, const char *fmt, ...)
{
	uint64_t n = __atomic_add_fetch(&fz_stats->oracle_failures, 1,
					__ATOMIC_RELAXED);
	struct fz_thread *th = fz_self;
	char msg[512];
	va_list ap;

	if (th && n - th->t->oracle_base > FZ_MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("# ORACLE %s:%d thread %d op %llu: %s\n", __FILE__, line,
	       th ? th->idx : -1, th ? (unsigned long long)th->nop : 0ULL,
	       msg);
}

#define FZ_ORACLE(cond, fmt, ...) do {					\
	if (!(cond))							\
		fz_oracle_fail(__LINE__, fmt, ##__VA_ARGS__);		\
} while (0)

/* ---- pointers ---- */

static enum fz_ptr fz_ptr_kind(struct fz_thread *th)
{
	if (fz_chance(th, 65))
		return P_VALID;
	return 1 + fz_below(th, P_NR - 1);
}

/* The kernel reads exactly what we put there. */
static bool fz_ptr_readable(enum fz_ptr k)
{
	return k == P_VALID || k == P_MISALIGNED || k == P_RO ||
	       k == P_STRADDLE_RO;
}

/* The kernel can write the whole object there. */
static bool fz_ptr_writable(enum fz_ptr k)
{
	return k == P_VALID || k == P_MISALIGNED || k == P_UNFAULTED;
}

/* Not even the first byte can be written there. */
static bool fz_ptr_unwritable(enum fz_ptr k)
{
	return !fz_ptr_writable(k) && k != P_STRADDLE_RO;
}

/* Copy into the arena, through the read-only page if needed. */
static void fz_arena_write(struct fz_thread *th, char *dst, const void *src,
			   size_t len)
{
	char *ro = th->arena + 2 * PG;
	bool touch_ro = dst + len > ro && dst < ro + PG;

	if (touch_ro && mprotect(ro, PG, PROT_READ | PROT_WRITE))
		return;
	memcpy(dst, src, len);
	if (touch_ro)
		mprotect(ro, PG, PROT_READ);
}

/*
 * Put the @len bytes at @src (none if NULL) where a pointer of kind @k
 * points, and return that pointer.  @len is at most 2 pages.
 */
static uint64_t fz_place(struct fz_thread *th, enum fz_ptr k, const void *src,
			 size_t len)
{
	char *a = th->arena, *p;

	switch (k) {
	case P_VALID:
		p = a + fz_below(th, (2 * PG - len) / 8 + 1) * 8;
		break;
	case P_MISALIGNED:
		p = a + 1 + fz_below(th, 7);
		if (p + len > a + 2 * PG)
			p = a + 1;
		break;
	case P_RO:
		p = len <= PG ? a + 2 * PG : a + 3 * PG - len;
		break;
	case P_STRADDLE_RO:
		p = a + 2 * PG - len / 2;
		break;
	case P_STRADDLE_NONE:
		p = a + 3 * PG - len / 2;
		if (src)
			fz_arena_write(th, p, src, len / 2);
		return (uintptr_t)p;
	case P_UNFAULTED:
		/* Zeroes, and the first access faults, perhaps under a lock. */
		madvise(a + PG, PG, MADV_DONTNEED);
		return (uintptr_t)(a + PG + (len <= PG ? PG - len : 0) / 8 * 8);
	case P_NULL:
		return 0;
	case P_UNMAPPED:
		return 0x10000 + fz_below(th, PG);	/* mmap_min_addr */
	case P_KDIRECT:
		return 0xffff888000000000ULL + fz_below(th, 512) * 8;
	case P_KTEXT:
		return 0xffffffff81000000ULL;
	default:
		return fz_chance(th, 50) ? 0x0000800000000000ULL :
					   0xdead000000000000ULL;
	}
	if (src)
		fz_arena_write(th, p, src, len);
	return (uintptr_t)p;
}

/* An output array: the big buffer when valid, else a bad pointer. */
static uint64_t fz_array(struct fz_thread *th, enum fz_ptr *kind)
{
	*kind = fz_ptr_kind(th);
	if (*kind == P_VALID)
		return (uintptr_t)th->big;
	return fz_place(th, *kind, NULL, 64);
}

static void fz_read_back(void *dst, uint64_t src, size_t len)
{
	memcpy(dst, (const void *)(uintptr_t)src, len);
}

/* ---- targets ---- */

static void fz_target_loop(long iters)
{
	struct timespec ts = { 0, 2000000 };
	long i;

	for (i = 0; !iters || i < iters; i++) {
		fuzz_target_a(i);
		fuzz_target_b(i);
		if ((i & 15) == 15)
			nanosleep(&ts, NULL);
	}
}

static void fz_quiet_exit(int sig)
{
	_exit(128 + sig);
}

/*
 * A probe in the middle of an instruction crashes a target, which is fine,
 * but an unhandled fault would print "general protection" in the kernel
 * log, which the VM runner takes for a splat.
 */
static void fz_target_signals(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE };
	unsigned int i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], fz_quiet_exit);
}

/* T_OWNER: a process that traces itself and dies with its session on. */
static void fz_target_owner(void)
{
	struct ispot_probe_add a = {
		.fd = -1, .path = (uintptr_t)fz_exe, .offset = fz_off_a,
		.flags = ISPOT_PROBE_BOTH,
	};
	struct ispot_setup s = { .pid = getpid(), .ring_pages = 1 };
	int fd = open(ISPOT_DEV, O_RDWR);

	if (fd < 0 || ioctl(fd, ISPOT_IOC_SETUP, &s) ||
	    ioctl(fd, ISPOT_IOC_PROBE_ADD, &a) ||
	    ioctl(fd, ISPOT_IOC_ENABLE, NULL))
		_exit(1);
	fz_target_loop(0);
}

/* In the child of fork(); only async-signal-safe calls until exec. */
static __attribute__((noreturn))
void fz_target_child(int mode, long iters, bool close_fds, char **argv)
{
	pid_t g;

	fz_target_signals();
	if (close_fds)
		close_range(3, ~0U, 0);
	switch (mode) {
	case T_LOOP:
		fz_target_loop(0);
		break;
	case T_FINITE:
		fz_target_loop(iters);
		break;
	case T_EXEC:
		execv("/proc/self/exe", argv);
		_exit(127);
	case T_FORK:
		fz_target_loop(iters / 2);
		g = fork();
		if (g == 0) {
			fz_target_loop(32);
			_exit(0);
		}
		fz_target_loop(iters / 2);
		if (g > 0)
			waitpid(g, NULL, 0);
		break;
	case T_OWNER:
		fz_target_owner();
		break;
	}
	_exit(0);
}

static pthread_mutex_t fz_exec_lock = PTHREAD_MUTEX_INITIALIZER;

static void *fz_exec_thread(void *arg)
{
	long i, iters = (long)arg;

	for (i = 0; !iters || i < iters; i++) {
		/* Contended, so that futex calls happen (ISPOT_SETUP_WAITS). */
		pthread_mutex_lock(&fz_exec_lock);
		fuzz_target_b(i);
		pthread_mutex_unlock(&fz_exec_lock);
		fuzz_target_a(i);
		if ((i & 15) == 15)
			usleep(2000);
	}
	return NULL;
}

/* main() of "fuzz_test --fuzz-target ITERS THREADS", exec'd by T_EXEC. */
static int fz_exec_target(long iters, int threads)
{
	pthread_t pt[4];
	int i, n = 0;

	fz_target_signals();
	for (i = 0; i < threads && i < 4; i++)
		if (!pthread_create(&pt[n], NULL, fz_exec_thread,
				    (void *)iters))
			n++;
	fz_exec_thread((void *)iters);
	for (i = 0; i < n; i++)
		pthread_join(pt[i], NULL);
	return 0;
}

static void fz_forget(struct fz_test *t, pid_t pid)
{
	int i;

	for (i = 0; i < FZ_MAX_TARGETS; i++)
		if (t->targets[i] == pid)
			t->targets[i] = 0;
	t->gone[t->ngone++ % 4] = pid;
}

/* Reap whatever exited: targets and the orphans we are subreaper of. */
static void fz_reap(struct fz_test *t)
{
	pid_t pid;

	pthread_mutex_lock(&t->tlock);
	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		fz_forget(t, pid);
	pthread_mutex_unlock(&t->tlock);
}

static void fz_spawn(struct fz_thread *th, int mode)
{
	struct fz_test *t = th->t;
	long iters = 1 + fz_below(th, 3000);
	bool close_fds = fz_chance(th, 75);
	char a_iters[24], a_threads[12];
	char *argv[] = { "fuzz_test", "--fuzz-target", a_iters, a_threads,
			 NULL };
	int i, slot = fz_below(th, FZ_MAX_TARGETS);
	pid_t pid;

	snprintf(a_iters, sizeof(a_iters), "%ld", fz_chance(th, 50) ? 0 : iters);
	snprintf(a_threads, sizeof(a_threads), "%u", fz_below(th, 4));
	fz_reap(t);
	pthread_mutex_lock(&t->tlock);
	for (i = 0; i < FZ_MAX_TARGETS; i++)
		if (!t->targets[i])
			slot = i;
	if (t->targets[slot]) {
		FZ_CALL(C_KILL, kill(t->targets[slot], SIGKILL));
		fz_forget(t, t->targets[slot]);
	}
	pid = FZ_CALL(C_FORK, fork());
	if (pid == 0)
		fz_target_child(mode, iters, close_fds, argv);
	if (pid > 0) {
		t->targets[slot] = pid;
		if (mode == T_EXEC)
			fz_count(C_EXEC, 0, 0);
	}
	pthread_mutex_unlock(&t->tlock);
}

/* A live target, or 0. */
static pid_t fz_target_find(struct fz_thread *th)
{
	struct fz_test *t = th->t;
	unsigned int i, start = fz_below(th, FZ_MAX_TARGETS);
	pid_t pid = 0;

	pthread_mutex_lock(&t->tlock);
	for (i = 0; i < FZ_MAX_TARGETS && !pid; i++)
		pid = t->targets[(start + i) % FZ_MAX_TARGETS];
	pthread_mutex_unlock(&t->tlock);
	return pid;
}

/* A live target, spawned if there is none. */
static pid_t fz_target_pick(struct fz_thread *th)
{
	pid_t pid = fz_target_find(th);

	if (pid)
		return pid;
	fz_spawn(th, T_LOOP);
	return fz_target_find(th);
}

/* A pid for SETUP; *@disposable says whether the process may crash. */
static pid_t fz_pid(struct fz_thread *th, bool *disposable)
{
	struct fz_test *t = th->t;

	*disposable = false;
	switch (fz_below(th, 14)) {
	case 0:
		return getpid();
	case 1:
		return getppid();
	case 2:
		return 1;
	case 3:
		return 2;	/* kthreadd */
	case 4:
		return fz_chance(th, 50) ? 0 : -1;
	case 5:
		return (pid_t)fz_rand(th);
	case 6:
		return t->gone[fz_below(th, 4)];
	default:
		*disposable = true;
		return fz_target_pick(th);
	}
}

/* ---- slots and their mappings ---- */

static void fz_map_unmap(struct fz_map *m)
{
	fz_munmap(m->addr, m->len);
	m->addr = NULL;
}

/* Its ctrl page can be read without a fault. */
static bool fz_map_ctrl_ok(const struct fz_map *m)
{
	return !m->dead && m->ctrl_ok && m->len >= PG;
}

static void fz_slot_del_map(struct fz_slot *sl, int i)
{
	sl->maps[i] = sl->maps[--sl->nmaps];
}

/* Under @sl->lock.  A full table loses a random mapping. */
static void fz_slot_add_map(struct fz_thread *th, struct fz_slot *sl,
			    void *addr, size_t len, int cpu, bool readable)
{
	struct fz_map *m;

	if (sl->nmaps == FZ_MAX_MAPS) {
		int i = fz_below(th, FZ_MAX_MAPS);

		fz_map_unmap(&sl->maps[i]);
		fz_slot_del_map(sl, i);
	}
	m = &sl->maps[sl->nmaps++];
	memset(m, 0, sizeof(*m));
	m->addr = addr;
	m->len = (len + PG - 1) & ~(PG - 1);
	m->gen = sl->gen;
	m->cpu = cpu;
	m->ctrl_ok = readable;
	m->data_ok = readable;
}

/* Under @sl->lock: unmap the mappings of older sessions, or all. */
static void fz_slot_unmap(struct fz_slot *sl, bool all)
{
	int i;

	for (i = sl->nmaps - 1; i >= 0; i--) {
		if (!all && sl->maps[i].gen == sl->gen)
			continue;
		fz_map_unmap(&sl->maps[i]);
		fz_slot_del_map(sl, i);
	}
}

static void fz_slot_open(struct fz_thread *th, struct fz_slot *sl)
{
	/* Not O_WRONLY: the accounting check must map the rings. */
	static const int flags[] = {
		O_RDWR | O_CLOEXEC, O_RDONLY | O_CLOEXEC,
		O_RDWR | O_NONBLOCK | O_CLOEXEC, O_RDWR,
	};
	int fl = flags[fz_chance(th, 70) ? 0 : fz_below(th, 4)];

	pthread_rwlock_wrlock(&sl->rw);
	if (sl->fd < 0) {
		int fd = FZ_CALL(C_OPEN, open(ISPOT_DEV, fl));

		pthread_mutex_lock(&sl->lock);
		sl->fd = fd;
		sl->gen++;
		sl->keep_probes_safe = false;
		sl->ring_size = 0;
		sl->nr_rings = 0;
		pthread_mutex_unlock(&sl->lock);
	}
	pthread_rwlock_unlock(&sl->rw);
}

static void fz_slot_setup_done(struct fz_slot *sl, const struct ispot_setup *s)
{
	pthread_mutex_lock(&sl->lock);
	sl->ring_size = s->ring_mmap_size;
	sl->nr_rings = s->nr_rings;
	pthread_mutex_unlock(&sl->lock);
}

static bool fz_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/*
 * The most slots a record of @kind takes in the sessions fuzzed (no solo
 * blocks): a full call stack, or an off-CPU stack with its raw words, a
 * LOST record one; 0 for a kind they never write.
 */
static unsigned int fz_max_slots(uint8_t kind)
{
	if (kind == ISPOT_REC_LOST)
		return 1;
	if (kind == ISPOT_REC_OFF_STACK)
		return 1 + (ISPOT_STACK_MAX_FRAMES + 7) / 8 +
		       ISPOT_OFFCPU_MAX_WORDS / 8;
	return kind >= 1 && kind <= ISPOT_REC_TASK_EXIT ?
	       1 + (ISPOT_STACK_MAX_FRAMES + 7) / 8 : 0;
}

/*
 * Walk ring @cpu, mapped at @map (@len bytes), from its tail to its head
 * and give the records back: all of them, or up to a random boundary.
 * With @strict the session is disabled and nobody else uses the fd, so
 * anything odd is an oracle failure; otherwise other threads consume and
 * targets produce meanwhile, and the kernel must just cope.
 */
static void fz_drain_ring(struct fz_thread *th, int fd, uint32_t cpu,
			  const void *map, size_t len, bool all, bool strict)
{
	const struct ispot_ring_ctrl *c = map;
	const struct ispot_record *slots = (const void *)((const char *)map + PG);
	uint64_t head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&c->tail, __ATOMIC_RELAXED);
	uint32_t n = c->nr_slots;
	struct ispot_ring_consume rc = { .cpu = cpu };
	uint64_t pos = tail, stop = head;
	int ret;

	if (strict) {
		FZ_ORACLE(c->cpu == cpu && c->data_offset == PG &&
			  fz_pow2(n) && PG + (uint64_t)n * ISPOT_SLOT_SIZE == len,
			  "ring %u ctrl: cpu %u data_offset %llu nr_slots %u, mapping %zu",
			  cpu, c->cpu, (unsigned long long)c->data_offset, n, len);
		FZ_ORACLE(tail <= head && head - tail <= n,
			  "ring %u: tail %llu head %llu nr_slots %u", cpu,
			  (unsigned long long)tail, (unsigned long long)head, n);
	}
	if (!fz_pow2(n) || PG + (uint64_t)n * ISPOT_SLOT_SIZE > len ||
	    tail > head || head - tail > n)
		return;
	if (!all)
		stop = tail + fz_below(th, head - tail + 1);
	while (pos < stop) {
		const struct ispot_record *rec = &slots[pos & (n - 1)];
		uint8_t ns = rec->nslots;

		if (strict)
			FZ_ORACLE(ns >= 1 && ns <= fz_max_slots(rec->kind) &&
				  rec->cpu == cpu && pos + ns <= head,
				  "ring %u slot %llu: kind %u nslots %u cpu %u head %llu",
				  cpu, (unsigned long long)pos, rec->kind, ns,
				  rec->cpu, (unsigned long long)head);
		if (!ns)
			break;
		pos += ns;
	}
	rc.tail = pos;
	ret = fz_ioctl(C_RING_CONSUME, fd, ISPOT_IOC_RING_CONSUME,
		       (uintptr_t)&rc);
	if (strict)
		FZ_ORACLE(!ret, "RING_CONSUME cpu %u to head %llu: %d", cpu,
			  (unsigned long long)pos, ret);
}

/* SETUP's output was lost (it was given a read-only pointer): find out. */
static uint64_t fz_find_ring_size(int fd)
{
	uint64_t pages;

	for (pages = 1; pages <= 64; pages <<= 1) {
		size_t len = (pages + 1) * PG;
		void *m = fz_mmap(len, PROT_READ, MAP_SHARED, fd, 0);

		if (m != MAP_FAILED) {
			fz_munmap(m, len);
			return len;
		}
	}
	return 0;
}

/*
 * The accounting invariant.  Called with @sl->rw held for writing: DISABLE,
 * map every ring, drain it all, then every ring must say produced ==
 * consumed + dropped, and its control page must agree.
 */
static void fz_check_session(struct fz_thread *th, struct fz_slot *sl)
{
	struct ispot_ring_stats *rs = (void *)th->big;
	uint64_t size, produced = 0, consumed = 0, dropped = 0;
	struct ispot_stats st = { 0 };
	int fd = sl->fd, ret;
	void **maps = NULL;
	uint32_t cpu, nr;

	fz_ioctl(C_DISABLE, fd, ISPOT_IOC_DISABLE, 0);
	ret = fz_ioctl(C_STATS, fd, ISPOT_IOC_STATS, (uintptr_t)&st);
	/* A session that was never set up (or whose SETUP failed) is NEW. */
	if (ret == -EBADFD)
		return;
	FZ_ORACLE(!ret, "STATS without arrays: %d", ret);
	if (ret)
		return;
	FZ_ORACLE(st.state != ISPOT_STATE_ENABLED, "ENABLED after DISABLE");
	FZ_ORACLE(st.state != ISPOT_STATE_NEW, "STATS succeeded on a NEW session");
	nr = st.nr_rings;
	FZ_ORACLE(nr == fz_nr_cpus, "%u rings, %u CPUs", nr, fz_nr_cpus);
	size = sl->ring_size ?: fz_find_ring_size(fd);
	FZ_ORACLE(size, "no ring size maps a %s session",
		  st.state == ISPOT_STATE_DEAD ? "DEAD" : "READY");
	if (nr != fz_nr_cpus || !size)
		return;
	maps = calloc(nr, sizeof(*maps));
	for (cpu = 0; cpu < nr; cpu++) {
		maps[cpu] = fz_mmap(size, PROT_READ, MAP_SHARED, fd,
				    (off_t)(cpu * size));
		FZ_ORACLE(maps[cpu] != MAP_FAILED, "mmap ring %u of %llu: %s",
			  cpu, (unsigned long long)size, strerror(errno));
		if (maps[cpu] == MAP_FAILED)
			goto out;
	}
	for (cpu = 0; cpu < nr; cpu++)
		fz_drain_ring(th, fd, cpu, maps[cpu], size, true, true);

	memset(rs, 0xff, nr * sizeof(*rs));
	memset(&st, 0, sizeof(st));
	st.rings = (uintptr_t)rs;
	st.nr_rings = nr;
	ret = fz_ioctl(C_STATS, fd, ISPOT_IOC_STATS, (uintptr_t)&st);
	FZ_ORACLE(!ret, "STATS with rings: %d", ret);
	if (ret)
		goto out;
	for (cpu = 0; cpu < nr; cpu++) {
		const struct ispot_ring_ctrl *c = maps[cpu];

		FZ_ORACLE(rs[cpu].produced == rs[cpu].consumed + rs[cpu].dropped,
			  "ring %u: produced %llu != consumed %llu + dropped %llu",
			  cpu, (unsigned long long)rs[cpu].produced,
			  (unsigned long long)rs[cpu].consumed,
			  (unsigned long long)rs[cpu].dropped);
		FZ_ORACLE(c->head == c->tail && c->dropped == rs[cpu].dropped,
			  "ring %u drained: head %llu tail %llu dropped %llu/%llu",
			  cpu, (unsigned long long)c->head,
			  (unsigned long long)c->tail,
			  (unsigned long long)c->dropped,
			  (unsigned long long)rs[cpu].dropped);
		produced += rs[cpu].produced;
		consumed += rs[cpu].consumed;
		dropped += rs[cpu].dropped;
	}
	FZ_ORACLE(produced == consumed + dropped,
		  "produced %llu != consumed %llu + dropped %llu",
		  (unsigned long long)produced, (unsigned long long)consumed,
		  (unsigned long long)dropped);
	__atomic_fetch_add(&fz_stats->checked, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&fz_stats->with_records, !!produced, __ATOMIC_RELAXED);
	__atomic_fetch_add(&fz_stats->with_drops, !!dropped, __ATOMIC_RELAXED);
	__atomic_fetch_add(&fz_stats->records, consumed, __ATOMIC_RELAXED);
	__atomic_fetch_add(&fz_stats->drops, dropped, __ATOMIC_RELAXED);
out:
	for (cpu = 0; cpu < nr; cpu++)
		if (maps[cpu] && maps[cpu] != MAP_FAILED)
			fz_munmap(maps[cpu], size);
	free(maps);
}

/* Close, after the accounting check; the mappings may outlive the fd. */
static void fz_slot_close(struct fz_thread *th, struct fz_slot *sl,
			  bool unmap_all)
{
	pthread_rwlock_wrlock(&sl->rw);
	if (sl->fd >= 0) {
		fz_check_session(th, sl);
		FZ_CALL(C_CLOSE, close(sl->fd));
		sl->fd = -1;
	}
	pthread_mutex_lock(&sl->lock);
	fz_slot_unmap(sl, unmap_all);
	pthread_mutex_unlock(&sl->lock);
	pthread_rwlock_unlock(&sl->rw);
}

/* ---- ioctls with random arguments ---- */

static void fz_op_version(struct fz_thread *th, int fd)
{
	enum fz_ptr k = fz_ptr_kind(th);
	struct ispot_version v;
	bool bad = false;
	uint64_t p;
	int ret;

	memset(&v, 0, sizeof(v));
	if (fz_chance(th, 8)) {
		v.flags = fz_bits(th, 32);
		bad = true;
	}
	if (fz_chance(th, 8)) {
		v.reserved = fz_bits(th, 32);
		bad = true;
	}
	if (fz_chance(th, 10))		/* outputs given as input: ignored */
		memset(v.module_version, 'x', sizeof(v.module_version));
	p = fz_place(th, k, &v, sizeof(v));
	ret = fz_ioctl(C_GET_VERSION, fd, ISPOT_IOC_GET_VERSION, p);
	if (bad && fz_ptr_readable(k))
		FZ_ORACLE(ret == -EINVAL, "GET_VERSION flags %#x reserved %#x: %d",
			  v.flags, v.reserved, ret);
	if (ret)
		return;
	FZ_ORACLE(fz_ptr_writable(k), "GET_VERSION into pointer kind %d", k);
	fz_read_back(&v, p, sizeof(v));
	FZ_ORACLE(v.abi_major == ISPOT_ABI_MAJOR &&
		  v.abi_minor >= ISPOT_ABI_MINOR &&
		  memchr(v.module_version, 0, sizeof(v.module_version)),
		  "GET_VERSION says %u.%u", v.abi_major, v.abi_minor);
}

static void fz_op_info(struct fz_thread *th, int fd)
{
	enum fz_ptr k = fz_ptr_kind(th);
	struct ispot_info in;
	bool bad = false;
	uint64_t p;
	int ret;

	memset(&in, 0, sizeof(in));
	if (fz_chance(th, 10)) {
		/* Input-reserved: the reserved words and the 1.4 outputs. */
		switch (fz_below(th, 5)) {
		case 0:
			in.tracepoints = fz_bits(th, 32);
			break;
		case 1:
			in.reserved32 = fz_bits(th, 32);
			break;
		default:
			in.reserved[fz_below(th, 3)] = fz_bits(th, 64);
			break;
		}
		bad = true;
	}
	if (fz_chance(th, 10))
		in.sessions = in.nr_cpus = fz_rand(th);
	p = fz_place(th, k, &in, sizeof(in));
	ret = fz_ioctl(C_INFO, fd, ISPOT_IOC_INFO, p);
	if (bad && fz_ptr_readable(k))
		FZ_ORACLE(ret == -EINVAL, "INFO with reserved set: %d", ret);
	if (ret)
		return;
	FZ_ORACLE(fz_ptr_writable(k), "INFO into pointer kind %d", k);
	fz_read_back(&in, p, sizeof(in));
	FZ_ORACLE(in.sessions >= 1 && in.sessions <= in.max_sessions &&
		  in.nr_cpus == fz_nr_cpus &&
		  in.ring_bytes <= in.ring_bytes_max,
		  "INFO: sessions %u/%u cpus %u ring bytes %llu/%llu",
		  in.sessions, in.max_sessions, in.nr_cpus,
		  (unsigned long long)in.ring_bytes,
		  (unsigned long long)in.ring_bytes_max);
}

static uint32_t fz_limit_pages;	/* max_buffer_mib, in pages */

static uint32_t fz_ring_pages(struct fz_thread *th)
{
	static const uint32_t bad[] = { 0, 3, 5, 100, 4095, 0xffffffff };
	uint32_t huge[] = { 1u << 30, 1u << 31, fz_limit_pages };

	switch (fz_below(th, 10)) {
	case 0:
		return bad[fz_below(th, 6)];
	case 1:
		/*
		 * Too big, and no bigger: the whole limit in one ring is
		 * refused only by the second check, after the session has
		 * been half set up.
		 */
		return huge[fz_below(th, fz_skip_e2big ? 2 : 3)];
	default:
		return 1u << fz_below(th, 7);
	}
}

static void fz_op_setup(struct fz_thread *th, struct fz_slot *sl, int fd)
{
	enum fz_ptr k = fz_ptr_kind(th);
	struct ispot_setup s;
	bool disposable, bad = false;
	uint64_t p;
	int ret;

	memset(&s, 0, sizeof(s));
	s.pid = fz_pid(th, &disposable);
	s.ring_pages = fz_ring_pages(th);
	if (fz_chance(th, 20))
		s.watermark = fz_chance(th, 50) ? fz_rand(th) :
			fz_below(th, (s.ring_pages & 0xffff) * PG + 1);
	if (fz_chance(th, 30))
		s.stack_period = fz_chance(th, 50) ? 1 + fz_below(th, 4) :
						     fz_rand(th);
	s.flags = fz_below(th, ISPOT_SETUP_FLAGS + 1);
	/* Off-CPU stacks need both other groups (ABI 1.8). */
	bad = (s.flags & ISPOT_SETUP_OFFCPU) &&
	      (~s.flags & (ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS));
	if (fz_chance(th, 10)) {
		s.offcpu_period_us = fz_chance(th, 50) ?
			fz_below(th, 100000) : fz_rand(th);
		bad |= !(s.flags & ISPOT_SETUP_OFFCPU) ||
		       s.offcpu_period_us > ISPOT_OFFCPU_MAX_PERIOD_US ||
		       (s.offcpu_period_us &&
			s.offcpu_period_us < ISPOT_OFFCPU_MIN_PERIOD_US);
	}
	if (fz_chance(th, 8)) {
		s.flags |= fz_bits(th, 32) & ~ISPOT_SETUP_FLAGS;
		bad |= !!(s.flags & ~ISPOT_SETUP_FLAGS);
	}
	if (fz_chance(th, 8)) {
		if (fz_chance(th, 25))
			s.reserved32 = fz_bits(th, 32);
		else
			s.reserved[fz_below(th, 3)] = fz_bits(th, 64);
		bad |= s.reserved32 || s.reserved[0] || s.reserved[1] ||
		       s.reserved[2];
	}
	if (fz_chance(th, 5)) {	/* outputs given as input */
		s.nr_rings = fz_rand(th);
		s.ring_mmap_size = fz_rand(th);
	}
	if (!disposable) {
		pthread_mutex_lock(&sl->lock);
		sl->keep_probes_safe = true;
		pthread_mutex_unlock(&sl->lock);
	}
	p = fz_place(th, k, &s, sizeof(s));
	ret = fz_ioctl(C_SETUP, fd, ISPOT_IOC_SETUP, p);
	if (bad && fz_ptr_readable(k))
		FZ_ORACLE(ret == -EINVAL, "SETUP flags %#x reserved set: %d",
			  s.flags, ret);
	if (fz_ptr_readable(k))
		FZ_ORACLE(ret || fz_pow2(s.ring_pages),
			  "SETUP with ring_pages %u succeeded", s.ring_pages);
	if (ret)
		return;
	FZ_ORACLE(fz_ptr_writable(k), "SETUP into pointer kind %d", k);
	fz_read_back(&s, p, sizeof(s));
	FZ_ORACLE(s.nr_rings == fz_nr_cpus &&
		  s.ring_mmap_size == (s.ring_pages + 1ULL) * PG,
		  "SETUP of %u pages: %u rings of %llu bytes", s.ring_pages,
		  s.nr_rings, (unsigned long long)s.ring_mmap_size);
	fz_slot_setup_done(sl, &s);
}

/*
 * Where PROBE_ADD reads its path: the big buffer, or a bad pointer.
 * *@libc says the path names libc.
 */
static uint64_t fz_path(struct fz_thread *th, bool *libc)
{
	static const char *const odd[] = {
		"/", ISPOT_DEV, "/etc/passwd", "/no/such/file", "",
		"/proc/self/exe", "/proc/self/maps",
	};
	char *b = th->big;

	*libc = false;
	switch (fz_below(th, 10)) {
	case 0:		/* longer than PATH_MAX */
		memset(b, 'a', 5000);
		b[5000] = 0;
		return (uintptr_t)b;
	case 1:		/* runs into the guard page without a NUL */
		memset(b + fz_big_size - 100, 'a', 100);
		return (uintptr_t)(b + fz_big_size - 100);
	case 2:
		return fz_place(th, (enum fz_ptr)(P_NULL + fz_below(th, 5)),
				NULL, 0);
	case 3:
	case 4:
		snprintf(b, PG, "%s", odd[fz_below(th, 7)]);
		return (uintptr_t)b;
	case 5:
		if (fz_libc[0]) {
			snprintf(b, PG, "%s", fz_libc);
			*libc = true;
			return (uintptr_t)b;
		}
		/* fall through */
	default:
		snprintf(b, PG, "%s", fz_chance(th, 80) ? fz_exe :
							 "/proc/self/exe");
		return (uintptr_t)b;
	}
}

/*
 * A file offset for a probe.  Probes in the middle of an instruction, or
 * anywhere in the text, only where the target may crash: never this
 * process, its parent or init.
 */
static uint64_t fz_probe_offset(struct fz_thread *th, bool libc, bool safe)
{
	static const uint64_t bad[] = { 0, 1ULL << 40, ~0ULL, 4096 };
	uint64_t entry = libc ? fz_off_libc : fz_off_a, r;

	switch (fz_below(th, 10)) {
	case 0:
	case 1:
	case 2:
	case 3:
		return entry;
	case 4:
	case 5:
		return libc ? entry : fz_off_b;
	case 6:
		return safe ? entry : entry + 1 + fz_below(th, fz_span - 1);
	case 7:
		if (safe || libc)
			return entry;
		r = fz_below(th, fz_exe_size + PG);
		/* Inside the text, only where the targets' code is. */
		if (r >= fz_text_off && r < fz_text_off + fz_text_len)
			r = fz_off_a + fz_below(th, fz_span);
		return r;
	case 8:
		return fz_exe_size - fz_below(th, 2);
	default:
		return bad[fz_below(th, 4)];
	}
}

static void fz_op_probe_add(struct fz_thread *th, struct fz_slot *sl, int fd)
{
	static const uint32_t good[] = {
		ISPOT_PROBE_ENTRY, ISPOT_PROBE_RETURN, ISPOT_PROBE_BOTH,
		ISPOT_PROBE_BOTH | ISPOT_PROBE_NO_CALLSITE,
		ISPOT_PROBE_ENTRY | ISPOT_PROBE_COUNT_ONLY,
		ISPOT_PROBE_BOTH | ISPOT_PROBE_COUNT_ONLY,
		ISPOT_PROBE_ENTRY | ISPOT_PROBE_NO_CALLSITE,
	};
	static const uint32_t bad_flags[] = {
		0, ISPOT_PROBE_COUNT_ONLY, ISPOT_PROBE_NO_CALLSITE,
		ISPOT_PROBE_COUNT_ONLY | ISPOT_PROBE_NO_CALLSITE,
	};
	int odd_fd[] = { fd, fz_pipe[0], fz_dir_fd, 9999, -2, INT32_MIN, 1023 };
	enum fz_ptr k = fz_ptr_kind(th);
	struct ispot_probe_add a;
	bool safe, libc = false, bad = false, bad_fl = false, bad_sem = false;
	uint64_t p;
	int ret;

	pthread_mutex_lock(&sl->lock);
	safe = sl->keep_probes_safe;
	pthread_mutex_unlock(&sl->lock);

	memset(&a, 0, sizeof(a));
	switch (fz_below(th, 10)) {
	case 0:
	case 1:
	case 2:
	case 3:
		a.fd = fz_exe_fd;
		break;
	case 4:
		libc = fz_libc_fd >= 0;
		a.fd = libc ? fz_libc_fd : fz_exe_fd;
		break;
	case 5:
		a.fd = odd_fd[fz_below(th, 7)];
		a.path = fz_rand(th);
		break;
	default:
		a.fd = -1;
		a.path = fz_path(th, &libc);
		break;
	}
	a.offset = fz_probe_offset(th, libc, safe);
	a.flags = good[fz_below(th, 7)];
	if (fz_chance(th, 10)) {
		a.flags = fz_chance(th, 50) ? bad_flags[fz_below(th, 4)] :
			  a.flags | (uint32_t)fz_bits(th, 32) << 4;
		bad_fl = !(a.flags & ISPOT_PROBE_BOTH) ||
			 (a.flags & ~(ISPOT_PROBE_BOTH | ISPOT_PROBE_COUNT_ONLY |
				      ISPOT_PROBE_NO_CALLSITE));
	}
	if (fz_chance(th, 30))
		a.sample_period = fz_chance(th, 70) ? fz_below(th, 17) :
						      fz_rand(th);
	if (fz_chance(th, 5))
		a.probe_id = fz_rand(th);
	if (fz_chance(th, 7)) {
		a.reserved = fz_bits(th, 64);
		bad = true;
	}
	/*
	 * A semaphore the module must refuse: odd, or past any file.  A
	 * valid one would have the kernel write into the fuzzer's code or
	 * data, which is what a semaphore is for, not what to fuzz.
	 */
	if (fz_chance(th, 7)) {
		a.ref_ctr_offset = fz_chance(th, 50) ?
				   (fz_bits(th, 16) | 1) :
				   (fz_rand(th) | 1ULL << 62) & ~1ULL;
		bad_sem = true;
	}
	p = fz_place(th, k, &a, sizeof(a));
	ret = fz_ioctl(C_PROBE_ADD, fd, ISPOT_IOC_PROBE_ADD, p);
	if (bad && fz_ptr_readable(k))
		FZ_ORACLE(ret == -EINVAL, "PROBE_ADD with reserved set: %d", ret);
	if (bad_fl && fz_ptr_readable(k))
		FZ_ORACLE(ret, "PROBE_ADD with flags %#x succeeded", a.flags);
	if (bad_sem && fz_ptr_readable(k))
		FZ_ORACLE(ret, "PROBE_ADD with semaphore %#llx succeeded",
			  (unsigned long long)a.ref_ctr_offset);
	if (ret)
		return;
	FZ_ORACLE(fz_ptr_writable(k), "PROBE_ADD into pointer kind %d", k);
	fz_read_back(&a, p, sizeof(a));
	FZ_ORACLE(a.probe_id > 0, "PROBE_ADD gave probe id 0");
}

static void fz_op_probe_remove(struct fz_thread *th, int fd)
{
	enum fz_ptr k = fz_ptr_kind(th);
	struct ispot_probe_remove r = { 0 };
	bool bad = false;
	int ret;

	r.probe_id = fz_chance(th, 80) ? fz_below(th, 9) : fz_rand(th);
	if (fz_chance(th, 8)) {
		r.reserved = fz_bits(th, 32);
		bad = true;
	}
	ret = fz_ioctl(C_PROBE_REMOVE, fd, ISPOT_IOC_PROBE_REMOVE,
		       fz_place(th, k, &r, sizeof(r)));
	if (bad && fz_ptr_readable(k))
		FZ_ORACLE(ret == -EINVAL, "PROBE_REMOVE with reserved set: %d",
			  ret);
	if (!ret)
		FZ_ORACLE(fz_ptr_readable(k) || k == P_UNFAULTED,
			  "PROBE_REMOVE from pointer kind %d", k);
}

/* ENABLE and DISABLE take no argument; give them junk anyway. */
static void fz_op_switch(struct fz_thread *th, int fd, bool enable)
{
	uint64_t junk = fz_place(th, fz_ptr_kind(th), NULL, 8);

	if (enable)
		fz_ioctl(C_ENABLE, fd, ISPOT_IOC_ENABLE, junk);
	else
		fz_ioctl(C_DISABLE, fd, ISPOT_IOC_DISABLE, junk);
}

static void fz_op_consume(struct fz_thread *th, struct fz_slot *sl, int fd)
{
	enum fz_ptr k = fz_ptr_kind(th);
	struct ispot_ring_consume rc = { 0 };
	uint32_t nr;
	bool bad = false;
	int i, ret;

	pthread_mutex_lock(&sl->lock);
	nr = sl->nr_rings ?: fz_nr_cpus;
	rc.cpu = fz_chance(th, 85) ? fz_below(th, nr) :
		 fz_chance(th, 50) ? nr : (uint32_t)fz_rand(th);
	switch (fz_below(th, 6)) {
	case 0:
	case 1:
	case 2:
		/* Near the ring's own positions, when it is mapped. */
		for (i = 0; i < sl->nmaps; i++) {
			const struct fz_map *m = &sl->maps[i];
			const struct ispot_ring_ctrl *c = m->addr;

			if (m->gen != sl->gen || m->cpu != (int)rc.cpu ||
			    !fz_map_ctrl_ok(m))
				continue;
			rc.tail = fz_chance(th, 50) ? c->head : c->tail;
			rc.tail += (int)fz_below(th, 5) - 2;
			break;
		}
		break;
	case 3:
		rc.tail = ~0ULL - fz_below(th, 2);
		break;
	default:
		rc.tail = fz_chance(th, 50) ? fz_below(th, 256) : fz_rand(th);
		break;
	}
	pthread_mutex_unlock(&sl->lock);
	if (fz_chance(th, 8)) {
		rc.reserved = fz_bits(th, 32);
		bad = true;
	}
	ret = fz_ioctl(C_RING_CONSUME, fd, ISPOT_IOC_RING_CONSUME,
		       fz_place(th, k, &rc, sizeof(rc)));
	if (!fz_ptr_readable(k))
		return;
	if (bad)
		FZ_ORACLE(ret == -EINVAL, "RING_CONSUME with reserved set: %d",
			  ret);
	FZ_ORACLE(ret || (rc.cpu < fz_nr_cpus && rc.tail < ~0ULL - 1),
		  "RING_CONSUME cpu %u tail %llu succeeded", rc.cpu,
		  (unsigned long long)rc.tail);
}

static void fz_op_stats(struct fz_thread *th, int fd)
{
	enum fz_ptr k = fz_ptr_kind(th), kr, kp;
	struct ispot_stats s;
	bool bad = false;
	uint32_t cap_rings, cap_probes;
	uint64_t p;
	int ret;

	memset(&s, 0, sizeof(s));
	s.rings = fz_array(th, &kr);
	s.probes = fz_array(th, &kp);
	switch (fz_below(th, 5)) {
	case 0:
		s.nr_rings = 0;
		break;
	case 1:
		s.nr_rings = fz_rand(th);
		break;
	default:
		s.nr_rings = 1 + fz_below(th, fz_nr_cpus + 1);
		break;
	}
	switch (fz_below(th, 5)) {
	case 0:
		s.nr_probes = 0;
		break;
	case 1:
		s.nr_probes = fz_rand(th);
		break;
	default:
		s.nr_probes = 1 + fz_below(th, 8);
		break;
	}
	if (fz_chance(th, 8)) {
		s.stop_reason = fz_bits(th, 32);
		bad = true;
	}
	if (fz_chance(th, 5))
		s.state = fz_rand(th);
	cap_rings = s.nr_rings;
	cap_probes = s.nr_probes;
	p = fz_place(th, k, &s, sizeof(s));
	ret = fz_ioctl(C_STATS, fd, ISPOT_IOC_STATS, p);
	if (bad && fz_ptr_readable(k))
		FZ_ORACLE(ret == -EINVAL, "STATS with stop_reason %#x: %d",
			  s.stop_reason, ret);
	if (ret)
		return;
	FZ_ORACLE(fz_ptr_writable(k), "STATS into pointer kind %d", k);
	fz_read_back(&s, p, sizeof(s));
	FZ_ORACLE(s.state <= ISPOT_STATE_DEAD && s.stop_reason <= 2 &&
		  s.nr_rings == (s.state == ISPOT_STATE_NEW ? 0 : fz_nr_cpus) &&
		  s.nr_probes <= fz_max_probes,
		  "STATS: state %u stop %u rings %u probes %u", s.state,
		  s.stop_reason, s.nr_rings, s.nr_probes);
	if (k == P_UNFAULTED)	/* zeroes: no capacities */
		return;
	/* A straddling array may hold the first entries. */
	FZ_ORACLE(!(cap_rings && s.nr_rings) || !fz_ptr_unwritable(kr),
		  "STATS rings into pointer kind %d", kr);
	FZ_ORACLE(!(cap_probes && s.nr_probes) || !fz_ptr_unwritable(kp),
		  "STATS probes into pointer kind %d", kp);
}

static bool fz_counter_type_ok(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_SOFTWARE ||
	       type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
}

static void fz_op_counters(struct fz_thread *th, int fd)
{
	static const uint32_t bad_types[] = {
		PERF_TYPE_TRACEPOINT, PERF_TYPE_BREAKPOINT, 99, 0xffffffff,
	};
	enum fz_ptr k = fz_ptr_kind(th);
	struct ispot_counters c;
	bool bad = false;
	uint64_t p;
	uint32_t i;
	int ret;

	memset(&c, 0, sizeof(c));
	c.nr = fz_chance(th, 90) ? 1 + fz_below(th, ISPOT_MAX_COUNTERS) :
				   fz_chance(th, 50) ? 0 : fz_rand(th);
	c.flags = fz_chance(th, 50) ? ISPOT_COUNTERS_TRY : 0;
	if (fz_chance(th, 5))
		c.flags |= fz_bits(th, 31) << 1;
	if (fz_chance(th, 5))
		c.reserved[fz_below(th, 2)] = fz_bits(th, 64);
	for (i = 0; i < c.nr && i < ISPOT_MAX_COUNTERS; i++) {
		struct ispot_counter_spec *sp = &c.spec[i];

		switch (fz_below(th, 10)) {
		case 0:
		case 1:
			sp->type = PERF_TYPE_HARDWARE;
			sp->config = fz_below(th, 10);
			break;
		case 2:
			sp->type = PERF_TYPE_HW_CACHE;
			sp->config = fz_below(th, 0x10000);
			break;
		case 3:
			sp->type = PERF_TYPE_RAW;
			sp->config = fz_rand(th);
			break;
		case 4:
			sp->type = bad_types[fz_below(th, 4)];
			break;
		default:
			sp->type = PERF_TYPE_SOFTWARE;
			sp->config = fz_below(th, 12);
			break;
		}
		if (fz_chance(th, 3))
			sp->reserved = fz_bits(th, 64);
	}
	if (fz_chance(th, 3))		/* an unused spec, not zeroed */
		c.spec[ISPOT_MAX_COUNTERS - 1].config = 1;
	bad = !c.nr || c.nr > ISPOT_MAX_COUNTERS ||
	      (c.flags & ~ISPOT_COUNTERS_TRY) || c.reserved[0] || c.reserved[1];
	for (i = 0; !bad && i < c.nr; i++)
		bad = c.spec[i].reserved || !fz_counter_type_ok(c.spec[i].type);
	p = fz_place(th, k, &c, sizeof(c));
	ret = fz_ioctl(C_COUNTERS, fd, ISPOT_IOC_COUNTERS, p);
	if (bad && fz_ptr_readable(k))
		FZ_ORACLE(ret == -EINVAL, "COUNTERS nr %u flags %#x, invalid: %d",
			  c.nr, c.flags, ret);
	if (ret)
		return;
	FZ_ORACLE(fz_ptr_writable(k), "COUNTERS into pointer kind %d", k);
	fz_read_back(&c, p, sizeof(c));
	for (i = 0; i < c.nr && i < ISPOT_MAX_COUNTERS; i++)
		FZ_ORACLE(c.spec[i].result <= 0, "COUNTERS result %d",
			  c.spec[i].result);
}

static const unsigned long fz_cmds[] = {
	ISPOT_IOC_GET_VERSION, ISPOT_IOC_SETUP, ISPOT_IOC_PROBE_ADD,
	ISPOT_IOC_PROBE_REMOVE, ISPOT_IOC_ENABLE, ISPOT_IOC_DISABLE,
	ISPOT_IOC_RING_CONSUME, ISPOT_IOC_STATS, ISPOT_IOC_INFO,
	ISPOT_IOC_COUNTERS,
};

#define FZ_NR_CMDS	(sizeof(fz_cmds) / sizeof(fz_cmds[0]))

static bool fz_known_cmd(unsigned long cmd)
{
	unsigned int i;

	for (i = 0; i < FZ_NR_CMDS; i++)
		if (cmd == fz_cmds[i])
			return true;
	return false;
}

/* Unknown numbers, and known ones with the wrong size or direction. */
static void fz_op_bad_ioctl(struct fz_thread *th, int fd)
{
	unsigned long cmd, real = fz_cmds[fz_below(th, FZ_NR_CMDS)];
	enum fz_ptr k = fz_ptr_kind(th);
	int ret;

	switch (fz_below(th, 4)) {
	case 0:
		cmd = _IOC(_IOC_DIR(real), 'J', _IOC_NR(real),
			   fz_below(th, _IOC_SIZEMASK + 1));
		break;
	case 1:
		cmd = _IOC(fz_below(th, 4), 'J', _IOC_NR(real), _IOC_SIZE(real));
		break;
	case 2:
		cmd = _IOC(_IOC_DIR(real), 'J', _IOC_NR(real),
			   (_IOC_SIZE(real) + (fz_chance(th, 50) ? 8 : -8)) &
			   _IOC_SIZEMASK);
		break;
	default:
		cmd = _IOC(fz_below(th, 4), 'J', 10 + fz_below(th, 246),
			   fz_below(th, _IOC_SIZEMASK + 1));
		break;
	}
	if (fz_known_cmd(cmd))
		cmd ^= 1UL << _IOC_SIZESHIFT;
	ret = fz_ioctl(C_BAD_IOCTL, fd, cmd, fz_place(th, k, NULL, 64));
	FZ_ORACLE(ret == -ENOTTY, "ioctl %#lx: %d", cmd, ret);
}

/* ---- the rings' memory ---- */

static void fz_op_mmap(struct fz_thread *th, struct fz_slot *sl, int fd)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_WRITE, PROT_NONE,
		PROT_READ | PROT_EXEC,
	};
	static const int flags[] = {
		MAP_PRIVATE, MAP_SHARED | MAP_POPULATE, MAP_SHARED_VALIDATE,
		MAP_PRIVATE | MAP_NORESERVE,
	};
	uint64_t rs, len, off;
	uint32_t nr, cpu = 0;
	int prot, fl;
	bool known;
	void *m;

	pthread_mutex_lock(&sl->lock);
	rs = sl->ring_size;
	nr = sl->nr_rings;
	pthread_mutex_unlock(&sl->lock);
	known = rs;
	if (!known) {
		rs = ((1ULL << fz_below(th, 7)) + 1) * PG;
		nr = fz_nr_cpus;
	}
	len = rs;
	switch (fz_below(th, 10)) {
	case 0:
		len = fz_chance(th, 50) ? 0 : 1 + fz_below(th, 3 * PG);
		off = 0;
		break;
	case 1:
		len = rs + (fz_chance(th, 50) ? PG : -PG);
		off = 0;
		break;
	case 2:
		len = fz_chance(th, 50) ? 1ULL << 40 : fz_rand(th);
		off = 0;
		break;
	case 3:
		off = fz_chance(th, 50) ? PG * fz_below(th, 64) :
					  1 + fz_below(th, PG - 1);
		break;
	case 4:
		off = fz_chance(th, 50) ? 1ULL << 62 : fz_rand(th) & ~(PG - 1);
		break;
	default:
		cpu = fz_below(th, nr + 2);
		off = cpu * rs;
		break;
	}
	prot = fz_chance(th, 75) ? PROT_READ : prots[fz_below(th, 4)];
	fl = fz_chance(th, 75) ? MAP_SHARED : flags[fz_below(th, 4)];
	m = fz_mmap(len, prot, fl, fd, off);
	if (prot & PROT_WRITE)
		FZ_ORACLE(m == MAP_FAILED, "mmap with PROT_WRITE succeeded");
	if (m == MAP_FAILED)
		return;
	cpu = off / rs;
	len = (len + PG - 1) & ~(PG - 1);	/* what was mapped */
	if (known)
		FZ_ORACLE(len == rs && !(off % rs) && cpu < nr,
			  "mmap of %llu bytes at %#llx succeeded, rings of %llu",
			  (unsigned long long)len, (unsigned long long)off,
			  (unsigned long long)rs);
	pthread_mutex_lock(&sl->lock);
	fz_slot_add_map(th, sl, m, len,
			len == rs && !(off % rs) && cpu < nr ? (int)cpu : -1,
			prot & PROT_READ);
	pthread_mutex_unlock(&sl->lock);
}

static int fz_map_pick(struct fz_thread *th, struct fz_slot *sl)
{
	return sl->nmaps ? (int)fz_below(th, sl->nmaps) : -1;
}

/* Unmap all of a mapping or a piece of it; keep what is left. */
static void fz_op_munmap(struct fz_thread *th, struct fz_slot *sl)
{
	size_t pages, from, to;
	struct fz_map m;
	int i;

	pthread_mutex_lock(&sl->lock);
	i = fz_map_pick(th, sl);
	if (i < 0)
		goto out;
	m = sl->maps[i];
	pages = m.len / PG;
	from = 0;
	to = pages;
	switch (fz_below(th, 4)) {
	case 0:
		to = 1;
		break;
	case 1:
		from = pages - 1;
		break;
	case 2:
		from = fz_below(th, pages);
		to = from + 1 + fz_below(th, pages - from);
		break;
	}
	if (FZ_CALL(C_MUNMAP, munmap((char *)m.addr + from * PG,
				     (to - from) * PG)))
		goto out;
	fz_slot_del_map(sl, i);
	/* The head keeps the ctrl page; a tail piece is never read. */
	if (from) {
		fz_slot_add_map(th, sl, m.addr, from * PG, -1, m.ctrl_ok);
		sl->maps[sl->nmaps - 1].gen = m.gen;
		sl->maps[sl->nmaps - 1].data_ok = false;
		sl->maps[sl->nmaps - 1].dead = m.dead;
	}
	if (to < pages) {
		fz_slot_add_map(th, sl, (char *)m.addr + to * PG,
				(pages - to) * PG, -1, false);
		sl->maps[sl->nmaps - 1].dead = true;
	}
out:
	pthread_mutex_unlock(&sl->lock);
}

static void fz_op_mprotect(struct fz_thread *th, struct fz_slot *sl)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_WRITE, PROT_NONE, PROT_READ,
		PROT_READ | PROT_EXEC, PROT_READ | PROT_WRITE | PROT_EXEC,
	};
	int i, prot = prots[fz_below(th, 6)];
	bool whole = fz_chance(th, 70);
	struct fz_map *m;
	long ret;

	pthread_mutex_lock(&sl->lock);
	i = fz_map_pick(th, sl);
	if (i < 0)
		goto out;
	m = &sl->maps[i];
	ret = FZ_CALL(C_MPROTECT, mprotect(m->addr, whole ? m->len : PG, prot));
	if (prot & PROT_WRITE) {
		FZ_ORACLE(ret, "mprotect made a ring mapping writable");
		if (!ret)
			mprotect(m->addr, m->len, PROT_READ);
	}
	if (ret)
		goto out;
	m->ctrl_ok = prot & PROT_READ;
	if (whole)
		m->data_ok = m->ctrl_ok;
out:
	pthread_mutex_unlock(&sl->lock);
}

static void fz_op_mremap(struct fz_thread *th, struct fz_slot *sl)
{
	size_t new_len;
	struct fz_map *m;
	int i, flags = 0;
	void *r;

	pthread_mutex_lock(&sl->lock);
	i = fz_map_pick(th, sl);
	if (i < 0)
		goto out;
	m = &sl->maps[i];
	switch (fz_below(th, 4)) {
	case 0:
		new_len = PG;
		break;
	case 1:
		new_len = m->len + PG;
		break;
	case 2:
		new_len = m->len * 2;
		flags = MREMAP_MAYMOVE;
		break;
	default:
		new_len = m->len;
		flags = MREMAP_MAYMOVE;
		break;
	}
	r = mremap(m->addr, m->len, new_len, flags);
	fz_count(C_MREMAP, r == MAP_FAILED ? -1 : 0, errno);
	/* The rings are VM_DONTEXPAND. */
	if (new_len > m->len)
		FZ_ORACLE(r == MAP_FAILED, "mremap grew a ring mapping");
	if (r == MAP_FAILED)
		goto out;
	if (new_len != m->len) {
		m->cpu = -1;
		m->data_ok = false;
	}
	m->addr = r;
	m->len = new_len;
out:
	pthread_mutex_unlock(&sl->lock);
}

static void fz_op_madvise(struct fz_thread *th, struct fz_slot *sl)
{
	static const int advice[] = {
		MADV_DONTNEED, MADV_WILLNEED, MADV_DONTFORK, MADV_DOFORK,
		MADV_COLD, MADV_PAGEOUT, MADV_REMOVE, MADV_RANDOM,
	};
	int i, adv = advice[fz_below(th, 8)];
	struct fz_map *m;

	pthread_mutex_lock(&sl->lock);
	i = fz_map_pick(th, sl);
	if (i < 0)
		goto out;
	m = &sl->maps[i];
	if (FZ_CALL(C_MADVISE, madvise(m->addr, m->len, adv)))
		goto out;
	/* Zapped pages of the rings do not come back: SIGBUS if read. */
	if (adv == MADV_DONTNEED || adv == MADV_REMOVE)
		m->dead = true;
out:
	pthread_mutex_unlock(&sl->lock);
}

/* Read what a ctrl page says, whatever session it belongs to. */
static void fz_peek(const struct fz_map *m)
{
	const struct ispot_ring_ctrl *c = m->addr;

	FZ_ORACLE(fz_pow2(c->nr_slots) && c->data_offset == PG &&
		  c->cpu < fz_nr_cpus && c->tail <= c->head,
		  "ctrl page: nr_slots %u data_offset %llu cpu %u tail %llu head %llu",
		  c->nr_slots, (unsigned long long)c->data_offset, c->cpu,
		  (unsigned long long)c->tail, (unsigned long long)c->head);
}

/* Consume through this session's mappings while others do too. */
static void fz_op_drain(struct fz_thread *th, struct fz_slot *sl, int fd)
{
	bool all = fz_chance(th, 70);
	int i;

	pthread_mutex_lock(&sl->lock);
	for (i = 0; i < sl->nmaps; i++) {
		const struct fz_map *m = &sl->maps[i];

		if (!fz_map_ctrl_ok(m))
			continue;
		if (m->gen == sl->gen && m->cpu >= 0 && m->data_ok)
			fz_drain_ring(th, fd, m->cpu, m->addr, m->len, all,
				      false);
		else if (m->cpu >= 0 || m->len == PG)
			fz_peek(m);
	}
	pthread_mutex_unlock(&sl->lock);
}

static void fz_op_poll(struct fz_thread *th, struct fz_slot *slots, int nr)
{
	static const short events[] = {
		POLLIN, POLLIN | POLLRDNORM, POLLOUT | POLLPRI, 0,
		POLLIN | POLLOUT | POLLERR | POLLHUP,
	};
	struct pollfd pfd[FZ_MAX_SLOTS];
	int i, n = 0;

	for (i = 0; i < nr; i++)
		pthread_rwlock_rdlock(&slots[i].rw);
	for (i = 0; i < nr; i++) {
		if (slots[i].fd < 0)
			continue;
		pfd[n].fd = slots[i].fd;
		pfd[n].events = events[fz_chance(th, 70) ? 0 :
					fz_below(th, 5)];
		n++;
	}
	/* Mostly a glance; sometimes long enough for targets to fill rings. */
	if (n)
		FZ_CALL(C_POLL, poll(pfd, n, fz_chance(th, 90) ? fz_below(th, 3) :
				     10 + fz_below(th, 20)));
	for (i = 0; i < nr; i++)
		pthread_rwlock_unlock(&slots[i].rw);
}

/* ---- structured operations ---- */

/* Open a closed slot; on an open one, open many at once (EBUSY). */
static void fz_op_open(struct fz_thread *th, struct fz_slot *sl)
{
	int fds[80], n = 1 + fz_below(th, 80), i;
	struct ispot_info in = { 0 };

	if (__atomic_load_n(&sl->fd, __ATOMIC_RELAXED) < 0) {
		fz_slot_open(th, sl);
		return;
	}
	for (i = 0; i < n; i++)
		fds[i] = FZ_CALL(C_OPEN, open(ISPOT_DEV, O_RDWR | O_CLOEXEC));
	for (i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		if (!in.sessions &&
		    !fz_ioctl(C_INFO, fds[i], ISPOT_IOC_INFO, (uintptr_t)&in))
			FZ_ORACLE(in.sessions <= in.max_sessions,
				  "%u sessions, at most %u", in.sessions,
				  in.max_sessions);
		FZ_CALL(C_CLOSE, close(fds[i]));
	}
}

/*
 * The straight path to a session with records flowing: SETUP on a live
 * target with small rings, probes on both functions, perhaps counters,
 * ENABLE, and the rings mapped.  Other threads interleave at every step.
 */
static void fz_op_recipe(struct fz_thread *th, struct fz_slot *sl)
{
	struct ispot_setup s = { 0 };
	struct ispot_probe_add a = { 0 };
	struct ispot_counters c = { 0 };
	bool map = fz_chance(th, 85);
	uint32_t cpu;
	int fd;

	s.pid = fz_target_pick(th);
	s.ring_pages = 1u << fz_below(th, th->t->ring_order + 1);
	s.flags = fz_chance(th, 50) ? 0 : fz_below(th, 4);
	if (__atomic_load_n(&sl->fd, __ATOMIC_RELAXED) < 0)
		fz_slot_open(th, sl);
	pthread_rwlock_rdlock(&sl->rw);
	fd = sl->fd;
	if (fd < 0)
		goto out;
	if (!fz_ioctl(C_SETUP, fd, ISPOT_IOC_SETUP, (uintptr_t)&s))
		fz_slot_setup_done(sl, &s);
	a.fd = fz_exe_fd;
	a.offset = fz_off_a;
	a.flags = ISPOT_PROBE_BOTH;
	a.sample_period = fz_chance(th, 20) ? 2 + fz_below(th, 3) : 0;
	fz_ioctl(C_PROBE_ADD, fd, ISPOT_IOC_PROBE_ADD, (uintptr_t)&a);
	if (fz_chance(th, 50)) {
		memset(&a, 0, sizeof(a));
		a.fd = fz_exe_fd;
		a.offset = fz_off_b;
		a.flags = fz_chance(th, 50) ? ISPOT_PROBE_BOTH :
			  ISPOT_PROBE_ENTRY | ISPOT_PROBE_COUNT_ONLY;
		fz_ioctl(C_PROBE_ADD, fd, ISPOT_IOC_PROBE_ADD, (uintptr_t)&a);
	}
	if (fz_chance(th, 25)) {
		c.nr = 1;
		c.spec[0].type = PERF_TYPE_SOFTWARE;
		c.spec[0].config = PERF_COUNT_SW_CPU_CLOCK;
		fz_ioctl(C_COUNTERS, fd, ISPOT_IOC_COUNTERS, (uintptr_t)&c);
	}
	fz_ioctl(C_ENABLE, fd, ISPOT_IOC_ENABLE, 0);
	if (fz_skip_mmap_lock) {
		/* Map with the fd to ourselves, as fz_fd_op() does. */
		unsigned int gen = sl->gen;

		pthread_rwlock_unlock(&sl->rw);
		pthread_rwlock_wrlock(&sl->rw);
		if (sl->gen != gen || sl->fd < 0)
			goto out;
	}
	pthread_mutex_lock(&sl->lock);
	for (cpu = 0; map && sl->ring_size && cpu < sl->nr_rings; cpu++) {
		void *m = fz_mmap(sl->ring_size, PROT_READ, MAP_SHARED, fd,
				  (off_t)(cpu * sl->ring_size));

		if (m != MAP_FAILED)
			fz_slot_add_map(th, sl, m, sl->ring_size, cpu, true);
	}
	pthread_mutex_unlock(&sl->lock);
out:
	pthread_rwlock_unlock(&sl->rw);
}

/* Check the accounting mid-run; the session stays, disabled. */
static void fz_op_check(struct fz_thread *th, struct fz_slot *sl)
{
	pthread_rwlock_wrlock(&sl->rw);
	if (sl->fd >= 0) {
		fz_check_session(th, sl);
		if (fz_chance(th, 50))
			fz_ioctl(C_ENABLE, sl->fd, ISPOT_IOC_ENABLE, 0);
	}
	pthread_rwlock_unlock(&sl->rw);
}

static void fz_op_signal(struct fz_thread *th)
{
	static const int sigs[] = { SIGKILL, SIGKILL, SIGSTOP, SIGCONT,
				    SIGCONT, SIGTERM };
	pid_t pid = fz_target_find(th);

	if (pid)
		FZ_CALL(C_KILL, kill(pid, sigs[fz_below(th, 6)]));
	fz_reap(th->t);
}

/* ---- threads and tests ---- */

enum fz_op {
	OP_OPEN, OP_CLOSE, OP_VERSION, OP_INFO, OP_SETUP, OP_PROBE_ADD,
	OP_PROBE_REMOVE, OP_ENABLE, OP_DISABLE, OP_CONSUME, OP_STATS,
	OP_COUNTERS, OP_BAD_IOCTL, OP_MMAP, OP_MUNMAP, OP_MPROTECT,
	OP_MREMAP, OP_MADVISE, OP_POLL, OP_RECIPE, OP_DRAIN, OP_CHECK,
	OP_SPAWN, OP_SIGNAL, OP_NR
};

static const char *const fz_op_name[OP_NR] = {
	"open", "close", "version", "info", "setup", "probe_add",
	"probe_remove", "enable", "disable", "consume", "stats", "counters",
	"bad_ioctl", "mmap", "munmap", "mprotect", "mremap", "madvise",
	"poll", "recipe", "drain", "check", "spawn", "signal",
};

/* An ioctl or mmap on the slot's fd, which is opened if it is closed. */
static void fz_fd_op(struct fz_thread *th, struct fz_slot *sl, int op)
{
	/* The mmap_lock knob keeps mmap apart from the fd's ioctls. */
	bool excl = op == OP_MMAP && fz_skip_mmap_lock;
	int fd;

	if (__atomic_load_n(&sl->fd, __ATOMIC_RELAXED) < 0)
		fz_slot_open(th, sl);
	if (excl)
		pthread_rwlock_wrlock(&sl->rw);
	else
		pthread_rwlock_rdlock(&sl->rw);
	fd = sl->fd;
	if (fd < 0)
		goto out;
	switch (op) {
	case OP_VERSION:
		fz_op_version(th, fd);
		break;
	case OP_INFO:
		fz_op_info(th, fd);
		break;
	case OP_SETUP:
		fz_op_setup(th, sl, fd);
		break;
	case OP_PROBE_ADD:
		fz_op_probe_add(th, sl, fd);
		break;
	case OP_PROBE_REMOVE:
		fz_op_probe_remove(th, fd);
		break;
	case OP_ENABLE:
	case OP_DISABLE:
		fz_op_switch(th, fd, op == OP_ENABLE);
		break;
	case OP_CONSUME:
		fz_op_consume(th, sl, fd);
		break;
	case OP_STATS:
		fz_op_stats(th, fd);
		break;
	case OP_COUNTERS:
		fz_op_counters(th, fd);
		break;
	case OP_BAD_IOCTL:
		fz_op_bad_ioctl(th, fd);
		break;
	case OP_MMAP:
		fz_op_mmap(th, sl, fd);
		break;
	case OP_DRAIN:
		fz_op_drain(th, sl, fd);
		break;
	}
out:
	pthread_rwlock_unlock(&sl->rw);
}

static unsigned int fz_pick(struct fz_thread *th, const unsigned int *w)
{
	unsigned int i, sum = 0, r;

	for (i = 0; i < OP_NR; i++)
		sum += w[i];
	r = fz_below(th, sum);
	for (i = 0; r >= w[i]; i++)
		r -= w[i];
	return i;
}

static void fz_op(struct fz_thread *th)
{
	struct fz_test *t = th->t;
	struct fz_slot *sl;
	unsigned int i, op;

	for (i = 0; i < FZ_NR_RAND; i++)
		th->r[i] = ispot_test_rand(&th->rng);
	th->ri = 0;
	th->nop++;
	op = fz_pick(th, t->weights);
	sl = &t->slots[fz_below(th, t->nr_slots)];
	th->cur = op;
	if (fz_trace)
		printf("# t%d.%llu %s slot %d\n", th->idx,
		       (unsigned long long)th->nop, fz_op_name[op],
		       (int)(sl - t->slots));
	switch (op) {
	case OP_OPEN:
		fz_op_open(th, sl);
		break;
	case OP_CLOSE:
		fz_slot_close(th, sl, fz_chance(th, 50));
		break;
	case OP_MUNMAP:
		fz_op_munmap(th, sl);
		break;
	case OP_MPROTECT:
		fz_op_mprotect(th, sl);
		break;
	case OP_MREMAP:
		fz_op_mremap(th, sl);
		break;
	case OP_MADVISE:
		fz_op_madvise(th, sl);
		break;
	case OP_POLL:
		if (fz_chance(th, 50))
			fz_op_poll(th, t->slots, t->nr_slots);
		else
			fz_op_poll(th, sl, 1);
		break;
	case OP_RECIPE:
		fz_op_recipe(th, sl);
		break;
	case OP_CHECK:
		fz_op_check(th, sl);
		break;
	case OP_SPAWN:
		fz_spawn(th, fz_below(th, T_NR_MODES));
		break;
	case OP_SIGNAL:
		fz_op_signal(th);
		break;
	default:
		fz_fd_op(th, sl, op);
		break;
	}
	th->cur = -1;
	__atomic_fetch_add(&t->ops, 1, __ATOMIC_RELAXED);
}

static void *fz_thread_main(void *arg)
{
	struct fz_thread *th = arg;
	struct fz_test *t = th->t;

	fz_self = th;
	th->tid = gettid();
	while (__atomic_load_n(&fz_stats->total, __ATOMIC_RELAXED) - t->start <
	       t->budget)
		fz_op(th);
	return NULL;
}

static void fz_print_file(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("#   %s", line);
	fclose(f);
}

/*
 * The children of @parent: each one's state and kernel stack, or killed,
 * but never the watchdog.  Returns how many there were.
 */
static int fz_children(struct fz_test *t, pid_t parent, bool kill_them)
{
	char path[64], buf[512], *p;
	struct dirent *de;
	DIR *d = opendir("/proc");
	int n = 0;

	while (d && (de = readdir(d))) {
		int pid = atoi(de->d_name), ppid = 0, fd;
		char state = '?';
		ssize_t len;

		if (pid <= 0 || pid == t->watchdog)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = 0;
		p = strrchr(buf, ')');
		if (!p || sscanf(p, ") %c %d", &state, &ppid) != 2 ||
		    ppid != parent)
			continue;
		n++;
		if (kill_them) {
			kill(pid, SIGKILL);
			continue;
		}
		printf("# child %d state %c\n", pid, state);
		snprintf(path, sizeof(path), "/proc/%d/stack", pid);
		fz_print_file(path);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * Nothing came back for fz_hang_sec seconds: say where every thread of the
 * fuzzer and every child is, in user space and in the kernel.  A task
 * stuck in the kernel cannot be killed: with FUZZ_HANG_PANIC=1 the guest
 * is crashed to end the run at once, else the VM runner's timeout does.
 */
static void fz_hang_report(struct fz_test *t)
{
	char path[96];
	int i, fd;

	printf("# HANG: no progress for %d s in %s, %s\n", fz_hang_sec,
	       t->name, t->phase);
	printf("# main thread (tid %d)\n", t->pid);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", t->pid, t->pid);
	fz_print_file(path);
	for (i = 0; i < t->nr_threads; i++) {
		struct fz_thread *th = &t->th[i];

		printf("# thread %d (tid %d) op %llu: %s\n", i, th->tid,
		       (unsigned long long)th->nop,
		       th->cur >= 0 ? fz_op_name[th->cur] : "-");
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", t->pid,
			 th->tid);
		fz_print_file(path);
	}
	fz_children(t, t->pid, false);
	fflush(stdout);
	/* Blocked tasks into the kernel log, for the runner's splat check. */
	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd < 0)
		return;
	/* One key per write. */
	if (write(fd, "w", 1) < 0 || (fz_hang_panic && write(fd, "c", 1) < 0))
		printf("# sysrq: %s\n", strerror(errno));
	close(fd);
}

/*
 * A process of its own, so that it still runs when the fuzzer's threads
 * hang holding the fuzzer's mmap_lock, which any page fault of a thread of
 * the fuzzer would wait for.  Progress is ops done and children reaped, in
 * the test's shared memory; it reports once if progress stops.
 */
static void fz_watchdog(struct fz_test *t)
{
	uint64_t last = ~0ULL;
	int idle = 0;

	while (!t->done && getppid() == t->pid) {
		uint64_t now = t->ops + t->reaped;

		usleep(200000);
		if (now != last) {
			last = now;
			idle = 0;
		} else if (++idle == fz_hang_sec * 5) {
			fz_hang_report(t);
			t->hung = 1;
		}
	}
	_exit(0);
}

/*
 * The fuzzer itself faulted (a ring it read went away under it, say):
 * where, and doing what.  Then die of the signal as before.
 */
static void fz_fault(int sig, siginfo_t *si, void *uc)
{
	struct fz_thread *th = fz_self;
	char msg[256];
	int n;

	(void)uc;
	n = snprintf(msg, sizeof(msg),
		     "# FAULT: signal %d at %p, thread %d op %llu (%s)\n", sig,
		     si->si_addr, th ? th->idx : -1,
		     th ? (unsigned long long)th->nop : 0ULL,
		     th && th->cur >= 0 ? fz_op_name[th->cur] : "-");
	if (write(1, msg, n) != n)
		n = 0;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void fz_find_text(void)
{
	uintptr_t fn = (uintptr_t)fuzz_target_a;
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long start, end, off;

		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &off) == 3 &&
		    fn >= start && fn < end) {
			fz_text_off = off;
			fz_text_len = end - start;
			break;
		}
	}
	if (f)
		fclose(f);
}

/* What the operations need to know, in each test's process. */
static void fz_init_process(void)
{
	struct ispot_info in = { 0 };
	char buf[32] = "256";
	long d = (long)((uintptr_t)fuzz_target_b - (uintptr_t)fuzz_target_a);
	struct stat st;
	int fd, p;

	fd = ispot_open_or_skip();
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ispot_ioctl(fd, ISPOT_IOC_INFO, &in), 0);
	close(fd);
	fz_nr_cpus = in.nr_cpus;
	fz_max_probes = in.max_probes;
	fz_max_sessions = in.max_sessions;
	p = open("/sys/module/ispot/parameters/max_buffer_mib", O_RDONLY);
	if (p >= 0) {
		if (read(p, buf, sizeof(buf) - 1) <= 0)
			strcpy(buf, "256");
		close(p);
	}
	fz_limit_pages = (uint32_t)atoi(buf) << 8;
	fz_big_size = (fz_max_probes * sizeof(struct ispot_probe_stats) +
		       fz_nr_cpus * sizeof(struct ispot_ring_stats) + 2 * PG +
		       PG - 1) & ~(PG - 1);
	if (fz_big_size < 16 * PG)
		fz_big_size = 16 * PG;

	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)fuzz_target_a,
				     fz_exe, sizeof(fz_exe), &fz_off_a), 0);
	ASSERT_EQ(ispot_addr_to_file(getpid(), (uintptr_t)fuzz_target_b,
				     fz_exe, sizeof(fz_exe), &fz_off_b), 0);
	fz_span = d > 8 && d < 256 ? (uint64_t)d : 8;
	fz_find_text();
	ASSERT_GT(fz_text_len, 0);
	ASSERT_EQ(stat(fz_exe, &st), 0);
	fz_exe_size = st.st_size;
	if (ispot_addr_to_file(getpid(), (uintptr_t)nanosleep, fz_libc,
			       sizeof(fz_libc), &fz_off_libc) ||
	    !strstr(fz_libc, "libc"))
		fz_libc[0] = 0;
	fz_exe_fd = open(fz_exe, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fz_exe_fd, 0);
	fz_libc_fd = fz_libc[0] ? open(fz_libc, O_RDONLY | O_CLOEXEC) : -1;
	fz_dir_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_EQ(pipe2(fz_pipe, O_CLOEXEC), 0);
	/* Orphaned grandchildren of the targets come to us to be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

static void fz_thread_init(struct fz_test *t, int tno, int i)
{
	struct fz_thread *th = &t->th[i];

	th->t = t;
	th->idx = i;
	th->cur = -1;
	th->rng = fz_splitmix(fz_seed ^ fz_splitmix(tno * 64 + i)) | 1;
	th->arena = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(th->arena, MAP_FAILED);
	ASSERT_EQ(mprotect(th->arena + 2 * PG, PG, PROT_READ), 0);
	ASSERT_EQ(mprotect(th->arena + 3 * PG, PG, PROT_NONE), 0);
	th->big = mmap(NULL, fz_big_size + PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(th->big, MAP_FAILED);
	ASSERT_EQ(mprotect(th->big + fz_big_size, PG, PROT_NONE), 0);
}

/* Kill every child, targets and adopted orphans alike, and reap them. */
static void fz_kill_children(struct fz_test *t)
{
	while (!t->hung && fz_children(t, getpid(), true)) {
		usleep(10000);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			t->reaped++;
	}
}

static struct fz_stats fz_before;

static void fz_run(struct fz_test *t, int tno)
{
	struct sigaction sa = { .sa_sigaction = fz_fault, .sa_flags = SA_SIGINFO };
	struct timespec t0, t1;
	uint64_t calls;
	int i;

	if (fz_only && strcmp(fz_only, t->name))
		SKIP("FUZZ_ONLY=%s", fz_only);
	fz_init_process();
	if (fz_threads_override)
		t->nr_threads = fz_threads_override;
	fz_before = *fz_stats;
	t->start = fz_stats->total;
	t->oracle_base = fz_stats->oracle_failures;
	pthread_mutex_init(&t->tlock, NULL);
	for (i = 0; i < t->nr_slots; i++) {
		pthread_rwlock_init(&t->slots[i].rw, NULL);
		pthread_mutex_init(&t->slots[i].lock, NULL);
		t->slots[i].fd = -1;
	}
	printf("# %s: seed %llu, %d threads, %d fds, %llu calls\n", t->name,
	       (unsigned long long)fz_seed, t->nr_threads, t->nr_slots,
	       (unsigned long long)t->budget);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < t->nr_threads; i++)
		fz_thread_init(t, tno, i);
	t->phase = "fuzzing";
	t->pid = getpid();
	fflush(stdout);
	t->watchdog = fork();
	ASSERT_GE(t->watchdog, 0);
	if (!t->watchdog)
		fz_watchdog(t);
	for (i = 0; i < t->nr_threads; i++)
		ASSERT_EQ(pthread_create(&t->th[i].pt, NULL, fz_thread_main,
					 &t->th[i]), 0);
	for (i = 0; i < t->nr_threads; i++)
		pthread_join(t->th[i].pt, NULL);

	/* Every session left gets the accounting check as it is closed. */
	t->phase = "closing the sessions";
	fz_self = &t->th[0];
	for (i = 0; i < t->nr_slots; i++, t->ops++)
		fz_slot_close(&t->th[0], &t->slots[i], true);
	t->phase = "killing the targets";
	fz_kill_children(t);
	t->done = 1;
	waitpid(t->watchdog, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_FALSE(t->hung);

	calls = fz_stats->total - t->start;
	printf("# %s: %llu calls, %llu ops in %.1f s; sessions checked %llu, with records %llu, with drops %llu; records %llu, dropped %llu\n",
	       t->name, (unsigned long long)calls, (unsigned long long)t->ops,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       (unsigned long long)(fz_stats->checked - fz_before.checked),
	       (unsigned long long)(fz_stats->with_records -
				    fz_before.with_records),
	       (unsigned long long)(fz_stats->with_drops -
				    fz_before.with_drops),
	       (unsigned long long)(fz_stats->records - fz_before.records),
	       (unsigned long long)(fz_stats->drops - fz_before.drops));
	EXPECT_GE(calls, t->budget);
	EXPECT_EQ(fz_stats->oracle_failures - t->oracle_base, 0);
}

/* Operation weights per test. */
static const unsigned int fz_w_single[OP_NR] = {
	[OP_OPEN] = 2, [OP_CLOSE] = 1, [OP_VERSION] = 3, [OP_INFO] = 3,
	[OP_SETUP] = 6, [OP_PROBE_ADD] = 8, [OP_PROBE_REMOVE] = 4,
	[OP_ENABLE] = 6, [OP_DISABLE] = 4, [OP_CONSUME] = 6, [OP_STATS] = 8,
	[OP_COUNTERS] = 4, [OP_BAD_IOCTL] = 4, [OP_MMAP] = 8,
	[OP_MUNMAP] = 3, [OP_MPROTECT] = 3, [OP_MREMAP] = 2,
	[OP_MADVISE] = 2, [OP_POLL] = 4, [OP_RECIPE] = 3, [OP_DRAIN] = 5,
	[OP_CHECK] = 1, [OP_SPAWN] = 1, [OP_SIGNAL] = 1,
};

static const unsigned int fz_w_multi[OP_NR] = {
	[OP_OPEN] = 4, [OP_CLOSE] = 3, [OP_VERSION] = 2, [OP_INFO] = 2,
	[OP_SETUP] = 6, [OP_PROBE_ADD] = 8, [OP_PROBE_REMOVE] = 3,
	[OP_ENABLE] = 6, [OP_DISABLE] = 4, [OP_CONSUME] = 5, [OP_STATS] = 6,
	[OP_COUNTERS] = 3, [OP_BAD_IOCTL] = 3, [OP_MMAP] = 7,
	[OP_MUNMAP] = 3, [OP_MPROTECT] = 2, [OP_MREMAP] = 2,
	[OP_MADVISE] = 2, [OP_POLL] = 4, [OP_RECIPE] = 5, [OP_DRAIN] = 5,
	[OP_CHECK] = 2, [OP_SPAWN] = 2, [OP_SIGNAL] = 2,
};

static const unsigned int fz_w_chaos[OP_NR] = {
	[OP_OPEN] = 3, [OP_CLOSE] = 4, [OP_VERSION] = 1, [OP_INFO] = 1,
	[OP_SETUP] = 3, [OP_PROBE_ADD] = 3, [OP_PROBE_REMOVE] = 1,
	[OP_ENABLE] = 4, [OP_DISABLE] = 4, [OP_CONSUME] = 2, [OP_STATS] = 3,
	[OP_COUNTERS] = 1, [OP_BAD_IOCTL] = 1, [OP_MMAP] = 3,
	[OP_MUNMAP] = 1, [OP_MPROTECT] = 1, [OP_MREMAP] = 1,
	[OP_MADVISE] = 1, [OP_POLL] = 3, [OP_RECIPE] = 8, [OP_DRAIN] = 4,
	[OP_CHECK] = 3, [OP_SPAWN] = 8, [OP_SIGNAL] = 8,
};

static const unsigned int fz_w_acct[OP_NR] = {
	[OP_OPEN] = 1, [OP_CLOSE] = 2, [OP_SETUP] = 1, [OP_PROBE_ADD] = 2,
	[OP_PROBE_REMOVE] = 1, [OP_ENABLE] = 4, [OP_DISABLE] = 3,
	[OP_CONSUME] = 4, [OP_STATS] = 4, [OP_COUNTERS] = 1, [OP_MMAP] = 2,
	[OP_POLL] = 3, [OP_RECIPE] = 5, [OP_DRAIN] = 8, [OP_CHECK] = 4,
	[OP_SPAWN] = 2, [OP_SIGNAL] = 1,
};

/*
 * Share of FUZZ_ITER per test, in percent.  The test lives in shared
 * memory, for the watchdog process to watch.
 */
static struct fz_test *fz_new_test(const char *name, int threads, int slots,
				   const unsigned int *w, unsigned int share,
				   unsigned int ring_order)
{
	struct fz_test *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(t, MAP_FAILED);
	t->name = name;
	t->ring_order = ring_order;
	t->nr_threads = threads;
	t->nr_slots = slots;
	t->weights = w;
	t->budget = fz_iter * share / 100 ?: 1;
	return t;
}

TEST(single_fd_threads)
{
	fz_run(fz_new_test("single_fd_threads", 4, 1, fz_w_single, 30, 3), 1);
}

TEST(multi_fd_threads)
{
	fz_run(fz_new_test("multi_fd_threads", 3, FZ_MAX_SLOTS, fz_w_multi,
			   30, 3), 2);
}

TEST(fork_exec_exit_chaos)
{
	fz_run(fz_new_test("fork_exec_exit_chaos", 2, 3, fz_w_chaos, 20, 3), 3);
}

/*
 * Mostly the straight path with tiny rings, so that every run has sessions
 * that recorded and overflowed to check the accounting on.
 */
TEST(accounting)
{
	uint64_t with_records = fz_stats->with_records;
	uint64_t with_drops = fz_stats->with_drops;

	fz_run(fz_new_test("accounting", 2, 3, fz_w_acct, 20, 0), 4);
	EXPECT_GT(fz_stats->with_records - with_records, 0);
	EXPECT_GT(fz_stats->with_drops - with_drops, 0);
}

static void fz_print_totals(void)
{
	int c, e;

	printf("# fuzz: %llu calls in total, seed %llu\n",
	       (unsigned long long)fz_stats->total,
	       (unsigned long long)fz_seed);
	for (c = 0; c < C_NR; c++) {
		char line[1024];
		int n;

		if (!fz_stats->calls[c])
			continue;
		n = snprintf(line, sizeof(line), "# %-13s %7llu:", fz_call_name[c],
			     (unsigned long long)fz_stats->calls[c]);
		for (e = 0; e <= FZ_NR_ERRNO && n < (int)sizeof(line); e++) {
			const char *name = !e ? "ok" : e == FZ_NR_ERRNO ?
				"other" : strerrorname_np(e);

			if (fz_stats->err[c][e])
				n += snprintf(line + n, sizeof(line) - n,
					      " %s %llu", name ?: "?",
					      (unsigned long long)fz_stats->err[c][e]);
		}
		printf("%s\n", line);
	}
	printf("# fuzz: sessions checked %llu, with records %llu, with drops %llu; oracle failures %llu\n",
	       (unsigned long long)fz_stats->checked,
	       (unsigned long long)fz_stats->with_records,
	       (unsigned long long)fz_stats->with_drops,
	       (unsigned long long)fz_stats->oracle_failures);
}

static uint64_t fz_env(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

int main(int argc, char **argv)
{
	const char *skip = getenv("FUZZ_SKIP");
	struct timespec ts;
	int rc;

	/* Re-executed by a T_EXEC target. */
	if (argc == 4 && !strcmp(argv[1], "--fuzz-target"))
		return fz_exec_target(atol(argv[2]), atoi(argv[3]));

	clock_gettime(CLOCK_REALTIME, &ts);
	fz_seed = fz_env("FUZZ_SEED", ((uint64_t)ts.tv_nsec << 20 ^ ts.tv_sec ^
				       (uint64_t)getpid() << 40) % 1000000007);
	if (argc == 3 && !strcmp(argv[1], "--seed")) {
		fz_seed = strtoull(argv[2], NULL, 0);
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [--seed N]\n", argv[0]);
		return 2;
	}
	fz_iter = fz_env("FUZZ_ITER", FZ_DEFAULT_ITER);
	fz_threads_override = fz_env("FUZZ_THREADS", 0);
	if (fz_threads_override > FZ_MAX_THREADS)
		fz_threads_override = FZ_MAX_THREADS;
	fz_trace = fz_env("FUZZ_TRACE", 0);
	fz_hang_sec = fz_env("FUZZ_HANG_SEC", 120);
	fz_hang_panic = fz_env("FUZZ_HANG_PANIC", 0);
	fz_only = getenv("FUZZ_ONLY");
	fz_skip_e2big = skip && strstr(skip, "e2big");
	fz_skip_mmap_lock = skip && strstr(skip, "mmap_lock");

	fz_stats = mmap(NULL, sizeof(*fz_stats), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fz_stats == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# seed %llu\n", (unsigned long long)fz_seed);
	printf("# replay: fuzz_test --seed %llu (each thread's operations; not their interleaving)\n",
	       (unsigned long long)fz_seed);
	printf("# FUZZ_ITER=%llu FUZZ_SKIP=%s\n", (unsigned long long)fz_iter,
	       skip ?: "");
	rc = ispot_test_main();
	fz_print_totals();
	return rc;
}
