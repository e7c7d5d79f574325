#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench [BENCH=NAME] [KERNEL=VER]: install, build and run the
# benchmarks side by side (NAME: probe, ring, waits, pipeline, record,
# production or accuracy; all but production and accuracy by default) in
# the guest kernel VER (selftests/vm/run.sh --kernel; 6.1 by default).
# Each kernel's figures have their own block in the document, and
# production and accuracy one each of their own.  probe, ring, waits,
# production and accuracy run in the VM, booted once for all; pipeline
# (the user-space drain, pairing and SCI engine) and record (a
# recording's size, its writing and its replay) run natively on the
# host, and the VM is not booted when only they are asked for.  Prints
# one `name: value` line per figure on stdout (notes go to stderr), and
# writes the figures, with the command, date, kernels and where each was
# measured, between the `.. bench-begin` and `.. bench-end` markers of
# Documentation/evaluation.rst.
# Never pass/fail: it fails only when a benchmark could not run.
set -euo pipefail
cd "$(dirname "$0")/.."

name=${1:-}
case "$name" in
''|probe|ring|waits|pipeline|record|production|accuracy) ;;
*) echo "bench: unknown benchmark '$name'; use probe, ring, waits, pipeline, record, production or accuracy" >&2
   exit 2 ;;
esac
# Which halves run: the VM for probe, ring and waits, the host for
# pipeline and record.
run_vm=1
run_native=1
case "$name" in
pipeline|record) run_vm= ;;
probe|ring|waits|production|accuracy) run_native= ;;
esac
# The native benchmarks asked for: both by default.
native=(pipeline record)
case "$name" in
pipeline|record) native=("$name") ;;
esac

kver=${KERNEL:-6.1}
if [ -n "${MAKELEVEL:-}" ]; then
	cmd="make bench${name:+ BENCH=$name}${KERNEL:+ KERNEL=$KERNEL}"
else
	cmd="${KERNEL:+KERNEL=$KERNEL }scripts/bench.sh${name:+ $name}"
fi
# The default kernel keeps the unnamed block; others get their own.
tag=
[ "$kver" = 6.1 ] || tag=" $kver"
# ispotd's figures take minutes and are asked for on their own: a block
# of their own, so that they never replace the other benchmarks' block.
[ "$name" != production ] || tag=" production$tag"
[ "$name" != accuracy ] || tag=" accuracy$tag"
# The accuracy benchmark's I/O contention needs a disk-backed filesystem
# for O_DIRECT: the guest's /mnt, its image in the host's RAM, so that
# the reads' cost is the emulated device's and not a cloud volume's,
# whose speed drifts between the runs the gains compare
# (Documentation/evaluation.rst, "Interference beside SCI").
disk=()
[ "$name" != accuracy ] || disk=(--disk 64 --disk-in-ram)
smp=2
doc=Documentation/evaluation.rst
figure_re='^[a-z][a-z0-9_]*: -?[0-9.]+$'

scripts/deps.sh
make -s all

work=$(mktemp -d "${TMPDIR:-/tmp}/ispot-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
: >"$work/vm_figures"
: >"$work/native_figures"

# On the host first, before the VM boots, so that the two never compete
# for the host's cores.  Notes stream to stderr, figures come at the end.
# record_bench's --calls 500000 (2.05 M records) and three runs: its
# figures are the least of three, each taken by turns.
for bench in ${run_native:+"${native[@]}"}; do
	args=()
	[ "$bench" != record ] || args=(--runs 3 --calls 500000)
	set +e
	"selftests/bench/${bench}_bench" ${args[@]+"${args[@]}"} 2>&1 |
		tee "$work/native_out" |
		grep --line-buffered -v -E "$figure_re" >&2
	rc=${PIPESTATUS[0]}
	set -e
	grep -E "$figure_re" "$work/native_out" >"$work/figures" || true
	if [ "$rc" -ne 0 ] || [ ! -s "$work/figures" ]; then
		cat "$work/native_figures"
		echo "bench: the native $bench run failed (status $rc);" \
		     "$doc left as it was" >&2
		exit 1
	fi
	cat "$work/figures" >>"$work/native_figures"
done

if [ -n "$run_vm" ]; then
	# Notes stream to stderr as they come; figures are printed at the end.
	set +e
	# shellcheck disable=SC2086
	# The TSC, as on hardware: the kernel would pick the emulated HPET,
	# an MMIO device that costs ~400 ns per read under TCG and would be
	# measured instead of ISPOT (Documentation/evaluation.rst).
	selftests/vm/run.sh --kernel "$kver" --smp "$smp" --mem 512 --timeout 3600 \
		${disk[@]+"${disk[@]}"} --append "clocksource=tsc tsc=reliable" -- \
		selftests/bench/run_all.sh $name 2>&1 | tee "$work/vm_out" |
		grep --line-buffered -v -E "$figure_re" >&2
	rc=${PIPESTATUS[0]}
	set -e
	grep -E "$figure_re" "$work/vm_out" >"$work/vm_figures" || true
	if [ "$rc" -ne 0 ] || [ ! -s "$work/vm_figures" ]; then
		cat "$work/native_figures"
		echo "bench: the VM run failed (status $rc);" \
		     "$doc left as it was" >&2
		exit 1
	fi
fi
cat "$work/vm_figures" "$work/native_figures"

{
	echo ".. bench-begin$tag"
	echo
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') with \`\`$cmd\`\`."
	if [ -n "$run_vm" ]; then
		kernel=$(sed -n 's/^# kernel: //p' "$work/vm_out" | head -n1)
		clock=$(sed -n 's/^# clocksource: //p' "$work/vm_out" |
			head -n1)
		# Where the disk was: its speed is part of the I/O figures.
		ram_note=$(grep -m1 '^vm: --disk-in-ram: ' "$work/vm_out" || true)
		if [ -n "$ram_note" ]; then
			echo
			echo "The guest's disk image was on the host's disk, not in RAM: \`\`${ram_note#vm: }\`\`."
		elif [[ " ${disk[*]-} " == *" --disk-in-ram "* ]]; then
			echo
			echo "The guest's disk image was in the host's RAM (\`\`selftests/vm/run.sh --disk-in-ram\`\`)."
		fi
		echo
		echo "In the guest: kernel ${kernel:-unknown}" \
		     "(clocksource ${clock:-unknown})" \
		     "under QEMU TCG with $smp vCPUs::"
		echo
		sed 's/^/    /' "$work/vm_figures"
	fi
	if [ -n "$run_native" ]; then
		cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo |
		      head -n1)
		echo
		echo "Natively on the host, one core: kernel $(uname -r)," \
		     "${cpu:-unknown CPU}, $(nproc) CPUs::"
		echo
		sed 's/^/    /' "$work/native_figures"
	fi
	echo
	echo ".. bench-end$tag"
} >"$work/block"

begin=".. bench-begin$tag"
end=".. bench-end$tag"
if [ -f "$doc" ] && grep -qx "$begin" "$doc" && grep -qx "$end" "$doc"; then
	awk -v block="$work/block" -v begin="$begin" -v end="$end" '
		$0 == begin {
			while ((getline line < block) > 0)
				print line
			skip = 1
			next
		}
		$0 == end { skip = 0; next }
		!skip { print }' "$doc" >"$work/doc"
else
	{
		[ ! -f "$doc" ] || { cat "$doc"; echo; }
		echo "Latest figures, kernel $kver"
		echo "=============================="
		echo
		cat "$work/block"
	} >"$work/doc"
fi
cat "$work/doc" >"$doc"
echo "bench: figures written to $doc" >&2
