#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# include/ispot.h's block markers are USDT probes other tools see: Debian's
# bpftrace lists them from the notes alone (no kernel BPF needed), from gcc,
# clang, C++ and a shared library, as it lists <sys/sdt.h>'s.  The fixtures
# are selftests/unit/fixtures/usdt* (make builds them).
cd "$(dirname "$0")/../.." || exit 1
. selftests/kmod/tap.sh

fx=$PWD/selftests/unit/fixtures

# lists FIXTURE PROBE...: bpftrace -l names every PROBE of FIXTURE.
lists() {
	bin=$fx/$1
	shift
	out=$(bpftrace -l "usdt:$bin:*" 2>&1) || { echo "# $out"; return 1; }
	for p; do
		printf '%s\n' "$out" | grep -qx "usdt:$bin:$p" ||
			{ echo "# no $p in: $out"; return 1; }
	done
}

set -- usdt_pie usdt_nopie usdt_clang usdt_sdt
tap_plan $(($# + 3))
if ! command -v bpftrace >/dev/null; then
	tap_not_ok "bpftrace is installed (run scripts/deps.sh)"
elif [ "$(id -u)" != 0 ]; then
	# bpftrace refuses to run at all for anyone else, even to list.
	tap_skip "bpftrace is installed" "bpftrace runs as root only"
	for f; do tap_skip "bpftrace lists $f's blocks" "not root"; done
	tap_skip "bpftrace lists C++ blocks" "not root"
	tap_skip "bpftrace lists a shared library's blocks" "not root"
	tap_done
else
	tap_ok "bpftrace is installed"
fi
for f; do
	tap_check "bpftrace lists $f's blocks" lists "$f" \
		ispot:critical_begin ispot:critical_end ispot:io_begin \
		ispot:io_end
done
tap_check "bpftrace lists C++ blocks" lists usdt_cxx \
	ispot:lookup_begin ispot:lookup_end ispot:scan_begin ispot:scan_end
tap_check "bpftrace lists a shared library's blocks" lists libusdtlib.so \
	ispot:flush_begin ispot:flush_end
tap_done
