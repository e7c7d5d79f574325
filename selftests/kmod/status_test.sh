#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ispotctl status: output, JSON, and each kind of failure as one line on
# stderr with the documented exit code.
. "$(dirname "$0")/tap.sh"
ko=/ispot/kmod/ispot.ko
require_root
require_module
tmpdir_setup

tap_plan 9

t_text() {
	run_status 0 ispotctl status || return 1
	grep -q "ABI 1\.[0-9]" "$tmp/out" && grep -q '^sessions *1 open' "$tmp/out" &&
		grep -q '^device */dev/ispot' "$tmp/out" &&
		grep -q '^waits  *\(tracepoint probes registered\|no tracepoint\)' "$tmp/out" &&
		grep -q '^futex  *futex' "$tmp/out" || { cat "$tmp/out"; return 1; }
}
tap_check "status_text" t_text

t_json() {
	run_status 0 ispotctl status --json || return 1
	for k in ispot_version module_version module_abi sessions rings ring_bytes \
		dropped wait_tracepoints futex_calls; do
		grep -q "\"$k\": " "$tmp/out" || { echo "# missing $k"; return 1; }
	done
	# One object on one line: starts with { and ends with }.
	[ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q '^{.*}$' "$tmp/out"
}
tap_check "status_json" t_json

# While a session with thread and wait records runs, both of its
# tracepoint groups are named (the test once matched every setup flag,
# more than the two groups, and said "waits").
t_groups() {
	/ispot/samples/lock_contention --threads 2 --iterations 100000000 \
		>/dev/null &
	pid=$!
	ispotctl attach --pid "$pid" --func acquire >/dev/null 2>&1 &
	tracer=$!
	i=0
	until grep -q '\[uprobes\]' "/proc/$pid/maps" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] || break
		sleep 0.1
	done
	ispotctl status --json >"$tmp/st.json" 2>"$tmp/err"
	kill -INT "$tracer"
	wait "$tracer"
	kill "$pid"
	wait "$pid" 2>/dev/null
	grep -q '"wait_tracepoints": "tasks,waits"' "$tmp/st.json" ||
		{ cat "$tmp/st.json"; return 1; }
}
tap_check "a_sessions_groups_are_both_named" t_groups

t_abi_major() {
	run_status 1 ISPOT_TEST_ABI=2.0 ispotctl status && one_line_err "incompatible"
}
tap_check "abi_major_mismatch_exit_1" t_abi_major

t_abi_minor() {
	run_status 1 ISPOT_TEST_ABI=1.99 ispotctl status && one_line_err "older than"
}
tap_check "abi_minor_too_old_exit_1" t_abi_minor

t_usage() {
	run_status 2 ispotctl status extra && one_line_err "usage" &&
	run_status 2 ispotctl frobnicate && one_line_err "unknown command"
}
tap_check "usage_errors_exit_2" t_usage

t_unprivileged() {
	su -s /bin/sh nobody -c "ispotctl status" >"$tmp/out" 2>"$tmp/err"
	[ $? = 1 ] && one_line_err "no permission"
}
tap_check "unprivileged_exit_1" t_unprivileged

t_no_module() {
	rmmod ispot || return 1
	run_status 1 ispotctl status
	r=$?
	one_line_err "not found: load the module" || r=1
	/ispot/selftests/kmod/load_ispot.sh || return 1
	return $r
}
tap_check "module_not_loaded_exit_1" t_no_module

t_write_error() {
	# A report that cannot be written is an error, not silence.
	ispotctl status >/dev/full 2>"$tmp/err"
	[ $? = 1 ] && one_line_err "cannot write"
}
tap_check "write_error_exit_1" t_write_error

tap_done
