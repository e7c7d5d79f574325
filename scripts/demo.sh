#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: install, build, boot the VM with ispot.ko loaded, and trace the
# lock-contention sample under `ispotctl run`: two threads that hold one
# shared mutex half of the time (the lock is fought over), the same with
# ten times more work outside the lock (it mostly is not), and the control
# that gives each thread its own mutex.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
make -s all
exec selftests/vm/run.sh -- sh -c '
for args in "lock_contention --delay-us 100" "lock_contention --delay-us 1000" \
	    "no_contention --delay-us 100"; do
	echo
	echo "\$ ispotctl run --func acquire -- samples/$args --hold-us 100 --threads 2 --iterations 1000"
	ispotctl run --func acquire -- samples/$args --hold-us 100 \
		--threads 2 --iterations 1000 | grep -v "^[a-z_]*: 2 threads" ||
		exit 1
done'
