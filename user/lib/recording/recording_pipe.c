// SPDX-License-Identifier: GPL-2.0
/*
 * A recording read from a pipe (report -, a FIFO, a shell's <(...)), to
 * be used as a mapped file is: the reader needs the tables at the file's
 * end before it replays the events at its start, so the stream is kept
 * whole first.  It is kept in an unlinked file in $TMPDIR, else /var/tmp
 * (where large temporary files go: /tmp is often a tmpfs), and mapped
 * from there, so that a stream of gigabytes is held by the page cache,
 * which the kernel can write back and drop, as a recording read from its
 * file is, rather than in anonymous memory, which it cannot drop without
 * swap.  Where /var/tmp cannot hold a file (missing, read-only) or is in
 * memory anyway (a tmpfs), it is kept in anonymous memory; a $TMPDIR
 * given that cannot is said in one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "recording/recording_format.h"
#include "recording/recording_read.h"
#include "util/errors.h"
#include "util/sigcatch.h"

/* What is read from the pipe at a time; the first anonymous map's size. */
#define REC_PIPE_STEP	(1ul << 20)

/*
 * Wait until @fd has bytes, or its writer is gone: 0, or -1 and errno.
 * A FIFO opened non-blocking (rec_map()) reads 0 until a writer comes,
 * and poll() waits for one (Linux: no POLLHUP before a first writer);
 * a pipe may also come non-blocking from whoever made it.
 */
static int rec_pipe_wait(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* Up to @len bytes of @fd into @buf: their number, 0 at its end, or -1. */
static ssize_t rec_pipe_read(struct recording_file *rf, int fd, void *buf,
			     size_t len)
{
	ssize_t n;

	do {
		n = rec_pipe_wait(fd) ? -1 : read(fd, buf, len);
	} while (n < 0 && (errno == EINTR || errno == EAGAIN));
	if (n < 0)
		ispot_error("cannot read %s (%s): give the file `ispotctl "
			    "record -o` wrote", rf->path, strerror(errno));
	return n;
}

/*
 * Of @n bytes just read (@buf) after @size, how many to keep: all, but
 * where they complete first 8 bytes (@head, gathered here) that are no
 * recording's magic: then those alone, and *@stop, so that an endless
 * stream (/dev/zero) is neither read further nor kept on disk or in
 * memory; rec_header() says what it is.
 */
static size_t rec_pipe_keep(unsigned char head[8], size_t size,
			    const unsigned char *buf, size_t n, bool *stop)
{
	size_t take;

	if (size >= 8)
		return n;
	take = n < 8 - size ? n : 8 - size;
	memcpy(head + size, buf, take);
	if (size + take < 8 || !memcmp(head, RECORDING_MAGIC, 8))
		return n;
	*stop = true;
	return take;
}

/* f_type of a file system held in memory (linux/magic.h). */
#define REC_TMPFS_MAGIC	0x01021994
#define REC_RAMFS_MAGIC	0x858458f6

/* Where a stream is kept: @dir, which $TMPDIR named if @from_env. */
struct rec_spill {
	const char *dir;
	bool from_env;
};

static struct rec_spill rec_spill_dir(void)
{
	const char *dir = getenv("TMPDIR");

	if (dir && *dir)
		return (struct rec_spill){ .dir = dir, .from_env = true };
	return (struct rec_spill){ .dir = "/var/tmp", .from_env = false };
}

/* Whether open()'s @err says that the file system has no O_TMPFILE. */
static bool rec_no_tmpfile(int err)
{
	return err == EOPNOTSUPP || err == EISDIR || err == EINVAL;
}

/*
 * Whether @err says that the directory cannot hold a file at all (not
 * that it has no room): then /var/tmp, not a $TMPDIR given, leaves the
 * stream to memory.
 */
static bool rec_dir_unusable(int err)
{
	return err == ENOENT || err == ENOTDIR || err == EACCES ||
	       err == EPERM || err == EROFS || err == ENAMETOOLONG;
}

/*
 * An unlinked file in @sp's directory, read and write, or -1 and errno.
 * O_TMPFILE where the file system has it: never a name anyone could
 * open; else a name of mkostemp()'s, removed at once.
 */
static int rec_spill_open(const struct rec_spill *sp)
{
	char path[PATH_MAX];
	int fd;

	fd = open(sp->dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0 || !rec_no_tmpfile(errno))
		return fd;
	if (snprintf(path, sizeof(path), "%s/ispot-report-XXXXXX",
		     sp->dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* Whether the file at @fd is in memory anyway: a tmpfs, a ramfs. */
static bool rec_spill_in_memory(int fd)
{
	struct statfs fs;

	if (fstatfs(fd, &fs))
		return false;
	return (unsigned long)fs.f_type == REC_TMPFS_MAGIC ||
	       (unsigned long)fs.f_type == REC_RAMFS_MAGIC;
}

/*
 * All of @buf[0..@len) to @fd, counted into *@kept as it goes: 0, or -1
 * and errno (0 for a write that took nothing).
 */
static int rec_spill_write(int fd, const unsigned char *buf, size_t len,
			   size_t *kept)
{
	ssize_t n;

	while (len) {
		errno = 0;
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
		*kept += (size_t)n;
	}
	return 0;
}

/* One line: the stream could not be kept in @dir (@err, 0: no room). */
static void rec_spill_failed(const struct recording_file *rf,
			     const char *dir, int err)
{
	if (err == EFBIG)
		ispot_error("%s: cannot keep the stream in %s after %zu "
			    "bytes: it is larger than the file size limit "
			    "(ulimit -f); raise the limit", rf->path, dir,
			    rf->size);
	else
		ispot_error("%s: cannot keep the stream in %s after %zu "
			    "bytes (%s): set TMPDIR to a directory with room, "
			    "or write the recording to a file and report "
			    "that", rf->path, dir, rf->size,
			    err ? strerror(err) : "no room");
}

/*
 * The stream at @fd into @spill, then mapped: 0, or -1 after one line.
 * A stream that stops early is a file cut short, and read as one.
 */
static int rec_read_spilled(struct recording_file *rf, int fd, int spill,
			    const char *dir)
{
	unsigned char head[8], *buf = malloc(REC_PIPE_STEP);
	bool stop = false;
	size_t keep;
	ssize_t n;

	if (!buf) {
		ispot_error("%s: out of memory: write the recording to a "
			    "file and report that", rf->path);
		return -1;
	}
	while (!stop && (n = rec_pipe_read(rf, fd, buf, REC_PIPE_STEP)) > 0) {
		keep = rec_pipe_keep(head, rf->size, buf, (size_t)n, &stop);
		if (rec_spill_write(spill, buf, keep, &rf->size)) {
			rec_spill_failed(rf, dir, errno);
			n = -1;
			break;
		}
	}
	free(buf);
	if (n < 0) {
		rf->size = 0;
		return -1;
	}
	if (!rf->size)
		return 0;
	rf->map = mmap(NULL, rf->size, PROT_READ, MAP_PRIVATE, spill, 0);
	if (rf->map == MAP_FAILED) {
		rf->map = NULL;
		rf->size = 0;
		ispot_error("%s: cannot map the stream kept in %s (%s): "
			    "write the recording to a file and report that",
			    rf->path, dir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Grow @rf's anonymous map to @cap bytes (it holds rf->size), as a
 * mapped file's pages would be: 0, or -1 after one line.
 */
static int rec_pipe_room(struct recording_file *rf, size_t *cap)
{
	size_t want = *cap ? *cap * 2 : REC_PIPE_STEP;
	void *p;

	if (want < *cap)
		p = MAP_FAILED;
	else if (!rf->map)
		p = mmap(NULL, want, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else
		p = mremap(rf->map, *cap, want, MREMAP_MAYMOVE);
	if (p == MAP_FAILED) {
		ispot_error("%s: out of memory after %zu bytes: write the "
			    "recording to a file and report that", rf->path,
			    rf->size);
		return -1;
	}
	rf->map = p;
	*cap = want;
	return 0;
}

/* The stream at @fd into anonymous memory: 0, or -1 after one line. */
static int rec_read_in_memory(struct recording_file *rf, int fd)
{
	unsigned char head[8];
	bool stop = false;
	size_t cap = 0;
	ssize_t n;

	while (!stop) {
		if (rf->size == cap && rec_pipe_room(rf, &cap))
			goto fail;
		n = rec_pipe_read(rf, fd, rf->map + rf->size, cap - rf->size);
		if (n < 0)
			goto fail;
		if (!n)
			break;
		rf->size += rec_pipe_keep(head, rf->size, rf->map + rf->size,
					  (size_t)n, &stop);
	}
	/* Only what was read stays mapped: recording_close() unmaps that. */
	if (!rf->size) {
		munmap(rf->map, cap);
		rf->map = NULL;
	} else {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		size_t used = (rf->size + page - 1) / page * page;

		if (used < cap)
			munmap(rf->map + used, cap - used);
	}
	return 0;
fail:
	if (rf->map)
		munmap(rf->map, cap);
	rf->map = NULL;
	rf->size = 0;
	return -1;
}

int rec_read_pipe(int fd, struct recording_file *rf)
{
	struct rec_spill sp = rec_spill_dir();
	int spill, ret;

	rf->piped = true;
	spill = rec_spill_open(&sp);
	/* A $TMPDIR given is used or said; only /var/tmp's lack is quiet. */
	if (spill < 0 && (sp.from_env || !rec_dir_unusable(errno))) {
		ispot_error("%s: cannot keep the stream in %s (%s): set TMPDIR "
			    "to a writable directory with room, or write the "
			    "recording to a file and report that", rf->path,
			    sp.dir, strerror(errno));
		return -1;
	}
	/* A tmpfs /var/tmp would hold it in memory, with less room. */
	if (spill >= 0 && !sp.from_env && rec_spill_in_memory(spill)) {
		close(spill);
		spill = -1;
	}
	if (spill < 0)
		return rec_read_in_memory(rf, fd);
	/* Past `ulimit -f`: EFBIG, said in one line, not a kill unsaid. */
	sig_catch_default(SIGXFSZ);
	ret = rec_read_spilled(rf, fd, spill, sp.dir);
	close(spill);
	return ret;
}
