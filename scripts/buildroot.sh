#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/buildroot.sh NAME: a Debian kernel other than the host's, for the
# VM runner, and ispot.ko built for it with that release's own compiler.
#
#   NAME  release            compiler
#   5.10  bullseye (11)      gcc-10
#   6.12  trixie (13)        gcc-14
#   sid   unstable           whatever its linux-headers-amd64 needs
#
# The build root is a minbase debootstrap of the release with its
# linux-headers-amd64 (which pulls the compiler the kernel was built with).
# It lives in a cache outside the tree, shared by every clone:
#
#   $ISPOT_CACHE/kernels/NAME/root/          the build root
#   $ISPOT_CACHE/kernels/NAME/image/boot/vmlinuz-KREL
#   $ISPOT_CACHE/kernels/NAME/image/lib/modules/KREL/   (or usr/lib/modules)
#
# ($ISPOT_CACHE defaults to ~/.cache/ispot.)  The module built from this
# tree goes to .build/kernels/NAME/ispot.ko (git ignores .build/), with the
# compiler's output in build.log next to it; any warning fails the build.
#
# At most once a day (ISPOT_REFRESH=1: now, ISPOT_REFRESH=0: never) the root
# asks its mirror whether linux-headers-amd64 has a newer version, and if so
# upgrades the headers and unpacks the matching image again.  Offline, the
# cached root is used as it is.
#
# Prints one line "buildroot: NAME: KREL (RELEASE), CC" on success.  A
# failure is one line "buildroot: NAME: reason" and a non-zero exit.
#
# scripts/buildroot.sh NAME -- CMD [ARG...] runs CMD in the root instead of
# building the module, with ISPOT_KREL set to the release of its headers,
# and exits with CMD's status.  It holds the root's lock meanwhile, since
# CMD may change the root (selftests/host/dkms_test.sh installs dkms there).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
name=${1:?usage: scripts/buildroot.sh 5.10|6.12|sid [-- CMD [ARG...]]}
case "$name" in
5.10) suite=bullseye ;;
6.12) suite=trixie ;;
sid) suite=sid ;;
*) echo "buildroot: unknown kernel '$name'; use 5.10, 6.12 or sid" >&2; exit 2 ;;
esac

fail() {
	echo "buildroot: $name: $*" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || fail "debootstrap is missing; run scripts/deps.sh"

cache=${ISPOT_CACHE:-$HOME/.cache/ispot}/kernels/$name
root=$cache/root
image=$cache/image
out=$top/.build/kernels/$name
mkdir -p "$cache" "$out"

# One clone at a time makes or refreshes a root; building in it is fine in
# parallel (each build has its own directory).
exec 9>"$cache/lock"
flock 9

# The Debian mirror this machine's apt already uses.
mirror() {
	cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
		awk '/^URIs:/ || /^deb / { print $2 }' |
		grep -v security | head -n1 || true
}

# Run a command in the root, with /proc (7.x objtool reads its limits there)
# mounted in a mount namespace of its own: nothing to unmount afterwards,
# and builds from several clones do not race on it.
in_root() {
	unshare --mount sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' \
		"$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"
}

# The kernel release of the newest amd64 headers in the root.
root_krel() {
	ls "$root/usr/src" 2>/dev/null | sed -n 's/^linux-headers-\(.*-amd64\)$/\1/p' |
		sort -V | tail -n1
}

# Purge headers older than the newest (debootstrap's point release ones,
# replaced by the security archive's, or a refresh's predecessor).
prune_headers() {
	local new old
	new=$(root_krel)
	for old in $(ls "$root/usr/src" | sed -n 's/^linux-headers-\(.*\)-amd64$/\1/p'); do
		[ "$old-amd64" != "$new" ] || continue
		in_root apt-get purge -y -qq "linux-headers-$old-amd64" \
			"linux-headers-$old-common" || true
	done
	in_root apt-get autoremove -y -qq --purge || true
}

# Unpack the image and modules of the root's headers into $image.  Debian
# ships them as linux-image-KREL (signed; -unsigned when the signed one
# lags), which unstable split into a meta package over linux-binary-KREL
# (vmlinuz, in usr/lib/modules/KREL/), linux-modules-KREL and
# linux-base-KREL; boot/vmlinuz-KREL then links to the image.
unpack_image() {
	local krel=$1 base= pkgs p dl=/var/tmp/ispot-image
	for p in "linux-image-$krel" "linux-image-$krel-unsigned"; do
		# (grep without -q: apt-cache must not die of SIGPIPE under pipefail)
		if in_root apt-cache show --no-all-versions "$p" 2>/dev/null |
			grep '^Version:' >/dev/null; then
			base=$p
			break
		fi
	done
	[ -n "$base" ] || fail "no linux-image-$krel package in $suite"
	# The packages of the same kernel it depends on (linux-binary-KREL,
	# linux-modules-KREL, ...), then those in case they are only recommended.
	pkgs=$(in_root apt-cache depends "$base" |
		awk -v k="$krel" '$1 ~ /^(Pre)?Depends:$/ && $2 ~ /^linux-[a-z]+-/ {
			p = $2; sub(/-unsigned$/, "", p)
			if (substr(p, length(p) - length(k) + 1) == k) printf " %s", $2
		}')
	for p in "linux-binary-$krel" "linux-modules-$krel"; do
		case " $pkgs " in *" $p "*) continue ;; esac
		in_root apt-cache show --no-all-versions "$p" 2>/dev/null |
			grep '^Version:' >/dev/null && pkgs="$pkgs $p"
	done
	rm -rf "$root$dl" "$image.new"
	mkdir -p "$root$dl" "$image.new"
	chmod 777 "$root$dl"
	# shellcheck disable=SC2086
	in_root sh -c "cd $dl && apt-get download -q $base $pkgs" \
		>>"$cache/setup.log" 2>&1 ||
		fail "apt-get download $base $pkgs failed (see $cache/setup.log)"
	for p in "$root$dl"/*.deb; do
		dpkg-deb -x "$p" "$image.new"
	done
	rm -rf "$root$dl"
	# Unstable's linux-binary puts the image in the module directory.
	for p in usr/lib lib; do
		[ ! -f "$image.new/boot/vmlinuz-$krel" ] &&
			[ -f "$image.new/$p/modules/$krel/vmlinuz" ] || continue
		mkdir -p "$image.new/boot"
		ln -s "../$p/modules/$krel/vmlinuz" "$image.new/boot/vmlinuz-$krel"
	done
	[ -f "$image.new/boot/vmlinuz-$krel" ] ||
		fail "no vmlinuz-$krel in $base $pkgs"
	[ -f "$image.new/lib/modules/$krel/modules.dep" ] ||
		[ -f "$image.new/usr/lib/modules/$krel/modules.dep" ] ||
		depmod -b "$image.new" "$krel" 2>/dev/null ||
		depmod -b "$image.new/usr" "$krel" 2>/dev/null ||
		fail "no modules.dep for $krel in $base $pkgs"
	rm -rf "$image"
	mv "$image.new" "$image"
	echo "$base $pkgs" >"$cache/image.packages"
}

make_root() {
	local m t0 krel
	m=$(mirror)
	[ -n "$m" ] || fail "no Debian mirror in apt's sources"
	rm -rf "$root" "$image" "$cache/refreshed"
	echo "buildroot: $name: debootstrap $suite (once; about 1 GB)" >&2
	t0=$(date +%s)
	debootstrap --variant=minbase \
		--include=make,libc6-dev,linux-headers-amd64 \
		"$suite" "$root" "$m" >"$cache/setup.log" 2>&1 ||
		fail "debootstrap $suite failed: $(grep -E 'E:|W: Failure' "$cache/setup.log" | tail -n1)"
	# A mirror may serve an archive whose Release is past its Valid-Until
	# (unstable's is a week); signatures are still checked.
	echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99ispot"
	# Kernel fixes of stable releases arrive through the security archive.
	{
		echo "deb $m $suite main"
		[ "$suite" = sid ] ||
			echo "deb ${m%/debian}/debian-security $suite-security main"
	} >"$root/etc/apt/sources.list"
	if in_root apt-get update -qq >>"$cache/setup.log" 2>&1; then
		in_root apt-get install -y -qq --no-install-recommends \
			linux-headers-amd64 >>"$cache/setup.log" 2>&1 ||
			fail "apt-get install linux-headers-amd64 failed (see $cache/setup.log)"
		prune_headers >>"$cache/setup.log" 2>&1
		touch "$cache/refreshed"
	fi
	krel=$(root_krel)
	[ -n "$krel" ] || fail "linux-headers-amd64 installed no amd64 headers"
	unpack_image "$krel"
	in_root apt-get clean
	echo "$(($(date +%s) - t0))s $(du -sh --exclude=proc "$root" | cut -f1)" \
		>"$cache/debootstrap.time"
	touch "$root/.ispot-ready"
}

# Once a day: has the release a newer kernel?  Offline, keep the root.
refresh_root() {
	local inst cand
	case "${ISPOT_REFRESH:-}" in
	0) return 0 ;;
	1) ;;
	*) [ -z "$(find "$cache/refreshed" -mmin -1440 2>/dev/null)" ] || return 0 ;;
	esac
	if ! timeout 120 chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		LC_ALL=C apt-get update -qq -o Acquire::Retries=0 \
		-o Acquire::http::Timeout=10 >"$cache/refresh.log" 2>&1 ||
		grep -q '^E:' "$cache/refresh.log"; then
		echo "buildroot: $name: cannot check for a newer kernel ($(grep -m1 '^[EW]:' "$cache/refresh.log" | cut -c1-120)); using the cached root" >&2
		return 0
	fi
	inst=$(in_root apt-cache policy linux-headers-amd64 | awk '$1 == "Installed:" { print $2 }')
	cand=$(in_root apt-cache policy linux-headers-amd64 | awk '$1 == "Candidate:" { print $2 }')
	if [ -n "$cand" ] && [ "$inst" != "$cand" ]; then
		echo "buildroot: $name: linux-headers-amd64 $inst -> $cand" >&2
		in_root apt-get install -y -qq --no-install-recommends \
			linux-headers-amd64 >>"$cache/refresh.log" 2>&1 ||
			fail "upgrading linux-headers-amd64 failed (see $cache/refresh.log)"
		prune_headers >>"$cache/refresh.log" 2>&1
		unpack_image "$(root_krel)"
		in_root apt-get clean
	elif [ ! -f "$image/boot/vmlinuz-$(root_krel)" ]; then
		unpack_image "$(root_krel)"
	fi
	touch "$cache/refreshed"
}

if [ ! -f "$root/.ispot-ready" ]; then
	make_root
else
	refresh_root
fi
krel=$(root_krel)
[ -f "$image/boot/vmlinuz-$krel" ] || unpack_image "$krel"
if [ "${2:-}" = -- ]; then
	shift 2
	in_root env ISPOT_KREL="$krel" "$@"
	exit
fi
flock -u 9

cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' \
	"$root/usr/src/linux-headers-$krel/include/config/auto.conf" 2>/dev/null || true)
rel=$(. "$root/etc/os-release" && echo "${PRETTY_NAME:-$suite}")
done_msg="buildroot: $name: $krel ($rel), ${cc:-gcc}"

# Build this tree's module in the root, in a directory of its own, unless
# the one built last is from the same sources for the same kernel.
sum=$( (echo "$krel $cc"; cd "$top" && find Kbuild kmod include -type f \
	\( -name Kbuild -o -name Makefile -o -name '*.[ch]' \) -print0 | sort -z |
	xargs -0 sha1sum) | sha1sum | cut -d' ' -f1)
if [ -f "$out/ispot.ko" ] && [ "$(cat "$out/sources" 2>/dev/null)" = "$sum" ]; then
	echo "$done_msg" >&2
	exit 0
fi
hdr=/usr/src/linux-headers-$krel
bdir=$(mktemp -d "$root/var/tmp/ispot-build.XXXXXX")
trap 'rm -rf "$bdir"' EXIT
cp -a "$top/Kbuild" "$top/kmod" "$top/include" "$bdir/"
find "$bdir" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod' \
	-o -name '*.mod.c' \) -delete
rm -f "$out/ispot.ko" "$out/sources"
if ! in_root make -C "$hdr" M="${bdir#"$root"}" modules >"$out/build.log" 2>&1; then
	grep -E 'error|Error' "$out/build.log" | head -n 20 >&2 || true
	fail "module build failed with ${cc:-gcc}; see $out/build.log"
fi
# -Werror is not in Kbuild (a newer compiler must not break DKMS users), so
# the test build fails on a warning here instead.
if grep -q -i -E 'warning:' "$out/build.log"; then
	grep -i -E -B2 'warning:' "$out/build.log" >&2
	fail "$(grep -c -i -E 'warning:' "$out/build.log") compiler warning(s); see $out/build.log"
fi
cp "$bdir/kmod/ispot.ko" "$out/ispot.ko"
echo "$sum" >"$out/sources"
echo "$done_msg" >&2
