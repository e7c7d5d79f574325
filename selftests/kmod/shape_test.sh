#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Shape keys: samples/shapes runs step() once or three times per call of
# handle(), alternately.  Unkeyed, handle()'s SCI is high and the report
# notes that its calls made different probed calls; keyed by shape, the
# two shapes are compared apart, named handle>step and handle>step>step>step,
# and the SCI falls.  Times in the guest are noisy (a single vCPU shares
# the target with ispotctl's drain), so each run compares handle()'s SCI
# with step()'s, which sees the same interference and has one shape:
# unkeyed, handle() is well above it; keyed, close to it.  A shape
# key on a function that calls nothing probed is a note; a key on a
# function that is not traced is a one-line error before anything runs.
. "$(dirname "$0")/tap.sh"
app=/ispot/samples/shapes
require_root
require_module
tmpdir_setup

tap_plan 6

# func_sci FILE NAME: the SCI of function NAME in a JSON report (its own,
# not its keys').
func_sci() { json_get "$1" ".functions[name=$2].sci"; }

show() { sed 's/^/# /' "$tmp/out"; return 1; }

t_unkeyed() {
	run_status 0 ispotctl run --func handle --func step --json -- "$app" &&
		grep -q '"shapes_differ": true' "$tmp/out" &&
		grep -q '"shape_note": "handle made different probed calls' \
			"$tmp/out" || show || return 1
	handle=$(func_sci "$tmp/out" handle)
	step=$(func_sci "$tmp/out" step)
	echo "# unkeyed: handle SCI $handle, step SCI $step"
	unkeyed_ratio=$(awk -v h="$handle" -v s="$step" 'BEGIN { print h / s }')
	lt "$(awk -v s="$step" 'BEGIN { print s * 1.4 }')" "$handle"
}
tap_timing "unkeyed_sci_high_and_shapes_differ" t_unkeyed

t_note_text() {
	run_status 0 ispotctl run --func handle --func step -- "$app" &&
		unwrapped "$tmp/out" |
		grep -q "note: handle made different probed calls from one execution to another (handle>step, handle>step>step>step): --key handle=shape compares like with like" ||
		show
}
tap_check "text_note_suggests_the_key" t_note_text

t_keyed() {
	run_status 0 ispotctl run --func handle --func step \
		--key handle=shape --json -- "$app" &&
		grep -q '"key": "handle>step"' "$tmp/out" &&
		grep -q '"key": "handle>step>step>step"' "$tmp/out" &&
		! grep -q '"shape_note": "handle' "$tmp/out" || show || return 1
	handle=$(func_sci "$tmp/out" handle)
	step=$(func_sci "$tmp/out" step)
	echo "# keyed by shape: handle SCI $handle, step SCI $step (unkeyed ratio ${unkeyed_ratio:-?})"
	# Keyed, handle carries its steps' own noise and the traps of up to
	# three nested probes: level with step, not below it (1.03 to 1.26
	# in full runs), and well under the unkeyed ratio (2.2 to 3.4).
	awk -v h="$handle" -v s="$step" -v u="${unkeyed_ratio:-0}" 'BEGIN {
		r = h / s
		exit !(r < 1.5 && (u == 0 || r < u / 1.5))
	}'
}
tap_timing "keyed_by_shape_sci_falls" t_keyed

t_keyed_text() {
	run_status 0 ispotctl run --func handle --func step \
		--key handle=shape -- "$app" &&
		grep -Eq "handle \[shape\]" "$tmp/out" &&
		grep -Eq "  handle>step>step>step( |\$)" "$tmp/out" &&
		grep -Eq "  handle>step( |\$)" "$tmp/out" || show
}
tap_check "text_key_rows_named_by_shape" t_keyed_text

t_no_calls() {
	run_status 0 ispotctl run --func handle --func step --key step=shape \
		-- "$app" &&
		unwrapped "$tmp/out" |
		grep -q "note: step made no probed calls; --key step=shape has nothing to compare" ||
		show
}
tap_check "shape_without_callees_is_a_note" t_no_calls

t_unknown() {
	run_status 1 ispotctl run --func handle --key nosuch=shape -- "$app" &&
		one_line_err "--key 'nosuch=shape': 'nosuch' matches no traced function (traced: handle); key one of those" &&
		! grep -q "^shapes:" "$tmp/out"
}
tap_check "key_on_untraced_function_is_an_error" t_unknown
tap_done
