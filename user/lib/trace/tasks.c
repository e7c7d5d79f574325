// SPDX-License-Identifier: GPL-2.0
/* Listing a process's threads; see tasks.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/tasks.h"
#include "util/array.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int task_set_scan(struct task_set *set, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	set->n = 0;
	while ((de = readdir(dir))) {
		char *end;
		unsigned long tid = strtoul(de->d_name, &end, 10);

		if (*end || !tid)
			continue;
		if (ARRAY_RESERVE(set->tids, set->cap, set->n + 1)) {
			closedir(dir);
			return -ENOMEM;
		}
		set->tids[set->n++] = tid;
	}
	closedir(dir);
	/* A zombie leader with no threads left is as good as gone. */
	if (!set->n)
		return -ESRCH;
	qsort(set->tids, set->n, sizeof(*set->tids), cmp_u32);
	return 0;
}

int task_set_contains(const struct task_set *set, uint32_t tid)
{
	return set->n && bsearch(&tid, set->tids, set->n, sizeof(tid),
				 cmp_u32) != NULL;
}

bool task_thread_alive(pid_t pid, uint32_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%u", (int)pid, tid);
	return access(path, F_OK) == 0;
}

bool task_still_there(const struct task_set *scan, pid_t pid, uint32_t tid)
{
	return task_set_contains(scan, tid) || task_thread_alive(pid, tid);
}

int task_set_keep_missed(struct task_set *scan, const struct task_set *prev,
			 pid_t pid)
{
	size_t i, n = scan->n;

	for (i = 0; i < prev->n; i++) {
		/* The listing as read, sorted; those added go after it. */
		const struct task_set listed = { .tids = scan->tids, .n = n };
		uint32_t tid = prev->tids[i];

		/* Only those missing are asked: one access() each. */
		if (task_set_contains(&listed, tid) ||
		    !task_thread_alive(pid, tid))
			continue;
		if (ARRAY_RESERVE(scan->tids, scan->cap, scan->n + 1)) {
			scan->n = n;
			return -ENOMEM;
		}
		scan->tids[scan->n++] = tid;
	}
	if (scan->n != n)
		qsort(scan->tids, scan->n, sizeof(*scan->tids), cmp_u32);
	return 0;
}

void task_set_free(struct task_set *set)
{
	free(set->tids);
	memset(set, 0, sizeof(*set));
}
