#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: what solo blocks give in-run, as a user gets them by default,
# on the pool with no tail (samples/pool_varied, 2 and 4 threads, its gain
# from untraced runs with shared and private locks in turn) and on the lock
# sample with compute() traced too (a lock held across traced calls).  One
# line per configuration; not part of make bench (see
# Documentation/evaluation.rst, "Solo blocks: the accuracy sweep").
#
#   selftests/vm/run.sh --kernel 6.1 -- /ispot/selftests/bench/solo_probe.sh
s=/ispot/samples
J=/ispot/selftests/kmod/json_get
t() { "$s/pool_varied" --threads $1 --iterations 600 --delay-us 50 --sleep $2 | sed -n 's/^pool_varied: .* in \([0-9.]*\) s,.*/\1/p'; }
for n in 2 4; do
  a=$(t $n ""); b=$(t $n --private-locks); c=$(t $n ""); d=$(t $n --private-locks)
  ispotctl run --func varied_lock_work --json -o /tmp/p.json -- "$s/pool_varied" --threads $n --iterations 600 --delay-us 50 --sleep >/dev/null 2>/tmp/err
  echo "pool n=$n T=$a,$c Tfix=$b,$d gain=$(awk -v a=$a -v b=$b -v c=$c -v d=$d 'BEGIN{printf "%.3f", 1-(b+d)/(a+c)}') sci=$($J /tmp/p.json '.functions[name=varied_lock_work].sci') interf=$($J /tmp/p.json '.functions[name=varied_lock_work].interference') ref=$($J /tmp/p.json '.functions[name=varied_lock_work].interference_reference') refcalls=$($J /tmp/p.json '.functions[name=varied_lock_work].reference_calls') blocks=$($J /tmp/p.json .solo_blocks.blocks) cont=$($J /tmp/p.json .solo_blocks.contaminated) to=$($J /tmp/p.json .solo_blocks.timeouts) waits=$($J /tmp/p.json .solo_blocks.gate_waits)"
done
for h in 50 200; do
  ispotctl run --func acquire --func compute --json -o /tmp/l.json -- "$s/lock_contention" --threads 2 --delay-us $((400-h)) --hold-us $h --iterations 300 --sleep >/dev/null 2>/tmp/err
  echo "lock hold=$h sci=$($J /tmp/l.json '.functions[name=acquire].sci') interf=$($J /tmp/l.json '.functions[name=acquire].interference') ref=$($J /tmp/l.json '.functions[name=acquire].interference_reference') refcalls=$($J /tmp/l.json '.functions[name=acquire].reference_calls') blocks=$($J /tmp/l.json .solo_blocks.blocks) cont=$($J /tmp/l.json .solo_blocks.contaminated) to=$($J /tmp/l.json .solo_blocks.timeouts)"
done
