// SPDX-License-Identifier: GPL-2.0
/*
 * The live view's terminal (term.h) on a real pseudo-terminal: taking it
 * over (alternate screen, hidden cursor, no echo, keys without Enter),
 * the size it reports and a resize, a frame drawn in place, and the
 * terminal given back exactly as found by term_close(), by an error line
 * and by exit(); a pipe is refused.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "ispot_test.h"
#include "util/errors.h"
#include "top/term.h"

struct pty {
	int master, slave;
};

static void pty_open(struct pty *p, int cols, int rows)
{
	struct winsize ws = { .ws_row = rows, .ws_col = cols };

	p->master = posix_openpt(O_RDWR | O_NOCTTY);
	ASSERT_GE(p->master, 0);
	ASSERT_EQ(grantpt(p->master), 0);
	ASSERT_EQ(unlockpt(p->master), 0);
	p->slave = open(ptsname(p->master), O_RDWR | O_NOCTTY);
	ASSERT_GE(p->slave, 0);
	ASSERT_EQ(ioctl(p->slave, TIOCSWINSZ, &ws), 0);
	fcntl(p->master, F_SETFL, O_NONBLOCK);
}

static void pty_close(struct pty *p)
{
	close(p->master);
	close(p->slave);
}

/* What the program wrote to the terminal so far. */
static const char *screen_bytes(struct pty *p)
{
	static char buf[65536];
	size_t n = 0;
	ssize_t r;

	usleep(10000);
	while (n + 1 < sizeof(buf) &&
	       (r = read(p->master, buf + n, sizeof(buf) - n - 1)) > 0)
		n += r;
	buf[n] = '\0';
	return buf;
}

TEST(takes_over_and_gives_back)
{
	struct termios before, during, after;
	struct pty p;
	struct term t;
	const char *out;

	pty_open(&p, 100, 30);
	ASSERT_EQ(tcgetattr(p.slave, &before), 0);
	ASSERT_TRUE(before.c_lflag & ECHO);
	ASSERT_EQ(term_open(&t, p.slave, p.slave), 0);
	EXPECT_TRUE(t.keys);
	EXPECT_EQ(t.width, 100);
	EXPECT_EQ(t.height, 30);
	out = screen_bytes(&p);
	EXPECT_TRUE(strstr(out, "\033[?1049h") != NULL);
	EXPECT_TRUE(strstr(out, "\033[?25l") != NULL);
	ASSERT_EQ(tcgetattr(p.slave, &during), 0);
	EXPECT_FALSE(during.c_lflag & ECHO);
	EXPECT_FALSE(during.c_lflag & ICANON);
	EXPECT_TRUE(during.c_lflag & ISIG);
	term_close(&t);
	out = screen_bytes(&p);
	EXPECT_TRUE(strstr(out, "\033[?1049l") != NULL);
	EXPECT_TRUE(strstr(out, "\033[?25h") != NULL);
	ASSERT_EQ(tcgetattr(p.slave, &after), 0);
	EXPECT_EQ(after.c_lflag, before.c_lflag);
	EXPECT_EQ(memcmp(after.c_cc, before.c_cc, sizeof(after.c_cc)), 0);
	/* Twice is once. */
	term_close(&t);
	EXPECT_STREQ(screen_bytes(&p), "");
	pty_close(&p);
}

TEST(keys_without_enter)
{
	struct pty p;
	struct term t;
	char keys[16];

	pty_open(&p, 80, 24);
	ASSERT_EQ(term_open(&t, p.slave, p.slave), 0);
	EXPECT_EQ(term_keys(&t, keys, sizeof(keys)), 0);
	ASSERT_EQ(write(p.master, "sp", 2), 2);
	usleep(10000);
	ASSERT_EQ(term_keys(&t, keys, sizeof(keys)), 2);
	EXPECT_EQ(keys[0], 's');
	EXPECT_EQ(keys[1], 'p');
	/* Not echoed back. */
	EXPECT_TRUE(strchr(screen_bytes(&p), 's') == NULL);
	term_close(&t);
	pty_close(&p);
}

TEST(resize_is_seen)
{
	struct winsize ws = { .ws_row = 20, .ws_col = 80 };
	struct pty p;
	struct term t;

	pty_open(&p, 120, 30);
	ASSERT_EQ(term_open(&t, p.slave, p.slave), 0);
	EXPECT_FALSE(term_update_size(&t));
	ASSERT_EQ(ioctl(p.master, TIOCSWINSZ, &ws), 0);
	EXPECT_TRUE(term_update_size(&t));
	EXPECT_EQ(t.width, 80);
	EXPECT_EQ(t.height, 20);
	term_close(&t);
	pty_close(&p);
}

TEST(frame_drawn_in_place)
{
	struct rates_view v = { 0 };
	struct topview_head h = { .target = "x (pid 1)", .window_ns = 5e9 };
	struct topview_frame f = { 0 };
	struct pty p;
	struct term t;
	const char *out;

	pty_open(&p, 60, 10);
	ASSERT_EQ(term_open(&t, p.slave, p.slave), 0);
	screen_bytes(&p);
	ASSERT_EQ(topview_render(&f, t.width, t.height, &h, &v), 0);
	ASSERT_EQ(term_draw(&t, &f), 0);
	out = screen_bytes(&p);
	/* From the top left, each line erased to its end, the rest below. */
	EXPECT_EQ(strncmp(out, "\033[Hispotctl top: x (pid 1)", 26), 0);
	EXPECT_TRUE(strstr(out, "\033[7m INTERF") != NULL);
	EXPECT_EQ(strcmp(out + strlen(out) - 3, "\033[J"), 0);
	/* No newline after the last line. */
	EXPECT_TRUE(strstr(out, "yet\033[K\033[J") != NULL);
	topview_free(&f);
	term_close(&t);
	pty_close(&p);
}

/* An error line comes after the terminal is given back, not on the view. */
TEST(error_line_restores_first)
{
	struct pty p;
	struct term t;
	int saved = dup(2);

	pty_open(&p, 80, 24);
	ASSERT_EQ(term_open(&t, p.slave, p.slave), 0);
	screen_bytes(&p);
	dup2(p.slave, 2);
	ispot_progname = "test";
	ispot_error("it broke");
	dup2(saved, 2);
	close(saved);
	EXPECT_STREQ(screen_bytes(&p),
		     "\033[0m\033[?25h\033[?1049ltest: it broke\r\n");
	EXPECT_FALSE(t.screen);
	pty_close(&p);
}

/* exit() without term_close(): the terminal still comes back. */
TEST(exit_restores)
{
	struct termios after;
	struct pty p;
	pid_t pid;
	int status;

	pty_open(&p, 80, 24);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct term t;

		if (term_open(&t, p.slave, p.slave))
			_exit(2);
		exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_TRUE(strstr(screen_bytes(&p), "\033[?1049l") != NULL);
	ASSERT_EQ(tcgetattr(p.slave, &after), 0);
	EXPECT_TRUE(after.c_lflag & ECHO);
	pty_close(&p);
}

TEST(pipe_refused)
{
	struct term t;
	int fds[2];

	ASSERT_EQ(pipe(fds), 0);
	EXPECT_EQ(term_open(&t, fds[0], fds[1]), -1);
	EXPECT_FALSE(t.screen);
	close(fds[0]);
	close(fds[1]);
}

TEST_HARNESS_MAIN
