#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ispotctl run --perfetto: samples/lock_contention's two threads fight for
# one mutex, traced with --sync so that pthread_mutex_unlock's wake is
# inside a traced call.  The trace must read back (perfetto_dump: the
# guest has no protoc; selftests/host/perfetto_test.sh checks the same
# reader against protoc), balance on every track, show acquire() on the
# threads' tracks, futex waits on their waits tracks, and at least one
# flow from a wake inside a call to the wait it ended.  An unwritable
# --perfetto path is refused before tracing, in one line.  The same run
# under --perfetto-max-size 16K stops the trace within 16 KiB, whole and
# balanced, and the report says when.  samples/thread_churn's threads, most
# gone before the trace's first event of them could read their comm, are
# all named: by their exit's record (ABI 1.10).  A key by argument (the
# lock's address) is named by its symbol in the report and in the slices.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/perfetto_lib.sh"
sample=/ispot/samples/lock_contention
dump=/ispot/selftests/kmod/perfetto_dump
require_root
require_module
tmpdir_setup

tap_plan 11

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
		"$(grep -c '^track' "$tmp/lines") tracks," \
		"$(stat -c %s "$tmp/out.pftrace") bytes"
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

# On t_run's trace too, for its unbounded size.
t_bounded() {
	run_status 0 ispotctl run --perfetto "$tmp/small.pftrace" \
		--perfetto-max-size 16K -o "$tmp/small_report" \
		--func acquire --sync -- "$sample" \
		--threads 2 --hold-us 200 --iterations 200 || return 1
	size=$(stat -c %s "$tmp/small.pftrace")
	full=$(stat -c %s "$tmp/out.pftrace")
	echo "# $size bytes of $full unbounded"
	note='the Perfetto trace stopped at 16.0KiB (--perfetto-max-size) after'
	[ "$size" -le 16384 ] && [ "$full" -gt 16384 ] &&
		grep -qF "$note" "$tmp/small_report" ||
		{ sed 's/^/# /' "$tmp/small_report"; return 1; }
}
tap_check "--perfetto-max-size stops the trace within it, said in the report" \
	t_bounded

t_bounded_whole() {
	"$dump" "$tmp/small.pftrace" >"$tmp/small_lines" 2>"$tmp/err" ||
		{ sed 's/^/# /' "$tmp/err"; return 1; }
	echo "# $(grep -c '^event' "$tmp/small_lines") events"
	pf_header "$tmp/small_lines" && pf_balanced "$tmp/small_lines" &&
		pf_has_slice "$tmp/small_lines" thread acquire
}
tap_check "the bounded trace reads back and balances" t_bounded_whole

churn=/ispot/samples/thread_churn
t_exit_named() {
	run_status 0 ispotctl run --perfetto "$tmp/churn.pftrace" \
		-o "$tmp/churn_report" --func churn_request -- "$churn" \
		--threads 4 --rounds 30 || return 1
	"$dump" "$tmp/churn.pftrace" >"$tmp/churn_lines" 2>"$tmp/err" ||
		{ sed 's/^/# /' "$tmp/err"; return 1; }
	# A thread's track: TID (field 4) not 0; no NAME, "-".
	awk '$1 == "track" && $4 != 0 { n++; if (NF == 5 && $5 == "-") bad++ }
	END {
		print "# " n " thread tracks, " bad + 0 " unnamed"
		exit !(n > 30 && !bad)
	}' "$tmp/churn_lines"
}
tap_check "threads gone before their first event are named by their exit" \
	t_exit_named

# A key by argument, live: the lock's address is named by its symbol, in
# the report (from the maps read once for it, not for each key) and in the
# trace's slices (from the maps as the drain holds them).
t_keyed() {
	run_status 0 ispotctl run --perfetto "$tmp/keyed.pftrace" --json \
		-o "$tmp/keyed.json" --func acquire --key acquire=arg0 -- \
		"$sample" --threads 2 --hold-us 200 --iterations 100 ||
		return 1
	key=$(json_get "$tmp/keyed.json" .functions[0].keys[0].key)
	echo "# key: $key"
	"$dump" "$tmp/keyed.pftrace" >"$tmp/keyed_lines" || return 1
	[ "$key" = "&lock_contention:gm_lock" ] &&
		pf_has_slice "$tmp/keyed_lines" thread \
			"acquire [&lock_contention:gm_lock]"
}
tap_check "a key by argument is named by its symbol, live" t_keyed

t_refused() {
	run_status 1 ispotctl run --perfetto /nonexistent/out.pftrace \
		--func acquire -- "$sample" --iterations 10 &&
		one_line_err "cannot write /nonexistent/out.pftrace" &&
		[ ! -e /nonexistent/out.pftrace ]
}
tap_check "an unwritable --perfetto path is refused in one line" t_refused

tap_done
