#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: install, build, boot the VM with ispot.ko loaded, and trace the
# lock-contention sample under `ispotctl run`: two threads that hold one
# shared mutex half of the time (the lock is fought over), the same with
# ten times more work outside the lock (it mostly is not), and the control
# that gives each thread its own mutex.  Then the spinlock sample with perf
# counters: spinning is on-CPU time, so the counters show it as CPU time per
# call beyond the fastest calls' (the guest has no PMU, so the hardware
# event is reported unsupported).  Last, work that varies by itself with
# no other thread: a high SCI, and an INTERF of 0 with a note saying why.
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
done
echo
echo "\$ ispotctl run --func spin_acquire --counters cpu-clock,page-faults,cycles -- samples/spinlock --threads 2 --iterations 1000"
ispotctl run --func spin_acquire --counters cpu-clock,page-faults,cycles -- \
	samples/spinlock --threads 2 --iterations 1000 |
	grep -v "^[a-z_]*: 2 threads" || exit 1
echo
echo "\$ ispotctl run --func varied_work -- samples/varied_work --threads 1 --iterations 300"
ispotctl run --func varied_work -- samples/varied_work --threads 1 \
	--iterations 300 | grep -v "^varied_work: 1 threads"'
