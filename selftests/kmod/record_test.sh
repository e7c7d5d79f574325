#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ispotctl record and report: the report of a recording, made offline,
# equals the live report of the session that wrote it, field by field
# (with futex waits, causes and call stacks); another --key re-keys it;
# a record killed keeps the events of all but its last second;
# --max-size stops the records and both reports say so; and every bad
# input (not a recording, an unknown format version, a file cut short,
# an output that cannot be written) gets one line and a non-zero exit.
# A live run judged against --baseline, a recording of the program with
# one thread, takes its solo calls as its reference, and a baseline of
# other functions is refused before the target starts.
# report --header says what a recording holds without replaying it; the
# names it keeps include the threads gone before they could be read,
# named by their exit (ABI 1.10).
# record -o - streams the recording down a pipe to report - (the same
# report again), and a reader that stops early costs only the recording;
# one that stalls at the end gives way to a signal, the report still
# printed.
# --folded, --perfetto, --svg and --html give the same files from the
# recording as from the live session.
# No field is left out of the comparison: a replay stores the session's
# times, so even the duration is the live one.
. "$(dirname "$0")/tap.sh"
samples=/ispot/samples
require_root
require_module
tmpdir_setup

tap_plan 17

# fields FILE: every value of one JSON document with where it is
# (".functions[0].calls<tab>600"), one per line, in the writer's order.
fields() { json_get -l "$1"; }

# same A B: every field of A equals B's; the first differences shown.
same() {
	fields "$1" >"$tmp/a.fields"
	fields "$2" >"$tmp/b.fields"
	echo "# $(wc -l <"$tmp/a.fields") fields"
	diff "$tmp/a.fields" "$tmp/b.fields" >"$tmp/diff" && return 0
	head -n 20 "$tmp/diff" | sed 's/^/# /'
	return 1
}

t_same() {
	run_status 0 ispotctl record -o "$tmp/lock.isr" --func acquire \
		--stack-period 7 --json --perfetto "$tmp/live.pftrace" \
		--svg "$tmp/live-svg" --html "$tmp/live.html" \
		--folded "$tmp/live.folded" \
		-- "$samples/lock_contention" \
		--threads 2 --delay-us 50 --hold-us 200 --iterations 300 ||
		return 1
	# The report shares stdout with the sample, which prints first.
	grep '^{"ispot_version"' "$tmp/out" >"$tmp/live.json"
	run_status 0 ispotctl report "$tmp/lock.isr" --json \
		-o "$tmp/offline.json" || return 1
	echo "# recording: $(wc -c <"$tmp/lock.isr") bytes"
	grep -q '"stacks"' "$tmp/live.json" &&
		grep -q '"futexes"' "$tmp/live.json" &&
		same "$tmp/live.json" "$tmp/offline.json"
}
tap_check "offline_report_equals_live_field_by_field" t_same

# The other outputs, from the same recording: the folded stacks are the
# live ones, the Perfetto trace has the live one's events and tracks, its
# threads named as live (the recording keeps the names read as each was
# first seen: a replay has no /proc of the target), the pictures are the
# same files, and the page the same but for its script's random nonce.
t_outputs() {
	run_status 0 ispotctl report "$tmp/lock.isr" -o /dev/null \
		--perfetto "$tmp/offline.pftrace" --svg "$tmp/offline-svg" \
		--html "$tmp/offline.html" --folded "$tmp/offline.folded" ||
		return 1
	# A device is written in place, never replaced by a regular file.
	[ -c /dev/null ] || { echo "# /dev/null is no device any more"; return 1; }
	for w in live offline; do
		/ispot/selftests/kmod/perfetto_dump "$tmp/$w.pftrace" |
			awk '$1 == "event" || $1 == "track"' \
			>"$tmp/$w.pf" || return 1
		sed 's/nonce-[0-9a-f]*//g; s/nonce="[0-9a-f]*"//g' \
			"$tmp/$w.html" >"$tmp/$w.page"
	done
	echo "# $(grep -c '^event' "$tmp/live.pf") events," \
		"$(ls "$tmp/live-svg" | wc -l) pictures," \
		"$(awk '$1 == "track" && $4 != 0 && NF > 4' "$tmp/offline.pf" |
		   wc -l) threads named offline"
	grep -q '^event' "$tmp/live.pf" && ls "$tmp/live-svg" | grep -q acquire &&
		awk '$1 == "track" && $4 != 0 && NF > 4' "$tmp/offline.pf" |
		grep -q . &&
		grep -q acquire "$tmp/live.page" &&
		diff "$tmp/live.pf" "$tmp/offline.pf" >"$tmp/diff" &&
		diff -r "$tmp/live-svg" "$tmp/offline-svg" >>"$tmp/diff" &&
		grep -q 'acquire [0-9]' "$tmp/live.folded" &&
		diff "$tmp/live.folded" "$tmp/offline.folded" >>"$tmp/diff" &&
		diff "$tmp/live.page" "$tmp/offline.page" >>"$tmp/diff" ||
		{ head -n 20 "$tmp/diff" | sed 's/^/# /'; return 1; }
}
tap_check "offline_folded_perfetto_pictures_and_page_equal_live" t_outputs

# The attach form: --pid instead of a command, the same recording.
t_attach() {
	"$samples/lock_contention" --threads 2 --iterations 100000000 \
		--delay-us 100 >/dev/null &
	bg=$!
	sleep 1
	run_status 0 ispotctl record -o "$tmp/attach.isr" --pid "$bg" \
		--duration 2s --func acquire --json
	ok=$?
	kill "$bg"
	wait "$bg" 2>/dev/null
	[ $ok = 0 ] || return 1
	cp "$tmp/out" "$tmp/attach-live.json"
	run_status 0 ispotctl report "$tmp/attach.isr" --json \
		-o "$tmp/attach-offline.json" &&
		grep -q '"name": "acquire"' "$tmp/attach-live.json" &&
		same "$tmp/attach-live.json" "$tmp/attach-offline.json"
}
tap_check "attach_form_records_the_same" t_attach

t_rekey() {
	run_status 0 ispotctl report "$tmp/lock.isr" --json \
		--key acquire=callsite -o "$tmp/rekeyed.json" || return 1
	grep -q '"key": "callsite"' "$tmp/rekeyed.json" &&
		! grep -q '"key": "callsite"' "$tmp/live.json"
}
tap_check "report_rekeys_a_recording" t_rekey

t_text() {
	run_status 0 ispotctl report "$tmp/lock.isr" --top 1 &&
		grep -q acquire "$tmp/out"
}
tap_check "report_writes_the_table" t_text

# --header: what the file holds, from its tables: the command line that
# made it, its target, this kernel, as many records as the report says.
t_header() {
	recorded=$(json_get "$tmp/offline.json" .events.recorded)
	run_status 0 ispotctl report "$tmp/lock.isr" --header || return 1
	sed 's/^/# /' "$tmp/out"
	grep -q "^command line  ispotctl record -o $tmp/lock.isr --func acquire" \
		"$tmp/out" &&
		grep -q "^target        lock_contention, pid [0-9]* (run)" \
			"$tmp/out" &&
		grep -q "Linux $(uname -r)\$" "$tmp/out" &&
		grep -q "^records       $recorded in " "$tmp/out" &&
		grep -q "^  acquire  .*lock_contention" "$tmp/out" &&
		grep -q "^state         whole" "$tmp/out"
}
tap_check "header_says_what_the_recording_holds" t_header

t_max_size() {
	run_status 0 ispotctl record -o "$tmp/small.isr" --max-size 4K \
		--func acquire --json -- "$samples/lock_contention" \
		--threads 2 --iterations 300 || return 1
	grep '^{"ispot_version"' "$tmp/out" >"$tmp/small-live.json"
	[ "$(wc -c <"$tmp/small.isr")" -lt 65536 ] &&
		grep -q 'the recording stopped at 4.00KiB' "$tmp/small-live.json" &&
		run_status 0 ispotctl report "$tmp/small.isr" &&
		unwrapped "$tmp/out" | grep -q 'the recording stopped at 4.00KiB'
}
tap_check "max_size_stops_the_records_with_a_note" t_max_size

t_not_recording() {
	echo hello >"$tmp/text"
	run_status 1 ispotctl report "$tmp/text" &&
		one_line_err "is not an ispot recording"
}
tap_check "not_a_recording_is_one_line" t_not_recording

t_version() {
	# The major version is the two bytes after the magic.
	cp "$tmp/lock.isr" "$tmp/v9.isr"
	printf '\011' | dd of="$tmp/v9.isr" bs=1 seek=8 conv=notrunc 2>/dev/null
	run_status 1 ispotctl report "$tmp/v9.isr" &&
		one_line_err "recording of format 9\.[0-9]"
}
tap_check "unknown_version_is_one_line" t_version

# A recording cut short (a crash) reports what its whole chunks hold,
# with one line saying where it was cut (here inside its end section:
# every chunk is whole; test_cut cuts at every length); one cut inside
# its first tables is refused in one line.
t_truncated() {
	size=$(wc -c <"$tmp/lock.isr")
	head -c $((size - 1)) "$tmp/lock.isr" >"$tmp/cut.isr"
	run_status 0 ispotctl report "$tmp/cut.isr" &&
		one_line_err "cut short at byte $((size - 1))" &&
		head -c 24 "$tmp/lock.isr" >"$tmp/cut24.isr" &&
		run_status 1 ispotctl report "$tmp/cut24.isr" &&
		one_line_err "cut short"
}
tap_check "truncated_recording_is_one_line" t_truncated

t_unwritable() {
	run_status 1 ispotctl record -o /nonexistent/x.isr --func acquire \
		-- "$samples/lock_contention" --iterations 10 &&
		one_line_err "cannot write /nonexistent/x.isr" &&
		! ls /nonexistent 2>/dev/null &&
		run_status 1 ispotctl report "$tmp/lock.isr" \
			-o /nonexistent/r.json &&
		one_line_err "cannot write /nonexistent/r.json" &&
		[ -z "$(ls -A "$tmp" | grep '^\.')" ]
}
tap_check "unwritable_outputs_refused_first" t_unwritable

# compute() of two threads that share nothing, keyed by its argument;
# with one thread, its calls are solo but those that meet main() between
# pthread_create() and pthread_join(): under emulation on a loaded host
# that was up to 12 of the 100 (6.12, 2026-11-28), so the recording must
# give at least half of them, and the live run at least as many again.
# The live run makes no solo blocks: with 30 clean calls in them, its
# reference would be gated, and the baseline's solo calls not used.
# 30 is INTERF_MIN_EVIDENCE (user/lib/analysis/interference.h).
nc_run() {
	mode=$1 threads=$2
	shift 2
	run_status 0 ispotctl "$mode" "$@" --func compute --key compute=arg0 \
		--json -- "$samples/no_contention" --threads "$threads" \
		--iterations 100 --delay-us 200
}
t_baseline() {
	nc_run record 1 -o "$tmp/base.isr" || return 1
	base_solo=$(grep '^{"ispot_version"' "$tmp/out" |
		json_get - .functions[0].solo_calls)
	nc_run run 2 -o "$tmp/based.json" --baseline "$tmp/base.isr" \
		--solo-blocks 0 || return 1
	solo=$(json_get "$tmp/based.json" .functions[0].solo_calls)
	ref=$(json_get "$tmp/based.json" .functions[0].interference_reference \
		.functions[0].interference_reference_weak)
	# Started threads on a loaded host can still run alone for 30 calls
	# (CI, 6.1: 33): the reference is then the run's own, named "solo".
	own=$(( ${solo:-0} - ${base_solo:-0} ))
	kind=baseline
	[ "$own" -ge 30 ] && kind=solo
	echo "# baseline solo calls $base_solo, with the baseline $solo; reference $ref (expected $kind)"
	[ "${base_solo:-0}" -ge 50 ] && [ "${solo:-0}" -ge "$base_solo" ] &&
		[ "$ref" = "$kind${tab}false" ] &&
		grep -q 'in --baseline [^ ]*base.isr are part of' \
			"$tmp/based.json"
}
tap_check "baseline_gives_a_live_run_its_solo_calls" t_baseline

t_baseline_refused() {
	run_status 1 ispotctl run --baseline "$tmp/base.isr" --func acquire \
		-o "$tmp/refused.json" -- "$samples/lock_contention" \
		--iterations 10 &&
		one_line_err "has no solo calls of any traced function" &&
		[ ! -e "$tmp/refused.json" ] &&
		! grep -q . "$tmp/out" &&
		run_status 1 ispotctl report --baseline "$tmp/text" \
			"$tmp/lock.isr" && one_line_err "is not an ispot recording"
}
tap_check "baseline_of_other_functions_refused_first" t_baseline_refused

# children PID: the pids whose parent is PID.
children() {
	for stat in /proc/[0-9]*/stat; do
		# pid (comm) state ppid: comm here has no space.
		read -r cpid _ _ ppid _ 2>/dev/null <"$stat" || continue
		[ "$ppid" = "$1" ] && echo "$cpid"
	done
}

# record -o - streams the recording down a pipe, and report - reads it
# there: the same report as live, field by field.  The sample's own
# output and the live report go to stderr, never into the recording (or
# report - would refuse it).  A reader that stops early costs the
# recording, said in one line, and exit 1, never the live report.
# piped_record ITERATIONS [OUTPUT]: record -o OUTPUT (default -).
piped_record() {
	{
		ispotctl record -o "${2:--}" --func acquire --json \
			-- "$samples/lock_contention" --threads 2 \
			--delay-us 50 --hold-us 200 --iterations "$1" \
			2>"$tmp/rec.err"
		echo $? >"$tmp/rec.status"
	}
}
t_piped() {
	# /dev/stdout is -: the report would otherwise follow the recording.
	piped_record 300 /dev/stdout |
		ispotctl report - --json -o "$tmp/piped.json" \
		2>"$tmp/err" || { sed 's/^/# report -: /' "$tmp/err"; return 1; }
	[ "$(cat "$tmp/rec.status")" = 0 ] ||
		{ sed 's/^/# record: /' "$tmp/rec.err"; return 1; }
	[ ! -s "$tmp/err" ] && grep -q '^lock_contention' "$tmp/rec.err" &&
		grep '^{"ispot_version"' "$tmp/rec.err" >"$tmp/live.json" &&
		same "$tmp/live.json" "$tmp/piped.json" || return 1
	# The reader takes the header and goes.
	piped_record 3000 | head -c 16 >/dev/null
	grep "^ispotctl:" "$tmp/rec.err" >"$tmp/err"
	[ "$(cat "$tmp/rec.status")" = 1 ] &&
		grep -q '^{"ispot_version"' "$tmp/rec.err" &&
		one_line_err "cannot write standard output (Broken pipe): its reader exited before the end"
}
tap_check "a_piped_recording_reports_as_live" t_piped

# A reader that stops taking the recording as the trace stops: record's
# last chunk and tables wait for it (pipe_stall shrinks the pipe to a
# page, so that they must).  A signal then gives the write up: the report
# still comes, exit 1, one line.  When a SIGTERM stopped the trace, it
# takes a second (the first asked to stop); when the trace ended on its
# own (its target killed), the first.  Before, record had its signals'
# defaults back once tracing stopped, and the signal killed it with no
# report; then, kept caught, a lone SIGTERM after a trace that ended on
# its own waited for a second.
# recording_pid PID: the ispotctl that records PID (no pgrep here).
recording_pid() {
	for proc in /proc/[0-9]*; do
		read -r comm <"$proc/comm" 2>/dev/null || continue
		[ "$comm" = ispotctl ] &&
			tr '\0' ' ' <"$proc/cmdline" 2>/dev/null |
			grep -q -- "--pid $1 " && echo "${proc#/proc/}"
	done
}
# writing PID: PID waits in a write to a pipe.
writing() { grep -q pipe_write "/proc/$1/wchan" 2>/dev/null; }
# gone_within TENTHS PID: PID ends within TENTHS tenths of a second.
gone_within() {
	for i in $(seq "$1"); do
		[ -d "/proc/$2" ] || return 0
		sleep 0.1
	done
	return 1
}
# stalled STOP: record a contended sample to a reader that stalls, STOP
# (signal: a SIGTERM stops the trace; exit: its target is killed), then
# SIGTERMs until the write is given up.
stalled() {
	"$samples/lock_contention" --threads 2 --delay-us 50 --hold-us 200 \
		--iterations 100000000 >/dev/null &
	target=$!
	ispotctl record -o - --pid "$target" --func acquire --json \
		2>"$tmp/rec.err" |
		"$tap_top/selftests/kmod/pipe_stall" "$tmp/stalled.isr" &
	reader=$!
	rec=
	for i in $(seq 300); do
		rec=$(recording_pid "$target")
		[ -n "$rec" ] && break
		sleep 0.1
	done
	[ -n "$rec" ] || { echo "# record did not start"; kill "$target" "$reader"; return 1; }
	# Between two chunks: the file still, record not in a write.
	size=0
	for i in $(seq 600); do
		now=$(wc -c <"$tmp/stalled.isr")
		[ "$now" -gt 8192 ] && [ "$now" = "$size" ] && ! writing "$rec" &&
			break
		size=$now
		sleep 0.3
	done
	kill -USR1 "$reader"
	if [ "$1" = signal ]; then
		kill -TERM "$rec"
	else
		kill -KILL "$target"
	fi
	waited=no
	for i in $(seq 600); do
		[ -d "/proc/$rec" ] || break
		writing "$rec" && { waited=yes; break; }
		sleep 0.1
	done
	sleep 1
	# exit: the wait must be the last write's, not a chunk's in the
	# trace loop before record saw its target go (that one takes two
	# signals, as any stop of a trace does); trace_report() says
	# "exited after" first.  Then it is tried again.
	if [ "$1" = exit ] && [ "$waited" = yes ] &&
	   ! grep -q "exited after" "$tmp/rec.err"; then
		echo "# stalled inside the trace loop: tried again"
		kill -KILL "$rec"
		kill "$reader"
		wait "$reader"
		return 2
	fi
	signals=0
	while [ "$signals" -lt 3 ] && [ -d "/proc/$rec" ]; do
		# Only a write still waiting: once given up, the signals are
		# released, and one more would end the report.
		writing "$rec" || { gone_within 600 "$rec"; break; }
		kill -TERM "$rec" 2>/dev/null
		signals=$((signals + 1))
		gone_within 100 "$rec" && break
	done
	kill -KILL "$rec" "$target" 2>/dev/null
	kill "$reader"
	wait "$reader"
	wait "$target" 2>/dev/null
	echo "# $1: $(wc -c <"$tmp/stalled.isr") bytes taken; the last write waited: $waited; $signals SIGTERM after it"
	grep "^ispotctl:" "$tmp/rec.err" | grep -v "exited after" >"$tmp/err"
	[ "$waited" = yes ] && [ "$signals" = 1 ] &&
		grep -q '^{"ispot_version"' "$tmp/rec.err" &&
		one_line_err "a signal ended a write its reader did not take" ||
		{ sed 's/^/# record: /' "$tmp/rec.err" | head -n 5; return 1; }
}
t_stalled() {
	stalled signal || return 1
	for try in 1 2 3; do
		stalled exit
		r=$?
		[ "$r" = 2 ] || return "$r"
	done
	return 1
}
tap_check "a_signal_ends_a_stalled_last_write_with_the_report" t_stalled

# A record killed (no end section) reports the events of its first
# seconds: the session puts its events out to the file every second, not
# only at each MiB, so a slow program's recording loses a second at most
# (this one writes far less than a MiB in the 8 s).
t_killed() {
	ispotctl record -o "$tmp/killed.isr" --func acquire \
		-- "$samples/lock_contention" --threads 2 --delay-us 50000 \
		--hold-us 1000 --iterations 1000000 >/dev/null 2>&1 &
	rec=$!
	sleep 8
	# Its target spins on: killed too, or it would load every test
	# after this one (the guest has no pgrep).
	target=$(children "$rec")
	kill -KILL "$rec"
	wait "$rec" 2>/dev/null
	[ -n "$target" ] && kill -KILL $target ||
		{ echo "# the record's target was not found"; return 1; }
	cut=$(ls -A "$tmp" | grep '^\.killed\.isr\.' | head -n 1)
	[ -n "$cut" ] || { echo "# no temporary file left"; return 1; }
	mv "$tmp/$cut" "$tmp/killed.isr"
	echo "# $(wc -c <"$tmp/killed.isr") bytes left"
	run_status 0 ispotctl report "$tmp/killed.isr" --json \
		-o "$tmp/killed.json" && one_line_err "cut short at byte" &&
		calls=$(json_get "$tmp/killed.json" .functions[0].calls) &&
		echo "# $calls calls reported" && [ "${calls:-0}" -gt 0 ]
}
tap_check "a_killed_record_keeps_its_first_seconds" t_killed

# 120 threads that live a request each, most gone before the drain's first
# look at them: the recording names every one (the main thread, which
# makes no traced call, may or may not be among the names: 120 or more).
t_exit_names_kept() {
	run_status 0 ispotctl record -o "$tmp/churn.isr" \
		--func churn_request -- "$samples/thread_churn" \
		--threads 4 --rounds 30 &&
		run_status 0 ispotctl report "$tmp/churn.isr" --header \
			--json || return 1
	named=$(json_get "$tmp/out" .threads_named)
	echo "# ${named:-?} threads named of 121"
	[ "${named:-0}" -ge 120 ]
}
tap_check "threads_gone_before_they_were_read_are_named" t_exit_names_kept

tap_done
