#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest half of textpoke_repro.sh: flip static keys / static calls from
# the shell (no module) while every CPU runs load.
#
#   textpoke_guest.sh ITERS MODE [LOAD]
#
# MODE: sched     events/sched/sched_switch/enable 1/0
#       sys       events/raw_syscalls/sys_enter/enable 1/0
#       schedstats /proc/sys/kernel/sched_schedstats 1/0 (a plain static key)
#       all       events/enable 1/0 (every event: hundreds of sites)
#       mix       sched, sys and schedstats in turn
#       none      no toggling (load only; the control)
# LOAD: a comma list of spin (busy loop per CPU), pipe (1-byte ping-pong
#       through a pipe per CPU), sys (getpid-ish syscall storm per CPU);
#       default spin,pipe,sys.
iters=${1:-1000}
mode=${2:-mix}
load=${3:-spin,pipe,sys}

T=/sys/kernel/debug/tracing
if [ ! -d "$T/events" ]; then
	mkdir -p /sys/kernel/tracing
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	T=/sys/kernel/tracing
fi
[ -d "$T/events" ] || { echo "repro: no tracefs"; exit 2; }
echo 0 >"$T/tracing_on"		# probes still register; no buffer churn
ncpu=$(nproc)
echo "repro: kernel $(uname -r) cpus $ncpu mode $mode load $load iters $iters"
echo "repro: kaslr $(grep -m1 ' _text$' /proc/kallsyms)"

pids=
c=0
while [ "$c" -lt "$ncpu" ]; do
	case ",$load," in *,spin,*)
		taskset -c "$c" sh -c 'while :; do :; done' &
		pids="$pids $!" ;;
	esac
	case ",$load," in *,pipe,*)
		taskset -c "$c" sh -c 'dd if=/dev/zero bs=1 2>/dev/null |
			dd of=/dev/null bs=1 2>/dev/null' &
		pids="$pids $!" ;;
	esac
	case ",$load," in *,sys,*)
		taskset -c "$c" sh -c 'while :; do read x </proc/self/stat; done' &
		pids="$pids $!" ;;
	esac
	c=$((c + 1))
done
sleep 1
# The toggler outranks the load, or a slow host starves it into a false hang.
renice -n -19 -p $$ >/dev/null 2>&1

# A watcher at top priority: when the toggler makes no progress for 30s,
# show where it sleeps and what every CPU and blocked task is doing.
toggler=$$
echo 0 >/tmp/progress
(
	renice -n -20 -p $(sh -c 'echo $PPID') >/dev/null 2>&1
	prev=-1 still=0 dumps=0
	while [ "$dumps" -lt 2 ]; do
		sleep 10
		cur=$(cat /tmp/progress)
		if [ "$cur" = "$prev" ]; then still=$((still + 1)); else still=0; fi
		prev=$cur
		[ "$still" -ge 3 ] || continue
		dumps=$((dumps + 1)) still=0
		echo "repro-watch: no toggle for 30s at $cur; toggler stack:"
		for t in /proc/$toggler/task/*; do
			c=$(cat "$t/comm"); w=$(cat "$t/wchan" 2>/dev/null)
			echo "repro-watch: task ${t##*/} $c state $(awk '{print $3}' "$t/stat") wchan $w"
			cat "$t/stack" 2>/dev/null | sed 's/^/repro-watch:   /'
		done
		for p in /proc/[0-9]*; do	# children doing the write
			[ "$(awk '{print $4}' $p/stat 2>/dev/null)" = "$toggler" ] || continue
			echo "repro-watch: child ${p##*/} $(cat $p/comm) $(awk '{print $3}' $p/stat)"
			cat "$p/stack" 2>/dev/null | sed 's/^/repro-watch:   /'
		done
		grep -E 'CPU|LOC|CAL|TLB|RES' /proc/interrupts | sed 's/^/repro-watch: /'
		echo w >/proc/sysrq-trigger
		echo l >/proc/sysrq-trigger
	done
) &
watcher=$!

flip() {	# FILE: one 1/0 pair = two patches per site
	echo 1 >"$1"
	echo 0 >"$1"
}

start=$(cut -d. -f1 /proc/uptime)
i=0
while [ "$i" -lt "$iters" ]; do
	case "$mode" in
	sched) flip "$T/events/sched/sched_switch/enable" ;;
	sys) flip "$T/events/raw_syscalls/sys_enter/enable" ;;
	schedstats) flip /proc/sys/kernel/sched_schedstats ;;
	all) flip "$T/events/enable" ;;
	mix)
		case $((i % 3)) in
		0) flip "$T/events/sched/sched_switch/enable" ;;
		1) flip "$T/events/raw_syscalls/sys_enter/enable" ;;
		2) flip /proc/sys/kernel/sched_schedstats ;;
		esac ;;
	none) usleep 20000 ;;
	*) echo "repro: unknown mode $mode"; exit 2 ;;
	esac
	i=$((i + 1))
	echo "$i" >/tmp/progress
	[ $((i % 10)) -ne 0 ] || echo "repro: toggles $i t=$(($(cut -d. -f1 /proc/uptime) - start))s"
done
end=$(cut -d. -f1 /proc/uptime)
kill $pids $watcher 2>/dev/null
echo "repro: PASS $i toggles in $((end - start))s"
