#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# --svg DIR and --html FILE on a real trace: ispotctl run writes both, each
# picture and the page name the traced function, and an unwritable --svg
# directory is refused before tracing, in one line.  Rendering them is
# selftests/host/pictures_test.sh's job (the guest has no rsvg-convert or
# browser).
. "$(dirname "$0")/tap.sh"
lock=/ispot/samples/lock_contention
require_root
require_module
tmpdir_setup

tap_plan 3

t_written() {
	run_status 0 ispotctl run --svg "$tmp/svg" --html "$tmp/out.html" \
		--func acquire -- "$lock" --threads 2 --iterations 2000 ||
		return 1
	ls "$tmp/svg" | sed 's/^/# /'
	grep -q '<title>acquire.*its durations, sorted</title>' \
		"$tmp/svg/acquire.sorted.svg" &&
		grep -q '<title>acquire.*how long its calls took</title>' \
			"$tmp/svg/acquire.hist.svg" &&
		grep -q '<polyline' "$tmp/svg/acquire.sorted.svg" &&
		[ "$(ls "$tmp/svg" | wc -l)" -eq 2 ]
}
tap_check "svg_files_name_the_function" t_written

# Two threads, one key: a line per thread.  Beside the function's two
# pictures, the loss flame graph of its sampled stacks (no wall-time one:
# no --auto).
t_page() {
	grep -q '<h2>acquire</h2>' "$tmp/out.html" &&
		grep -q 'href="#f[0-9]*"' "$tmp/out.html" &&
		[ "$(grep '<svg ' "$tmp/out.html" | grep -vc 'id="flame-')" \
		  -eq 2 ] &&
		[ "$(grep -c '<svg [^>]*id="flame-loss"' "$tmp/out.html")" \
		  -eq 1 ] &&
		! grep -q 'id="flame-wall"' "$tmp/out.html" &&
		[ "$(grep -c '>tid [0-9]* (' "$tmp/svg/acquire.sorted.svg")" -ge 2 ]
}
tap_check "html_page_and_thread_lines" t_page

t_refused() {
	: >"$tmp/file"
	run_status 1 ispotctl run --svg "$tmp/file" --func acquire -- \
		"$lock" --iterations 1 && one_line_err "writable --svg" &&
		! grep -q "^lock_contention:" "$tmp/out"
}
tap_check "unwritable_svg_dir_refused_before_tracing" t_refused

tap_done
