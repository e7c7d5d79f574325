// SPDX-License-Identifier: GPL-2.0
/*
 * pipe_stall: a reader of a pipe that stops reading when told, so that
 * a test can make its writer wait at a moment of its choosing.
 *
 *	pipe_stall OUT		copy standard input (a pipe) to OUT until
 *				SIGUSR1, then read no more; SIGTERM ends it
 *
 * The pipe is shrunk to one page first (F_SETPIPE_SZ, after taking what
 * it holds), so that a writer waits as soon as a page is left unread:
 * record_test.sh stops the reader as record's tracing stops, and the
 * last chunk and tables, more than a page, wait for it.  Exits 0 after
 * SIGTERM, 1 when its input is not a pipe or OUT cannot be written.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stalled, ended;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		stalled = 1;
	else
		ended = 1;
}

static int copy_once(int out)
{
	char buf[4096];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

	if (n < 0)
		return -1;
	if (n == 0)
		return 1;	/* the writer is gone */
	return write(out, buf, n) == n ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	long page = sysconf(_SC_PAGESIZE);
	sigset_t blocked, open_mask;
	int out, ret = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: pipe_stall OUT < PIPE\n");
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGUSR1);
	sigaddset(&blocked, SIGTERM);
	sigprocmask(SIG_BLOCK, &blocked, &open_mask);
	out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (out < 0) {
		fprintf(stderr, "pipe_stall: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	/* EBUSY while it holds more than a page: take that first. */
	while (fcntl(STDIN_FILENO, F_SETPIPE_SZ, (int)page) < 0) {
		if (errno != EBUSY || copy_once(out) < 0) {
			fprintf(stderr, "pipe_stall: standard input: %s\n",
				strerror(errno));
			return 1;
		}
	}
	/*
	 * The signals come only inside ppoll(): one that comes while a
	 * read is under way stops the reading before the next.
	 */
	while (!stalled && !ended && !ret) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };

		if (ppoll(&pfd, 1, NULL, &open_mask) > 0)
			ret = copy_once(out);
	}
	while (!ended)
		sigsuspend(&open_mask);
	return ret < 0;
}
