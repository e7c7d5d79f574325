// SPDX-License-Identifier: GPL-2.0
/* Opening /dev/ispot and the ABI handshake; see device.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/device.h"

int ispot_abi_check(uint32_t kmajor, uint32_t kminor, uint32_t umajor,
		    uint32_t uminor, char *err, size_t errlen)
{
	if (kmajor != umajor) {
		snprintf(err, errlen,
			 "module ABI %u.%u is incompatible with this ispotctl (ABI %u.x): "
			 "build and load ispot.ko and ispotctl from the same tree",
			 kmajor, kminor, umajor);
		return -1;
	}
	if (kminor < uminor) {
		snprintf(err, errlen,
			 "module ABI %u.%u is older than the %u.%u this ispotctl needs: "
			 "load the ispot.ko built with it",
			 kmajor, kminor, umajor, uminor);
		return -1;
	}
	return 0;
}

/*
 * ISPOT_TEST_ABI=MAJOR.MINOR makes this ispotctl claim another ABI, so the
 * selftests can check the mismatch path against a real module.
 */
static void ispot_own_abi(uint32_t *major, uint32_t *minor)
{
	const char *o = getenv("ISPOT_TEST_ABI");

	*major = ISPOT_ABI_MAJOR;
	*minor = ISPOTCTL_ABI_MINOR_REQUIRED;
	if (o && sscanf(o, "%u.%u", major, minor) != 2) {
		*major = ISPOT_ABI_MAJOR;
		*minor = ISPOTCTL_ABI_MINOR_REQUIRED;
	}
}

int ispot_device_open(struct ispot_device *dev, char *err, size_t errlen)
{
	uint32_t major, minor;

	memset(dev, 0, sizeof(*dev));
	dev->fd = open(ISPOT_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		if (errno == ENOENT)
			snprintf(err, errlen,
				 "%s not found: load the module first "
				 "(modprobe ispot, or insmod kmod/ispot.ko "
				 "in the source tree)", ISPOT_DEVICE_PATH);
		else if (errno == EPERM || errno == EACCES)
			snprintf(err, errlen,
				 "no permission to open %s: run as root or "
				 "with CAP_PERFMON", ISPOT_DEVICE_PATH);
		else if (errno == EBUSY)
			snprintf(err, errlen,
				 "too many ispot sessions open: close one, or "
				 "raise the module's max_sessions parameter");
		else
			snprintf(err, errlen, "cannot open %s: %s",
				 ISPOT_DEVICE_PATH, strerror(errno));
		return -1;
	}
	if (ioctl(dev->fd, ISPOT_IOC_GET_VERSION, &dev->version) < 0) {
		snprintf(err, errlen,
			 "%s does not answer the version handshake (%s): "
			 "is it ispot.ko?", ISPOT_DEVICE_PATH, strerror(errno));
		ispot_device_close(dev);
		return -1;
	}
	ispot_own_abi(&major, &minor);
	if (ispot_abi_check(dev->version.abi_major, dev->version.abi_minor,
			    major, minor, err, errlen)) {
		ispot_device_close(dev);
		return -1;
	}
	return 0;
}

void ispot_device_close(struct ispot_device *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	dev->fd = -1;
}

int ispot_rings_map(int fd, const struct ispot_setup *s,
		    struct ispot_rings *r, char *err, size_t errlen)
{
	uint32_t i;

	memset(r, 0, sizeof(*r));
	r->base = calloc(s->nr_rings, sizeof(*r->base));
	if (!r->base) {
		snprintf(err, errlen, "out of memory mapping the rings");
		return -1;
	}
	r->nr = s->nr_rings;
	r->size = s->ring_mmap_size;
	for (i = 0; i < r->nr; i++) {
		void *m = mmap(NULL, r->size, PROT_READ, MAP_SHARED, fd,
			       (off_t)i * r->size);

		if (m == MAP_FAILED) {
			snprintf(err, errlen, "cannot map ring %u (%s): check "
				 "RLIMIT_MEMLOCK and dmesg", i,
				 strerror(errno));
			return -1;
		}
		r->base[i] = m;
	}
	return 0;
}

void ispot_rings_unmap(struct ispot_rings *r)
{
	uint32_t i;

	for (i = 0; r->base && i < r->nr; i++)
		if (r->base[i])
			munmap(r->base[i], r->size);
	free(r->base);
	memset(r, 0, sizeof(*r));
}
