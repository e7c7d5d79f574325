#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ispotctl top under a real terminal (tmux, copied into the guest with the
# UTF-8 locale it needs, as make check does: `selftests/vm/run.sh
# --add /usr/bin/tmux --add /usr/lib/locale/C.utf8`): the
# header and a row of figures, the sort and pause keys, a resize, and a
# clean exit (status 0, the terminal's modes, cursor and main screen back)
# on q, Ctrl-C and the target's exit; --from against a real ispotd
# --listen; the status line of ispotctl run on a terminal and never in a
# file; and bad input, one line each.
#
# Nothing here compares a time with a constant: the guest is emulated.
. "$(dirname "$0")/tap.sh"
s=/ispot/samples
lock=$s/lock_contention
require_root
command -v tmux >/dev/null ||
	tap_skip_all "no tmux in the guest: selftests/vm/run.sh --add /usr/bin/tmux --add /usr/lib/locale/C.utf8"
require_module
tmpdir_setup
# Ptys for tmux, loopback for the metrics endpoint.
grep -q ' /dev/pts ' /proc/mounts ||
	{ mkdir -p /dev/pts && mount -t devpts devpts /dev/pts; }
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
export TERM=xterm

. "$(dirname "$0")/ispotd_lib.sh"

tap_plan 17

T() { tmux -f /dev/null -S "$tmp/tmux.sock" "$@"; }
at_exit 'T kill-server 2>/dev/null'
screen() { T capture-pane -p -t top; }

# pane CMD: run CMD in a fresh 120x30 terminal.  Its exit status goes to
# $tmp/status, then the terminal's modes (stty -a) to $tmp/stty; the pane
# stays, so the screen left behind can be read.  The shell ignores
# Ctrl-C's SIGINT (a trap, so CMD still gets the default), as an
# interactive shell would, its job being in a process group of its own.
pane() {
	T kill-server 2>/dev/null
	# A new client that finds the old server's socket may connect to it
	# as it dies ("server exited unexpectedly"): without the socket, it
	# starts a server of its own.
	rm -f "$tmp/tmux.sock" "$tmp/status" "$tmp/stty"
	T new-session -d -s top -x 120 -y 30 \
		"trap : INT; $1; echo \"EXIT=\$?\" >$tmp/status; stty -a >$tmp/stty; echo PANE-DONE; sleep 100000"
}

# on_screen REGEX [SECONDS]: the pane shows a line matching REGEX (the
# debug kernel sets up a session slowly: a generous default).
on_screen() {
	wait_for "${2:-120}" sh -c "tmux -f /dev/null -S $tmp/tmux.sock capture-pane -p -t top | grep -qE -- '$1'" ||
		{ echo "# never on screen: $1"; screen | sed 's/^/# | /'; return 1; }
}

# ended WANT: the pane's command ended with status WANT, and left the
# terminal as it found it: main screen, cursor shown, line editing and
# echo on.
ended() {
	wait_for 120 test -s "$tmp/status" ||
		{ echo "# still running"; screen | sed 's/^/# | /'; return 1; }
	wait_for 10 test -s "$tmp/stty"
	grep -q "^EXIT=$1\$" "$tmp/status" ||
		{ echo "# $(cat "$tmp/status"), wanted $1"; return 1; }
	[ "$(T display -p -t top '#{alternate_on}')" = 0 ] ||
		{ echo "# still on the alternate screen"; return 1; }
	[ "$(T display -p -t top '#{cursor_flag}')" = 1 ] ||
		{ echo "# cursor still hidden"; return 1; }
	if grep -qE -- '(^| )-(icanon|echo|isig)( |$)' "$tmp/stty"; then
		echo "# terminal modes not restored:"
		sed 's/^/# /' "$tmp/stty"
		return 1
	fi
	screen | grep -q PANE-DONE
}

# The header's "up" time, to tell a frozen screen from a live one.
up_time() { screen | sed -n 's/.* up \([^ ]*\) .*/\1/p' | head -n1; }

target() {	# target: a long lock_contention in the background, pid in $bg
	"$lock" --delay-us 100 --hold-us 100 --threads 2 \
		--iterations 100000000 >/dev/null &
	bg=$!
}

stop_target() {
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
}

# --- the live view ------------------------------------------------------
target
pane "ispotctl top --pid $bg --func acquire --refresh 500ms 2>$tmp/err"

t_view() {
	on_screen "^ispotctl top: lock_contention \\(pid $bg\\)" || return 1
	on_screen '^ *INTERF +SCI +LOSS/s +CALLS/s +P99 +CAUSE +FUNCTION +OBJECT' ||
		return 1
	# Figures in the INTERF and SCI columns, and the others filled.
	on_screen '^ *[0-9.<]+% +[0-9.<]+% +[0-9.]+[num]?s/s +[0-9.]+k? +[0-9.]+[num]?s +[a-z]+ [0-9]+% +acquire +lock_contention$' ||
		return 1
	screen | sed -n '1,5s/^/# | /p'
	screen | grep -q 'last [0-9.]*m\{0,1\}s  sort: INTERF'
}
tap_check "header_and_a_row_with_figures" t_view

t_sort() {
	T send-keys -t top s
	on_screen 'sort: SCI' 20 || return 1
	T send-keys -t top s
	on_screen 'sort: LOSS/s' 20 || return 1
	T send-keys -t top s
	on_screen 'sort: CALLS/s' 20 || return 1
	T send-keys -t top s s
	on_screen 'sort: INTERF' 20
}
tap_check "s_changes_the_sort" t_sort

t_pause() {
	T send-keys -t top p
	on_screen '^PAUSED' 20 || return 1
	a=$(screen)
	sleep 3	# six refreshes
	[ "$a" = "$(screen)" ] || { echo "# a paused screen changed"; return 1; }
	T send-keys -t top p
	on_screen '^last ' 20 || return 1
	t1=$(up_time)
	wait_for 20 sh -c "[ \"\$(tmux -f /dev/null -S $tmp/tmux.sock capture-pane -p -t top | sed -n 's/.* up \([^ ]*\) .*/\1/p')\" != '$t1' ]"
}
tap_check "p_pauses_and_resumes" t_pause

# Smaller: OBJECT goes, nothing is left over from the wider screen, and
# the view goes on refreshing.
t_resize() {
	T resize-window -t top -x 80 -y 20 || return 1
	on_screen '^ *INTERF +SCI +LOSS/s +CALLS/s +P99 +CAUSE +FUNCTION$' 20 ||
		return 1
	screen >"$tmp/small"
	sed 's/^/# | /' "$tmp/small" | head -6
	[ "$(wc -l <"$tmp/small")" -le 20 ] || return 1
	if awk 'length($0) > 80' "$tmp/small" | grep -q .; then
		echo "# a line wider than 80"
		return 1
	fi
	if grep -q 'OBJECT\|acquire .*lock_contention' "$tmp/small"; then
		echo "# left over from the 120-column screen"
		return 1
	fi
	grep -qE '^ *[0-9.<]+% .* acquire$' "$tmp/small" || return 1
	t1=$(up_time)
	wait_for 20 sh -c "[ \"\$(tmux -f /dev/null -S $tmp/tmux.sock capture-pane -p -t top | sed -n 's/.* up \([^ ]*\) .*/\1/p')\" != '$t1' ]"
}
tap_check "resize_lays_out_again_and_goes_on" t_resize

t_quit() {
	T send-keys -t top q
	ended 0 || return 1
	[ ! -s "$tmp/err" ] || { sed 's/^/# err: /' "$tmp/err"; return 1; }
	# Back on the main screen: the view is gone from it.
	! screen | grep -q 'ispotctl top:'
}
tap_check "q_quits_with_the_terminal_restored" t_quit

t_ctrl_c() {
	pane "ispotctl top --pid $bg --func acquire --refresh 500ms 2>$tmp/err"
	on_screen 'acquire' || return 1
	T send-keys -t top C-c
	ended 0 && [ ! -s "$tmp/err" ]
}
tap_check "ctrl_c_ends_cleanly" t_ctrl_c

t_target_exit() {
	pane "ispotctl top --pid $bg --func acquire --refresh 500ms 2>$tmp/err"
	on_screen 'acquire' || return 1
	stop_target
	ended 0 || return 1
	sed 's/^/# err: /' "$tmp/err"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q "^ispotctl: process $bg exited after [0-9.]*s of tracing$" \
			"$tmp/err"
}
tap_check "target_exit_ends_top_with_a_message" t_target_exit
stop_target

# --- against ispotd's metrics --------------------------------------------
t_from_ispotd() {
	port=9464
	: >"$tmp/d.err"
	ispotd --exe "$lock" --func acquire --budget 0 --window 1s \
		--listen 127.0.0.1:$port --log "$tmp/d.log" 2>"$tmp/d.err" &
	d=$!
	daemon_ready "$tmp/d.err" || { stop_daemon $d; return 1; }
	target
	if ! wait_for 180 armed_window "$tmp/d.log" "$bg"; then
		echo "# ispotd never traced pid $bg"
		sed 's/^/# /' "$tmp/d.err"
		stop_target
		stop_daemon $d
		return 1
	fi
	pane "ispotctl top --from 127.0.0.1:$port --refresh 1s 2>$tmp/err"
	on_screen "^ispotctl top: ispotd at 127.0.0.1:$port, 1 target " &&
	on_screen '^ *INTERF +SCI +LOSS/s +CALLS/s +P99 +CAUSE +EXE +FUNCTION' &&
	on_screen '^ *[0-9.<]+% +[0-9.<]+% +[0-9.]+[num]?s/s +[0-9.]+k? +[0-9.]+[num]?s +[a-z]+ [0-9]+% +lock_contention +acquire' 90
	ok=$?
	screen | sed -n '1,5s/^/# | /p'
	# The daemon going away ends the view, as a target's exit does.
	stop_target
	stop_daemon $d
	ended 0 || ok=1
	sed 's/^/# err: /' "$tmp/err"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q "connection refused, 3 times in a row: is ispotd still running?\$" \
			"$tmp/err" || ok=1
	return $ok
}
tap_check "from_reads_a_running_ispotd_until_it_goes" t_from_ispotd

# ispotd --auto's picks, live: cond_turns waits in wait_turn(), which the
# daemon's profile picks (ispotd_auto_test.sh); top shows its wall share
# in an AUTO column.  Always armed once picked (--budget 0).
t_from_auto() {
	port=9465
	/ispot/samples/cond_turns --threads 4 --delay-us 2000 \
		--iterations 100000000 >/dev/null &
	ct=$!
	ispotd --pid "$ct" --auto=3 --auto-time 1s --budget 0 --window 1s \
		--listen 127.0.0.1:$port --log "$tmp/a.log" 2>"$tmp/a.err" &
	d=$!
	daemon_ready "$tmp/a.err" || { kill $ct; stop_daemon $d; return 1; }
	pane "ispotctl top --from 127.0.0.1:$port --refresh 1s 2>$tmp/err"
	on_screen '^ *INTERF +SCI +LOSS/s +CALLS/s +P99 +CAUSE +AUTO +EXE +FUNCTION' 180 &&
	on_screen '[a-z]+ [0-9]+% +[0-9.]+% +cond_turns +wait_turn' 90
	ok=$?
	screen | sed -n '1,8s/^/# | /p'
	kill "$ct"
	wait "$ct" 2>/dev/null
	stop_daemon $d
	ended 0 || ok=1
	return $ok
}
tap_check "from_shows_ispotd_auto_picks" t_from_auto

# --- the status line of run and attach -----------------------------------
t_progress() {
	# Long enough to be seen: a second-long run ended between two looks
	# at the screen once, its line drawn and erased in between.
	pane "ispotctl run --func acquire -- $lock --threads 2 --iterations 20000 --delay-us 100 --hold-us 100"
	on_screen '^\[ispot\] [0-9.]+s  [0-9.]+k? events/s  [0-9.]+k? dropped$' ||
		return 1
	ended 0 || return 1
	screen >"$tmp/after"
	# Erased before the report, and never in the way of the command's
	# own output: nothing of it is left.
	if ! grep -q '^Traced lock_contention' "$tmp/after" ||
	   ! grep -q '^lock_contention: 2 threads' "$tmp/after" ||
	   grep -q '\[ispot\]' "$tmp/after"; then
		sed 's/^/# | /' "$tmp/after"
		return 1
	fi
}
tap_check "progress_line_on_a_terminal_then_erased" t_progress

t_no_progress() {
	pane "ispotctl run --func acquire -- $lock --threads 2 --iterations 3000 --delay-us 100 --hold-us 100 2>$tmp/perr"
	ended 0 || return 1
	ispotctl run --func acquire -- "$lock" --iterations 1000 >/dev/null \
		2>>"$tmp/perr" || return 1
	if grep -q "$(printf '\r')\\|\\[ispot\\]" "$tmp/perr"; then
		echo "# a status line went to a file"
		return 1
	fi
}
tap_check "no_progress_line_in_a_file" t_no_progress

# --- bad input: one line, the documented status --------------------------
t_neither() {
	run_status 2 ispotctl top && one_line_err 'top needs --pid PID with --func SPEC, or --from ADDR:PORT'
}
tap_check "neither_pid_nor_from_is_a_usage_error" t_neither

t_both() {
	run_status 2 ispotctl top --pid 1 --func acquire --from 127.0.0.1:9464 &&
		one_line_err '--from reads what a running ispotd traces'
}
tap_check "pid_and_from_is_a_usage_error" t_both

t_bad_address() {
	run_status 2 ispotctl top --from 'localhost' &&
		one_line_err "'localhost' lacks a port" &&
	run_status 2 ispotctl top --from '127.0.0.1:99999' &&
		one_line_err "needs a port from 1 to 65535"
}
tap_check "bad_address_is_a_usage_error" t_bad_address

t_not_a_terminal() {
	run_status 2 ispotctl top --from 127.0.0.1:9464 &&
		one_line_err 'stdout is not one'
}
tap_check "not_a_terminal_refused" t_not_a_terminal

# These need a terminal to get as far as connecting.
t_closed_port() {
	pane "ispotctl top --from 127.0.0.1:1 2>$tmp/err"
	ended 1 || return 1
	sed 's/^/# err: /' "$tmp/err"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q '^ispotctl: cannot read http://127.0.0.1:1/metrics: connection refused; is ispotd running with --listen 127.0.0.1:1?$' "$tmp/err"
}
tap_check "from_a_closed_port_fails_in_one_line" t_closed_port

t_not_metrics() {
	mkdir -p "$tmp/www"
	echo hello >"$tmp/www/index.html"
	httpd -f -p 127.0.0.1:8081 -h "$tmp/www" &
	h=$!
	pane "ispotctl top --from 127.0.0.1:8081 2>$tmp/err"
	ended 1
	ok=$?
	kill $h
	wait $h 2>/dev/null
	sed 's/^/# err: /' "$tmp/err"
	[ $ok = 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q '^ispotctl: http://127.0.0.1:8081/metrics answered HTTP 404, not ispotd' "$tmp/err"
}
tap_check "from_another_server_fails_in_one_line" t_not_metrics

tap_done
