// SPDX-License-Identifier: GPL-2.0
/*
 * I/O contention (the paper's Listing 3): every thread reads its own part of
 * one file, block after block, through a descriptor of its own opened
 * with O_DIRECT, so each read_block() is a request to the disk and not a
 * copy from the page cache.  The threads' requests queue behind each
 * other at the disk; the shorter --delay-us, the longer the queue.
 *
 * Without --file, a --size MiB file is created on /mnt if a filesystem is
 * mounted there (the VM runner's --disk), else in the current directory.
 * It is unlinked as soon as every thread has it open, so nothing is left
 * behind, even after a kill.  O_DIRECT needs a disk-backed filesystem:
 * ramfs, and tmpfs on older kernels (6.1's, for one), refuse it, and the
 * sample then exits 2 and says so.  (A newer tmpfs accepts O_DIRECT but
 * reads from memory: no disk, no contention.)
 *
 *   ispotctl run --func read_block -- samples/io_contention --threads 4
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sample.h"

/* Enough for the logical block size of any disk O_DIRECT will meet. */
#define IO_ALIGN	4096

static long size_mib = 16, block_size = 4096;
static const char *file;
static const struct sample_opt extra[] = {
	{ .name = "file", .arg = "PATH", .str = &file,
	  .help = "read this file, on a disk-backed filesystem, instead of "
		  "creating one" },
	{ .name = "size", .arg = "MIB", .num = &size_mib, .min = 1,
	  .max = 1 << 20,
	  .help = "size of the file created without --file (default 16)" },
	{ .name = "block-size", .arg = "BYTES", .num = &block_size,
	  .min = 512, .max = 1 << 24,
	  .help = "bytes per read, a multiple of 512 (default 4096)" },
	{ },
};
static struct sample_opts opts = { .threads = 2, .delay_us = 0,
				   .iterations = 2000, .no_hold = true,
				   .extra = extra };

struct reader {
	int fd;
	off_t first;		/* block this thread starts reading at */
	int err;		/* errno of the read that stopped it */
};

static struct reader *readers;
static off_t nr_blocks;
static const char *path;

/* The block ISPOT measures: one O_DIRECT read, one trip to the disk. */
__attribute__((noinline)) ssize_t read_block(int fd, void *buf, size_t len,
					     off_t off)
{
	return pread(fd, buf, len, off);
}

static void *worker(void *arg)
{
	struct reader *r = &readers[(long)arg];
	off_t blk = r->first;
	void *buf;
	long i;

	r->err = posix_memalign(&buf, IO_ALIGN, block_size);
	if (r->err)
		return NULL;
	for (i = 0; i < opts.iterations; i++) {
		ssize_t n;

		compute(opts.delay_us);
		n = read_block(r->fd, buf, block_size, blk * block_size);
		if (n != block_size) {
			r->err = n < 0 ? errno : EIO;
			break;
		}
		if (++blk == nr_blocks)
			blk = 0;
	}
	free(buf);
	return NULL;
}

/*
 * The one error a user is expected to hit: a file on tmpfs or ramfs,
 * refused at open, or a block size the device refuses at the read.
 */
static void __attribute__((noreturn)) io_no_direct(bool at_open)
{
	if (at_open)
		fprintf(stderr, "io_contention: %s: its filesystem does not "
			"support O_DIRECT (tmpfs?); use a file on a "
			"disk-backed filesystem with --file PATH\n", path);
	else
		fprintf(stderr, "io_contention: %s: O_DIRECT read of %ld "
			"bytes refused; use a file on a disk-backed "
			"filesystem with --file PATH, or another "
			"--block-size\n", path, block_size);
	exit(2);
}

static void __attribute__((noreturn)) io_fail(const char *what, int err)
{
	fprintf(stderr, "io_contention: %s %s: %s\n", what, path,
		strerror(err));
	exit(1);
}

/* A mount point has another device than its parent, here "/". */
static bool io_mnt_is_mounted(void)
{
	struct stat root, mnt;

	return !stat("/", &root) && !stat("/mnt", &mnt) &&
	       S_ISDIR(mnt.st_mode) && root.st_dev != mnt.st_dev;
}

/* Written, not truncated: a hole would be read without touching the disk. */
static void io_create_file(char *tmpl, size_t len)
{
	size_t chunk = 1 << 20;
	char *buf = malloc(chunk);
	long i;
	int fd;

	snprintf(tmpl, len, "%s/io_contention.XXXXXX",
		 io_mnt_is_mounted() ? "/mnt" : ".");
	path = tmpl;
	if (!buf)
		io_fail("allocating a buffer to write", ENOMEM);
	fd = mkstemp(tmpl);
	if (fd < 0)
		io_fail("creating", errno);
	memset(buf, 0xa5, chunk);
	for (i = 0; i < size_mib; i++) {
		errno = 0;
		if (write(fd, buf, chunk) != (ssize_t)chunk) {
			int err = errno ? errno : ENOSPC;

			unlink(tmpl);
			io_fail("writing", err);
		}
	}
	/* O_DIRECT reads would otherwise wait for the writeback first. */
	if (fsync(fd)) {
		int err = errno;

		unlink(tmpl);
		io_fail("syncing", err);
	}
	close(fd);
	free(buf);
}

int main(int argc, char **argv)
{
	char tmpl[64];
	struct stat st;
	int err = 0, i;
	void *buf;

	sample_parse(argc, argv, &opts);
	if (block_size % 512) {
		fprintf(stderr, "%s: --block-size must be a multiple of 512\n",
			argv[0]);
		return 2;
	}
	if (file)
		path = file;
	else
		io_create_file(tmpl, sizeof(tmpl));

	readers = calloc(opts.threads, sizeof(*readers));
	if (!readers)
		io_fail("allocating readers for", ENOMEM);
	for (i = 0; i < opts.threads && !err; i++) {
		readers[i].fd = open(path, O_RDONLY | O_DIRECT);
		if (readers[i].fd < 0)
			err = errno;
	}
	if (!file)
		unlink(path);
	if (err == EINVAL)
		io_no_direct(true);
	if (err)
		io_fail("opening", err);

	if (fstat(readers[0].fd, &st))
		io_fail("reading the size of", errno);
	nr_blocks = st.st_size / block_size;
	if (!nr_blocks) {
		fprintf(stderr, "io_contention: %s is smaller than one block "
			"(%ld bytes); use a larger --file\n", path, block_size);
		return 2;
	}
	/*
	 * Some filesystems accept O_DIRECT at open and refuse the read: find
	 * out before the threads start, and outside read_block(), so that
	 * the calls ISPOT counts are exactly threads × iterations.
	 */
	if (posix_memalign(&buf, IO_ALIGN, block_size))
		io_fail("allocating a buffer for", ENOMEM);
	errno = 0;
	if (pread(readers[0].fd, buf, block_size, 0) != block_size) {
		if (errno == EINVAL)
			io_no_direct(false);
		io_fail("reading", errno ? errno : EIO);
	}
	free(buf);

	for (i = 0; i < opts.threads; i++)
		readers[i].first = nr_blocks * i / opts.threads;
	sample_run_threads(&opts, worker);
	for (i = 0; i < opts.threads; i++) {
		if (readers[i].err == EINVAL)
			io_no_direct(false);
		if (readers[i].err)
			io_fail("reading", readers[i].err);
		close(readers[i].fd);
	}
	printf("io_contention: %d threads x %ld reads of %ld bytes, "
	       "delay %ld us, from %s%s\n", opts.threads, opts.iterations,
	       block_size, opts.delay_us, path, file ? "" : " (removed)");
	return opts.exit_status;
}
