// SPDX-License-Identifier: GPL-2.0
/* An off-CPU profile session; see offprof.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "trace/offprof.h"

static uint64_t offprof_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int offprof_release(void *ctx, uint32_t cpu, uint64_t tail)
{
	struct offprof *op = ctx;
	struct ispot_ring_consume c = { .cpu = cpu, .tail = tail };

	return ioctl(op->dev.fd, ISPOT_IOC_RING_CONSUME, &c) ? -errno : 0;
}

static void offprof_record(void *ctx, const struct ispot_record *rec)
{
	wallprof_record(ctx, rec);
}

int offprof_start(struct offprof *op, pid_t pid, char *err, size_t errlen)
{
	struct ispot_setup s = {
		.pid = pid, .ring_pages = OFFPROF_RING_PAGES,
		.flags = ISPOT_SETUP_TASKS | ISPOT_SETUP_WAITS |
			 ISPOT_SETUP_OFFCPU,
	};

	memset(op, 0, sizeof(*op));
	wallprof_init(&op->wp);
	op->dev.fd = -1;
	if (ispot_device_open(&op->dev, err, errlen))
		return -1;
	if (op->dev.version.abi_minor < 8) {
		snprintf(err, errlen, "the module (ABI %u.%u) takes no "
			 "off-CPU stacks: load the ispot.ko built with this "
			 "ispotctl", op->dev.version.abi_major,
			 op->dev.version.abi_minor);
		return -1;
	}
	if (ioctl(op->dev.fd, ISPOT_IOC_SETUP, &s)) {
		snprintf(err, errlen, "the module refused an off-CPU profile "
			 "of pid %d (%s)", (int)pid, strerror(errno));
		return -1;
	}
	if (ispot_rings_map(op->dev.fd, &s, &op->rings, err, errlen))
		return -1;
	op->drain = drain_new(op->rings.base, op->rings.nr, offprof_release,
			      op);
	if (!op->drain) {
		snprintf(err, errlen, "out of memory setting up the drain");
		return -1;
	}
	if (ioctl(op->dev.fd, ISPOT_IOC_ENABLE, NULL)) {
		snprintf(err, errlen, "the module could not start an "
			 "off-CPU profile of pid %d (%s)", (int)pid,
			 strerror(errno));
		return -1;
	}
	op->enabled = true;
	return 0;
}

void offprof_round(void *ctx)
{
	struct offprof *op = ctx;
	uint64_t now = offprof_now();

	if (op->drain && now > DRAIN_SLACK_NS)
		drain_round(op->drain, now - DRAIN_SLACK_NS, offprof_record,
			    &op->wp);
}

void offprof_stop(struct offprof *op)
{
	if (op->enabled)
		ioctl(op->dev.fd, ISPOT_IOC_DISABLE, NULL);
	op->enabled = false;
	if (op->drain)
		drain_round(op->drain, UINT64_MAX, offprof_record, &op->wp);
	wallprof_finish(&op->wp);
}

uint64_t offprof_dropped(const struct offprof *op)
{
	return op->drain ? drain_dropped(op->drain) : 0;
}

void offprof_free(struct offprof *op)
{
	ispot_rings_unmap(&op->rings);
	drain_free(op->drain);
	wallprof_free(&op->wp);
	if (op->dev.fd >= 0)
		ispot_device_close(&op->dev);
	memset(op, 0, sizeof(*op));
	op->dev.fd = -1;
}
