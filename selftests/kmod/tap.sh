# SPDX-License-Identifier: GPL-2.0
# TAP 13 helpers for the shell selftests, in the guest (selftests/kmod/)
# and on the host (selftests/host/): sourced, as kselftest's
# ktap_helpers.sh is.  A test starts
#
#	. "$(dirname "$0")/tap.sh"
#	require_root
#	require_module
#	tmpdir_setup
#	tap_plan N
#
# and ends with tap_done.
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

# --- The preamble: skips, the module, a scratch directory -----------------
# Exit 4 is kselftest's KSFT_SKIP: run_all.sh and scripts/check.sh count
# such a test as skipped, not failed.
ksft_skip=4
# Where the tree is: /ispot in the guest (selftests/vm/run.sh copies it
# there); the host tests run from its top.
if [ -x /ispot/selftests/kmod/load_ispot.sh ]; then
	tap_top=/ispot
else
	tap_top=$(pwd)
fi
ispot_ko=$tap_top/kmod/ispot.ko
# tap_skip_all REASON: the whole test skipped, before its plan.
tap_skip_all() {
	echo "1..0 # SKIP $*"
	exit $ksft_skip
}
# require_root [WHY]: skipped unless run as root.
require_root() {
	[ "$(id -u)" = 0 ] || tap_skip_all "${1:-not root}"
}
# require_file PATH [HINT]: skipped unless PATH (a sample, a fixture, the
# module) was built; HINT says what building it needs.
require_file() {
	[ -e "$1" ] || tap_skip_all "$1 not built${2:+ ($2)}"
}
# require_cmd TOOL...: skipped unless every TOOL is in PATH.
require_cmd() {
	for rc_tool in "$@"; do
		command -v "$rc_tool" >/dev/null ||
			tap_skip_all "$rc_tool is missing; run scripts/deps.sh"
	done
}
# require_module: ispot.ko loaded in the guest (the last test may have
# unloaded it), with the VM runner's parameters (load_ispot.sh); skipped
# if it was not built, and a bail-out if it does not load: that is a
# failure, not a reason to skip.
require_module() {
	grep -q '^ispot ' /proc/modules && return 0
	require_file "$ispot_ko"
	"$tap_top/selftests/kmod/load_ispot.sh" ||
		{ echo "Bail out! $ispot_ko does not load"; exit 1; }
}
# tmpdir_setup [NAME]: $tmp, a fresh directory (named NAME.XXXXXX in
# $TMPDIR if given), removed when the test exits however it exits, after
# what at_exit asked for.
tap_at_exit=
tmpdir_setup() {
	if [ $# -gt 0 ]; then
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	else
		tmp=$(mktemp -d)
	fi || { echo "Bail out! mktemp -d failed"; exit 1; }
	trap tap_cleanup EXIT
}
# at_exit CMD: CMD (evaluated then, so it sees the variables of that
# moment) when the test exits, before $tmp is removed; in order given.
at_exit() {
	tap_at_exit="$tap_at_exit$1
"
}
tap_cleanup() {
	eval "$tap_at_exit"
	rm -rf "$tmp"
}

# json_get FILE PATH...: a value of a JSON report, status or window log,
# e.g. json_get "$tmp/r.json" .functions[0].sci (selftests/kmod/json_get.c
# says how to name one; it prints nothing and fails when there is none).
json_get() {
	"$tap_top/selftests/kmod/json_get" "$@"
}
# What separates json_get's columns (several paths, -l).
tab=$(printf '\t')
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

# lt A B: A < B as real numbers.
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

# --- Did contention really happen? -------------------------------------
# The interference tests compare SCI levels (or shares of a loss) that
# exist only if a sample's threads really fought over its lock.  Under TCG
# on a busy host the guest's vCPUs take turns instead of running at once,
# contention fades, and a lock's SCI falls with it although ISPOT judged
# right; or a vCPU the host froze inside a control's call makes the
# control look contended.  So each such test also reads what the samples
# measured of themselves in the runs it scores (samples/sample.h,
# ISPOT_SAMPLE_STATS): waited, the share of their threads' lives spent
# getting the lock beyond each one's fastest take, timed by the sample
# around the traced call; and overlap, the share of a thread's looks that
# saw another thread's work move at the same moment (printed, not
# required: the lock samples contend whether their vCPUs run at once or
# one is frozen holding the lock).  If the runs were not what the test
# takes them for, it is skipped with the figures, whatever ISPOT said; if
# they were, ISPOT must have judged right, or the test fails.
#
#   par_stats NAME	a fresh stats file $tmp/NAME.par, exported as
#			ISPOT_SAMPLE_STATS for the samples started after it
#   par_stats_off	no more stats for the samples started after it
#   par_need contended FILE...	the runs in FILEs, pooled, waited for the
#			lock at least $par_min_waited of their threads' time
#   par_need above HIGH LOW K	HIGH's runs waited at least K times as
#			much as LOW's: K is the factor the test requires
#			of the SCIs.  No margin is added: the samples'
#			timing takes in the probes' traps, whose jitter
#			ISPOT leaves out, so its ratios come out below
#			ISPOT's (lock 0.205 against control 0.055 where
#			ISPOT had 0.168 and 0.023)
#   tap_parallel NAME CMD...	runs CMD (which may run the samples),
#			then reports it as tap_timing would, or skips
#			naming what fell short; clears the requirements
#
# The thresholds come from runs on the 2-core host, with and without a
# CPU hog (Documentation/evaluation.rst, "Tests on a busy host").
par_min_waited=${ISPOT_PAR_MIN_WAITED:-0.10}
par_needs=
par_stats() {
	ISPOT_SAMPLE_STATS=$tmp/$1.par
	export ISPOT_SAMPLE_STATS
	: >"$ISPOT_SAMPLE_STATS"
}
par_stats_off() { unset ISPOT_SAMPLE_STATS; }
# par_measure KIND FILE...: "SHARE COUNT" pooled over the lines of FILEs
# (KIND overlap: of looks; waited: of thread time, COUNT the takes), or
# "- 0" if none measured it.
par_measure() {
	pm_kind=$1
	shift
	cat "$@" 2>/dev/null | awk -v k="$pm_kind" '
		k == "overlap" && match($0, /overlap [0-9.]+ of [0-9]+ looks/) {
			split(substr($0, RSTART, RLENGTH), f, " ")
			num += f[2] * f[4]; den += f[4]; n += f[4]
		}
		k == "waited" && match($0, /waited [0-9]+ of [0-9]+ us in [0-9]+/) {
			split(substr($0, RSTART, RLENGTH), f, " ")
			num += f[2]; den += f[4]; n += f[7]
		}
		END {
			if (den > 0) printf "%.3f %d\n", num / den, n
			else print "- 0"
		}'
}
# par_written FILE...: every FILE has a stats line.
par_written() {
	for pw_f in "$@"; do
		grep -q ' overlap ' "$pw_f" 2>/dev/null || return 1
	done
}
# par_line FILE...: both measures, for a TAP comment.
par_line() {
	pl_o=$(par_measure overlap "$@")
	pl_w=$(par_measure waited "$@")
	echo "waited ${pl_w% *} over ${pl_w#* } takes, overlap ${pl_o% *} over ${pl_o#* } looks"
}
par_need() {
	par_needs="$par_needs$*;"
}
par_pct() { awk -v v="$1" 'BEGIN { printf "%.1f%%", v * 100 }'; }
par_name() { basename "$1" .par; }
par_waited() { pw_m=$(par_measure waited "$@"); echo "${pw_m% *}"; }
par_overlap() {	# par_overlap FILE...: "; threads overlapped N%", or nothing
	po_m=$(par_measure overlap "$@")
	[ "${po_m% *}" = - ] ||
		echo "; threads overlapped $(par_pct "${po_m% *}") of the time"
}
# par_short: the first requirement that fell short, as a skip reason in
# $ps_reason, and every figure as a TAP comment; false when all were met.
# A file with no figure is the test's problem, not the host's: no skip.
par_short() {
	ps_reason=
	ps_rest=$par_needs
	while [ -n "$ps_rest" ]; do
		ps_one=${ps_rest%%;*}
		ps_rest=${ps_rest#*;}
		# shellcheck disable=SC2086
		set -- $ps_one
		ps_kind=$1
		shift
		ps_why=
		case $ps_kind in
		contended)
			ps_w=$(par_waited "$@")
			ps_what=$(for f in "$@"; do par_name "$f"; done |
				tr '\n' ' ' | sed 's/ $//')
			echo "# parallel: $ps_what $(par_line "$@") (need waited $par_min_waited)"
			[ "$ps_w" != - ] && lt "$ps_w" "$par_min_waited" &&
				ps_why="host busy: $ps_what waited $(par_pct "$ps_w") of its threads' time for the lock (need $(par_pct "$par_min_waited"))$(par_overlap "$@")"
			;;
		above)
			ps_h=$(par_waited "$1")
			ps_l=$(par_waited "$2")
			ps_k=$3
			echo "# parallel: $(par_name "$1") waited $ps_h, $(par_name "$2") $ps_l (need $ps_k times as much)"
			[ "$ps_h" != - ] && [ "$ps_l" != - ] &&
				lt "$ps_h" "$(awk -v l="$ps_l" -v k="$ps_k" 'BEGIN { print l * k }')" &&
				ps_why="host busy: $(par_name "$1") waited $(par_pct "$ps_h") of its threads' time, $(par_name "$2") $(par_pct "$ps_l"): not the $ps_k times the test needs$(par_overlap "$1" "$2")"
			;;
		esac
		[ -n "$ps_reason" ] || ps_reason=$ps_why
	done
	[ -n "$ps_reason" ]
}
tap_parallel() {
	if [ "${ISPOT_VM_KERNEL:-}" = debug ]; then
		tap_timing "$@"
		par_needs=
		return
	fi
	tp_name=$1
	shift
	# The check first: it may be what runs the samples.
	if "$@"; then tp_r=0; else tp_r=1; fi
	if par_short; then
		[ $tp_r = 0 ] && tp_r=passed || tp_r=failed
		echo "# $tp_name $tp_r, but its threads could not contend as meant"
		tap_skip "$tp_name" "$ps_reason"
	elif [ $tp_r = 0 ]; then
		tap_ok "$tp_name"
	else
		tap_not_ok "$tp_name"
	fi
	par_needs=
}
