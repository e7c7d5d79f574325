#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Stripped code (Documentation/usage.rst, "Functions without symbols"):
# where an object has no symbol for a function, its start and size come
# from .eh_frame, and the function is spelled OBJ+0xSTART.
#
#  - samples/two_callers stripped (the fixtures' stripped/two_callers,
#    same file name): --func two_callers+0xSTART, START where nm puts
#    step() in the unstripped copy, counts exactly the calls --func step
#    counts there.
#  - Debian's zstd, which the archive ships stripped (its compressor is
#    linked in, and only .eh_frame tells where its functions are):
#    --auto picks such functions while zstd -T2 compresses, and traces
#    them.
. "$(dirname "$0")/tap.sh"
fx=/ispot/selftests/unit/fixtures
named=/ispot/samples/two_callers
bare=$fx/stripped/two_callers
require_root
require_file "$bare" "fixtures not built?"
require_file "$fx/zstd" "zstd missing on the host? run scripts/deps.sh"
require_module
tmpdir_setup

tap_plan 3

calls() { json_get "$1" .functions[0].calls; }

t_by_start() {
	start=$(cat "$fx/two_callers.step") || return 1
	spec=two_callers+0x${start#"${start%%[!0]*}"}
	run_status 0 ispotctl run --json --func step -- "$named" \
		--iterations 300 || return 1
	cp "$tmp/out" "$tmp/named.json"
	run_status 0 ispotctl run --json --func "$spec" -- "$bare" \
		--iterations 300 || return 1
	n=$(calls "$tmp/named.json") b=$(calls "$tmp/out")
	echo "# step: $n calls by name, $b as $spec in the stripped copy"
	# parse() calls step() three times and store() once an iteration.
	[ "$n" = 1200 ] && [ "$b" = "$n" ] &&
		[ "$(json_get "$tmp/out" .functions[0].name)" = "$spec" ] ||
		{ sed 's/^/# /' "$tmp/err"; return 1; }
}
tap_check "func_by_start_counts_as_by_name_does" t_by_start

# The spelling's errors say what to do.  (Not step(): libc has one.)
t_bad_start() {
	run_status 1 ispotctl run --func two_callers+0x3 -- "$bare" \
		--iterations 1 &&
		one_line_err "no function starts at 0x3 in" &&
		run_status 1 ispotctl run --func parse -- "$bare" \
			--iterations 1 &&
		one_line_err "no function 'parse' in .*stripped"
}
tap_check "a_start_no_function_has_is_one_line" t_bad_start

# zstd -T2 -19 compressing ispotctl fed to it once a second, 14 times:
# it lives 14 s however fast the guest's CPU is, long enough for 3 s of
# sampling, the naming of its wall-clock profile and a traced stretch (a
# file compressed at full speed once ended first: zstd exited during
# --auto's naming in loaded check-alls on 6.12 and sid).
feed() {
	i=0
	while [ "$i" -lt 14 ]; do
		cat /ispot/user/ispotctl
		sleep 1
		i=$((i + 1))
	done
}
t_zstd_auto() {
	# Six picks: by wall time the first are zstd's waits (a worker's
	# loop may make no whole call in the traced stretch); its
	# compressor's functions follow.
	feed | run_status 0 ispotctl run --auto=6 --auto-time 3s \
		--duration 3s --json -- "$fx/zstd" -q -f -T2 -19 \
		-o "$tmp/in.zst" || return 1
	# Each pick's name and calls, one a line.
	json_get "$tmp/out" ".functions[].name" >"$tmp/names"
	json_get "$tmp/out" ".functions[].calls" >"$tmp/calls"
	paste "$tmp/names" "$tmp/calls" | sed 's/^/# picked /'
	n=$(paste "$tmp/names" "$tmp/calls" |
		awk '$1 ~ /^zstd\+0x[0-9a-f]+$/ && $2 > 0 { n++ } END { print n + 0 }')
	echo "# $n picks named zstd+0xSTART were traced"
	[ "$n" -ge 1 ] || { sed 's/^/# /' "$tmp/err"; head -c 2000 "$tmp/out" |
		sed 's/^/# out: /'; return 1; }
}
tap_check "auto_picks_and_traces_stripped_zstd" t_zstd_auto

tap_done
