#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Programs run from an overlay filesystem (containers' usual root): the
# probes must fire whether the binary lives in the lower layer (ext4 disk
# or the initramfs) or in the upper one (tmpfs), with exact call counts;
# and lazily unmounting the overlay while a traced program runs from it
# must break nothing and leak nothing: afterwards ispot.ko and overlay.ko
# both unload (an inode or file left referenced would keep the overlay's
# superblock, and so overlay.ko, busy).
#
# Needs the overlay filesystem: run.sh --disk copies overlay.ko from the
# guest kernel's tree and loads it at boot.
. "$(dirname "$0")/tap.sh"
lock=/ispot/samples/lock_contention
require_root
require_file "$lock"
require_module
tmpdir_setup
grep -qw overlay /proc/filesystems ||
	{ [ -f /modules/overlay.ko ] && insmod /modules/overlay.ko; }
grep -qw overlay /proc/filesystems ||
	tap_skip_all "no overlay filesystem (run.sh --disk loads it)"

# The lower layer on the ext4 disk when there is one, else on the initramfs.
if grep -q ' /mnt ext4 ' /proc/mounts; then
	lowerfs=/mnt/ispot-ovl
else
	lowerfs=$tmp/lowerfs
fi
base=$tmp/ovl
mounts=
# Unmounted before $tmp goes, however the test ends.
at_exit 'ovl_umount_all; rm -rf "$lowerfs" 2>/dev/null'

# ovl_mount NAME: lower $lowerfs/NAME (lock_contention copied in first),
# upper and work on a fresh tmpfs; the merged view at $base/NAME/merged.
ovl_mount() {
	om_l=$lowerfs/$1
	om_b=$base/$1
	mkdir -p "$om_l" "$om_b/rw" "$om_b/merged" || return 1
	cp "$lock" "$om_l/lock_contention" || return 1
	mount -t tmpfs tmpfs "$om_b/rw" || return 1
	mkdir "$om_b/rw/upper" "$om_b/rw/work" || return 1
	mount -t overlay overlay -o "lowerdir=$om_l,upperdir=$om_b/rw/upper,workdir=$om_b/rw/work" \
		"$om_b/merged" || return 1
	mounts="$om_b/merged $om_b/rw $mounts"
}

ovl_umount_all() {
	for m in $mounts; do
		grep -q " $m " /proc/mounts && umount "$m"
	done
	mounts=
}

# exact BIN THREADS ITERATIONS: ispotctl run on BIN, acquire() counted
# exactly once per call, nothing dropped or unpaired.
exact() {
	run_status 0 ispotctl run --func acquire --json -o "$tmp/r.json" -- \
		"$1" --threads "$2" --iterations "$3" || return 1
	calls=$(json_get "$tmp/r.json" .functions[0].calls)
	unpaired=$(json_get "$tmp/r.json" .events.unpaired)
	dropped=$(json_get "$tmp/r.json" .events.dropped)
	echo "# $1: calls $calls (want $(($2 * $3))) unpaired $unpaired dropped $dropped"
	[ "$calls" = $(($2 * $3)) ] && [ "$unpaired" = 0 ] && [ "$dropped" = 0 ]
}

tap_plan 7

if ovl_mount a; then
	tap_ok "overlay_mounted"
else
	tap_not_ok "overlay_mounted"
fi
m=$base/a/merged

# The binary from the lower layer, never copied up.
t_lower() {
	[ -x "$m/lock_contention" ] || return 1
	exact "$m/lock_contention" 2 100
}
tap_check "lower_layer_binary_exact_calls" t_lower

# A binary written through the overlay: it lives in the upper layer.
t_upper() {
	cp "$lock" "$m/lock_upper" || return 1
	[ -f "$base/a/rw/upper/lock_upper" ] || { echo "# not in upper"; return 1; }
	exact "$m/lock_upper" 2 100
}
tap_check "upper_layer_binary_exact_calls" t_upper

# The same binary outside the overlay, as the control.
tap_check "control_same_binary_outside_overlay" exact "$lock" 2 100

# running PATH: a process runs the program at PATH (no pgrep here).
running() {
	for rx in /proc/[0-9]*/exe; do
		[ "$(readlink "$rx" 2>/dev/null)" = "$1" ] && return 0
	done
	return 1
}

# lazy NAME FUNC: umount -l of an overlay while ispotctl runs a program
# from it with FUNC probed: the program finishes normally, ispotctl
# reports and exits with its status, the kernel stays healthy.
lazy() {
	ovl_mount "$1" || return 1
	lm=$base/$1/merged
	# Long enough (2 s at least) to be seen running on a slow kernel too.
	iters=10000
	ispotctl run --func "$2" --json -o "$tmp/lazy.json" -- \
		"$lm/lock_contention" --threads 2 --iterations $iters \
		--delay-us 200 >"$tmp/lazy.out" 2>"$tmp/lazy.err" &
	lpid=$!
	# Until the program runs from the overlay, under a session.
	i=0
	while [ $i -lt 300 ] && kill -0 $lpid 2>/dev/null; do
		running "$lm/lock_contention" &&
			[ "$(cat /sys/module/ispot/refcnt)" -gt 0 ] && break
		sleep 0.1
		i=$((i + 1))
	done
	if ! kill -0 $lpid 2>/dev/null || [ $i -ge 300 ]; then
		echo "# traced program never started"
		wait $lpid
		echo "# ispotctl exit $?"
		sed 's/^/# stdout: /' "$tmp/lazy.out"
		sed 's/^/# stderr: /' "$tmp/lazy.err"
		kill $lpid 2>/dev/null
		return 1
	fi
	sleep 1
	umount -l "$lm" || { echo "# umount -l failed"; kill $lpid; return 1; }
	umount -l "$base/$1/rw"
	if grep -q " $lm " /proc/mounts; then
		echo "# still mounted"
		return 1
	fi
	kill -0 $lpid 2>/dev/null || echo "# (ispotctl had already finished)"
	wait $lpid
	st=$?
	sed 's/^/# stderr: /' "$tmp/lazy.err"
	calls=$(json_get "$tmp/lazy.json" .functions[0].calls)
	echo "# after umount -l: ispotctl exit $st, $2 calls $calls"
	[ "$st" = 0 ] && [ -s "$tmp/lazy.json" ] && [ -n "$calls" ] &&
		[ "$calls" -gt 0 ]
}

# A probe on libc (outside the overlay) of a program run from the overlay.
tap_check "lazy_umount_while_traced_libc_probe" lazy lazy1 libc:pthread_mutex_lock
# A probe on the program itself, inside the overlay.
tap_check "lazy_umount_while_traced_overlay_probe" lazy lazy2 acquire

# Nothing leaked: every session closed, both modules unload (overlay.ko
# only when it is a module: a leaked reference keeps a superblock alive).
t_no_leak() {
	ovl_umount_all
	i=0
	while [ "$(cat /sys/module/ispot/refcnt)" != 0 ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rmmod ispot || { echo "# ispot.ko still in use"; return 1; }
	r=0
	if [ -e /sys/module/overlay/refcnt ] && [ -f /modules/overlay.ko ]; then
		j=0
		# A lazily unmounted superblock goes when its last user does.
		while [ "$(cat /sys/module/overlay/refcnt)" != 0 ] && [ $j -lt 50 ]; do
			sleep 0.1
			j=$((j + 1))
		done
		if ! rmmod overlay; then
			echo "# overlay.ko still in use: refcnt $(cat /sys/module/overlay/refcnt)"
			r=1
		else
			echo "# overlay.ko unloaded: no superblock left"
			insmod /modules/overlay.ko || r=1
		fi
	fi
	/ispot/selftests/kmod/load_ispot.sh || return 1
	return $r
}
tap_check "nothing_leaks_after_close" t_no_leak

tap_done
