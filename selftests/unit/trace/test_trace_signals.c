// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl's signals while it traces (trace_rounds.c): the first stops
 * the session, the second gives up a write that waits, and a third,
 * once the trace loop is over (trace_arm_third_signal()), ends ispotctl
 * at once by the signal's own default action, with one line said; a
 * SIGHUP that nohup ignores stays ignored, a SIGINT a script's background
 * job ignores does not.  Each case runs in a child of
 * its own, since the handlers and the flags they set are the process's,
 * and sets the dispositions and mask it starts from: a test run in the
 * background, or under nohup, inherits SIGINT or SIGHUP ignored, and a
 * wrapper may leave them blocked.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ispot_test.h"
#include "trace/trace_internal.h"

/* What a child saw, sent to the parent before any third signal. */
struct seen {
	int signal;
	int again;
};

/* How ispotctl was started, as the dispositions it inherits say. */
enum start {
	FOREGROUND,	/* a shell's foreground command: all at default */
	NOHUP,		/* SIGHUP ignored, as nohup(1) leaves it */
	BACKGROUND,	/* SIGINT ignored, as a script's `cmd &` leaves it */
};

static void start_as(enum start how)
{
	sigset_t set;

	signal(SIGINT, how == BACKGROUND ? SIG_IGN : SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, how == NOHUP ? SIG_IGN : SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static const char third_said[] =
	"ispotctl: a third signal: ended at once, with no report\n";

/* What a child is asked: its signals in turn, and whether armed. */
struct ask {
	int sigs[3];
	int n;
	enum start start;
	bool armed;
};

static void tell(int pipe_fd)
{
	struct seen seen = { trace_signal, trace_signal_again };

	if (write(pipe_fd, &seen, sizeof(seen)) != sizeof(seen))
		_exit(3);
}

/*
 * In a child whose stderr goes to @err_fd: catch the signals (armed for
 * a third if asked), raise @a's signals in turn, tell the parent what
 * the flags said after the first two (or all, if fewer) through
 * @pipe_fd, then exit 0 if still alive.
 */
static void child(const struct ask *a, int pipe_fd, int err_fd)
{
	int i;

	dup2(err_fd, STDERR_FILENO);
	start_as(a->start);
	trace_catch_signals();
	if (a->armed)
		trace_arm_third_signal();
	for (i = 0; i < a->n; i++) {
		if (i == 2)
			tell(pipe_fd);
		raise(a->sigs[i]);
	}
	if (a->n <= 2)
		tell(pipe_fd);
	_exit(0);
}

/*
 * Run child(@a) and wait for it: its wait status, what it saw, and the
 * first bytes of its stderr in @err.
 */
static int run_child(const struct ask *a, struct seen *seen, char *err,
		     size_t len)
{
	int fds[2], errs[2], status = -1;
	ssize_t got;
	pid_t pid;

	memset(seen, 0, sizeof(*seen));
	memset(err, 0, len);
	if (pipe(fds) || pipe(errs))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(fds[0]);
		close(errs[0]);
		child(a, fds[1], errs[1]);
	}
	close(fds[1]);
	close(errs[1]);
	got = read(fds[0], seen, sizeof(*seen));
	if (got != (ssize_t)sizeof(*seen))
		memset(seen, 0, sizeof(*seen));
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	got = read(errs[0], err, len - 1);
	if (got < 0)
		err[0] = '\0';
	close(fds[0]);
	close(errs[0]);
	return status;
}

/* @a's child lived through its signals, its flags as given after them. */
static void expect_alive(const struct ask *a, int signal, int again)
{
	struct seen seen;
	char err[256];
	int status = run_child(a, &seen, err, sizeof(err));

	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_EQ(seen.signal, signal);
	EXPECT_EQ(seen.again, again);
	EXPECT_STREQ(err, "");
}

/*
 * @a's child noted its first two signals and died of its third, with
 * exactly the one line.
 */
static void expect_ended_by_the_third(const struct ask *a)
{
	struct seen seen;
	char err[256];
	int status = run_child(a, &seen, err, sizeof(err));

	EXPECT_EQ(seen.signal, a->sigs[1]);
	EXPECT_EQ(seen.again, 1);
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), a->sigs[2]);
	EXPECT_STREQ(err, third_said);
}

TEST(two_signals_stop_and_give_up_but_leave_ispotctl_running)
{
	const struct ask two = { { SIGINT, SIGINT }, 2, FOREGROUND, true };
	const struct ask one = { { SIGTERM }, 1, FOREGROUND, true };

	expect_alive(&two, SIGINT, 1);
	expect_alive(&one, SIGTERM, 0);
}

TEST(a_third_signal_while_tracing_is_only_noted)
{
	const struct ask a = { { SIGINT, SIGINT, SIGINT }, 3, FOREGROUND,
			       false };

	/* The status line's scroll region is still set then. */
	expect_alive(&a, SIGINT, 1);
}

TEST(a_third_signal_after_the_loop_ends_ispotctl_by_it_with_one_line)
{
	/* Each signal alone, and three of different kinds. */
	static const struct ask asks[] = {
		{ { SIGINT, SIGINT, SIGINT }, 3, FOREGROUND, true },
		{ { SIGTERM, SIGTERM, SIGTERM }, 3, FOREGROUND, true },
		{ { SIGHUP, SIGHUP, SIGHUP }, 3, FOREGROUND, true },
		{ { SIGINT, SIGHUP, SIGTERM }, 3, FOREGROUND, true },
	};
	size_t i;

	for (i = 0; i < sizeof(asks) / sizeof(asks[0]); i++)
		expect_ended_by_the_third(&asks[i]);
}

TEST(a_sighup_nohup_ignores_stays_ignored)
{
	const struct ask a = { { SIGHUP, SIGHUP, SIGHUP }, 3, NOHUP, true };

	expect_alive(&a, 0, 0);
}

/*
 * Unlike nohup's SIGHUP, which a user asked for, a SIGINT ignored is what
 * a non-interactive shell gives every `cmd &`: a script's `kill -INT $!`
 * must still end the session with its report (perf record takes SIGINT
 * over alike).
 */
TEST(a_sigint_a_scripts_background_job_ignores_still_stops_it)
{
	const struct ask a = { { SIGINT }, 1, BACKGROUND, true };

	expect_alive(&a, SIGINT, 0);
}

/*
 * As the init of a PID namespace (a container's ispotctl, say), where a
 * signal left at its default is dropped: the exit status a shell gives a
 * death by that signal, 128 + its number.
 */
TEST(a_namespace_init_ends_with_128_plus_the_signal)
{
	int status = -1, st;
	pid_t pid, init;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		if (unshare(CLONE_NEWPID))
			_exit(77);
		init = fork();
		if (init < 0)
			_exit(78);
		if (!init) {
			if (!freopen("/dev/null", "w", stderr))
				_exit(79);
			start_as(FOREGROUND);
			trace_catch_signals();
			trace_arm_third_signal();
			raise(SIGINT);
			raise(SIGINT);
			raise(SIGINT);
			_exit(0);
		}
		if (waitpid(init, &st, 0) != init)
			_exit(80);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 81);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		SKIP("no PID namespace may be made here");
	EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT);
}

TEST(signals_given_back_end_ispotctl_at_the_first)
{
	int status = -1;
	pid_t pid;

	/* Released before the report (trace_report()): the default again. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		start_as(FOREGROUND);
		trace_catch_signals();
		trace_release_signals();
		raise(SIGINT);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(WTERMSIG(status), SIGINT);
}

TEST_HARNESS_MAIN
