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

# --- Did the threads really run at once? -------------------------------
# The interference tests compare SCI levels (or shares of a loss) that
# exist only if the guest ran a sample's threads at the same time.  Under
# TCG on a busy host the guest's vCPUs take turns instead, contention
# fades, and a lock's SCI falls with it although ISPOT judged right.  So
# each such test first reads what the samples measured of themselves
# during the scored runs (samples/sample.h, ISPOT_SAMPLE_STATS): overlap,
# the share of a thread's looks that saw another thread's work move, and
# contended, the share of the shared lock's acquisitions that found it
# held.  If the runs fell short, the test is skipped with the figures, not
# failed; if they did not, ISPOT must have judged right.
#
#   par_stats NAME	a fresh stats file $tmp/NAME.par, exported as
#			ISPOT_SAMPLE_STATS for the runs that follow
#   par_need KIND FILE...	require KIND (overlap or contended) of the
#			lines in FILEs, pooled, to be at least its minimum
#			($par_min_overlap, $par_min_contended)
#   tap_parallel NAME CMD...	runs CMD (which may run the samples),
#			then reports it as tap_timing would, or skips
#			naming what fell short; clears the requirements
#
# The thresholds (Documentation/evaluation.rst, "Tests on a busy host"):
# on a quiet 2-core host the multi-threaded TCG guest's overlap stays
# above 0.6 and a contended lock's share above 0.3; under a CPU hog on
# both host cores they fall to about a third of that.
par_min_overlap=${ISPOT_PAR_MIN_OVERLAP:-0.5}
par_min_contended=${ISPOT_PAR_MIN_CONTENDED:-0.2}
par_needs=
par_stats() {
	ISPOT_SAMPLE_STATS=$tmp/$1.par
	export ISPOT_SAMPLE_STATS
	: >"$ISPOT_SAMPLE_STATS"
}
par_stats_off() { unset ISPOT_SAMPLE_STATS; }
# par_measure KIND FILE...: the pooled share, "share count" ("- 0" if none).
par_measure() {
	pm_kind=$1
	shift
	cat "$@" 2>/dev/null | awk -v k="$pm_kind" '
		k == "overlap" && match($0, /overlap [0-9.]+ of [0-9]+ looks/) {
			split(substr($0, RSTART, RLENGTH), f, " ")
			num += f[2] * f[4]; den += f[4]
		}
		k == "contended" && match($0, /contended [0-9]+ of [0-9]+/) {
			split(substr($0, RSTART, RLENGTH), f, " ")
			num += f[2]; den += f[4]
		}
		END {
			if (den > 0) printf "%.2f %d\n", num / den, den
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
	pl_c=$(par_measure contended "$@")
	echo "overlap ${pl_o% *} of ${pl_o#* } looks, contended ${pl_c% *} of ${pl_c#* }"
}
par_need() {
	pn_min=$par_min_overlap
	[ "$1" = overlap ] || pn_min=$par_min_contended
	pn_kind=$1
	shift
	par_needs="$par_needs$pn_kind $pn_min $(echo "$*" | tr ' ' ',');"
}
# par_short: the first requirement that fell short, as a skip reason, and
# every figure as a TAP comment; false when all were met.
par_short() {
	ps_reason=
	ps_rest=$par_needs
	while [ -n "$ps_rest" ]; do
		ps_one=${ps_rest%%;*}
		ps_rest=${ps_rest#*;}
		set -- $ps_one
		# shellcheck disable=SC2046
		ps_m=$(par_measure "$1" $(echo "$3" | tr ',' ' '))
		ps_what=$(echo "$3" | tr ',' '\n' | sed 's|.*/||; s|\.par$||' |
			tr '\n' ' ' | sed 's/ $//')
		echo "# parallel: $1 ${ps_m% *} over ${ps_m#* } (need $2) in $ps_what"
		[ -n "$ps_reason" ] && continue
		# Nothing measured is the test's problem, not the host's.
		if [ "${ps_m% *}" = - ]; then
			continue
		elif lt "${ps_m% *}" "$2"; then
			ps_pct=$(awk -v v="${ps_m% *}" 'BEGIN { printf "%d%%", v * 100 + 0.5 }')
			ps_need=$(awk -v v="$2" 'BEGIN { printf "%d%%", v * 100 + 0.5 }')
			case $1 in
			overlap) ps_reason="host busy: threads overlapped $ps_pct of the run in $ps_what (need $ps_need)" ;;
			*) ps_reason="host busy: $ps_pct of the lock's acquisitions found it held in $ps_what (need $ps_need)" ;;
			esac
		fi
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
