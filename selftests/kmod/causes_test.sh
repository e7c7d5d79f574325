#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Why a function is slow: each sample's loss is dominated by the cause it
# was written to show (futex wait for a mutex, on-CPU spinning for a
# spinlock, blocked I/O for O_DIRECT reads), and the futex report names
# the contended mutex by its symbol.  Shares of the loss are compared, never
# absolute times: the guest is emulated.  The lock samples' shares need
# their threads to have fought over the lock: if their own timing shows
# they hardly waited for it (a busy host made the vCPUs take turns),
# those tests skip (tap.sh, tap_parallel).
. "$(dirname "$0")/tap.sh"
samples=/ispot/samples
require_root
require_module
tmpdir_setup

tap_plan 5

# top_fn FILE KEY: KEY of the top function (functions come sorted by SCI).
top_fn() { json_get "$1" ".functions[0].$2"; }

# share FILE CAUSE: the top function's CAUSE_ns over its loss_ns.
share() {
	awk -v c="$(top_fn "$1" "causes.$2_ns")" -v l="$(top_fn "$1" loss_ns)" \
		'BEGIN { printf "%.3f\n", (l > 0 ? c / l : 0) }'
}

# causes_of NAME FUNC SAMPLE ARGS...: trace FUNC in SAMPLE into $tmp/NAME.json
causes_of() {
	out=$1 func=$2 sample=$3
	shift 3
	par_stats "$out"
	ispotctl run --func "$func" --json -o "$tmp/$out.json" -- \
		"$samples/$sample" "$@" >/dev/null || return 1
	par_stats_off
	echo "# $out: $(par_line "$tmp/$out.par")"
	echo "# $out: loss $(top_fn "$tmp/$out.json" loss_ns) ns;" \
	     "futex $(share "$tmp/$out.json" futex), blocked" \
	     "$(share "$tmp/$out.json" blocked), runqueue" \
	     "$(share "$tmp/$out.json" runqueue), on-cpu" \
	     "$(share "$tmp/$out.json" oncpu)"
}

t_lock() {
	causes_of lock acquire lock_contention --threads 2 --delay-us 50 \
		--hold-us 200 --iterations 400 || return 1
	lt 0.5 "$(share "$tmp/lock.json" futex)"
}
par_need contended "$tmp/lock.par"
tap_parallel "mutex_loss_is_mostly_futex_wait" t_lock

t_futex_symbol() {
	# The futex report names the mutex the workers fought over.
	grep -o '"futexes": \[[^]]*' "$tmp/lock.json" | head -c 300 |
		sed 's/^/# /'
	echo
	grep -q '"symbol": "lock_contention:gm_lock' "$tmp/lock.json" &&
		grep -q '"functions": \["acquire"\]' "$tmp/lock.json"
}
tap_check "futex_report_names_the_mutex" t_futex_symbol

# A spinner never sleeps: its loss is CPU time, spinning or, when the
# tracer's own thread takes one of the two vCPUs, waiting to run again
# (sid once showed on-CPU 0.475 and run-queue 0.525 of a 5 ms loss).
# What little is blocked is the uprobe machinery's own sleeps, not the
# program's: on 7.x (sid) it reached 0.114 of the loss in make check-all
# (2026-11-28, a loaded host), against under 0.05 on 6.1; the bound
# leaves room for that and still fails a loss that really sleeps.
t_spin() {
	causes_of spin spin_acquire spinlock --threads 2 --delay-us 0 \
		--iterations 600 || return 1
	echo "# shares: on-CPU $(share "$tmp/spin.json" oncpu)," \
	     "run queue $(share "$tmp/spin.json" runqueue)," \
	     "futex $(share "$tmp/spin.json" futex)," \
	     "blocked $(share "$tmp/spin.json" blocked)"
	lt 0.5 "$(awk -v a="$(share "$tmp/spin.json" oncpu)" \
		-v b="$(share "$tmp/spin.json" runqueue)" \
		'BEGIN { print a + b }')" &&
		lt 0.2 "$(share "$tmp/spin.json" oncpu)" || return 1
	lt "$(share "$tmp/spin.json" futex)" 0.1 &&
		lt "$(share "$tmp/spin.json" blocked)" 0.25
}
par_need contended "$tmp/spin.par"
tap_parallel "spinlock_loss_is_mostly_on_cpu" t_spin

t_io() {
	if ! mount | grep -q ' /mnt '; then
		echo "# no disk at /mnt (boot the VM with --disk)"
		return 4
	fi
	causes_of io read_block io_contention --threads 2 --iterations 200 ||
		return 1
	# Blocked is the largest waiting cause, and a quarter of the loss
	# at least: the rest is the read path's own CPU, which the emulator
	# stretches under load (on-CPU 0.60, blocked 0.37 in a check-all on
	# sid beside two guests; above 0.5 blocked on an idle host).
	lt 0.25 "$(share "$tmp/io.json" blocked)" &&
		lt "$(share "$tmp/io.json" runqueue)" \
		   "$(share "$tmp/io.json" blocked)" &&
		lt "$(share "$tmp/io.json" futex)" 0.1
}
if [ "${ISPOT_VM_KERNEL:-}" = debug ]; then
	(exit 5)
else
	t_io
fi
case $? in
5) tap_skip "io_loss_is_mostly_blocked_outside_futex" \
	"timing ratios are meaningless on the debug kernel" ;;
0) tap_ok "io_loss_is_mostly_blocked_outside_futex" ;;
4) tap_skip "io_loss_is_mostly_blocked_outside_futex" "no disk at /mnt" ;;
*) tap_not_ok "io_loss_is_mostly_blocked_outside_futex" ;;
esac

t_parts_sum() {
	# The parts, unknown included, add up to the loss exactly.
	f=$tmp/lock.json
	sum=$(json_get -l "$f" .functions[0].causes |
		awk -F '\t' '{ s += $2 } END { printf "%.0f\n", s }')
	echo "# parts $sum, loss $(top_fn "$f" loss_ns)"
	[ "$sum" = "$(top_fn "$f" loss_ns)" ] &&
		[ "$(top_fn "$f" causes.unknown_ns)" = 0 ]
}
tap_check "causes_add_up_to_the_loss" t_parts_sum

tap_done
