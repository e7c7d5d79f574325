#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what building and testing ISPOT needs, from Debian's archive.
# Idempotent: silent and fast when everything is present.
#
#   scripts/deps.sh          what make, make check's 6.1 runs and make demo need
#   scripts/deps.sh debug    also what building the debug kernel needs (its
#                            source is 140 MB, so only when it is asked for:
#                            scripts/kernel-debug.sh calls this)
set -eu

# g++: the C++ fixture and sample (demangled names); its libstdc++6 is
# also the demangler ispotctl loads at run time.
# python3-docutils: selftests/host/docs_test.sh parses Documentation/.
# curl and prometheus (its promtool): selftests/host/listen_test.sh and
# prometheus_test.sh, which scrapes ispotd in the guest with a real
# Prometheus server; jq reads that server's query answers.  tmux: the
# real terminal ispotctl top and the status line are tested in (copied
# into the guest).  zstd: a stripped Debian program whose functions
# come from .eh_frame (selftests/unit/elf/test_elf_ehframe.c).
pkgs="gcc g++ make libc6-dev binutils qemu-system-x86 linux-image-amd64
linux-headers-amd64 busybox-static cpio kmod e2fsprogs debootstrap
python3-docutils curl prometheus jq tmux zstd"
# make install's checks (selftests/host): dkms builds the module as users'
# machines do, mandoc and man-db (groff) lint the man pages, systemd's
# systemd-analyze verifies the unit, strace lists the daemon's system calls
# for the unit's filter.
pkgs="$pkgs dkms mandoc man-db groff-base systemd strace"
# The Debian packages (debian/, make deb, selftests/host/deb_test.sh):
# debhelper and its DKMS add-on (bookworm ships dh_dkms apart from dkms,
# in dh-dkms), build-essential (which dpkg-buildpackage checks for) and
# lintian.  No fakeroot: debian/control says Rules-Requires-Root: no.
pkgs="$pkgs build-essential debhelper dh-dkms lintian"
# Block markers (include/ispot.h, test_elf_usdt): clang builds them too,
# systemtap-sdt-dev's <sys/sdt.h> writes the same notes for comparison,
# and bpftrace lists them (selftests/host/usdt_bpftrace_test.sh; with
# clang's LLVM already there it adds ~45 MB, ~150 MB without).
pkgs="$pkgs clang systemtap-sdt-dev bpftrace"
# libclang-rt-dev: clang's sanitizer and libFuzzer runtimes (a Recommends
# of clang, which --no-install-recommends leaves out; 3 MB to download,
# 43 MB installed), for make fuzz and selftests/host/fuzz_smoke_test.sh.
pkgs="$pkgs libclang-rt-dev"
# Real third-party code (selftests/kmod/real_programs_test.sh): Debian's
# LevelDB, a C++ library built without frame pointers whose functions are
# only in its .dynsym; the fixture leveldb_put links it, and the VM runner
# copies libleveldb.so.1d and libsnappy.so.1 into the guest with it.
pkgs="$pkgs libleveldb-dev"
# Debian's SQLite (selftests/bench/sqlite_probe.sh): a C library whose only
# named functions are its exported API; the fixture sqlite_writers links
# it, and the VM runner copies libsqlite3.so.0 into the guest with it.
pkgs="$pkgs libsqlite3-dev"
# Debian's memcached and libmemcached-tools' memcslap: a real server that
# ispotd --auto must pick functions of with no --func
# (selftests/kmod/ispotd_memcached_test.sh; the fixtures copy both into the
# guest).  The host's own memcached service is not needed and is stopped.
pkgs="$pkgs memcached libmemcached-tools"
# protobuf-compiler: protoc decodes ispotctl --perfetto's trace with a
# decoder that is not ISPOT's (selftests/host/perfetto_test.sh).
pkgs="$pkgs protobuf-compiler"
# The pictures and the HTML report (selftests/host/pictures_test.sh):
# librsvg2-bin's rsvg-convert renders each SVG, a headless chromium loads
# the page, python3-minimal checks the PNGs and parses the SVGs as XML.
pkgs="$pkgs librsvg2-bin chromium python3-minimal"
case "${1:-}" in
"") ;;
debug) pkgs="$pkgs linux-source-6.1 bc flex bison libelf-dev libssl-dev xz-utils" ;;
*) echo "usage: scripts/deps.sh [debug]" >&2; exit 2 ;;
esac

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q "install ok installed" || missing="$missing $p"
done
[ -n "$missing" ] || exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing:$missing; run scripts/deps.sh${1:+ $1} as root" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
# Debian's postinst enables and starts prometheus.service (on :9090) where
# systemd runs.  The tests start their own server on a free port; one left
# running would only take memory and a port, so one this script installed
# is stopped and disabled.  A server that was there before is not touched.
case " $missing " in
*" prometheus "*)
	if [ -d /run/systemd/system ]; then
		systemctl disable --now prometheus.service >/dev/null 2>&1 || true
	fi
	;;
esac
# memcached's postinst starts its server (on :11211) the same way.
case " $missing " in
*" memcached "*)
	if [ -d /run/systemd/system ]; then
		systemctl disable --now memcached.service >/dev/null 2>&1 || true
	fi
	;;
esac
