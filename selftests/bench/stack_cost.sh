#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What a call stack costs a traced call (run in the VM; never pass/fail):
# samples/two_callers traced with --func step at --stack-period 1 (every
# call's stack), 101 (the default) and 1000000000 (the first call's
# only), and untraced, ROUNDS times each in turn; the wall time of each
# run, median per mode.
#
#   stack_cost.sh [ITERATIONS [ROUNDS]]	(4 calls of step() per iteration)
#
# stack_ns_per_call: (period 1 - period 1e9) / calls, what one stack walk
# and record add to a recorded call; record_ns_per_call: (period 1e9 -
# untraced) / calls, a recorded call (entry and exit probes) with
# ispotctl's start-up spread over it, so an upper bound.
app=/ispot/samples/two_callers
iters=${1:-20000}
rounds=${2:-5}
calls=$((4 * iters))
tmp=$(mktemp -d)

# ms since boot (busybox's date has no %N); runs last seconds.
now() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# one MODE: the wall ms of one run, appended to $tmp/MODE.
one() {
	t0=$(now)
	if [ "$1" = none ]; then
		"$app" --iterations "$iters" >/dev/null
	else
		ispotctl run --func step --stack-period "$1" --output /dev/null \
			-- "$app" --iterations "$iters" >/dev/null 2>&1
	fi
	echo $(($(now) - t0)) >>"$tmp/$1"
}
median() { sort -n "$tmp/$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

r=0
while [ $r -lt "$rounds" ]; do
	for m in none 1000000000 101 1; do one $m; done
	r=$((r + 1))
done
for m in none 1000000000 101 1; do
	echo "# period $m: $(tr '\n' ' ' <"$tmp/$m")ms"
done
n=$(median none)
h=$(median 1000000000)
c=$(median 101)
s=$(median 1)
echo "calls: $calls"
echo "record_ns_per_call: $(((h - n) * 1000000 / calls))"
echo "stack_ns_per_call: $(((s - h) * 1000000 / calls))"
echo "period_101_ns_per_call: $(((c - h) * 1000000 / calls))"
rm -rf "$tmp"
