#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/buildroot.sh VER: prepare a newer Debian kernel for the VM runner.
# Debian 13's 6.12 and unstable's 7.x headers need gcc-14, which Debian 12
# lacks, so this debootstraps a minimal build root of that release into
# .cache/kernels/VER/root (ignored by git), builds ispot.ko there, and
# unpacks the matching kernel image next to it:
#
#   .cache/kernels/VER/root/boot/vmlinuz-*   the image the runner boots
#   .cache/kernels/VER/ispot.ko              the module built for it
#
# The root is made once; later calls only rebuild the module.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ver=${1:?usage: scripts/buildroot.sh 6.12|7.2}
case "$ver" in
6.12) suite=trixie ;;
7.2) suite=sid ;;
*) echo "buildroot: unknown kernel '$ver'; use 6.12 or 7.2" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "buildroot: needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "buildroot: run scripts/deps.sh" >&2; exit 1; }

dir=$top/.cache/kernels/$ver
root=$dir/root

# The Debian mirror this machine's apt already uses.
mirror() {
	cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
		awk '/^URIs:/ || /^deb / { print $2 }' |
		grep -v security | head -n1 || true
}

if [ ! -f "$root/.ispot-ready" ]; then
	m=$(mirror)
	[ -n "$m" ] || { echo "buildroot: no Debian mirror in apt's sources" >&2; exit 1; }
	rm -rf "$root"
	mkdir -p "$dir"
	echo "buildroot: debootstrap $suite (once; about 1 GB)" >&2
	debootstrap --variant=minbase \
		--include=gcc-14,make,libc6-dev,linux-headers-amd64 \
		"$suite" "$root" "$m" >"$dir/debootstrap.log" 2>&1 ||
		{ tail -n 5 "$dir/debootstrap.log" >&2; exit 1; }
	krel=$(ls "$root/usr/src" | sed -n 's/^linux-headers-\(.*-amd64\)$/\1/p' |
	       sort -V | tail -n1)
	# The image without installing it: no initramfs is needed.
	chroot "$root" sh -c "cd /tmp && apt-get download -q linux-image-$krel ||
		apt-get download -q linux-image-$krel-unsigned" >>"$dir/debootstrap.log" 2>&1
	dpkg-deb -x "$(ls "$root"/tmp/linux-image-*.deb | head -n1)" "$dir/image"
	mkdir -p "$root/boot"
	cp "$dir/image/boot/vmlinuz-$krel" "$root/boot/"
	rm -rf "$dir/image" "$root"/tmp/linux-image-*.deb
	touch "$root/.ispot-ready"
fi

krel=$(ls "$root/usr/src" | sed -n 's/^linux-headers-\(.*-amd64\)$/\1/p' |
       sort -V | tail -n1)
rm -rf "$root/build"
mkdir -p "$root/build"
cp -a "$top/Kbuild" "$top/kmod" "$top/include" "$root/build/"
rm -f "$root/build/kmod/"*.o "$root/build/kmod/"*.ko
chroot "$root" make -s -C "/usr/src/linux-headers-$krel" M=/build modules \
	>"$dir/build.log" 2>&1 || { cat "$dir/build.log" >&2; exit 1; }
cp "$root/build/kmod/ispot.ko" "$dir/ispot.ko"
echo "buildroot: $ver ready: kernel $krel" >&2
