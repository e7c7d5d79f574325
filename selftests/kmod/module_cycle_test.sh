#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load and unload ispot.ko 100 times; each load must create /dev/ispot and
# each unload must remove it, with parameters accepted on the way.
. "$(dirname "$0")/tap.sh"
ko=/ispot/kmod/ispot.ko
require_root
require_file "$ko"

tap_plan 3
grep -q '^ispot ' /proc/modules && rmmod ispot

cycles() {
	i=0
	while [ $i -lt 100 ]; do
		/ispot/selftests/kmod/load_ispot.sh max_sessions=$((i + 1)) || return 1
		[ -c /dev/ispot ] || { echo "# no /dev/ispot after load $i"; return 1; }
		[ "$(cat /sys/module/ispot/parameters/max_sessions)" = $((i + 1)) ] || return 1
		rmmod ispot || return 1
		[ ! -e /dev/ispot ] || { echo "# /dev/ispot left after unload $i"; return 1; }
		i=$((i + 1))
	done
}
tap_check "load_unload_100_cycles" cycles

# An open session pins the module; closing it lets the unload through.
busy() {
	/ispot/selftests/kmod/load_ispot.sh || return 1
	exec 3</dev/ispot
	if rmmod ispot 2>/dev/null; then exec 3<&-; return 1; fi
	exec 3<&-
	rmmod ispot
}
tap_check "unload_refused_while_session_open" busy

tap_check "final_load" /ispot/selftests/kmod/load_ispot.sh
tap_done
