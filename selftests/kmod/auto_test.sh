#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# --auto[=N]: the functions to trace come from a cpu-clock sample of the
# target.  lock_contention spends its CPU time in compute() (the work
# between lock calls), so that must be picked, said on stderr with its
# share of the samples, and be in the report.  With run, the command runs
# uninstrumented while it is sampled; with attach, the sample comes first.
# An idle process has no sample: a one-line error saying what to do.
. "$(dirname "$0")/tap.sh"
tmp=$(mktemp -d)
lock=/ispot/samples/lock_contention
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP not root"; exit 4; }
grep -q '^ispot ' /proc/modules || /ispot/selftests/kmod/load_ispot.sh

tap_plan 6

# picked_compute FILE: stderr FILE says compute was picked, with a share.
picked_compute() {
	sed 's/^/# /' "$1"
	grep -q '^auto: [0-9]* samples of pid [0-9]* in ' "$1" &&
		grep -q '^ *[0-9.]*%  compute (lock_contention)$' "$1"
}

t_run() {
	ispotctl run --auto --auto-time 1s --json -o "$tmp/r.json" -- \
		"$lock" --threads 2 --delay-us 200 --hold-us 50 \
		--iterations 8000 >/dev/null 2>"$tmp/r.err" || {
		sed 's/^/# /' "$tmp/r.err"
		return 1
	}
	picked_compute "$tmp/r.err" &&
		grep -q '"name": "compute"' "$tmp/r.json" &&
		grep -q '"calls": [1-9]' "$tmp/r.json"
}
tap_check "run_auto_picks_compute_and_traces_it" t_run

# picks FILE: the names of the functions stderr FILE says were picked.
picks() {
	grep -v '%  in code no probe can time' "$1" |
		sed -n 's/^ *[0-9.]*%  \(.*\) ([^)]*)$/\1/p'
}

t_attach_top1() {
	"$lock" --threads 2 --delay-us 200 --hold-us 50 --iterations 100000 \
		>/dev/null &
	pid=$!
	sleep 1
	ispotctl attach --pid "$pid" --auto=1 --auto-time 1s --duration 1s \
		--json -o "$tmp/a.json" >/dev/null 2>"$tmp/a.err"
	rc=$?
	kill "$pid"
	wait "$pid" 2>/dev/null
	sed 's/^/# /' "$tmp/a.err"
	[ "$rc" = 0 ] || return 1
	# --auto=1: exactly one function, the one with the most samples
	# (compute, or the libc clock_gettime it spins on), and only it is
	# in the report.
	[ "$(picks "$tmp/a.err" | wc -l)" = 1 ] &&
		[ "$(grep -o '"linkage_name":' "$tmp/a.json" | wc -l)" = 1 ] &&
		grep -q "\"name\": \"$(picks "$tmp/a.err")\"" "$tmp/a.json"
}
tap_check "attach_auto_1_traces_only_the_hottest" t_attach_top1

t_idle() {
	sleep 100 &
	pid=$!
	run_status 1 ispotctl attach --pid "$pid" --auto --auto-time 500ms
	ok=$?
	kill "$pid"
	wait "$pid" 2>/dev/null
	[ "$ok" = 0 ] && one_line_err "ran no user code.*--func"
}
tap_check "auto_on_idle_process_exit_1_one_line" t_idle

t_run_idle() {
	# The idle command is not left running untraced, nor waited for.
	run_status 1 timeout 60 ispotctl run --auto --auto-time 500ms -- \
		sleep 100 && one_line_err "ran no user code"
}
tap_check "run_auto_on_idle_command_exit_1_and_stops_it" t_run_idle

t_exits_early() {
	run_status 1 ispotctl run --auto --auto-time 5s -- "$lock" \
		--iterations 10 && one_line_err "exited before the"
}
tap_check "auto_on_command_that_exits_first_exit_1" t_exits_early

t_usage() {
	run_status 2 ispotctl run --auto=0 -- "$lock" &&
		one_line_err "auto=0" &&
	run_status 2 ispotctl attach --pid 1 --auto --auto-time never &&
		one_line_err "auto-time"
}
tap_check "auto_usage_errors_exit_2" t_usage

rm -rf "$tmp"
tap_done
