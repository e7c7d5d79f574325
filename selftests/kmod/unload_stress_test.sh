#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unloading ispot.ko under load.  While sessions are open on running
# targets (ispotctl attach, with and without --sync, ispotctl run, a bare
# open fd) and another loop keeps opening and closing sessions, every
# rmmod is refused as busy and nothing else changes: the module and
# /dev/ispot stay, the tracers and targets keep running.  Once the
# sessions are closed, rmmod succeeds while the former targets keep
# running, unharmed (no breakpoint left behind: they end by our SIGTERM,
# not by SIGTRAP or SIGSEGV); the module loads again and traces again.
. "$(dirname "$0")/tap.sh"
ko=/ispot/kmod/ispot.ko
lock=/ispot/samples/lock_contention
require_root
require_file "$lock"
require_module
tmpdir_setup

tap_plan 6

refcnt() { cat /sys/module/ispot/refcnt 2>/dev/null || echo none; }
alive() { for ap in "$@"; do kill -0 "$ap" 2>/dev/null || return 1; done; }

# child_of PID: the pid of PID's child process (ispotctl run's command).
child_of() {
	for cs in /proc/[0-9]*/status; do
		[ "$(sed -n 's/^PPid:[[:space:]]*//p' "$cs" 2>/dev/null)" = "$1" ] &&
			{ cs=${cs#/proc/}; echo "${cs%/status}"; return 0; }
	done
	return 1
}

# Long-running targets: they outlive the test, which ends them.
long="--threads 2 --iterations 100000000 --delay-us 300"
# shellcheck disable=SC2086
"$lock" $long >/dev/null & t1=$!
# shellcheck disable=SC2086
"$lock" $long >/dev/null & t2=$!
at_exit 'kill $t1 $t2 2>/dev/null'

ispotctl attach --pid $t1 --func acquire --json -o "$tmp/a1.json" \
	2>"$tmp/a1.err" & a1=$!
ispotctl attach --pid $t2 --func acquire --sync --json -o "$tmp/a2.json" \
	2>"$tmp/a2.err" & a2=$!
# shellcheck disable=SC2086
ispotctl run --func acquire --json -o "$tmp/r1.json" -- "$lock" $long \
	>/dev/null 2>"$tmp/r1.err" & r1=$!
exec 3</dev/ispot

# Sessions coming and going all the time, on top.
churn() {
	while [ ! -e "$tmp/stop" ]; do
		ispotctl status >/dev/null 2>&1
	done
}
churn & c1=$!

t_established() {
	i=0
	while [ $i -lt 300 ]; do
		r=$(refcnt)
		[ "$r" != none ] && [ "$r" -ge 4 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	# Give the tracers a moment to arm and record.
	sleep 2
	echo "# refcnt $(refcnt) with 4 sessions and the churn"
	[ $i -lt 300 ] && alive $t1 $t2 $a1 $a2 $r1
}
tap_check "sessions_established" t_established

t_refused() {
	n=0
	while [ $n -lt 20 ]; do
		if out=$(rmmod ispot 2>&1); then
			echo "# rmmod succeeded with sessions open (attempt $n)"
			return 1
		fi
		[ $n = 0 ] && echo "# $out"
		echo "$out" | grep -qiE 'in use|temporarily unavailable|busy' ||
			{ echo "# unexpected: $out"; return 1; }
		grep -q '^ispot ' /proc/modules || { echo "# module gone"; return 1; }
		[ -c /dev/ispot ] || { echo "# /dev/ispot gone"; return 1; }
		n=$((n + 1))
		sleep 0.1
	done
}
tap_check "rmmod_refused_while_sessions_open" t_refused

tap_check "tracers_and_targets_unharmed" alive $t1 $t2 $a1 $a2 $r1 $c1

# Close every session: Ctrl-C ends attach with a report; ispotctl run
# reports when its command ends.
t_close() {
	touch "$tmp/stop"
	wait $c1
	r=0
	kill -INT $a1 $a2
	wait $a1 || { echo "# attach 1 failed: $(cat "$tmp/a1.err")"; r=1; }
	wait $a2 || { echo "# attach 2 failed: $(cat "$tmp/a2.err")"; r=1; }
	rc=$(child_of $r1) || { echo "# no child of ispotctl run"; r=1; }
	[ -n "$rc" ] && kill -TERM "$rc"
	wait $r1
	st=$?
	[ "$st" = 143 ] || { echo "# ispotctl run exit $st: $(cat "$tmp/r1.err")"; r=1; }
	exec 3<&-
	for j in a1 a2 r1; do
		calls=$(json_get "$tmp/$j.json" .functions[0].calls)
		echo "# $j: acquire calls $calls"
		[ -n "$calls" ] && [ "$calls" -gt 0 ] || r=1
	done
	return $r
}
tap_check "sessions_close_with_reports" t_close

t_unload() {
	i=0
	while [ "$(refcnt)" != 0 ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rmmod ispot || { echo "# refcnt $(refcnt)"; return 1; }
	[ ! -e /dev/ispot ] || { echo "# /dev/ispot left"; return 1; }
	sleep 1
	alive $t1 $t2 || { echo "# a former target died with the module"; return 1; }
}
tap_check "rmmod_after_close_targets_keep_running" t_unload

t_reload() {
	grep -q '^ispot ' /proc/modules || /ispot/selftests/kmod/load_ispot.sh || return 1
	[ -c /dev/ispot ] || return 1
	run_status 0 ispotctl run --func acquire --json -o "$tmp/again.json" -- \
		"$lock" --threads 2 --iterations 50 || return 1
	[ "$(json_get "$tmp/again.json" .functions[0].calls)" = 100 ] || return 1
	alive $t1 $t2 || return 1
	kill -TERM $t1 $t2
	wait $t1
	s1=$?
	wait $t2
	s2=$?
	echo "# former targets ended with $s1 and $s2 (143: our SIGTERM)"
	[ $s1 = 143 ] && [ $s2 = 143 ]
}
tap_check "reload_traces_again_targets_end_cleanly" t_reload

tap_done
