// SPDX-License-Identifier: GPL-2.0
/*
 * ispotd's readiness protocol, natively: the real user/ispotd binary,
 * started with $NOTIFY_SOCKET pointing at a socket of this test, says
 * READY=1 once it is watching (the host has no module: it waits for one,
 * which is a state a service manager must see as ready), RELOADING=1 and
 * READY=1 around a SIGHUP, STOPPING=1 at SIGTERM, and exits 0.  Also
 * notify_send() itself: abstract and path sockets, and no socket at all.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "../ispot_test.h"
#include "notify.h"

/* A datagram socket bound to @name ('@' = abstract); its address length. */
static int listen_at(const char *name, struct sockaddr_un *sa)
{
	size_t len = strlen(name);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, name, len);
	if (name[0] == '@')
		sa->sun_path[0] = '\0';
	else
		unlink(name);
	if (fd < 0 || bind(fd, (struct sockaddr *)sa,
			   offsetof(struct sockaddr_un, sun_path) + len +
			   (name[0] != '@')))
		return -1;
	return fd;
}

/* The next datagram within @ms, NUL-terminated into @buf; false if none. */
static bool next_message(int fd, char *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, ms) != 1)
		return false;
	n = recv(fd, buf, len - 1, 0);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

TEST(notify_send_abstract_and_path)
{
	char name[64], buf[256];
	struct sockaddr_un sa;
	int fd;

	snprintf(name, sizeof(name), "@ispot-notify-test-%d", (int)getpid());
	fd = listen_at(name, &sa);
	ASSERT_TRUE(fd >= 0);
	setenv("NOTIFY_SOCKET", name, 1);
	EXPECT_EQ(notify_send("READY=1"), 1);
	ASSERT_TRUE(next_message(fd, buf, sizeof(buf), 1000));
	EXPECT_STREQ(buf, "READY=1");
	close(fd);

	snprintf(name, sizeof(name), "/tmp/ispot-notify-test-%d",
		 (int)getpid());
	fd = listen_at(name, &sa);
	ASSERT_TRUE(fd >= 0);
	setenv("NOTIFY_SOCKET", name, 1);
	EXPECT_EQ(notify_send("STOPPING=1"), 1);
	ASSERT_TRUE(next_message(fd, buf, sizeof(buf), 1000));
	EXPECT_STREQ(buf, "STOPPING=1");
	close(fd);
	unlink(name);

	/* No manager: nothing to do, and no error (as sd_notify). */
	unsetenv("NOTIFY_SOCKET");
	EXPECT_EQ(notify_send("READY=1"), 0);
	/* A relative path is not a socket address systemd would give. */
	setenv("NOTIFY_SOCKET", "relative", 1);
	EXPECT_EQ(notify_send("READY=1"), -EINVAL);
}

TEST(ispotd_ready_reload_stopping)
{
	const char *bin = getenv("ISPOTD") ? getenv("ISPOTD") : "user/ispotd";
	char name[64], conf[64], buf[256];
	struct sockaddr_un sa;
	int fd, status;
	FILE *f;
	pid_t pid;

	if (access(bin, X_OK)) {
		printf("# %s not built\n", bin);
		ASSERT_TRUE(0);
	}
	snprintf(name, sizeof(name), "@ispot-notify-ispotd-%d", (int)getpid());
	snprintf(conf, sizeof(conf), "/tmp/ispot-notify-%d.conf",
		 (int)getpid());
	f = fopen(conf, "w");
	ASSERT_TRUE(f);
	fprintf(f, "exe /nonexistent/app\nfunc work\nwindow 1s\n");
	fclose(f);
	fd = listen_at(name, &sa);
	ASSERT_TRUE(fd >= 0);

	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		setenv("NOTIFY_SOCKET", name, 1);
		execl(bin, "ispotd", "--config", conf, "--log", "/dev/null",
		      (char *)NULL);
		_exit(127);
	}
	ASSERT_TRUE(next_message(fd, buf, sizeof(buf), 10000));
	EXPECT_TRUE(!strncmp(buf, "READY=1", 7));
	EXPECT_TRUE(strstr(buf, "STATUS=") != NULL);

	kill(pid, SIGHUP);
	ASSERT_TRUE(next_message(fd, buf, sizeof(buf), 10000));
	EXPECT_STREQ(buf, "RELOADING=1");
	ASSERT_TRUE(next_message(fd, buf, sizeof(buf), 10000));
	EXPECT_STREQ(buf, "READY=1");

	kill(pid, SIGTERM);
	ASSERT_TRUE(next_message(fd, buf, sizeof(buf), 10000));
	EXPECT_STREQ(buf, "STOPPING=1");
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fd);
	unlink(conf);
}

TEST_HARNESS_MAIN
