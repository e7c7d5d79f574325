/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether ispot.ko is there for ispotd, and what a probed call costs once
 * it is.  ispotd runs without the module (it may be loaded later, or
 * unloaded and reloaded under it): the device is opened without tracing
 * anything at most every MODULE_WATCH_RETRY_NS, each change is said once,
 * and the call cost is measured the first time the module answers
 * (calibrate.h).
 */
#ifndef ISPOT_MODULE_WATCH_H
#define ISPOT_MODULE_WATCH_H

#include <stdbool.h>
#include <stdint.h>

/* How often a missing module is looked for again. */
#define MODULE_WATCH_RETRY_NS	(5 * 1000000000ull)

struct module_watch {
	bool ok;		/* /dev/ispot answered the last time */
	bool lost;		/* it went away after answering */
	bool back;		/* it came back: bursts may retry at once */
	uint64_t next_check;	/* when to look for it again */
	bool calibrated;
	double call_cost_ns;	/* one probed call */
	double session_ns;	/* the daemon's time on a session */
};

/*
 * Whether the module is there at @now (looked for again only when due);
 * @w->back says it returned after being lost, for the caller to clear.
 */
bool module_watch_check(struct module_watch *w, uint64_t now);

/* The device node went away: the module was unloaded. */
void module_watch_lost(struct module_watch *w);

#endif /* ISPOT_MODULE_WATCH_H */
