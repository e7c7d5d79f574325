#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ispotctl run --perfetto: samples/lock_contention's two threads fight for
# one mutex, traced with --sync so that pthread_mutex_unlock's wake is
# inside a traced call.  The trace must read back (perfetto_dump: the
# guest has no protoc; selftests/host/perfetto_test.sh checks the same
# reader against protoc), balance on every track, show acquire() on the
# threads' tracks, futex waits on their waits tracks, and at least one
# flow from a wake inside a call to the wait it ended.  An unwritable
# --perfetto path is refused before tracing, in one line.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/perfetto_lib.sh"
sample=/ispot/samples/lock_contention
dump=/ispot/selftests/kmod/perfetto_dump
require_root
require_module
tmpdir_setup

tap_plan 7

t_run() {
	run_status 0 ispotctl run --perfetto "$tmp/out.pftrace" \
		-o "$tmp/report" --func acquire --sync -- "$sample" \
		--threads 2 --hold-us 200 --iterations 200 &&
		[ -s "$tmp/out.pftrace" ]
}
tap_check "run --perfetto writes a trace" t_run

t_reads() {
	"$dump" "$tmp/out.pftrace" >"$tmp/lines" 2>"$tmp/err" ||
		{ sed 's/^/# /' "$tmp/err"; return 1; }
	echo "# $(grep -c '^event' "$tmp/lines") events," \
		"$(grep -c '^track' "$tmp/lines") tracks"
	pf_header "$tmp/lines"
}
tap_check "it reads back, descriptors before events" t_reads

tap_check "every track's slices balance" pf_balanced "$tmp/lines"

t_calls() {
	pf_slices "$tmp/lines" thread | sed 's/^/# call: /'
	pf_has_slice "$tmp/lines" thread acquire &&
		pf_slices "$tmp/lines" thread | grep -q '^pthread_mutex_unlock'
}
tap_check "acquire and the lock calls are slices of the threads" t_calls

t_waits() {
	pf_has_slice "$tmp/lines" waits "futex wait" &&
		pf_has_slice "$tmp/lines" waits futex
}
tap_check "futex waits and their off-CPU time are waits slices" t_waits

t_flows() {
	n=$(pf_flows "$tmp/lines") || { echo "$n"; return 1; }
	echo "# $n waits end a flow from a wake"
}
tap_check "flows go from a wake inside a call to the waits it ended" t_flows

t_refused() {
	run_status 1 ispotctl run --perfetto /nonexistent/out.pftrace \
		--func acquire -- "$sample" --iterations 10 &&
		one_line_err "cannot write /nonexistent/out.pftrace" &&
		[ ! -e /nonexistent/out.pftrace ]
}
tap_check "an unwritable --perfetto path is refused in one line" t_refused

tap_done
