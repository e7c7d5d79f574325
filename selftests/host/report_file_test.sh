#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `ispotctl report FILE` on the host, as a user runs it: no module, no
# root.  The recordings of each older format in the unit tests' fixtures
# are reported, text and JSON; a report that cannot be written (stdout on
# a full disk) is one line with the disk's error and exit 1, never a
# second line ("cannot write the output: Success"); an empty file, as a
# record killed before it traced leaves, and a missing one are one line
# each, exit 1.  A recording read from a pipe (report -, a shell's
# <(...), a named FIFO whose writer comes later) reports as its file; one
# cut short in the pipe is read as a file cut short; a stream is kept in
# $TMPDIR, not in memory, while it comes; an endless stream
# that is no recording (/dev/zero) is refused at its first bytes, an
# empty pipe in one line; and on a real terminal (tmux) report - and
# record -o - are refused in one line each, before any work.
set -u
cd "$(dirname "$0")/../.."
. selftests/kmod/tap.sh
tmpdir_setup

require_file user/ispotctl make
fixtures=selftests/unit/recording/fixtures

tap_plan 15

reported() {
	local f
	for f in "$fixtures"/format*.isr; do
		run_status 0 user/ispotctl report "$f" || return 1
		grep -q "worker" "$tmp/out" ||
			{ echo "# $f: no worker row"; return 1; }
		run_status 0 user/ispotctl report "$f" --json || return 1
		grep -q '^{"ispot_version"' "$tmp/out" ||
			{ echo "# $f: no JSON report"; return 1; }
	done
}
tap_check every_older_format_is_reported reported

full_stdout() {
	local json
	for json in "" --json; do
		user/ispotctl report "$fixtures/format3.isr" $json \
			>/dev/full 2>"$tmp/err"
		[ $? = 1 ] || { echo "# exit not 1"; return 1; }
		one_line_err "cannot write the report (No space left on device)$" ||
			return 1
	done
}
if [ -w /dev/full ]; then
	tap_check stdout_on_a_full_disk_is_one_line_with_its_error full_stdout
else
	tap_skip stdout_on_a_full_disk_is_one_line_with_its_error "no /dev/full"
fi

empty_file() {
	: >"$tmp/.r.isr.AbCdEf"
	run_status 1 user/ispotctl report "$tmp/.r.isr.AbCdEf" &&
		one_line_err "is empty, not a recording (a record killed before it traced"
}
tap_check an_empty_file_is_said_to_be_empty empty_file

missing_file() {
	run_status 1 user/ispotctl report "$tmp/none.isr" &&
		one_line_err "none.isr"
}
tap_check a_missing_file_is_one_line missing_file

# Each older format, and the newest, read through a pipe: the same
# report, byte for byte, as the file's.
piped() {
	local f
	for f in "$fixtures"/format*.isr; do
		user/ispotctl report "$f" --json >"$tmp/file.json" 2>&1
		cat "$f" | user/ispotctl report - --json >"$tmp/pipe.json" 2>&1
		cmp -s "$tmp/file.json" "$tmp/pipe.json" ||
			{ echo "# $f: report - differs"; return 1; }
		user/ispotctl report <(cat "$f") --json >"$tmp/subst.json" 2>&1
		# Messages name the path: /dev/fd/N, not the file.
		sed "s|$f|X|" "$tmp/file.json" >"$tmp/file.x"
		sed "s|/dev/fd/[0-9]*|X|" "$tmp/subst.json" >"$tmp/subst.x"
		cmp -s "$tmp/file.x" "$tmp/subst.x" ||
			{ echo "# $f: <(...) differs"; return 1; }
		# A file on stdin is mapped as the file, no pipe.
		user/ispotctl report - --json <"$f" >"$tmp/stdin.json" 2>&1
		cmp -s "$tmp/file.json" "$tmp/stdin.json" ||
			{ echo "# $f: report - < FILE differs"; return 1; }
		user/ispotctl report - --header <"$f" | head -n 1 |
			grep -q "^recording     standard input, .* bytes$" ||
			{ echo "# $f: report - < FILE read as a pipe"; return 1; }
	done
	grep -q '"functions"' "$tmp/pipe.json"
}
tap_check a_piped_recording_reports_as_its_file piped

# A named FIFO's writer may come after report opened it, or be there
# first, waiting in its open (the timeout fails a report that waits for
# a writer gone already).
fifo() {
	mkfifo "$tmp/fifo" || return 1
	user/ispotctl report "$fixtures/format4.isr" --json >"$tmp/file.json"
	(sleep 1; cat "$fixtures/format4.isr" >"$tmp/fifo") &
	run_status 0 timeout 20 user/ispotctl report "$tmp/fifo" --json ||
		return 1
	wait
	cmp -s "$tmp/out" "$tmp/file.json" || return 1
	cat "$fixtures/format4.isr" >"$tmp/fifo" &
	sleep 0.5
	run_status 0 timeout 20 user/ispotctl report "$tmp/fifo" --json ||
		return 1
	wait
	cmp -s "$tmp/out" "$tmp/file.json"
}
tap_check a_fifo_waits_for_its_writer fifo

# 3,000 of format4.isr's 3,051 bytes: its chunk whole, its end cut.
piped_cut() {
	head -c 3000 "$fixtures/format4.isr" >"$tmp/cut.isr"
	user/ispotctl report "$tmp/cut.isr" >"$tmp/file.txt" 2>/dev/null
	head -c 3000 "$fixtures/format4.isr" |
		run_status 0 user/ispotctl report - &&
		one_line_err "standard input: the recording is cut short at byte 3000" &&
		cmp -s "$tmp/out" "$tmp/file.txt"
}
tap_check a_pipe_cut_short_is_read_as_a_cut_file piped_cut

# held [ENV...]: `report - --json` of $f through a FIFO, with ENV (env's
# arguments); once report holds a deleted file or waits for the stream's
# first byte (in poll(): x86-64's poll or ppoll in /proc/PID/syscall),
# says where it keeps the stream: that file, or "memory".  Its JSON in
# $tmp/held.json, its stderr in $tmp/err; its exit status.
held() {
	local pid i sc where rc
	rm -f "$tmp/in" && mkfifo "$tmp/in" || return 99
	env "$@" user/ispotctl report - --json <"$tmp/in" \
		>"$tmp/held.json" 2>"$tmp/err" &
	pid=$!
	exec 3>"$tmp/in"
	for i in $(seq 400); do
		sc=$(cut -d' ' -f1 "/proc/$pid/syscall" 2>/dev/null)
		where=$(ls -l "/proc/$pid/fd" 2>/dev/null |
			sed -n 's/.* -> \(.*\) (deleted)$/\1/p' | head -n 1)
		[ -n "$where" ] || [ ! -d "/proc/$pid" ] && break
		[ "$sc" = 7 ] || [ "$sc" = 271 ] && break
		sleep 0.05
	done
	cat "${held_input:-$f}" >&3 2>/dev/null
	exec 3>&-
	wait "$pid"
	rc=$?
	echo "${where:-memory}"
	return $rc
}

# A stream is kept in an unlinked file while it comes, not in memory:
# in $TMPDIR, else in /var/tmp (unless it is a tmpfs), gone with report,
# and the report the file's.  A $TMPDIR that cannot take a file (missing)
# is one line, as is a stream past the file size limit (ulimit -f, whose
# SIGXFSZ would kill report unsaid: caught for every output, a report's
# --html too).
spilled() {
	local f=$fixtures/format4.isr where fs
	user/ispotctl report "$f" --json >"$tmp/file.json" 2>&1
	mkdir "$tmp/spill" || return 1
	where=$(held TMPDIR="$tmp/spill") &&
		[[ "$where" == "$tmp/spill/"* ]] &&
		[ -z "$(ls -A "$tmp/spill")" ] &&
		cmp -s "$tmp/file.json" "$tmp/held.json" ||
		{ echo "# TMPDIR given: kept in '$where'"; return 1; }
	fs=$(stat -f -c %T /var/tmp 2>/dev/null)
	if [ -d /var/tmp ] && [ "$fs" != tmpfs ] && [ "$fs" != ramfs ]; then
		where=$(held -u TMPDIR) && [[ "$where" == /var/tmp/* ]] &&
			cmp -s "$tmp/file.json" "$tmp/held.json" ||
			{ echo "# no TMPDIR: kept in '$where'"; return 1; }
	fi
	held TMPDIR="$tmp/none" >/dev/null
	[ $? = 1 ] || { echo "# a missing TMPDIR: exit not 1"; return 1; }
	one_line_err "standard input: cannot keep the stream in $tmp/none (No such file or directory): set TMPDIR to a writable directory with room" ||
		return 1
	(ulimit -f 1; cat "$f" |
		TMPDIR=$tmp/spill user/ispotctl report - >/dev/null 2>"$tmp/err")
	[ $? = 1 ] || { echo "# past ulimit -f: exit not 1"; return 1; }
	one_line_err "standard input: cannot keep the stream in $tmp/spill after 1024 bytes: it is larger than the file size limit (ulimit -f); raise the limit$" ||
		return 1
	(ulimit -f 4; user/ispotctl report "$f" --html "$tmp/h.html" \
		>/dev/null 2>"$tmp/err")
	[ $? = 1 ] || { echo "# --html past ulimit -f: exit not 1"; return 1; }
	one_line_err "(File too large)"
}
tap_check a_stream_is_kept_in_tmpdir_not_memory spilled

# In a mount namespace of its own (root): a /var/tmp that is a tmpfs
# leaves the stream to memory, as the tmpfs would hold it in memory with
# less room; a $TMPDIR that fills is one line.
spill_in_memory() {
	local f=$fixtures/format4.isr
	if ! unshare -m true 2>/dev/null; then
		tap_skip a_tmpfs_var_tmp_leaves_the_stream_to_memory "needs root for a mount namespace"
		return
	fi
	user/ispotctl report "$f" --json >"$tmp/file.json" 2>&1
	mkdir "$tmp/small"
	cat "$f" "$f" >"$tmp/twice.isr"
	export -f held one_line_err
	export f tmp
	if unshare -m bash -c '
		mount -t tmpfs none /var/tmp || exit 1
		where=$(held -u TMPDIR) && [ "$where" = memory ] &&
			cmp -s "$tmp/file.json" "$tmp/held.json" ||
			{ echo "# a tmpfs /var/tmp: kept in $where"; exit 1; }
		mount -t tmpfs -o size=4k none "$tmp/small" || exit 1
		where=$(held_input=$tmp/twice.isr held TMPDIR="$tmp/small")
		[ $? = 1 ] || { echo "# a full TMPDIR: exit not 1"; exit 1; }
		one_line_err "standard input: cannot keep the stream in $tmp/small after [0-9]* bytes (No space left on device): set TMPDIR to a directory with room"'
	then
		tap_ok a_tmpfs_var_tmp_leaves_the_stream_to_memory
	else
		tap_not_ok a_tmpfs_var_tmp_leaves_the_stream_to_memory
	fi
}
spill_in_memory

# /dev/zero never ends: refused at its first bytes, neither read to the
# end of memory nor kept in $TMPDIR past them (the timeout, or the address
# space and 1 KiB file size limits, fail the test if it is); nor is a
# stream of random bytes.
not_recordings() {
	(ulimit -v 2000000; ulimit -f 1
	 timeout 20 user/ispotctl report - </dev/zero) \
		>"$tmp/out" 2>"$tmp/err"
	[ $? = 1 ] || { echo "# /dev/zero: exit not 1"; return 1; }
	one_line_err "standard input is not an ispot recording" || return 1
	(ulimit -f 1; head -c 3000 /dev/urandom | user/ispotctl report -) \
		>"$tmp/out" 2>"$tmp/err"
	[ $? = 1 ] || { echo "# random bytes: exit not 1"; return 1; }
	one_line_err "standard input is not an ispot recording" || return 1
	: | run_status 1 user/ispotctl report - &&
		one_line_err "standard input is empty, not a recording: pipe in what" &&
		run_status 1 user/ispotctl report /dev/zero &&
		one_line_err "is not a regular file or a pipe"
}
tap_check a_pipe_that_is_no_recording_is_one_line not_recordings

# every_byte_told: the header's sizes account for every byte of a whole
# file: its 16, the events', the tables' and each section's head (16
# bytes in format 1, 24 from format 2; one per chunk and table, and the
# end section's).
every_byte_told() {
	awk -v size="$(wc -c <"$1")" '
	/^recording / { head = $4 == "1.0," ? 16 : 24 }
	/^records / { chunks = $4; events = $8 }
	/^tables / {
		told = $2; n = 0
		for (i = 4; i <= NF; i += 2) { sum += $(i + 1); n++ }
	}
	END {
		want = 16 + events + told + head * (chunks + n + 1)
		if (sum != told || want != size) {
			printf "# %s: told %d, tables sum %d; %d bytes, want %d\n",
				FILENAME, told, sum, size, want
			exit 1
		}
	}' "$tmp/out"
}

# --header: each format's tables read back (the fixtures: 50 records in
# one chunk, 3 dropped, worker and flush traced), every byte told; a
# recording cut short says so, and that its statistics are unknown.
headers() {
	local f
	for f in "$fixtures"/format*.isr; do
		run_status 0 user/ispotctl report "$f" --header || return 1
		grep -q "^recording     $f, format [1-6]\.[0-9], " "$tmp/out" &&
			grep -q "^records       50 in 1 chunk of events" "$tmp/out" &&
			grep -q "^drops         3 dropped" "$tmp/out" &&
			grep -q "^tables        [0-9]* bytes: names [0-9]*, maps " "$tmp/out" &&
			every_byte_told "$f" &&
			grep -q "^  worker  " "$tmp/out" &&
			grep -q "^  flush  " "$tmp/out" &&
			grep -q "^state         whole" "$tmp/out" ||
			{ sed "s|^|# $f: |" "$tmp/out"; return 1; }
	done
	head -c 3000 "$fixtures/format4.isr" |
		run_status 0 user/ispotctl report - --header &&
		grep -q "^ended         unknown: cut short before its statistics" \
			"$tmp/out" &&
		grep -q "^cut           short at byte 3000; .* byte 2908" "$tmp/out"
}
tap_check the_header_says_what_each_format_holds headers

# --header --json: the same figures as one JSON object, for scripts;
# what a cut file does not hold is null, not 0.
header_json() {
	local f tables
	for f in "$fixtures"/format*.isr; do
		run_status 0 user/ispotctl report "$f" --header --json ||
			return 1
		jq -e --arg f "$f" '.recording == $f and
			.events.recorded == 50 and .events.chunks == 1 and
			.events.dropped == 3 and .state.whole == true and
			([.functions[].name] == ["worker", "flush"]) and
			.target.mode == "run" and
			(.duration_ns | type) == "number"' "$tmp/out" \
			>/dev/null || { sed "s|^|# $f: |" "$tmp/out"; return 1; }
		# Every table the text tells, by the same name and size.
		tables=$(user/ispotctl report "$f" --header |
			sed -n 's/^tables  *[0-9]* bytes: //p' | tr ',' '\n')
		[ "$(echo "$tables" | grep -c .)" -ge 5 ] ||
			{ echo "# $f: tables: $tables"; return 1; }
		echo "$tables" | while read -r name bytes; do
			jq -e --arg n "$name" --argjson b "$bytes" \
				'.tables[$n] == $b' "$tmp/out" >/dev/null ||
				exit 1
		done || { echo "# $f: tables differ"; return 1; }
	done
	head -c 3000 "$fixtures/format4.isr" |
		run_status 0 user/ispotctl report - --header --json &&
		jq -e '.piped == true and .duration_ns == null and
			.events.recorded == null and .events.dropped == null and
			.state.cut == true and .state.read_to == 2908 and
			.state.whole == false' "$tmp/out" >/dev/null ||
		{ sed "s|^|# cut: |" "$tmp/out"; return 1; }
}
tap_check the_header_as_json header_json

# It makes no report: an option that shapes one is refused, not
# ignored; a header stdout cannot take is one line with its error.
header_refusals() {
	local f="$fixtures/format4.isr" opt
	for opt in "--output $tmp/r.txt" "--html $tmp/r.html" \
		"--key worker=arg0" "--top 3" --wide --all-futexes; do
		run_status 2 user/ispotctl report "$f" --header $opt &&
			one_line_err "--header prints what the recording holds, not a report: give ${opt%% *} without it" ||
			return 1
	done
	[ -w /dev/full ] || return 0
	user/ispotctl report "$f" --header >/dev/full 2>"$tmp/err"
	[ $? = 1 ] && one_line_err "cannot write the report (No space left on device)$"
}
tap_check header_refuses_report_options header_refusals

# record -o - with fd 1 closed: refused at its options, before the
# device's open could take fd 1 and be written as "standard output".
closed_stdout() {
	user/ispotctl record -o - --func main -- true >&- 2>"$tmp/err"
	[ $? = 2 ] && one_line_err "-o -: standard output is closed"
}
tap_check record_to_a_closed_stdout_is_refused closed_stdout

# A real terminal: nobody types a recording, nor reads one.
on_a_terminal() {
	local T="tmux -f /dev/null -S $tmp/tmux.sock" i
	$T new-session -d -s t -x 200 -y 20 "cd $PWD; \
		user/ispotctl report -; echo rc=\$?; \
		user/ispotctl record -o - --func main -- true; echo rc=\$?; \
		sleep 60" || return 1
	for i in $(seq 50); do
		$T capture-pane -p -t t >"$tmp/pane"
		[ "$(grep -c '^rc=' "$tmp/pane")" = 2 ] && break
		sleep 0.2
	done
	$T kill-server
	sed 's/^/# /' "$tmp/pane" | grep -v '^# $'
	grep -q '^ispotctl: standard input is a terminal: pipe a recording' \
		"$tmp/pane" && grep -q '^rc=1' "$tmp/pane" &&
		grep -q '^ispotctl: -o -: standard output is a terminal' \
			"$tmp/pane" && grep -q '^rc=2' "$tmp/pane"
}
if command -v tmux >/dev/null; then
	tap_check a_terminal_is_refused_for_a_recording on_a_terminal
else
	tap_skip a_terminal_is_refused_for_a_recording "no tmux"
fi

tap_done
