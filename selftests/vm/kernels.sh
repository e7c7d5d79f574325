# SPDX-License-Identifier: GPL-2.0
# Sourced by the VM runner and scripts: map a kernel version name to a
# bootable image and an ispot.ko built for it.
#
#   6.1   Debian 12's kernel, installed on the host by scripts/deps.sh; the
#         module is the tree's kmod/ispot.ko.
#   6.12  Debian 13 (trixie) and 7.2 Debian unstable (sid): their headers
#         need gcc-14, so scripts/buildroot.sh debootstraps a build root in
#         .cache/kernels/VER, builds the module there and keeps the image.
#   debug Debian 12's kernel source built with KASAN, lockdep, UBSAN,
#         KFENCE and DEBUG_OBJECTS by scripts/kernel-debug.sh.

vm_top=${vm_top:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

vm_kernel_select() {
	local ver=$1 kdir krel
	case "$ver" in
	6.1)
		kdir=$("$vm_top/scripts/kdir.sh")
		krel=$(basename "$(dirname "$kdir")")
		case "$krel" in
		6.1.*) ;;
		*) krel=$(ls /boot/vmlinuz-6.1.* 2>/dev/null | sort -V | tail -n1)
		   krel=${krel#/boot/vmlinuz-} ;;
		esac
		vm_image=/boot/vmlinuz-$krel
		vm_module=$vm_top/kmod/ispot.ko
		;;
	6.12|7.2)
		"$vm_top/scripts/buildroot.sh" "$ver" >&2 || return 1
		vm_image=$(ls "$vm_top/.cache/kernels/$ver/root/boot/"vmlinuz-* |
			   sort -V | tail -n1)
		vm_module=$vm_top/.cache/kernels/$ver/ispot.ko
		;;
	debug)
		# Debian's 6.1 source with KASAN, lockdep, UBSAN, KFENCE...,
		# built once into $ISPOT_CACHE/debug; ispot.ko is rebuilt from
		# this tree's sources each time.
		local out
		out=$("$vm_top/scripts/kernel-debug.sh" --module) || return 1
		vm_image=${out%% *}
		vm_module=${out#* }
		;;
	*)
		echo "vm: unknown kernel '$ver'; use 6.1, 6.12, 7.2 or debug" >&2
		return 1
		;;
	esac
	if [ ! -r "$vm_image" ]; then
		echo "vm: no kernel image for $ver ($vm_image); run scripts/deps.sh" >&2
		return 1
	fi
}
