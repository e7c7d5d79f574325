// SPDX-License-Identifier: GPL-2.0
/*
 * ispot.ko: timestamps the entries and exits of chosen user functions of a
 * traced process, and optionally its threads' context switches, futex
 * waits, creations and exits, into per-CPU rings, for ispotctl to compute
 * how much time each function loses to interference from other threads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "ispot_internal.h"

unsigned int ispot_max_sessions = 64;
module_param_named(max_sessions, ispot_max_sessions, uint, 0644);
MODULE_PARM_DESC(max_sessions, "Open /dev/ispot sessions allowed at once");

unsigned int ispot_max_probes = 1024;
module_param_named(max_probes, ispot_max_probes, uint, 0644);
MODULE_PARM_DESC(max_probes, "Probes allowed per session");

unsigned int ispot_max_buffer_mib = 256;
module_param_named(max_buffer_mib, ispot_max_buffer_mib, uint, 0644);
MODULE_PARM_DESC(max_buffer_mib, "Ring memory allowed across sessions, MiB");

bool ispot_keep_tracepoints;
/*
 * Fixed at load: a later write could not register at load any more, and
 * would only change whether the next stop unregisters (waits.c).
 */
module_param_named(keep_tracepoints, ispot_keep_tracepoints, bool, 0444);
MODULE_PARM_DESC(keep_tracepoints,
		 "Register wait tracepoint probes at load and keep them until unload (for hypervisors that mishandle kernel text patching)");

static int __init ispot_init(void)
{
	int err;

	ispot_waits_init();
	ispot_waits_keep_all();
	err = ispot_dev_register();
	if (err) {
		pr_err("cannot register /dev/%s: %d\n", ISPOT_DEVICE_NAME, err);
		ispot_waits_exit();
		return err;
	}
	ispot_bench_init();
	return 0;
}

static void __exit ispot_exit(void)
{
	ispot_bench_exit();
	ispot_dev_unregister();
	ispot_waits_exit();
}

module_init(ispot_init);
module_exit(ispot_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Interference spotter: uprobe timestamps into per-CPU rings");
MODULE_VERSION(ISPOT_MODULE_VERSION);
