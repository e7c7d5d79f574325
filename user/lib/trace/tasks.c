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

void task_set_free(struct task_set *set)
{
	free(set->tids);
	memset(set, 0, sizeof(*set));
}

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
 * The fields of /proc/PID/stat after "pid (comm) ", space-separated, in
 * @buf; a pointer to the state letter, or NULL.  comm may hold spaces and
 * parentheses, so the last ')' ends it.
 */
static const char *task_stat(pid_t pid, char *buf, size_t len)
{
	char path[64], *p;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? p + 2 : NULL;
}

bool task_exited(pid_t pid)
{
	char buf[1024];
	const char *st = task_stat(pid, buf, sizeof(buf));

	return !st || *st == 'Z' || *st == 'X';
}

int task_times(pid_t pid, uint64_t *start_time, uint64_t *cpu_ns)
{
	unsigned long long utime, stime, start;
	long hz = sysconf(_SC_CLK_TCK);
	char buf[1024];
	const char *st = task_stat(pid, buf, sizeof(buf));

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
