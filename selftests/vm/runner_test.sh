#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The VM runner's contract: a host binary added with --add runs in the
# guest and its exit status comes back; a kernel WARNING in dmesg, a debug
# kernel's report (a hung task here, faked through /dev/kmsg) and a
# timeout fail the run with the reason on the last line, and a report in a
# run that times out is named in that line (the host scans the kernel log).
cd "$(dirname "$0")/../.." || exit 1
. selftests/kmod/tap.sh
run=selftests/vm/run.sh
tmp=$(mktemp -d)
# run.sh keeps the kernel log of a failed run in $TMPDIR; these runs fail
# on purpose, so their logs go with $tmp.
export TMPDIR=$tmp
trap 'rm -rf "$tmp"' EXIT

tap_plan 6

# A host ELF binary (not in the tree), its shared libraries found by ldd.
cat >"$tmp/exit_with.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	printf("guest says %s\n", argv[1]);
	return atoi(argv[1]);
}
C
cc -o "$tmp/exit_with" "$tmp/exit_with.c"

t_status() {
	out=$($run --add "$tmp/exit_with" -- "$tmp/exit_with" 42 2>&1)
	[ $? -eq 42 ] && grep -q "guest says 42" <<<"$out" || { echo "# $out"; return 1; }
}
tap_check "add_host_binary_returns_status" t_status

t_guest_path() {
	$run --add "$tmp/exit_with:/opt/x" -- /opt/x 0 >/dev/null 2>&1
}
tap_check "add_host_to_guest_path" t_guest_path

t_warning() {
	out=$($run -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at fake.c:1 test" >/dev/kmsg' 2>&1)
	[ $? -ne 0 ] && tail -n1 <<<"$out" | grep -q "kernel splat: .*WARNING" ||
		{ echo "# $out"; return 1; }
}
tap_check "kernel_warning_fails_run" t_warning

t_debug_report() {
	out=$($run -- sh -c 'echo "INFO: task fake:1 blocked for more than 120 seconds." >/dev/kmsg' 2>&1)
	[ $? -ne 0 ] && tail -n1 <<<"$out" | grep -q "kernel splat: .*task fake:1 blocked" ||
		{ echo "# $out"; return 1; }
}
tap_check "debug_kernel_report_fails_run" t_debug_report

t_report_in_timeout() {
	out=$($run --timeout 30 -- sh -c 'echo "BUG: KASAN: fake report" >/dev/kmsg; sleep 600' 2>&1)
	[ $? -ne 0 ] &&
		tail -n1 <<<"$out" | grep -q "timeout after 30s (kernel report: .*BUG: KASAN: fake" ||
		{ echo "# $out"; return 1; }
}
tap_check "report_named_on_timeout" t_report_in_timeout

t_timeout() {
	out=$($run --timeout 25 -- sleep 600 2>&1)
	[ $? -ne 0 ] && tail -n1 <<<"$out" | grep -q "timeout after 25s" ||
		{ echo "# $out"; return 1; }
}
tap_check "timeout_fails_run" t_timeout
tap_done
