// SPDX-License-Identifier: GPL-2.0
/*
 * Task and wait records (ABI 1.2): thread creation and exit, context
 * switches and futex calls of the traced process only, the setup flags
 * that ask for them, and sessions opened, enabled and closed while the
 * target and other processes switch heavily.
 */
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#include <sys/utsname.h>

#include "ispot_kmod_test.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv		449
#endif
#ifndef SYS_futex_wait
#define SYS_futex_wait		455	/* futex2, Linux 6.7+ */
#endif
#ifndef FUTEX2_SIZE_U32
#define FUTEX2_SIZE_U32		0x02
#endif
#ifndef FUTEX2_PRIVATE
#define FUTEX2_PRIVATE		FUTEX_PRIVATE_FLAG
#endif
#define FUTEX_CMD(op)		((op) & 0x7f)

#define NTHREADS	8	/* threads the TASKS target creates */
#define WAIT_KINDS(k)	\
	((k) >= ISPOT_REC_SWITCH_OUT && (k) <= ISPOT_REC_TASK_EXIT)

static volatile int sink;

/* ENABLE needs a probe: this one is rarely called. */
__attribute__((noipa)) int waits_dummy(int x)
{
	sink += x;
	return x;
}

/* What a target tells the test, in memory shared across fork. */
struct shared {
	int tids[NTHREADS];
	int nested_tid;		/* created by tids[NTHREADS - 1] */
	int forked_pid;		/* a process, not a thread */
	int waiter_tid;
	volatile int waiter_started;
	int err[3];		/* errno of the futex calls, 0 if none */
	volatile int stop;
};

static struct shared *sh;

static void shared_map(void)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(sh, MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
}

static int my_tid(void)
{
	return (int)syscall(SYS_gettid);
}

/* A session with setup flags, rings mapped, one probe, not yet enabled. */
struct wsess {
	int fd;
	struct ispot_setup setup;
	struct ispot_rings rings;
	struct ispot_record *recs;	/* head slots only, sorted by time */
	size_t n, cap;
};

static int wsess_open(struct wsess *w, pid_t pid, uint32_t flags,
		      uint32_t pages)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->fd = ispot_open();
	if (w->fd < 0)
		return -errno;
	w->setup.pid = pid;
	w->setup.ring_pages = pages;
	w->setup.flags = flags;
	ret = ispot_ioctl(w->fd, ISPOT_IOC_SETUP, &w->setup);
	if (ret)
		return ret;
	ret = ispot_map_rings(w->fd, &w->setup, &w->rings);
	if (ret)
		return ret;
	ret = ispot_add_probe_fn(w->fd, waits_dummy, ISPOT_PROBE_BOTH, 0);
	return ret < 0 ? ret : 0;
}

static void wsess_start(struct wsess *w, pid_t pid, uint32_t flags)
{
	ASSERT_EQ(wsess_open(w, pid, flags, 64), 0);
	ASSERT_EQ(ispot_ioctl(w->fd, ISPOT_IOC_ENABLE, NULL), 0);
}

static void wsess_close(struct wsess *w)
{
	int i;

	for (i = 0; w->rings.maps && i < w->rings.nr; i++)
		if (w->rings.maps[i] && w->rings.maps[i] != MAP_FAILED)
			munmap(w->rings.maps[i], w->rings.size);
	free(w->rings.maps);
	free(w->recs);
	close(w->fd);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

/* Drain every ring, keep head slots, sort everything kept by time. */
static void wsess_drain(struct wsess *w)
{
	ispot_drain_sorted(w->fd, &w->rings, &w->recs, &w->n);
}

static size_t wsess_count(const struct wsess *w, int kind, pid_t tgid)
{
	size_t i, c = 0;

	for (i = 0; i < w->n; i++)
		c += (kind < 0 || w->recs[i].kind == kind) &&
		     (!tgid || w->recs[i].tgid == (uint32_t)tgid);
	return c;
}

static void wsess_stats(struct wsess *w, struct ispot_ring_stats *rs)
{
	struct ispot_stats st = {
		.rings = (uintptr_t)rs,
		.nr_rings = w->setup.nr_rings,
	};

	ASSERT_EQ(ispot_ioctl(w->fd, ISPOT_IOC_STATS, &st), 0);
}

/*
 * Every ring accounts for every record, and none was lost.  The session is
 * disabled and drained first: a reaped child's threads still switch out for
 * the last time after waitpid() returns, so without it one late SWITCH_OUT
 * could land between the drain and the stats.
 */
static void wsess_expect_no_drops(struct wsess *w)
{
	struct ispot_ring_stats rs[64];
	uint32_t i;
	int ret;

	ASSERT_LE(w->setup.nr_rings, 64);
	/* Already disabled (READY) is fine: EBADFD. */
	ret = ispot_ioctl(w->fd, ISPOT_IOC_DISABLE, NULL);
	if (ret)
		ASSERT_EQ(ret, -EBADFD);
	wsess_drain(w);
	wsess_stats(w, rs);
	for (i = 0; i < w->setup.nr_rings; i++) {
		EXPECT_EQ(rs[i].dropped, 0);
		EXPECT_EQ(rs[i].produced, rs[i].consumed);
	}
}

/*
 * Fields every kind 4-9 record must have, and per thread, switches that
 * alternate: never two SWITCH_INs or two SWITCH_OUTs in a row.
 */
static void wsess_check_shape(const struct wsess *w)
{
	size_t i, j;

	for (i = 0; i < w->n; i++) {
		const struct ispot_record *r = &w->recs[i];

		if (!WAIT_KINDS(r->kind))
			continue;
		ASSERT_EQ(r->nslots, 1);
		ASSERT_EQ(r->probe_id, 0);
		ASSERT_EQ(r->sp, 0);
		ASSERT_LT(r->cpu, w->setup.nr_rings);
		ASSERT_EQ(r->tgid, w->setup.pid);
		if (r->kind != ISPOT_REC_FUTEX_ENTER)
			ASSERT_EQ(r->ip, 0);
		if (r->kind != ISPOT_REC_SWITCH_IN &&
		    r->kind != ISPOT_REC_SWITCH_OUT)
			continue;
		for (j = i + 1; j < w->n; j++) {
			const struct ispot_record *q = &w->recs[j];

			if (q->tid != r->tid ||
			    (q->kind != ISPOT_REC_SWITCH_IN &&
			     q->kind != ISPOT_REC_SWITCH_OUT))
				continue;
			if (q->kind == r->kind)
				TH_LOG("tid %u: kind %u twice, at %zu and %zu",
				       r->tid, r->kind, i, j);
			ASSERT_NE(q->kind, r->kind);
			break;
		}
	}
}

static int wait_child_exit(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(setup_flag_bits_validated)
{
	const uint32_t bad[] = {
		1u << 2, 1u << 31, ISPOT_SETUP_FLAGS | 1u << 7,
	};
	const uint32_t good[] = { 0, ISPOT_SETUP_TASKS, ISPOT_SETUP_WAITS,
				  ISPOT_SETUP_FLAGS };
	struct ispot_setup s;
	size_t i;

	ispot_require_module();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int fd = ispot_open();

		ASSERT_GE(fd, 0);
		memset(&s, 0, sizeof(s));
		s.pid = getpid();
		s.ring_pages = 1;
		s.flags = bad[i];
		EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SETUP, &s), -EINVAL);
		/* Refused before anything happened: still NEW. */
		s.flags = 0;
		EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SETUP, &s), 0);
		close(fd);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int fd = ispot_open();

		ASSERT_GE(fd, 0);
		memset(&s, 0, sizeof(s));
		s.pid = getpid();
		s.ring_pages = 1;
		s.flags = good[i];
		EXPECT_EQ(ispot_ioctl(fd, ISPOT_IOC_SETUP, &s), 0);
		EXPECT_GT(s.nr_rings, 0);
		close(fd);
	}
}

static void *thread_note_tid(void *arg)
{
	sh->tids[(long)arg] = my_tid();
	return NULL;
}

static void *thread_note_nested(void *arg)
{
	(void)arg;
	sh->nested_tid = my_tid();
	return NULL;
}

static void *thread_nested(void *arg)
{
	pthread_t t;

	sh->tids[(long)arg] = my_tid();
	if (pthread_create(&t, NULL, thread_note_nested, NULL))
		return (void *)1;
	pthread_join(t, NULL);
	return NULL;
}

/*
 * NTHREADS threads from the main thread, one more from the last of them,
 * and a forked process, which is no thread of the target.
 */
static int tasks_work(void *arg)
{
	pthread_t th[NTHREADS];
	long i;
	pid_t p;

	(void)arg;
	for (i = 0; i < NTHREADS; i++) {
		void *(*fn)(void *) = i == NTHREADS - 1 ? thread_nested :
				      thread_note_tid;

		if (pthread_create(&th[i], NULL, fn, (void *)i))
			return 1;
		pthread_join(th[i], NULL);
	}
	p = fork();
	if (p == 0)
		_exit(0);
	sh->forked_pid = p;
	return wait_child_exit(p);
}

TEST(tasks_new_and_exit_for_each_thread)
{
	struct ispot_child c;
	struct wsess w;
	size_t i, j, news = 0, exits = 0, lasts = 0;
	uint64_t main_exit_ts = 0;

	ispot_require_module();
	shared_map();
	ASSERT_EQ(ispot_child_start(&c, tasks_work, NULL), 0);
	wsess_start(&w, c.pid, ISPOT_SETUP_TASKS);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	wsess_drain(&w);
	wsess_check_shape(&w);
	wsess_expect_no_drops(&w);

	/* TASKS alone: no switch or futex records. */
	for (i = ISPOT_REC_SWITCH_OUT; i <= ISPOT_REC_FUTEX_EXIT; i++)
		EXPECT_EQ(wsess_count(&w, i, 0), 0);

	ASSERT_NE(sh->nested_tid, 0);
	for (i = 0; i < w.n; i++) {
		const struct ispot_record *r = &w.recs[i];

		if (r->kind == ISPOT_REC_TASK_NEW) {
			news++;
			EXPECT_NE(r->tid, (uint32_t)sh->forked_pid);
			if (r->tid == (uint32_t)sh->nested_tid) {
				/* Created by a thread, not by main. */
				EXPECT_EQ(r->data[0], sh->tids[NTHREADS - 1]);
			} else {
				for (j = 0; j < NTHREADS; j++)
					if (r->tid == (uint32_t)sh->tids[j])
						break;
				EXPECT_LT(j, NTHREADS);
				EXPECT_EQ(r->data[0], c.pid);
			}
			EXPECT_EQ(r->data[1], 0);
			EXPECT_EQ(r->data[2], 0);
		} else if (r->kind == ISPOT_REC_TASK_EXIT) {
			exits++;
			if (r->tid == (uint32_t)c.pid)
				main_exit_ts = r->ts_ns;
			if (r->data[0]) {
				lasts++;
				/* Main joined all: it ends the group. */
				EXPECT_EQ(r->tid, (uint32_t)c.pid);
				EXPECT_EQ(r->data[0], 1);
			}
		}
	}
	EXPECT_EQ(news, NTHREADS + 1);
	EXPECT_EQ(exits, NTHREADS + 1 + 1);
	EXPECT_EQ(lasts, 1);
	/*
	 * Main exited, and its record is the one that ends the group (above).
	 * Not that it is the latest: sched_process_exit fires after
	 * exit_mm(), whose clear of the child tid wakes the joiner, so a
	 * joined thread's record can come after main's when the thread is
	 * preempted in between (seen once under TCG: 585 us later).
	 */
	EXPECT_NE(main_exit_ts, 0);
	/* Each thread: created, then exited. */
	for (i = 0; i < w.n; i++) {
		if (w.recs[i].kind != ISPOT_REC_TASK_NEW)
			continue;
		for (j = i + 1; j < w.n; j++)
			if (w.recs[j].kind == ISPOT_REC_TASK_EXIT &&
			    w.recs[j].tid == w.recs[i].tid)
				break;
		EXPECT_LT(j, w.n);
	}
	wsess_close(&w);
}

static pthread_mutex_t test_mutex = PTHREAD_MUTEX_INITIALIZER;

static void *mutex_waiter(void *arg)
{
	(void)arg;
	sh->waiter_tid = my_tid();
	sh->waiter_started = 1;
	pthread_mutex_lock(&test_mutex);
	pthread_mutex_unlock(&test_mutex);
	return NULL;
}

/* The main thread holds the mutex while the waiter blocks on it. */
static int mutex_work(void *arg)
{
	pthread_t t;

	(void)arg;
	pthread_mutex_lock(&test_mutex);
	if (pthread_create(&t, NULL, mutex_waiter, NULL))
		return 1;
	while (!sh->waiter_started)
		usleep(1000);
	usleep(300000);
	pthread_mutex_unlock(&test_mutex);
	pthread_join(t, NULL);
	return 0;
}

static bool is_wait_op(uint64_t op)
{
	return FUTEX_CMD(op) == FUTEX_WAIT ||
	       FUTEX_CMD(op) == FUTEX_WAIT_BITSET;
}

TEST(contended_mutex_gives_futex_wait_and_switches)
{
	uint64_t addr = (uintptr_t)&test_mutex;
	size_t i, enter = 0, exit = 0, out = 0, in = 0, wake = 0;
	struct ispot_child c;
	struct wsess w;
	uint32_t waiter;

	ispot_require_module();
	shared_map();
	ASSERT_EQ(ispot_child_start(&c, mutex_work, NULL), 0);
	wsess_start(&w, c.pid, ISPOT_SETUP_WAITS);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	wsess_drain(&w);
	wsess_check_shape(&w);
	wsess_expect_no_drops(&w);
	EXPECT_EQ(wsess_count(&w, ISPOT_REC_TASK_NEW, 0), 0);
	EXPECT_EQ(wsess_count(&w, ISPOT_REC_TASK_EXIT, 0), 0);

	waiter = sh->waiter_tid;
	ASSERT_NE(waiter, 0);
	/* The waiter's wait on the mutex word ... */
	for (i = 0; i < w.n; i++) {
		const struct ispot_record *r = &w.recs[i];

		if (r->tid == waiter && r->kind == ISPOT_REC_FUTEX_ENTER &&
		    r->data[0] == addr && is_wait_op(r->data[1])) {
			EXPECT_EQ(r->data[2], 2);	/* "locked, waiters" */
			EXPECT_NE(r->ip, 0);
			enter = i;
			break;
		}
	}
	ASSERT_LT(i, w.n);
	/* ... is left by its next FUTEX_EXIT, returning 0 ... */
	for (i = enter + 1; i < w.n; i++) {
		const struct ispot_record *r = &w.recs[i];

		if (r->tid != waiter)
			continue;
		if (r->kind == ISPOT_REC_FUTEX_EXIT) {
			exit = i;
			break;
		}
		ASSERT_NE(r->kind, ISPOT_REC_FUTEX_ENTER);
		/*
		 * ... after blocking (not preempted) and coming back.  It
		 * may be preempted inside the call before it blocks (seen on
		 * the debug kernel): such a switch-out is runnable, and the
		 * block comes after it.
		 */
		if (r->kind == ISPOT_REC_SWITCH_OUT && !out &&
		    r->data[0] == 0) {
			EXPECT_NE(r->data[1], 0);
			out = i;
		}
		if (r->kind == ISPOT_REC_SWITCH_IN && out)
			in = i;
	}
	ASSERT_NE(exit, 0);
	EXPECT_EQ(w.recs[exit].data[0], 0);
	EXPECT_NE(out, 0);
	EXPECT_GT(in, out);
	/* The holder woke it, on the same word. */
	for (i = 0; i < w.n; i++)
		wake += w.recs[i].kind == ISPOT_REC_FUTEX_ENTER &&
			w.recs[i].tid == (uint32_t)c.pid &&
			w.recs[i].data[0] == addr &&
			FUTEX_CMD(w.recs[i].data[1]) == FUTEX_WAKE;
	EXPECT_GE(wake, 1);
	EXPECT_EQ(wsess_count(&w, ISPOT_REC_FUTEX_ENTER, 0),
		  wsess_count(&w, ISPOT_REC_FUTEX_EXIT, 0));
	wsess_close(&w);
}

static uint32_t fword[3] = { 7, 9, 11 };

static int futex_calls_work(void *arg)
{
	struct futex_waitv wv = {
		.val = 43,
		.uaddr = (uintptr_t)&fword[1],
		.flags = FUTEX_32 | FUTEX_PRIVATE_FLAG,
	};
	int i;

	(void)arg;
	/* Each value differs from the word: -EAGAIN at once. */
	if (syscall(SYS_futex, &fword[0], FUTEX_WAIT_PRIVATE, 42, NULL,
		    NULL, 0) < 0)
		sh->err[0] = errno;
	if (syscall(SYS_futex_waitv, &wv, 1, 0, NULL, CLOCK_MONOTONIC) < 0)
		sh->err[1] = errno;
	if (syscall(SYS_futex_wait, &fword[2], 44, FUTEX_BITSET_MATCH_ANY,
		    FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, NULL,
		    CLOCK_MONOTONIC) < 0)
		sh->err[2] = errno;
	/* Other system calls give no futex record. */
	for (i = 0; i < 100; i++)
		getppid();
	return 0;
}

/* The FUTEX_ENTER on @uaddr and the FUTEX_EXIT after it, by @tid. */
static void find_futex_pair(const struct wsess *w, uint32_t tid,
			    uint64_t uaddr, size_t *enter, size_t *exit)
{
	size_t i;

	*enter = *exit = 0;
	for (i = 0; i < w->n; i++)
		if (w->recs[i].kind == ISPOT_REC_FUTEX_ENTER &&
		    w->recs[i].tid == tid && w->recs[i].data[0] == uaddr)
			break;
	if (i == w->n)
		return;
	*enter = i + 1;
	for (i++; i < w->n; i++)
		if (w->recs[i].kind == ISPOT_REC_FUTEX_EXIT &&
		    w->recs[i].tid == tid)
			break;
	if (i < w->n)
		*exit = i + 1;
}

/* Whether the running kernel is at least @major.@minor. */
static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 1;
	return ma > major || (ma == major && mi >= minor);
}

TEST(futex_arguments_and_return_values)
{
	const uint64_t ops[3] = {
		FUTEX_WAIT_PRIVATE,
		FUTEX_WAIT | FUTEX_PRIVATE_FLAG,
		FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG,
	};
	const uint64_t vals[3] = { 42, 43, 44 };
	struct ispot_child c;
	struct wsess w;
	size_t enter, exit;
	int k, seen = 0;

	ispot_require_module();
	shared_map();
	ASSERT_EQ(ispot_child_start(&c, futex_calls_work, NULL), 0);
	wsess_start(&w, c.pid, ISPOT_SETUP_WAITS);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	wsess_drain(&w);
	wsess_check_shape(&w);
	wsess_expect_no_drops(&w);

	ASSERT_EQ(sh->err[0], EAGAIN);
	for (k = 0; k < 3; k++) {
		find_futex_pair(&w, c.pid, (uintptr_t)&fword[k], &enter,
				&exit);
		if (sh->err[k] == ENOSYS) {
			/* This kernel lacks the call: nothing to record. */
			EXPECT_EQ(enter, 0);
			TH_LOG("futex call %d: ENOSYS on this kernel", k);
			continue;
		}
		EXPECT_EQ(sh->err[k], EAGAIN);
		ASSERT_NE(enter, 0);
		ASSERT_NE(exit, 0);
		EXPECT_EQ(w.recs[enter - 1].data[1], ops[k]);
		EXPECT_EQ(w.recs[enter - 1].data[2], vals[k]);
		EXPECT_NE(w.recs[enter - 1].ip, 0);
		EXPECT_LT(w.recs[enter - 1].ip, 1ull << 47);
		EXPECT_EQ(w.recs[exit - 1].data[0], (uint64_t)(int64_t)-EAGAIN);
		seen++;
	}
	/* futex everywhere; futex_waitv since 5.16 (uname says which). */
	EXPECT_GE(seen, kernel_at_least(5, 16) ? 2 : 1);
	EXPECT_EQ(wsess_count(&w, ISPOT_REC_FUTEX_ENTER, 0), (size_t)seen);
	EXPECT_EQ(wsess_count(&w, ISPOT_REC_FUTEX_EXIT, 0), (size_t)seen);
	wsess_close(&w);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void *spin_300ms(void *arg)
{
	uint64_t end = now_ns() + 300000000ull;

	(void)arg;
	ispot_pin_cpu(0);
	while (now_ns() < end)
		sink++;
	return NULL;
}

/* Two CPU-bound threads on one CPU: the scheduler preempts them. */
static int spin_work(void *arg)
{
	pthread_t t;

	(void)arg;
	if (pthread_create(&t, NULL, spin_300ms, NULL))
		return 1;
	spin_300ms(NULL);
	pthread_join(t, NULL);
	return 0;
}

TEST(preempted_switch_out_is_runnable)
{
	struct ispot_child c;
	struct wsess w;
	size_t i, preempted = 0;

	ispot_require_module();
	ASSERT_EQ(ispot_child_start(&c, spin_work, NULL), 0);
	wsess_start(&w, c.pid, ISPOT_SETUP_WAITS);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	wsess_drain(&w);
	wsess_check_shape(&w);
	wsess_expect_no_drops(&w);
	for (i = 0; i < w.n; i++) {
		const struct ispot_record *r = &w.recs[i];

		if (r->kind != ISPOT_REC_SWITCH_OUT)
			continue;
		/* Running state: always "still runnable". */
		if (r->data[1] == 0)
			EXPECT_EQ(r->data[0], 1);
		EXPECT_LE(r->data[0], 1);
		preempted += r->data[0];
	}
	EXPECT_GE(preempted, 3);
	wsess_close(&w);
}

/* Sleeps in short steps, so the traced process has switches to record. */
static int sleeper_work(void *arg)
{
	int i;

	for (i = 0; i < (int)(long)arg; i++)
		usleep(10000);
	return 0;
}

static void *thread_nothing(void *arg)
{
	return arg;
}

/*
 * Two processes passing a byte back and forth @n times: context switches,
 * system calls, a thread and a futex call, none of them traced.
 */
static pid_t pingpong_start(long n, pid_t *partner)
{
	int ab[2], ba[2];
	pid_t a, b;

	if (pipe(ab) || pipe(ba))
		return -1;
	b = fork();
	if (b == 0) {
		char x;

		close(ab[1]);
		close(ba[0]);
		while (read(ab[0], &x, 1) == 1)
			if (write(ba[1], &x, 1) != 1)
				break;
		_exit(0);
	}
	a = fork();
	if (a == 0) {
		uint32_t word = 0;
		pthread_t t;
		char x = 'p';
		long i;

		close(ab[0]);
		close(ba[1]);
		ispot_pin_cpu(0);
		if (!pthread_create(&t, NULL, thread_nothing, NULL))
			pthread_join(t, NULL);
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		for (i = 0; i < n; i++)
			if (write(ab[1], &x, 1) != 1 || read(ba[0], &x, 1) != 1)
				_exit(1);
		close(ab[1]);
		_exit(0);
	}
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	*partner = b;
	return a;
}

TEST(untraced_process_switching_gives_no_record)
{
	struct ispot_child c;
	struct wsess w;
	pid_t a, b;

	ispot_require_module();
	ASSERT_EQ(ispot_child_start(&c, sleeper_work, (void *)30L), 0);
	wsess_start(&w, c.pid, ISPOT_SETUP_FLAGS);
	ispot_child_go(&c);
	a = pingpong_start(3000, &b);
	ASSERT_GT(a, 0);
	EXPECT_EQ(wait_child_exit(a), 0);
	EXPECT_EQ(wait_child_exit(b), 0);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	wsess_drain(&w);
	EXPECT_EQ(wsess_count(&w, -1, a), 0);
	EXPECT_EQ(wsess_count(&w, -1, b), 0);
	/* Only the target, and the target indeed. */
	EXPECT_EQ(wsess_count(&w, -1, c.pid), w.n);
	EXPECT_GE(wsess_count(&w, ISPOT_REC_SWITCH_OUT, c.pid), 10);
	EXPECT_EQ(wsess_count(&w, ISPOT_REC_TASK_EXIT, c.pid), 1);
	wsess_check_shape(&w);
	wsess_expect_no_drops(&w);
	wsess_close(&w);
}

/* Works in phases, one per byte on @cue, answering each on @done. */
struct phased {
	int cue[2];
	int done[2];
};

static int phased_work(void *arg)
{
	struct phased *ph = arg;
	char x;

	close(ph->cue[1]);
	close(ph->done[0]);
	while (read(ph->cue[0], &x, 1) == 1) {
		if (mutex_work(NULL))
			return 1;
		sh->waiter_started = 0;
		if (tasks_work(NULL))
			return 1;
		if (write(ph->done[1], &x, 1) != 1)
			return 1;
	}
	return 0;
}

static void phase(struct phased *ph)
{
	char x = 'x';

	ASSERT_EQ(write(ph->cue[1], &x, 1), 1);
	ASSERT_EQ(read(ph->done[0], &x, 1), 1);
}

TEST(records_only_while_enabled)
{
	uint64_t disabled;
	struct ispot_child c;
	struct phased ph;
	struct wsess w;
	size_t i, before;

	ispot_require_module();
	shared_map();
	ASSERT_EQ(pipe(ph.cue), 0);
	ASSERT_EQ(pipe(ph.done), 0);
	ASSERT_EQ(ispot_child_start(&c, phased_work, &ph), 0);
	close(ph.cue[0]);
	close(ph.done[1]);
	ispot_child_go(&c);

	ASSERT_EQ(wsess_open(&w, c.pid, ISPOT_SETUP_FLAGS, 64), 0);
	phase(&ph);	/* READY: nothing */
	wsess_drain(&w);
	EXPECT_EQ(w.n, 0);

	/*
	 * Enabled and disabled again: nothing after the DISABLE.  The
	 * threads may still be going to sleep after the last phase while the
	 * session is briefly enabled, so records stamped before it are fair.
	 */
	ASSERT_EQ(ispot_ioctl(w.fd, ISPOT_IOC_ENABLE, NULL), 0);
	ASSERT_EQ(ispot_ioctl(w.fd, ISPOT_IOC_DISABLE, NULL), 0);
	disabled = now_ns();
	phase(&ph);
	wsess_drain(&w);
	for (i = 0; i < w.n; i++)
		EXPECT_LT(w.recs[i].ts_ns, disabled);
	/*
	 * A thread's switches need not alternate across the disabled gap
	 * (out in the first window, in while disabled, out again in the
	 * next): the shape check below is for the second window's.
	 */
	for (i = before = 0; i < w.n; i++)
		if (w.recs[i].kind != ISPOT_REC_SWITCH_IN &&
		    w.recs[i].kind != ISPOT_REC_SWITCH_OUT)
			w.recs[before++] = w.recs[i];
	w.n = before;

	ASSERT_EQ(ispot_ioctl(w.fd, ISPOT_IOC_ENABLE, NULL), 0);
	phase(&ph);	/* enabled again: everything */
	ASSERT_EQ(ispot_ioctl(w.fd, ISPOT_IOC_DISABLE, NULL), 0);
	wsess_drain(&w);
	EXPECT_EQ(wsess_count(&w, ISPOT_REC_TASK_NEW, c.pid), NTHREADS + 2);
	EXPECT_GE(wsess_count(&w, ISPOT_REC_FUTEX_ENTER, c.pid), 2);
	EXPECT_GE(wsess_count(&w, ISPOT_REC_SWITCH_OUT, c.pid), 2);
	EXPECT_GT(w.n, before);
	wsess_check_shape(&w);
	wsess_expect_no_drops(&w);

	close(ph.cue[1]);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	wsess_close(&w);
}

static int probed_waits_work(void *arg)
{
	int i;

	for (i = 0; i < 10; i++)
		waits_dummy(i);
	if (mutex_work(arg))
		return 1;
	return tasks_work(arg);
}

/* Probed, and one futex call per call: a wake nobody waits for. */
static uint32_t wake_word;

__attribute__((noipa)) long waits_probed_wake(void)
{
	return syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL,
		       NULL, 0);
}

/*
 * Paced, so that the rings hold all of a teardown's records (after the
 * probes go, the loop runs untrapped through the waits' grace period);
 * killed with the test, should an assertion end it first.
 */
static int wake_loop_work(void *arg)
{
	(void)arg;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
		return 1;
	while (!sh->stop) {
		waits_probed_wake();
		usleep(20);
	}
	return 0;
}

/*
 * Of @w's calls of probe @id, those whose ENTRY and EXIT were both
 * recorded (*pairs), and of them those without a FUTEX_ENTER and a
 * FUTEX_EXIT of their thread in between (*bare).
 */
static void count_bare_calls(const struct wsess *w, uint32_t id,
			     size_t *pairs, size_t *bare)
{
	size_t i, j;

	*pairs = *bare = 0;
	for (i = 0; i < w->n; i++) {
		const struct ispot_record *r = &w->recs[i];
		bool enter = false, exit = false;

		if (r->kind != ISPOT_REC_ENTRY || r->probe_id != id)
			continue;
		for (j = i + 1; j < w->n; j++) {
			const struct ispot_record *q = &w->recs[j];

			if (q->tid != r->tid)
				continue;
			if (q->kind == ISPOT_REC_FUTEX_ENTER)
				enter = true;
			else if (q->kind == ISPOT_REC_FUTEX_EXIT)
				exit = enter;
			else if (q->kind == ISPOT_REC_ENTRY ||
				 q->kind == ISPOT_REC_EXIT)
				break;
		}
		if (j == w->n || w->recs[j].kind != ISPOT_REC_EXIT)
			continue;
		(*pairs)++;
		*bare += !exit;
	}
}

/*
 * Every call the probes record has its waits: the wait records start
 * before the probes are armed and stop after they are disarmed.  Stopping
 * them waits out an RCU grace period (tens of ms under emulation), and
 * with them stopped first the probes went on recording meanwhile: ispotd's
 * short bursts saw most of their calls with no wait at all.
 */
TEST(every_recorded_call_has_its_waits)
{
	size_t pairs, bare, all_pairs = 0, all_bare = 0;
	struct ispot_child c;
	struct wsess w;
	int cycle, id;

	ispot_require_module();
	shared_map();
	ASSERT_EQ(ispot_child_start(&c, wake_loop_work, NULL), 0);
	ispot_child_go(&c);
	for (cycle = 0; cycle < 3; cycle++) {
		ASSERT_EQ(wsess_open(&w, c.pid, ISPOT_SETUP_FLAGS, 512), 0);
		id = ispot_add_probe_fn(w.fd, waits_probed_wake,
					ISPOT_PROBE_BOTH, 0);
		ASSERT_GT(id, 0);
		ASSERT_EQ(ispot_ioctl(w.fd, ISPOT_IOC_ENABLE, NULL), 0);
		usleep(10000);
		ASSERT_EQ(ispot_ioctl(w.fd, ISPOT_IOC_DISABLE, NULL), 0);
		wsess_drain(&w);
		wsess_expect_no_drops(&w);
		count_bare_calls(&w, id, &pairs, &bare);
		TH_LOG("cycle %d: %zu calls, %zu without their futex records",
		       cycle, pairs, bare);
		all_pairs += pairs;
		all_bare += bare;
		wsess_close(&w);
	}
	sh->stop = 1;
	ASSERT_EQ(ispot_child_wait(&c), 0);
	EXPECT_GT(all_pairs, 0);
	EXPECT_EQ(all_bare, 0);
}

TEST(flags_zero_gives_no_task_or_wait_record)
{
	struct ispot_child c;
	struct wsess w;
	size_t i;

	ispot_require_module();
	shared_map();
	ASSERT_EQ(ispot_child_start(&c, probed_waits_work, NULL), 0);
	wsess_start(&w, c.pid, 0);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	wsess_drain(&w);
	/* The probe's records came, so the session was live. */
	EXPECT_EQ(wsess_count(&w, ISPOT_REC_ENTRY, c.pid), 10);
	for (i = 0; i < w.n; i++)
		EXPECT_FALSE(WAIT_KINDS(w.recs[i].kind));
	wsess_close(&w);
}

TEST(two_sessions_on_one_target_both_record)
{
	struct ispot_child c;
	struct wsess w[2];
	int k;

	ispot_require_module();
	shared_map();
	ASSERT_EQ(ispot_child_start(&c, tasks_work, NULL), 0);
	wsess_start(&w[0], c.pid, ISPOT_SETUP_TASKS);
	wsess_start(&w[1], c.pid, ISPOT_SETUP_FLAGS);
	ispot_child_go(&c);
	ASSERT_EQ(ispot_child_wait(&c), 0);
	for (k = 0; k < 2; k++) {
		size_t i, lasts = 0;

		wsess_drain(&w[k]);
		wsess_check_shape(&w[k]);
		wsess_expect_no_drops(&w[k]);
		EXPECT_EQ(wsess_count(&w[k], ISPOT_REC_TASK_NEW, c.pid),
			  NTHREADS + 1);
		EXPECT_EQ(wsess_count(&w[k], ISPOT_REC_TASK_EXIT, c.pid),
			  NTHREADS + 2);
		for (i = 0; i < w[k].n; i++)
			lasts += w[k].recs[i].kind == ISPOT_REC_TASK_EXIT &&
				 w[k].recs[i].data[0];
		EXPECT_EQ(lasts, 1);
	}
	EXPECT_EQ(wsess_count(&w[0], ISPOT_REC_SWITCH_OUT, 0), 0);
	EXPECT_GT(wsess_count(&w[1], ISPOT_REC_SWITCH_OUT, 0), 0);
	wsess_close(&w[0]);
	wsess_close(&w[1]);
}

/*
 * The churn target: two threads passing a byte back and forth, two
 * threads fighting over a mutex, and the main thread creating and joining
 * a thread in a loop, until killed.
 */
static pthread_mutex_t churn_mutex = PTHREAD_MUTEX_INITIALIZER;

static void *churn_locker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&churn_mutex);
		usleep(200);
		pthread_mutex_unlock(&churn_mutex);
	}
	return NULL;
}

static void *churn_echo(void *arg)
{
	int *fds = arg;
	char x;

	while (read(fds[0], &x, 1) == 1)
		if (write(fds[3], &x, 1) != 1)
			break;
	return NULL;
}

static int churn_work(void *arg)
{
	static int fds[4];	/* ping: 0 read, 1 write; pong: 2, 3 */
	pthread_t t;
	char x = 'c';
	int i;

	(void)arg;
	if (pipe(fds) || pipe(fds + 2))
		return 1;
	if (pthread_create(&t, NULL, churn_echo, fds))
		return 1;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, churn_locker, NULL))
			return 1;
	for (i = 0;; i++) {
		if (write(fds[1], &x, 1) != 1 || read(fds[2], &x, 1) != 1)
			return 1;
		if (i % 64 == 0 && !pthread_create(&t, NULL, thread_nothing,
						    NULL))
			pthread_join(t, NULL);
	}
	return 0;
}

static void churn_check(struct wsess *w, pid_t target, uint64_t *records)
{
	struct ispot_ring_stats rs[64];
	uint32_t i;

	/* Twice: records written while the first drain ran. */
	wsess_drain(w);
	wsess_drain(w);
	/* The target's, and LOST records (of no process) where rings filled. */
	EXPECT_EQ(wsess_count(w, -1, target) +
		  wsess_count(w, ISPOT_REC_LOST, 0), w->n);
	*records += w->n;
	ASSERT_LE(w->setup.nr_rings, 64);
	wsess_stats(w, rs);
	for (i = 0; i < w->setup.nr_rings; i++)
		EXPECT_EQ(rs[i].produced, rs[i].consumed + rs[i].dropped);
}

TEST(sessions_churn_while_target_switches)
{
	static const uint32_t flags[] = {
		ISPOT_SETUP_FLAGS, ISPOT_SETUP_WAITS, ISPOT_SETUP_FLAGS,
		ISPOT_SETUP_TASKS,
	};
	uint64_t records = 0, rnd = 12345;
	struct ispot_child c;
	struct wsess w, bg;
	pid_t a, b;
	int i;

	ispot_require_module();
	ASSERT_EQ(ispot_child_start(&c, churn_work, NULL), 0);
	ispot_child_go(&c);
	a = pingpong_start(1L << 40, &b);	/* untraced load, killed */
	ASSERT_GT(a, 0);
	bg.fd = -1;
	for (i = 0; i < 200; i++) {
		/* The second half keeps another session enabled meanwhile. */
		if (i == 100)
			wsess_start(&bg, c.pid, ISPOT_SETUP_FLAGS);
		ASSERT_EQ(wsess_open(&w, c.pid, flags[i % 4], 2), 0);
		ASSERT_EQ(ispot_ioctl(w.fd, ISPOT_IOC_ENABLE, NULL), 0);
		usleep(ispot_test_rand(&rnd) % 5000);
		if (i & 1) {
			/* Closed while enabled and busy. */
			wsess_close(&w);
			continue;
		}
		ASSERT_EQ(ispot_ioctl(w.fd, ISPOT_IOC_DISABLE, NULL), 0);
		churn_check(&w, c.pid, &records);
		wsess_close(&w);
	}
	ASSERT_EQ(ispot_ioctl(bg.fd, ISPOT_IOC_DISABLE, NULL), 0);
	churn_check(&bg, c.pid, &records);
	wsess_close(&bg);
	TH_LOG("%llu records in 100 checked sessions",
	       (unsigned long long)records);
	EXPECT_GT(records, 0);
	kill(c.pid, SIGKILL);
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	ispot_child_wait(&c);
	wait_child_exit(a);
	wait_child_exit(b);
}

TEST_HARNESS_MAIN
