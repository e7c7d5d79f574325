#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ispotd --listen in the guest, with targets: /metrics scraped with
# busybox wget while lock_contention and its control run.  The SCI the
# counters give (loss over observed time), and the interference figure
# (interference over observed time), rank the contended acquire()
# above the control's, the counters never decrease across a target's
# restart, and --max-functions 1 folds the second function into
# function="(other)".  selftests/host/listen_test.sh has the server's own
# tests (limits, errors, promtool); this one has real windows.
#
# Needs real parallelism: scripts/check.sh runs it on multi-threaded TCG.
. "$(dirname "$0")/tap.sh"
s=/ispot/samples
require_root
require_module
tmpdir_setup
. "$(dirname "$0")/ispotd_lib.sh"

tap_plan 5

# The runner's init leaves lo down.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up


# value FILE SERIES: the value of the sample SERIES, empty if none.
value() {
	awk -v s="$2" 'index($0, s " ") == 1 { print $2; exit }' "$1"
}

# ratio FILE EXE FUNC [COUNTER]: loss (every cause; or COUNTER, e.g.
# ispot_interference_seconds_total) over observed time, as PromQL's
# sum(rate(loss)) / sum(rate(observed)) reads it over the daemon's life.
# The interference counter's time leaves solo blocks out
# (Documentation/ispotd.rst, "Metrics").
ratio() {
	local aside=none
	[ "${4:-}" != ispot_interference_seconds_total ] ||
		aside="ispot_solo_block_seconds_total{exe=\"$2\",function=\"$3\","
	awk -v l="${4:-ispot_loss_seconds_total}{exe=\"$2\",function=\"$3\"," \
	    -v o="ispot_observed_seconds_total{exe=\"$2\",function=\"$3\"," \
	    -v a="$aside" '
	index($0, l) == 1 { loss += $2 }
	index($0, o) == 1 { obs += $2 }
	index($0, a) == 1 { obs -= $2 }
	END { printf "%.4f\n", (obs > 0 ? loss / obs : 0) }' "$1"
}

calls() {	# calls FILE EXE FUNC
	awk -v c="ispot_calls_total{exe=\"$2\",function=\"$3\"," '
	index($0, c) == 1 { n += $2 } END { print n + 0 }' "$1"
}

# traced PORT EXE...: each EXE has calls of acquire in the metrics.
traced() {
	tr_port=$1
	shift
	scrape "$tr_port" >"$tmp/now.prom" 2>/dev/null || return 1
	for tr_exe in "$@"; do
		[ "$(calls "$tmp/now.prom" "$tr_exe" acquire)" -ge 500 ] ||
			return 1
	done
}

# no_decrease BEFORE AFTER: every counter sample of BEFORE is in AFTER,
# not smaller.
no_decrease() {
	awk 'FNR == NR {
		if ($1 ~ /^ispot_(calls|loss|observed|interference|external|events|duration)/)
			v[$1] = $2
		next
	}
	$1 in v {
		seen[$1] = 1
		if ($2 + 0 < v[$1] + 0) {
			print "# decreased: " $1 " " v[$1] " -> " $2
			bad = 1
		}
	}
	END {
		n = 0
		for (k in v) {
			n++
			if (!(k in seen)) { print "# gone: " k; bad = 1 }
		}
		print "# " n " counter samples compared"
		exit bad || n < 20
	}' "$1" "$2"
}

port=9464
: >"$tmp/m.err"
ispotd --exe "$s/lock_contention" --exe "$s/no_contention" --func acquire \
	--budget 0 --window 2s --log "$tmp/m.jsonl" \
	--listen "127.0.0.1:$port" 2>"$tmp/m.err" &
dpid=$!
daemon_ready "$tmp/m.err"
par_stats m-lock
contended_run
lpid=$bg
par_stats m-ctl
long_run no_contention
cpid=$bg
par_stats_off

# --- the contended acquire() ranks above the control's ----------------
# SCI by half again the control's: the control's own SCI is the noise
# floor, up to 0.13 on a loaded host (a check-all on 6.12 beside two
# guests gave 0.248 against 0.125, just under the twice it once asked);
# interference, which leaves the functions' own variance out, by twice.
ranks() {
	wait_for 240 traced "$port" lock_contention no_contention ||
		{ echo "# never traced both"; sed 's/^/# /' "$tmp/m.err"; return 1; }
	scrape "$port" >"$tmp/a.prom" || return 1
	lock=$(ratio "$tmp/a.prom" lock_contention acquire)
	ctl=$(ratio "$tmp/a.prom" no_contention acquire)
	# What the targets measured of themselves so far (SIGUSR1: a line).
	kill -USR1 "$lpid" "$cpid"
	wait_for 10 par_written "$tmp/m-lock.par" "$tmp/m-ctl.par"
	ilock=$(ratio "$tmp/a.prom" lock_contention acquire \
		ispot_interference_seconds_total)
	ictl=$(ratio "$tmp/a.prom" no_contention acquire \
		ispot_interference_seconds_total)
	echo "# acquire loss/observed: contended $lock, control $ctl"
	echo "# acquire interference/observed: contended $ilock, control $ictl"
	echo "# lock_contention: $(par_line "$tmp/m-lock.par"); no_contention: $(par_line "$tmp/m-ctl.par")"
	echo "# $(grep -c . "$tmp/a.prom") lines, targets $(value "$tmp/a.prom" ispot_targets)"
	[ "$(value "$tmp/a.prom" ispot_targets)" = 2 ] &&
		lt 0 "$lock" && lt "$(awk -v c="$ctl" 'BEGIN { print 1.5 * c }')" "$lock" &&
		lt 0 "$ilock" && lt "$(awk -v c="$ictl" 'BEGIN { print 2 * c }')" "$ilock"
}
# Still skipped, not failed, if the targets' own timing shows they could
# not contend as meant: the lock's threads hardly waited for it, or the
# control's waited too (tap.sh, tap_parallel).
par_need contended "$tmp/m-lock.par"
par_need above "$tmp/m-lock.par" "$tmp/m-ctl.par" 2
tap_parallel metrics_sci_contended_above_control ranks

# --- events: every outcome, dropped included ----------------------------
events() {
	for e in lock_contention no_contention; do
		for o in recorded dropped unpaired; do
			v=$(value "$tmp/a.prom" \
				"ispot_events_total{exe=\"$e\",outcome=\"$o\"}")
			echo "# $e $o: ${v:-missing}"
			[ -n "$v" ] || return 1
		done
	done
	[ "$(value "$tmp/a.prom" \
		"ispot_events_total{exe=\"lock_contention\",outcome=\"recorded\"}")" -gt 0 ]
}
tap_check events_total_has_dropped_and_every_outcome events

# --- the target restarts: the counters go on ----------------------------
restart() {
	kill "$lpid" 2>/dev/null
	wait "$lpid" 2>/dev/null
	long_run lock_contention
	run_until_traced "$tmp/m.jsonl" "$bg" || return 1
	# Its window (written with the JSON line) is in the counters now.
	scrape "$port" >"$tmp/b.prom" || return 1
	echo "# acquire calls: $(calls "$tmp/a.prom" lock_contention acquire) -> $(calls "$tmp/b.prom" lock_contention acquire)"
	no_decrease "$tmp/a.prom" "$tmp/b.prom" &&
		[ "$(calls "$tmp/b.prom" lock_contention acquire)" -gt \
		  "$(calls "$tmp/a.prom" lock_contention acquire)" ]
}
tap_check counters_never_decrease_across_restart restart

kill "$cpid" 2>/dev/null
wait "$cpid" 2>/dev/null
stop_daemon "$dpid"
drc=$?
stopped() {
	[ "$drc" = 0 ] || { echo "# ispotd exit $drc"; return 1; }
	! scrape "$port" >/dev/null 2>&1
}
tap_check daemon_exits_0_and_frees_the_port stopped

# --- --max-functions 1: the second function is (other)'s ---------------
has_other() {
	scrape "$port" >"$tmp/now.prom" 2>/dev/null &&
		[ "$(calls "$tmp/now.prom" lock_contention "(other)")" -gt 0 ]
}
folded() {
	: >"$tmp/f.err"
	ispotd --exe "$s/lock_contention" --func acquire --func compute \
		--max-functions 1 --budget 0 --window 2s \
		--listen "127.0.0.1:$port" 2>"$tmp/f.err" >/dev/null &
	fpid=$!
	daemon_ready "$tmp/f.err" || return 1
	long_run lock_contention
	wait_for 240 has_other || echo "# no (other) yet"
	scrape "$port" >"$tmp/f.prom"
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	stop_daemon "$fpid"
	grep '^ispot_calls_total' "$tmp/f.prom" | sed 's/^/# /'
	named=$(grep '^ispot_calls_total{exe="lock_contention"' "$tmp/f.prom" |
		grep -vc 'function="(other)"')
	other=$(calls "$tmp/f.prom" lock_contention "(other)")
	[ "$named" = 1 ] && [ "$other" -gt 0 ]
}
tap_check max_functions_1_folds_into_other folded

tap_done
