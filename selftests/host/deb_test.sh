#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages (debian/; Documentation/packaging.rst) as users get
# them.  scripts/deb.sh builds them from a copy of the tree (and checks
# that a build in the tree leaves only what .gitignore ignores, and
# nothing after debian/rules clean); lintian must report no error; they
# must hold what make install puts; apt-get installs both on this host
# (which must be a throwaway one, as for dkms_test.sh: it writes /usr,
# /etc, /var/lib/dkms and /lib/modules, as root), where ispot-dkms's
# postinst has DKMS build and install ispot.ko for Debian 12's 6.1, the
# guests' kernel, whose headers scripts/deps.sh installs; that module is
# loaded in a guest of 6.1, where the package's ispotctl must see it and
# trace with it (dkms_lib.sh's guest_loads, as dkms_test.sh); ispotd's
# unit is installed but not enabled, and nothing starts it; then both
# packages are purged, and nothing of them may be left.  Purged on
# failure too.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. selftests/host/dkms_lib.sh

require_root "needs root (apt-get, dkms, /lib/modules)"
require_cmd dpkg-buildpackage dh dh_dkms lintian dkms apt-get

src=/usr/src/ispot-$ver
pkgs="ispot ispot-dkms"
# Made before the packages are installed, so that a run killed before its
# cleanup is told apart from someone's real installation.
mark=/var/tmp/ispot-deb_test.installed
tmpdir_setup
out=$tmp/out

# dkms_test.sh's lock: both install ispot/VERSION on the host.
exec 8>"${TMPDIR:-/tmp}/ispot-dkms_test.lock"
flock 8
t_start=$(date +%s)

# installed PKG: dpkg knows PKG (installed, half-installed, or its
# configuration files left).
installed() {
	dpkg-query -W -f='${db:Status-Status}\n' "$1" 2>/dev/null |
		grep -v -x 'not-installed' | grep . >/dev/null
}
# A real installation is not this test's to replace.
if { installed ispot || installed ispot-dkms || [ -e "$src" ] ||
     dkms status ispot 2>/dev/null | grep . >/dev/null; } && [ ! -e "$mark" ]; then
	tap_skip_all "ispot is installed on this host (packages, $src or dkms); this test would replace it"
fi

vm_kernel_select 6.1 >/dev/null || { echo "Bail out! no 6.1 kernel; run scripts/deps.sh"; exit 1; }
krel61=$(basename "$vm_moddir")
[ -e "/lib/modules/$krel61/build/include" ] ||
	{ echo "Bail out! no headers for $krel61 (linux-headers-amd64); run scripts/deps.sh"; exit 1; }
make -s samples >/dev/null 2>&1 || { echo "Bail out! make samples failed"; exit 1; }
[ -e /var/lib/dkms/mok.key ] && mok_before=1 || mok_before=0

# Idempotent: run at the end and on any exit.
cleanup() {
	local p present=
	for p in $pkgs; do installed "$p" && present="$present $p"; done
	if [ -n "$present" ]; then
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
			-o DPkg::Lock::Timeout=600 $present >"$tmp/purge.log" 2>&1 ||
			sed 's/^/# /' "$tmp/purge.log"
	fi
	# A postinst that failed half-way may have left dkms its copy.
	if dkms status ispot/"$ver" 2>/dev/null | grep . >/dev/null; then
		dkms remove ispot/"$ver" --all >/dev/null 2>&1
	fi
	rm -f "$mark"
	[ "$mok_before" = 1 ] || rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	rmdir "/lib/modules/$krel61/updates/dkms" "/lib/modules/$krel61/updates" \
		2>/dev/null
	true
}
at_exit cleanup
# A run that was killed left these.
[ ! -e "$mark" ] || cleanup

tap_plan 10

# One version: debian/changelog's is include/ispot_version.h's (debian/rules
# refuses to build otherwise; this says so before anything is built).
version_agrees() {
	local deb
	deb=$(dpkg-parsechangelog -l debian/changelog -S Version) || return 1
	[ -n "$ver" ] && [ "$deb" = "$ver" ] ||
		{ echo "# debian/changelog: $deb, include/ispot_version.h: $ver"; return 1; }
}
tap_check debian_changelog_version_is_ispot_version version_agrees

# The build, once: scripts/deb.sh --check-tree says on stderr what a
# build in the tree would leave.
deb_ispot=$out/ispot_${ver}_amd64.deb
deb_dkms=$out/ispot-dkms_${ver}_all.deb
changes=$out/ispot_${ver}_amd64.changes
t0=$(date +%s)
scripts/deb.sh --check-tree "$out" >"$tmp/deb.out" 2>"$tmp/deb.err"
deb_rc=$?
packages_build() {
	[ -f "$deb_ispot" ] && [ -f "$deb_dkms" ] && [ -f "$changes" ] &&
		[ -f "$out/ispot_$ver.dsc" ] ||
		{ sed 's/^/# /' "$tmp/deb.err" | tail -n 30; return 1; }
	echo "# dpkg-buildpackage -us -uc in a copy: $(($(date +%s) - t0)) s"
}
tap_check dpkg_buildpackage_builds_both_packages packages_build

tree_left_clean() {
	[ "$deb_rc" = 0 ] && ! grep -q '^deb: ' "$tmp/deb.err" ||
		{ sed 's/^/# /' "$tmp/deb.err" | tail -n 30; return 1; }
}
tap_check the_build_leaves_only_ignored_files_and_clean_removes_them tree_left_clean

# lintian on everything the build made (source, binaries, dbgsym): no
# error; warnings and the rest are listed, not failed on.
lintian_clean() {
	[ -f "$changes" ] || { echo "# nothing built"; return 1; }
	lintian --info --display-info "$changes" >"$tmp/lintian" 2>"$tmp/lintian.err"
	grep -E '^[EW]: ' "$tmp/lintian" | sed 's/^/# /'
	echo "# lintian: $(grep -c '^E: ' "$tmp/lintian") errors, $(grep -c '^W: ' "$tmp/lintian") warnings, $(grep -c '^I: ' "$tmp/lintian") notes"
	grep -v 'running with root privileges' "$tmp/lintian.err" | sed 's/^/# /'
	! grep -q '^E: ' "$tmp/lintian"
}
tap_check lintian_reports_no_error lintian_clean

# deb_files DEB: the paths of DEB's files (not directories), without ./
deb_files() { dpkg-deb --fsys-tarfile "$1" | tar -t | grep -v '/$' | sed 's|^\./||' | sort; }
# The packages hold what make install (PREFIX=/usr) puts, nothing more or
# less: ispot-dkms /usr/src/ispot-VERSION, byte for byte, dkms.conf
# included (make install-dkms writes it from kmod/dkms.conf.in); ispot
# the rest, with the manual pages compressed, and its documentation.
# Their fields: dkms and the C library come from the substitution
# variables, ispot-dkms is for all architectures.
packages_hold_make_install() {
	local d=$tmp/ref
	[ -f "$deb_ispot" ] && [ -f "$deb_dkms" ] || { echo "# nothing built"; return 1; }
	make --no-print-directory DESTDIR="$d" PREFIX=/usr install >"$tmp/make" 2>&1 ||
		{ sed 's/^/# /' "$tmp/make"; return 1; }
	mkdir "$tmp/x"
	dpkg-deb -x "$deb_dkms" "$tmp/x" || return 1
	diff -r "$d$src" "$tmp/x$src" | sed 's/^/# /' | grep . && return 1
	(cd "$d" && find . ! -type d | sed 's|^\./||' | grep -v '^usr/src/' |
		sed 's|^\(usr/share/man/.*\)$|\1.gz|' | sort) >"$tmp/want"
	deb_files "$deb_ispot" | grep -v '^usr/share/doc/ispot/' >"$tmp/got"
	diff "$tmp/want" "$tmp/got" | sed 's/^/# /' | grep . && return 1
	deb_files "$deb_ispot" | grep -q '^usr/share/doc/ispot/copyright$' &&
		deb_files "$deb_ispot" | grep -q '^usr/share/doc/ispot/README.md.gz$' ||
		{ echo "# no copyright or README in /usr/share/doc/ispot"; return 1; }
	[ "$(dpkg-deb -f "$deb_dkms" Architecture)" = all ] &&
		dpkg-deb -f "$deb_dkms" Depends | grep -q '^dkms\b' &&
		dpkg-deb -f "$deb_ispot" Depends | grep -q 'libc6 (>= ' &&
		[ "$(dpkg-deb -f "$deb_ispot" Version)" = "$ver" ] ||
		{ dpkg-deb -f "$deb_dkms" Package Architecture Depends | sed 's/^/# /'
		  dpkg-deb -f "$deb_ispot" Package Version Depends | sed 's/^/# /'
		  return 1; }
}
tap_check packages_hold_what_make_install_puts packages_hold_make_install

# apt-get installs both, as a user would; ispot-dkms's postinst has dkms
# add, build and install the module for the installed kernels that have
# headers (when the running kernel is not among them, as on a build
# host, all of them).
install_both() {
	[ -f "$deb_ispot" ] && [ -f "$deb_dkms" ] || { echo "# nothing built"; return 1; }
	local t
	t=$(date +%s)
	touch "$mark"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=600 "$deb_ispot" "$deb_dkms" >"$tmp/install.log" 2>&1 ||
		{ sed 's/^/# /' "$tmp/install.log" | tail -n 40; return 1; }
	for p in $pkgs; do
		[ "$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$p")" = "installed $ver" ] ||
			{ echo "# $p: $(dpkg-query -W -f='${db:Status-Status} ${Version}' "$p")"; return 1; }
	done
	sed -n 's/^\(Building for .*\)/# postinst: \1/p' "$tmp/install.log"
	echo "# apt-get install, DKMS's build included: $(($(date +%s) - t)) s"
}
tap_check apt_get_installs_both_packages install_both

# The module dkms installed for 6.1: its version, no compiler warning,
# built by the kernel's compiler.  Only if the host runs another installed
# kernel does the postinst leave 6.1 out (it builds for the running and
# the newest ones); then dkms install builds it, as an administrator would.
dkms_built_61() {
	local d=/var/lib/dkms/ispot/$ver/$krel61/x86_64 ko run
	installed ispot-dkms || { echo "# ispot-dkms is not installed"; return 1; }
	if ! dkms status ispot/"$ver" -k "$krel61" 2>/dev/null | grep -q ': installed'; then
		run=$(uname -r)
		[ -d "/lib/modules/$run" ] && [ "$run" != "$krel61" ] ||
			{ echo "# the postinst did not install ispot/$ver for $krel61:"
			  dkms status 2>&1 | sed 's/^/#   /'
			  sed 's/^/# /' "$tmp/install.log" | tail -n 20; return 1; }
		echo "# the running kernel $run is installed: dkms install for $krel61"
		dkms install ispot/"$ver" -k "$krel61" >"$tmp/dkms.log" 2>&1 ||
			{ sed 's/^/# /' "$tmp/dkms.log" | tail -n 20; return 1; }
	fi
	installed_ko "$krel61" "$d/log/make.log" "$tmp/ispot-6.1.ko" || return 1
	ko61=$tmp/ispot-6.1.ko
}
tap_check dkms_built_and_installed_the_module_for_6.1 dkms_built_61

if [ -n "${ko61:-}" ] && [ -x /usr/bin/ispotctl ]; then
	tap_check guest_6.1_loads_it_and_the_packaged_ispotctl_traces \
		guest_loads 6.1 "$ko61" /usr/bin/ispotctl
else
	tap_not_ok "guest_6.1_loads_it_and_the_packaged_ispotctl_traces (no module or no /usr/bin/ispotctl)"
fi

# ispotd.service is installed, not enabled (deb-systemd-helper, which the
# postinst runs whether systemd runs or not, would have linked it into
# multi-user.target.wants), and the postinst does not start it: where
# systemd does not run deb-systemd-invoke does nothing, so that is read
# from the script, which may only try-restart it after an upgrade (if it
# runs); the prerm stops it on removal.
unit_disabled() {
	local unit=/lib/systemd/system/ispotd.service state links
	[ -f "$unit" ] || { echo "# $unit is not installed"; return 1; }
	state=$(systemctl --root=/ is-enabled ispotd.service 2>&1)
	links=$(find /etc/systemd/system -name ispotd.service 2>/dev/null)
	[ "$state" = disabled ] && [ -z "$links" ] ||
		{ echo "# is-enabled: $state; links: $links"; return 1; }
	! grep -n -E 'deb-systemd-invoke +(start|restart|\$_dh_action)' \
		/var/lib/dpkg/info/ispot.postinst |
		sed 's/^/# ispot.postinst starts it: /' | grep . || return 1
	grep -q "deb-systemd-invoke stop 'ispotd.service'" /var/lib/dpkg/info/ispot.prerm ||
		{ echo "# ispot.prerm does not stop it on removal"; return 1; }
}
tap_check ispotd_unit_installed_but_not_enabled_nor_started unit_disabled

# apt-get purge: nothing of either package left, nor of dkms's build, nor
# of the unit's state.
nothing_left() {
	local left f
	[ -f "$deb_ispot" ] && [ -f "$deb_dkms" ] || { echo "# nothing built"; return 1; }
	cleanup
	left=$( {
		for p in $pkgs; do
			installed "$p" && echo "package $p: $(dpkg-query -W -f='${db:Status-Status}' "$p")"
		done
		for f in $(deb_files "$deb_ispot"; deb_files "$deb_dkms"); do
			[ -e "/$f" ] && echo "/$f"
		done
		ls -d /usr/src/ispot-* /var/lib/dkms/ispot /etc/ispot /usr/share/ispot \
			/usr/share/doc/ispot /usr/share/doc/ispot-dkms \
			/lib/modules/*/updates/dkms/ispot.ko* \
			/var/lib/systemd/deb-systemd-helper-enabled/*ispotd* \
			/var/lib/systemd/deb-systemd-helper-masked/*ispotd*
		find /etc/systemd/system -name 'ispotd.service*'
	} 2>/dev/null)
	[ -z "$left" ] || { echo "$left" | sed 's/^/# left: /'; return 1; }
}
tap_check apt_get_purge_leaves_nothing nothing_left

echo "# deb_test: $(($(date +%s) - t_start)) s"
tap_done
