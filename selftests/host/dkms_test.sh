#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module as users get it: make install PREFIX=/usr/local on this host
# (which must be a throwaway one: it writes /usr/src, /usr/local, /etc and
# /lib/modules, as root), then dkms add, build and install for Debian 12's
# 6.1 with the host's compiler, and for Debian 13's 6.12 in its build root
# with that root's gcc-14 (scripts/buildroot.sh); each module is loaded in
# a guest of its kernel, where the installed ispotctl must see it and trace
# with it.  Everything is removed at the end, on failure too, and the last
# test checks that nothing is left.
#
# KERNELS (as for make check) without 6.12 skips 6.12; its build root is
# made if missing (scripts/buildroot.sh), and 6.12 is skipped, with the
# reason, only if that fails.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. selftests/host/dkms_lib.sh

require_root "needs root (dkms, /usr/src, /lib/modules)"
require_cmd dkms

prefix=/usr/local
src=/usr/src/ispot-$ver
# Put in the installed tree, so that a run killed before its cleanup is
# told apart from someone's real installation.
mark=$src/.dkms_test
tmpdir_setup

# One run at a time on a host: they would install over each other.
exec 8>"${TMPDIR:-/tmp}/ispot-dkms_test.lock"
flock 8

# A real installation is not this test's to replace.
if { [ -e "$src" ] || dkms status ispot 2>/dev/null | grep . >/dev/null ||
     [ -e "$prefix/sbin/ispotd" ]; } && [ ! -e "$mark" ]; then
	tap_skip_all "ispot is installed on this host ($src, dkms or $prefix); this test would replace it"
fi

vm_kernel_select 6.1 >/dev/null || { echo "Bail out! no 6.1 kernel; run scripts/deps.sh"; exit 1; }
krel61=$(basename "$vm_moddir")
root612=${ISPOT_CACHE:-$HOME/.cache/ispot}/kernels/6.12/root
[ -e /var/lib/dkms/mok.key ] && mok_before=1 || mok_before=0

# In the 6.12 build root, holding its lock (scripts/buildroot.sh).
in_612() { scripts/buildroot.sh 6.12 -- "$@"; }

# Idempotent: run at the end and on any exit.
cleanup() {
	local k
	if dkms status ispot/"$ver" 2>/dev/null | grep . >/dev/null; then
		dkms remove ispot/"$ver" --all >"$tmp/remove.log" 2>&1 ||
			sed 's/^/# /' "$tmp/remove.log"
	fi
	rm -f "$mark"
	[ ! -e "$src" ] ||
		make -s --no-print-directory PREFIX=$prefix uninstall >/dev/null 2>&1
	[ "$mok_before" = 1 ] || rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	if [ -n "${used_612:-}" ]; then
		in_612 sh -c "dkms remove ispot/$ver --all >/dev/null 2>&1; true"
		make -s --no-print-directory DESTDIR="$root612" uninstall-dkms \
			>/dev/null 2>&1
	fi
	for k in "$krel61" ${krel612:+"$krel612"}; do
		rmdir "/lib/modules/$k/updates/dkms" "/lib/modules/$k/updates" \
			2>/dev/null
	done
	true
}
at_exit cleanup
# A run that was killed left these.
[ ! -e "$mark" ] || cleanup

tap_plan 7

install_tree() {
	make --no-print-directory PREFIX=$prefix install >"$tmp/install.log" 2>&1 ||
		{ sed 's/^/# /' "$tmp/install.log"; return 1; }
	touch "$mark"
	[ -f "$src/dkms.conf" ] && [ -x "$prefix/bin/ispotctl" ]
}
tap_check make_install_puts_the_dkms_tree_in_usr_src install_tree

# dkms_61: add, build (the host's gcc-12, Debian 12's kernel) and install.
dkms_61() {
	local d=/var/lib/dkms/ispot/$ver/$krel61/x86_64
	dkms add ispot/"$ver" >"$tmp/dkms.log" 2>&1 &&
		dkms build ispot/"$ver" -k "$krel61" >>"$tmp/dkms.log" 2>&1 &&
		dkms install ispot/"$ver" -k "$krel61" >>"$tmp/dkms.log" 2>&1 ||
		{ sed 's/^/# /' "$tmp/dkms.log"; sed 's/^/# make.log: /' \
			/var/lib/dkms/ispot/"$ver"/build/make.log 2>/dev/null | tail -n 20
		  return 1; }
	installed_ko "$krel61" "$d/log/make.log" "$tmp/ispot-6.1.ko" || return 1
	ko61=$tmp/ispot-6.1.ko
}
tap_check dkms_builds_and_installs_for_6.1_with_its_compiler dkms_61

# Bad order: the source under dkms cannot go first; one line says what to
# run, and nothing is removed.
uninstall_refused() {
	make --no-print-directory PREFIX=$prefix uninstall >"$tmp/out" 2>"$tmp/err" &&
		{ echo "# make uninstall succeeded with ispot in dkms"; return 1; }
	grep -q "^error: ispot/$ver is still in dkms; run 'dkms remove ispot/$ver --all' first$" \
		"$tmp/err" || { sed 's/^/# /' "$tmp/err"; return 1; }
	[ -f "$src/dkms.conf" ] && [ -x "$prefix/bin/ispotctl" ]
}
tap_check uninstall_refused_while_dkms_has_the_module uninstall_refused

if [ -n "${ko61:-}" ]; then
	tap_check guest_6.1_loads_the_dkms_module_and_ispotctl_traces guest_loads 6.1 "$tmp/ispot-6.1.ko" \
		"$prefix/bin/ispotctl"
else
	tap_not_ok "guest_6.1_loads_the_dkms_module_and_ispotctl_traces (no module built)"
fi

# 6.12: dkms in the build root (installed there once), so that the root's
# gcc-14 builds the module, as on a Debian 13 host.
reason612=
case " ${KERNELS:-6.12} " in
*" 6.12 "*)
	if ! out=$(scripts/buildroot.sh 6.12 -- true 2>&1) || [ ! -d "$root612" ]; then
		reason612="no 6.12 build root: $(printf '%s\n' "$out" | tail -n1)"
	fi ;;
*) reason612="6.12 is not in KERNELS" ;;
esac
dkms_612() {
	local log=$tmp/dkms-6.12.log
	used_612=1
	make -s --no-print-directory DESTDIR="$root612" install-dkms >/dev/null || return 1
	in_612 sh -c "set -e
		command -v dkms >/dev/null || { apt-get update -qq &&
			apt-get install -y -qq --no-install-recommends dkms; } >/dev/null
		echo krel: \$ISPOT_KREL
		dkms add ispot/$ver
		dkms build ispot/$ver -k \$ISPOT_KREL
		dkms install ispot/$ver -k \$ISPOT_KREL" >"$log" 2>&1 ||
		{ sed 's/^/# /' "$log" | tail -n 30; return 1; }
	krel612=$(sed -n 's/^krel: //p' "$log")
	build_log_clean "$root612/var/lib/dkms/ispot/$ver/$krel612/x86_64/log/make.log" ||
		return 1
	ko612=$(ls "$root612/lib/modules/$krel612/updates/dkms/"ispot.ko* 2>/dev/null | head -n1)
	[ -n "$ko612" ] || { echo "# nothing in the root's /lib/modules/$krel612/updates/dkms"; return 1; }
	plain_ko "$ko612" "$tmp/ispot-6.12.ko" || return 1
	built_with_kernel_cc "$tmp/ispot-6.12.ko" \
		"$root612/usr/src/linux-headers-$krel612/include/config/auto.conf"
}
if [ -n "$reason612" ]; then
	tap_skip dkms_builds_and_installs_for_6.12_with_the_roots_gcc_14 "$reason612"
	tap_skip guest_6.12_loads_the_dkms_module_and_ispotctl_traces "$reason612"
else
	tap_check dkms_builds_and_installs_for_6.12_with_the_roots_gcc_14 dkms_612
	if [ -n "${ko612:-}" ]; then
		tap_check guest_6.12_loads_the_dkms_module_and_ispotctl_traces guest_loads 6.12 "$tmp/ispot-6.12.ko" \
			"$prefix/bin/ispotctl"
	else
		tap_not_ok "guest_6.12_loads_the_dkms_module_and_ispotctl_traces (no module built)"
	fi
fi

# dkms remove, make uninstall: nothing of ispot left on the host (or in
# the root), only the standard directories.
nothing_left() {
	local left
	cleanup
	left=$( { ls -d "$src" /var/lib/dkms/ispot /etc/ispot \
		"$prefix/bin/ispotctl" "$prefix/sbin/ispotd" \
		"$prefix/share/man/man4/ispot.4" "$prefix/share/man/man8/ispotctl.8" \
		"$prefix/share/man/man8/ispotd.8" \
		"$prefix/lib/systemd/system/ispotd.service" \
		/lib/modules/"$krel61"/updates/dkms/ispot.ko*
		[ -z "${used_612:-}" ] || ls -d "$root612$src" \
			"$root612/var/lib/dkms/ispot" \
			"$root612/lib/modules/${krel612:-none}/updates/dkms/ispot.ko"*
	} 2>/dev/null)
	[ -z "$left" ] || { echo "$left" | sed 's/^/# left: /'; return 1; }
}
tap_check dkms_remove_and_uninstall_leave_nothing nothing_left

tap_done
