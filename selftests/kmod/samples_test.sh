#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every interference sample under ispotctl run: exact call counts of its
# block, the barrier ranked first among the pthread calls of --sync, the
# spinlock's SCI against its delay, and the I/O sample on a disk (or its
# one-line refusal of a filesystem without O_DIRECT).
#
# Nothing here needs wait tracing: only counts, and SCI values compared
# with each other within this one boot (the guest is emulated, 50-100
# times slower than hardware, so no time is compared with a constant).
. "$(dirname "$0")/tap.sh"
s=/ispot/samples
require_root
require_module
tmpdir_setup

tap_plan 8

# traced FUNC CMD...: ispotctl run --func FUNC --json on CMD, exit 0, the
# report in $tmp/r.json with FUNC first.
# (Helpers' variables are global in sh: their names must not be those of
# tap.sh's helpers, such as tap_check's name or run_status's want.)
traced() {
	tr_func=$1
	shift
	run_status 0 ispotctl run --func "$tr_func" --json -o "$tmp/r.json" \
		-- "$@" || return 1
	tr_top=$(json_get "$tmp/r.json" .functions[0].name)
	[ "$tr_top" = "$tr_func" ] ||
		{ echo "# first function '$tr_top'"; return 1; }
}

# counts CALLS FUNC CMD...: every one of the CALLS calls of FUNC in CMD
# recorded once, none dropped or left unpaired.
counts() {
	c_want=$1
	shift
	traced "$@" || return 1
	calls=$(json_get "$tmp/r.json" .functions[0].calls)
	unpaired=$(json_get "$tmp/r.json" .events.unpaired)
	dropped=$(json_get "$tmp/r.json" .events.dropped)
	echo "# $1: calls $calls (want $c_want), unpaired $unpaired," \
	     "dropped $dropped, sci $(json_get "$tmp/r.json" .functions[0].sci)"
	[ "$calls" = "$c_want" ] && [ "$unpaired" = 0 ] && [ "$dropped" = 0 ]
}

# median_sci FUNC CMD...: the median SCI of FUNC over three runs.  The
# emulated guest has stalls of milliseconds (a vCPU thread descheduled by
# the host, TCG serialising the vCPUs); a median keeps one from deciding.
# Prints nothing unless all three runs gave a number.
median_sci() {
	: >"$tmp/scis"
	for _ in 1 2 3; do
		traced "$@" >/dev/null || return 1
		json_get "$tmp/r.json" .functions[0].sci >>"$tmp/scis"
	done
	[ "$(grep -cE '^[0-9.]+(e[-+]?[0-9]+)?$' "$tmp/scis")" = 3 ] &&
		sort -g "$tmp/scis" | sed -n 2p
}

t_spin_counts() {
	counts 900 spin_acquire "$s/spinlock" --threads 3 --iterations 300
}
tap_check "spinlock_counts_every_call" t_spin_counts

t_fs_counts() {
	counts 600 update "$s/false_sharing" --iterations 300 --updates 100
}
tap_check "false_sharing_counts_every_call" t_fs_counts

# The padded control, run but not scored against the packed one: the
# emulated guest has no cache model, so a cache line shared by two
# threads costs nothing there and both SCIs are noise.  That comparison
# needs real hardware (and a PMU to name the misses).
t_fs_padded_counts() {
	counts 600 update "$s/false_sharing" --padded --iterations 300 \
		--updates 100
}
tap_check "false_sharing_padded_counts_every_call" t_fs_padded_counts

t_barrier_counts() {
	counts 600 sync_point "$s/barrier" --threads 3 --delay-us 0 \
		--iterations 200
}
tap_check "barrier_counts_every_call" t_barrier_counts

# Thread 1 works twice as long as thread 0 each round, so thread 0 waits
# about half its life at the barrier: an SCI near 0.25 over both threads.
# --sync adds libc's lock and wait calls; the barrier, in sync_point() or
# in pthread_barrier_wait() itself, must come first, and well above the
# noise.
t_barrier_first() {
	par_stats barrier
	run_status 0 ispotctl run --sync --func sync_point --json \
		-o "$tmp/b.json" -- "$s/barrier" --threads 2 --delay-us 1000 \
		--iterations 150 || return 1
	par_stats_off
	top=$(json_get "$tmp/b.json" .functions[0].name)
	sci=$(json_get "$tmp/b.json" .functions[0].sci)
	echo "# first: $top, sci $sci"
	grep -q '"name": "pthread_barrier_wait' "$tmp/b.json" ||
		{ echo "# --sync traced no pthread_barrier_wait"; return 1; }
	case $top in
	sync_point|pthread_barrier_wait*) lt 0.1 "$sci" ;;
	*) return 1 ;;
	esac
}
# The sample times its own waits at the barrier: if they were too short
# for the floor to mean anything, a skip (tap.sh, tap_parallel).
par_need contended "$tmp/barrier.par"
tap_parallel "barrier_ranks_first_under_sync" t_barrier_first

# Spinning is on-CPU, so this needs no wait tracing: the time a waiter
# spins is in spin_acquire()'s duration.  50 us inside the lock lifts
# contention above the guest's trap-to-trap jitter, as in ispotctl_test.
# Skipped, not failed, when the runs were not what they stand for, by
# their own timing (tap.sh, tap_parallel): the threads hardly waited at
# delay 0, or not three times as long as at delay 1000 us (a vCPU the
# host froze while holding the lock lengthens the rare waits there as
# contention would).
spin0=$(par_stats spin-0 && median_sci spin_acquire "$s/spinlock" \
	--threads 2 --delay-us 0 --hold-us 50 --iterations 600)
spin1=$(par_stats spin-1000 && median_sci spin_acquire "$s/spinlock" \
	--threads 2 --delay-us 1000 --hold-us 50 --iterations 200)
t_spin_sci() {
	echo "# spin_acquire median sci: delay 0us $spin0, delay 1000us $spin1"
	echo "# delay 0us: $(par_line "$tmp/spin-0.par"); delay 1000us: $(par_line "$tmp/spin-1000.par")"
	[ -n "$spin0" ] && [ -n "$spin1" ] &&
		lt "$(awk -v s="$spin1" 'BEGIN { print s * 3 }')" "$spin0"
}
par_need contended "$tmp/spin-0.par"
par_need above "$tmp/spin-0.par" "$tmp/spin-1000.par" 3
tap_parallel "spinlock_sci_falls_with_delay" t_spin_sci

# The runner's --disk gives the guest /dev/vda, mounted on /mnt, when its
# kernel can drive it: Debian builds virtio_pci, virtio_blk and ext4 as
# modules, which the runner's initramfs does not load.
disk=""
if ! [ -d /sys/bus/virtio ]; then
	disk="no virtio bus: $(uname -r) has virtio_pci/virtio_blk as"
	disk="$disk modules and the initramfs does not load them"
elif ! [ -b /dev/vda ]; then
	disk="no /dev/vda: boot with selftests/vm/run.sh --disk MIB"
elif ! grep -q '^[^ ]* /mnt ' /proc/mounts; then
	disk="/dev/vda is not mounted on /mnt (is ext4 loaded?)"
fi

# Without --file the sample makes its file on /mnt, and removes it.
t_io_counts() {
	counts 400 read_block "$s/io_contention" --size 8 --threads 2 \
		--iterations 200 || return 1
	grep -q 'from /mnt/io_contention' "$tmp/out" || return 1
	set -- /mnt/io_contention.*
	[ ! -e "$1" ]
}
if [ -z "$disk" ]; then
	tap_check "io_contention_counts_every_call_on_disk" t_io_counts
else
	tap_skip "io_contention_counts_every_call_on_disk" "$disk"
fi

# A filesystem without O_DIRECT (the guest's rootfs on 6.1; newer kernels'
# tmpfs accepts it, and then this skips) gets one line naming the way
# out, and exit 2.
# Without --file and with no disk on /mnt, the file goes to the current
# directory, and must not stay there.
t_io_refused() {
	run_status 2 "$s/io_contention" --file "$tmp/plain" --iterations 10 &&
		[ "$(wc -l <"$tmp/err")" = 1 ] &&
		grep -q '^io_contention: .*disk-backed.*--file' "$tmp/err" ||
		{ sed 's/^/# stderr: /' "$tmp/err"; return 1; }
	[ -n "$disk" ] || return 0
	mkdir "$tmp/cwd"
	(cd "$tmp/cwd" && run_status 2 "$s/io_contention" --size 1) &&
		grep -q 'disk-backed' "$tmp/err" &&
		[ -z "$(ls "$tmp/cwd")" ]
}
dd if=/dev/zero of="$tmp/plain" bs=4096 count=4 2>/dev/null
if dd if="$tmp/plain" of=/dev/null bs=4096 count=1 iflag=direct \
	2>/dev/null; then
	tap_skip "io_contention_refuses_a_filesystem_without_o_direct" \
		"$(stat -f -c %T "$tmp") accepts O_DIRECT on $(uname -r)"
else
	tap_check "io_contention_refuses_a_filesystem_without_o_direct" \
		t_io_refused
fi

tap_done
