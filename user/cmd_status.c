// SPDX-License-Identifier: GPL-2.0
/* ispotctl status: is the module there, does it speak our ABI, how busy. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "commands.h"
#include "device.h"
#include "format.h"
#include "json.h"

static void status_json(const struct ispot_device *dev,
			const struct ispot_info *info)
{
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
	json_object_end(&j);
	json_finish(&j);
}

static void status_text(const struct ispot_device *dev,
			const struct ispot_info *info)
{
	char used[32], max[32];

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
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ispot_info info;
	struct ispot_device dev;
	bool json = false;
	char err[256];
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			printf("usage: ispotctl status [--json]\n");
			return EXIT_OK;
		default:
			ispot_error("usage: ispotctl status [--json]");
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		ispot_error("status takes no arguments; usage: ispotctl status [--json]");
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
	if (json)
		status_json(&dev, &info);
	else
		status_text(&dev, &info);
	ispot_device_close(&dev);
	return EXIT_OK;
}
