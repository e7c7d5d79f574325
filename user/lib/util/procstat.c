// SPDX-License-Identifier: GPL-2.0
/* What /proc/PID/stat, schedstat and comm say of a process; see procstat.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/procstat.h"

void task_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	snprintf(buf, len, "?");
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * The fields of the stat file at @path after "pid (comm) ", space-separated,
 * in @buf; a pointer to the state letter, or NULL.  comm may hold spaces
 * and parentheses, so the last ')' ends it.
 */
static const char *stat_fields(const char *path, char *buf, size_t len)
{
	char *p;
	size_t n;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? p + 2 : NULL;
}

/* /proc/PID/stat's fields: the whole process's. */
static const char *task_stat(pid_t pid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return stat_fields(path, buf, len);
}

bool task_exited(pid_t pid)
{
	char buf[1024];
	const char *st = task_stat(pid, buf, sizeof(buf));

	return !st || *st == 'Z' || *st == 'X';
}

/* include/linux/sched.h's PF_KTHREAD, in /proc/PID/stat's flags. */
#define TASK_PF_KTHREAD	0x00200000u

bool task_is_kthread(pid_t pid)
{
	char buf[1024];
	const char *st = task_stat(pid, buf, sizeof(buf));
	unsigned int flags;

	/* state(3) ppid pgrp session tty_nr tpgid flags(9) */
	return st && sscanf(st, "%*c %*d %*d %*d %*d %*d %u", &flags) == 1 &&
	       (flags & TASK_PF_KTHREAD);
}

/*
 * From a stat file's fields @st (NULL: unread): the start time in ticks
 * and utime + stime in ns, either pointer NULL; 0 or -ESRCH.
 */
static int stat_times(const char *st, uint64_t *start_time, uint64_t *cpu_ns)
{
	unsigned long long utime, stime, start;
	long hz = sysconf(_SC_CLK_TCK);

	/* state(3) ... utime(14) stime(15) ... starttime(22) */
	if (!st || sscanf(st, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			  "%llu %llu %*d %*d %*d %*d %*d %*d %llu",
			  &utime, &stime, &start) != 3)
		return -ESRCH;
	if (hz <= 0)
		hz = 100;
	if (start_time)
		*start_time = start;
	if (cpu_ns)
		*cpu_ns = (utime + stime) * (1000000000ull / hz);
	return 0;
}

int task_times(pid_t pid, uint64_t *start_time, uint64_t *cpu_ns)
{
	char buf[1024];

	return stat_times(task_stat(pid, buf, sizeof(buf)), start_time,
			  cpu_ns);
}

int thread_cpu_ns(pid_t pid, pid_t tid, uint64_t *cpu_ns)
{
	char path[64], buf[1024];
	unsigned long long ns;
	FILE *f;
	int ok;

	/* The scheduler's own count, in ns: zeros where it keeps none. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid,
		 (int)tid);
	f = fopen(path, "re");
	if (f) {
		ok = fscanf(f, "%llu", &ns) == 1;
		fclose(f);
		if (ok && ns) {
			*cpu_ns = ns;
			return 0;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		 (int)tid);
	return stat_times(stat_fields(path, buf, sizeof(buf)), NULL, cpu_ns);
}

int proc_start_time(pid_t pid, uint64_t *start_time)
{
	return task_times(pid, start_time, NULL);
}

int proc_cpu_ns(pid_t pid, uint64_t start_time, uint64_t *ns)
{
	uint64_t start, cpu;
	int ret = task_times(pid, &start, &cpu);

	if (ret)
		return ret;
	if (start != start_time)
		return -ESRCH;
	*ns = cpu;
	return 0;
}

enum proc_state proc_state(pid_t pid, uint64_t start_time)
{
	uint64_t start;

	if (proc_start_time(pid, &start))
		return PROC_GONE;
	return start == start_time ? PROC_IS : PROC_OTHER;
}

bool proc_is(pid_t pid, uint64_t start_time)
{
	return proc_state(pid, start_time) == PROC_IS;
}
