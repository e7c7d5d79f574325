// SPDX-License-Identifier: GPL-2.0
/* Files that appear whole or not at all; see afile.h. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/afile.h"

static void afile_free(struct afile *a)
{
	free(a->path);
	free(a->tmp);
	memset(a, 0, sizeof(*a));
}

bool afile_in_place(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && !S_ISREG(st.st_mode);
}

/* A device, a FIFO or a symbolic link: written where it points. */
static int afile_open_in_place(struct afile *a, const char *path)
{
	int ret;

	a->path = strdup(path);
	if (!a->path)
		return -ENOMEM;
	a->f = fopen(path, "we");
	if (!a->f) {
		ret = -errno;
		afile_free(a);
		return ret;
	}
	return 0;
}

int afile_take_stdout(struct afile *a, const char *name)
{
	int fd, ret;

	memset(a, 0, sizeof(*a));
	a->path = strdup(name);
	if (!a->path)
		return -ENOMEM;
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 ||
	    !(a->f = fdopen(fd, "w"))) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		afile_free(a);
		return ret;
	}
	return 0;
}

int afile_open(struct afile *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int)(slash - path + 1) : 0;
	int fd, ret;

	memset(a, 0, sizeof(*a));
	if (afile_in_place(path))
		return afile_open_in_place(a, path);
	a->path = strdup(path);
	/* ".NAME.XXXXXX" beside it: the rename stays in one file system. */
	if (!a->path || asprintf(&a->tmp, "%.*s.%s.XXXXXX", dir_len, path,
				 path + dir_len) < 0) {
		a->tmp = NULL;
		afile_free(a);
		return -ENOMEM;
	}
	fd = mkostemp(a->tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		afile_free(a);
		return ret;
	}
	if (fchmod(fd, 0644) || !(a->f = fdopen(fd, "we"))) {
		ret = -errno;
		close(fd);
		unlink(a->tmp);
		afile_free(a);
		return ret;
	}
	return 0;
}

int afile_commit(struct afile *a)
{
	int ret = 0;

	errno = 0;
	if (fflush(a->f) || ferror(a->f))
		ret = errno ? -errno : -EIO;
	/* On the disk before the name: a crash leaves the old file or this. */
	if (!ret && a->tmp && fsync(fileno(a->f)))
		ret = -errno;
	if (fclose(a->f) && !ret)
		ret = -errno;
	if (!ret && a->tmp && rename(a->tmp, a->path))
		ret = -errno;
	if (ret && a->tmp)
		unlink(a->tmp);
	afile_free(a);
	return ret;
}

int afile_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	if (stat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return access(dir, W_OK | X_OK) ? -errno : 0;
}

void afile_abort(struct afile *a)
{
	if (a->f) {
		fclose(a->f);
		if (a->tmp)
			unlink(a->tmp);
	}
	afile_free(a);
}

char *afile_keep(struct afile *a)
{
	char *tmp = a->tmp;

	/* What reached the file, on the disk as a commit would put it. */
	if (a->f) {
		fflush(a->f);
		fsync(fileno(a->f));
		fclose(a->f);
	}
	a->tmp = NULL;
	afile_free(a);
	return tmp;
}

int afile_write(const char *path, int (*write)(FILE *f, void *ctx),
		void *ctx)
{
	struct afile a;
	int ret = afile_open(&a, path);

	if (ret)
		return ret;
	ret = write(a.f, ctx);
	if (ret) {
		afile_abort(&a);
		return ret;
	}
	return afile_commit(&a);
}
