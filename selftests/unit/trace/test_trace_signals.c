// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl's signals while it traces (trace_rounds.c): the first stops
 * the session, the second gives up a write that waits, and a third ends
 * ispotctl at once by the signal's own default action, with one line
 * said; a SIGHUP that nohup ignores stays ignored.  Each case runs in a
 * child of its own, since the handlers and the flags they set are the
 * process's, and sets the dispositions it starts from: a test run in the
 * background, or under nohup, inherits SIGINT or SIGHUP ignored.
 */
#include <signal.h>
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

/*
 * The dispositions ispotctl starts with: a shell's foreground command's,
 * or with @nohup, SIGHUP ignored as nohup(1) leaves it.
 */
static void start_as(bool nohup)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, nohup ? SIG_IGN : SIG_DFL);
}

static void tell(int pipe_fd)
{
	struct seen seen = { trace_signal, trace_signal_again };

	if (write(pipe_fd, &seen, sizeof(seen)) != sizeof(seen))
		_exit(3);
}

/*
 * In a child whose stderr goes to @err_fd: catch the signals, raise @sig
 * @n times, tell the parent what the flags said after the first two (or
 * all, if fewer) through @pipe_fd, then exit 0 if still alive.
 */
static void child(int sig, int n, bool nohup, int pipe_fd, int err_fd)
{
	int i;

	dup2(err_fd, STDERR_FILENO);
	start_as(nohup);
	trace_catch_signals();
	for (i = 0; i < n; i++) {
		if (i == 2)
			tell(pipe_fd);
		raise(sig);
	}
	if (n <= 2)
		tell(pipe_fd);
	_exit(0);
}

/*
 * Run child(@sig, @n, @nohup) and wait for it: its wait status, what it
 * saw, and the first bytes of its stderr in @err.
 */
static int run_child(int sig, int n, bool nohup, struct seen *seen,
		     char *err, size_t len)
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
		child(sig, n, nohup, fds[1], errs[1]);
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

TEST(two_signals_stop_and_give_up_but_leave_ispotctl_running)
{
	struct seen seen;
	char err[256];
	int status = run_child(SIGINT, 2, false, &seen, err, sizeof(err));

	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_EQ(seen.signal, SIGINT);
	EXPECT_EQ(seen.again, 1);
	EXPECT_STREQ(err, "");

	status = run_child(SIGTERM, 1, false, &seen, err, sizeof(err));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_EQ(seen.signal, SIGTERM);
	EXPECT_EQ(seen.again, 0);
}

TEST(a_third_signal_ends_ispotctl_by_that_signal_with_one_line)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct seen seen;
	char err[256];
	size_t i;
	int status;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		status = run_child(sigs[i], 3, false, &seen, err,
				   sizeof(err));
		/* The first two were only noted, as above. */
		EXPECT_EQ(seen.signal, sigs[i]);
		EXPECT_EQ(seen.again, 1);
		ASSERT_TRUE(WIFSIGNALED(status));
		EXPECT_EQ(WTERMSIG(status), sigs[i]);
		EXPECT_TRUE(!strncmp(err, "ispotctl: a third signal: ended at "
				     "once", 35));
		EXPECT_EQ(strchr(err, '\n') - err + 1, (long)strlen(err));
	}
}

TEST(a_sighup_nohup_ignores_stays_ignored)
{
	struct seen seen;
	char err[256];
	int status = run_child(SIGHUP, 3, true, &seen, err, sizeof(err));

	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_EQ(seen.signal, 0);
	EXPECT_EQ(seen.again, 0);
	EXPECT_STREQ(err, "");
}

TEST(signals_given_back_end_ispotctl_at_the_first)
{
	int status = -1;
	pid_t pid;

	/* Released before the report (trace_report()): the default again. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		start_as(false);
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
