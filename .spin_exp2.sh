#!/bin/sh
s=/ispot/samples
for b in new old; do
  if [ $b = new ]; then c=ispotctl; else c=/opt/ispotctl-old; fi
  $c record -o /tmp/r.isr --func spin_acquire --func compute --key compute=arg0 --json -- $s/spinlock --threads 2 --delay-us 200 --hold-us 1800 --iterations 1000 --sleep > /tmp/o.json 2>/tmp/e
  echo "$b: $(/ispot/selftests/kmod/json_get /tmp/o.json .solo_blocks 2>&1 | tr '\n' ' ')"
  /ispot/selftests/kmod/json_get /tmp/o.json '.functions[].name' '.functions[].key' '.functions[].mean_ns' '.functions[].calls' 2>&1 | head
  grep -o '"reference[a-z_]*": [0-9.a-z"]*' /tmp/o.json | head -20 | tr '\n' ' '
  echo
done
