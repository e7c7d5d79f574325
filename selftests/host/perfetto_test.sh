#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Perfetto trace ispotctl --perfetto writes, read by a decoder that is
# not ISPOT's: Debian's protoc, against perfetto_min.proto (Perfetto's
# field numbers, written out here).  selftests/unit/export/test_perfetto writes
# the trace of two threads contending in acquire() (PERFETTO_TEST_OUT);
# protoc must decode it, agree line for line with the tree's own reader
# (selftests/kmod/perfetto_dump, which the guest test uses), and show the
# tracks, the slices, balanced begins and ends, and the flow from the
# waker's wake to the wait it ended.
cd "$(dirname "$0")/../.." || exit 1
. selftests/kmod/tap.sh
. selftests/kmod/perfetto_lib.sh
tmpdir_setup
proto=selftests/host/perfetto_min.proto

# protoc_lines: protoc's text on stdin as perfetto_dump's lines (the
# track and event lines; the header is checked on the text itself).
# Each packet is taken at its end, in trace_processor's order: its
# defaults, its interned names, its clock snapshot, then its event, named
# from the sequence's interned names and timed on the clock it names or
# its defaults' (protoc prints a message's fields by number, not in the
# order they were written).  An incremental clock (ids 64 to 127 only)
# adds its times up from the snapshot's, which also gives MONOTONIC's; a
# packet with a snapshot carries no event that is read.  Times are
# printed whole ("%.0f"): the trace's are a week after boot.
protoc_lines() {
	awk '
	function str(s) { sub(/^[^"]*"/, "", s); sub(/"$/, "", s); return s }
	/^packet \{/ {
		ev = tr = 0; ts = uuid = parent = tid = term = 0
		type = "?"; name = "-"; flows = ""; iid = clk = pdef = 0
		nnew = 0; nclk = 0
		next
	}
	/^  timestamp: / { ts = $2 }
	/^  timestamp_clock_id: / { clk = $2 }
	/^    timestamp_clock_id: / { pdef = $2 }
	/^    clocks \{/ { nclk++; cinc[nclk] = 0 }
	/^      clock_id: / { cid[nclk] = $2 }
	/^      timestamp: / { cts[nclk] = $2 }
	/^      is_incremental: true$/ { cinc[nclk] = 1 }
	/^    event_names \{/ { nnew++ }
	/^      iid: / { newiid[nnew] = $2 }
	/^      name: / { newname[nnew] = str($0) }
	/^  track_event \{/ { ev = 1 }
	/^  track_descriptor \{/ { tr = 1 }
	/^    type: TYPE_SLICE_BEGIN$/ { type = "B" }
	/^    type: TYPE_SLICE_END$/ { type = "E" }
	/^    type: TYPE_INSTANT$/ { type = "I" }
	/^    (track_)?uuid: / { uuid = $2 }
	/^    parent_uuid: / { parent = $2 }
	/^    name: / { name = str($0) }
	/^    name_iid: / { iid = $2 }
	/^    flow_ids: / { flows = flows (flows == "" ? "" : ",") $2 }
	/^    terminating_flow_ids: / { term = $2 }
	/^      tid: / { tid = $2 }
	/^      thread_name: / { name = str($0) }
	/^\}/ {
		if (pdef) defclk = pdef
		for (i = 1; i <= nnew; i++) names[newiid[i]] = newname[i]
		for (i = 1; i <= nclk; i++) {
			if (cid[i] == 3) mono = cts[i]
			if (cinc[i] && cid[i] >= 64 && cid[i] < 128) {
				dclk = cid[i]; dnow = dbase = cts[i]
			}
		}
		if (nclk) ev = 0
		if (iid) name = (iid in names) ? names[iid] : "?unknown-iid"
		if (ev) {
			c = clk ? clk : defclk
			if (c != 3 && dclk && c == dclk) {
				dnow += ts
				ts = dnow - dbase + mono
			} else if (c != 3) {
				ts = "?clock" c
			}
			if (ts !~ /^\?/) ts = sprintf("%.0f", ts)
		}
		if (tr) print "track", uuid, parent, tid, name
		if (ev) print "event", ts, uuid, type,
			      (flows == "" ? 0 : flows), term, name
	}'
}

# first_packet: the text of the first packet.
first_packet() { awk '/^\}/ { exit } { print }' "$tmp/text"; }

tap_plan 11

if command -v protoc >/dev/null; then
	tap_ok "protoc is installed"
else
	tap_not_ok "protoc is installed (run scripts/deps.sh)"
fi

t_written() {
	[ -x selftests/unit/export/test_perfetto ] ||
		{ echo "# build the tree first (make)"; return 1; }
	PERFETTO_TEST_OUT=$tmp/t.pftrace selftests/unit/export/test_perfetto \
		>"$tmp/unit" || { sed 's/^/# /' "$tmp/unit"; return 1; }
	[ -s "$tmp/t.pftrace" ]
}
tap_check "the unit test writes a trace" t_written

t_decodes() {
	protoc --decode=perfetto.protos.Trace -I"$(dirname "$proto")" \
		"$proto" <"$tmp/t.pftrace" >"$tmp/text" 2>"$tmp/err" ||
		{ sed 's/^/# /' "$tmp/err"; return 1; }
	# A field missing from the proto is printed by number.
	! grep -n '^ *[0-9]*:' "$tmp/text" | sed 's/^/# unknown field: /' |
		grep .
}
tap_check "protoc decodes it as perfetto.protos.Trace" t_decodes

# The first packet clears the sequence's state, makes MONOTONIC the
# trace's clock, and an incremental clock of the sequence the packets'
# default; every packet is on the sequence, every event says it needs
# the sequence's state (its clock and its names).
t_header() {
	first_packet | grep -q 'sequence_flags: 1$' &&
		first_packet | grep -q 'primary_trace_clock: 3$' &&
		first_packet | grep -q '^    timestamp_clock_id: 64$' &&
		first_packet | grep -q 'is_incremental: true$' &&
		[ "$(grep -c '^packet {' "$tmp/text")" = \
		  "$(grep -c '^  trusted_packet_sequence_id: 1$' \
			"$tmp/text")" ] &&
		[ "$(grep -c '^  track_event {' "$tmp/text")" = \
		  "$(grep -c '^  sequence_flags: 2$' "$tmp/text")" ] &&
		grep -q '^    name_iid: ' "$tmp/text"
}
tap_check "the first packet clears the state, sets the clocks; events need it" \
	t_header

t_agree() {
	protoc_lines <"$tmp/text" >"$tmp/protoc.lines"
	selftests/kmod/perfetto_dump "$tmp/t.pftrace" >"$tmp/dump.lines" ||
		return 1
	grep -v '^trace ' "$tmp/dump.lines" | sort >"$tmp/dump.sorted"
	sort "$tmp/protoc.lines" >"$tmp/protoc.sorted"
	diff "$tmp/protoc.sorted" "$tmp/dump.sorted" | sed 's/^/# /'
	cmp -s "$tmp/protoc.sorted" "$tmp/dump.sorted" &&
		[ "$(grep -c '^event' "$tmp/protoc.lines")" -gt 10 ]
}
tap_check "protoc and perfetto_dump read the same tracks and events" t_agree

tap_check "descriptors come before events" pf_header "$tmp/dump.lines"
tap_check "every track's slices balance" pf_balanced "$tmp/protoc.lines"
tap_check "the waiter's track carries its name" \
	pf_thread_named "$tmp/protoc.lines" 10 waiter

t_calls() {
	pf_has_slice "$tmp/protoc.lines" thread "acquire 7" &&
		pf_has_slice "$tmp/protoc.lines" thread work
}
tap_check "calls are slices of the threads, named by function and key" t_calls

t_waits() {
	pf_has_slice "$tmp/protoc.lines" waits "futex wait" &&
		pf_has_slice "$tmp/protoc.lines" waits futex &&
		pf_has_slice "$tmp/protoc.lines" waits runqueue
}
tap_check "futex waits, off-CPU and run-queue stretches are waits slices" \
	t_waits

t_flow() {
	n=$(pf_flows "$tmp/protoc.lines") || { echo "$n"; return 1; }
	[ "$n" = 1 ] || { echo "# $n flows, wanted 1"; return 1; }
}
tap_check "one flow: from the waker's wake, inside its call, to the wait" \
	t_flow
tap_done
