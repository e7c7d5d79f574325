// SPDX-License-Identifier: GPL-2.0
/*
 * The status line (progress.h) on a real pseudo-terminal and on a pipe:
 * drawn in place on the terminal at most four times a second with the
 * elapsed time, the event rate and the drops, erased when it stops and
 * before an error line; on a pipe, not one byte.
 */
#include <fcntl.h>
#include <termios.h>
#include <stdint.h>
#include <unistd.h>

#include "ispot_test.h"
#include "errors.h"
#include "progress.h"

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

/* A pty pair: @master reads what is written to @slave. */
static void open_pty(int *master, int *slave)
{
	*master = posix_openpt(O_RDWR | O_NOCTTY);
	ASSERT_GE(*master, 0);
	ASSERT_EQ(grantpt(*master), 0);
	ASSERT_EQ(unlockpt(*master), 0);
	*slave = open(ptsname(*master), O_RDWR | O_NOCTTY);
	ASSERT_GE(*slave, 0);
	/* Raw: what is written arrives as written (no \n -> \r\n). */
	{
		struct termios t;

		ASSERT_EQ(tcgetattr(*slave, &t), 0);
		cfmakeraw(&t);
		ASSERT_EQ(tcsetattr(*slave, TCSANOW, &t), 0);
	}
	fcntl(*master, F_SETFL, O_NONBLOCK);
}

TEST(format)
{
	char buf[128];

	progress_format(buf, sizeof(buf), 12345 * MS, 45123, 0);
	EXPECT_STREQ(buf, "[ispot] 12.3s  45.1k events/s  0 dropped");
	progress_format(buf, sizeof(buf), 100 * MS, 812, 1500);
	EXPECT_STREQ(buf, "[ispot] 0.1s  812 events/s  1.50k dropped");
}

TEST(terminal_gets_the_line_in_place)
{
	struct progress p;
	char out[4096] = "";
	int m, s;

	open_pty(&m, &s);
	progress_start(&p, s, 1000 * MS);
	ASSERT_TRUE(p.on);
	progress_update(&p, 1500 * MS, 500, 0);
	drain_fd(m, out, sizeof(out));
	EXPECT_STREQ(out, "\r[ispot] 0.5s  1.00k events/s  0 dropped\033[K");
	/* Within a period: nothing new. */
	out[0] = '\0';
	progress_update(&p, 1600 * MS, 600, 0);
	EXPECT_EQ(drain_fd(m, out, sizeof(out)), 0);
	/* After a second: the rate of that second alone. */
	progress_update(&p, 2000 * MS, 1000, 3);
	progress_update(&p, 3000 * MS, 1100, 3);
	drain_fd(m, out, sizeof(out));
	EXPECT_TRUE(strstr(out, "\r[ispot] 1.0s  1.00k events/s  3 dropped") !=
		    NULL);
	EXPECT_TRUE(strstr(out, "\r[ispot] 2.0s  100 events/s  3 dropped") !=
		    NULL);
	/* An error erases the line first. */
	out[0] = '\0';
	ispot_progname = "test";
	ispot_error("boom");
	drain_fd(m, out, sizeof(out));
	EXPECT_STREQ(out, "\r\033[K");
	/* Stopping erases it, once, and unhooks. */
	progress_update(&p, 4000 * MS, 1200, 3);
	drain_fd(m, out, sizeof(out));
	out[0] = '\0';
	progress_stop(&p);
	drain_fd(m, out, sizeof(out));
	EXPECT_STREQ(out, "\r\033[K");
	out[0] = '\0';
	progress_update(&p, 5000 * MS, 1300, 3);
	progress_stop(&p);
	EXPECT_EQ(drain_fd(m, out, sizeof(out)), 0);
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
