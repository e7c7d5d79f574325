#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: install, build, boot the VM with ispot.ko loaded, and trace the
# lock-contention sample under `ispotctl run`: first with no work between
# lock acquisitions (the lock is fought over), then with 200 us of work per
# iteration (it mostly is not), and the contention-free control.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
make -s all
exec selftests/vm/run.sh -- sh -c '
for args in "lock_contention --delay-us 0" "lock_contention --delay-us 200" \
	    "no_contention --delay-us 0"; do
	echo
	echo "\$ ispotctl run --func acquire -- samples/$args --threads 2 --iterations 3000"
	ispotctl run --func acquire -- samples/$args --threads 2 \
		--iterations 3000 || exit 1
done'
