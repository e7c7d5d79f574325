#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a Debian kernel under QEMU (software emulation), load ispot.ko, run a
# command in the built tree at /ispot, and exit with the command's status.
#
#   selftests/vm/run.sh [--kernel VER] [--smp N] [--mem MIB] [--timeout SEC]
#                       [--add HOST[:GUEST]]... [--disk MIB]
#                       [--append KERNEL-ARGS] [--accel ACCEL]
#                       [--qemu-arg ARG]... [--no-module] -- CMD [ARG...]
#
# --accel replaces the default tcg,thread=multi; --qemu-arg passes one more
# argument to QEMU (e.g. --qemu-arg -cpu --qemu-arg max); --no-module boots
# without loading ispot.ko (module-free experiments).
# Fails (non-zero, reason on the last line) on a kernel Oops/BUG/WARNING or
# other splat, a failed module load or unload, or a timeout.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=6.1
smp=2
mem=512
timeout=600
disk_mib=0
append=
adds=()
accel=tcg,thread=multi
qemu_args=()
load_module=1

die() {
	echo "vm: $*" >&2
	exit 2
}

usage() {
	sed -n '5,14p' "$0" | sed 's/^# \{0,1\}//' >&2
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
	--append) append=${2?--append needs kernel arguments}; shift 2 ;;
	--accel) accel=${2:?--accel needs a value}; shift 2 ;;
	--qemu-arg) qemu_args+=("${2:?--qemu-arg needs an argument}"); shift 2 ;;
	--no-module) load_module=0; shift ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) die "unknown option '$1'; see $0 --help" ;;
	esac
done
[ $# -gt 0 ] || die "no command given; usage: $0 [options] -- CMD [ARG...]"
for n in "$smp" "$mem" "$timeout" "$disk_mib"; do
	[[ "$n" =~ ^[0-9]+$ ]] || die "'$n' is not a number"
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
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,etc,ispot,mnt}

# The built tree, without git metadata or caches.
tar -C "$top" --exclude=./.git --exclude=./.cache --exclude='*.o' \
	--exclude='*.cmd' -cf - . | tar -C "$root/ispot" -xf -
[ "$load_module" = 0 ] || cp "$vm_module" "$root/ispot/kmod/ispot.ko"
echo "$load_module" >"$root/load-module"

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

# --disk: Debian builds virtio and ext4 as modules, and the guest has no
# modprobe, so the ones /dev/vda and its filesystem need are copied from
# the guest kernel's own tree and loaded in dependency order.
disk_modules="kernel/drivers/virtio/virtio_ring kernel/drivers/virtio/virtio
kernel/drivers/virtio/virtio_pci_legacy_dev
kernel/drivers/virtio/virtio_pci_modern_dev kernel/drivers/virtio/virtio_pci
kernel/drivers/block/virtio_blk kernel/lib/crc16 kernel/fs/mbcache
kernel/fs/jbd2/jbd2 kernel/crypto/crc32c_generic kernel/fs/ext4/ext4"
: >"$root/disk-modules"
if [ "$disk_mib" -gt 0 ]; then
	krel=${vm_image##*/vmlinuz-}
	moddir=$(dirname "$(dirname "$vm_image")")/lib/modules/$krel
	[ "$(dirname "$vm_image")" = /boot ] && moddir=/lib/modules/$krel
	mkdir -p "$root/modules"
	for m in $disk_modules; do
		name=$(basename "$m")
		if [ -f "$moddir/$m.ko" ]; then
			cp "$moddir/$m.ko" "$root/modules/$name.ko"
		elif [ -f "$moddir/$m.ko.xz" ]; then
			xz -dc "$moddir/$m.ko.xz" >"$root/modules/$name.ko"
		elif [ -f "$moddir/$m.ko.zst" ]; then
			zstd -qdc "$moddir/$m.ko.zst" >"$root/modules/$name.ko"
		else
			continue	# built in
		fi
		echo "/modules/$name.ko" >>"$root/disk-modules"
	done
fi

{
	printf 'cd /ispot || exit 1\n'
	printf '%q ' "$@"
	printf '\n'
} >"$root/cmd.sh"

cat >"$root/init" <<'EOF'
#!/bin/sh
export PATH=/ispot/user:/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /root
for m in $(cat /disk-modules); do insmod "$m" 2>/dev/null; done
if [ -s /disk-modules ]; then
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
fi
[ -b /dev/vda ] && mount /dev/vda /mnt 2>/dev/null
fail() {
	echo "@@ISPOT-FAIL $*"
	poweroff -f
}
echo "@@ISPOT-BEGIN"
if [ "$(cat /load-module)" = 1 ]; then
	out=$(insmod /ispot/kmod/ispot.ko 2>&1) || fail "module load failed: $out"
fi
sh /cmd.sh </dev/null 2>&1
status=$?
if grep -q '^ispot ' /proc/modules; then
	out=$(rmmod ispot 2>&1) || fail "module unload failed: $out"
fi
splat=$(dmesg | grep -E -m1 'Oops|BUG:|WARNING:|Call Trace|general protection|kernel BUG|UBSAN|KASAN|list_add corruption|refcount_t:|stack-protector|RCU stall|lockdep|possible recursive locking|circular locking|sleeping function called')
[ -z "$splat" ] || fail "kernel splat: $splat"
echo "@@ISPOT-EXIT $status"
poweroff -f
EOF
chmod +x "$root/init" "$root/cmd.sh"

(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/initrd.img"

drive=()
if [ "$disk_mib" -gt 0 ]; then
	command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 is missing; run scripts/deps.sh"
	truncate -s "${disk_mib}M" "$work/disk.img"
	mkfs.ext4 -q -F "$work/disk.img"
	drive=(-drive "file=$work/disk.img,format=raw,if=virtio,cache=none")
fi

log=$work/console.log
# Stream the console as it comes: mawk would read the pipe in big blocks.
awk_live=()
awk -W version 2>&1 | grep -q mawk && awk_live=(-W interactive)
set +e
timeout -k 5 "$timeout" qemu-system-x86_64 -nodefaults -display none \
	-no-reboot -accel "$accel" -m "$mem" -smp "$smp" \
	${qemu_args[@]+"${qemu_args[@]}"} \
	-serial stdio -kernel "$vm_image" -initrd "$work/initrd.img" \
	${drive[@]+"${drive[@]}"} \
	-append "console=ttyS0 quiet loglevel=3 panic=-1 oops=panic $append" \
	</dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$log" | awk ${awk_live[@]+"${awk_live[@]}"} '
	/^@@ISPOT-BEGIN/ { on = 1; next }
	/^@@ISPOT-/ { on = 0; next }
	on || /Kernel panic|Oops|BUG:|WARNING:/ { print; fflush() }'
qemu_status=${PIPESTATUS[0]}
set -e

if [ "$qemu_status" -eq 124 ] || [ "$qemu_status" -eq 137 ]; then
	echo "vm: FAIL: timeout after ${timeout}s"
	exit 124
fi
reason=$(grep -m1 '^@@ISPOT-FAIL' "$log" | cut -d' ' -f2- || true)
if [ -n "$reason" ]; then
	echo "vm: FAIL: $reason"
	exit 1
fi
status=$(grep -m1 '^@@ISPOT-EXIT' "$log" | cut -d' ' -f2 || true)
if [ -z "$status" ]; then
	panic=$(grep -m1 -E 'Kernel panic|Oops|BUG:' "$log" || true)
	echo "vm: FAIL: guest stopped without an exit status${panic:+: $panic}"
	exit 1
fi
exit "$status"
