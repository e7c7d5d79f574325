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
/*
 * Whether @tid is still a thread of @pid, asked by its own path: a scan
 * taken while other threads exit can skip live ones (a listing read in
 * several calls resumes from the thread it was to list next; once that
 * one has died, by position, which skips as many as died before it).
 */
bool task_thread_alive(pid_t pid, uint32_t tid);
/* Whether @tid is in @scan or, missed by it, still alive. */
bool task_still_there(const struct task_set *scan, pid_t pid, uint32_t tid);
/*
 * Add to @scan each thread of @prev that it missed but that is alive:
 * the set a scan would have given had no thread exited while it read.
 * -ENOMEM leaves @scan as it was.
 */
int task_set_keep_missed(struct task_set *scan, const struct task_set *prev,
			 pid_t pid);
void task_set_free(struct task_set *set);

#endif /* ISPOT_TASKS_H */
