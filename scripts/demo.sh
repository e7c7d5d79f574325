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
#
# Last, four threads fighting for the lock are recorded (ispotctl record)
# in the guest; the recording comes back to the host (run.sh --fetch),
# where ispotctl report reads it with no module and no target and writes
# .build/demo/demo.html (the table, pictures, stacks and notes in one
# page), demo.pftrace (for ui.perfetto.dev) and svg/; the page is opened
# when a desktop is there to show it (xdg-open, or $BROWSER).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
make -s all
out=$PWD/.build/demo
rm -rf "$out"
mkdir -p "$out"
selftests/vm/run.sh --disk 64 --fetch "/mnt/demo.isr:$out/demo.isr" -- sh -c '
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
	--iterations 300 | grep -v "^varied_work: 1 threads" || exit 1
echo
echo "\$ ispotctl record -o demo.isr --func acquire --sync -- samples/lock_contention --delay-us 100 --hold-us 100 --threads 4 --iterations 500"
ispotctl record -o /mnt/demo.isr --func acquire --sync -- \
	samples/lock_contention --delay-us 100 --hold-us 100 --threads 4 \
	--iterations 500 >/dev/null'
echo
echo "\$ ispotctl report .build/demo/demo.isr --html .build/demo/demo.html --perfetto .build/demo/demo.pftrace --svg .build/demo/svg   # on the host: no module, no target"
user/ispotctl report "$out/demo.isr" --html "$out/demo.html" \
	--perfetto "$out/demo.pftrace" --svg "$out/svg" --top 3
echo
echo "HTML report: $out/demo.html"
echo "Perfetto trace: $out/demo.pftrace (open it at https://ui.perfetto.dev)"
if [ -n "${BROWSER:-}" ]; then
	"$BROWSER" "$out/demo.html" >/dev/null 2>&1 &
elif [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && command -v xdg-open >/dev/null; then
	xdg-open "$out/demo.html" >/dev/null 2>&1 &
fi
