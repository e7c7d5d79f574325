#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A frame-pointer walk through code without frame pointers: the fixture
# fp_garbage's relay() points rbp at ASCII digits (other ones each call)
# before it calls target(), as an optimised library can leave it.  The
# module's walk reads them as a return address; the report must cut the
# stack there and say so, and the calls, whatever digits each read, must
# make one path.
#
# And a return probe's trampoline: tracing parse() and step() of
# samples/two_callers, parse()'s return address is the trampoline page
# uprobes maps at the top of the address space ([uprobes]) while step()
# runs.  The walk reads the trampoline there; the pipeline puts parse()'s
# return address back when parse() returns (stacks_wait.h), so step()'s
# stacks from there go on through worker(), as store()'s do, and never
# list the trampoline's address as a caller.
. "$(dirname "$0")/tap.sh"
app=/ispot/selftests/unit/fixtures/fp_garbage
require_root
require_file "$app"
require_module
tmpdir_setup

tap_plan 4

t_text() {
	run_status 0 ispotctl run --func target --stack-period 1 -- \
		"$app" 300 || return 1
	grep -q 'CALLED FROM relay (cut: frame pointers end in fp_garbage) (all 300 sampled calls)' \
		"$tmp/out" && ! grep -q '0x3[0-9]3' "$tmp/out" ||
		{ sed 's/^/# /' "$tmp/out"; return 1; }
}
tap_check "garbage_frame_cuts_one_path" t_text

t_json() {
	run_status 0 ispotctl run --json --func target --stack-period 1 -- \
		"$app" 300 || return 1
	json_get "$tmp/out" '.functions[].stacks[]' >"$tmp/stacks"
	sed 's/^/# /' "$tmp/stacks"
	[ "$(wc -l <"$tmp/stacks")" = 1 ] &&
		grep -q '^{"frames": \["fp_garbage:relay+0x[0-9a-f]*"\], "calls": 300, "cut_in": "fp_garbage"' \
			"$tmp/stacks"
}
tap_check "json_path_cut_in_fp_garbage" t_json

t_trampoline() {
	run_status 0 ispotctl run --json --func parse --func step \
		--stack-period 1 -- /ispot/samples/two_callers --iterations 1000 ||
		return 1
	json_get "$tmp/out" '.functions[name=step].stacks[]' >"$tmp/stacks"
	sed 's/^/# /' "$tmp/stacks"
	# parse() calls step() 3,000 times from three sites, store()
	# (untraced) 1,000 times: the paths go on to worker().  A few may
	# stay cut (a tenth allowed): those taken before the session learnt
	# where the trampoline is (uprobes maps it at the first return probe
	# hit, and it is learnt at the next look at the maps; the first
	# stack of a run, in the guest).  Its address is never kept.
	n=$(awk 'index($0, "{\"frames\": [\"two_callers:parse+0x") == 1 &&
		 index($0, "\"two_callers:worker+0x") &&
		 split($0, f, "\"calls\": ") == 2 { n += f[2] + 0 }
		 END { print n + 0 }' "$tmp/stacks")
	echo "# $n calls from parse() through worker()"
	[ "$n" -ge 2700 ] && ! grep -q '"0x7ff' "$tmp/stacks" &&
		grep -q '"two_callers:store+0x[0-9a-f]*", "two_callers:worker' \
			"$tmp/stacks"
}
tap_check "return_probe_trampoline_is_put_back" t_trampoline

# Two traced callers, worker() and parse(): two words to put back, each
# from its own call's return, in order (worker() returns once, at the
# end: its stacks wait the whole run, alike ones as one).
t_two_words() {
	run_status 0 ispotctl run --json --func worker --func parse \
		--func step --stack-period 1 -- /ispot/samples/two_callers \
		--iterations 1000 || return 1
	json_get "$tmp/out" '.functions[name=step].stacks[]' >"$tmp/stacks"
	sed 's/^/# /' "$tmp/stacks"
	n=$(awk 'index($0, "{\"frames\": [\"two_callers:parse+0x") == 1 &&
		 index($0, "\", \"two_callers:worker+0x") &&
		 index($0, "\", \"two_callers:sample_thread+0x") &&
		 split($0, f, "\"calls\": ") == 2 { n += f[2] + 0 }
		 END { print n + 0 }' "$tmp/stacks")
	echo "# $n calls from parse() through worker() and sample_thread()"
	[ "$n" -ge 2700 ] && ! grep -q '"0x7ff' "$tmp/stacks"
}
tap_check "two_traced_callers_words_are_put_back_in_order" t_two_words

tap_done
