#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: install, build, run the native unit tests, then the selftests
# inside the VM on every kernel of $KERNELS (default: all that
# selftests/vm/kernels.sh knows), each kernel the tiers of them that
# selftests/kmod/tiers gives it.  --all (make check-all): every in-guest
# test on every kernel.  Each kernel's TAP lines end with " [NAME]" before
# any SKIP/TODO directive.  Prints TAP, then exactly one
# "N passed, N failed, N skipped" line.
set -uo pipefail
cd "$(dirname "$0")/.."
. selftests/vm/kernels.sh
kernels=${KERNELS:-$vm_kernel_names}
all=0
case "${1:-}" in
"") ;;
--all) all=1 ;;
*) echo "usage: scripts/check.sh [--all]" >&2; exit 2 ;;
esac
t0=$(date +%s)

log=$(mktemp)
prep_dir=$(mktemp -d)
bg_pids=
# descendants PID: every process PID started, and theirs.
descendants() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		echo "$c"
		descendants "$c"
	done
}
# A run cut short stops what it started in the background: a debootstrap
# or a kernel build left running would hold its cache's lock against the
# next run, a VM its CPU.
trap 'for p in $bg_pids; do kill -TERM $p $(descendants "$p") 2>/dev/null; done
	rm -rf "$log" "$prep_dir"' EXIT

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
	local k= name before after rc last start
	if [ "$1" = -k ]; then k=$2; shift 2; fi
	name=$1
	shift
	echo "# $name${k:+ [$k]}"
	before=$(grep -c '^not ok' "$log")
	start=$(date +%s)
	"$@" 2>&1 | tag "$k" | tee -a "$log"
	rc=${PIPESTATUS[0]}
	echo "# $name${k:+ [$k]}: $(($(date +%s) - start)) s (at $(($(date +%s) - t0)) s)"
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
# A kernel prepared in the background (prepare below) fails with what
# that preparation said; one that succeeded is selected again, which
# takes seconds once its cache is filled.
kernel_ready() (
	if [ -f "$prep_dir/$1.rc" ] && [ "$(cat "$prep_dir/$1.rc")" != 0 ]; then
		out=$(cat "$prep_dir/$1.log")
		rc=1
	else
		out=$(vm_kernel_select "$1" 2>&1)
		rc=$?
	fi
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

# prepare NAME CMD...: CMD in the background, niced, its output in
# $prep_dir/NAME.log and its status in NAME.rc; the kernel NAME waits for
# it (prep_wait) before it is selected.
declare -A prep_pid=()
prepare() {
	local n=$1
	shift
	( nice -n 10 "$@" >"$prep_dir/$n.log" 2>&1; echo $? >"$prep_dir/$n.rc" ) &
	prep_pid[$n]=$!
	bg_pids="$bg_pids $!"
}
# (In the debug lane, a subshell, the preparations are not its children:
# it waits on the build root's lock in scripts/buildroot.sh instead.)
prep_wait() {
	[ -n "${prep_pid[$1]:-}" ] || return 0
	wait "${prep_pid[$1]}" 2>/dev/null
	unset "prep_pid[$1]"
}

# --- Which in-guest tests each kernel runs -------------------------------
# selftests/kmod/tiers puts every test in one tier and says why.  6.1 runs
# them all; 5.10, 6.12 and sid what depends on the kernel and a smoke run
# of each front end; the debug kernel what depends on the kernel.
tiers=selftests/kmod/tiers
tier_names="kernel kernel-smp front 6.1 6.1-smp"
# in_tiers TIER...: the tests of those tiers, in name order, on one line.
in_tiers() {
	awk -v want=" $* " '/^[^#]/ && NF == 2 && index(want, " " $2 " ") { print $1 }' \
		"$tiers" | sort | tr '\n' ' '
}
# tiers_complete: every *_test.c and *_test.sh of selftests/kmod is in
# exactly one tier of tier_names, and every test named there exists.
tiers_complete() {
	local have listed bad
	have=$(ls selftests/kmod | sed -n -E 's/^(.*_test)\.c$/\1/p; /_test\.sh$/p' | sort)
	listed=$(awk '/^[^#]/ && NF { print $1 }' "$tiers" | sort)
	bad=$(awk -v names=" $tier_names " '/^[^#]/ && NF &&
		(NF != 2 || !index(names, " " $2 " ")) { print "line " NR ": " $0 }' "$tiers"
		comm -23 <(echo "$have") <(echo "$listed") | sed 's/$/ is in no tier/'
		comm -13 <(echo "$have") <(uniq <<<"$listed") | sed 's/$/ is not a test here/'
		uniq -d <<<"$listed" | sed 's/$/ is in two tiers/')
	if [ -z "$bad" ]; then
		echo "ok - $tiers: every in-guest test in one tier"
	else
		echo "not ok - $tiers: $(grep -c . <<<"$bad") problem(s)"
		sed 's/^/# /' <<<"$bad"
	fi
}

# single_tests K and multi_tests K: what kernel K runs in its
# single-threaded and its multi-threaded boot (nothing: no such boot).
# 6.1's two boots run every test, whatever --all says.
single_tests() {
	case "$all:$1" in
	*:debug) if [ "$all" = 1 ]; then in_tiers $tier_names
		 else in_tiers kernel kernel-smp; fi ;;
	1:*|0:6.1) in_tiers kernel front 6.1 ;;
	0:*) in_tiers kernel kernel-smp front ;;
	esac
}
multi_tests() {
	case "$all:$1" in
	*:debug) ;;
	1:*|0:6.1) in_tiers kernel-smp 6.1-smp ;;
	esac
}

# QEMU's multi-threaded TCG runs stale code after the kernel patches its
# own text (static keys, static calls: Documentation/design.rst, "Text
# patching under TCG"; selftests/vm/textpoke_repro.sh), so only the tests
# that need real parallelism (interference, and 64 threads at once) run
# there, with the tracepoint probes registered once at load
# (keep_tracepoints=1); everything else, which loads and unloads the
# module, creates perf counters and registers tracepoints at will, runs on
# single-threaded TCG with the module loaded as on a real host.  The debug
# kernel (KASAN, lockdep, UBSAN, KFENCE, ...; any report fails the run),
# built once into $ISPOT_CACHE by scripts/kernel-debug.sh and several
# times slower, runs single-threaded only: its timing-ratio tests skip
# anyway.
# top_test.sh drives ispotctl top in a real terminal: tmux, with the
# UTF-8 locale it refuses to start without (the guest has no other).
vm_tools=(--add "$(command -v tmux)" --add /usr/lib/locale/C.utf8)
# Whether run.sh's last line in @1 says the guest failed before any of
# ISPOT's code ran in it, in a way QEMU's TCG (@2: multi or single) is
# known for: a kernel that died while booting, or, under multi-threaded
# TCG, a boot that wedged before the guest was set up.  The timeout is
# retried only there: it is 1,200 s, and a wedge is that TCG's.
boot_failed() {
	local last
	last=$(tail -n1 "$1")
	[[ "$last" == "vm: FAIL: the kernel failed while booting, before the module was loaded: "* ]] ||
		{ [ "$2" = multi ] &&
		  [[ "$last" == "vm: FAIL: timeout after "*", before the guest was set up"* ]]; }
}
vm_suite() {
	local k=$1 tcg=$2 to=1800 out rc try
	shift 2
	[ "$k" != debug ] || to=3600
	# The parallel boot takes 2-3 minutes here; a wedged one must not eat
	# a third of CI's time before it is reported.
	[ "$tcg" != multi ] || to=1200
	out=$(mktemp)
	# A guest that fails before the module is loaded (boot_failed(): a
	# kernel that died while booting, or a multi-threaded boot that wedged
	# before the guest was set up) is QEMU's (multi-threaded TCG's text
	# patching: Documentation/design.rst): seen once in a check-all, sid's
	# parallel boot in an initcall.  It is booted once more, said in the
	# log; a second such boot fails.
	for try in 1 2; do
		selftests/vm/run.sh --kernel "$k" --tcg "$tcg" --timeout "$to" \
			--disk 64 "${vm_tools[@]}" "$@" | tee "$out"
		rc=${PIPESTATUS[0]}
		[ "$rc" -ne 0 ] && [ "$try" = 1 ] && boot_failed "$out" "$tcg" ||
			break
		echo "# vm: the guest failed before the module was loaded; booting it again"
	done
	rm -f "$out"
	return "$rc"
}
# boot K single|multi: kernel K's boot of that kind, if it has one; the
# kernel is made ready (and its background preparation waited for) once,
# by whichever lane boots it first ($prep_dir/K.ready: ok or no).
boot() {
	local k=$1 tcg=$2 tests
	if [ "$tcg" = single ]; then tests=$(single_tests "$k"); else tests=$(multi_tests "$k"); fi
	[ -n "$tests" ] || return 0
	if [ ! -f "$prep_dir/$k.ready" ]; then
		prep_wait "$k"
		stage -k "$k" "kernel image and module" kernel_ready "$k"
		tail -n1 "$log" | cut -c1-2 >"$prep_dir/$k.ready"
	fi
	[ "$(cat "$prep_dir/$k.ready")" = ok ] || return 0
	if [ "$tcg" = single ]; then
		# shellcheck disable=SC2086
		stage -k "$k" "vm: selftests/kmod, single-threaded" vm_suite "$k" \
			single --module-params "" -- selftests/kmod/run_all.sh $tests
	else
		# shellcheck disable=SC2086
		stage -k "$k" "vm: selftests/kmod, parallel" vm_suite "$k" multi -- \
			selftests/kmod/run_all.sh $tests
	fi
}

# --- The run -----------------------------------------------------------
stage "vm: tiers" tiers_complete
# The fixed costs of a fresh machine (build roots, the debug kernel) are
# paid in the background, niced, while the tests that need no real
# parallelism run: the native unit tests, then the single-threaded boots,
# in two lanes, two VMs of one host core each.  The build roots
# (debootstraps: network and disk) start side by side.  The first lane
# boots the kernels in queue order, 6.1 first (it needs nothing
# prepared); the second builds the debug kernel if needed (both cores for
# ~9 minutes on an idle machine, once), boots it, then takes kernels from
# the queue's end.  The second lane's TAP comes out when it is done.
# What needs both cores comes after, when nothing else runs: the runner's
# and the host tests (Prometheus scrapes a multi-threaded guest) and the
# multi-threaded boots.  Cached roots and kernels are only checked
# (seconds).
for k in $kernels; do
	case "$k" in
	5.10|6.12|sid) prepare "$k" scripts/buildroot.sh "$k" ;;
	esac
done
queue=$prep_dir/queue
mkdir "$queue"
n=10
for k in 6.1 $kernels; do
	case " $kernels " in *" $k "*) ;; *) continue ;; esac
	[ "$k" != debug ] && [ ! -e "$queue/"*"-$k" ] || continue
	: >"$queue/$n-$k"
	n=$((n + 1))
done
# claim first|last: the kernel at that end of the queue, taken out of it
# (rename(2): one lane gets it); nothing when the queue is empty.
claim() {
	local f
	for f in $(ls "$queue" | if [ "$1" = last ]; then sort -r; else sort; fi); do
		mv "$queue/$f" "$prep_dir/claimed-$f" 2>/dev/null && { echo "${f#*-}"; return; }
	done
}
lane_pid=
case " $kernels " in
*" debug "*)
	(
		log=$prep_dir/lane.tap
		: >"$log"
		boot debug single
		while k=$(claim last) && [ -n "$k" ]; do boot "$k" single; done
	) >"$prep_dir/lane.out" 2>&1 &
	lane_pid=$!
	bg_pids="$bg_pids $!"
	echo "# debug kernel: built if needed and booted in a second lane, which then takes kernels from the queue's end"
	;;
esac

for t in selftests/unit/*/test_*; do
	[ -x "$t" ] && [ "${t%.c}" = "$t" ] || continue
	stage "unit: $t" "$t"
done
while k=$(claim first) && [ -n "$k" ]; do
	boot "$k" single
done
if [ -n "$lane_pid" ]; then
	wait "$lane_pid"
	cat "$prep_dir/lane.out"
	cat "$prep_dir/lane.tap" >>"$log"
fi
stage "vm: runner contract" selftests/vm/runner_test.sh
# Tests that run on the host against real programs (a Prometheus server,
# dkms, an installed tree); those that need the module boot the VM
# themselves, on the default kernel.
for t in selftests/host/*_test.sh; do
	[ -x "$t" ] || continue
	stage "host: $t" "$t"
done
for k in $kernels; do
	boot "$k" multi
done
echo "# make check$([ "$all" = 0 ] || echo -all): $(($(date +%s) - t0)) s"

passed=$(grep -c -E '^ok ' "$log" | head -1)
skipped=$(grep -c -E '^ok .*# SKIP' "$log" | head -1)
failed=$(grep -c -E '^not ok' "$log" | head -1)
passed=$((passed - skipped))
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
