#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fuzz: run each libFuzzer harness that make fuzz-build put in
# .build/fuzz/ for SECONDS (default 60), niced, on its corpus copy in
# .build/fuzz/corpus/NAME (the tree's selftests/fuzz/corpus/NAME added to
# what earlier runs found there; the tree is never written).  One line per
# harness: executions, their rate, the corpus, and whether it found
# anything; a crash's input is kept in .build/fuzz/artifacts/.  Exits 1
# when a harness crashed.
#
#   scripts/fuzz.sh [SECONDS] [NAME...]	(NAME: only those harnesses)
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
dir=.build/fuzz
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in selftests/fuzz/*.c; do
		f=${f##*/}
		names+=("${f%.c}")
	done
fi

failed=0
mkdir -p "$dir/artifacts" "$dir/logs"
# The elf harness's scratch file (a crash leaves it), in memory if we can.
TMPDIR=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
for name in "${names[@]}"; do
	bin=$dir/$name corpus=$dir/corpus/$name log=$dir/logs/$name.log
	if [ ! -x "$bin" ]; then
		echo "fuzz: $name: $bin is not built (make fuzz-build)" >&2
		failed=1
		continue
	fi
	mkdir -p "$corpus"
	cp -n selftests/fuzz/corpus/"$name"/* "$corpus"/ 2>/dev/null
	# stderr closed for the target (its messages), kept for libFuzzer's.
	nice -n 10 "$bin" -max_total_time="$secs" -max_len=16384 \
		-close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix="$dir/artifacts/$name-" "$corpus" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	new=$(sed -n 's/^stat::new_units_added: *//p' "$log")
	size=$(find "$corpus" -type f | wc -l)
	if [ $rc -eq 0 ]; then
		found="nothing found"
	else
		failed=1
		art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n1)
		why=$(grep -m1 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log")
		found="CRASH (exit $rc): ${why:-see $log}; input: ${art:-none}"
	fi
	echo "$name: ${execs:-?} executions in $secs s (${rate:-?}/s), corpus $size (+${new:-0} new), $found"
done
exit $failed
