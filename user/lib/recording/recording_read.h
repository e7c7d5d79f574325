/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the reader: what recording_read.c (the file, its tables, format
 * 1's events), recording_pipe.c (a stream kept whole) and
 * recording_chunks.c (format 2's sections and events) share.
 */
#ifndef ISPOT_RECORDING_READ_H
#define ISPOT_RECORDING_READ_H

#include "recording/recording.h"
#include "recording/recording_codec.h"

/* A bounded view of a section: a read past its end marks it bad. */
struct rec_cur {
	const unsigned char *p;
	uint64_t left;
	bool bad;
};

/* An unsigned integer of @bytes, little-endian (0 once bad). */
uint64_t cur_uint(struct rec_cur *c, unsigned int bytes);

#define cur_u8(c)	((uint8_t)cur_uint(c, 1))
#define cur_u16(c)	((uint16_t)cur_uint(c, 2))
#define cur_u32(c)	((uint32_t)cur_uint(c, 4))
#define cur_u64(c)	cur_uint(c, 8)

/* A string into @buf, which it must fit with its NUL. */
void cur_str(struct rec_cur *c, char *buf, size_t len);
/* The same, of @n bytes whose length was read already (no NUL in them). */
void cur_str_of(struct rec_cur *c, uint64_t n, char *buf, size_t len);

/* A string of any length the section holds, malloc'd; NULL if bad. */
char *cur_strdup(struct rec_cur *c);
/* The same, of at most @max bytes: refused before it is copied. */
char *cur_strdup_max(struct rec_cur *c, uint32_t max);

/* A count of items of at least @item bytes each, at most @max. */
uint32_t cur_count(struct rec_cur *c, uint32_t max, uint64_t item);

/*
 * A table of @size-byte entries, of a count at most @max whose items take
 * at least @item bytes of the section: *@n and the entries (zeroed, one
 * spare), or NULL with the view marked bad.
 */
void *cur_table(struct rec_cur *c, uint32_t max, uint64_t item,
		size_t size, uint32_t *n);

/* A function as buf_sym() (recording_write.h) wrote it. */
void cur_sym(struct rec_cur *c, struct elf_target_sym *sym);

/* --auto's profile (recording_profile.c): into rf->picked. */
void rec_get_profile(struct rec_cur *c, struct recording_file *rf);
/* UNLOADED (6.1): marks rf->picked's picks, read before it. */
void rec_get_unloaded(struct rec_cur *c, struct recording_file *rf);
void rec_profile_free(struct recording_file *rf);

/* NAMES, of the file's format (recording_names.c): into rf->names. */
void rec_get_names(struct rec_cur *c, struct recording_file *rf);

/*
 * A recording read from a pipe (or a socket, a device) at @fd, kept whole
 * and mapped as a file is (recording_pipe.c): 0, or -1 after one line.
 */
int rec_read_pipe(int fd, struct recording_file *rf);

/* One line, "the recording is damaged"; -1. */
int rec_bad(const struct recording_file *rf, const char *what);

/* Decode a table section of @type; each must come exactly once. */
int rec_table(struct recording_file *rf, uint32_t type,
	      const unsigned char *p, uint64_t len, unsigned int *seen);

/* Keep an EVENTS section, to be read by recording_next(). */
int rec_add_events(struct recording_file *rf, const unsigned char *p,
		   uint64_t len);

/* Whether events are left: the cursor moved past the sections read. */
bool rec_events_left(const struct recording_file *rf,
		     struct recording_cursor *cur);

/* A frame check's answer, kept in the cursor (@ev: an INPUT_FRAME). */
int rec_take_frame(const struct recording_file *rf,
		   struct recording_cursor *cur,
		   const struct session_input *ev);

/*
 * Format 2's sections after the header: the tables decoded, the sound
 * chunks kept, the damaged ones counted; *@end once its END is read.
 * The offset reached, or -1 after one line.
 */
int64_t rec2_sections(struct recording_file *rf, unsigned int *seen,
		      bool *end);

/*
 * A file without END, whose sections were read to @off (@seen): 0 if it
 * is a 2.1 file cut short after its first tables, to be reported (rf->cut
 * and what it lacks set), or -1 after one line.
 */
int rec2_cut(struct recording_file *rf, uint64_t off, unsigned int seen);

/* The one line saying a file was cut short, and what it lacks. */
void rec2_note_cut(const struct recording_file *rf);

/* Format 2's next event (recording_next()). */
int rec2_next(const struct recording_file *rf, struct recording_cursor *cur,
	      struct session_input *ev);

#endif /* ISPOT_RECORDING_READ_H */
