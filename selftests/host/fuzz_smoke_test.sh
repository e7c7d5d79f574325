#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The libFuzzer harnesses of selftests/fuzz/ (make fuzz's) still build and
# still pass: each replays every input of selftests/fuzz/corpus/NAME once,
# the regression inputs of bugs fixed before among them, then fuzzes for
# $ISPOT_FUZZ_SMOKE_SECONDS (default 10) on a copy of that corpus, up to
# one harness per CPU (at most 4) at a time, niced.  One TAP line per
# harness; a crash's input and libFuzzer's report are printed as comments.
# Skips (exit 4) without a clang that builds a libFuzzer harness.
set -u
cd "$(dirname "$0")/../.."
. selftests/kmod/tap.sh

secs=${ISPOT_FUZZ_SMOKE_SECONDS:-10}
cc=${FUZZ_CC:-clang}
tmpdir_setup
# The elf harness's scratch file (a crash leaves it), in memory if we can.
TMPDIR=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
export TMPDIR
at_exit 'rm -rf "$TMPDIR"'

require_cmd "$cc"
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined -o "$tmp/probe" "$tmp/probe.c" \
	>"$tmp/probe.log" 2>&1 ||
	tap_skip_all "$cc cannot build a libFuzzer harness ($(grep -m1 -i error "$tmp/probe.log")); run scripts/deps.sh (libclang-rt-dev)"

names=()
for f in selftests/fuzz/*.c; do
	f=${f##*/}
	names+=("${f%.c}")
done
tap_plan $((1 + ${#names[@]}))

jobs=$(nproc 2>/dev/null || echo 1)
[ "$jobs" -le 4 ] || jobs=4
if nice -n 10 make -s -j"$jobs" fuzz-build FUZZ_CC="$cc" >"$tmp/build.log" 2>&1; then
	tap_ok "fuzz: the ${#names[@]} harnesses build"
else
	sed 's/^/# /' "$tmp/build.log" | tail -n 20
	tap_not_ok "fuzz: the ${#names[@]} harnesses build"
	for n in "${names[@]}"; do tap_not_ok "fuzz: $n" ; done
	tap_done
fi

# smoke NAME: replay, then fuzz; "ok", or why not, in $tmp/NAME.result.
smoke() {
	local n=$1 bin=.build/fuzz/$1 out=$tmp/$1
	mkdir -p "$out.new" "$out.corpus" "$out.art"
	# The first directory is where libFuzzer would write: not the tree's.
	if ! nice -n 10 "$bin" -runs=0 -close_fd_mask=3 \
		-artifact_prefix="$out.art/" "$out.new" \
		selftests/fuzz/corpus/"$n" >"$out.replay" 2>&1; then
		echo "a corpus input fails" >"$out.result"
		cp "$out.replay" "$out.log"
		return
	fi
	cp selftests/fuzz/corpus/"$n"/* "$out.corpus"/
	if ! nice -n 10 "$bin" -max_total_time="$secs" -max_len=16384 \
		-close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix="$out.art/" "$out.corpus" >"$out.log" 2>&1; then
		echo "fuzzing found a crash" >"$out.result"
		return
	fi
	echo "ok $(sed -n 's/^stat::number_of_executed_units: *//p' \
		"$out.log") executions" >"$out.result"
}

running=0
for n in "${names[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	smoke "$n" &
	running=$((running + 1))
done
wait

for n in "${names[@]}"; do
	result=$(cat "$tmp/$n.result" 2>/dev/null || echo "no result")
	case $result in
	ok*)
		tap_ok "fuzz: $n: corpus replayed, ${result#ok } in $secs s"
		;;
	*)
		grep -E 'ERROR|runtime error|SUMMARY|Test unit written' \
			"$tmp/$n.log" | head -n 8 | sed 's/^/# /'
		for a in "$tmp/$n.art"/*; do
			[ -f "$a" ] || continue
			echo "# input (${a##*/}, base64): $(head -c 512 "$a" | base64 -w0)"
			mkdir -p .build/fuzz/artifacts
			cp "$a" .build/fuzz/artifacts/"$n-${a##*/}"
		done
		tap_not_ok "fuzz: $n: $result"
		;;
	esac
done
tap_done
