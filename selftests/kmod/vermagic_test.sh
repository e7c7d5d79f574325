#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module in the guest is the one built for the guest's kernel: its
# vermagic names the running kernel release, and the loaded module is that
# file (same srcversion, when the kernel exports it).
. "$(dirname "$0")/tap.sh"
ko=/ispot/kmod/ispot.ko
require_root
require_module

tap_plan 2

# modinfo FIELD: a field of the .modinfo section ("name=value\0" strings).
modinfo_field() {
	tr '\0' '\n' <"$ko" | sed -n "s/^$1=//p" | head -n1
}

t_vermagic() {
	vm=$(modinfo_field vermagic)
	krel=$(uname -r)
	echo "# vermagic '$vm', uname -r '$krel'"
	[ -n "$vm" ] && [ "${vm%% *}" = "$krel" ]
}
tap_check "vermagic_is_running_kernel" t_vermagic

t_loaded() {
	f=/sys/module/ispot/srcversion
	grep -q '^ispot ' /proc/modules || { echo "# ispot not loaded"; return 1; }
	[ -r "$f" ] || return 0
	want=$(modinfo_field srcversion)
	[ "$(cat "$f")" = "$want" ] || { echo "# loaded $(cat "$f"), file $want"; return 1; }
}
tap_check "loaded_module_is_this_file" t_loaded
tap_done
