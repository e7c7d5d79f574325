/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A file that appears whole or not at all: written under a temporary name
 * in its directory and renamed over @path when complete, so a reader (or
 * an error halfway) never sees half a picture or half a page.
 */
#ifndef ISPOT_AFILE_H
#define ISPOT_AFILE_H

#include <stdbool.h>
#include <stdio.h>

struct afile {
	FILE *f;		/* write here */
	char *path;		/* where it goes */
	char *tmp;		/* where it is written; NULL: in place */
};

/*
 * Whether @path is written in place rather than replaced: it exists and
 * is not a regular file (a device such as /dev/null or /dev/stdout, a
 * FIFO, a symbolic link), so renaming a new file over it would replace
 * the device or the link itself.
 */
bool afile_in_place(const char *path);

/*
 * Open the temporary file for @path, mode 0644, closed on exec (a traced
 * program never inherits it), or @path itself when it is written in
 * place (afile_in_place()).  0 or -errno.
 */
int afile_open(struct afile *a, const char *path);
/*
 * Standard output as the file (`-o -`), through a descriptor of its own
 * closed on exec; fd 1 becomes a copy of standard error, so that nothing
 * else this process or a program it starts writes to "stdout" lands in
 * the file.  @name is what messages call it.  0 or -errno.
 */
int afile_take_stdout(struct afile *a, const char *name);
/*
 * Flush it to the disk, close it and rename it to its path: 0, or -errno
 * and it is removed.
 */
int afile_commit(struct afile *a);
/* Close and remove it (after an error of the caller's). */
void afile_abort(struct afile *a);
/*
 * Close it and leave it under its temporary name, after an error that
 * left what was written worth keeping (a disk that filled): that name,
 * for the caller to say and free; NULL if it was written in place.
 */
char *afile_keep(struct afile *a);
/*
 * The three together: @write fills the file (0 or -errno), which then
 * appears at @path, or does not and the error is returned.
 */
int afile_write(const char *path, int (*write)(FILE *f, void *ctx),
		void *ctx);

/*
 * A directory to write such files in (--svg DIR): made (0755) if
 * missing; 0 if @dir is then a directory this process may write in,
 * else -errno (-ENOTDIR for a file).
 */
int afile_dir(const char *dir);

#endif /* ISPOT_AFILE_H */
