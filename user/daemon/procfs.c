// SPDX-License-Identifier: GPL-2.0
/* What /proc and the cgroup2 file system say of a process; see procfs.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

static const char deleted[] = " (deleted)";

/* mountinfo writes ' ', '\t', '\n' and '\\' in a path as "\040" etc. */
static void unescape_octal(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 |
				 (s[3] - '0');
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

int cgroup2_mount(char *buf, size_t len)
{
	char *line = NULL, root[PATH_MAX], mnt[PATH_MAX], *sep;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t cap = 0;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		/* "id parent maj:min root mountpoint opts [opt...] - fstype" */
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2)
			continue;
		unescape_octal(mnt);
		if (ret || !strcmp(root, "/")) {
			snprintf(buf, len, "%s", mnt);
			ret = 0;
		}
		if (!strcmp(root, "/"))
			break;
	}
	free(line);
	fclose(f);
	return ret;
}

bool proc_exe(pid_t pid, char *buf, size_t len, struct stat *st)
{
	char link[64];
	size_t tail = sizeof(deleted) - 1;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, buf, len - 1);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if ((size_t)n > tail && !strcmp(buf + n - tail, deleted))
		buf[n - tail] = '\0';
	if (stat(link, st))
		st->st_ino = 0;
	return true;
}

bool proc_cgroup(pid_t pid, char *buf, size_t len)
{
	char path[64], *line = NULL;
	bool found = false;
	size_t cap = 0, n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "0::", 3))
			continue;
		n = strcspn(line + 3, "\n");
		found = n < len;
		if (found) {
			memcpy(buf, line + 3, n);
			buf[n] = '\0';
		}
	}
	free(line);
	fclose(f);
	return found;
}

bool cgroup_within(const char *cg, const char *target)
{
	size_t n = strlen(target);

	if (!strcmp(target, "/"))
		return cg[0] == '/';
	return !strncmp(cg, target, n) && (cg[n] == '\0' || cg[n] == '/');
}

char *cgroup_path_dup(const char *s)
{
	char *t = strdup(s);
	size_t n;

	if (!t)
		return NULL;
	/* "/a/b/" is "/a/b", so that "/a/b" itself is within it. */
	n = strlen(t);
	while (n > 1 && t[n - 1] == '/')
		t[--n] = '\0';
	return t;
}
