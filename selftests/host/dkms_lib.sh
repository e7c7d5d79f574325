# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154
# Sourced by dkms_test.sh and deb_test.sh, from the top of the tree: what
# both check of a module that dkms built on this host, and its run in a
# guest (dkms_guest.sh).  It brings tap.sh and kernels.sh, and sets $ver
# (ISPOT_VERSION) and $abi (the ABI as MAJOR.MINOR), from the tree's
# headers; the sourcing script sets $tmp (a scratch directory).
. selftests/kmod/tap.sh
. selftests/vm/kernels.sh

ver=$(sed -n 's/^#define ISPOT_VERSION "\(.*\)"$/\1/p' include/ispot_version.h)
abi=$(sed -n 's/^#define ISPOT_ABI_MAJOR[[:space:]]*\([0-9]*\)$/\1/p;
	s/^#define ISPOT_ABI_MINOR[[:space:]]*\([0-9]*\)$/.\1/p' \
	include/uapi/linux/ispot.h | tr -d '\n')

# built_with_kernel_cc KO AUTOCONF: every object of KO was compiled by the
# compiler the kernel was (CONFIG_CC_VERSION_TEXT without the program).
built_with_kernel_cc() {
	local cc want
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$2")
	want="GCC: ${cc#* }"
	readelf -p .comment "$1" | sed -n 's/^ *\[ *[0-9a-f]*\] *//p' | sort -u >"$tmp/cc"
	[ "$(cat "$tmp/cc")" = "$want" ] ||
		{ echo "# $1 built by: $(tr '\n' ';' <"$tmp/cc"), kernel by: $want"; return 1; }
}

# plain_ko KO OUT: the module uncompressed (busybox insmod takes no .xz).
plain_ko() {
	case "$1" in
	*.ko) cp "$1" "$2" ;;
	*.ko.xz) xz -dc "$1" >"$2" ;;
	*.ko.zst) zstd -qdc "$1" >"$2" ;;
	*.ko.gz) gzip -dc "$1" >"$2" ;;
	*) echo "# $1: unknown module compression"; return 1 ;;
	esac
}

# build_log_clean LOG: no compiler warning (Kbuild has no -Werror).
build_log_clean() {
	! grep -i -B2 'warning:' "$1" | sed 's/^/# /' | grep .
}

# installed_ko KREL MAKELOG OUT: the module dkms installed on this host for
# KREL was built without a warning (MAKELOG), by the kernel's compiler, and
# is ISPOT_VERSION; uncompressed into OUT.
installed_ko() {
	local ko
	build_log_clean "$2" || return 1
	ko=$(ls /lib/modules/"$1"/updates/dkms/ispot.ko* 2>/dev/null | head -n1)
	[ -n "$ko" ] || { echo "# nothing in /lib/modules/$1/updates/dkms"; return 1; }
	plain_ko "$ko" "$3" || return 1
	built_with_kernel_cc "$3" "/lib/modules/$1/build/include/config/auto.conf" ||
		return 1
	[ "$(modinfo -F version "$3")" = "$ver" ] ||
		{ echo "# module version $(modinfo -F version "$3")"; return 1; }
}

# guest_loads KERNEL KO CTL: in a guest of KERNEL, KO loads, the installed
# ispotctl CTL (copied to the same path in the guest) reports its version
# and ABI and traces with it, and it unloads.
guest_loads() {
	local out=$tmp/guest-$1 want_src
	want_src=$(modinfo -F srcversion "$2")
	nice selftests/vm/run.sh --kernel "$1" --tcg single --no-module \
		--add "$2:/dkms/ispot.ko" --add "$3" \
		-- sh selftests/host/dkms_guest.sh /dkms/ispot.ko "$3" >"$out" 2>&1 ||
		{ sed 's/^/# /' "$out" | tail -n 30; return 1; }
	fact() { sed -n "s/^$1: //p" "$out" | head -n1; }
	[ "$(fact srcversion)" = "$want_src" ] && [ "$(fact version)" = "$ver" ] &&
		[ "$(fact status_exit)" = 0 ] &&
		fact status | grep "\"module_version\": \"$ver\"" >/dev/null &&
		fact status | grep "\"module_abi\": \"$abi\"" >/dev/null &&
		[ "$(fact run_exit)" = 0 ] && [ "$(fact run_calls)" = 400 ] &&
		[ "$(fact rmmod_exit)" = 0 ] ||
		{ echo "# want srcversion $want_src, version $ver, ABI $abi, 400 calls"
		  sed 's/^/# /' "$out" | tail -n 30; return 1; }
	echo "# $1: loaded srcversion $want_src (module $ver, ABI $abi), traced $(fact run_calls) calls with $3"
}
