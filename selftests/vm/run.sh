#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a Debian kernel under QEMU (software emulation), load ispot.ko, run a
# command in the built tree at /ispot, and exit with the command's status.
#
#   selftests/vm/run.sh [--kernel VER] [--smp N] [--mem MIB] [--timeout SEC]
#                       [--add HOST[:GUEST]]... [--disk MIB] [--disk-in-ram]
#                       [--forward HOSTPORT:GUESTPORT]...
#                       [--append KERNEL-ARGS] [--tcg multi|single]
#                       [--module-params PARAMS] [--qemu-arg ARG]...
#                       [--fetch /mnt/GUEST:HOST]... [--no-module]
#                       -- CMD [ARG...]
#
# --fetch copies a file the command left on the --disk filesystem (mounted
# at /mnt in the guest) to HOST once the guest is off: recordings, traces
# and reports made in the guest come back this way (read from the disk
# image with debugfs, nothing mounted on the host).
#
# --disk-in-ram keeps the --disk image in the host's /dev/shm instead of
# $TMPDIR, allocated whole, so that the guest's reads cost what the
# emulated device and a copy from RAM cost, not what the host's own disk
# does: a cloud volume's latency drifts by half from one minute to the
# next, which a benchmark timing the guest's reads would measure instead.
# QEMU opens it with O_DIRECT (cache=none) as any --disk image, which
# tmpfs takes from host Linux 6.6 on; where it does not, or /dev/shm is
# full, the image stays in $TMPDIR and a note says why.
#
# --forward makes the guest's TCP GUESTPORT reachable at 127.0.0.1:HOSTPORT
# on the host (QEMU user-mode networking, the guest isolated otherwise);
# the guest's eth0 is up as 10.0.2.15/24.  The guest's lo is always up.
#
# --tcg multi (the default) runs each vCPU on its own host thread, which
# the interference tests need.  QEMU's multi-threaded TCG mishandles the
# kernel's cross-CPU text patching (Documentation/design.rst, "Text
# patching under TCG"; selftests/vm/textpoke_repro.sh), so there the module
# is loaded with keep_tracepoints=1 unless --module-params says otherwise;
# --tcg single runs all vCPUs on one host thread and loads it as a real
# host would.  (--accel tcg,thread=X is the same as --tcg X.)  --qemu-arg
# passes one more argument to QEMU; --no-module boots without ispot.ko
# (module-free experiments).  Under multi-threaded TCG the module is not
# unloaded when the command ends: removing the kept tracepoint probes
# patches kernel text again, and a CI run once hung there for its whole
# timeout with no kernel report (a wedged vCPU); the single-threaded boots
# unload it, and their tests unload it while targets run.
#
# Fails (non-zero, reason on the last line) on a kernel Oops/BUG/WARNING or
# other splat (on the debug kernel also any lockdep, KASAN, UBSAN, KFENCE or
# DEBUG_OBJECTS report), a failed module load or unload, or a timeout.  The
# kernel log is checked in the guest when the command ends, and on the host
# as a whole afterwards, so a report that comes later or during a timeout
# is caught too; the report itself is printed before the reason.
#
# ISPOT_VM_KEEP=1 keeps the work directory (initramfs, console and kernel
# logs) for debugging the runner, and says where it is (and where the
# --disk-in-ram image is: it holds RAM until removed).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=6.1
smp=2
mem=		# default: 512 MiB, 1024 for the debug kernel (KASAN)
timeout=	# default: 600 s, 1800 for the debug kernel (slower under TCG)
disk_mib=0
disk_in_ram=0
append=
adds=()
forwards=()
fetches=()
tcg=multi
modparams=unset
qemu_args=()
load_module=1

die() {
	echo "vm: $*" >&2
	exit 2
}

usage() {
	sed -n '5,30p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kver=${2:?--kernel needs a version}; shift 2 ;;
	--smp) smp=${2:?--smp needs a count}; shift 2 ;;
	--mem) mem=${2:?--mem needs MiB}; shift 2 ;;
	--timeout) timeout=${2:?--timeout needs seconds}; shift 2 ;;
	--add) adds+=("${2:?--add needs a path}"); shift 2 ;;
	--disk) disk_mib=${2:?--disk needs MiB}; shift 2 ;;
	--disk-in-ram) disk_in_ram=1; shift ;;
	--forward) forwards+=("${2:?--forward needs HOSTPORT:GUESTPORT}"); shift 2 ;;
	--append) append=${2?--append needs kernel arguments}; shift 2 ;;
	--tcg) tcg=${2:?--tcg needs multi or single}; shift 2 ;;
	--module-params) modparams=${2?--module-params needs PARAMS}; shift 2 ;;
	--accel) tcg=${2#tcg,thread=}; shift 2 ;;
	--qemu-arg) qemu_args+=("${2:?--qemu-arg needs an argument}"); shift 2 ;;
	--no-module) load_module=0; shift ;;
	--fetch) fetches+=("${2:?--fetch needs /mnt/GUEST:HOST}"); shift 2 ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) die "unknown option '$1'; see $0 --help" ;;
	esac
done
[ $# -gt 0 ] || die "no command given; usage: $0 [options] -- CMD [ARG...]"
for f in ${fetches[@]+"${fetches[@]}"}; do
	case "$f" in
	/mnt/?*:?*) ;;
	*) die "--fetch takes /mnt/GUEST:HOST (a file on the --disk), not '$f'" ;;
	esac
	[ "$disk_mib" -gt 0 ] || die "--fetch needs --disk MIB: the file comes back on the disk"
	command -v debugfs >/dev/null || die "debugfs is missing; run scripts/deps.sh"
done
case "$tcg" in
multi)
	[ "$modparams" != unset ] || modparams=keep_tracepoints=1
	# The kernel patches its own text when it changes clocksource; under
	# TCG the watchdog marks the TSC unstable seconds after boot and
	# switches (7.2 took an Oops: int3 from it in ktime_get_mono_fast_ns).
	# Trust the TSC, as the benchmarks do, and let init wait for the one
	# switch to it before the command starts.
	append="tsc=reliable clocksource=tsc $append"
	;;
single) [ "$modparams" != unset ] || modparams= ;;
*) die "--tcg takes multi or single, not '$tcg'" ;;
esac
if [ "$kver" = debug ]; then
	mem=${mem:-1024}
	timeout=${timeout:-1800}
else
	mem=${mem:-512}
	timeout=${timeout:-600}
fi
for n in "$smp" "$mem" "$timeout" "$disk_mib"; do
	[[ "$n" =~ ^[0-9]+$ ]] || die "'$n' is not a number"
done
[ "$disk_in_ram" = 0 ] || [ "$disk_mib" -gt 0 ] ||
	die "--disk-in-ram needs --disk MIB: it says where that disk's image lives"

# --forward: QEMU's hostfwd rules, checked here so that a typo or a busy
# host port fails in a second, not after building the initramfs.
# shellcheck source=selftests/vm/ports.sh
. "$top/selftests/vm/ports.sh"
hostfwd=
hostports=" "
for f in ${forwards[@]+"${forwards[@]}"}; do
	[[ "$f" =~ ^0*([0-9]{1,5}):0*([0-9]{1,5})$ ]] &&
		[ "${BASH_REMATCH[1]}" -ge 1 ] && [ "${BASH_REMATCH[1]}" -le 65535 ] &&
		[ "${BASH_REMATCH[2]}" -ge 1 ] && [ "${BASH_REMATCH[2]}" -le 65535 ] ||
		die "--forward takes HOSTPORT:GUESTPORT, two ports 1-65535, not '$f'"
	hp=${BASH_REMATCH[1]}
	gp=${BASH_REMATCH[2]}
	[[ "$hostports" != *" $hp "* ]] ||
		die "--forward: host port $hp is given twice; use one host port per forward"
	! port_listening "$hp" ||
		die "--forward: host port $hp is in use on 127.0.0.1; pick another"
	hostports="$hostports$hp "
	hostfwd="$hostfwd,hostfwd=tcp:127.0.0.1:$hp-:$gp"
done

# shellcheck source=selftests/vm/kernels.sh
. "$top/selftests/vm/kernels.sh"
vm_kernel_select "$kver" || exit 2	# sets vm_image and vm_module

for tool in qemu-system-x86_64 busybox cpio; do
	command -v "$tool" >/dev/null ||
		die "$tool is missing; run scripts/deps.sh"
done
[ "$load_module" = 0 ] || [ -f "$vm_module" ] ||
	die "$vm_module is missing; run make"

work=$(mktemp -d "${TMPDIR:-/tmp}/ispot-vm.XXXXXX")
# Where the --disk image lives: $work, or with --disk-in-ram a directory
# in /dev/shm that the exit removes too (or names, with ISPOT_VM_KEEP).
disk_dir=$work
disk_img=$work/disk.img
# shellcheck disable=SC2317 # called by the EXIT trap
on_exit() {
	if [ -n "${ISPOT_VM_KEEP:-}" ]; then
		if [ "$disk_dir" = "$work" ]; then
			echo "vm: kept $work" >&2
		else
			echo "vm: kept $work, and $disk_dir (the disk image, in RAM)" >&2
		fi
	else
		rm -rf "$work"
		[ "$disk_dir" = "$work" ] || rm -rf "$disk_dir"
	fi
}
trap on_exit EXIT
if [ "$disk_in_ram" = 1 ]; then
	# Allocated whole: a full /dev/shm fails here, not as a guest that
	# QEMU pauses on ENOSPC until the timeout.
	ram_err=
	if ram_dir=$(mktemp -d /dev/shm/ispot-vm-disk.XXXXXX 2>&1); then
		disk_dir=$ram_dir
		if ! ram_err=$(fallocate -l "${disk_mib}M" \
				"$disk_dir/disk.img" 2>&1); then
			: "${ram_err:=fallocate failed}"
		elif ! ram_err=$(dd if=/dev/zero of="$disk_dir/probe" bs=4096 \
				 count=1 oflag=direct status=none 2>&1); then
			ram_err="${ram_err:-dd failed} (O_DIRECT on tmpfs needs host Linux 6.6)"
		fi
		rm -f "$disk_dir/probe"
	else
		ram_err=$ram_dir
	fi
	if [ -n "$ram_err" ]; then
		echo "vm: --disk-in-ram: ${ram_err//$'\n'/; }; the disk image stays in ${TMPDIR:-/tmp}" >&2
		[ "$disk_dir" = "$work" ] || rm -rf "$disk_dir"
		disk_dir=$work
	fi
	disk_img=$disk_dir/disk.img
fi
root=$work/root
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,etc,ispot,mnt}

# The built tree, without git metadata or caches.
tar -C "$top" --exclude=./.git --exclude=./.cache --exclude=./.build --exclude='*.o' \
	--exclude='*.cmd' -cf - . | tar -C "$root/ispot" -xf -
[ "$load_module" = 0 ] || cp "$vm_module" "$root/ispot/kmod/ispot.ko"
echo "$load_module" >"$root/load-module"
unload=$load_module
[ "$tcg" != multi ] || unload=0
echo "$unload" >"$root/unload-module"

for a in ${adds[@]+"${adds[@]}"}; do
	src=${a%%:*}
	dst=${a#*:}
	[ "$dst" != "$a" ] || dst=$src
	[ -e "$src" ] || die "--add: '$src' does not exist"
	mkdir -p "$root$(dirname "$dst")"
	cp -a "$src" "$root$dst"
done

cp "$(command -v busybox)" "$root/bin/busybox"
for applet in $("$root/bin/busybox" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/false" >>"$root/etc/passwd"

# Shared libraries every ELF file in the guest needs, at their host paths.
copy_libs() {
	local f lib
	while IFS= read -r -d '' f; do
		head -c 4 "$f" 2>/dev/null | grep -q 'ELF' || continue
		ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true
	done < <(find "$root" -type f -perm -u+x -print0) | sort -u |
	while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
copy_libs

# --disk and --forward: Debian builds virtio, ext4, overlayfs and virtio_net
# as modules, and the guest has no modprobe, so the ones /dev/vda, its
# filesystem, overlay mounts and eth0 need are copied from the guest
# kernel's own tree (vm_moddir), with what its modules.dep says they depend
# on (virtio_net: net_failover, failover), and loaded dependencies first.
# Names and compression (.ko, .ko.xz, .ko.zst) differ between releases; a
# module a release builds in is simply not there.  crc32c_generic is only
# a soft dependency of ext4 and jbd2 (crypto "crc32c") before 6.14.  A boot
# without these options loads none of them.
guest_modules=
[ "$disk_mib" -eq 0 ] ||
	guest_modules="virtio_pci virtio_blk crc32c_generic ext4 overlay"
[ -z "$hostfwd" ] || guest_modules="$guest_modules virtio_pci virtio_net"
: >"$root/guest-modules"
# The debug kernel (no module tree: vm_moddir empty) has them built in.
if [ -n "$guest_modules" ] && [ -n "$vm_moddir" ]; then
	[ -f "$vm_moddir/modules.dep" ] ||
		die "no $vm_moddir/modules.dep for --disk or --forward"
	mkdir -p "$root/modules"
	# Dependency order: each module after everything it depends on.
	awk -v want="$guest_modules" '
	function base(p) { sub(/.*\//, "", p); sub(/\.ko(\.[a-z]+)?$/, "", p); return p }
	function emit(m,   i, n, d) {
		if (m in done) return
		done[m] = 1
		n = split(deps[m], d, " ")
		for (i = n; i >= 1; i--) emit(d[i])
		print m
	}
	{ m = $1; sub(/:$/, "", m); path[base(m)] = m; $1 = ""; deps[m] = $0 }
	END {
		n = split(want, w, " ")
		for (i = 1; i <= n; i++) if (w[i] in path) emit(path[w[i]])
	}' "$vm_moddir/modules.dep" >"$work/guest-modules"
	while read -r m; do
		name=$(basename "${m%%.ko*}")
		case "$m" in
		*.ko) cp "$vm_moddir/$m" "$root/modules/$name.ko" ;;
		*.ko.xz) xz -dc "$vm_moddir/$m" >"$root/modules/$name.ko" ;;
		*.ko.zst) zstd -qdc "$vm_moddir/$m" >"$root/modules/$name.ko" ;;
		*.ko.gz) gzip -dc "$vm_moddir/$m" >"$root/modules/$name.ko" ;;
		*) die "$m: unknown module compression" ;;
		esac
		echo "/modules/$name.ko" >>"$root/guest-modules"
	done <"$work/guest-modules"
fi
[ "$disk_mib" -eq 0 ] || : >"$root/disk"
# The guest's clock follows the host's, but its vCPUs run only when the
# host schedules QEMU's threads: on a busy 2-core host (make check boots two
# VMs side by side) a vCPU can stand still for seconds of guest time, and
# the soft-lockup and RCU-stall detectors, at 20 s and 21 s, report that as
# a lockup (sid's stress_test did, a burst of host load while it ran).  At
# 50-100 times hardware's slowness those limits are 0.2-0.4 s of real work;
# 120 s, the largest the detectors take that keeps a margin, still reports
# a real lockup well inside the runner's own --timeout.
append="watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120 $append"
[ -z "$hostfwd" ] || : >"$root/net"

# What counts as a kernel report, one extended regex a line: grep -f in the
# guest and on the host.  The debug kernel's reports are named as they
# print (lockdep, KASAN, UBSAN, KFENCE, DEBUG_OBJECTS, DEBUG_LIST, hung
# tasks); many also start with BUG: or WARNING:.  Not a bare "lockdep":
# the debug kernel says "RCU lockdep checking is enabled" at every boot,
# and each lockdep report starts with WARNING: or BUG:.
cat >"$root/splat-patterns" <<'PATTERNS'
Oops
BUG:
WARNING:
Call Trace
general protection
kernel BUG
UBSAN
KASAN
KFENCE:
list_add corruption
list_del corruption
refcount_t:
stack-protector
RCU stall
detected stalls on CPUs
self-detected stall on CPU
possible recursive locking
possible circular locking dependency
inconsistent lock state
DEBUG_LOCKS_WARN_ON
sleeping function called from invalid context
ODEBUG:
suspicious RCU usage
workqueue leaked lock
INFO: task .* blocked for more than
INFO: trying to register non-static key
PATTERNS

{
	printf 'export ISPOT_VM_KERNEL=%q\n' "$kver"
	printf 'cd /ispot || exit 1\n'
	printf '%q ' "$@"
	printf '\n'
} >"$root/cmd.sh"
# Module parameters for every load in the guest, the tests' reloads too
# (selftests/kmod/load_ispot.sh).
printf '%s\n' "$modparams" >"$root/etc/ispot-module-params"

cat >"$root/init" <<'EOF'
#!/bin/sh
export PATH=/ispot/user:/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# The whole kernel log, every level, goes to the second serial port, which
# the host scans after the run (the console shows only the worst levels).
stty -F /dev/ttyS1 raw 115200 2>/dev/null
cat /dev/kmsg >/dev/ttyS1 2>/dev/null &
mkdir -p /root
for m in $(cat /guest-modules); do insmod "$m" 2>/dev/null; done
ip link set lo up
if [ -e /disk ]; then
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
fi
[ -b /dev/vda ] && mount /dev/vda /mnt 2>/dev/null
# poweroff -f does not wait for the serial port to drain: on a slow guest
# the last line, the one the host reads the outcome from, could be lost.
end() {
	sync
	sleep 1
	poweroff -f
}
fail() {
	echo "@@ISPOT-FAIL $*"
	end
}
# --forward: QEMU's user-mode network is 10.0.2.0/24 with the host side at
# .2 and forwards to .15.  Static, not udhcpc: the debug kernel has no
# AF_PACKET.  The NIC is whatever the kernel named it (no udev: eth0).
if [ -e /net ]; then
	i=0
	until nic=$(ls /sys/class/net | grep -v '^lo$' | head -n1) &&
		[ -n "$nic" ] || [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$nic" ] || fail "--forward: no network interface (virtio_net did not load)"
	ip addr add 10.0.2.15/24 dev "$nic" && ip link set "$nic" up &&
		ip route add default via 10.0.2.2 ||
		fail "--forward: could not bring $nic up"
fi
if grep -q 'tsc=reliable' /proc/cmdline; then
	i=0
	until dmesg | grep -q 'Switched to clocksource tsc$' || [ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
fi
echo "@@ISPOT-BEGIN"
if [ "$(cat /load-module)" = 1 ]; then
	out=$(/ispot/selftests/kmod/load_ispot.sh 2>&1) ||
		fail "module load failed: $out"
fi
# So that a run that times out can say how far it got (on the console,
# which the guest writes as it goes; the kernel log is copied out later),
# @@ISPOT-CMD before the command and @@ISPOT-CMD-END after it.
echo "@@ISPOT-CMD"
sh /cmd.sh </dev/null 2>&1
status=$?
echo "@@ISPOT-CMD-END"
if [ "$(cat /unload-module)" = 1 ] && grep -q '^ispot ' /proc/modules; then
	out=$(rmmod ispot 2>&1) || fail "module unload failed: $out"
fi
splat=$(dmesg | grep -E -m1 -f /splat-patterns)
[ -z "$splat" ] || fail "kernel splat: $splat"
echo "@@ISPOT-EXIT $status"
end
EOF
chmod +x "$root/init" "$root/cmd.sh"

(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/initrd.img"

# restrict=on: the guest reaches nothing outside; the forwards still work.
# romfile=: no iPXE option ROM, the kernel is booted directly.
net=()
[ -z "$hostfwd" ] ||
	net=(-netdev "user,id=n0,restrict=on$hostfwd"
	     -device virtio-net-pci,netdev=n0,romfile=)

drive=()
if [ "$disk_mib" -gt 0 ]; then
	command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 is missing; run scripts/deps.sh"
	[ -e "$disk_img" ] || truncate -s "${disk_mib}M" "$disk_img"
	mkfs.ext4 -q -F "$disk_img"
	drive=(-drive "file=$disk_img,format=raw,if=virtio,cache=none")
fi

log=$work/console.log
# Stream the console as it comes: mawk would read the pipe in big blocks.
awk_live=()
awk -W version 2>&1 | grep -q mawk && awk_live=(-W interactive)
set +e
timeout -k 5 "$timeout" qemu-system-x86_64 -nodefaults -display none \
	-no-reboot -accel "tcg,thread=$tcg" -m "$mem" -smp "$smp" \
	${qemu_args[@]+"${qemu_args[@]}"} \
	-serial stdio -serial "file:$work/kmsg.log" \
	-kernel "$vm_image" -initrd "$work/initrd.img" \
	${drive[@]+"${drive[@]}"} ${net[@]+"${net[@]}"} \
	-append "console=ttyS0 quiet loglevel=3 panic=-1 oops=panic $append" \
	</dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$log" | awk ${awk_live[@]+"${awk_live[@]}"} '
	/^@@ISPOT-BEGIN/ { on = 1; next }
	/^@@ISPOT-CMD/ { next }
	/^@@ISPOT-/ { on = 0; next }
	on || /Kernel panic|Oops|BUG:|WARNING:/ { print; fflush() }'
qemu_status=${PIPESTATUS[0]}
set -e

# A host port taken between the check above and QEMU's start: QEMU exits
# before the guest starts, with no kernel log to read.
fwd_err=$(grep -m1 'Could not set up host forwarding rule' "$log" || true)
if [ -n "$fwd_err" ]; then
	echo "vm: FAIL: --forward: QEMU could not listen on a host port; pick another (${fwd_err##*: })"
	exit 1
fi
# Any other refusal to start (no kernel log at all): QEMU's own words.
if [ ! -e "$work/kmsg.log" ]; then
	echo "vm: FAIL: QEMU did not start: $(grep -m1 '^qemu-system' "$log" || tail -n1 "$log")"
	exit 1
fi

# The kernel log as the host got it: the guest's /dev/kmsg stream (records
# "PRIO,SEQ,USEC,FLAGS;text", shown as "[SECONDS] text" with the tabs and
# newlines that kmsg escapes as \x09 and \x0a put back; continuation lines
# start with a space and are left out), then the console's kernel lines,
# which alone have what was printed after userspace stopped (a panic).  The
# command's own output on the console is not kernel log: of the lines
# between the markers only those with a printk timestamp are taken.
tr -d '\r' <"$work/kmsg.log" 2>/dev/null | awk '
	/^[0-9]+,[0-9]+,[0-9]+,[^;]*;/ {
		split($0, h, ","); sub(/^[^;]*;/, "")
		gsub(/\\x09/, "\t")
		n = split($0, part, /\\x0a/)
		for (i = 1; i <= n; i++)
			printf("[%12.6f] %s\n", h[3] / 1000000, part[i])
	}' >"$work/kernel.log"
awk '/^@@ISPOT-BEGIN/ { cmd = 1; next }
	/^@@ISPOT-CMD/ { next }
	/^@@ISPOT-/ { cmd = 0; next }
	!cmd || /^\[ *[0-9]+\.[0-9]+\] / || /Kernel panic/' "$log" >>"$work/kernel.log"

# The first kernel report anywhere in the log, and the report itself as TAP
# comments (up to its end marker or 150 lines), with the whole log kept.
report_at=$(grep -n -m1 -E -f "$root/splat-patterns" "$work/kernel.log" |
	    cut -d: -f1 || true)
report=
[ -z "$report_at" ] || report=$(sed -n "${report_at}p" "$work/kernel.log")
print_report() {
	[ -n "$report_at" ] || return 0
	awk -v at="$report_at" 'NR >= at - 3 && NR < at + 150 {
		print "# " $0
		if (NR > at + 2 && /^\[[^]]*\] (---\[ end trace|=+$)/) exit
	}' "$work/kernel.log"
	local keep
	keep=$(mktemp "${TMPDIR:-/tmp}/ispot-vm-kernel.XXXXXX.log")
	cp "$work/kernel.log" "$keep"
	echo "# the whole kernel log: $keep"
}

# How far a guest that timed out got: a boot that never finished the
# guest's setup (the kernel's boot, then init's mounts, drivers and
# network) ran no ISPOT code (QEMU's multi-threaded TCG can wedge a vCPU
# on a text patch there: design.rst, "Text patching under TCG"); a module
# load that never ended ran the module's; a command that never ended is
# the test's; after it, the module's unload or the kernel log's check.
stalled_at() {
	if ! grep -q '^@@ISPOT-BEGIN' "$log"; then
		echo "before the guest was set up"
	elif grep -q '^@@ISPOT-CMD-END' "$log"; then
		echo "after the command (unloading the module, checking the kernel log)"
	elif ! grep -q '^@@ISPOT-CMD' "$log"; then
		if [ "$load_module" = 1 ]; then
			echo "while the module loaded, before the command"
		else
			echo "before the command began"
		fi
	else
		echo "while the command ran"
	fi
}

if [ "$qemu_status" -eq 124 ] || [ "$qemu_status" -eq 137 ]; then
	print_report
	echo "vm: FAIL: timeout after ${timeout}s, $(stalled_at)${report:+ (kernel report: $report)}"
	exit 124
fi
reason=$(grep -m1 '^@@ISPOT-FAIL' "$log" | cut -d' ' -f2- || true)
if [ -n "$reason" ]; then
	print_report
	echo "vm: FAIL: $reason"
	exit 1
fi
status=$(grep -m1 '^@@ISPOT-EXIT' "$log" | cut -d' ' -f2 || true)
if [ -z "$status" ]; then
	print_report
	panic=${report:-$(grep -m1 -E 'Kernel panic|Oops|BUG:' "$log" || true)}
	# The guest's init says @@ISPOT-BEGIN before it loads the module: a
	# kernel that died before that died with no ISPOT code in it (QEMU's
	# multi-threaded TCG patches kernel text unreliably, design.rst,
	# "Text patching under TCG").  Worded apart, so that a caller can
	# tell it from a failure of ISPOT's.
	if [ -n "$panic" ] && ! grep -q '^@@ISPOT-BEGIN' "$log"; then
		echo "vm: FAIL: the kernel failed while booting, before the module was loaded: $panic"
		exit 1
	fi
	echo "vm: FAIL: guest stopped without an exit status${panic:+: $panic}"
	exit 1
fi
# A report the guest's own check did not see: it came after that check.
if [ -n "$report" ]; then
	print_report
	echo "vm: FAIL: kernel splat: $report"
	exit 1
fi
for f in ${fetches[@]+"${fetches[@]}"}; do
	guest=${f%%:*} host=${f#*:}
	rm -f "$host"
	debugfs -R "dump -p ${guest#/mnt} $host" "$disk_img" >/dev/null 2>&1
	if [ ! -f "$host" ]; then
		echo "vm: FAIL: --fetch: the guest left no $guest"
		exit 1
	fi
done
exit "$status"
