#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A target that lives a few ms still gets its futex report named: the
# maps are read while it lives (at its exec and during its first moments),
# not after it is gone.  samples/short_lived (static, no loader to wait
# for) contends on its global short_lock for a few ms and exits before the
# tracer's first 100 ms thread scan, which is when the maps used to be read.
. "$(dirname "$0")/tap.sh"
short=/ispot/samples/short_lived
require_root
require_module
tmpdir_setup

tap_plan 3

ispotctl run --func acquire --json -o "$tmp/s.json" -- "$short" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?

t_ran() {
	[ "$rc" = 0 ] || { sed 's/^/# /' "$tmp/err"; return 1; }
	grep -o '"futexes": .*' "$tmp/s.json" | head -c 600 |
		sed 's/^/# /'
	echo
	grep -q '"futexes": \[{' "$tmp/s.json"
}
tap_check "short_run_waits_on_a_futex" t_ran

# The point of the test: it exited before the first thread scan.  The
# guest's speed is not ours to assert, so a slower run only says so.
d=$(json_get "$tmp/s.json" .duration_ns)
echo "# traced for $((${d:-0} / 1000)) us"
if [ "${d:-0}" -gt 0 ] && [ "$d" -lt 100000000 ]; then
	tap_ok "target_lived_less_than_100ms"
else
	tap_skip "target_lived_less_than_100ms" "this guest ran it longer"
fi

t_named() {
	grep -q '"symbol": "short_lived:short_lock' "$tmp/s.json" &&
		grep -q '"functions": \["acquire"\]' "$tmp/s.json"
}
tap_check "futex_of_short_lived_target_is_named" t_named

tap_done
