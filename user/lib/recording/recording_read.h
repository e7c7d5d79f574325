/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the reader: what recording_read.c (the file, its tables, format
 * 1's events) and recording_chunks.c (format 2's sections and events)
 * share.
 */
#ifndef ISPOT_RECORDING_READ_H
#define ISPOT_RECORDING_READ_H

#include "recording/recording.h"
#include "recording/recording_codec.h"

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
