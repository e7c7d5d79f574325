#!/bin/sh
# experiment: blocks on spinlock hold=90% with both ispotctl builds
s=/ispot/samples
for r in 1 2 3; do
 for b in new old; do
  if [ $b = new ]; then c=ispotctl; else c=/opt/ispotctl-old; fi
  $c record -o /tmp/r.isr --func spin_acquire --func compute --key compute=arg0 --json -- $s/spinlock --threads 2 --delay-us 200 --hold-us 1800 --iterations 1000 --sleep > /tmp/o.json 2>/tmp/e
  echo "$b run $r: $(/ispot/selftests/kmod/json_get /tmp/o.json .duration_ns .solo_blocks.blocks .solo_blocks.contaminated .solo_blocks.reference_calls 2>&1 | tr '\n' ' ') spin ref: $(/ispot/selftests/kmod/json_get /tmp/o.json '.functions[name=spin_acquire].reference_calls' '.functions[name=spin_acquire].interference_reference' 2>&1 | tr '\n' ' ')"
 done
done
