#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run in the VM by scripts/bench.sh: the named benchmarks (probe, ring,
# waits, production, accuracy; all but production and accuracy, which
# take many minutes, when none is named).  Figures are `name: value` lines on
# stdout; notes start with '#'.
cd "$(dirname "$0")" || exit 1
echo "# kernel: $(uname -r)"
echo "# clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
[ $# -gt 0 ] || set -- probe ring waits
rc=0
for b in "$@"; do
	case $b in
	probe)
		./probe_bench || rc=1
		;;
	ring)
		f=/sys/kernel/debug/ispot/ring_bench
		if [ -r "$f" ]; then
			cat "$f" || rc=1
		else
			echo "# ring: $f is missing (no debugfs?)"
			rc=1
		fi
		;;
	waits)
		./waits_bench || rc=1
		;;
	production)
		./production_bench.sh || rc=1
		;;
	accuracy)
		./accuracy_bench.sh || rc=1
		;;
	*)
		echo "# unknown benchmark '$b'"
		rc=2
		;;
	esac
done
exit $rc
