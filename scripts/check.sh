#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: install, build, run the native unit tests, then the selftests
# inside the VM.  Prints TAP, then exactly one "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# stage NAME CMD...: run CMD, keep its TAP, count a failure if it exits
# non-zero without reporting a failing test itself.  A VM run that failed
# for a reason of its own (a kernel report, a timeout: run.sh's last line)
# is a failure of its own too, even when some tests failed as well.
stage() {
	local name=$1 before after last
	shift
	echo "# $name"
	before=$(grep -c '^not ok' "$log")
	"$@" 2>&1 | tee -a "$log"
	local rc=${PIPESTATUS[0]}
	after=$(grep -c '^not ok' "$log")
	last=$(tail -n1 "$log")
	if [ "$rc" -ne 0 ] && [[ "$last" == "vm: FAIL: "* ]]; then
		echo "not ok - $name: ${last#vm: FAIL: }" | tee -a "$log"
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$after" -eq "$before" ]; then
		echo "not ok - $name exited with status $rc" | tee -a "$log"
	fi
}

if ! scripts/deps.sh; then
	echo "0 passed, 1 failed"
	exit 1
fi
if ! make -s all >"$log.build" 2>&1; then
	cat "$log.build"
	rm -f "$log.build"
	echo "not ok - build"
	echo "0 passed, 1 failed"
	exit 1
fi
rm -f "$log.build"

for t in selftests/unit/test_*; do
	[ -x "$t" ] && [ "${t%.c}" = "$t" ] || continue
	stage "unit: $t" "$t"
done
stage "vm: runner contract" selftests/vm/runner_test.sh
stage "vm: selftests/kmod" selftests/vm/run.sh --timeout 1200 --disk 64 -- \
	selftests/kmod/run_all.sh

# The same suite on the debug kernel (KASAN, lockdep, UBSAN, KFENCE, ...),
# where any kernel report fails the run.  The first run builds the kernel
# into $ISPOT_CACHE (about an hour on 2 cores); KERNELS="..." without
# "debug" leaves it out.  Its TAP lines say "[debug]" before any directive.
debug_suite() {
	selftests/vm/run.sh --kernel debug --timeout 3000 --disk 64 -- \
		selftests/kmod/run_all.sh 2>&1 |
		sed -u -E '/^(not )?ok /{ / # /{ s/ # / [debug] # /; b; }; s/$/ [debug]/; }'
	return "${PIPESTATUS[0]}"
}
case " ${KERNELS:-debug} " in
*" debug "*) stage "vm debug: selftests/kmod" debug_suite ;;
esac

passed=$(grep -c -E '^ok ' "$log" | head -1)
skipped=$(grep -c -E '^ok .*# SKIP' "$log" | head -1)
failed=$(grep -c -E '^not ok' "$log" | head -1)
passed=$((passed - skipped))
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
