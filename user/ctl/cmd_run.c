// SPDX-License-Identifier: GPL-2.0
/*
 * ispotctl run: start a command with the probes already armed.
 *
 * The child is forked first and waits on a pipe; the session is set up on
 * its pid and the probes are registered on the files (inode + offset), so
 * they are in place when the kernel maps the program at exec.  Only then
 * does the child exec: nothing it runs can come before the probes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "trace.h"

struct child {
	pid_t pid;
	int status;
	bool exited;
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

static pid_t spawn_waiting(const char *path, char **argv, int *go)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		close(fds[1]);
		/* EOF without a byte: the tracer gave up, run nothing. */
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		close(fds[0]);
		execv(path, argv);
		fprintf(stderr, "ispotctl: cannot run %s (%s): check the "
			"command\n", path, strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

int cmd_run(int argc, char **argv)
{
	struct child child = { .pid = -1 };
	char path[PATH_MAX];
	struct trace_opts o;
	struct trace t;
	int ret, go = -1, code = EXIT_RUNTIME;

	ret = trace_opts_parse(MODE_RUN, argc, argv, &o);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;

	if (trace_open(&t, &o, MODE_RUN))
		goto out;
	ret = find_command(o.cmd[0], path, sizeof(path));
	if (ret) {
		ispot_error("cannot run '%s' (%s): check the command and PATH",
			    o.cmd[0], strerror(-ret));
		goto out;
	}
	if (trace_resolve(&t, 0, path))
		goto out;
	child.pid = spawn_waiting(path, o.cmd, &go);
	if (child.pid < 0) {
		ispot_error("cannot start '%s' (%s)", o.cmd[0],
			    strerror(errno));
		goto out;
	}
	if (trace_start(&t, child.pid))
		goto out;
	if (write(go, "g", 1) != 1) {
		ispot_error("cannot start '%s' (%s)", o.cmd[0],
			    strerror(errno));
		goto out;
	}
	close(go);
	go = -1;
	if (trace_loop(&t, child_exited, &child) || trace_report(&t))
		goto out;
	code = EXIT_OK;
out:
	if (go >= 0)
		close(go);	/* the child exits without running anything */
	trace_free(&t);
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
