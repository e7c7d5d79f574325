# SPDX-License-Identifier: GPL-2.0
# TAP 13 helpers for the shell selftests (sourced).
tap_n=0
tap_fail=0
tap_plan() { echo "TAP version 13"; echo "1..$1"; }
tap_ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n $1"; }
tap_not_ok() { tap_n=$((tap_n + 1)); tap_fail=1; echo "not ok $tap_n $1"; }
tap_skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n $1 # SKIP $2"; }
# tap_check NAME CMD...: ok when CMD succeeds
tap_check() {
	name=$1
	shift
	if "$@"; then tap_ok "$name"; else tap_not_ok "$name"; fi
}
tap_done() { exit $tap_fail; }
# tap_timing NAME CMD...: tap_check for a test that compares times within
# a run (SCI, shares of a loss).  On the debug kernel (the VM runner sets
# ISPOT_VM_KERNEL) KASAN, lockdep and friends multiply the kernel's costs
# unevenly, so such ratios say nothing there and the test is skipped.
tap_timing() {
	if [ "${ISPOT_VM_KERNEL:-}" = debug ]; then
		# Still run it: later tests may read what it wrote.
		name=$1
		shift
		"$@" >/dev/null 2>&1
		tap_skip "$name" "timing ratios are meaningless on the debug kernel"
		return
	fi
	tap_check "$@"
}

# run_status EXPECTED_EXIT [ENV=...] CMD ARGS...: stdout and stderr go to
# $tmp/out and $tmp/err (the sourcing script sets $tmp).
run_status() {
	want=$1
	shift
	env "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" = "$want" ] || { echo "# exit $got, wanted $want"; sed 's/^/# /' "$tmp/err"; return 1; }
}
# unwrapped FILE: a text report with each wrapped note on one line again
# (notes wrap at 100 columns in a file, continued on indented lines).
unwrapped() { sed -e ':a' -e '$!N' -e 's/\n  */ /' -e 'ta' -e 'P' -e 'D' "$1"; }
# one_line_err REGEX: stderr is exactly one "ispotctl: ..." line matching it.
one_line_err() {
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^ispotctl: .*$1" "$tmp/err" ||
		{ sed 's/^/# stderr: /' "$tmp/err"; return 1; }
}

# json_first FILE KEY: the first value of "KEY" in a one-line JSON report,
# strings without their quotes; functions come sorted by SCI, so this is
# the top function's.
json_first() {
	tr ',{}[]' '\n\n\n\n\n' <"$1" | sed -n "s/^ *\"$2\": //p" |
		head -n1 | sed 's/^"\(.*\)"$/\1/'
}
# lt A B: A < B as real numbers.
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
