// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/lib/trace/sampler.c and autopick.c: `--auto`
 * samples a real busy child with perf cpu-clock events and picks its hot
 * function; an idle child is an error saying what to do.  The choice rules
 * (1%, top N, code no probe can time) are checked on counts of our own.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trace/autopick_internal.h"
#include "trace/sampler_internal.h"
#include "trace/wall_folded.h"
#include "util/json.h"
#include "util/json_read.h"
#include "elf_fixtures.h"
#include "off_cpu_stacks.h"

static volatile unsigned long sink;

__attribute__((noinline, noclone, used)) void autopick_test_hot(void)
{
	for (;;)
		sink++;
}

__attribute__((noinline, noclone, used)) void autopick_test_cold(void)
{
	sink--;
}

/* The program's function that waits, in the off-CPU stacks below. */
__attribute__((noinline, noclone, used)) void autopick_test_waiter(void)
{
	sink += 2;
	sink -= 1;
}

/*
 * Busy for @ms of its own CPU time, or four times that of wall time on
 * a host so loaded it gets less than a quarter of a CPU, then exit: its
 * samples (cpu-clock counts running time) depend little on the load, and
 * it is gone well before a sampling of 10 x @ms ends.
 */
__attribute__((noinline, noclone, used)) void autopick_test_brief(long ms)
{
	struct timespec c0, c, w0, w;
	unsigned int i;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	clock_gettime(CLOCK_MONOTONIC, &w0);
	do {
		/* The CPU clock is a system call: mostly spin, in user code. */
		for (i = 0; i < 100000; i++)
			sink++;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
		clock_gettime(CLOCK_MONOTONIC, &w);
	} while ((c.tv_sec - c0.tv_sec) * 1000 +
		 (c.tv_nsec - c0.tv_nsec) / 1000000 < ms &&
		 (w.tv_sec - w0.tv_sec) * 1000 +
		 (w.tv_nsec - w0.tv_nsec) / 1000000 < 4 * ms);
}

/* A function whose first instruction uprobes cannot step over. */
__asm__(".text\n"
	".globl autopick_test_locked\n"
	".type autopick_test_locked, @function\n"
	"autopick_test_locked:\n"
	"	lock incl (%rdi)\n"
	"	ret\n"
	".size autopick_test_locked, .-autopick_test_locked\n");
void autopick_test_locked(int *p);

static void skip_without_perf(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = SAMPLER_PERIOD_NS,
		.exclude_kernel = 1,
	};
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd < 0)
		SKIP("no perf cpu-clock events here (%s)", strerror(errno));
	close(fd);
}

static pid_t child(void (*fn)(void))
{
	pid_t pid = fork();

	ASSERT_GE(pid, 0);
	if (!pid) {
		fn();
		_exit(0);
	}
	return pid;
}

static void exits_3(void)
{
	_exit(3);
}

static void killed(void)
{
	raise(SIGKILL);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * A child spinning in the hot function, or a skip where perf cannot
 * sample, or under valgrind (its code would run from valgrind's
 * translations, named by none).
 */
#define busy_child() ({						\
	skip_without_perf();						\
	if (under_valgrind())						\
		SKIP("under valgrind");					\
	child(autopick_test_hot);					\
})

/*
 * The user call chains come with the samples, the kernel's context
 * markers left out: nine in ten of the busy child's start in the hot loop
 * (what follows depends on frame pointers, which this test is not built
 * with, so the chains differ and only their first frame is checked).
 */
TEST(samples_keep_their_call_chains)
{
	struct sampler_result r;
	char err[ERRLEN] = "";
	uint64_t in_hot = 0, total = 0;
	size_t i;
	pid_t pid;
	int ret;

	pid = busy_child();
	ret = sampler_run(pid, 300 * 1000 * 1000ull, &r, NULL, NULL, NULL, err,
			  sizeof(err));
	reap(pid);
	ASSERT_EQ(ret, 0);
	ASSERT_GT(r.nr_stacks, 0);
	for (i = 0; i < r.nr_stacks; i++) {
		const struct sampler_stack *st = &r.stacks[i];

		ASSERT_GE(st->nr, 1);
		ASSERT_LE(st->nr, SAMPLER_MAX_FRAMES);
		total += st->count;
		in_hot += st->frames[0] >= (uintptr_t)autopick_test_hot &&
			  st->frames[0] < (uintptr_t)autopick_test_hot + 64 ?
			  st->count : 0;
	}
	EXPECT_EQ(total, r.samples);
	EXPECT_GT(in_hot * 10, r.samples * 9);
	sampler_result_free(&r);
}

static void idle(void)
{
	pause();
}

static void *parked(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static void *hot(void *arg)
{
	(void)arg;
	autopick_test_hot();
	return NULL;
}

/*
 * A pool of SAMPLER_MAX_THREADS + 44 threads parked, this one too, and
 * one more that runs, started last: the highest tid unless tids came
 * round past pid_max.
 */
static void pool(void)
{
	pthread_t t;
	int i;

	for (i = 0; i < SAMPLER_MAX_THREADS + 44; i++)
		if (pthread_create(&t, NULL, parked, NULL))
			_exit(1);
	if (pthread_create(&t, NULL, hot, NULL))
		_exit(1);
	pause();
}

static void *brief_sleeper(void *arg)
{
	(void)arg;
	usleep(400 * 1000);
	return NULL;
}

/*
 * SAMPLER_MAX_THREADS + 44 threads that sleep 0.4 s and end, then one that
 * runs, started after them (a server that starts a thread a request).
 */
static void churn(void)
{
	pthread_t t[SAMPLER_MAX_THREADS + 44], h;
	int i;

	for (i = 0; i < SAMPLER_MAX_THREADS + 44; i++)
		if (pthread_create(&t[i], NULL, brief_sleeper, NULL))
			_exit(1);
	for (i = 0; i < SAMPLER_MAX_THREADS + 44; i++)
		pthread_join(t[i], NULL);
	if (pthread_create(&h, NULL, hot, NULL))
		_exit(1);
	pause();
}

/* Written by a child once its parked threads are there (sample_child()). */
static int ready_fd = -1;

/*
 * @parked_n threads parked, then, 0.7 s after it says they are there,
 * @hot_n that run: by then every slot is taken by a parked thread.
 */
static void parked_then(int parked_n, int hot_n)
{
	pthread_t t;
	int i;

	for (i = 0; i < parked_n; i++)
		if (pthread_create(&t, NULL, parked, NULL))
			_exit(1);
	if (write(ready_fd, "", 1) != 1)
		_exit(1);
	usleep(700 * 1000);
	for (i = 0; i < hot_n; i++)
		if (pthread_create(&t, NULL, hot, NULL))
			_exit(1);
	pause();
}

static void parked_then_three_hot(void)
{
	parked_then(SAMPLER_MAX_THREADS + 44, 3);
}

/* More waiting than a ranking reads, the one that runs past them. */
static void many_parked_then_hot(void)
{
	parked_then(SAMPLER_RANK_MAX + 300, 1);
}

static volatile sig_atomic_t stop_flag;

static void set_stop(int sig)
{
	stop_flag = sig;
}

/*
 * A signal's flag ends the sampling at once (ispotctl's Ctrl-C during
 * --auto): 10 s asked, the SIGALRM of 300 ms ends it, what was taken
 * is kept.
 */
TEST(a_signal_ends_the_sampling_early)
{
	struct itimerval at = { .it_value = { 0, 300 * 1000 } };
	struct sigaction sa = { .sa_handler = set_stop };
	struct sampler_result r;
	char err[ERRLEN] = "";
	struct timespec t0, t1;
	pid_t pid;
	int ret;

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGALRM, &sa, NULL), 0);
	pid = busy_child();
	ASSERT_EQ(setitimer(ITIMER_REAL, &at, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = sampler_run(pid, 10ull * 1000 * 1000 * 1000, &r, NULL, NULL,
			  &stop_flag, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	reap(pid);
	ASSERT_EQ(ret, 0);
	EXPECT_TRUE(r.stopped);
	EXPECT_LT(r.stopped_after_ns, 5ull * 1000 * 1000 * 1000);
	EXPECT_FALSE(r.exited);
	EXPECT_GT(r.samples, 0);
	EXPECT_LT(t1.tv_sec - t0.tv_sec, 5);
	sampler_result_free(&r);
	signal(SIGALRM, SIG_DFL);
}

/*
 * Ctrl-C reaches run's command as well as ispotctl (one process group):
 * a target gone when the stop was asked is a stop, not the command's
 * failure ("killed by signal 2"), and the picks come back to be said as
 * what would have been traced.  Here the target is gone before the
 * sampling starts and the stop already asked: the race, made certain.
 */
TEST(a_stop_with_the_target_gone_is_a_stop)
{
	struct autopick a;
	char err[ERRLEN] = "";
	siginfo_t si;
	pid_t pid;
	int ret;

	pid = child(exits_3);
	ASSERT_EQ(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	stop_flag = 1;
	ret = autopick_sample(pid, 2000000000, 0, NULL, &stop_flag, &a, err,
			      sizeof(err));
	stop_flag = 0;
	waitpid(pid, NULL, 0);
	printf("# %d %s\n", ret, err);
	EXPECT_EQ(ret, 0);
	EXPECT_TRUE(a.stopped);
	EXPECT_TRUE(strstr(err, "exited") == NULL);
	autopick_free(&a);
	/* Reaped too: the sampler finds it gone before it sees the stop. */
	stop_flag = 1;
	ret = autopick_sample(pid, 2000000000, 0, NULL, &stop_flag, &a, err,
			      sizeof(err));
	stop_flag = 0;
	printf("# %d %s\n", ret, err);
	EXPECT_EQ(ret, 0);
	EXPECT_TRUE(a.stopped);
	autopick_free(&a);
}

/*
 * Each thread sampled costs a descriptor and a ring: a pool past
 * SAMPLER_MAX_THREADS has that many sampled, the rest counted, and the
 * one that runs among them, whatever its tid, is sampled (the lowest
 * tids were, and a CI run whose tids came round past pid_max mid-pool
 * left the running leader out: no sample).
 */
TEST(threads_sampled_at_most_the_bound)
{
	struct sampler_result r;
	char err[ERRLEN] = "";
	unsigned int tries;
	pid_t pid;
	int ret;

	skip_without_perf();
	pid = child(pool);
	usleep(300 * 1000);	/* its threads started */
	/* Loaded, its 100 threads may take longer to start, and to run. */
	for (tries = 0;; tries++) {
		ret = sampler_run(pid, (200ull << tries) * 1000 * 1000, &r,
				  NULL, NULL, NULL, err, sizeof(err));
		if (ret || (r.samples && r.threads == SAMPLER_MAX_THREADS) ||
		    tries == 3)
			break;
		sampler_result_free(&r);
	}
	reap(pid);
	ASSERT_EQ(ret, 0);
	EXPECT_EQ(r.threads, SAMPLER_MAX_THREADS);
	EXPECT_GE(r.unsampled, 45);
	EXPECT_GT(r.samples, 0);
	sampler_result_free(&r);
}

/*
 * A child running @fn sampled for @ms into @r, from when it says its
 * first threads are there (@ready: on ready_fd), else from 0.1 s after
 * it started.
 */
static void sample_child(void (*fn)(void), bool ready, unsigned int ms,
			 struct sampler_result *r)
{
	char err[ERRLEN] = "", c;
	int ret, fds[2];
	pid_t pid;

	skip_without_perf();
	ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
	ready_fd = fds[1];
	pid = child(fn);
	close(fds[1]);
	if (!ready || read(fds[0], &c, 1) != 1)
		usleep(100 * 1000);
	close(fds[0]);
	ret = sampler_run(pid, ms * 1000ull * 1000, r, NULL, NULL, NULL, err,
			  sizeof(err));
	reap(pid);
	ASSERT_EQ(ret, 0);
	printf("# %u threads sampled, %u more not, %u slots swapped, %llu "
	       "samples\n", r->threads, r->unsampled, r->swapped,
	       (unsigned long long)r->samples);
}

/*
 * The slots of threads that ended are given back: a thread started after
 * SAMPLER_MAX_THREADS others came and went is sampled (it was not: every
 * slot stayed with a thread gone, and the run took no sample).
 */
TEST(threads_gone_give_their_slots_back)
{
	struct sampler_result r;

	sample_child(churn, false, 2000, &r);
	EXPECT_GT(r.threads, SAMPLER_MAX_THREADS);
	EXPECT_GT(r.samples, 0);
	sampler_result_free(&r);
}

/*
 * An idle thread's slot goes to a waiting one that runs: the three
 * threads that start running once every slot is held by a parked one are
 * sampled (they were not: a slot stayed with its thread while it lived,
 * and the run took no sample), each in a slot given to it once (an event
 * opened in a slot kept the moved event's idle count, and was given away
 * again at once: 260 threads, 4 or more swaps).
 */
TEST(idle_threads_give_their_slots_to_busy_ones)
{
	struct sampler_result r;

	sample_child(parked_then_three_hot, true, 3000, &r);
	EXPECT_EQ(r.threads, SAMPLER_MAX_THREADS + 3);
	EXPECT_EQ(r.swapped, 3);
	EXPECT_GT(r.samples, 0);
	sampler_result_free(&r);
}

/*
 * Past SAMPLER_RANK_MAX waiting, the rankings take the waiting threads a
 * window at a time, round the list: the one that runs, started after
 * 1,324 parked threads (past the first window), is found and sampled (it
 * was not: none was ranked, every slot stayed with the lowest tids, and
 * the run took no sample).
 */
TEST(past_the_rank_bound_rankings_go_round)
{
	struct sampler_result r;

	sample_child(many_parked_then_hot, true, 4000, &r);
	EXPECT_GE(r.unsampled, SAMPLER_RANK_MAX);
	EXPECT_GE(r.swapped, 1);
	EXPECT_GT(r.samples, 0);
	sampler_result_free(&r);
}

static void brief(void)
{
	autopick_test_brief(300);
}

TEST(busy_child_hot_function_is_picked)
{
	struct autopick a;
	char err[ERRLEN] = "";
	unsigned int tries;
	pid_t pid;
	int ret;

	pid = busy_child();
	/*
	 * On a loaded host the child may get a small share of a CPU, and
	 * cpu-clock samples only its running time: sample longer then.
	 */
	for (tries = 0;; tries++) {
		ret = autopick_sample(pid, (400ull << tries) * 1000 * 1000, 0,
				      NULL, NULL, &a, err, sizeof(err));
		if (ret || a.samples > 20 || tries == 3)
			break;
		autopick_free(&a);
	}
	reap(pid);
	ASSERT_EQ(ret, 0);
	printf("# %llu samples, %zu picked, first %s (%llu)\n",
	       (unsigned long long)a.samples, a.nr,
	       a.nr ? a.funcs[0].sym.name : "-",
	       a.nr ? (unsigned long long)a.funcs[0].samples : 0ull);
	ASSERT_GT(a.samples, 20);
	ASSERT_GE(a.nr, 1);
	EXPECT_STREQ(a.funcs[0].sym.name, "autopick_test_hot");
	/* Nearly every sample is in the loop. */
	EXPECT_GT(a.funcs[0].samples * 10, a.samples * 9);
	EXPECT_NE(a.funcs[0].sym.offset, 0);
	autopick_free(&a);
}

TEST(idle_child_is_an_error_that_says_what_to_do)
{
	struct autopick a;
	char err[ERRLEN] = "";
	pid_t pid;
	int ret;

	skip_without_perf();
	pid = child(idle);
	ret = autopick_sample(pid, 200 * 1000 * 1000ull, 0, NULL, NULL, &a, err,
			      sizeof(err));
	reap(pid);
	printf("# %s\n", err);
	EXPECT_EQ(ret, -ENODATA);
	EXPECT_EQ(a.nr, 0);
	EXPECT_TRUE(strstr(err, "ran no user code"));
	EXPECT_TRUE(strstr(err, "--func"));
	EXPECT_FALSE(strchr(err, '\n'));
	autopick_free(&a);
}

TEST(child_exiting_while_sampled_is_an_error)
{
	struct autopick a;
	char err[ERRLEN] = "";
	pid_t pid;
	int ret;

	skip_without_perf();
	pid = child(brief);
	ret = autopick_sample(pid, 2000 * 1000 * 1000ull, 0, NULL, NULL, &a, err,
			      sizeof(err));
	reap(pid);
	printf("# %s\n", err);
	EXPECT_EQ(ret, -ESRCH);
	EXPECT_TRUE(strstr(err, "exited with status 0 before the"));
	/* What it saw, and what to run instead. */
	if (!under_valgrind()) {
		EXPECT_TRUE(strstr(err, "of its "));
		EXPECT_TRUE(strstr(err, "--func 'autopick_test_brief'"));
	}
	EXPECT_FALSE(strchr(err, '\n'));
	autopick_free(&a);
}

/*
 * A target gone before the profile ended, picked mostly for its waits
 * (no on-CPU sample at all): the advice gives each function's share of
 * the time it was picked by, never a share of no samples ("-nan%").
 */
TEST(exit_advice_gives_shares_of_the_time_picked_by)
{
	struct autopick_func funcs[2] = {
		{ .sym = { .name = "wait_turn" }, .wall_ns = 30000000 },
		{ .sym = { .name = "compute" }, .samples = 10,
		  .wall_ns = 10000000 },
	};
	struct autopick a = { .funcs = funcs, .nr = 2, .samples = 10,
			      .wall_ns = 40000000 };
	char err[ERRLEN];

	autopick_exited(42, 2000000000, &a, err, sizeof(err));
	printf("# %s\n", err);
	EXPECT_TRUE(strstr(err, "of its 40.0ms of thread time on and off the "
			   "CPU, wait_turn 75%, compute 25%: run it again "
			   "with --func 'wait_turn' --func 'compute'"));
	a.samples = 0;
	funcs[1].samples = 0;
	autopick_exited(42, 2000000000, &a, err, sizeof(err));
	EXPECT_FALSE(strstr(err, "nan"));
	EXPECT_TRUE(strstr(err, "wait_turn 75%"));
}

/*
 * run's command gone during the sampling: its exit status or its signal
 * is said, and a failure is blamed on the command, not on --auto-time;
 * the child is looked at, not reaped (run still waits for it).  Another
 * process's end (attach) has no status to tell.
 */
TEST(a_command_that_failed_is_told_by_its_status)
{
	struct autopick a = { 0 };
	char err[ERRLEN];
	siginfo_t si;
	int status;
	pid_t pid;

	pid = child(exits_3);
	ASSERT_EQ(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	autopick_exited(pid, 2000000000, &a, err, sizeof(err));
	printf("# %s\n", err);
	EXPECT_TRUE(strstr(err, "exited with status 3 before the 2.0s"));
	EXPECT_TRUE(strstr(err, "check the command, which failed on its own"));
	EXPECT_FALSE(strstr(err, "lower --auto-time"));
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3);

	pid = child(killed);
	ASSERT_EQ(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	autopick_exited(pid, 2000000000, &a, err, sizeof(err));
	printf("# %s\n", err);
	EXPECT_TRUE(strstr(err, "was killed by signal 9 (Killed) before"));
	EXPECT_EQ(waitpid(pid, &status, 0), pid);

	pid = child(brief);
	ASSERT_EQ(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	autopick_exited(pid, 2000000000, &a, err, sizeof(err));
	EXPECT_TRUE(strstr(err, "exited with status 0 before"));
	EXPECT_TRUE(strstr(err, "lower --auto-time"));
	EXPECT_EQ(waitpid(pid, &status, 0), pid);

	/* Not ours: no status, the advice as before. */
	autopick_exited(1, 2000000000, &a, err, sizeof(err));
	EXPECT_TRUE(strstr(err, "pid 1 exited before the 2.0s"));
	EXPECT_TRUE(strstr(err, "lower --auto-time"));
}

TEST(no_such_process)
{
	struct autopick a;
	char err[ERRLEN] = "";
	pid_t pid;

	pid = child(brief);
	reap(pid);
	EXPECT_EQ(autopick_sample(pid, 1000000, 0, NULL, NULL, &a, err,
				  sizeof(err)),
		  -ESRCH);
	EXPECT_TRUE(strstr(err, "exited"));
	autopick_free(&a);
}

/* Counts of our own: hot 900, cold 5 (0.5%), vdso 50, locked 45. */
static void counts(struct sampler_result *r)
{
	uintptr_t vdso = getauxval(AT_SYSINFO_EHDR);

	memset(r, 0, sizeof(*r));
	ASSERT_EQ(sampler_add(r, (uintptr_t)autopick_test_hot + 4, 600), 0);
	ASSERT_EQ(sampler_add(r, (uintptr_t)autopick_test_hot + 1, 300), 0);
	ASSERT_EQ(sampler_add(r, (uintptr_t)autopick_test_cold, 5), 0);
	ASSERT_EQ(sampler_add(r, (uintptr_t)autopick_test_locked, 45), 0);
	if (vdso)
		ASSERT_EQ(sampler_add(r, vdso + 0x100, 50), 0);
	r->samples = 900 + 5 + 45 + (vdso ? 50 : 0);
	ASSERT_EQ(r->nr_ips, 4 + !!vdso);
}

/* What autopick_print() says of @a for 2 s of pid 42: its first 2 lines. */
static void printed(struct autopick *a, char *head, char *line)
{
	FILE *f = tmpfile();

	a->duration_ns = 2000000000ull;
	ASSERT_TRUE(f);
	autopick_print(f, 42, a);
	rewind(f);
	ASSERT_TRUE(fgets(head, 4096, f));
	ASSERT_TRUE(fgets(line, 4096, f));
	fclose(f);
}

/*
 * A profile of few stacks is said to be one (a 1% share under one stack
 * is chance): 8 samples, the line after the header says so; 950 do not.
 */
TEST(few_stacks_are_said)
{
	struct sampler_result r;
	struct autopick a;
	char err[ERRLEN] = "";
	char head[4096], line[4096];

	counts(&r);
	ASSERT_EQ(autopick_choose(getpid(), &r, NULL, 1, &a, err, sizeof(err)),
		  0);
	printed(&a, head, line);
	EXPECT_TRUE(strstr(line, "only") == NULL);
	a.samples = 8;
	printed(&a, head, line);
	EXPECT_TRUE(strstr(line, "(only 8 stacks: the picks may be chance; "
			   "a longer --auto-time takes more)") != NULL);
	autopick_free(&a);
	sampler_result_free(&r);
}

TEST(one_percent_rule_and_unprobeable_code)
{
	struct sampler_result r;
	struct autopick a;
	char err[ERRLEN] = "";

	counts(&r);
	ASSERT_EQ(autopick_choose(getpid(), &r, NULL, 0, &a, err, sizeof(err)), 0);
	/* Cold is under 1%; the LOCK-prefixed one and the vdso are set
	 * aside and counted. */
	ASSERT_EQ(a.nr, 1);
	EXPECT_STREQ(a.funcs[0].sym.name, "autopick_test_hot");
	EXPECT_EQ(a.funcs[0].samples, 900);
	EXPECT_EQ(a.unprobeable, r.samples - 900 - 5);
	autopick_free(&a);
	sampler_result_free(&r);
}

TEST(top_n_takes_the_n_with_most_samples)
{
	struct sampler_result r;
	struct autopick a;
	char err[ERRLEN] = "";
	char head[4096], line[4096];

	counts(&r);
	ASSERT_EQ(autopick_choose(getpid(), &r, NULL, 2, &a, err, sizeof(err)), 0);
	ASSERT_EQ(a.nr, 2);
	EXPECT_STREQ(a.funcs[0].sym.name, "autopick_test_hot");
	EXPECT_STREQ(a.funcs[1].sym.name, "autopick_test_cold");
	autopick_free(&a);
	ASSERT_EQ(autopick_choose(getpid(), &r, NULL, 1, &a, err, sizeof(err)), 0);
	EXPECT_EQ(a.nr, 1);

	/* One line per function, with its share of the samples. */
	printed(&a, head, line);
	EXPECT_TRUE(strstr(head, "samples of pid 42 in 2.0s"));
	EXPECT_TRUE(strstr(line, "autopick_test_hot"));
	EXPECT_TRUE(strstr(line, "%"));
	autopick_free(&a);
	sampler_result_free(&r);
}

/*
 * Wall time, not on-CPU time alone: the waiter and the C library function
 * it waits in take 300 ms each of futex waits and rank above the hot
 * function's 100 ms of CPU; with the off-CPU evidence left out they are
 * not picked.  An idle sleep of a second (in cold) picks nothing.
 */
TEST(off_cpu_waits_are_picked_by_wall_time)
{
	struct sampler_result r;
	struct wallprof wp;
	struct autopick a;
	char err[ERRLEN] = "", head[4096], line[4096];
	const char *w;

	memset(&r, 0, sizeof(r));
	ASSERT_EQ(sampler_add(&r, (uintptr_t)autopick_test_hot + 4, 100), 0);
	r.samples = 100;
	wallprof_init(&wp);
	off_cpu_stack(&wp, WALL_FUTEX, 300, (uintptr_t)autopick_test_waiter + 9,
		      NULL, 0);
	off_cpu_stack(&wp, WALL_SLEEP, 1000, (uintptr_t)autopick_test_cold + 9,
		      NULL, 0);
	ASSERT_EQ(autopick_choose(getpid(), &r, &wp, 3, &a, err,
				  sizeof(err)), 0);
	ASSERT_EQ(a.nr, 3);
	EXPECT_EQ(a.wall_ns, 400 * 1000000ull);
	/* The tie of 300 ms each goes by name: the program's first. */
	w = a.funcs[0].sym.name;
	EXPECT_STREQ(w, "autopick_test_waiter");
	EXPECT_EQ(a.funcs[0].off_ns[WALL_FUTEX], 300 * 1000000ull);
	EXPECT_FALSE(a.funcs[0].waits);
	EXPECT_TRUE(strstr(a.funcs[1].sym.obj, "libc"));
	EXPECT_TRUE(a.funcs[1].waits);
	EXPECT_STREQ(a.funcs[1].partner, "autopick_test_waiter");
	EXPECT_STREQ(a.funcs[2].sym.name, "autopick_test_hot");
	printed(&a, head, line);
	EXPECT_TRUE(strstr(head, "1.00s idle"));
	TH_LOG("%s", line);
	EXPECT_TRUE(strstr(line, "75.0%  autopick_test_waiter"));
	EXPECT_TRUE(strstr(line, "75% waiting (futex), waiting in "));
	autopick_free(&a);

	/* Without the off-CPU stacks, only the hot function is seen. */
	ASSERT_EQ(autopick_choose(getpid(), &r, NULL, 3, &a, err,
				  sizeof(err)), 0);
	ASSERT_EQ(a.nr, 1);
	EXPECT_STREQ(a.funcs[0].sym.name, "autopick_test_hot");
	autopick_free(&a);
	wallprof_free(&wp);
	sampler_result_free(&r);
}

/*
 * The wall-clock profile as folded lines, outermost frame first and the
 * last frame saying where the time went, in microseconds: 100 cpu-clock
 * samples of hot called from the waiter, 300 ms of futex waits of the
 * waiter in syscall(), and a second of idle sleep of cold; sorted by
 * stack.
 */
TEST(wall_profile_as_folded_lines)
{
	const uint64_t chain[] = { (uintptr_t)autopick_test_hot + 4,
				   (uintptr_t)autopick_test_waiter + 9 };
	struct elf_symbolizer *sz;
	struct sampler_result r;
	struct wall_lines w;
	struct wallprof wp;
	char err[ERRLEN] = "", *text = NULL;
	size_t len = 0, i;
	FILE *f;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(sampler_add_stack(&r, chain, 2), 0);
	wallprof_init(&wp);
	off_cpu_stack(&wp, WALL_FUTEX, 300, (uintptr_t)autopick_test_waiter + 9,
		      NULL, 0);
	off_cpu_stack(&wp, WALL_SLEEP, 1000, (uintptr_t)autopick_test_cold + 9,
		      NULL, 0);
	sz = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(sz);
	ASSERT_EQ(wall_folded_build(&w, sz, &r, &wp), 0);
	f = open_memstream(&text, &len);
	ASSERT_TRUE(f);
	ASSERT_EQ(wall_folded_print(f, &w), 0);
	fclose(f);
	wall_lines_free(&w);
	TH_LOG("%s", text);
	EXPECT_TRUE(strstr(text, "autopick_test_cold;syscall;"
			   "[off cpu: sleep] 1000000\n"));
	EXPECT_TRUE(strstr(text, "autopick_test_waiter;autopick_test_hot;"
			   "[on cpu] 100000\n"));
	EXPECT_TRUE(strstr(text, "autopick_test_waiter;syscall;"
			   "[off cpu: futex] 300000\n"));
	EXPECT_TRUE(strstr(text, "[off cpu: sleep]") <
		    strstr(text, "[on cpu]"));
	free(text);
	elf_symbolizer_free(sz);
	wallprof_free(&wp);
	sampler_result_free(&r);
}

/*
 * The "auto" member of the JSON report: the picks with their shares and
 * other ends, and the heaviest stacks first; well-formed JSON.
 */
TEST(auto_member_of_the_json_report)
{
	const uint64_t chain[] = { (uintptr_t)autopick_test_hot + 4 };
	struct elf_symbolizer *sz;
	struct sampler_result r;
	struct wallprof wp;
	struct autopick a;
	struct json j;
	struct json_value *v;
	const char *why = NULL;
	char err[ERRLEN] = "", *text = NULL;
	size_t len = 0, i;
	FILE *f;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(sampler_add(&r, chain[0], 1), 0);
		ASSERT_EQ(sampler_add_stack(&r, chain, 1), 0);
	}
	r.samples = 100;
	wallprof_init(&wp);
	off_cpu_stack(&wp, WALL_FUTEX, 300, (uintptr_t)autopick_test_waiter + 9,
		      NULL, 0);
	ASSERT_EQ(autopick_choose(getpid(), &r, &wp, 3, &a, err,
				  sizeof(err)), 0);
	sz = elf_symbolizer_new(0, err, sizeof(err));
	ASSERT_TRUE(sz);
	ASSERT_EQ(wall_folded_build(&a.wall, sz, &r, &wp), 0);
	f = open_memstream(&text, &len);
	ASSERT_TRUE(f);
	json_init(&j, f);
	json_object_begin(&j, NULL);
	autopick_json(&j, &a);
	json_object_end(&j);
	json_finish(&j);
	fclose(f);
	TH_LOG("%.600s", text);
	EXPECT_TRUE(strstr(text, "\"picks\""));
	EXPECT_TRUE(strstr(text, "\"name\": \"autopick_test_waiter\""));
	EXPECT_TRUE(strstr(text, "\"waiting_in\": \"syscall\""));
	EXPECT_TRUE(strstr(text, "\"via\": \"autopick_test_waiter\""));
	EXPECT_TRUE(strstr(text, "\"futex\": 300000000"));
	/* The 300 ms stack before the 100 ms one. */
	EXPECT_TRUE(strstr(text, "[off cpu: futex]") &&
		    strstr(text, "[on cpu]") &&
		    strstr(text, "[off cpu: futex]") < strstr(text, "[on cpu]"));
	v = json_parse(text, len, &why);
	EXPECT_TRUE(v);
	json_value_free(v);
	free(text);
	elf_symbolizer_free(sz);
	autopick_free(&a);
	wallprof_free(&wp);
	sampler_result_free(&r);
}

TEST_HARNESS_MAIN
