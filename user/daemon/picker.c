// SPDX-License-Identifier: GPL-2.0
/* ispotd --auto's profile in a thread of its own; see picker.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
#include "picker.h"

void picker_init(struct picker *p)
{
	memset(p, 0, sizeof(*p));
	p->fds[0] = p->fds[1] = -1;
}

static void *picker_main(void *arg)
{
	struct picker *p = arg;
	uint64_t c0 = budget_thread_cpu_ns();
	char done = 1;

	p->ret = autopick_sample(p->pid, p->duration_ns, p->top, NULL, NULL,
				 &p->result, p->err, sizeof(p->err));
	p->thread_cpu_ns = budget_thread_cpu_ns() - c0;
	/* The pipe's buffer holds the one byte: this never blocks. */
	if (write(p->fds[1], &done, 1) != 1)
		p->ret = p->ret ? p->ret : -EIO;
	return NULL;
}

int picker_start(struct picker *p, pid_t pid, uint64_t duration_ns,
		 uint32_t top)
{
	int err;

	picker_release(p);
	if (pipe2(p->fds, O_CLOEXEC | O_NONBLOCK))
		return -1;
	p->pid = pid;
	p->duration_ns = duration_ns;
	p->top = top;
	p->ret = 0;
	p->err[0] = '\0';
	/* Signals stay with the loop: the thread inherits their mask. */
	err = pthread_create(&p->thread, NULL, picker_main, p);
	if (err) {
		close(p->fds[0]);
		close(p->fds[1]);
		p->fds[0] = p->fds[1] = -1;
		errno = err;
		return -1;
	}
	p->running = true;
	return 0;
}

int picker_fd(const struct picker *p)
{
	return p->running ? p->fds[0] : -1;
}

bool picker_done(const struct picker *p)
{
	struct pollfd pfd = { .fd = p->fds[0], .events = POLLIN };

	return p->running && poll(&pfd, 1, 0) == 1;
}

void picker_join(struct picker *p)
{
	if (!p->running)
		return;
	pthread_join(p->thread, NULL);
	close(p->fds[0]);
	close(p->fds[1]);
	p->fds[0] = p->fds[1] = -1;
	p->running = false;
}

void picker_release(struct picker *p)
{
	picker_join(p);
	autopick_free(&p->result);
	memset(&p->result, 0, sizeof(p->result));
}
