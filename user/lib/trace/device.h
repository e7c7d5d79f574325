/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening /dev/ispot and the ABI handshake, shared by every subcommand.
 * Errors come back as one line that says what to do.
 */
#ifndef ISPOT_DEVICE_H
#define ISPOT_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ispot.h>
#include <ispot_version.h>

#define ISPOTCTL_VERSION	ISPOT_VERSION
#define ISPOT_DEVICE_PATH	"/dev/" ISPOT_DEVICE_NAME
/* The oldest module minor this ispotctl can drive. */
#define ISPOTCTL_ABI_MINOR_REQUIRED	0

struct ispot_device {
	int fd;
	struct ispot_version version;
};

/*
 * Decide whether a module speaking ABI @kmajor.@kminor can serve a tool
 * built for @umajor that needs at least @uminor.  Returns 0, or -1 with a
 * message in @err.
 */
int ispot_abi_check(uint32_t kmajor, uint32_t kminor, uint32_t umajor,
		    uint32_t uminor, char *err, size_t errlen);

/* A session's per-CPU rings, mapped read-only after SETUP. */
struct ispot_rings {
	void **base;		/* nr of them; NULL where not mapped */
	uint32_t nr;
	uint64_t size;		/* bytes per ring */
};

/*
 * Map the @s->nr_rings rings of the session on @fd; -1 with a message in
 * @err (ispot_rings_unmap() either way).
 */
int ispot_rings_map(int fd, const struct ispot_setup *s,
		    struct ispot_rings *r, char *err, size_t errlen);
void ispot_rings_unmap(struct ispot_rings *r);

/* Open the device and run the handshake; -1 with a message in @err. */
int ispot_device_open(struct ispot_device *dev, char *err, size_t errlen);
void ispot_device_close(struct ispot_device *dev);

#endif /* ISPOT_DEVICE_H */
