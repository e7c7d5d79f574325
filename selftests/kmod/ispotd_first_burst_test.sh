#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ispotd under its default 1% budget sees a program early: a program that
# lives about a second gets a burst, and a long one gets its first burst
# in its first window.  Before, the first burst came anywhere in a 20 s
# period (200 ms at 1%), so short programs and first windows saw nothing.
# Each test prints how long after the program's start its first armed
# window was written (an upper bound on the time to the first burst).
# The first window holds the budget as every other does: no window's
# overhead_estimate above it (user/daemon/budget.h, "Windows").  And the
# windows count what ispotd spends on the target.  Armed time, and a
# session's time, end when DISABLE is asked for.
. "$(dirname "$0")/tap.sh"
s=/ispot/samples
require_root
require_module
tmpdir_setup
. "$(dirname "$0")/ispotd_lib.sh"

tap_plan 4

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# bursts LOG PID: the bursts of PID's windows, summed.
bursts() {
	wfield "$1" .bursts "$2" | awk '{ n += $1 } END { print n + 0 }'
}

# first_armed_after LOG PID T0: seconds from T0 (uptime) until a window of
# PID with a burst was written, polled every 0.2 s for up to 60 s; empty
# if none came.
first_armed_after() {
	i=0
	while [ $i -lt 300 ]; do
		if [ "$(bursts "$1" "$2")" -gt 0 ]; then
			awk -v a="$3" -v b="$(uptime_s)" \
				'BEGIN { printf "%.1f\n", b - a }'
			return 0
		fi
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}

# A program of about a second (its untraced time is measured first).
short_lived() {
	t0=$(uptime_s)
	"$s/lock_contention" --delay-us 100 --hold-us 100 --threads 2 \
		--iterations 2000 >/dev/null
	alone=$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')
	: >"$tmp/short.err"
	ispotd --exe "$s/lock_contention" --func acquire --window 1s \
		--log "$tmp/short.jsonl" 2>"$tmp/short.err" &
	dpid=$!
	daemon_ready "$tmp/short.err" || return 1
	"$s/lock_contention" --delay-us 100 --hold-us 100 --threads 2 \
		--iterations 2000 >/dev/null &
	pid=$!
	wait "$pid"
	sleep 2
	stop_daemon "$dpid"
	n=$(bursts "$tmp/short.jsonl" "$pid")
	calls=$(fsum "$tmp/short.jsonl" acquire calls "$pid")
	rec=$(wfield "$tmp/short.jsonl" .events.recorded "$pid" |
		awk '{ n += $1 } END { print n + 0 }')
	echo "# a ${alone}s program (untraced): $n bursts," \
		"$rec events recorded, $calls calls"
	# The burst armed on the program: its threads' records came.  How
	# many calls fall in it is the budget's: at 1% in the emulated guest
	# a window pays its shortest burst (2 ms) from ENABLE, 0 to 43 calls
	# of this sample (the 1,000 seen before came from the probes left
	# recording through the waits' teardown, a kernel bug since mended).
	[ "$n" -ge 1 ] && [ "$rec" -gt 0 ]
}
tap_check short_lived_program_gets_a_burst_at_1pct short_lived

# A long program, windows of 3 s: the first of them has a burst.
first_window() {
	: >"$tmp/first.err"
	ispotd --exe "$s/lock_contention" --func acquire --window 3s \
		--log "$tmp/first.jsonl" 2>"$tmp/first.err" &
	dpid=$!
	daemon_ready "$tmp/first.err" || return 1
	t0=$(uptime_s)
	"$s/lock_contention" --delay-us 100 --hold-us 100 --threads 2 \
		--iterations 1000000 >/dev/null &
	pid=$!
	after=$(first_armed_after "$tmp/first.jsonl" "$pid" "$t0")
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	stop_daemon "$dpid"
	# The first two windows the target had 0.5 s of: one found in the
	# last 200 ms of a window is too young there for its CPU rate to
	# say what a burst may cost, and a first window cut short may not
	# pay a burst's daemon time (user/daemon/budget.h, "Windows").
	wfield "$tmp/first.jsonl" .window_ns "$pid" >"$tmp/first.ns"
	wfield "$tmp/first.jsonl" .bursts "$pid" >"$tmp/first.bursts"
	first=$(paste "$tmp/first.ns" "$tmp/first.bursts" |
		awk '$1 >= 500000000 && n < 2 { n++; b += $2 }
		     END { if (n) print b }')
	echo "# the first two windows' bursts: ${first:-none}; first armed window written ${after:-never}s after the start"
	# And no window over the budget, the first included: a 200 ms
	# first burst read 0.277 here.  The margin is the daemon's time on
	# a burst, which the budget knows only as an average (under a
	# loaded host it varies by half).  Where one burst's daemon time is
	# more than a whole window may spend, the windows with a burst go
	# over, and ispotd must say so: in the guest it often is (56 ms of
	# the daemon's time a burst against 45 ms at 1% of a 3 s window on
	# a loaded host; 0.24-0.38 s in single-threaded TCG), so this checks
	# mostly that it is said.  That the budget cuts the bursts is
	# test_daemon_budget_loop's every_window_holds_the_budget.
	# Of the windows 0.5 s long or more: one cut short (the last, at
	# ispotd's end) carries the last close's time (the close is shown
	# in the next window) over a sliver of the target's CPU time.
	wfield "$tmp/first.jsonl" .overhead_estimate "$pid" >"$tmp/first.est"
	est=$(paste "$tmp/first.ns" "$tmp/first.est" |
	      awk '$1 >= 500000000 { print $2 }' | sort -g | tail -n 1)
	echo "# overhead_estimate: $(wfield "$tmp/first.jsonl" \
		.overhead_estimate "$pid" | tr '\n' ' ')(largest ${est:-none})"
	for f in .window_ns .armed_ns .calls_armed .target_cpu_ns \
		 .daemon_cpu_ns .solo_blocks.gate_wait_ns; do
		echo "# $f: $(wfield "$tmp/first.jsonl" "$f" "$pid" |
			tr '\n' ' ')"
	done
	said=$(grep -c "one burst costs more than a window's budget" \
		"$tmp/first.err")
	echo "# said over budget: $said"
	# Where it is said, every burst after the first is the shortest (2
	# ms), and the armed time a burst is about that: it ends when DISABLE
	# is asked for, not when the ioctl returns after the wait records'
	# grace period (50 to 420 ms under single-threaded TCG, which read as
	# armed time, the bursts as ~200 ms that saw no call).  The first
	# burst is the budget's probe, before a burst's cost is known: up to
	# 200 ms (BUDGET_PROBE_BURST_NS) as the window's allowance fits it (61
	# ms was seen, alone in its window), so the first window with a burst
	# is held to that, and the later ones to the 2 ms bursts.  Means, for
	# a descheduled emulator now and then; the session's end is checked
	# apart (session_time_ends_when_disable_is_asked_for).
	wfield "$tmp/first.jsonl" .armed_ns "$pid" >"$tmp/first.armed"
	paste "$tmp/first.bursts" "$tmp/first.armed" >"$tmp/first.ab"
	per0=$(awk '$1 > 0 { printf "%.1f", $2 / $1 / 1e6; exit }' \
		"$tmp/first.ab")
	per=$(awk '$1 > 0 && seen++ { a += $2; n += $1 }
		   END { if (n) printf "%.1f", a / n / 1e6 }' "$tmp/first.ab")
	echo "# armed a burst: ${per0:-none} ms in the first window with one," \
		"${per:-none} ms after"
	[ -n "$after" ] && [ "${first:-0}" -ge 1 ] && [ -n "$est" ] &&
		{ lt "$est" 0.02 || [ "$said" = 1 ]; } &&
		{ [ "$said" != 1 ] || lt "${per0:-0}" 220; } &&
		{ [ "$said" != 1 ] || [ -z "$per" ] || lt "$per" 60; }
}
tap_check first_window_has_a_burst_within_the_1pct_budget first_window

# What ispotd spends on a target is what its budget holds: the windows'
# daemon_cpu_ns add up to most of the CPU time ispotd used while the
# target ran.  Counted: the bursts' sessions (arming, draining, closing
# them), the rounds of ispotd's loop that their rings and solo blocks
# wake, and the windows' closes.  Not counted: what no target caused
# (its idle rounds, the heap's trim after the closes).  In the 6.1 guest
# they counted 77-80% of it; before the loop and the sessions' close were
# counted, 58%.  At least 65%.
counted() {
	: >"$tmp/count.err"
	ispotd --exe "$s/lock_contention" --func acquire --func compute \
		--window 5s --log "$tmp/count.jsonl" 2>"$tmp/count.err" &
	dpid=$!
	daemon_ready "$tmp/count.err" || return 1
	t0=$(awk '{ print $14 + $15 }' "/proc/$dpid/stat")
	"$s/lock_contention" --delay-us 100 --hold-us 100 --threads 2 \
		--iterations 60000 >/dev/null &
	pid=$!
	wait "$pid"
	t1=$(awk '{ print $14 + $15 }' "/proc/$dpid/stat")
	stop_daemon "$dpid"
	# USER_HZ ticks: 10 ms each.
	used=$(((t1 - t0) * 10))
	sum=$(wfield "$tmp/count.jsonl" .daemon_cpu_ns "$pid" |
	      awk '{ s += $1 } END { printf "%.0f\n", s / 1e6 }')
	echo "# ispotd used ${used} ms while the target ran; its windows counted ${sum} ms (daemon_cpu_ns: $(wfield "$tmp/count.jsonl" .daemon_cpu_ns "$pid" | tr '\n' ' '))"
	[ "$used" -gt 0 ] && [ $((sum * 100)) -ge $((used * 65)) ]
}
tap_check windows_count_the_daemons_time_on_the_target counted

# A session's time ends when DISABLE is asked for, not when the ioctl
# returns after the wait records' grace period (190 to 240 ms more here,
# under single-threaded TCG): ispotctl's --duration 1s reports at most
# 1.1 s (1.0004 and 1.0055 s measured), and its threads' lives end there.
session_end() {
	"$s/lock_contention" --delay-us 100 --hold-us 100 --threads 2 \
		--iterations 100000000 >/dev/null &
	pid=$!
	sleep 1
	run_status 0 ispotctl attach --pid "$pid" --func acquire \
		--duration 1s --json -o "$tmp/end.json"
	ok=$?
	kill "$pid"
	wait "$pid" 2>/dev/null
	[ "$ok" = 0 ] || return 1
	d=$(json_get "$tmp/end.json" .duration_ns)
	echo "# --duration 1s: duration_ns $d"
	lt "$d" 1100000000
}
tap_check session_time_ends_when_disable_is_asked_for session_end

tap_done
