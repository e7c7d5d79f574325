// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "calibrate.h"
#include "module_watch.h"
#include "trace/device.h"
#include "util/errors.h"

/*
 * The cost of one probed call when it cannot be measured (a module that
 * cannot trace ispotd itself): high on purpose, so the budget errs on
 * the cheap side.  Emulated guests measure ~30 us, hardware ~2-5 us.
 */
#define MODULE_WATCH_FALLBACK_COST_NS	50000.0

static void module_watch_calibrate(struct module_watch *w)
{
	char err[256];

	if (calibrate_call_cost(&w->call_cost_ns, &w->session_ns, err,
				sizeof(err))) {
		ispot_say("cannot measure what a probed call costs (%s); "
			  "assuming %.0f us", err,
			  MODULE_WATCH_FALLBACK_COST_NS / 1000);
		w->call_cost_ns = MODULE_WATCH_FALLBACK_COST_NS;
		w->session_ns = 0;
	} else {
		ispot_say("a probed call costs %.2f us on this host",
			  w->call_cost_ns / 1000);
	}
	w->calibrated = true;
}

bool module_watch_check(struct module_watch *w, uint64_t now)
{
	struct ispot_device dev;
	char err[256];

	if (w->ok || now < w->next_check)
		return w->ok;
	w->next_check = now + MODULE_WATCH_RETRY_NS;
	if (ispot_device_open(&dev, err, sizeof(err))) {
		static char said[256];

		if (strcmp(said, err)) {
			ispot_say("%s; retrying every %llus", err,
				  MODULE_WATCH_RETRY_NS / 1000000000ull);
			snprintf(said, sizeof(said), "%s", err);
		}
		return false;
	}
	ispot_device_close(&dev);
	w->ok = true;
	if (w->lost) {
		ispot_say("ispot.ko is back: tracing again");
		w->lost = false;
		w->back = true;
	}
	if (!w->calibrated)
		module_watch_calibrate(w);
	return true;
}

void module_watch_lost(struct module_watch *w)
{
	w->ok = false;
	w->lost = true;
}
