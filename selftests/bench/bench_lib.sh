# SPDX-License-Identifier: GPL-2.0
# Sourced by the shell benchmarks that run in the guest (busybox sh and
# awk: no bash, no python, and no date +%N, so times come from
# /proc/uptime, to 10 ms).

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# elapsed CMD [ARG...]: CMD's wall time in seconds, its output discarded
# by the caller.
elapsed() {
	t0=$(uptime_s)
	"$@"
	t1=$(uptime_s)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }'
}

# median: of the numbers on stdin, one a line (the upper one of an even
# count).
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
