// SPDX-License-Identifier: GPL-2.0
/*
 * The status line (progress.h) on a real pseudo-terminal and on a pipe:
 * drawn on the terminal's bottom row below a scrolling region at most
 * four times a second, with the elapsed time, the event rate and the
 * drops; moved on a resize; erased, with the region given back, when it
 * stops and before an error line; on a terminal of unknown size (a serial
 * console) and on a pipe, not one byte.
 */
#include <fcntl.h>
#include <termios.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ispot_test.h"
#include "util/errors.h"
#include "trace/progress.h"

#define MS	1000000ull

/* Everything readable on @fd now, appended to @buf. */
static size_t drain_fd(int fd, char *buf, size_t len)
{
	size_t n = strlen(buf);
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - n - 1)) > 0)
		n += r;
	buf[n] = '\0';
	return n;
}

/* A pty pair of @rows rows (0: size unknown): @master reads what is
 * written to @slave. */
static void open_pty(int *master, int *slave, int rows)
{
	struct winsize ws = { .ws_row = rows, .ws_col = 80 };
	struct termios t;

	*master = posix_openpt(O_RDWR | O_NOCTTY);
	ASSERT_GE(*master, 0);
	ASSERT_EQ(grantpt(*master), 0);
	ASSERT_EQ(unlockpt(*master), 0);
	*slave = open(ptsname(*master), O_RDWR | O_NOCTTY);
	ASSERT_GE(*slave, 0);
	if (rows)
		ASSERT_EQ(ioctl(*slave, TIOCSWINSZ, &ws), 0);
	/* Raw: what is written arrives as written (no \n -> \r\n). */
	ASSERT_EQ(tcgetattr(*slave, &t), 0);
	cfmakeraw(&t);
	ASSERT_EQ(tcsetattr(*slave, TCSANOW, &t), 0);
	fcntl(*master, F_SETFL, O_NONBLOCK);
}

/* What was written since the last call. */
static const char *written(int master)
{
	static char out[4096];

	out[0] = '\0';
	drain_fd(master, out, sizeof(out));
	return out;
}

TEST(format)
{
	char buf[128];

	progress_format(buf, sizeof(buf), 12345 * MS, 45123, 0);
	EXPECT_STREQ(buf, "[ispot] 12.3s  45.1k events/s  0 dropped");
	progress_format(buf, sizeof(buf), 100 * MS, 812, 1500);
	EXPECT_STREQ(buf, "[ispot] 0.1s  812 events/s  1.50k dropped");
}

/*
 * The bottom row of a 24-row terminal, below a scrolling region of 23,
 * so the traced command's output never tears it.
 */
TEST(terminal_bottom_row)
{
	struct winsize ws = { .ws_row = 30, .ws_col = 80 };
	struct progress p;
	int m, s;

	open_pty(&m, &s, 24);
	progress_start(&p, s, 1000 * MS);
	ASSERT_TRUE(p.on);
	EXPECT_STREQ(written(m), "");
	progress_update(&p, 1500 * MS, 500, 0);
	EXPECT_STREQ(written(m),
		     "\n\0337\033[1;23r\0338\033[1A"
		     "\0337\033[24;1H[ispot] 0.5s  1.00k events/s  0 dropped"
		     "\033[K\0338");
	/* Within a period: nothing new. */
	progress_update(&p, 1600 * MS, 600, 0);
	EXPECT_STREQ(written(m), "");
	/* After a second: the rate of that second alone. */
	progress_update(&p, 2000 * MS, 1000, 3);
	EXPECT_STREQ(written(m),
		     "\0337\033[24;1H[ispot] 1.0s  1.00k events/s  3 dropped"
		     "\033[K\0338");
	progress_update(&p, 3000 * MS, 1100, 3);
	EXPECT_TRUE(strstr(written(m), "[ispot] 2.0s  100 events/s  3 "
			   "dropped") != NULL);
	/* An error erases the line and gives the rows back first. */
	ispot_progname = "test";
	ispot_error("boom");
	EXPECT_STREQ(written(m), "\0337\033[r\033[24;1H\033[K\0338");
	/* A resize: erased where it was, drawn at the new bottom. */
	progress_update(&p, 4000 * MS, 1200, 3);
	written(m);
	ASSERT_EQ(ioctl(m, TIOCSWINSZ, &ws), 0);
	progress_update(&p, 5000 * MS, 1300, 3);
	EXPECT_STREQ(written(m),
		     "\0337\033[r\033[24;1H\033[K\0338"
		     "\n\0337\033[1;29r\0338\033[1A"
		     "\0337\033[30;1H[ispot] 4.0s  100 events/s  3 dropped"
		     "\033[K\0338");
	/* Stopping erases it, once, and unhooks. */
	progress_stop(&p);
	EXPECT_STREQ(written(m), "\0337\033[r\033[30;1H\033[K\0338");
	progress_update(&p, 6000 * MS, 1400, 3);
	progress_stop(&p);
	EXPECT_STREQ(written(m), "");
	close(m);
	close(s);
}

/* A terminal of unknown size (a serial console): no line at all. */
TEST(terminal_without_size_gets_nothing)
{
	struct progress p;
	int m, s;

	open_pty(&m, &s, 0);
	progress_start(&p, s, 0);
	EXPECT_FALSE(p.on);
	progress_update(&p, 1000 * MS, 100, 0);
	progress_stop(&p);
	EXPECT_STREQ(written(m), "");
	close(m);
	close(s);
}

TEST(pipe_gets_nothing)
{
	struct progress p;
	char out[256] = "";
	int fds[2];

	ASSERT_EQ(pipe(fds), 0);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	progress_start(&p, fds[1], 0);
	EXPECT_FALSE(p.on);
	progress_update(&p, 1000 * MS, 100, 1);
	progress_update(&p, 2000 * MS, 200, 1);
	progress_stop(&p);
	EXPECT_EQ(drain_fd(fds[0], out, sizeof(out)), 0);
	close(fds[0]);
	close(fds[1]);
}

TEST_HARNESS_MAIN
