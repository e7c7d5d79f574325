#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad input to ispotctl attach and run: each kind gets one line on stderr
# that says what to do, the documented exit code (1 runtime, 2 usage), and
# leaves no session behind.  The VM runner fails the boot on any kernel
# warning, so a clean kernel is checked too.
. "$(dirname "$0")/tap.sh"
lock=/ispot/samples/lock_contention
require_root
require_module
tmpdir_setup

tap_plan 17

t_no_pid() {
	run_status 1 ispotctl attach --pid 999999 --func acquire &&
		one_line_err "no process with pid 999999"
}
tap_check "no_such_pid_exit_1" t_no_pid

t_unresolvable() {
	run_status 1 ispotctl run --func acquir -- "$lock" --iterations 1 &&
		one_line_err "acquir" && grep -q "acquire" "$tmp/err" &&
		! grep -q "^lock_contention:" "$tmp/out"
}
tap_check "unresolvable_function_exit_1_with_near_matches" t_unresolvable

t_bad_obj() {
	run_status 1 ispotctl run --func 'libnosuch:foo' -- "$lock" \
		--iterations 1 && one_line_err "libnosuch"
}
tap_check "unknown_object_exit_1" t_bad_obj

t_no_command() {
	run_status 1 ispotctl run --func acquire -- /nonexistent/app &&
		one_line_err "cannot run"
}
tap_check "missing_command_exit_1" t_no_command

# A function whose first instruction has a LOCK prefix: uprobes cannot
# step over it, and armed before run's exec the kernel drops the probe
# silently ("no probed function was called", exit 0).  Refused by name,
# by run and attach alike.  The unit test binary holds such functions.
t_lock_prefixed() {
	locked=/ispot/selftests/unit/trace/test_trace_resolve
	run_status 1 ispotctl run --func resolve_locked -- "$locked" &&
		one_line_err "'resolve_locked' starts with an instruction uprobes cannot step over" || return 1
	run_status 1 ispotctl run --func resolve_me --func 'resolve_locked*' \
		-- "$locked" &&
		one_line_err "'resolve_locked[a-z_]*' starts with an instruction"
}
tap_check "lock_prefixed_function_refused_by_name" t_lock_prefixed

t_usage() {
	run_status 2 ispotctl attach --func acquire && one_line_err "needs --pid" &&
	run_status 2 ispotctl attach --pid 1 && one_line_err "nothing to trace" &&
	run_status 2 ispotctl run --func acquire && one_line_err "needs a command" &&
	run_status 2 ispotctl attach --pid 1 --func f --duration 5x &&
		one_line_err "duration" &&
	run_status 2 ispotctl attach --pid 1 --func f --key f=arg7 &&
		one_line_err "argN" &&
	run_status 2 ispotctl attach --pid 1 --func f --ring-size 3000 &&
		one_line_err "power of two" &&
	run_status 2 ispotctl attach --pid 1 --func f --bogus &&
		one_line_err "unknown" &&
	run_status 2 ispotctl status --bogus &&
		one_line_err "'--bogus' is unknown.*usage: ispotctl status" &&
	run_status 2 ispotctl status extra &&
		one_line_err "status takes no arguments; usage: ispotctl status"
}
tap_check "usage_errors_exit_2" t_usage

t_counter_usage() {
	run_status 2 ispotctl run --func acquire --counters bogus -- "$lock" &&
		one_line_err "unknown counter 'bogus': use one of cycles," &&
	run_status 2 ispotctl run --func acquire --counters cycles, -- "$lock" &&
		one_line_err "ends with a comma" &&
	run_status 2 ispotctl run --func acquire --raw-event 1cd -- "$lock" &&
		one_line_err "not a hex event code" &&
	run_status 2 ispotctl attach --pid 1 --func f --counters \
		cycles,instructions,cpu-clock,page-faults,cache-misses,branches \
		--raw-event 0x1cd && one_line_err "at most 6 counters"
}
tap_check "counter_options_usage_errors_exit_2" t_counter_usage

t_output() {
	run_status 1 ispotctl run --func acquire -o /nonexistent/dir/r.json \
		-- "$lock" --iterations 1 && one_line_err "cannot write" &&
		! grep -q "^lock_contention:" "$tmp/out"
}
tap_check "unwritable_output_fails_before_tracing" t_output

# --folded: the same check before tracing; written, one line per path.
t_folded() {
	run_status 1 ispotctl run --func acquire --folded /nonexistent/f \
		-- "$lock" --iterations 1 && one_line_err "writable --folded" &&
		! grep -q "^lock_contention:" "$tmp/out" || return 1
	run_status 0 ispotctl run --func acquire --stack-period 1 \
		--folded "$tmp/folded" -- "$lock" --iterations 200 || return 1
	sed 's/^/# /' "$tmp/folded"
	grep -Eq '^([^ ;]+;)+acquire [0-9]+$' "$tmp/folded" &&
		! grep -Evq '^[^ ].* [0-9]+$' "$tmp/folded"
}
tap_check "folded_stacks_written_or_refused_before_tracing" t_folded

# The files written beside the report (util/afile.h): a session that fails
# (the command cannot be found, the function cannot be resolved) leaves the
# user's files at --perfetto, --folded and -o as they were, with no
# temporary file beside them; one that succeeds replaces each whole.
t_kept_or_replaced() {
	mkdir -p "$tmp/keep" || return 1
	for f in t.pftrace t.folded t.json; do
		echo earlier >"$tmp/keep/$f" || return 1
	done
	set -- --perfetto "$tmp/keep/t.pftrace" --folded "$tmp/keep/t.folded" \
		-o "$tmp/keep/t.json"
	run_status 1 ispotctl run --func acquire "$@" -- /nonexistent/app &&
		one_line_err "cannot run" || return 1
	run_status 1 ispotctl run --func acquir "$@" -- "$lock" \
		--iterations 1 && one_line_err "acquir" || return 1
	for f in t.pftrace t.folded t.json; do
		[ "$(cat "$tmp/keep/$f")" = earlier ] ||
			{ echo "# $f was changed"; return 1; }
	done
	[ -z "$(ls -A "$tmp/keep" | grep '^\.')" ] ||
		{ echo "# a temporary file was left"; return 1; }
	run_status 0 ispotctl run --func acquire "$@" -- "$lock" \
		--iterations 200 || return 1
	! grep -q earlier "$tmp/keep/t.pftrace" "$tmp/keep/t.folded" \
		"$tmp/keep/t.json" && grep -q acquire "$tmp/keep/t.json" &&
		[ -z "$(ls -A "$tmp/keep" | grep '^\.')" ]
}
tap_check "outputs_kept_when_the_session_fails_replaced_when_it_succeeds" \
	t_kept_or_replaced

t_abi() {
	run_status 1 ISPOT_TEST_ABI=2.0 ispotctl run --func acquire -- \
		"$lock" --iterations 1 && one_line_err "incompatible"
}
tap_check "abi_mismatch_exit_1" t_abi

t_no_permission() {
	sleep 30 &
	pid=$!
	su -s /bin/sh nobody -c "ispotctl attach --pid $pid --func acquire" \
		>"$tmp/out" 2>"$tmp/err"
	r=$?
	kill "$pid"
	[ $r = 1 ] && one_line_err "no permission" &&
	su -s /bin/sh nobody -c "ispotctl run --func acquire -- $lock" \
		>"$tmp/out" 2>"$tmp/err"
	[ $? = 1 ] && one_line_err "no permission"
}
tap_check "no_permission_exit_1" t_no_permission

t_no_module() {
	rmmod ispot || return 1
	run_status 1 ispotctl run --func acquire -- "$lock" --iterations 1
	r=$?
	one_line_err "load the module" || r=1
	/ispot/selftests/kmod/load_ispot.sh || return 1
	return $r
}
tap_check "module_not_loaded_exit_1" t_no_module

t_exits_early() {
	# The target exits while probes are being armed or just after.
	"$lock" --iterations 1 >/dev/null &
	pid=$!
	ispotctl attach --pid "$pid" --func acquire >"$tmp/out" 2>"$tmp/err"
	r=$?
	wait "$pid"
	# Either it was traced and reported (0) or it was gone first (1):
	# one line on stderr in both cases.
	echo "# exit $r: $(cat "$tmp/err")"
	{ [ $r = 0 ] && one_line_err "exited after"; } ||
		{ [ $r = 1 ] && one_line_err "exited\|no process"; }
}
tap_check "pid_exiting_at_attach_is_one_line" t_exits_early

t_wrong_procfs() {
	# A new pid namespace that still sees the parent's /proc: the access
	# check would name other tasks, so SETUP refuses and says what to do.
	command -v unshare >/dev/null || { echo "# no unshare"; return 0; }
	run_status 1 unshare -p -f ispotctl run --func acquire -- "$lock" \
		--iterations 1 && one_line_err "mount -t proc proc /proc"
}
tap_check "procfs_of_another_pid_namespace_exit_1" t_wrong_procfs

t_secure_exec() {
	# Root running a set-group-ID program becomes not dumpable at the
	# exec, so tracing stops there (as perf does); the command still runs
	# and its status comes back.
	cp "$lock" "$tmp/sgid_lock" && chgrp 65534 "$tmp/sgid_lock" &&
		chmod 2755 "$tmp/sgid_lock" || return 1
	run_status 0 ispotctl run --func acquire -- "$tmp/sgid_lock" \
		--iterations 10 --threads 2 &&
		one_line_err "executed a privileged .* program: tracing stopped" &&
		grep -q "tracing stopped when pid" "$tmp/out" ||
		{ sed 's/^/# out: /' "$tmp/out"; return 1; }
}
tap_check "set_group_id_exec_stops_tracing_with_one_line" t_secure_exec

t_no_leak() {
	# Every session above was closed: only status's own is open.
	run_status 0 ispotctl status --json &&
		grep -q '"sessions": 1,' "$tmp/out" &&
		grep -q '"ring_bytes": 0,' "$tmp/out" ||
		{ cat "$tmp/out"; return 1; }
}
tap_check "no_session_or_ring_left_behind" t_no_leak

tap_done
