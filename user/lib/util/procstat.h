/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What /proc says of one process by its pid: whether it is gone, its
 * start time (which, with the pid, names a process: a pid comes round to
 * another process after the first exits), its CPU time and its command
 * name.  Readers of every room use them (the symbolizer, the tracer,
 * ispotd's discovery and budget).
 */
#ifndef ISPOT_PROCSTAT_H
#define ISPOT_PROCSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
 * The CPU time of one thread @tid of @pid, user and kernel, in ns: the
 * scheduler's count (/proc/PID/task/TID/schedstat, kept with
 * CONFIG_SCHED_INFO), else the stat's at tick granularity (the thread's
 * alone, where /proc/TID/stat sums its process).  Returns 0 or -ESRCH.
 */
int thread_cpu_ns(pid_t pid, pid_t tid, uint64_t *cpu_ns);

/*
 * The same, for callers that know a process as (pid, start time):
 * proc_cpu_ns() is -ESRCH too when the pid now belongs to a process that
 * started at another time, so a reused pid never lends its CPU time.
 */
int proc_start_time(pid_t pid, uint64_t *start_time);
int proc_cpu_ns(pid_t pid, uint64_t start_time, uint64_t *ns);

/*
 * What @pid is to the process that started at @start_time, from one read
 * of its stat: that process (PROC_IS), free or unreadable (PROC_GONE),
 * or another process (PROC_OTHER).  Read after a read by the pid,
 * PROC_IS says that read was of the process: a pid that has the start
 * time was never another's since.  (Two processes given one pid within
 * a clock tick are not told apart; only a caller with CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE over the pid namespace can choose its pid.)
 */
enum proc_state { PROC_IS, PROC_GONE, PROC_OTHER };

enum proc_state proc_state(pid_t pid, uint64_t start_time);
/* proc_state() == PROC_IS. */
bool proc_is(pid_t pid, uint64_t start_time);

/* Whether @pid is a kernel thread (PF_KTHREAD): no user code to probe. */
bool task_is_kthread(pid_t pid);

/* The command name (/proc/PID/comm) into @buf, "?" if unknown. */
void task_comm(pid_t pid, char *buf, size_t len);

#endif /* ISPOT_PROCSTAT_H */
