#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ispotd while the module is unloaded and loaded again: it says so once,
# keeps running, and traces again once the module is back.  Unloading
# unregisters tracepoints (kernel text patching), so this runs with the
# single-threaded TCG group (scripts/check.sh).
. "$(dirname "$0")/tap.sh"
s=/ispot/samples
require_root
require_module
tmpdir_setup
. "$(dirname "$0")/ispotd_lib.sh"

tap_plan 1

long_target() {
	"$s/lock_contention" --delay-us 100 --hold-us 100 --threads 2 \
		--iterations 1000000 >/dev/null &
	tpid=$!
}

# --- the module going away and coming back --------------------------------
module_reload() {
	# The module keeps its tracepoints from load to unload here, as the
	# runner loads it under multi-threaded TCG: a burst then costs the
	# daemon tens of ms, not the 250-700 ms of registering them at every
	# ENABLE and unregistering them at every DISABLE (text patching), so
	# the bursts are long enough to see calls, those after the reload
	# too (the budget learns a burst's cost across the reload).
	wait_for 30 rmmod ispot 2>/dev/null &&
		/ispot/selftests/kmod/load_ispot.sh keep_tracepoints=1 ||
		{ echo "# cannot reload with keep_tracepoints=1"; return 1; }
	long_target
	# Bursts that leave time to unload between them, but long enough to
	# see calls.  At 2%, one burst's arming under single-threaded TCG
	# (250-700 ms of the daemon's CPU) costs more than a 2 s window's
	# budget, so every burst is the shortest, 2 ms, which the target's
	# vCPU hardly ever runs in; they once read as ~200 ms with no call,
	# when the armed time still counted the DISABLE that waits out the
	# wait records' grace period (50-400 ms under emulation).
	ispotd --pid "$tpid" --func acquire --budget 10% --window 2s \
		--log "$tmp/mod.jsonl" 2>"$tmp/mod.err" &
	dpid=$!
	daemon_ready "$tmp/mod.err" || return 1
	wait_for 60 rmmod ispot 2>/dev/null || { echo "# never idle"; return 1; }
	sleep 6
	/ispot/selftests/kmod/load_ispot.sh keep_tracepoints=1 || return 1
	before=$(wc -l <"$tmp/mod.jsonl")
	# calls_armed: what this window armed ("calls" also counts totals).
	wait_for 90 sh -c "tail -n +$((before + 1)) '$tmp/mod.jsonl' |
		grep -q '\"calls_armed\": [1-9]'"
	ok=$?
	kill -0 "$dpid"
	alive=$?
	stop_daemon "$dpid"
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	# The other tests have it loaded as the runner did.
	wait_for 30 rmmod ispot 2>/dev/null && /ispot/selftests/kmod/load_ispot.sh
	sed 's/^/# /' "$tmp/mod.err"
	# Every window's bursts and armed calls, the reload's line marked.
	awk -v b="$before" '{ match($0, /"bursts": [0-9]+/); bu = substr($0, RSTART + 10, RLENGTH - 10)
		match($0, /"calls_armed": [0-9]+/); ca = substr($0, RSTART + 15, RLENGTH - 15)
		printf "%s%s/%s", (NR == b + 1 ? " | " : " "), bu, ca } END { print "" }' \
		"$tmp/mod.jsonl" | sed 's/^/# bursts\/calls_armed by window:/'
	[ "$ok" = 0 ] || tail -n 4 "$tmp/mod.jsonl" | cut -c1-300 | sed 's/^/# /'
	# One line when it went, one when it came back: no line per retry.
	[ "$ok" = 0 ] && [ "$alive" = 0 ] &&
		[ "$(grep -c 'ispot not found' "$tmp/mod.err")" -eq 1 ] &&
		[ "$(grep -c 'is back' "$tmp/mod.err")" -eq 1 ]
}
tap_check module_unload_and_reload_survived module_reload

tap_done
