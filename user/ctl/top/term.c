// SPDX-License-Identifier: GPL-2.0
/* The terminal of a live view, by hand; see term.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/errors.h"
#include "top/term.h"

/* xterm's alternate screen (saves the cursor too), cursor off, clear. */
#define TERM_ENTER	"\033[?1049h\033[?25l\033[H\033[2J"
#define TERM_LEAVE	"\033[0m\033[?25h\033[?1049l"
#define TERM_HOME	"\033[H"
#define TERM_EOL	"\033[K"
#define TERM_EOS	"\033[J"
#define TERM_REVERSE	"\033[7m"
#define TERM_NORMAL	"\033[0m"

/* For exit() and error lines: the one terminal taken over. */
static struct term *term_active;

static int term_write(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		s += w;
		n -= w;
	}
	return 0;
}

static void term_restore_hook(void *ctx)
{
	term_close(ctx);
}

static void term_at_exit(void)
{
	if (term_active)
		term_close(term_active);
}

void term_close(struct term *t)
{
	if (t->screen)
		term_write(t->out, TERM_LEAVE, sizeof(TERM_LEAVE) - 1);
	t->screen = false;
	if (t->raw)
		tcsetattr(t->in, TCSANOW, &t->saved);
	t->raw = false;
	if (term_active == t) {
		term_active = NULL;
		ispot_error_hook(NULL, NULL);
	}
}

bool term_update_size(struct term *t)
{
	struct winsize ws;
	int w = 80, h = 24;

	if (!ioctl(t->out, TIOCGWINSZ, &ws) && ws.ws_col && ws.ws_row) {
		w = ws.ws_col;
		h = ws.ws_row;
	}
	if (w == t->width && h == t->height)
		return false;
	t->width = w;
	t->height = h;
	return true;
}

int term_open(struct term *t, int in, int out)
{
	static bool hooked;

	memset(t, 0, sizeof(*t));
	t->in = in;
	t->out = out;
	if (!isatty(out))
		return -1;
	t->keys = isatty(in) && !tcgetattr(in, &t->saved);
	if (t->keys) {
		struct termios raw = t->saved;

		/* No line editing, no echo; ^C and ^Z still signal. */
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		if (!tcsetattr(in, TCSANOW, &raw))
			t->raw = true;
	}
	if (!hooked) {
		atexit(term_at_exit);
		hooked = true;
	}
	term_active = t;
	ispot_error_hook(term_restore_hook, t);
	term_update_size(t);
	if (term_write(out, TERM_ENTER, sizeof(TERM_ENTER) - 1)) {
		term_close(t);
		return -1;
	}
	t->screen = true;
	return 0;
}

int term_draw(struct term *t, const struct topview_frame *f)
{
	size_t cap = (size_t)f->nr_lines * (f->width + 24) + 64, n = 0;
	char *buf = malloc(cap);
	int i, ret;

	if (!buf)
		return -ENOMEM;
#define PUT(s, len) do { memcpy(buf + n, (s), (len)); n += (len); } while (0)
#define PUTS(s) PUT(s, sizeof(s) - 1)
	PUTS(TERM_HOME);
	for (i = 0; i < f->nr_lines; i++) {
		const char *l = topview_line(f, i);
		size_t len = strlen(l);

		if (i == f->header_line) {
			/* A bar across the width, like top's. */
			PUTS(TERM_REVERSE);
			PUT(l, len);
			memset(buf + n, ' ', f->width - 1 - len);
			n += f->width - 1 - len;
			PUTS(TERM_NORMAL);
		} else {
			PUT(l, len);
		}
		PUTS(TERM_EOL);
		/* No newline after the last line: it would scroll. */
		if (i + 1 < f->nr_lines)
			PUTS("\r\n");
	}
	PUTS(TERM_EOS);
#undef PUTS
#undef PUT
	ret = term_write(t->out, buf, n);
	free(buf);
	return ret;
}

size_t term_keys(struct term *t, char *buf, size_t len)
{
	ssize_t n;

	if (!t->keys)
		return 0;
	n = read(t->in, buf, len);
	return n > 0 ? (size_t)n : 0;
}
