#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: install, build, run the native unit tests, then the selftests
# inside the VM on every kernel of $KERNELS (default: all that
# selftests/vm/kernels.sh knows).  Each kernel's TAP lines end with
# " [NAME]" before any SKIP/TODO directive.  Prints TAP, then exactly one
# "N passed, N failed, N skipped" line.
set -uo pipefail
cd "$(dirname "$0")/.."
. selftests/vm/kernels.sh
kernels=${KERNELS:-$vm_kernel_names}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# tag NAME: append " [NAME]" to TAP result lines (before a directive).
tag() {
	if [ -z "$1" ]; then
		cat
	else
		sed -u -E "/^(not )?ok( |\$)/ { / # (SKIP|TODO)/I! s/\$/ [$1]/; s/ # (SKIP|TODO)/ [$1]&/I }"
	fi
}

# stage [-k KERNEL] NAME CMD...: run CMD, keep its TAP (tagged with the
# kernel), count a failure if it exits non-zero without reporting a failing
# test itself.
stage() {
	local k= name before after rc last
	if [ "$1" = -k ]; then k=$2; shift 2; fi
	name=$1
	shift
	echo "# $name${k:+ [$k]}"
	before=$(grep -c '^not ok' "$log")
	"$@" 2>&1 | tag "$k" | tee -a "$log"
	rc=${PIPESTATUS[0]}
	after=$(grep -c '^not ok' "$log")
	last=$(tail -n1 "$log")
	# A VM run that failed for a reason of its own (a kernel report, a
	# timeout: run.sh's last line) is a failure of its own too, even when
	# some tests failed as well.
	if [ "$rc" -ne 0 ] && [[ "$last" == "vm: FAIL: "* ]]; then
		echo "not ok - $name: ${last#vm: FAIL: }${k:+ [$k]}" | tee -a "$log"
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$after" -eq "$before" ]; then
		echo "not ok - $name exited with status $rc${k:+ [$k]}" | tee -a "$log"
	fi
}

# kernel_ready NAME: the kernel's image and a warning-free ispot.ko built
# for it (6.1: the tree's, built by make above; others: in their build
# roots).  One TAP line; the reason is its last words when it fails.
kernel_ready() (
	out=$(vm_kernel_select "$1" 2>&1)
	rc=$?
	[ $rc -eq 0 ] || { printf '%s\n' "$out" | sed 's/^/# /'; }
	printf '%s\n' "$out" | grep '^buildroot: .*: .*(' | sed 's/^/# /'
	if [ $rc -eq 0 ]; then
		echo "ok - kernel $1: image and module"
	else
		echo "not ok - kernel $1: $(printf '%s\n' "$out" | tail -n1)"
	fi
)

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
# Kbuild has no -Werror (DKMS users may have newer compilers); a warning
# fails the test build instead.  Other kernels: scripts/buildroot.sh.
if grep -q -i 'warning:' "$log.build"; then
	cat "$log.build"
	echo "not ok - build has warnings" | tee -a "$log"
fi
rm -f "$log.build"

for t in selftests/unit/test_*; do
	[ -x "$t" ] && [ "${t%.c}" = "$t" ] || continue
	stage "unit: $t" "$t"
done
stage "vm: runner contract" selftests/vm/runner_test.sh
# Tests that run on the host against real programs (a Prometheus server,
# dkms, an installed tree); those that need the module boot the VM
# themselves, on the default kernel.
for t in selftests/host/*_test.sh; do
	[ -x "$t" ] || continue
	stage "host: $t" "$t"
done
# Each kernel runs the whole in-guest suite, in two boots.  QEMU's
# multi-threaded TCG runs stale code after the kernel patches its own text
# (static keys, static calls: Documentation/design.rst, "Text patching
# under TCG"; selftests/vm/textpoke_repro.sh), so only the tests that need
# real parallelism (interference, and 64 threads at once) run there, with
# the tracepoint probes registered once at load (keep_tracepoints=1);
# everything else, which loads and unloads the module, creates perf
# counters and registers tracepoints at will, runs on single-threaded TCG
# with the module loaded as on a real host.  The debug kernel (KASAN,
# lockdep, UBSAN, KFENCE, ...; any report fails the run), built once into
# $ISPOT_CACHE by scripts/kernel-debug.sh and several times slower, runs
# it all single-threaded: its timing-ratio tests skip anyway.
parallel_tests="ispotctl_test.sh samples_test.sh causes_test.sh stress_test ispotd_test.sh blocks_test.sh woken_test.sh"
# top_test.sh drives ispotctl top in a real terminal: tmux, with the
# UTF-8 locale it refuses to start without (the guest has no other).
vm_tools=(--add "$(command -v tmux)" --add /usr/lib/locale/C.utf8)
parallel_tests="$parallel_tests ispotd_metrics_test.sh"
vm_suite() {
	local k=$1 tcg=$2 to=1800
	shift 2
	[ "$k" != debug ] || to=3600
	# The parallel boot takes 2-3 minutes here; a wedged one must not eat
	# a third of CI's time before it is reported.
	[ "$tcg" != multi ] || to=1200
	selftests/vm/run.sh --kernel "$k" --tcg "$tcg" --timeout "$to" \
		--disk 64 "${vm_tools[@]}" "$@"
}
for k in $kernels; do
	stage -k "$k" "kernel image and module" kernel_ready "$k"
	tail -n1 "$log" | grep -q '^ok' || continue
	if [ "$k" = debug ]; then
		stage -k "$k" "vm: selftests/kmod" vm_suite "$k" single \
			--module-params "" -- selftests/kmod/run_all.sh
		continue
	fi
	# shellcheck disable=SC2086
	stage -k "$k" "vm: selftests/kmod, parallel" vm_suite "$k" multi -- \
		selftests/kmod/run_all.sh $parallel_tests
	stage -k "$k" "vm: selftests/kmod, the rest" vm_suite "$k" single \
		--module-params "" -- env ISPOT_TESTS_EXCLUDE="$parallel_tests" \
		selftests/kmod/run_all.sh
done

passed=$(grep -c -E '^ok ' "$log" | head -1)
skipped=$(grep -c -E '^ok .*# SKIP' "$log" | head -1)
failed=$(grep -c -E '^not ok' "$log" | head -1)
passed=$((passed - skipped))
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
