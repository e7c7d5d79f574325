// SPDX-License-Identifier: GPL-2.0
/*
 * Which processes ispotd traces: the set, kept sorted by pid, and the
 * scans of /proc and of the target cgroups that fill it (the connector's
 * events are read by discover_netlink.c); see discover.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "discover_internal.h"
#include "procfs.h"
#include "util/array.h"
#include "util/errors.h"
#include "util/procstat.h"

/* The start time of a --pid that named no process at discover_new(). */
#define DISCOVER_NO_PROCESS	UINT64_MAX

static bool exe_is(const struct discover_exe *e, const char *exe,
		   const struct stat *st)
{
	if (e->ino && st->st_ino && e->dev == st->st_dev &&
	    e->ino == st->st_ino)
		return true;
	/* Replaced since it started: the path is all that is left. */
	return !strcmp(exe, e->real ? e->real : e->path);
}

/*
 * An upgrade gives PATH a new inode, and a symlink may be pointed
 * elsewhere: both are looked up again at each periodic pass.  A PATH
 * that is missing for a moment keeps its last real path.
 */
static void discover_exes_refresh(struct discover *d)
{
	size_t i;

	for (i = 0; i < d->nr_exes; i++) {
		struct discover_exe *e = &d->exes[i];
		char *real = realpath(e->path, NULL);
		struct stat st;

		if (real) {
			free(e->real);
			e->real = real;
		}
		if (stat(e->path, &st)) {
			e->ino = 0;
		} else {
			e->dev = st.st_dev;
			e->ino = st.st_ino;
		}
	}
}

/* Whether @pid is a target now; fills @p. */
static bool discover_match(struct discover *d, pid_t pid,
			   struct discover_proc *p)
{
	char exe[PATH_MAX], cg[PATH_MAX];
	bool found = false;
	uint64_t start;
	struct stat st;
	size_t i;

	if (pid <= 0 || pid == getpid() || proc_start_time(pid, &start))
		return false;
	for (i = 0; !found && i < d->nr_pids; i++) {
		/*
		 * That process only: never its pid's next owner.  A kernel
		 * thread has no code to probe (said at start, never traced).
		 */
		if (d->pids[i] != pid || d->pid_start[i] != start ||
		    task_exited(pid) || task_is_kthread(pid))
			continue;
		p->source = DISCOVER_PID;
		p->index = i;
		found = true;
	}
	if (!found && (d->nr_exes || d->nr_cgroups) &&
	    proc_exe(pid, exe, sizeof(exe), &st)) {
		for (i = 0; !found && i < d->nr_exes; i++) {
			if (!exe_is(&d->exes[i], exe, &st))
				continue;
			p->source = DISCOVER_EXE;
			p->index = i;
			found = true;
		}
		if (!found && d->nr_cgroups &&
		    proc_cgroup(pid, cg, sizeof(cg))) {
			for (i = 0; !found && i < d->nr_cgroups; i++) {
				if (!cgroup_within(cg, d->cgroups[i]))
					continue;
				p->source = DISCOVER_CGROUP;
				p->index = i;
				found = true;
			}
		}
	}
	/* What was read may be a newer owner's of the pid: check. */
	if (!found || !proc_is(pid, start))
		return false;
	p->pid = pid;
	p->start_time = start;
	return true;
}

long discover_find(const struct discover *d, pid_t pid)
{
	size_t lo = 0, hi = d->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (d->procs[mid].pid == pid)
			return mid;
		if (d->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -(long)lo - 1;
}

void discover_remove(struct discover *d, pid_t pid)
{
	long i = discover_find(d, pid);

	if (i < 0)
		return;
	memmove(&d->procs[i], &d->procs[i + 1],
		(d->nr - i - 1) * sizeof(*d->procs));
	d->nr--;
}

static int discover_put(struct discover *d, const struct discover_proc *p)
{
	long i = discover_find(d, p->pid);

	if (i >= 0) {
		d->procs[i] = *p;
		return 0;
	}
	i = -i - 1;
	if (ARRAY_RESERVE(d->procs, d->cap, d->nr + 1))
		return -ENOMEM;
	memmove(&d->procs[i + 1], &d->procs[i],
		(d->nr - i) * sizeof(*d->procs));
	d->procs[i] = *p;
	d->nr++;
	return 0;
}

int discover_check(struct discover *d, pid_t pid)
{
	struct discover_proc p;

	if (discover_match(d, pid, &p))
		return discover_put(d, &p);
	discover_remove(d, pid);
	return 0;
}

/* Every process of the host: what --exe needs when events are missing. */
static int discover_scan_all(struct discover *d)
{
	struct dirent *de;
	DIR *dir = opendir("/proc");
	int ret = 0;

	if (!dir)
		return -errno;
	d->nr = 0;
	/* /proc lists by pid: each is appended, nothing moves. */
	while (!ret && (de = readdir(dir))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid > INT_MAX)
			continue;
		ret = discover_check(d, (pid_t)pid);
	}
	closedir(dir);
	return ret;
}

/*
 * The processes in the cgroup directory @path and below, checked when
 * new to the set.  @path has room for PATH_MAX bytes and is extended in
 * place for each child, so that a deep tree costs no stack per level
 * beyond a frame.
 */
static int discover_scan_cgroup(struct discover *d, char *path)
{
	static const char procs[] = "/cgroup.procs";
	size_t n = strlen(path);
	struct dirent *de;
	long pid;
	DIR *dir;
	FILE *f;
	int ret = 0;

	if (n + sizeof(procs) > PATH_MAX)
		return 0;
	memcpy(path + n, procs, sizeof(procs));
	f = fopen(path, "re");
	path[n] = '\0';
	if (f) {
		while (!ret && fscanf(f, "%ld", &pid) == 1)
			if (pid > 0 && pid <= INT_MAX &&
			    discover_find(d, (pid_t)pid) < 0)
				ret = discover_check(d, (pid_t)pid);
		fclose(f);
	}
	dir = opendir(path);
	if (!dir)
		return ret;
	while (!ret && (de = readdir(dir))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    n + 1 + len >= PATH_MAX)
			continue;
		path[n] = '/';
		memcpy(path + n + 1, de->d_name, len + 1);
		ret = discover_scan_cgroup(d, path);
		path[n] = '\0';
	}
	closedir(dir);
	return ret;
}

/*
 * The periodic pass: the set checked again, then what only a scan finds,
 * the processes moved into a target cgroup.  Costs what the targets hold.
 */
static int discover_scan_targets(struct discover *d)
{
	char dir[PATH_MAX];
	size_t i, kept = 0;
	int ret = 0;

	/* Gone (an EXIT can be lost), exec'd away, or moved out. */
	for (i = 0; i < d->nr; i++) {
		struct discover_proc p;

		if (discover_match(d, d->procs[i].pid, &p))
			d->procs[kept++] = p;
	}
	d->nr = kept;
	for (i = 0; !ret && i < d->nr_cgroups; i++) {
		const char *cg = strcmp(d->cgroups[i], "/") ? d->cgroups[i] : "";

		if (snprintf(dir, sizeof(dir), "%s%s", d->cg_mount, cg) <
		    (int)sizeof(dir))
			ret = discover_scan_cgroup(d, dir);
	}
	for (i = 0; !ret && i < d->nr_pids; i++)
		if (discover_find(d, d->pids[i]) < 0)
			ret = discover_check(d, d->pids[i]);
	return ret;
}

struct discover *discover_new(const pid_t *pids, size_t nr_pids,
			      const char *const *exes, size_t nr_exes,
			      const char *const *cgroups, size_t nr_cgroups,
			      char *err, size_t errlen)
{
	struct discover *d = calloc(1, sizeof(*d));
	size_t i;

	if (!d)
		goto err_nomem;
	d->nl = -1;
	d->pids = calloc(nr_pids + 1, sizeof(*d->pids));
	d->pid_start = calloc(nr_pids + 1, sizeof(*d->pid_start));
	d->exes = calloc(nr_exes + 1, sizeof(*d->exes));
	d->cgroups = calloc(nr_cgroups + 1, sizeof(*d->cgroups));
	if (!d->pids || !d->pid_start || !d->exes || !d->cgroups)
		goto err_nomem;
	for (i = 0; i < nr_pids; i++, d->nr_pids++) {
		d->pids[i] = pids[i];
		/* The process that has the pid now is the one meant. */
		if (proc_start_time(pids[i], &d->pid_start[i]))
			d->pid_start[i] = DISCOVER_NO_PROCESS;
	}
	for (i = 0; i < nr_exes; i++, d->nr_exes++)
		if (!(d->exes[i].path = strdup(exes[i])))
			goto err_nomem;
	for (i = 0; i < nr_cgroups; i++, d->nr_cgroups++)
		if (!(d->cgroups[i] = cgroup_path_dup(cgroups[i])))
			goto err_nomem;
	if (nr_cgroups && cgroup2_mount(d->cg_mount, sizeof(d->cg_mount))) {
		snprintf(err, errlen, "--cgroup needs cgroup v2, and no "
			 "cgroup2 file system is mounted: mount it (mount -t "
			 "cgroup2 none /sys/fs/cgroup)");
		discover_free(d);
		return NULL;
	}
	discover_exes_refresh(d);
	d->nl = discover_netlink_open();
	d->rescan = true;
	return d;
err_nomem:
	snprintf(err, errlen, "out of memory");
	discover_free(d);
	return NULL;
}

void discover_keep_pids(struct discover *d, const struct discover *old)
{
	size_t i, j;

	for (i = 0; i < d->nr_pids; i++)
		for (j = 0; j < old->nr_pids; j++)
			if (d->pids[i] == old->pids[j])
				d->pid_start[i] = old->pid_start[j];
}

void discover_free(struct discover *d)
{
	size_t i;

	if (!d)
		return;
	if (d->nl >= 0)
		discover_netlink_close(d->nl);
	for (i = 0; i < d->nr_exes; i++) {
		free(d->exes[i].path);
		free(d->exes[i].real);
	}
	for (i = 0; i < d->nr_cgroups; i++)
		free(d->cgroups[i]);
	free(d->exes);
	free(d->cgroups);
	free(d->pids);
	free(d->pid_start);
	free(d->procs);
	free(d);
}

static bool discover_pid_found(const struct discover *d, size_t i)
{
	return d->pid_start[i] != DISCOVER_NO_PROCESS;
}

/* Whether --pid target @i is a process with user code to trace. */
static bool discover_pid_traceable(const struct discover *d, size_t i)
{
	return discover_pid_found(d, i) && !task_is_kthread(d->pids[i]);
}

/* Whether @path starts with "#!": its processes run the interpreter. */
static bool discover_is_script(const char *path)
{
	char magic[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	bool script;

	if (fd < 0)
		return false;
	script = read(fd, magic, 2) == 2 && magic[0] == '#' &&
		 magic[1] == '!';
	close(fd);
	return script;
}

/* --exe @path's notes: not there yet, a link, a script. */
static void discover_say_exe(const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (access(path, F_OK))
		ispot_say("no file %s yet: its processes are traced once one "
			  "runs", path);
	/* Itself a link: /bin/ls under a merged /usr is not one. */
	else if (!lstat(path, &st) && S_ISLNK(st.st_mode) &&
		 realpath(path, real))
		ispot_say("--exe %s is %s: every process running %s is "
			  "traced, whatever name ran it", path, real, real);
	else if (!stat(path, &st) && S_ISREG(st.st_mode) &&
		 discover_is_script(path))
		ispot_say("--exe %s is a script: its processes run its "
			  "interpreter, so none is %s; give --exe the program "
			  "it runs, or --pid", path, path);
}

int discover_say_absent(const struct discover *d)
{
	bool others = d->nr_exes || d->nr_cgroups;
	char dir[PATH_MAX];
	size_t i, j;

	for (i = 0; i < d->nr_pids; i++)
		others |= discover_pid_traceable(d, i);
	for (i = 0; i < d->nr_pids; i++) {
		for (j = 0; j < i && d->pids[j] != d->pids[i]; j++)
			;
		if (j < i || discover_pid_traceable(d, i))
			continue;
		if (discover_pid_found(d, i))
			ispot_error("pid %d is a kernel thread: it runs no user "
				    "code to probe; give a process's pid%s",
				    (int)d->pids[i], others ?
				    "; tracing the other targets" : "");
		else
			ispot_error("no process with pid %d: check it with "
				    "ps%s", (int)d->pids[i], others ?
				    "; tracing the other targets" : "");
	}
	for (i = 0; i < d->nr_cgroups; i++) {
		const char *cg = strcmp(d->cgroups[i], "/") ? d->cgroups[i] : "";

		if (snprintf(dir, sizeof(dir), "%s%s", d->cg_mount, cg) <
		    (int)sizeof(dir) && access(dir, F_OK))
			ispot_say("no cgroup %s yet (%s): its processes are "
				  "traced once it is made", d->cgroups[i], dir);
	}
	for (i = 0; i < d->nr_exes; i++)
		discover_say_exe(d->exes[i].path);
	return others ? 0 : -1;
}

int discover_fd(const struct discover *d)
{
	return d->nl;
}

bool discover_netlink(const struct discover *d)
{
	return d->nl >= 0;
}

int discover_update(struct discover *d, uint64_t now_ns)
{
	int ret = 0;

	if (d->nl >= 0)
		ret = discover_read_events(d);
	if (ret || (!d->rescan && now_ns < d->next_scan))
		return ret;
	d->next_scan = now_ns + DISCOVER_SCAN_NS;
	discover_exes_refresh(d);
	/*
	 * Only an --exe target needs every process looked at, and only when
	 * no events tell of new ones: the first time, after lost events, or
	 * without the connector.  --pid and --cgroup targets are found from
	 * their pids and cgroup.procs files alone.
	 */
	if (d->nr_exes && (d->rescan || d->nl < 0)) {
		d->rescan = false;
		return discover_scan_all(d);
	}
	d->rescan = false;
	return discover_scan_targets(d);
}

size_t discover_procs(const struct discover *d,
		      const struct discover_proc **out)
{
	*out = d->procs;
	return d->nr;
}
