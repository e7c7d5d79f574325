#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the kernel build directory to build ispot.ko against: the running
# kernel's if it has one, else the newest one installed.
d=/lib/modules/$(uname -r)/build
if [ -d "$d" ]; then
	echo "$d"
	exit 0
fi
ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1
