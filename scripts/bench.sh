#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench [BENCH=NAME]: install, build, boot the VM once and run the
# benchmarks side by side (NAME: probe or ring; all by default).  Prints one
# `name: value` line per figure on stdout (notes go to stderr), and writes
# the figures, with the command, date and kernel, between the
# `.. bench-begin` and `.. bench-end` markers of Documentation/evaluation.rst.
# Never pass/fail: it fails only when a benchmark could not run.
set -euo pipefail
cd "$(dirname "$0")/.."

name=${1:-}
case "$name" in
''|probe|ring) ;;
*) echo "bench: unknown benchmark '$name'; use probe or ring" >&2; exit 2 ;;
esac

if [ -n "${MAKELEVEL:-}" ]; then
	cmd="make bench${name:+ BENCH=$name}"
else
	cmd="scripts/bench.sh${name:+ $name}"
fi
smp=2
doc=Documentation/evaluation.rst
figure_re='^[a-z][a-z0-9_]*: -?[0-9.]+$'

scripts/deps.sh
make -s all

work=$(mktemp -d "${TMPDIR:-/tmp}/ispot-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Notes stream to stderr as they come; figures are printed at the end.
set +e
# shellcheck disable=SC2086
selftests/vm/run.sh --smp "$smp" --mem 512 -- \
	selftests/bench/run_all.sh $name 2>&1 | tee "$work/out" |
	grep --line-buffered -v -E "$figure_re" >&2
rc=${PIPESTATUS[0]}
set -e
grep -E "$figure_re" "$work/out" >"$work/figures" || true
cat "$work/figures"
if [ "$rc" -ne 0 ] || [ ! -s "$work/figures" ]; then
	echo "bench: the VM run failed (status $rc); $doc left as it was" >&2
	exit 1
fi

kernel=$(sed -n 's/^# kernel: //p' "$work/out" | head -n1)
clock=$(sed -n 's/^# clocksource: //p' "$work/out" | head -n1)
{
	echo ".. bench-begin"
	echo
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') with \`\`$cmd\`\`:"
	echo "guest kernel ${kernel:-unknown} (clocksource ${clock:-unknown})" \
	     "under QEMU TCG with $smp vCPUs::"
	echo
	sed 's/^/    /' "$work/figures"
	echo
	echo ".. bench-end"
} >"$work/block"

if [ -f "$doc" ] && grep -q '^\.\. bench-begin' "$doc" &&
   grep -q '^\.\. bench-end' "$doc"; then
	awk -v block="$work/block" '
		/^\.\. bench-begin/ {
			while ((getline line < block) > 0)
				print line
			skip = 1
			next
		}
		/^\.\. bench-end/ { skip = 0; next }
		!skip { print }' "$doc" >"$work/doc"
else
	{
		[ ! -f "$doc" ] || { cat "$doc"; echo; }
		echo "Latest figures"
		echo "=============="
		echo
		cat "$work/block"
	} >"$work/doc"
fi
cat "$work/doc" >"$doc"
echo "bench: figures written to $doc" >&2
