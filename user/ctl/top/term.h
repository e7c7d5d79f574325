/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The terminal of a live view, by hand (no curses: libc only): the
 * alternate screen, a hidden cursor, keys read one by one without echo,
 * and the size.  Whatever happens (a key, a signal, an error line through
 * ispot_error_hook(), exit()) the terminal is given back as it was found:
 * term_close() is idempotent, and only writes and calls tcsetattr(), so a
 * program may call it from anywhere.  Ctrl-C still sends SIGINT (ISIG is
 * left on), so the program decides what an interrupt does.
 */
#ifndef ISPOT_TERM_H
#define ISPOT_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

#include "top/topview.h"

struct term {
	int in, out;
	bool keys;		/* @in is a terminal: keys can be read */
	bool raw;		/* @in's modes changed, to restore */
	bool screen;		/* on the alternate screen */
	struct termios saved;
	int width, height;
};

/*
 * Take over @out, which must be a terminal (-1 otherwise, nothing done),
 * and read keys from @in if it is one too.  Returns 0 or -1.
 */
int term_open(struct term *t, int in, int out);
/* Back to the modes and screen found at term_open(). */
void term_close(struct term *t);
/* Read the size again (after SIGWINCH); true if it changed. */
bool term_update_size(struct term *t);
/* Draw @f over the whole screen, its column titles highlighted. */
int term_draw(struct term *t, const struct topview_frame *f);
/*
 * The keys typed since the last call, at most @len; 0 if none.  A key
 * that sends an escape sequence (arrows, function keys) comes as its
 * bytes, ESC first.
 */
size_t term_keys(struct term *t, char *buf, size_t len);

#endif /* ISPOT_TERM_H */
