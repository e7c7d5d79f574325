# SPDX-License-Identifier: GPL-2.0
# Sourced by the VM runner and scripts: map a kernel name to a bootable
# image, its module tree and an ispot.ko built for it.
#
#   6.1   Debian 12's kernel, installed on the host by scripts/deps.sh; the
#         module is the tree's kmod/ispot.ko (make).
#   5.10  Debian 11 (bullseye, gcc-10), 6.12 Debian 13 (trixie, gcc-14) and
#   sid   Debian unstable (7.x): scripts/buildroot.sh debootstraps a build
#         root of that release in $ISPOT_CACHE/kernels/NAME (outside the
#         tree, ~/.cache/ispot by default), unpacks the release's kernel
#         there and builds .build/kernels/NAME/ispot.ko with its compiler.
#
# vm_kernel_select NAME sets vm_image (vmlinuz), vm_moddir (its
# lib/modules/KREL) and vm_module (ispot.ko).  vm_kernel_names lists the
# names "make check" runs by default.
#   debug Debian 12's kernel source built with KASAN, lockdep, UBSAN,
#         KFENCE and DEBUG_OBJECTS by scripts/kernel-debug.sh, once, into
#         $ISPOT_CACHE/debug; everything the guest needs is built in.

vm_top=${vm_top:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
vm_kernel_names="5.10 6.1 6.12 sid debug"

vm_kernel_select() {
	local ver=$1 kdir krel cache
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
		vm_moddir=/lib/modules/$krel
		vm_module=$vm_top/kmod/ispot.ko
		;;
	5.10|6.12|sid)
		"$vm_top/scripts/buildroot.sh" "$ver" || return 1
		cache=${ISPOT_CACHE:-$HOME/.cache/ispot}/kernels/$ver/image
		vm_image=$(ls "$cache/boot/"vmlinuz-* | sort -V | tail -n1)
		krel=${vm_image##*/vmlinuz-}
		vm_moddir=$cache/lib/modules/$krel
		[ -d "$vm_moddir" ] || vm_moddir=$cache/usr/lib/modules/$krel
		vm_module=$vm_top/.build/kernels/$ver/ispot.ko
		;;
	debug)
		# Debian's 6.1 source with KASAN, lockdep, UBSAN, KFENCE...,
		# built once into $ISPOT_CACHE/debug; ispot.ko is rebuilt from
		# this tree's sources each time.
		local out
		out=$("$vm_top/scripts/kernel-debug.sh" --module) || return 1
		vm_image=${out%% *}
		vm_module=${out#* }
		vm_moddir=
		;;
	*)
		echo "vm: unknown kernel '$ver'; use one of $vm_kernel_names" >&2
		return 1
		;;
	esac
	if [ ! -r "$vm_image" ]; then
		echo "vm: no kernel image for $ver ($vm_image); run scripts/deps.sh" >&2
		return 1
	fi
}
