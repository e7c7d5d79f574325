#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ispotctl --counters and --raw-event in the guest, which has no PMU:
# software events give per-call deltas and an on-CPU excess, hardware ones
# are reported unsupported (report, JSON, status) and break nothing.
# Values are compared with each other, never with absolute times.
. "$(dirname "$0")/tap.sh"
samples=/ispot/samples
require_root
require_module
tmpdir_setup

tap_plan 6

# The machine's answer, which the other checks must agree with.
ispotctl status --json >"$tmp/status.json" 2>"$tmp/err"
hw=$(json_get "$tmp/status.json" .hardware_counters)

# field FILE EVENT KEY: the top function's counters.EVENT.KEY
field() { json_get "$1" ".functions[0].counters.$2.$3"; }

t_status() {
	run_status 0 ispotctl status || return 1
	sed 's/^/# /' "$tmp/out" | grep counters
	grep -q "software counters: supported" "$tmp/out" || return 1
	# No PMU in an emulated guest: the status must say so.
	[ "$hw" = unsupported ] &&
		grep -q "hardware counters: unsupported" "$tmp/out" &&
		grep -q '"cycles": "unsupported"' "$tmp/status.json" &&
		grep -q '"cpu-clock": "supported"' "$tmp/status.json"
}
tap_check "status_says_hardware_counters_unsupported" t_status

t_software() {
	ispotctl run --func spin_acquire --counters cpu-clock,page-faults \
		--json -o "$tmp/spin.json" -- "$samples/spinlock" --threads 2 \
		--delay-us 0 --iterations 400 >/dev/null 2>"$tmp/err" ||
		{ sed 's/^/# /' "$tmp/err"; return 1; }
	calls=$(json_get "$tmp/spin.json" .functions[0].calls)
	counted=$(json_get "$tmp/spin.json" .functions[0].counted_calls)
	valid=$(field "$tmp/spin.json" cpu-clock valid_calls)
	mean=$(field "$tmp/spin.json" cpu-clock mean)
	max=$(json_get "$tmp/spin.json" .functions[0].max_ns)
	echo "# calls $calls, counted $counted, cpu-clock valid $valid mean $mean ns (max call $max ns)"
	grep -q '"counters": {"cpu-clock": "supported", "page-faults": "supported"}' \
		"$tmp/spin.json" || return 1
	# Every call carried counters; most stayed on their CPU (spinning,
	# not sleeping), and on-CPU time per call lies within the calls'.
	[ "$counted" = "$calls" ] && [ "$calls" = 800 ] &&
		lt "$((calls / 2))" "$valid" && lt 0 "$mean" && lt "$mean" "$max"
}
tap_check "software_counters_give_valid_deltas" t_software

t_excess() {
	# Contended spinning is CPU time the fastest (uncontended) calls do
	# not spend: positive excess, shown in the text report too.
	ex=$(field "$tmp/spin.json" cpu-clock excess_per_call)
	fast=$(field "$tmp/spin.json" cpu-clock fastest_mean)
	echo "# cpu-clock excess $ex ns per call over the fastest calls' $fast ns"
	lt 0 "$ex" || return 1
	ispotctl run --func spin_acquire --counters cpu-clock -- \
		"$samples/spinlock" --threads 2 --delay-us 0 --iterations 200 \
		>"$tmp/out" 2>"$tmp/err" || return 1
	grep -A2 "ON-CPU EXCESS PER CALL" "$tmp/out" | sed 's/^/# /'
	grep -A2 "ON-CPU EXCESS PER CALL" "$tmp/out" |
		grep -q "^spin_acquire .*+[0-9.]*[mun]*s "
}
tap_check "spinning_shows_as_on_cpu_excess" t_excess

t_hardware() {
	run_status 0 ispotctl run --func acquire \
		--counters cycles,instructions,cpu-clock --json \
		-o "$tmp/hw.json" -- "$samples/lock_contention" --threads 2 \
		--iterations 100 || return 1
	grep -q '"cycles": "unsupported"' "$tmp/hw.json" &&
		grep -q '"instructions": "unsupported"' "$tmp/hw.json" &&
		grep -q '"cpu-clock": "supported"' "$tmp/hw.json" &&
		[ "$(json_get "$tmp/hw.json" .functions[0].calls)" = 200 ] &&
		! grep -q '"cycles": {' "$tmp/hw.json" &&
		[ ! -s "$tmp/err" ]
}
tap_check "hardware_counters_unsupported_and_nothing_breaks" t_hardware

t_text() {
	run_status 3 ispotctl run --func acquire --counters cycles,page-faults \
		-- "$samples/lock_contention" --threads 2 --iterations 50 \
		--exit-status 3 || return 1
	grep -E "counters|unsupported" "$tmp/out" | sed 's/^/# /'
	grep -q "^hardware counters: unsupported (cycles)$" "$tmp/out" &&
		grep -q "^counters: page-faults$" "$tmp/out" &&
		grep -q "^acquire " "$tmp/out"
}
tap_check "report_says_hardware_counters_unsupported" t_text

t_raw() {
	# A raw PMU code (e.g. a HITM event) has nothing to count here either.
	run_status 0 ispotctl run --func acquire --raw-event 0x1cd --json \
		-o "$tmp/raw.json" -- "$samples/lock_contention" --threads 2 \
		--iterations 50 || return 1
	grep -q '"raw:0x1cd": "unsupported"' "$tmp/raw.json" &&
		[ "$(json_get "$tmp/raw.json" .functions[0].calls)" = 100 ]
}
tap_check "raw_event_unsupported_without_pmu" t_raw

tap_done
