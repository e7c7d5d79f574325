// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl run: start a command with the probes already armed.
 *
 * The child is forked first and waits on a pipe; the session is set up on
 * its pid and the probes are registered on the files (inode + offset), so
 * they are in place when the kernel maps the program at exec.  Only then
 * does the child exec: nothing it runs can come before the probes.
 *
 * With --auto the order changes: the functions are not known until the
 * command has run for a while.  The child execs first and runs
 * uninstrumented for --auto-time while it is sampled; the session is then
 * set up on the running process, as attach does, so what it did during
 * the sampling is not in the report.  If that fails (nothing to pick),
 * the command is killed: ispotctl run does not leave it running untraced.
 *
 * Either way the tracer learns when the exec happened from a second,
 * close-on-exec pipe that the exec closes: the maps are read then, while
 * the new image is in place (see trace_exec_seen()).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "trace/trace.h"

struct child {
	pid_t pid;
	int status;
	bool exited;
	int go;		/* a byte here lets it exec; closing it, exit */
	int exec_fd;	/* EOF once it has exec'd; an errno if it could not */
};

/* execvp's search, done up front so the symbols can be read first. */
static int find_command(const char *cmd, char *path, size_t len)
{
	const char *dirs = getenv("PATH");
	struct stat st;

	if (strchr(cmd, '/')) {
		snprintf(path, len, "%s", cmd);
		return access(path, X_OK) ? -errno : 0;
	}
	if (!dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	while (*dirs) {
		size_t n = strcspn(dirs, ":");

		snprintf(path, len, "%.*s/%s", (int)n, n ? dirs : ".", cmd);
		if (!stat(path, &st) && S_ISREG(st.st_mode) &&
		    !access(path, X_OK))
			return 0;
		dirs += n + (dirs[n] == ':');
	}
	return -ENOENT;
}

static bool child_exited(void *ctx)
{
	struct child *c = ctx;

	if (!c->exited && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->exited = true;
	return c->exited;
}

/* The shell's convention, so `ispotctl run -- cmd; echo $?` reads alike. */
static int child_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_RUNTIME;
}

static int spawn_waiting(const char *path, char **argv, struct child *c)
{
	int go[2], ex[2];
	char b;

	if (pipe2(go, O_CLOEXEC))
		return -1;
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return -1;
	}
	if (!c->pid) {
		int e;

		close(go[1]);
		close(ex[0]);
		/* EOF without a byte: the tracer gave up, run nothing. */
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		close(go[0]);
		execv(path, argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	c->go = go[1];
	c->exec_fd = ex[0];
	return 0;
}

/* Let the child exec, and wait until it has.  Returns 0 or -errno. */
static int release_child(struct child *c, const char *cmd)
{
	ssize_t n;
	int e = 0;

	n = write(c->go, "g", 1);
	close(c->go);
	c->go = -1;
	if (n != 1) {
		ispot_error("cannot start '%s' (%s)", cmd, strerror(errno));
		return -1;
	}
	do
		n = read(c->exec_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->exec_fd);
	c->exec_fd = -1;
	if (n > 0) {
		ispot_error("cannot run '%s' (%s): check the command", cmd,
			    strerror(e));
		return -1;
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	return cmd_traced(MODE_RUN, argc, argv);
}

int run_traced(const struct trace_opts *opts)
{
	struct child child = { .pid = -1, .go = -1, .exec_fd = -1 };
	const struct trace_opts o = *opts;
	char path[PATH_MAX];
	struct trace t;
	int ret, code = EXIT_RUNTIME;
	bool untraced = false;

	if (trace_open(&t, opts, MODE_RUN))
		goto out;
	ret = find_command(o.cmd[0], path, sizeof(path));
	if (ret) {
		ispot_error("cannot run '%s' (%s): check the command and PATH",
			    o.cmd[0], strerror(-ret));
		goto out;
	}
	/* --auto resolves on the running command, below. */
	if (!o.auto_pick && (trace_resolve(&t, 0, path) ||
			     trace_check_keys(&t)))
		goto out;
	if (spawn_waiting(path, o.cmd, &child)) {
		ispot_error("cannot start '%s' (%s)", o.cmd[0],
			    strerror(errno));
		goto out;
	}
	if (o.auto_pick) {
		if (release_child(&child, o.cmd[0]))
			goto out;
		/* Running, not traced: failing now must not leave it be. */
		untraced = true;
		if (trace_resolve(&t, child.pid, path) ||
		    trace_check_keys(&t) || trace_start(&t, child.pid))
			goto out;
		untraced = false;
	} else {
		if (trace_start(&t, child.pid) ||
		    release_child(&child, o.cmd[0]))
			goto out;
	}
	trace_exec_seen(&t);
	if (trace_loop(&t, child_exited, &child) || trace_report(&t))
		goto out;
	code = EXIT_OK;
out:
	if (child.go >= 0)
		close(child.go);	/* the child exits without running */
	if (child.exec_fd >= 0)
		close(child.exec_fd);
	trace_free(&t);
	if (untraced && !child_exited(&child))
		kill(child.pid, SIGKILL);
	if (child.pid > 0) {
		while (!child.exited &&
		       waitpid(child.pid, &child.status, 0) < 0 &&
		       errno == EINTR)
			;
		child.exited = true;
		/* The command's status is the answer, unless we failed. */
		if (code == EXIT_OK)
			code = child_exit_code(child.status);
	}
	return code;
}
