# SPDX-License-Identifier: GPL-2.0
# What the ispotd selftests share (sourced after tap.sh, with $tmp set).

# one_line_daemon_err REGEX: stderr is one "ispotd: ..." line matching it.
one_line_daemon_err() {
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^ispotd: .*$1" "$tmp/err" ||
		{ sed 's/^/# stderr: /' "$tmp/err"; return 1; }
}

# wfield LOG PATH [PID]: the value at PATH (.bursts, .events.dropped) of
# every window line (of PID), one a line.  LOG - reads stdin.
wfield() {
	if [ -n "${3:-}" ]; then
		json_get "$1" .target.pid "$2" |
			awk -F '\t' -v pid="$3" '$1 == pid { print $2 }'
	else
		json_get "$1" "$2"
	fi
}

# fsum LOG FN FIELD [PID]: FIELD (calls, loss_ns...) of function FN summed
# over the windows (of PID); running totals ("totals") are left out.
fsum() {
	json_get "$1" .target.pid ".functions[name=$2].$3" |
		awk -F '\t' -v pid="${4:-}" '
		pid == "" || $1 == pid { sum += $2 }
		END { printf "%.0f\n", sum }'
}

# fsci LOG FN [PID]: the function's SCI over every window (of PID): the
# sum of its losses over the sum of the thread time it was observed, which
# is each window's loss over its SCI.
fsci() {
	json_get "$1" .target.pid ".functions[name=$2].loss_ns" \
		".functions[name=$2].sci" | awk -F '\t' -v pid="${3:-}" '
		(pid == "" || $1 == pid) && $3 > 0 { L += $2; T += $2 / $3 }
		END { printf "%.4f\n", (T > 0 ? L / T : 0) }'
}

# scrape PORT: ispotd's metrics text on stdout (its --listen 127.0.0.1:
# PORT).  busybox 1.35's wget -T crashes (SIGSEGV, whatever the server):
# timeout instead.
scrape() {
	timeout 20 wget -q -O - "http://127.0.0.1:$1/metrics"
}

wait_for() {	# wait_for SECONDS CMD...: until CMD succeeds
	wf_n=$1
	shift
	while [ "$wf_n" -gt 0 ]; do
		"$@" && return 0
		sleep 1
		wf_n=$((wf_n - 1))
	done
	return 1
}

stop_daemon() {	# stop_daemon PID: SIGTERM, and its exit status
	kill -TERM "$1" 2>/dev/null
	wait "$1"
}


# daemon_ready ERRFILE: ispotd has measured its probe cost, after which it
# finds and arms targets (slow on the debug kernel: never a fixed sleep).
daemon_ready() {
	# -s: the daemon's shell may not have made ERRFILE yet.
	wait_for 180 grep -qs 'a probed call costs\|cannot measure' "$1" ||
		{ echo "# ispotd never got ready"; sed 's/^/# /' "$1"; return 1; }
}

# armed_window LOG PID: a window of PID with armed calls has been written.
armed_window() {
	grep "\"pid\": $2," "$1" 2>/dev/null | grep -q '"calls_armed": [1-9]'
}

# run_until_traced LOG PID: wait until PID shows in a window with calls,
# then end it; false if that never happened.
run_until_traced() {
	wait_for 180 armed_window "$1" "$2"
	rt_ok=$?
	kill "$2" 2>/dev/null
	wait "$2" 2>/dev/null
	return $rt_ok
}

long_run() {	# long_run SAMPLE [ARGS]: in the background, pid in $bg
	lr_s=$1
	shift
	"$s/$lr_s" --delay-us 100 --hold-us 100 --threads 2 \
		--iterations 100000000 "$@" >/dev/null &
	bg=$!
}

# contended_run: long_run of lock_contention contended by design, not by
# luck, for the tests that rank it above its control (long_run
# no_contention): four threads, no delay between their turns, 200 us
# held.  While one holds the lock the other three wait for it, whether
# the vCPUs run at once or take turns.  With long_run's two threads an
# idle host once had them wait 10.1% of their time against the
# control's 6.1%, and the ranking skipped.
contended_run() {
	long_run lock_contention --threads 4 --delay-us 0 --hold-us 200
}
