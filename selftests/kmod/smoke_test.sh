#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Both front ends once, end to end, on the guest's kernel: ispotctl run
# on a contended lock, as a text report with --sync (function and libc
# probes, wait records) and as JSON with exact counts, and ispotd tracing
# the same sample until it writes a window with armed calls, then exiting
# 0 on SIGTERM.  On 5.10, 6.12 and sid this is what runs of the front ends
# (selftests/kmod/tiers): their logic is the same on every kernel and is
# tested on 6.1; this checks that the kernel under them serves them.
# Counts only, never times: it runs in any boot.
. "$(dirname "$0")/tap.sh"
s=/ispot/samples
require_root
require_module
tmpdir_setup
. "$(dirname "$0")/ispotd_lib.sh"

tap_plan 3

t_report() {
	run_status 0 ispotctl run --sync --func acquire -- "$s/lock_contention" \
		--threads 2 --hold-us 100 --iterations 200 || return 1
	grep -q ' acquire' "$tmp/out" && grep -q ' pthread_mutex_lock' "$tmp/out" ||
		{ sed 's/^/# /' "$tmp/out"; return 1; }
}
tap_check "ispotctl_run_reports_function_and_sync_calls" t_report

t_json() {
	run_status 0 ispotctl run --func acquire --json -o "$tmp/r.json" -- \
		"$s/lock_contention" --threads 2 --iterations 300 || return 1
	calls=$(json_get "$tmp/r.json" .functions[0].calls)
	threads=$(json_get "$tmp/r.json" .functions[0].threads)
	unpaired=$(json_get "$tmp/r.json" .events.unpaired)
	dropped=$(json_get "$tmp/r.json" .events.dropped)
	echo "# calls $calls threads $threads unpaired $unpaired dropped $dropped"
	[ "$calls" = 600 ] && [ "$threads" = 2 ] && [ "$unpaired" = 0 ] &&
		[ "$dropped" = 0 ]
}
tap_check "ispotctl_run_counts_every_call_once" t_json

t_daemon() {
	"$s/lock_contention" --delay-us 100 --hold-us 100 --threads 2 \
		--iterations 100000000 >/dev/null &
	tpid=$!
	ispotd --pid "$tpid" --func acquire --budget 0 --window 1s \
		--log "$tmp/d.jsonl" 2>"$tmp/d.err" &
	dpid=$!
	ok=1
	daemon_ready "$tmp/d.err" && wait_for 180 armed_window "$tmp/d.jsonl" "$tpid" &&
		ok=0
	stop_daemon "$dpid"
	st=$?
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	echo "# exit $st, $(wc -l <"$tmp/d.jsonl") window(s), $(fsum "$tmp/d.jsonl" acquire calls) calls"
	[ "$ok" = 0 ] && [ "$st" = 0 ] || { sed 's/^/# /' "$tmp/d.err"; return 1; }
}
tap_check "ispotd_writes_an_armed_window_and_exits_0" t_daemon

tap_done
