#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CALLED FROM: samples/two_callers runs step() three times from parse()
# and once from store(), each under its own mutex.  With a stack taken at
# every call the shares are exact counts (not timings): 75% and 25% for
# step(); with --sync, pthread_mutex_lock is called from both critical
# sections, once per iteration each.  With the default period (1 in 101)
# a short run has about 40 stacks, from both callers.  A bad
# --stack-period is a usage error.
. "$(dirname "$0")/tap.sh"
app=/ispot/samples/two_callers
require_root
require_module
tmpdir_setup

tap_plan 6

# called_from SHARE CALLER: a CALLED FROM line gives CALLER that share.
called_from() {
	grep -Eq "^ +$1%  $2 > worker( |\$)" "$tmp/out" ||
		{ sed 's/^/# /' "$tmp/out"; return 1; }
}

t_text() {
	run_status 0 ispotctl run --func step --stack-period 1 -- "$app" \
		--iterations 200 &&
		grep -q "CALLED FROM, share of 800 sampled calls:" "$tmp/out" &&
		called_from 75 parse && called_from 25 store
}
tap_check "step_called_from_parse_75_store_25" t_text

# stacks FILE FUNC: FUNC's stacks in a JSON report, one object a line.
stacks() { json_get "$1" ".functions[name=$2].stacks[]"; }

# calls_from CALLER: the sampled calls of the stacks that start in CALLER.
calls_from() {
	grep "^{\"frames\": \\[\"two_callers:$1+0x" "$tmp/stacks" |
		sed -n 's/.*"calls": \([0-9]*\).*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }'
}

t_json() {
	run_status 0 ispotctl run --func step --stack-period 1 --json -- \
		"$app" --iterations 200 || return 1
	stacks "$tmp/out" step | grep '^{"frames": \["two_callers:' \
		>"$tmp/stacks"
	sed 's/^/# /' "$tmp/stacks"
	# parse() calls step() from three call instructions: three stacks.
	[ "$(calls_from parse)" = 600 ] && [ "$(calls_from store)" = 200 ] &&
		[ "$(grep -c '"two_callers:worker+0x' "$tmp/stacks")" = 4 ]
}
tap_check "json_stacks_frames_and_calls" t_json

# Which critical sections take a lock: parse's and store's, as many times.
t_sync() {
	run_status 0 ispotctl run --sync --stack-period 1 --json -- "$app" \
		--iterations 100 || return 1
	json_get "$tmp/out" '.functions[].name' | grep '^pthread_mutex_lock' |
		while read -r lock; do stacks "$tmp/out" "$lock"; done \
		>"$tmp/stacks"
	sed 's/^/# /' "$tmp/stacks"
	# A stack may end with a cut note (a run this short may exit before
	# the return probes' trampoline is seen in its maps: evaluation.rst,
	# the trampoline's note); the sections and counts are what counts.
	grep -q '^{"frames": \["two_callers:parse+0x[0-9a-f]*".*"calls": 100[,}]' \
		"$tmp/stacks" &&
		grep -q '^{"frames": \["two_callers:store+0x[0-9a-f]*".*"calls": 100[,}]' \
		"$tmp/stacks"
}
tap_check "sync_lock_called_from_both_sections" t_sync

# The default period (101, a prime): about 1 in 101 of 4000 calls, from
# both callers (a period of 100 would take every 25th iteration's same
# call: parse's first, never store's).
t_default() {
	run_status 0 ispotctl run --func step -- "$app" --iterations 1000 ||
		return 1
	n=$(sed -n 's/.*CALLED FROM, share of \([0-9]*\) sampled calls:.*/\1/p' \
		"$tmp/out")
	[ "${n:-0}" -ge 38 ] && [ "$n" -le 45 ] && called_from '[67][0-9]' parse &&
		called_from '[2-3][0-9]' store ||
		{ sed 's/^/# /' "$tmp/out"; return 1; }
}
tap_check "default_period_gives_paths" t_default

t_bad() {
	run_status 2 ispotctl run --func step --stack-period "$1" -- "$app" &&
		one_line_err "stack-period" && ! grep -q two_callers "$tmp/out"
}
tap_check "stack_period_zero_is_usage_error" t_bad 0
tap_check "stack_period_word_is_usage_error" t_bad often
tap_done
