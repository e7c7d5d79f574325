/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pid brought round again, for the tests of what must not follow a
 * reused pid (a process is its pid and its start time): a child of the
 * caller's given a chosen pid through /proc/sys/kernel/ns_last_pid,
 * which only CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE over the pid
 * namespace may write.  Pids are otherwise handed out in turn, so
 * a test could not wait for one to come round.
 *
 * static inline only so that a test file need not use every helper.
 */
#ifndef ISPOT_PID_REUSE_H
#define ISPOT_PID_REUSE_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Tries at the chosen pid: any fork on the host between two takes it. */
#define PID_REUSE_TRIES	200

/*
 * Until the clock tick after @start_time's next: a process started then
 * has another start time (they count in ticks, 10 ms at USER_HZ 100).
 */
static inline void pid_reuse_past_tick(uint64_t start_time)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec ts;

	do {
		usleep(5000);
		clock_gettime(CLOCK_BOOTTIME, &ts);
	} while ((uint64_t)ts.tv_sec * hz +
		 (uint64_t)ts.tv_nsec * hz / 1000000000 <= start_time + 1);
}

/*
 * In a child just forked: run @child(@arg) if any, then wait to be
 * killed; die with the parent's thread, or after a minute, so that no
 * test leaves one behind.
 */
static inline void pid_reuse_child(void (*child)(void *arg), void *arg)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(60);
	if (child)
		child(arg);
	pause();
	_exit(0);
}

/*
 * A child that waits to be killed: a process of the caller's own
 * mappings whose pid a test frees.  Its pid, or -1.
 */
static inline pid_t fork_waiting(void)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid)
		pid_reuse_child(NULL, NULL);
	return pid;
}

/* Kill and reap the caller's child @pid, its pid freed. */
static inline void reap_child(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* /proc/sys/kernel/ns_last_pid: its value, or -errno. */
static inline long pid_reuse_last(void)
{
	long v = -EIO;
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "re");

	if (!f)
		return -errno;
	if (fscanf(f, "%ld", &v) != 1)
		v = -EIO;
	fclose(f);
	return v;
}

/* Write @v to ns_last_pid: 0 or -errno (EROFS in a container, EPERM). */
static inline int pid_reuse_set_last(long v)
{
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (dprintf(fd, "%ld", v) <= 0)
		rc = errno ? -errno : -EIO;
	close(fd);
	return rc;
}

/*
 * A child given @want, started after @start_time's tick (0: any time),
 * that runs @child(@arg) and then waits to be killed (@child NULL: only
 * waits); it dies with the caller's thread, or after a minute.  Its pid;
 * or -errno if this process may not choose the next pid (a test skips),
 * -EAGAIN if another process took @want every time.  ns_last_pid is left
 * no lower than it was, so that pids freed meanwhile are not handed out
 * again at once to whatever else runs.
 */
static inline pid_t fork_at_pid(pid_t want, uint64_t start_time,
				void (*child)(void *arg), void *arg)
{
	long saved = pid_reuse_last(), now;
	pid_t pid = -EAGAIN;
	int tries, rc;

	if (saved < 0)
		return saved;
	if (start_time)
		pid_reuse_past_tick(start_time);
	for (tries = 0; tries < PID_REUSE_TRIES; tries++) {
		rc = pid_reuse_set_last((long)want - 1);
		if (rc) {
			pid = rc;
			break;
		}
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			pid = -errno;
			break;
		}
		if (pid == 0)
			pid_reuse_child(child, arg);
		if (pid == want)
			break;
		/* Someone else forked in between: again, a moment later. */
		reap_child(pid);
		pid = -EAGAIN;
		usleep(1000);
	}
	now = pid_reuse_last();
	if (now >= 0 && now < saved)
		pid_reuse_set_last(saved);
	return pid;
}

#endif /* ISPOT_PID_REUSE_H */
