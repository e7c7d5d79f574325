/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The threads of a process, from /proc/PID/task.  The tracer compares two
 * scans to learn which threads appeared and which exited in between.
 */
#ifndef ISPOT_TASKS_H
#define ISPOT_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct task_set {
	uint32_t *tids;		/* sorted */
	size_t n, cap;
};

/* Replace @set with pid's threads.  -ESRCH once the process is gone. */
int task_set_scan(struct task_set *set, pid_t pid);
int task_set_contains(const struct task_set *set, uint32_t tid);
void task_set_free(struct task_set *set);

/* Whether @pid is gone or a zombie: no code of it will run again. */
bool task_exited(pid_t pid);

/*
 * From /proc/PID/stat: the start time in clock ticks since boot (what
 * tells a reused pid), and the CPU time of the whole process, exited
 * threads included, in ns (tick granularity).  Either may be NULL.
 * Returns 0 or -ESRCH.
 */
int task_times(pid_t pid, uint64_t *start_time, uint64_t *cpu_ns);

/*
 * The same, for callers that know a process as (pid, start time):
 * proc_cpu_ns() is -ESRCH too when the pid now belongs to a process that
 * started at another time, so a reused pid never lends its CPU time.
 */
int proc_start_time(pid_t pid, uint64_t *start_time);
int proc_cpu_ns(pid_t pid, uint64_t start_time, uint64_t *ns);

/* The command name (/proc/PID/comm) into @buf, "?" if unknown. */
void task_comm(pid_t pid, char *buf, size_t len);

#endif /* ISPOT_TASKS_H */
