// SPDX-License-Identifier: GPL-2.0
/* ispotctl status: is the module there, does it speak our ABI, how busy. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>

#include "commands.h"
#include "trace/device.h"
#include "cli/events.h"
#include "cli/opttab.h"
#include "util/format.h"
#include "util/json.h"

/* What the module could count, asked with ISPOT_COUNTERS_TRY (ABI 1.3). */
struct status_counters {
	bool known;			/* false: the module is older */
	size_t n;
	struct event_spec ev[ISPOT_MAX_COUNTERS];
	bool supported[ISPOT_MAX_COUNTERS];
};

static void status_counters(const struct ispot_device *dev,
			    struct status_counters *sc)
{
	struct ispot_counters c = { .flags = ISPOT_COUNTERS_TRY };
	char err[256];
	size_t i;

	memset(sc, 0, sizeof(*sc));
	if (dev->version.abi_minor < 3)
		return;
	for (i = 0; events_status_probe[i]; i++)
		if (events_parse(events_status_probe[i], sc->ev, &sc->n,
				 ISPOT_MAX_COUNTERS, err, sizeof(err)))
			return;
	for (i = 0; i < sc->n; i++) {
		c.spec[i].type = sc->ev[i].type;
		c.spec[i].config = sc->ev[i].config;
	}
	c.nr = sc->n;
	if (ioctl(dev->fd, ISPOT_IOC_COUNTERS, &c) < 0)
		return;
	sc->known = true;
	for (i = 0; i < sc->n; i++)
		sc->supported[i] = !c.spec[i].result;
}

/* "supported", "unsupported", or "unknown" for a pre-1.3 module. */
static const char *status_kind(const struct status_counters *sc, int hw)
{
	bool any = false, all = true;
	size_t i;

	if (!sc->known)
		return "unknown";
	for (i = 0; i < sc->n; i++) {
		if (event_is_hardware(&sc->ev[i]) != hw)
			continue;
		any |= sc->supported[i];
		all &= sc->supported[i];
	}
	return all ? "supported" : any ? "partly supported" : "unsupported";
}

/*
 * The futex calls whose waits this kernel can have: futex_waitv came in
 * 5.16 and futex_wait (futex2) in 6.7, so an older kernel has no such
 * waits to record, and says so rather than leaving the reader to guess.
 */
static const char *status_futex_calls(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return "futex (others unknown)";
	if (major > 6 || (major == 6 && minor >= 7))
		return "futex, futex_waitv, futex_wait";
	if (major == 6 || (major == 5 && minor >= 16))
		return "futex, futex_waitv (no futex_wait before 6.7)";
	return "futex (no futex_waitv before 5.16, no futex_wait before 6.7)";
}

/* Which wait tracepoint groups are registered (ABI 1.4). */
static const char *status_tracepoints(uint32_t flags)
{
	const uint32_t both = ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS;

	/* Only these two are tracepoint groups (ISPOT_SETUP_FLAGS has more). */
	if ((flags & both) == both)
		return "tasks,waits";
	if (flags & ISPOT_SETUP_WAITS)
		return "waits";
	if (flags & ISPOT_SETUP_TASKS)
		return "tasks";
	return "none";
}

static void status_json(const struct ispot_device *dev,
			const struct ispot_info *info,
			const struct status_counters *sc)
{
	size_t i;

	char abi[32];
	struct json j;

	json_init(&j, stdout);
	json_object_begin(&j, NULL);
	json_string(&j, "ispot_version", ISPOTCTL_VERSION);
	json_string(&j, "module_version", dev->version.module_version);
	snprintf(abi, sizeof(abi), "%u.%u", dev->version.abi_major,
		 dev->version.abi_minor);
	json_string(&j, "module_abi", abi);
	snprintf(abi, sizeof(abi), "%d.%d", ISPOT_ABI_MAJOR, ISPOT_ABI_MINOR);
	json_string(&j, "ispotctl_abi", abi);
	json_u64(&j, "sessions", info->sessions);
	json_u64(&j, "max_sessions", info->max_sessions);
	json_u64(&j, "max_probes", info->max_probes);
	json_u64(&j, "rings", info->nr_cpus);
	json_u64(&j, "ring_bytes", info->ring_bytes);
	json_u64(&j, "ring_bytes_max", info->ring_bytes_max);
	json_u64(&j, "dropped", info->dropped);
	if (dev->version.abi_minor >= 4)
		json_string(&j, "wait_tracepoints",
			    status_tracepoints(info->tracepoints));
	json_string(&j, "futex_calls", status_futex_calls());
	json_string(&j, "hardware_counters", status_kind(sc, 1));
	json_string(&j, "software_counters", status_kind(sc, 0));
	json_object_begin(&j, "counters");
	for (i = 0; sc->known && i < sc->n; i++)
		json_string(&j, sc->ev[i].name, sc->supported[i] ?
			    "supported" : "unsupported");
	json_object_end(&j);
	json_object_end(&j);
	json_finish(&j);
}

static void status_text(const struct ispot_device *dev,
			const struct ispot_info *info,
			const struct status_counters *sc)
{
	char used[32], max[32];
	int hw;
	size_t i;

	format_bytes(used, sizeof(used), info->ring_bytes);
	format_bytes(max, sizeof(max), info->ring_bytes_max);
	printf("%-10s ispot.ko %s, ABI %u.%u (ispotctl %s, ABI %d.%d)\n",
	       "module", dev->version.module_version, dev->version.abi_major,
	       dev->version.abi_minor, ISPOTCTL_VERSION, ISPOT_ABI_MAJOR,
	       ISPOT_ABI_MINOR);
	printf("%-10s %s\n", "device", ISPOT_DEVICE_PATH);
	printf("%-10s %u open, this one included (max %u)\n", "sessions",
	       info->sessions, info->max_sessions);
	printf("%-10s %u per session, one per CPU; %s in use of %s\n",
	       "rings", info->nr_cpus, used, max);
	printf("%-10s %llu records since load\n", "dropped",
	       (unsigned long long)info->dropped);
	if (dev->version.abi_minor >= 4)
		printf("%-10s %s\n", "waits", info->tracepoints ?
		       "tracepoint probes registered (every system call on "
		       "the host takes the slow path while they are)" :
		       "no tracepoint probe registered");
	printf("%-10s %s\n", "futex", status_futex_calls());
	if (!sc->known) {
		printf("%-10s unknown: ispot.ko ABI %u.%u predates counters "
		       "(1.3)\n", "counters", dev->version.abi_major,
		       dev->version.abi_minor);
		return;
	}
	for (hw = 1; hw >= 0; hw--) {
		const char *kind = status_kind(sc, hw);
		bool first = true, partly = kind[0] == 'p';

		printf("%-10s %s counters: %s", hw ? "counters" : "",
		       hw ? "hardware" : "software", kind);
		for (i = 0; i < sc->n; i++) {
			if (event_is_hardware(&sc->ev[i]) != hw)
				continue;
			printf("%s%s%s", first ? " (" : ", ", sc->ev[i].name,
			       partly && !sc->supported[i] ? ": no" : "");
			first = false;
		}
		printf("%s\n", first ? "" : ")");
	}
}

#define USAGE_STATUS "usage: ispotctl status [--json]"

static const struct opt_cmd_info status_info = {
	OPT_STATUS, "status", USAGE_STATUS,
	"Says whether ispot.ko is loaded, its ABI, its sessions and rings,\n"
	"and which perf counters this machine has.",
	"With --json, the same as one JSON object.", USAGE_STATUS,
};

static int status_store(void *ctx, const struct opt_val *v, char *err,
			size_t len)
{
	(void)err;
	(void)len;
	if (v->def->id == OPT_JSON)
		*(bool *)ctx = true;
	return 0;
}

int cmd_status(int argc, char **argv)
{
	const struct opt_src src = { .cmd = &status_info };
	struct status_counters sc;
	struct ispot_info info;
	struct ispot_device dev;
	bool json = false;
	char err[256];
	int next, ret;

	ret = opt_parse_argv(&status_info, argc, argv, status_store, &json,
			     &next);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	if (next < argc) {
		opt_error(&src, "status takes no arguments");
		return EXIT_USAGE;
	}

	if (ispot_device_open(&dev, err, sizeof(err))) {
		ispot_error("%s", err);
		return EXIT_RUNTIME;
	}
	memset(&info, 0, sizeof(info));
	if (ioctl(dev.fd, ISPOT_IOC_INFO, &info) < 0) {
		ispot_error("the module refused ISPOT_IOC_INFO: reload ispot.ko");
		ispot_device_close(&dev);
		return EXIT_RUNTIME;
	}
	status_counters(&dev, &sc);
	if (json)
		status_json(&dev, &info, &sc);
	else
		status_text(&dev, &info, &sc);
	ispot_device_close(&dev);
	return EXIT_OK;
}
