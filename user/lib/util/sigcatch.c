// SPDX-License-Identifier: GPL-2.0
/* Signals a write can raise, caught; see sigcatch.h. */
#include <signal.h>
#include <stddef.h>

#include "util/sigcatch.h"

/* Nothing to do: the write that raised it fails, and the error is said. */
static void sig_caught(int sig)
{
	(void)sig;
}

void sig_catch_default(int sig)
{
	struct sigaction now, catch = { .sa_handler = sig_caught,
					.sa_flags = SA_RESTART };

	if (sigaction(sig, NULL, &now) || now.sa_handler != SIG_DFL)
		return;
	sigemptyset(&catch.sa_mask);
	sigaction(sig, &catch, NULL);
}
