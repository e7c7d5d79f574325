#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ispotctl run and attach on the samples: exact call counts, the SCI of a
# contended lock against its delay and against a contention-free control,
# libraries probed before they are loaded, and the documented JSON.
#
# The guest is emulated, so no figure is compared with a constant time:
# only counts, and SCI values with each other within this one boot.
. "$(dirname "$0")/tap.sh"
lock=/ispot/samples/lock_contention
ctrl=/ispot/samples/no_contention
require_root
require_module
tmpdir_setup

tap_plan 14

# sci_of SAMPLE DELAY HOLD ITERATIONS: the median SCI of acquire() over
# three runs.  The emulated guest has stalls of milliseconds (a vCPU thread
# descheduled by the host, TCG serialising the vCPUs); a median keeps one
# of them from deciding.  What the runs measured of themselves goes to
# $tmp/SAMPLE-DELAY-HOLD.par (tap.sh, tap_parallel).
sci_of() {
	par_stats "$(basename "$1")-$2-$3"
	for i in 1 2 3; do
		ispotctl run --func acquire --json -o "$tmp/sci.json" -- "$1" \
			--threads 2 --delay-us "$2" --hold-us "$3" \
			--iterations "$4" >/dev/null || return 1
		json_get "$tmp/sci.json" .functions[0].sci
	done | sort -g | sed -n 2p | tee "$tmp/median"
	echo "# $(basename "$1") delay ${2}us hold ${3}us: median sci $(cat "$tmp/median"), $(par_line "$ISPOT_SAMPLE_STATS")" >&2
}

t_run_status() {
	run_status 7 ispotctl run --func acquire -- "$lock" --iterations 10 \
		--exit-status 7 && grep -q 'acquire' "$tmp/out"
}
tap_check "run_exits_with_the_command_status" t_run_status

t_exact_counts() {
	run_status 0 ispotctl run --func acquire --json -- "$lock" \
		--threads 3 --iterations 400 || return 1
	grep '^{' "$tmp/out" >"$tmp/r.json"
	calls=$(json_get "$tmp/r.json" .functions[0].calls)
	threads=$(json_get "$tmp/r.json" .functions[0].threads)
	unpaired=$(json_get "$tmp/r.json" .events.unpaired)
	dropped=$(json_get "$tmp/r.json" .events.dropped)
	echo "# calls $calls threads $threads unpaired $unpaired dropped $dropped"
	[ "$calls" = 1200 ] && [ "$threads" = 3 ] && [ "$unpaired" = 0 ] &&
		[ "$dropped" = 0 ]
}
tap_check "run_counts_every_call_once" t_exact_counts

t_json_fields() {
	run_status 0 ispotctl run --func acquire --json -o "$tmp/f.json" -- \
		"$lock" --iterations 50 || return 1
	[ "$(wc -l <"$tmp/f.json")" -eq 1 ] || return 1
	for k in ispot_version target pid command duration_ns events recorded \
		 dropped unpaired functions name object key calls threads \
		 min_ns p50_ns p99_ns max_ns mean_ns loss_ns sci \
		 sci_worst_thread causes futex_ns blocked_ns runqueue_ns \
		 oncpu_ns lifetime_ns tid futexes counters; do
		grep -q "\"$k\": " "$tmp/f.json" ||
			{ echo "# missing \"$k\""; return 1; }
	done
	grep -q '"command": "lock_contention"' "$tmp/f.json"
}
tap_check "json_has_the_documented_fields" t_json_fields

# 50 us of work inside the lock: in the emulated guest, an uncontended
# acquire() varies by several microseconds (two traps and a single-step
# per call), so contention is made to stand well above that.  Runs are
# long enough that one-off costs (lazy binding, the first uretprobe of a
# thread) weigh little against the threads' lifetimes.
s0=$(sci_of "$lock" 0 50 1000)
s1=$(sci_of "$lock" 100 50 800)
s2=$(sci_of "$lock" 300 50 500)
s3=$(sci_of "$lock" 1000 50 250)
l4=$(sci_of "$lock" 100 100 600)
c4=$(sci_of "$ctrl" 100 100 600)

# How high a fully contended lock scores depends on how much of the host
# the two vCPUs get at once (0.11 to 0.46 over a day on this 2-core host,
# 0.17 to 0.20 on 6.12 with a quiet host):
# required is that it stands clear of the emulation's noise floor for
# short calls (0.10) and far above the control measured in the same run.
# Each comparison also needs the runs it scores to have been what it
# takes them for, by the samples' own timing (tap.sh, tap_parallel): the
# lock's threads waited for it, and as many times more than the
# control's as the test requires of the SCIs (a vCPU the host froze
# inside a call lengthens the control's too); else it skips.
lk=$tmp/lock_contention
ct=$tmp/no_contention-100-100.par
t_lock_high() {
	echo "# sci at delay 0: $s0, control $c4"
	lt 0.1 "$s0" && lt "$(awk -v c="$c4" 'BEGIN { print c * 4 }')" "$s0"
}
par_need contended "$lk-0-50.par"
par_need above "$lk-0-50.par" "$ct" 4
tap_parallel "lock_delay_0_has_high_sci" t_lock_high

# From 100 us between 50 us holds on, the threads hardly meet, and the
# scores sit about the noise floor for short calls (0.10; 0.04 to 0.12
# at 100 us): under it a step may rise by up to 0.02 instead of falling.
# At that level SCI and the samples' own measure of the waiting (waited)
# disagree by up to 0.022 (nine runs on 2026-11-27), so two delays whose
# waiting differs by less can swap: SCI 0.038 at 100 us and 0.048 at
# 300 us, for waited 0.050 and 0.043.  The first step, from the
# contended lock, must fall, and so must the score from 100 us to
# 1000 us (by 0.033 or more in all nine).  So the runs must be what the
# first step takes them for (the lock contended at 0 us, and more than
# at 100 us), and no more: from 100 us on, the samples' waited sits on
# its own floor (0.045 to 0.051 at 1000 us, 0.037 to 0.076 at 300 us,
# over nine make check runs to 2026-12-04), so asking 100 us to have
# waited more than 300 us skipped two runs in nine on an idle host
# whose scores fell as they should.
falls() {	# falls EARLIER LATER
	lt "$2" "$1" && return 0
	lt "$1" 0.1 && lt "$2" "$(awk -v s="$1" 'BEGIN { print s + 0.02 }')"
}
t_falls() {
	echo "# sci by delay 0/100/300/1000 us: $s0 $s1 $s2 $s3"
	lt "$s1" "$s0" && falls "$s1" "$s2" && falls "$s2" "$s3" &&
		lt "$s3" "$s1"
}
par_need contended "$lk-0-50.par"
par_need above "$lk-0-50.par" "$lk-100-50.par" 1
tap_parallel "sci_falls_as_delay_grows" t_falls

# The same loop with one lock per thread, against the shared lock.
t_control() {
	echo "# control $c4 against lock $l4"
	lt "$c4" 0.1 && lt "$c4" "$(awk -v s="$l4" 'BEGIN { print s / 4 }')"
}
par_need contended "$lk-100-100.par"
par_need above "$lk-100-100.par" "$ct" 4
tap_parallel "control_stays_near_zero" t_control

t_attach() {
	"$lock" --threads 2 --delay-us 200 --iterations 100000000 >/dev/null &
	pid=$!
	sleep 1
	run_status 0 ispotctl attach --pid "$pid" --func acquire \
		--duration 1s --json
	r=$?
	alive=0
	kill -0 "$pid" 2>/dev/null && alive=1
	kill "$pid"
	wait "$pid" 2>/dev/null
	[ $r = 0 ] || return 1
	calls=$(json_get "$tmp/out" .functions[0].calls)
	echo "# attached for 1s: $calls calls, target alive after: $alive"
	[ "$alive" = 1 ] && [ "${calls:-0}" -gt 0 ] &&
		grep -q "\"pid\": $pid" "$tmp/out"
}
tap_check "attach_to_a_running_process" t_attach

t_attach_exit() {
	"$lock" --threads 2 --delay-us 100 --iterations 8000 >/dev/null &
	pid=$!
	sleep 0.2
	run_status 0 ispotctl attach --pid "$pid" --func acquire --json
	r=$?
	wait "$pid"
	[ $r = 0 ] && one_line_err "exited after" &&
		[ "$(json_get "$tmp/out" .functions[0].calls)" -gt 0 ]
}
tap_check "attach_reports_when_the_target_exits" t_attach_exit

t_sigint() {
	"$lock" --threads 2 --delay-us 200 --iterations 100000000 >/dev/null &
	pid=$!
	ispotctl attach --pid "$pid" --func acquire >"$tmp/out" 2>"$tmp/err" &
	tracer=$!
	sleep 2
	kill -INT "$tracer"
	wait "$tracer"
	r=$?
	kill "$pid"
	wait "$pid" 2>/dev/null
	[ $r = 0 ] && grep -q 'acquire' "$tmp/out" ||
		{ echo "# exit $r"; cat "$tmp/out" "$tmp/err"; return 1; }
}
tap_check "ctrl_c_stops_and_reports" t_sigint

# attach_lock OUT STALL: lock_contention's two threads contending with no
# delay, attached for 5 s with one-page rings when STALL is 2 (the reader
# stopped for 2 s of them: the rings fill and drop), with the default
# rings and no stop when it is 0.  The report in OUT, exit status in $r.
attach_lock() {
	"$lock" --threads 2 --delay-us 0 --hold-us 0 \
		--iterations 100000000 >/dev/null &
	pid=$!
	ring=
	[ "$2" = 0 ] || ring=4K
	ispotctl attach --pid "$pid" --func acquire ${ring:+--ring-size} \
		$ring --json -o "$1" >"$tmp/out" 2>"$tmp/err" &
	tracer=$!
	# Armed once a return probe fired: its trampoline page is mapped.
	i=0
	until grep -q '\[uprobes\]' "/proc/$pid/maps" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] ||
			{ echo "# never armed"; kill "$pid"; r=1; return 1; }
		sleep 0.1
	done
	sleep 1
	[ "$2" = 0 ] || kill -STOP "$tracer"
	sleep 2
	[ "$2" = 0 ] || kill -CONT "$tracer"
	sleep 2
	kill -INT "$tracer"
	wait "$tracer"
	r=$?
	kill "$pid"
	wait "$pid" 2>/dev/null
	return 0
}

# A reader stopped for 2 s while the target calls on: its one-page rings
# fill and drop.  The module says where (LOST records, ABI 1.9): the
# report counts the drops it was told of (all but those after a ring's
# last record) and the calls then open in their threads (not scored).
t_drops_told() {
	attach_lock "$tmp/d.json" 2 || return 1
	dropped=$(json_get "$tmp/d.json" .events.dropped)
	told=$(json_get "$tmp/d.json" .events.dropped_told)
	bursts=$(json_get "$tmp/d.json" .events.drop_bursts)
	open=$(json_get "$tmp/d.json" .events.open_at_drops)
	echo "# dropped $dropped, told $told in $bursts bursts;" \
		"$open calls open then"
	[ $r = 0 ] && [ "${dropped:-0}" -gt 0 ] && [ "${bursts:-0}" -ge 1 ] &&
		[ "${told:-0}" -gt 0 ] && [ "$told" -le "$dropped" ] &&
		grep -q 'full rings dropped records' "$tmp/d.json" ||
		{ echo "# exit $r"; cat "$tmp/err"; return 1; }
}
tap_check "drops_are_told_where_they_fell" t_drops_told

# The time whose records the rings dropped leaves the threads' lifetimes:
# the SCI of the calls kept is not diluted by it.  The stalled attach of
# drops_are_told_where_they_fell keeps under 1 % of the calls.  With the
# dropped time in the lifetimes its SCI read 0.0046 where the same attach
# without drops read 0.38, in one boot; with it left out, 0.26 to 0.41 of
# the undropped one's (Documentation/evaluation.rst, "Drops' time left
# out of the lifetimes").  It must read at least a sixth of it, and at
# most one and a half times it (time taken from scored calls would raise
# it), both in this boot.
t_drops_undiluted() {
	attach_lock "$tmp/full.json" 0 || return 1
	[ $r = 0 ] || { echo "# exit $r"; cat "$tmp/err"; return 1; }
	attach_lock "$tmp/drop.json" 2 || return 1
	[ $r = 0 ] || { echo "# exit $r"; cat "$tmp/err"; return 1; }
	full=$(json_get "$tmp/full.json" .functions[0].sci)
	drop=$(json_get "$tmp/drop.json" .functions[0].sci)
	aside=$(json_get "$tmp/drop.json" .events.dropped_time_ns)
	echo "# sci $full without drops; $drop with them, $aside ns of the" \
		"threads' time left out"
	for f in full drop; do
		echo "# $f: $(json_get "$tmp/$f.json" .duration_ns) ns," \
			"$(json_get "$tmp/$f.json" .functions[0].calls) calls," \
			"loss $(json_get "$tmp/$f.json" .functions[0].loss_ns)"
	done
	[ "${aside:-0}" -gt 0 ] &&
		awk -v f="$full" -v d="$drop" 'BEGIN {
			exit !(f > 0.05 && d >= f / 6 && d <= 1.5 * f) }'
}
tap_check "drops_leave_the_sci_of_the_calls_kept" t_drops_undiluted

t_unloaded_lib() {
	# libc is not mapped when the probes are armed: resolved through
	# DT_NEEDED, armed on the file, live once the loader maps it.
	run_status 0 ispotctl run --func 'libc:pthread_mutex_lock' --json -- \
		"$lock" --threads 2 --iterations 300 || return 1
	grep '^{' "$tmp/out" >"$tmp/l.json"
	calls=$(json_get "$tmp/l.json" .functions[0].calls)
	echo "# pthread_mutex_lock calls: $calls"
	[ "${calls:-0}" -ge 600 ] && grep -q '"key": "arg0"' "$tmp/l.json"
}
tap_check "run_probes_a_library_before_it_is_loaded" t_unloaded_lib

t_glob() {
	run_status 0 ispotctl run --func 'acq*' --func acquire --json -- \
		"$lock" --iterations 100 || return 1
	grep '^{' "$tmp/out" >"$tmp/g.json"
	# Two specs naming one function probe it once.
	[ "$(grep -o '"name": "acquire"' "$tmp/g.json" | wc -l)" = 1 ] &&
		[ "$(json_get "$tmp/g.json" .functions[0].calls)" = 200 ]
}
tap_check "globs_resolve_and_duplicates_probe_once" t_glob

t_sample() {
	run_status 0 ispotctl run --func acquire --sample 10 --json -- \
		"$lock" --threads 2 --iterations 500 || return 1
	grep '^{' "$tmp/out" >"$tmp/s.json"
	calls=$(json_get "$tmp/s.json" .functions[0].calls)
	echo "# 1 in 10 of 1000 calls: $calls"
	[ "$calls" -ge 98 ] && [ "$calls" -le 102 ]
}
tap_check "sampling_records_one_in_n" t_sample

tap_done
