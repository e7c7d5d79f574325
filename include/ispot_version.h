/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The release version of ISPOT: the one source of truth for the module
 * (MODULE_VERSION, GET_VERSION's module_version), the tools (--version,
 * "ispot_version" in JSON) and packaging (the DKMS tree's name,
 * /usr/src/ispot-VERSION, and its dkms.conf), which the Makefile reads
 * from the line below.  The ABI version is another thing: it lives in
 * include/uapi/linux/ispot.h and follows Documentation/abi.rst.
 */
#ifndef ISPOT_VERSION_H
#define ISPOT_VERSION_H

#define ISPOT_VERSION "0.1.0"

#endif /* ISPOT_VERSION_H */
