#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest, for dkms_test.sh and deb_test.sh (busybox sh; through
# dkms_lib.sh's guest_loads): load the DKMS-built module KO, ask the
# installed ispotctl CTL (make install's, by default; the package's is
# /usr/bin/ispotctl) what it sees, trace a sample with it, and unload.
# Prints "key: value" lines for the host to check.
#
#   sh selftests/host/dkms_guest.sh KO [CTL]
ko=${1:?usage: dkms_guest.sh KO [CTL]}
ctl=${2:-/usr/local/bin/ispotctl}
tmp=$(mktemp -d)

# run.sh --no-module: this is the only ispot module the guest sees.
grep -q '^ispot ' /proc/modules && { echo "preloaded: yes"; exit 1; }
insmod "$ko" || { echo "insmod: failed"; exit 1; }
echo "srcversion: $(cat /sys/module/ispot/srcversion)"
echo "version: $(cat /sys/module/ispot/version)"
"$ctl" status --json >"$tmp/status" 2>&1
echo "status_exit: $?"
echo "status: $(cat "$tmp/status")"
"$ctl" run --func acquire --json -o "$tmp/run" -- samples/lock_contention \
	--threads 2 --iterations 200 --delay-us 10 --hold-us 10 >/dev/null 2>&1
echo "run_exit: $?"
echo "run_calls: $(tr ',' '\n' <"$tmp/run" | sed -n 's/.*"calls": *//p' | head -n1)"
rmmod ispot
echo "rmmod_exit: $?"
