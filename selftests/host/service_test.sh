#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ispotd.service grants exactly what ispotd needs.  systemd cannot run in
# the guest, so the guest runs the installed (stripped) ispotd the way the
# unit would: user nobody, only the unit's capabilities, no new privileges,
# /proc as ProtectProc=invisible and ProcSubset=pid mount it, a private
# /tmp, the example configuration (selftests/host/service_guest.sh).  With
# all of them it must trace another user's process from an unreadable
# directory, found through the process events connector, serve its
# metrics on the example configuration's --listen, and make only
# system calls the unit's SystemCallFilter= allows, on socket families
# RestrictAddressFamilies= allows; without each one, what that one is for
# must fail.  (install_test.sh checks the unit with systemd-analyze.)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. selftests/kmod/tap.sh

require_cmd systemd-analyze setpriv strace
tmpdir_setup
D=$tmp/root
make -s --no-print-directory DESTDIR="$D" PREFIX=/usr install-strip \
	>"$tmp/make" 2>&1 || { sed 's/^/# /' "$tmp/make"; echo "Bail out! make install-strip failed"; exit 1; }
unit=$D/lib/systemd/system/ispotd.service

# unit_values KEY: the values of every KEY= line, one word a line.
unit_values() { sed -n "s/^$1=//p" "$unit" | tr ' ' '\n' | grep .; }

tap_plan 7

# What the guest imitates must be what the unit says.
caps=$(unit_values AmbientCapabilities | sed 's/^CAP_//' | tr 'A-Z' 'a-z' | sort)
unit_shape() {
	local bounding
	bounding=$(unit_values CapabilityBoundingSet | sed 's/^CAP_//' | tr 'A-Z' 'a-z' | sort)
	[ -n "$caps" ] && [ "$caps" = "$bounding" ] ||
		{ echo "# ambient ($caps) and bounding ($bounding) capabilities differ"; return 1; }
	for kv in DynamicUser=yes NoNewPrivileges=yes ProtectProc=invisible \
		ProcSubset=pid PrivateTmp=yes LogsDirectory=ispot \
		"ExecStart=/usr/sbin/ispotd --config /etc/ispot/ispotd.conf"; do
		grep -q -x -F "$kv" "$unit" || { echo "# the unit has no $kv"; return 1; }
	done
	grep -q '^log /var/log/ispot/' "$D/etc/ispot/ispotd.conf" ||
		{ echo "# the example configuration logs outside LogsDirectory="; return 1; }
}
tap_check unit_is_what_the_guest_imitates unit_shape

nice selftests/vm/run.sh --kernel 6.1 --tcg single --timeout 1500 \
	--add "$D/usr/sbin/ispotd:/usr/sbin/ispotd" \
	--add "$D/etc/ispot/ispotd.conf:/etc/ispot/ispotd.conf" \
	--add "$(command -v setpriv)" --add "$(command -v strace)" \
	-- sh selftests/host/service_guest.sh "$(echo "$caps" | paste -s -d,)" \
	>"$tmp/guest" 2>&1
vm=$?
fact() { sed -n "s/^$1: //p" "$tmp/guest"; }
guest_failed() {
	echo "# guest exit $vm, its output:"
	grep -v '\.stderr: ' "$tmp/guest" | sed 's/^/# /' | tail -n 40
	sed -n "s/^\($1\)\.stderr: /# \1 stderr: /p" "$tmp/guest" | tail -n 20
}

all_caps() {
	[ "$(fact all.pub_traced)" = yes ] && [ "$(fact all.root_traced)" = yes ] &&
		[ "$(fact all.exit)" = 0 ] && [ "$(fact all.metrics)" -gt 0 ] &&
		! fact all.stderr | grep 'no proc connector' >/dev/null ||
		{ guest_failed all; return 1; }
}
tap_check with_the_units_capabilities_it_traces_another_users_process all_caps

# expand GROUP|SYSCALL...: the system calls, systemd's groups unfolded.
expand() {
	local x
	for x in "$@"; do
		case "$x" in
		@*) # shellcheck disable=SC2046
		    expand $(systemd-analyze syscall-filter "$x" |
			sed -n 's/^ \{1,\}\([@a-z0-9_-]*\)$/\1/p') ;;
		*) echo "$x" ;;
		esac
	done
}
syscalls_allowed() {
	local used families
	# A line is an allow list, or with "~" a deny list.
	# shellcheck disable=SC2046
	expand $(sed -n 's/^SystemCallFilter=\([^~]\)/\1/p' "$unit") | sort -u >"$tmp/allow"
	# shellcheck disable=SC2046
	expand $(sed -n 's/^SystemCallFilter=~//p' "$unit") | sort -u >"$tmp/deny"
	comm -23 "$tmp/allow" "$tmp/deny" >"$tmp/allowed"
	used=$(fact syscalls)
	[ -n "$used" ] || { guest_failed all; return 1; }
	echo "$used" | tr ' ' '\n' | grep . | sort -u >"$tmp/used"
	echo "# system calls made: $(tr "\n" " " <"$tmp/used")"
	echo "# $(wc -l <"$tmp/used") system calls made, all allowed by the unit:" \
		"$(wc -l <"$tmp/allowed") allowed"
	comm -23 "$tmp/used" "$tmp/allowed" | sed 's/^/# not allowed: /' | grep . && return 1
	families=$(fact families)
	echo "# socket families: $families"
	unit_values RestrictAddressFamilies >"$tmp/families"
	for f in $families; do
		grep -q -x "$f" "$tmp/families" ||
			{ echo "# socket family $f not in RestrictAddressFamilies="; return 1; }
	done
}
tap_check its_system_calls_and_sockets_pass_the_units_filters syscalls_allowed

# without CAP: each capability's run shows what it is for.
no_perfmon() {
	fact no_perfmon.stderr | grep 'no permission to open /dev/ispot' >/dev/null ||
		{ guest_failed no_perfmon; return 1; }
}
tap_check without_cap_perfmon_it_cannot_open_the_device no_perfmon

no_net_admin() {
	fact no_net_admin.stderr | grep 'no proc connector' >/dev/null ||
		{ guest_failed no_net_admin; return 1; }
}
tap_check without_cap_net_admin_no_process_events no_net_admin

# the other user's process only: nobody's own is traced all the same.
other_user_only() {
	[ "$(fact "$1.pub_traced")" = yes ] && [ "$(fact "$1.root_traced")" = no ] ||
		{ guest_failed "$1"; return 1; }
}
tap_check without_cap_sys_ptrace_other_users_processes_are_not_traced \
	other_user_only no_sys_ptrace
tap_check without_cap_dac_read_search_unreadable_programs_are_not_traced \
	other_user_only no_dac_read_search

tap_done
