#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module-free reproducer for guests hanging or oopsing in x86 text patching
# (text_poke_bp: static keys, static calls) under QEMU TCG.  Boots the VM
# runner without ispot.ko, flips static keys from the guest shell in a
# tight loop while every vCPU runs load, and reports per run how it ended.
#
#   selftests/vm/textpoke_repro.sh [--kernel VER] [--accel ACCEL] [--runs R]
#       [--iters N] [--mode MODE] [--load LOAD] [--timeout SEC] [--module]
#       [--smp N] [--append ARGS] [--qemu-arg ARG]...
#
# MODE and LOAD: see selftests/vm/textpoke_guest.sh.  --module loads
# ispot.ko (idle) as a normal run would.  One line per run:
#   run K: PASS|HANG|OOPS|FAIL toggles=N secs=S [detail]
# and a summary.  Exit status: 0 if every run passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=6.1 accel=tcg,thread=multi runs=3 iters=2000 mode=mix load=spin,pipe,sys
timeout=300 module=0 smp=2 append=
qargs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kver=$2; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--iters) iters=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--load) load=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--module) module=1; shift ;;
	--smp) smp=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--qemu-arg) qargs+=(--qemu-arg "$2"); shift 2 ;;
	*) sed -n '8,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
modarg=(--no-module)
[ "$module" = 1 ] && modarg=()

# A soft lockup panics (and the runner's -no-reboot ends QEMU) instead of
# waiting for the host timeout; loglevel=7 shows the lockup's registers.
kargs="softlockup_panic=1 softlockup_all_cpu_backtrace=1 loglevel=7 $append"

# When the guest prints nothing for $stall seconds, dump every vCPU's
# registers (three samples 5s apart: stuck, or just slow on a busy host?),
# the bytes at its RIP and its local APIC through the QEMU monitor; after
# $hang seconds of silence, call it a hang and quit QEMU.
stall=${REPRO_STALL:-60}
hang=${REPRO_HANG:-240}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dump_cpus() {
	local cmds=() c k
	for k in 1 2 3; do
		cmds+=("info registers -a" "sleep 5")
	done
	for c in $(seq 0 $((smp - 1))); do
		cmds+=("cpu $c" 'x/12i $pc' 'x/16xb $pc' "info lapic")
	done
	python3 "$top/selftests/vm/qmon.py" "$1" "${cmds[@]}" 2>&1
}
pass=0
counts=
for r in $(seq 1 "$runs"); do
	t0=$(date +%s)
	sock=$tmp/mon.$r
	log=$tmp/out.$r
	"$top/selftests/vm/run.sh" --kernel "$kver" --accel "$accel" \
		--smp "$smp" --timeout "$timeout" --append "$kargs" \
		--qemu-arg -monitor --qemu-arg "unix:$sock,server=on,wait=off" \
		${modarg[@]+"${modarg[@]}"} ${qargs[@]+"${qargs[@]}"} -- \
		sh selftests/vm/textpoke_guest.sh "$iters" "$mode" "$load" \
		>"$log" 2>&1 &
	vm=$!
	last=$(date +%s) lines=0 dumped= resumed= hung=
	while kill -0 "$vm" 2>/dev/null; do
		sleep 5
		n=$(wc -l <"$log")
		if [ "$n" != "$lines" ]; then
			[ -z "$dumped" ] || resumed=1
			lines=$n last=$(date +%s)
		elif [ $(($(date +%s) - last)) -ge "$hang" ] && [ -S "$sock" ]; then
			hung=1
			python3 "$top/selftests/vm/qmon.py" "$sock" quit >/dev/null 2>&1
			sleep 5
		elif [ $(($(date +%s) - last)) -ge "$stall" ] && [ -S "$sock" ] &&
		     [ -z "$dumped" ]; then
			{ echo "== silent ${stall}s: vCPU state"; dump_cpus "$sock"; } >"$tmp/dump.$r"
			# and what guest memory holds now at every kernel RIP seen
			rips=$(grep -o 'RIP=ffff[0-9a-f]*' "$tmp/dump.$r" | sort -u | sed 's/RIP=/0x/')
			mem=()
			for a in $rips; do mem+=("x/3i $a" "x/8xb $a"); done
			[ ${#mem[@]} -eq 0 ] ||
				python3 "$top/selftests/vm/qmon.py" "$sock" "${mem[@]}" >>"$tmp/dump.$r" 2>&1
			dumped=1
		fi
	done
	wait "$vm"
	rc=$?
	out=$(cat "$log")
	[ -z "$dumped" ] || out+=$'\n'"$(cat "$tmp/dump.$r")"
	secs=$(($(date +%s) - t0))
	n=$(grep -o 'repro: toggles [0-9]*' <<<"$out" | tail -n1 | awk '{print $3}')
	n=${n:-0}
	if grep -q 'repro: PASS' <<<"$out" && [ "$rc" = 0 ]; then
		verdict=PASS; n=$iters; pass=$((pass + 1))
	elif grep -q -E 'Oops|general protection|invalid opcode' <<<"$out"; then
		verdict=OOPS
	elif [ -n "$hung" ] && grep -q 'CPL=3' "$tmp/dump.$r"; then
		verdict=SLOW	# silent, but a vCPU still ran user code: alive
	elif grep -q -E 'soft lockup|self-detected stall|detected stalls' <<<"$out" ||
	     [ -n "$hung" ] || grep -q 'timeout after' <<<"$out"; then
		verdict=HANG
	else
		verdict=FAIL
	fi
	detail=$(grep -m3 -E 'soft lockup|Oops|RIP:|timeout after' <<<"$out" | tr '\n' ' ' | cut -c1-300)
	[ -z "$dumped" ] || detail+=" silent>${stall}s${resumed:+ (then resumed)}; rips: $(grep -o 'RIP=[0-9a-f]*' "$tmp/dump.$r" | tr '\n' ' ')"
	echo "run $r: $verdict toggles=$n secs=$secs last-output=$((last - t0))s rc=$rc $detail"
	[ -z "${REPRO_LOG:-}" ] || printf '%s\n' "$out" >"$REPRO_LOG.$r"
	counts="$counts $n"
done
echo "summary: kernel=$kver accel=$accel mode=$mode load=$load module=$module" \
	"qemu-args='${qargs[*]:-}' append='$append' runs=$runs pass=$pass toggles:$counts"
[ "$pass" = "$runs" ]
