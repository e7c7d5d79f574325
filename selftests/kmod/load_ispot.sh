#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load the tree's ispot.ko in the guest with the VM runner's module
# parameters (selftests/vm/run.sh --module-params), then any given here.
# Every in-guest load goes through this: busybox's shell runs its own
# insmod applet whatever PATH says, so a wrapper in PATH would be skipped.
exec insmod /ispot/kmod/ispot.ko $(cat /etc/ispot-module-params 2>/dev/null) "$@"
