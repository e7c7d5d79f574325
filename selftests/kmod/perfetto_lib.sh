# SPDX-License-Identifier: GPL-2.0
# Checks of a Perfetto trace written by ispotctl --perfetto, read as the
# lines selftests/kmod/perfetto_dump prints (sourced by perfetto_test.sh
# in the guest, and by selftests/host/perfetto_test.sh, which makes the
# same lines from protoc's decoding):
#
#	trace PACKETS CLEARED SEQUENCED CLOCK DESCRIPTORS_FIRST
#	track UUID PARENT TID NAME
#	event TS TRACK B|E|I FLOWS TERMINATING NAME
#
# (FLOWS: the flow ids an event starts, joined by commas, 0 for none.)
# Each check prints why it fails on "# " lines.

# rest(N): the line without its first N fields (a name may have spaces;
# mawk has no {N} in regular expressions).
pf_rest='function rest(n,	s, i) {
	s = $0
	for (i = 0; i < n; i++)
		sub(/^[^ ]+ /, "", s)
	return s
}'

# pf_header LINES: the first packet clears the sequence's state, every
# packet is on a sequence, a clock snapshot is there, and every track is
# described before its first event.
pf_header() {
	grep -qx 'trace [0-9]* 1 1 1 1' "$1" ||
		{ grep '^trace' "$1" | sed 's/^/# /'; return 1; }
}

# pf_balanced LINES: on every track, slices end in the order they began,
# all of them, and time never goes back.
pf_balanced() {
	awk '$1 == "event" {
		if ($2 + 0 < last[$3] + 0) {
			print "# track " $3 " goes back in time at " $2; bad = 1
		}
		last[$3] = $2
		if ($4 == "B") depth[$3]++
		if ($4 == "E" && --depth[$3] < 0) {
			print "# track " $3 ": an end without a begin at " $2
			bad = 1
		}
	}
	END {
		for (t in depth)
			if (depth[t]) {
				print "# track " t ": " depth[t] " open at end"
				bad = 1
			}
		exit bad
	}' "$1"
}

# pf_slices LINES KIND: the names of the slices that begin on threads'
# tracks (KIND thread) or on their waits tracks (KIND waits), one a line.
pf_slices() {
	awk -v kind="$2" "$pf_rest"'
	$1 == "track" {
		name = rest(4)
		if ($4 != 0) thread[$2] = 1
		if (name == "waits") waits[$2] = 1
	}
	$1 == "event" && $4 == "B" {
		name = rest(6)
		if ((kind == "thread" && thread[$3]) ||
		    (kind == "waits" && waits[$3]))
			print name
	}' "$1" | sort -u
}

# pf_has_slice LINES KIND NAME: a slice NAME begins on such a track.
pf_has_slice() {
	pf_slices "$1" "$2" | grep -qxF "$3" ||
		{ echo "# no '$3' slice on a $2 track; there are:"
		  pf_slices "$1" "$2" | sed 's/^/#   /'; return 1; }
}

# pf_thread_named LINES TID NAME: thread TID's track carries its name.
pf_thread_named() {
	awk -v tid="$2" -v want="$3" "$pf_rest"'
	$1 == "track" && $4 == tid {
		name = rest(4)
		found = name == want
	} END { exit !found }' "$1" ||
		{ echo "# thread $2 is not named '$3'"; return 1; }
}

# pf_flows LINES: how many waits a flow ends, each at a wait on a waits
# track, begun by a "futex wake" instant of another thread with the same
# id, inside a call of that thread (a slice open on its track).  Fails if
# a flow ends nowhere it began, or none ends at all.
pf_flows() {
	awk "$pf_rest"'
	$1 == "track" {
		name = rest(4)
		if ($4 != 0) thread[$2] = 1
		if (name == "waits") owner[$2] = $3
	}
	$1 == "event" {
		name = rest(6)
		if ($4 == "B") depth[$3]++
		if ($4 == "E") depth[$3]--
		if ($4 == "I" && $5 != 0 && thread[$3] &&
		    name == "futex wake") {
			nf = split($5, f, ",")
			for (i = 1; i <= nf; i++)
				wake[f[i]] = $3 " " depth[$3]
		}
		if ($4 == "E" && $6 != 0) {
			# Test "in" first: reading wake[$6] would make it.
			if (!(($6) in wake) || !owner[$3]) {
				print "# flow " $6 " ends, begun nowhere"
				bad = 1
				next
			}
			split(wake[$6], w, " ")
			if (w[1] == owner[$3]) {
				print "# flow " $6 " from a thread to itself"
				bad = 1
			} else if (w[2] < 1) {
				print "# flow " $6 " begins outside any call"
				bad = 1
			} else {
				n++
			}
		}
	}
	END {
		if (!n) print "# no flow ends at a wait"
		print n + 0
		exit bad || !n
	}' "$1"
}
