// SPDX-License-Identifier: GPL-2.0
/*
 * Where a recording goes (recording_write.h): a file, written under a
 * temporary name and renamed when whole (util/afile.h), or standard
 * output for `-o -`, a stream another program reads as it comes (a
 * compressor, ssh, `ispotctl report -`).  And the signals its writes can
 * raise, which would otherwise kill the session before its report.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "recording/recording_write.h"
#include "util/errors.h"
#include "util/sigcatch.h"

/* What messages call standard output as the recording's destination. */
#define REC_STDOUT_NAME	"standard output"

/* `-o -` (record's options refuse it on a terminal). */
static int rec_dest_stdout(struct afile *out)
{
	int ret = afile_take_stdout(out, REC_STDOUT_NAME);

	if (ret) {
		ispot_error("cannot write the recording to standard output "
			    "(%s): give -o a file", strerror(-ret));
		return -1;
	}
	return 0;
}

/* @path through a temporary file, or in place (a FIFO, a device). */
static int rec_dest_file(struct afile *out, const char *path)
{
	struct stat st;
	int ret;

	/* Renamed onto at the end: refuse now what would refuse it then. */
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		ispot_error("cannot write %s (a directory): give -o a file "
			    "name", path);
		return -1;
	}
	ret = afile_open(out, path);
	if (ret == -ENOMEM) {
		ispot_error("out of memory starting the recording");
		return -1;
	}
	if (ret) {
		ispot_error("cannot write %s (%s): choose a writable -o path",
			    path, strerror(-ret));
		return -1;
	}
	return 0;
}

/*
 * Past `ulimit -f`, SIGXFSZ would kill the process before the write's
 * EFBIG could keep the chunks written (rec_keep_cut()); a reader of
 * `-o -` (or of a FIFO) that exits raises SIGPIPE, which would lose
 * the session's report: both caught (util/sigcatch.h).
 */
int rec_dest_open(struct afile *out, const char *path)
{
	int ret;

	sig_catch_default(SIGXFSZ);
	if (!strcmp(path, "-"))
		ret = rec_dest_stdout(out);
	else
		ret = rec_dest_file(out, path);
	/* Standard output or a FIFO, written in place: its reader may exit. */
	if (!ret && !out->tmp)
		sig_catch_default(SIGPIPE);
	return ret;
}

const char *rec_dest_name(const char *path)
{
	return strcmp(path, "-") ? path : REC_STDOUT_NAME;
}

const char *rec_dest_advice(int err, const char *otherwise)
{
	if (err == EPIPE)
		return "its reader exited before the end, and read a "
		       "recording cut short: keep it reading to the end, or "
		       "give -o a file";
	if (err == EINTR)
		return "a signal ended a write its reader did not take; "
		       "what it read is a recording cut short";
	return otherwise;
}

/*
 * Whether @fd's short write was cut by a signal: only a blocking pipe,
 * FIFO or device's is.  A file's short write is the disk's (its errno
 * comes next), and a non-blocking one's is a full pipe, waited for in
 * poll().  Asked only then: not two system calls a chunk.
 */
static bool cut_by_signal(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	struct stat st;

	return fl >= 0 && !(fl & O_NONBLOCK) && !fstat(fd, &st) &&
	       !S_ISREG(st.st_mode);
}

/*
 * To the descriptor itself, no buffer between: a chunk goes out whole
 * when it is flushed.  SIGINT, SIGTERM and SIGHUP are caught without
 * SA_RESTART (trace_loop()'s poll() must wake for them), so a write
 * blocked on a slow reader of `-o -` sees EINTR: it is retried, as a
 * signal there may only ask the session to stop, until *@give_up says
 * to give up on a reader that never reads (recording_set_give_up()).  A
 * standard output another program left non-blocking is waited for.
 */
int rec_dest_writev(const struct afile *out, struct iovec *iov, int n,
		    const volatile sig_atomic_t *give_up)
{
	struct pollfd fd = { .fd = fileno(out->f), .events = POLLOUT };

	while (n) {
		ssize_t done = writev(fd.fd, iov, n);

		/* EAGAIN: wait for room, as a blocking write would. */
		if (done < 0 && errno == EAGAIN && poll(&fd, 1, -1) >= 0)
			continue;
		/*
		 * A signal, in writev() or in poll(): go on, unless the user
		 * asked twice (a reader that never reads loses: EINTR).
		 */
		if (done < 0 && errno == EINTR && !(give_up && *give_up))
			continue;
		if (done <= 0)
			return done < 0 ? errno : EIO;
		for (; n && (size_t)done >= iov->iov_len; n--, iov++)
			done -= iov->iov_len;
		if (!n)
			break;
		iov->iov_base = (char *)iov->iov_base + done;
		iov->iov_len -= done;
		/*
		 * Cut short: a signal came after some bytes went.  If it was
		 * the one that gives up, the next writev() would wait for a
		 * signal that never comes.
		 */
		if (give_up && *give_up && cut_by_signal(fd.fd))
			return EINTR;
	}
	return 0;
}
