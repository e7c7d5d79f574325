#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ispotd in the guest: targets found by executable (across restarts) and by
# cgroup, the overhead budget and what duty cycling does to SCI, signals,
# a SIGKILL that leaves nothing armed, a full ring, thread churn, and bad
# configuration.  The module going away is ispotd_module_test.sh's: it
# unloads the module, which only single-threaded TCG does safely.
#
# Times are only compared with each other within this boot: the guest is
# emulated, 50-100 times slower than hardware.
. "$(dirname "$0")/tap.sh"
s=/ispot/samples
require_root
require_module
tmpdir_setup

tap_plan 22

# ONLY=REGEX runs the tests whose names match it, and skips the others
# (for working on one of them).
if [ -n "${ONLY:-}" ]; then
	tap_check() {
		if echo "$1" | grep -qE "$ONLY"; then
			n=$1
			shift
			if "$@"; then tap_ok "$n"; else tap_not_ok "$n"; fi
		else
			tap_skip "$1" "not in ONLY"
		fi
	}
	tap_timing() { tap_check "$@"; }
	tap_parallel() { tap_check "$@"; par_needs=; }
fi

# The longest tests check the daemon's own logic (the budget controller,
# the SCI it keeps, its memory), the same on every kernel: they run in
# full on the default kernel, 6.1, and the other kernels save the minutes
# (make check runs them all, and CI has 90).
on_default_kernel() { [ "${ISPOT_VM_KERNEL:-6.1}" = 6.1 ]; }
tap_default_kernel() {	# (with requirements set by par_need: tap_parallel)
	if ! on_default_kernel; then
		tap_skip "$1" "kernel-independent and long: runs on 6.1"
	elif [ -n "$par_needs" ]; then
		tap_parallel "$@"
	else
		tap_timing "$@"
	fi
	par_needs=
}

. "$(dirname "$0")/ispotd_lib.sh"

# --- bad configuration: one line naming the file and line, exit 2 -------
bad_config() {
	printf 'exe /bin/true\n# a comment\nfunc acquire\nbudgte 1%%\n' \
		>"$tmp/bad.conf"
	run_status 2 ispotd --config "$tmp/bad.conf" || return 1
	one_line_daemon_err "bad.conf:4:" || return 1
	printf 'exe /bin/true\nfunc acquire\nbudget 200%%\n' >"$tmp/bad.conf"
	run_status 2 ispotd --config "$tmp/bad.conf" || return 1
	one_line_daemon_err "bad.conf:3:" || return 1
	run_status 2 ispotd --config "$tmp/missing.conf" || return 1
	one_line_daemon_err "missing.conf" || return 1
	run_status 2 ispotd --func acquire || return 1
	one_line_daemon_err "" || return 1
	run_status 2 ispotd --exe /bin/true --func acquire --window 0 || return 1
	one_line_daemon_err "window"
}
tap_check bad_config_is_one_line_with_file_and_line bad_config

# --- targets that are not there ---------------------------------------------
# A --pid with no process is one line and exit 1 when it is all there is
# to trace, and so is a kernel thread's (kthreadd, pid 2); beside an --exe
# it is said, and the daemon runs on.  An --exe that is a link says which
# file it traces, one that is a script that its processes run the
# interpreter, and a --cgroup not made yet that it is not.  The pid is
# above pid_max (4194304 at most), so no process can have it.
absent_targets() {
	run_status 1 timeout 120 ispotd --pid 4194305 --pid 4194306 \
		--pid 4194305 --func acquire || return 1
	# One line a pid (a note on the proc connector may come before).
	sed 's/^/# stderr: /' "$tmp/err"
	[ "$(grep -c '^ispotd: no process with pid 419430[56]: check it with ps$' \
		"$tmp/err")" = 2 ] || return 1
	run_status 1 timeout 120 ispotd --pid 2 --func acquire &&
		grep -q "^ispotd: pid 2 is a kernel thread: " "$tmp/err" ||
		return 1
	ln -sf "$s/lock_contention" "$tmp/lc-link"
	printf '#!/bin/sh\nexec sleep 1\n' >"$tmp/script.sh"
	chmod +x "$tmp/script.sh"
	cg=
	[ -e /sys/fs/cgroup/cgroup.controllers ] &&
		cg="--cgroup /ispot-not-made"
	# shellcheck disable=SC2086 # $cg: none or two words
	ispotd --pid 4194305 --exe "$tmp/not-yet" --exe "$tmp/lc-link" \
		--exe "$tmp/script.sh" $cg \
		--func acquire --log "$tmp/absent.jsonl" 2>"$tmp/err" &
	dpid=$!
	daemon_ready "$tmp/err"
	ready=$?
	stop_daemon "$dpid"
	st=$?
	sed 's/^/# stderr: /' "$tmp/err"
	[ "$ready" = 0 ] && [ "$st" = 0 ] &&
		grep -q "^ispotd: no process with pid 4194305: .*other targets" \
			"$tmp/err" &&
		grep -q "^ispotd: no file $tmp/not-yet yet" "$tmp/err" &&
		grep -q "^ispotd: --exe $tmp/lc-link is $s/lock_contention: " \
			"$tmp/err" &&
		grep -q "^ispotd: --exe $tmp/script.sh is a script: " "$tmp/err" &&
		{ [ -z "$cg" ] ||
		  grep -q "^ispotd: no cgroup /ispot-not-made yet" "$tmp/err"; }
}
tap_check absent_pid_is_an_error_absent_exe_a_note absent_targets

# bursts_at_least LOG N: the windows written so far hold N bursts.
bursts_at_least() {
	[ "$(wfield "$1" .bursts 2>/dev/null |
		awk '{ n += $1 } END { print n + 0 }')" -ge "$2" ]
}
# One --func the target lacks: the others are traced, and it is said once
# however many bursts find it missing.
lacked_func() {
	long_target
	ispotd --pid "$tpid" --func acquire --func no_such_function \
		--budget 20% --window 1s --log "$tmp/lacked.jsonl" \
		2>"$tmp/lacked.err" &
	dpid=$!
	daemon_ready "$tmp/lacked.err" &&
		wait_for 180 bursts_at_least "$tmp/lacked.jsonl" 3
	stop_daemon "$dpid"
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	bursts=$(wfield "$tmp/lacked.jsonl" .bursts | awk '{ n += $1 } END { print n + 0 }')
	calls=$(fsum "$tmp/lacked.jsonl" acquire calls)
	said=$(grep -c no_such_function "$tmp/lacked.err")
	echo "# $bursts bursts, $calls calls of acquire, the missing function said $said time(s)"
	sed 's/^/# stderr: /' "$tmp/lacked.err"
	[ "$bursts" -ge 3 ] && [ "${calls:-0}" -gt 0 ] && [ "$said" = 1 ] &&
		grep -q "no_such_function.*: traced without it$" "$tmp/lacked.err"
}

# A glob that matches a function uprobes cannot step over among others:
# glibc's pthread_spin_lock() starts with 'lock decl' (samples/spinlock.c),
# its siblings do not.  They are traced, it is said once however many
# bursts resolve the glob, and the burst still arms.  It used to be left
# out without a word.
glob_partly_unsteppable() {
	"$s/spinlock" --threads 2 --delay-us 100 --iterations 1000000 \
		>/dev/null &
	tpid=$!
	ispotd --pid "$tpid" --func 'pthread_spin_*' --budget 20% \
		--window 1s --log "$tmp/spin.jsonl" 2>"$tmp/spin.err" &
	dpid=$!
	daemon_ready "$tmp/spin.err" &&
		wait_for 180 bursts_at_least "$tmp/spin.jsonl" 3
	stop_daemon "$dpid"
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	bursts=$(wfield "$tmp/spin.jsonl" .bursts | awk '{ n += $1 } END { print n + 0 }')
	calls=$(wfield "$tmp/spin.jsonl" .calls_armed | awk '{ n += $1 } END { print n + 0 }')
	said=$(grep -c "starts with an instruction uprobes cannot step over" "$tmp/spin.err")
	echo "# $bursts bursts, $calls calls of the rest, the left-out function said $said time(s)"
	sed 's/^/# stderr: /' "$tmp/spin.err"
	[ "$bursts" -ge 3 ] && [ "$calls" -gt 0 ] && [ "$said" = 1 ] &&
		grep -q "'pthread_spin_lock'.*; the rest of it is traced$" \
			"$tmp/spin.err"
}

# --- --exe across restarts, two targets side by side ---------------------
# Each run lasts until the daemon has written a window of it with armed
# calls (the debug kernel arms slowly), then ends; three runs, three pids.
exe_restarts() {
	ispotd --exe "$s/lock_contention" --exe "$s/no_contention" \
		--func acquire --budget 0 --window 2s --log "$tmp/exe.jsonl" \
		2>"$tmp/exe.err" &
	dpid=$!
	daemon_ready "$tmp/exe.err" || return 1
	par_stats exe-ctl
	long_run no_contention
	cpid=$bg
	par_stats exe-lock
	traced=0
	for i in 1 2 3; do
		contended_run
		run_until_traced "$tmp/exe.jsonl" "$bg" && traced=$((traced + 1))
	done
	par_stats_off
	run_until_traced "$tmp/exe.jsonl" "$cpid" || traced=0
	sleep 3
	stop_daemon "$dpid" || { echo "# ispotd exit $?"; return 1; }
	sed 's/^/# /' "$tmp/exe.err" | head -20
	grep '/lock_contention"' "$tmp/exe.jsonl" >"$tmp/lock.jsonl"
	lock_pids=$(wfield "$tmp/lock.jsonl" .target.pid | sort -u | wc -l)
	echo "# lock_contention pids in the windows: $lock_pids, traced $traced"
	[ "$lock_pids" -eq 3 ] && [ "$traced" -eq 3 ]
}
tap_check exe_target_reattached_after_three_restarts exe_restarts

exe_ranks() {
	grep '/no_contention"' "$tmp/exe.jsonl" >"$tmp/ctl.jsonl"
	lock=$(fsci "$tmp/lock.jsonl" acquire)
	ctl=$(fsci "$tmp/ctl.jsonl" acquire)
	echo "# acquire SCI: contended $lock, control $ctl"
	echo "# lock_contention: $(par_line "$tmp/exe-lock.par"); no_contention: $(par_line "$tmp/exe-ctl.par")"
	lt 0.10 "$lock" && lt "$(awk -v c="$ctl" 'BEGIN { print 3 * c }')" "$lock"
}
# The targets' own timing (written as they were stopped) says whether
# they were what the test takes them for: the lock's threads waited for
# it, three times as long as the control's; if not, a busy host, and the
# test skips (tap.sh, tap_parallel).
par_need contended "$tmp/exe-lock.par"
par_need above "$tmp/exe-lock.par" "$tmp/exe-ctl.par" 3
tap_parallel contended_acquire_above_control_in_windows exe_ranks

# --- --cgroup follows processes the cgroup gains --------------------------
cgroup_follows() {
	grep -qw cgroup2 /proc/filesystems ||
		{ echo "# no cgroup2 in this kernel"; return 1; }
	if ! grep -q '^[^ ]* /sys/fs/cgroup cgroup2 ' /proc/mounts; then
		mount -t cgroup2 none /sys/fs/cgroup ||
			{ cat /proc/mounts | sed 's/^/# /'; return 1; }
	fi
	cg=/sys/fs/cgroup/ispotd-test
	mkdir -p "$cg" || return 1
	ispotd --cgroup /ispotd-test --func acquire --budget 0 --window 1s \
		--log "$tmp/cg.jsonl" 2>"$tmp/cg.err" &
	dpid=$!
	daemon_ready "$tmp/cg.err" || return 1
	long_run lock_contention
	lpid=$bg
	echo "$lpid" >"$cg/cgroup.procs"
	run_until_traced "$tmp/cg.jsonl" "$lpid"
	ok=$?
	sleep 2
	stop_daemon "$dpid"
	rmdir "$cg"
	calls=$(fsum "$tmp/cg.jsonl" acquire calls "$lpid")
	echo "# pid $lpid: $calls calls of acquire"
	[ "$ok" = 0 ] && grep -q '"cgroup": "/ispotd-test"' "$tmp/cg.jsonl" &&
		[ "${calls:-0}" -gt 0 ]
}
tap_check cgroup_target_follows_processes_moved_in cgroup_follows

# --- the budget and what it does to SCI ------------------------------------
# The full-armed overhead is measured here, untraced against always armed,
# on the same workload; the default budget's (1%) duty cycle times it must
# stay within the budget (with the noise stated: 50% over, in an emulated
# guest).  Two workloads: one that calls acquire() once per 20 us of work
# (the traps dominate: always armed costs ~100% here, so the duty cycle is
# ~0.01 and a burst, 0.5 s at least, comes every ~50 s) and a sparse
# caller, once per 300 us (the daemon's own time per record weighs more:
# its busy loop once cost 20 times what the traps did, unseen by the
# budget).  The run under the budget does six times the work of the
# others, and the overheads are compared per iteration
# (Documentation/evaluation.rst, "ispotd under a budget").
uptime_s() { cut -d' ' -f1 /proc/uptime; }
elapsed() {	# elapsed CMD...: wall seconds of CMD (to 10 ms)
	el_t0=$(uptime_s)
	"$@" >/dev/null 2>&1
	el_t1=$(uptime_s)
	awk -v a="$el_t0" -v b="$el_t1" 'BEGIN { printf "%.2f\n", b - a }'
}
budget_work() {	# budget_work DELAY_US ITERATIONS
	"$s/no_contention" --delay-us "$1" --threads 2 --iterations "$2"
}
# always_armed DELAY_US ITERATIONS: the work's wall seconds under ispotd
# --budget 0.
always_armed() {
	ispotd --exe "$s/no_contention" --func acquire --budget 0 \
		--window 60s --log "$tmp/full.jsonl" 2>"$tmp/full.err" &
	aa_pid=$!
	daemon_ready "$tmp/full.err" || { stop_daemon "$aa_pid"; return 1; }
	elapsed budget_work "$1" "$2"
	stop_daemon "$aa_pid"
}
min2() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b ? a : b) }'; }
budget_honoured() {	# budget_honoured DELAY_US ITERATIONS
	# Untraced and always armed twice each, interleaved, and the faster
	# of each pair: load from the host only ever adds time, and one
	# always-armed run slowed by a second VM once made the overhead
	# +159% against +24% (duty x full 3.8% then, failing a budget the
	# daemon had kept).
	t_none=$(elapsed budget_work "$1" "$2")
	t_full=$(always_armed "$1" "$2") || return 1
	t_none=$(min2 "$t_none" "$(elapsed budget_work "$1" "$2")")
	t_full=$(min2 "$t_full" "$(always_armed "$1" "$2")") || return 1
	ispotd --exe "$s/no_contention" --func acquire \
		--window 60s --log "$tmp/b5.jsonl" 2>"$tmp/b5.err" &
	dpid=$!
	daemon_ready "$tmp/b5.err" || return 1
	t_b=$(elapsed budget_work "$1" $(($2 * 6)))
	stop_daemon "$dpid"
	armed=$(wfield "$tmp/b5.jsonl" .armed_ns | awk '{ s += $1 } END { print s + 0 }')
	win=$(wfield "$tmp/b5.jsonl" .window_ns | awk '{ s += $1 } END { print s + 0 }')
	est=$(wfield "$tmp/b5.jsonl" .overhead_estimate | tail -n1)
	awk -v n="$t_none" -v f="$t_full" -v b="$t_b" -v a="$armed" -v w="$win" \
	    -v e="$est" 'BEGIN {
		full = f / n - 1; duty = w ? a / w : 0
		printf "# untraced %.2fs, always armed %.2fs (+%.1f%%), budget 1%%: %.2fs for 6 times the work (+%.1f%%), duty %.4f, duty x full %.2f%%, estimate %.2f%%\n",
			n, f, 100 * full, b, 100 * (b / (6 * n) - 1), duty, 100 * duty * full, 100 * e
		exit !(duty > 0 && duty < 1 && duty * full <= 0.01 * 1.5)
	}'
}
budget_dense() { budget_honoured 20 400000; }
budget_sparse() { budget_honoured 300 20000; }
tap_default_kernel budget_1pct_duty_times_full_overhead_within_budget budget_dense
tap_default_kernel budget_1pct_honoured_for_a_sparse_caller budget_sparse

# --- the daemon's own CPU while armed --------------------------------------
# The device stays readable while any record waits in a ring for the
# drain's horizon: a loop that polled for POLLIN then spun, and took
# 9.5 s of CPU in a 14 s run of this workload (a sparse caller: one call
# per 300 us), which is what the budget did not see.  CPU ticks of the
# daemon against the target's, in one run: a count, not a timing.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
children_ticks() {	# children_ticks CMD...: CPU ticks CMD used
	sh -c '"$@" >/dev/null 2>&1; awk "{ print \$16 + \$17 }" /proc/$$/stat' \
		sh "$@"
}
daemon_cpu_small() {
	ispotd --exe "$s/no_contention" --func acquire --budget 0 \
		--window 60s --log "$tmp/cpu.jsonl" 2>"$tmp/cpu.err" &
	dpid=$!
	daemon_ready "$tmp/cpu.err" || return 1
	c0=$(cpu_ticks "$dpid")
	tt=$(children_ticks "$s/no_contention" --delay-us 300 --threads 2 \
		--iterations 20000)
	c1=$(cpu_ticks "$dpid")
	stop_daemon "$dpid" || return 1
	grep -q '"calls_armed": [1-9]' "$tmp/cpu.jsonl" || return 1
	# The debug kernel makes the daemon's system calls (poll, ioctl,
	# /proc) several times dearer: 690 ticks against 4,406 there, 29 to
	# 38 against ~1,280 on the others; a spinning loop takes them all.
	limit=0.1
	[ "${ISPOT_VM_KERNEL:-}" != debug ] || limit=0.3
	awk -v d=$((c1 - c0)) -v t="$tt" -v l="$limit" 'BEGIN {
		printf "# ispotd %d ticks of CPU while the target used %d\n", d, t
		exit !(t > 0 && d < l * t)
	}'
}
tap_check daemon_cpu_while_armed_is_a_small_share_of_the_targets daemon_cpu_small

# agree_run BUDGET LOG: lock_contention under ispotd --budget BUDGET,
# its windows appended to LOG (ispotd appends).
agree_run() {
	: >"$tmp/agree.err"
	ispotd --exe "$s/lock_contention" --func acquire --budget "$1" \
		--window 60s --log "$2" 2>"$tmp/agree.err" &
	dpid=$!
	daemon_ready "$tmp/agree.err" || return 1
	ISPOT_SAMPLE_STATS=$tmp/agree.par "$s/lock_contention" --delay-us 100 \
		--hold-us 100 --threads 2 --iterations 6000 >/dev/null
	stop_daemon "$dpid"
}
# Always armed and at 20%, twice each and interleaved, so that a change
# in the host's load during the test falls on both.  Tolerance: a ratio
# from 0.5 to 2.0.  Single pairs on a loaded 2-core host measured 0.70
# to 1.44, and two pairs each in a fresh make check 1.74 (0.135 against
# 0.234, with the threads overlapping half their looks); tracing itself
# lengthens the critical section for as long as it is armed
# (Documentation/evaluation.rst), which duty cycling does not.
sci_agrees() {
	: >"$tmp/a0.jsonl"
	: >"$tmp/a20.jsonl"
	: >"$tmp/agree.par"
	for round in 1 2; do
		agree_run 0 "$tmp/a0.jsonl" && agree_run 20% "$tmp/a20.jsonl" ||
			return 1
	done
	full=$(fsci "$tmp/a0.jsonl" acquire)
	part=$(fsci "$tmp/a20.jsonl" acquire)
	duty=$(wfield "$tmp/a20.jsonl" .duty_cycle | tail -n1)
	echo "# acquire SCI always armed $full, duty-cycled $part (duty $duty), two runs each"
	echo "# lock_contention: $(par_line "$tmp/agree.par")"
	awk -v a="$full" -v b="$part" 'BEGIN {
		exit !(a > 0.05 && b > 0 && b / a > 0.5 && b / a < 2.0) }'
}
# Its floor (0.05) needs contention: skipped if the sample's own timing
# shows its threads hardly waited for the lock (tap.sh, tap_parallel).
par_need contended "$tmp/agree.par"
tap_default_kernel sci_duty_cycled_agrees_with_always_armed sci_agrees

# --- waits in the later bursts ----------------------------------------------
# The bursts after the first credit waits too.  The module once stopped
# the wait records before disarming the probes, and a burst shorter than
# that teardown (most bursts under a budget) saw its calls as on-CPU time
# only: futex 0 in every window after the first.  Four threads locking
# with no pause between wait in most bursts; the windows after the first
# are summed, as one may see little contention on a loaded host.
waits_in_later_bursts() {
	"$s/lock_contention" --threads 4 --delay-us 0 --hold-us 5 \
		--iterations 100000000 >/dev/null &
	tpid=$!
	ispotd --pid "$tpid" --func acquire --budget 5% --window 2s \
		--log "$tmp/later.jsonl" 2>"$tmp/later.err" &
	dpid=$!
	daemon_ready "$tmp/later.err" && sleep 12
	stop_daemon "$dpid"
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	tail -n +2 "$tmp/later.jsonl" >"$tmp/later2.jsonl"
	calls=$(fsum "$tmp/later2.jsonl" acquire calls)
	futex=$(fsum "$tmp/later2.jsonl" acquire causes.futex_ns)
	oncpu=$(fsum "$tmp/later2.jsonl" acquire causes.oncpu_ns)
	echo "# windows after the first: $(wc -l <"$tmp/later2.jsonl"), $calls calls, futex $futex ns, on-CPU $oncpu ns"
	[ "${calls:-0}" -gt 0 ] && [ "${futex:-0}" -gt 0 ]
}
tap_default_kernel futex_waits_credited_after_the_first_burst waits_in_later_bursts

# --- signals ----------------------------------------------------------------
long_target() {
	"$s/lock_contention" --delay-us 100 --hold-us 100 --threads 2 \
		--iterations 1000000 >/dev/null &
	tpid=$!
}
sessions() {	# how many sessions other than status's own
	echo $(($(ispotctl status --json | json_get - .sessions) - 1))
}
daemon_armed() { [ "$(sessions)" -ge 1 ]; }	# ispotd holds a session
ring_bytes() {
	ispotctl status --json | json_get - .ring_bytes
}

sigkill_leaves_nothing() {
	long_target
	ispotd --pid "$tpid" --func acquire --budget 0 --log /dev/null \
		2>/dev/null &
	dpid=$!
	wait_for 180 daemon_armed ||
		{ echo "# never armed"; return 1; }
	kill -KILL "$dpid"
	wait "$dpid" 2>/dev/null
	n=$(sessions)
	rb=$(ring_bytes)
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	echo "# after SIGKILL: $n sessions, $rb ring bytes"
	[ "$n" = 0 ] && [ "$rb" = 0 ]
}
tap_check sigkill_leaves_no_probe_and_no_ring sigkill_leaves_nothing

sigterm_writes_last_window() {
	long_target
	ispotd --pid "$tpid" --func acquire --budget 0 --window 1h \
		--log "$tmp/term.jsonl" 2>"$tmp/term.err" &
	dpid=$!
	daemon_ready "$tmp/term.err" || return 1
	# Armed: a session besides status's own, then some calls.
	wait_for 180 daemon_armed
	sleep 3
	stop_daemon "$dpid"
	st=$?
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	calls=$(fsum "$tmp/term.jsonl" acquire calls)
	echo "# exit $st, $(wc -l <"$tmp/term.jsonl") window(s), $calls calls"
	[ "$st" = 0 ] && [ "$(wc -l <"$tmp/term.jsonl")" -eq 1 ] &&
		[ "${calls:-0}" -gt 0 ]
}
tap_check sigterm_writes_the_last_window_and_exits_0 sigterm_writes_last_window
tap_check a_func_the_target_lacks_is_said_once lacked_func
# Its premise: this libc's pthread_spin_lock() starts with LOCK (the
# guest's is the host's Debian glibc; a CET build would start it with
# endbr64, which uprobes step over, and the test would say nothing).
spin_lock_unsteppable() {
	ispotctl run --func pthread_spin_lock -- "$s/spinlock" \
		--iterations 10 >/dev/null 2>"$tmp/spin.pre"
	grep -q "cannot step over" "$tmp/spin.pre"
}
if spin_lock_unsteppable; then
	tap_check a_globs_unsteppable_match_is_said_once_the_rest_traced \
		glob_partly_unsteppable
else
	tap_skip a_globs_unsteppable_match_is_said_once_the_rest_traced \
		"pthread_spin_lock() does not start with LOCK here"
fi

sighup_reloads() {
	long_target
	printf 'pid %s\nfunc acquire\nbudget 0\nwindow 1s\n' "$tpid" \
		>"$tmp/hup.conf"
	ispotd --config "$tmp/hup.conf" --log "$tmp/hup.jsonl" \
		2>"$tmp/hup.err" &
	dpid=$!
	daemon_ready "$tmp/hup.err" || return 1
	# A bad file is refused and the running configuration kept...
	printf 'pid %s\nfunc acquire\nbogus 1\n' "$tpid" >"$tmp/hup.conf"
	kill -HUP "$dpid"
	# Never a fixed sleep: a busy host may take seconds to deliver it.
	wait_for 120 grep -q 'hup.conf:3:' "$tmp/hup.err"
	kill -0 "$dpid" || { echo "# died on a bad reload"; return 1; }
	# ...a good one takes effect: a second function appears.
	printf 'pid %s\nfunc acquire\nfunc compute\nbudget 0\nwindow 1s\n' \
		"$tpid" >"$tmp/hup.conf"
	kill -HUP "$dpid"
	wait_for 180 sh -c "grep -q '\"name\": \"compute\"' '$tmp/hup.jsonl'"
	stop_daemon "$dpid"
	st=$?
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	sed 's/^/# /' "$tmp/hup.err"
	[ "$st" = 0 ] && grep -q 'hup.conf:3:' "$tmp/hup.err" &&
		[ "$(fsum "$tmp/hup.jsonl" compute calls)" -gt 0 ]
}
tap_check sighup_rereads_config_and_keeps_it_when_bad sighup_reloads

# A reload whose log cannot be opened is refused as a bad line is: one
# line says so, and the windows go on to the log in use.  It used to close
# that log first and then write the windows nowhere, metrics still
# counting.
hup_conf() {	# hup_conf LOG: the config of sighup_bad_log
	printf 'pid %s\nfunc acquire\nbudget 0\nwindow 1s\nlog %s\n' \
		"$tpid" "$1" >"$tmp/keep.conf"
}
log_grew() { [ "$(wc -l <"$tmp/keep.jsonl")" -gt "$1" ]; }
sighup_bad_log() {
	long_target
	hup_conf "$tmp/keep.jsonl"
	ispotd --config "$tmp/keep.conf" 2>"$tmp/keep.err" &
	dpid=$!
	daemon_ready "$tmp/keep.err" || return 1
	wait_for 180 armed_window "$tmp/keep.jsonl" "$tpid" ||
		echo "# no window before the reload"
	hup_conf /proc/nope/x.jsonl
	said=$(wc -l <"$tmp/keep.err")
	kill -HUP "$dpid"
	wait_for 120 grep -q '/proc/nope/x.jsonl' "$tmp/keep.err"
	kept=$(wc -l <"$tmp/keep.jsonl")
	# Windows of 1 s: more lines within a minute, even on a busy host.
	wait_for 60 log_grew "$kept"
	grew=$?
	kill -0 "$dpid"
	alive=$?
	stop_daemon "$dpid"
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	tail -n +$((said + 1)) "$tmp/keep.err" >"$tmp/keep.new"
	sed 's/^/# after SIGHUP: /' "$tmp/keep.new"
	echo "# $kept window(s) before, $(wc -l <"$tmp/keep.jsonl") at the end"
	[ "$alive" = 0 ] && [ "$grew" = 0 ] &&
		[ "$(grep -c 'nope\|reload\|keeping' "$tmp/keep.new")" = 1 ] &&
		grep -q '^ispotd: cannot write /proc/nope/x.jsonl .*keeping the running configuration' \
			"$tmp/keep.new"
}
tap_check sighup_keeps_the_log_when_the_new_one_cannot_be_opened sighup_bad_log

# --- a full ring: counted, never blocking ---------------------------------
full_ring() {
	ispotd --exe "$s/no_contention" --func acquire --budget 0 \
		--ring-size 4096 --window 2s --log "$tmp/full-ring.jsonl" \
		2>"$tmp/full-ring.err" &
	dpid=$!
	daemon_ready "$tmp/full-ring.err" || return 1
	"$s/no_contention" --threads 2 --iterations 100000000 >/dev/null &
	bg=$!
	# Until a window says it dropped; the target must still be running.
	wait_for 180 sh -c "grep -q '\"dropped\": [1-9]' '$tmp/full-ring.jsonl'"
	kill -0 "$bg"
	st=$?
	kill "$bg"
	wait "$bg" 2>/dev/null
	stop_daemon "$dpid"
	dropped=$(wfield "$tmp/full-ring.jsonl" .events.dropped | awk '{ s += $1 } END { print s + 0 }')
	echo "# $dropped records dropped"
	[ "$st" = 0 ] && [ "$dropped" -gt 0 ]
}
tap_check full_ring_counts_drops_and_never_blocks full_ring

# --- memory: a target that ends many threads -------------------------------
# A thread per request, every request taking one shared lock: a warm-up
# run, then runs of four times as many threads each.  Memory that follows
# the live threads reaches a plateau; a leak grows with every run.  The
# daemon's heap (RssAnon: the rings are shared memory of a fixed size) is
# read after each run, and judged only after the warm-up, which may raise
# it (596 -> 720 -> 720 kB on the debug kernel): the later runs are
# compared with each other, never with the first reading.  The
# daemon's tables grow by doubling, so a run may still raise the plateau
# once: a loaded host slows one run more than another, and a faster run
# has more threads live, or exited within the folding delay, at a time.
# So when the last run grew the heap by more than a tenth, one more run
# tells a table that doubled (flat again) from a leak (growing again).
# The guest starts ~300 threads a second.
churn_anon_kb() {
	awk '/RssAnon/ { print $2 }' "/proc/$1/status"
}

# heap_flat BEFORE AFTER: AFTER (kB) at most a tenth above BEFORE.
heap_flat() { [ "$2" -le $(($1 + $1 / 10)) ]; }

# churn_heap LOG ROUNDS [ISPOTD OPTION...]: the warm-up and the runs under
# one always-armed ispotd window; the heap after each in kb0 (the
# warm-up), kb1, kb2 and, while the run before it grew the heap, kb3 and
# kb4.
churn_heap() {
	log=$1 rounds=$2
	shift 2
	# One window over the whole churn: every thread ends inside it,
	# and only folding keeps the daemon flat.
	ispotd --exe "$s/thread_churn" --func churn_request --budget 0 \
		--window 1h --log "$log" "$@" 2>"$log.err" &
	dpid=$!
	daemon_ready "$log.err" || return 1
	churn="$s/thread_churn --threads 4 --hold-us 20"
	$churn --rounds "$rounds" >/dev/null
	sleep 3
	kb0=$(churn_anon_kb "$dpid")
	$churn --rounds $((4 * rounds)) >/dev/null
	sleep 3
	kb1=$(churn_anon_kb "$dpid")
	$churn --rounds $((4 * rounds)) >/dev/null
	sleep 3
	kb2=$(churn_anon_kb "$dpid")
	kb3= kb4=
	if ! heap_flat "$kb1" "$kb2"; then
		$churn --rounds $((4 * rounds)) >/dev/null
		sleep 3
		kb3=$(churn_anon_kb "$dpid")
		if ! heap_flat "$kb2" "$kb3"; then
			$churn --rounds $((4 * rounds)) >/dev/null
			sleep 3
			kb4=$(churn_anon_kb "$dpid")
		fi
	fi
	stop_daemon "$dpid"
	echo "# ispotd heap (RssAnon) ${kb0} kB after a warm-up of $((4 * rounds)) threads, then ${kb1}, ${kb2}${kb3:+, $kb3}${kb4:+, $kb4} kB after runs of $((16 * rounds)) threads each"
}

# Flat after the warm-up: the last run did not grow the heap, or, if it
# did, one of the two after it did not.  A leak grows it in every run; a
# heap that is a peak (the lossy runs below: the threads held when the
# target ends) can rise twice by chance: seen once on 6.1, 1540, 3500 and
# 4092 kB, with the leak the lossy test was written for mended.
churn_flat() {
	heap_flat "$kb1" "$kb2" && return 0
	[ -n "$kb3" ] && heap_flat "$kb2" "$kb3" && return 0
	[ -n "$kb4" ] && heap_flat "$kb3" "$kb4" && return 0
	echo "# the heap grew in the runs after the warm-up: a leak"
	return 1
}

thread_churn() {
	# 90,000 threads on 6.1; 36,000 on the other kernels, and on the
	# debug kernel, which starts threads ~10 times slower, 10,800.
	rounds=2500
	on_default_kernel || rounds=1000
	[ "${ISPOT_VM_KERNEL:-}" != debug ] || rounds=300
	rounds=${CHURN_ROUNDS:-$rounds}
	churn_heap "$tmp/churn.jsonl" "$rounds" || return 1
	calls=$(fsum "$tmp/churn.jsonl" churn_request calls)
	threads=$(fsum "$tmp/churn.jsonl" churn_request threads)
	echo "# in one window: $calls calls, $threads threads scored"
	[ "${calls:-0}" -ge $((32 * rounds)) ] &&
		[ "${threads:-0}" -ge $((32 * rounds)) ] ||
		{ echo "# fewer than $((32 * rounds)) calls or threads scored"; return 1; }
	churn_flat
}
tap_check rss_flat_across_thread_churn thread_churn

# The same with rings too small to keep up: thread exit records are
# dropped, and the threads they would have ended are closed by the scans
# of /proc instead of being held for as long as the target runs.  Each
# run is a target of its own, freed when it exits, so the heap after it
# is its peak: the threads of the last WINDOW_FORGET_DELAY_NS held at the
# churn's rate.  A thread whose TASK_NEW and EXITs were all dropped used
# to stay in the pairing for the target's life, unknown to the scans
# (2% of the threads, ~2 KB each), which raised and spread those peaks:
# the heap grew in both runs once (672, 1016, 1192 kB).
thread_churn_lossy() {
	rounds=500
	[ "${ISPOT_VM_KERNEL:-}" != debug ] || rounds=150
	churn_heap "$tmp/lossy.jsonl" "$rounds" --ring-size 4K || return 1
	dropped=$(wfield "$tmp/lossy.jsonl" .events.dropped | awk '{ s += $1 } END { print s + 0 }')
	lost=$(wfield "$tmp/lossy.jsonl" .events.exits_lost | awk '{ s += $1 } END { print s + 0 }')
	gone=$(wfield "$tmp/lossy.jsonl" .events.dropped_time_ns |
		awk '{ s += $1 } END { printf "%.0f", s }')
	echo "# $dropped records dropped, $lost threads closed by a scan," \
		"$gone ns of threads' time left out"
	[ "$dropped" -gt 0 ] && [ "$lost" -gt 0 ] && [ "$gone" -gt 0 ] &&
		churn_flat
}
tap_check rss_flat_when_the_rings_drop_thread_exits thread_churn_lossy

# --- a target that execs away and one that exits ---------------------------
target_exit() {
	ispotd --exe "$s/lock_contention" --func acquire --budget 0 \
		--window 2s --log "$tmp/exit.jsonl" 2>"$tmp/exit.err" &
	dpid=$!
	daemon_ready "$tmp/exit.err" || return 1
	long_run lock_contention
	run_until_traced "$tmp/exit.jsonl" "$bg" || return 1
	wait_for 60 grep -q 'is gone' "$tmp/exit.err"
	kill -0 "$dpid"
	alive=$?
	stop_daemon "$dpid"
	[ "$alive" = 0 ] && grep -q 'is gone' "$tmp/exit.err" &&
		[ "$(wc -l <"$tmp/exit.jsonl")" -ge 1 ]
}
tap_check daemon_survives_target_exit target_exit

# The process lives on as cat (reading a pipe that sleep holds open).
target_execs_away() {
	ispotd --exe "$s/lock_contention" --func acquire --budget 0 \
		--window 2s --log "$tmp/away.jsonl" 2>"$tmp/away.err" &
	dpid=$!
	daemon_ready "$tmp/away.err" || return 1
	sleep 60 | "$s/lock_contention" --delay-us 100 --hold-us 100 \
		--threads 2 --iterations 3000 --then-exec /bin/cat >/dev/null &
	apid=$!
	wait_for 180 grep -q "pid $apid is gone: it exec'd" "$tmp/away.err"
	found=$?
	kill -0 "$dpid"
	alive=$?
	stop_daemon "$dpid"
	kill "$apid" 2>/dev/null
	grep "pid $apid" "$tmp/away.err" | sed 's/^/# /'
	[ "$found" = 0 ] && [ "$alive" = 0 ] &&
		[ "$(fsum "$tmp/away.jsonl" acquire calls "$apid")" -gt 0 ]
}
tap_check daemon_drops_a_target_that_execs_away target_execs_away

# --- targets that come and go while others are armed ----------------------
# Ten short programs at once, three times over, all armed (--budget 0):
# adding a target grows the daemon's list of them and dropping one fills
# its place, while the others' bursts hold callbacks into them.  It used
# to move the targets themselves, and ispotd died of a SIGSEGV in the
# frame check of a burst whose target had moved (3 runs in 3).  A program
# that ends before it is traced is routine here: no error line says so.
short_crowd() {
	crowd=
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$s/short_lived" --threads 2 --iterations 50 >/dev/null &
		crowd="$crowd $!"
	done
	wait $crowd
}
targets_come_and_go() {
	ispotd --exe "$s/short_lived" --func acquire --budget 0 --window 2s \
		--log "$tmp/crowd.jsonl" 2>"$tmp/crowd.err" &
	dpid=$!
	daemon_ready "$tmp/crowd.err" || return 1
	for round in 1 2 3; do
		short_crowd
		kill -0 "$dpid" 2>/dev/null || break
	done
	# Let the last ones be dropped, and a window close after them.
	sleep 3
	kill -0 "$dpid" 2>/dev/null
	alive=$?
	stop_daemon "$dpid"
	st=$?
	found=$(grep -c 'tracing pid' "$tmp/crowd.err")
	gone=$(grep -c 'exited before tracing\|no process with pid' \
		"$tmp/crowd.err")
	echo "# $found targets found, alive $alive, exit $st, $gone gone lines"
	[ "$alive" = 0 ] || tail -n 3 "$tmp/crowd.err" | sed 's/^/# /'
	[ "$alive" = 0 ] && [ "$st" = 0 ] && [ "$found" -ge 2 ] &&
		[ "$gone" = 0 ]
}
tap_check daemon_survives_targets_coming_and_going_while_armed \
	targets_come_and_go

tap_done
