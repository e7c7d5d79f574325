#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Who held the lock: samples/two_sections takes one mutex in update_stats()
# for nine times as long as in flush(); the futex report's woken_from
# credits the waits on it mostly to update_stats.  Shares are compared,
# never absolute times: the guest is emulated.  Two threads, so that each
# wait spans one section; long sections, so that the probes' own cost in
# the emulated guest (the same in both) does not flatten the 9:1.  The
# shares exist only if the threads fought over the lock: when a busy host
# made the vCPUs take turns and the sample's own timing shows they hardly
# waited for it, the share tests skip (tap.sh, tap_parallel).
. "$(dirname "$0")/tap.sh"
sample=/ispot/samples/two_sections
require_root
require_module
tmpdir_setup

tap_plan 5

# woken FILE: stats_lock's woken_from entries, one "FUNCTION SHARE" a line.
woken() {
	json_get "$1" '.futexes[].symbol' | grep '^two_sections:stats_lock' |
		while read -r wk_sym; do
			json_get -l "$1" ".futexes[symbol=$wk_sym].woken_from"
		done | awk -F '\t' '
		$1 ~ /\.function$/ { f = $2 }
		$1 ~ /\.share$/ { print f, $2 }'
}
# share FILE FUNCTION: FUNCTION's share of the woken wait time, 0 if none.
share() {
	woken "$1" | awk -v f="$2" '$1 == f { s = $2 } END { print s + 0 }'
}

t_report() {
	par_stats plain
	ispotctl run --json -o "$tmp/plain.json" --func acquire_lock \
		--func update_stats --func flush -- "$sample" --threads 2 \
		--hold-us 900 --flush-us 100 --iterations 200 >/dev/null ||
		return 1
	par_stats_off
	echo "# $(par_line "$tmp/plain.par")"
	woken "$tmp/plain.json" | sed 's/^/# woken from: /'
	[ -n "$(woken "$tmp/plain.json")" ]
}
tap_check "futex_report_has_woken_from" t_report

t_nine_to_one() {
	u=$(share "$tmp/plain.json" update_stats)
	f=$(share "$tmp/plain.json" flush)
	echo "# update_stats $u, flush $f"
	# 9:1 hold times: 0.85-0.94 on a quiet host, 0.68-0.90 with
	# stress-ng --cpu 2 on the host (five kernels, 2026-11-26): the last
	# waker drifts toward the 1:1 wake counts when the vCPUs take turns.
	# The floor is the --sync tests' own.
	lt 0.6 "$u" || return 1
	lt "$f" "$u" && lt 0 "$f"
}
par_need contended "$tmp/plain.par"
tap_parallel "update_stats_holds_the_lock_longest" t_nine_to_one

t_waiter_never_wakes() {
	# acquire_lock only waits: it is no critical section.
	[ "$(share "$tmp/plain.json" acquire_lock)" = 0 ]
}
tap_check "the_waiting_function_is_not_a_waker" t_waiter_never_wakes

# With --sync the pthread calls are traced too: the wakes come from inside
# pthread_mutex_unlock's traced callers, never from the lock calls
# themselves.
t_sync() {
	par_stats sync
	ispotctl run --json -o "$tmp/sync.json" --sync --func update_stats \
		--func flush -- "$sample" --threads 2 --hold-us 900 \
		--flush-us 100 --iterations 100 >/dev/null || return 1
	par_stats_off
	echo "# $(par_line "$tmp/sync.par")"
	woken "$tmp/sync.json" | sed 's/^/# --sync woken from: /'
	woken "$tmp/sync.json" | grep -q '^pthread_' && return 1
	lt "$(share "$tmp/sync.json" flush)" \
	   "$(share "$tmp/sync.json" update_stats)"
}
par_need contended "$tmp/sync.par"
tap_parallel "sync_credits_the_unlock_callers" t_sync

# --sync alone, the sections untraced: pthread_mutex_unlock's return
# address, read at its entry, names the function that called it.
t_sync_alone() {
	par_stats alone
	ispotctl run --json -o "$tmp/alone.json" --sync -- "$sample" \
		--threads 2 --hold-us 900 --flush-us 100 --iterations 100 \
		>/dev/null || return 1
	par_stats_off
	echo "# $(par_line "$tmp/alone.par")"
	woken "$tmp/alone.json" | sed 's/^/# --sync alone woken from: /'
	woken "$tmp/alone.json" | grep -q '^pthread_' && return 1
	[ "$(woken "$tmp/alone.json" | head -n 1 | cut -d' ' -f1)" = \
	  update_stats ] || return 1
	u=$(share "$tmp/alone.json" update_stats)
	f=$(share "$tmp/alone.json" flush)
	lt 0.6 "$u" && lt 0 "$f"
}
par_need contended "$tmp/alone.par"
tap_parallel "sync_alone_names_the_unlock_callers" t_sync_alone

tap_done
