/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the writer: what recording_write.c (the file, its events) and
 * recording_tables.c (the sections but the events) share.  Every field
 * is little-endian and of fixed width; a string is a u32 length and that
 * many bytes (Documentation/recording.rst).
 */
#ifndef ISPOT_RECORDING_WRITE_H
#define ISPOT_RECORDING_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "recording/recording.h"
#include "recording/recording_addrs.h"
#include "elf/elf.h"
#include "util/afile.h"

/* A growable byte buffer, written little-endian. */
struct rec_buf {
	unsigned char *p;
	size_t len, cap;
	bool nomem;
};

void buf_put(struct rec_buf *b, const void *data, size_t len);
void buf_uint(struct rec_buf *b, uint64_t v, unsigned int bytes);
void buf_str(struct rec_buf *b, const char *s);

/*
 * A function: name, linkage name, object, the object's build-id (hex, or
 * empty), link-time address, file offset, size, flags; as FUNCS and
 * PROFILE hold it.
 */
void buf_sym(struct rec_buf *b, const struct elf_target_sym *sym);

#define buf_u8(b, v)	buf_uint(b, v, 1)
#define buf_u16(b, v)	buf_uint(b, v, 2)
#define buf_u32(b, v)	buf_uint(b, v, 4)
#define buf_u64(b, v)	buf_uint(b, v, 8)

/*
 * Where the recording goes (recording_dest.c): @path through a temporary
 * file, or standard output for "-".  SIGXFSZ, and SIGPIPE for standard
 * output or a path written in place (a FIFO), if at their default, are
 * caught for the rest of the process (the write then fails and is said)
 * and reset at an exec.  0, or -1 after one line.
 */
int rec_dest_open(struct afile *out, const char *path);
/* What messages call @path's destination. */
const char *rec_dest_name(const char *path);
/* What to do about a failed write's @err: @otherwise but for EPIPE. */
const char *rec_dest_advice(int err, const char *otherwise);
/*
 * @iov's @n pieces written whole to @out's descriptor, through signals
 * (but EINTR once *@give_up is set) and a non-blocking descriptor (@iov
 * is used up): 0 or an errno.
 */
int rec_dest_writev(const struct afile *out, struct iovec *iov, int n,
		    const volatile sig_atomic_t *give_up);

/* How an address is named at the end: as itself, or as a return address. */
#define NAME_AS_IS	1
#define NAME_RETURN	2

/*
 * What the tables are written from: the session's summary and tables,
 * the addresses to name (NAME_* bits), the command line, and @img, the
 * struct recording_file the reader will make of them (rec_image()).
 */
struct rec_tables {
	const struct session_summary *s;
	const struct session_tables *tb;
	const struct rec_addrs *names;
	char *const *argv;
	int argc;
	struct recording_file *img;
};

/*
 * @w->img's META and STATS fields, as the reader will read them back:
 * the session's summary, and where the events stopped (--max-size).
 */
void rec_image(const struct rec_tables *w, bool full, uint64_t max_size,
	       uint64_t last_ts, uint64_t records);

/*
 * The table section of @type (META to STATS, START, PROFILE, THREADS,
 * UNLOADED) into @b.
 */
void rec_put_table(struct rec_buf *b, uint32_t type,
		   const struct rec_tables *w);

/* PROFILE: @w->tb->picked (recording_profile.c). */
void rec_put_profile(struct rec_buf *b, const struct rec_tables *w);
/* UNLOADED (6.1): which of PROFILE's picks are of unloaded libraries. */
void rec_put_unloaded(struct rec_buf *b, const struct rec_tables *w);
/* How many picks PROFILE holds of @a (or NULL) are marked: 0, no section. */
size_t rec_unloaded_picks(const struct autopick *a);

/* NAMES, format 6's packed layout: @w->names named (recording_names.c). */
void rec_put_names(struct rec_buf *b, const struct rec_tables *w);

#endif /* ISPOT_RECORDING_WRITE_H */
