#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what building and testing ISPOT needs, from Debian's archive.
# Idempotent: silent and fast when everything is present.
set -eu

pkgs="gcc make libc6-dev binutils qemu-system-x86 linux-image-amd64
linux-headers-amd64 busybox-static cpio kmod e2fsprogs debootstrap"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q "install ok installed" || missing="$missing $p"
done
[ -n "$missing" ] || exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing:$missing; run scripts/deps.sh as root" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
