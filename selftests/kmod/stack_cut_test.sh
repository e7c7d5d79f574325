#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A frame-pointer walk through code without frame pointers: the fixture
# fp_garbage's relay() points rbp at ASCII digits (other ones each call)
# before it calls target(), as an optimised library can leave it.  The
# module's walk reads them as a return address; the report must cut the
# stack there and say so, and the calls, whatever digits each read, must
# make one path.
. "$(dirname "$0")/tap.sh"
app=/ispot/selftests/unit/fixtures/fp_garbage
require_root
require_file "$app"
require_module
tmpdir_setup

tap_plan 2

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

tap_done
