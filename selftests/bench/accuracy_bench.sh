#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench BENCH=accuracy, in the guest: does SCI track the slowdown
# interference causes, and does it predict what fixing the cause saves?
# (the paper's §4, Table 1: Documentation/design.rst, References;
# Documentation/evaluation.rst, "Accuracy".)
#
# Four causes, each swept over a contention parameter, one config at a
# time: a traced run gives the SCI of the block, untraced runs of the same
# config (median of ACC_REPS;
# ACC_IO_REPS for I/O) its completion time T, and untraced runs of
# the fixed program (the cause removed, nothing else changed) T_fixed.
# The traced run is `ispotctl record` as a user gets it: with solo blocks
# at the default share (--solo-blocks), so that INTERF may take its
# reference from the calls the gate let in alone ("gated").
#
#   lock      samples/lock_contention, 2 threads, ACC_WORK_US of work per
#             iteration split between inside the lock (--hold-us) and
#             outside (--delay-us); the share inside is swept.  The work
#             per thread is the same in every config, so T moves only with
#             the waiting.  Fixed: samples/no_contention (a lock per thread).
#   spinlock  the same with samples/spinlock; fixed: --private.
#   io        samples/io_contention, O_DIRECT reads of a file on the
#             guest's disk, ACC_IO_ITERS per thread; the number of threads
#             is swept.  Fixed: one thread doing its share alone, the time
#             every thread would take with a disk of its own.
#   pool      samples/pool_varied, a pool with no tail (its workers start
#             together and stop together after a fixed total of work,
#             ACC_POOL_ITERS calls of the mean size per thread): each call
#             of varied_lock_work() does 1 to 64 units of ACC_POOL_UNIT_US
#             (log-uniform) and holds one shared mutex for the last quarter
#             of it; the number of threads is swept (ACC_POOL_THREADS).
#             Fixed: --private-locks (a mutex per thread).  Its calls vary
#             by themselves, so SCI and a bound overstate; no worker runs
#             alone, so only the gate gives a reference.
#
# ACC_CONFIGS names the parts to run (default: all of them): lock,
# spinlock, io, pool (the sweeps above), solo, external and gate (below).
#
# Figures (`name: value`), each printed when its part ran:
#   accuracy_rho_lock, accuracy_rho_spinlock, accuracy_rho_io
#       Pearson's rho between the block's SCI and T over a cause's configs
#       (the paper's Table 1: 0.99, 0.95, 0.99).
#   gain_spearman, gain_mae
#       over every config: predicted gain (the block's SCI) against the
#       actual gain 1 - T_fixed / T, rank correlation and mean |error|.
#   noise_sci_private
#       median SCI of compute(), the samples' private busy wait (no shared
#       state, keyed by its argument), traced in the same lock and spinlock
#       runs: what a function free of interference scores on this machine.
#   noise_sci_private_max
#       the highest of those.
#   interf_gain_spearman, interf_gain_mae, interf_io_mae, interf_pool_mae
#       the same as gain_spearman and gain_mae for the interference figure
#       (Documentation/design.rst, "Interference, not variance"), over
#       every config, over the I/O configs and over the pool configs: the
#       figure the traced run's own report ranks the block by, with no
#       --baseline (its bound where it has no reference).  Between commit
#       50b6ece and the change that added the pool configs, these names
#       scored the figure "as the report advises" (now
#       interf_baseline_advised_*), and interf_inrun_* the in-run figure
#       (now these).
#   interf_bound_points
#       how many configs were left with only a bound in-run (their JSON's
#       "interference_reference" is "none").
#   interf_weak_points
#       how many configs the in-run report called weak
#       ("interference_reference_weak": only a bound, or a reference from
#       under 5% of the calls; the text's note then advises a baseline).
#   interf_io_traced_gain_mae, sci_io_traced_gain_mae,
#   io_traced_gain_excess
#       the I/O configs' figures (in-run) against the gain measured with both
#       programs traced (median of ACC_REPS), and how much that gain
#       exceeds the untraced one on average: the tracer's own share of
#       the error (its CPU time slows a program whose threads fill the
#       guest's CPUs more than one that does not).
#   interf_referenced_mae, sci_referenced_mae
#       the MAE of the in-run interference figure over the configs that
#       had a reference in-run, and SCI's over the same configs.
#   interf_floor_gain_mae
#       the same MAE for the measured floor alone (the waits that other
#       threads ended), which is what INTERF is where there is no bound.
#   interf_baseline_gain_spearman, interf_baseline_gain_mae,
#   interf_baseline_io_mae, interf_baseline_pool_mae,
#   interf_baseline_bound_points
#       the same for the figure each config's recording gives when
#       reported with --baseline, a recording of the contended program
#       with one thread made just before it (Documentation/usage.rst, "A
#       baseline"): the reference a user gets by recording the program
#       with one worker first.
#   interf_baseline_advised_gain_spearman, interf_baseline_advised_gain_mae,
#   interf_baseline_advised_io_mae, interf_baseline_advised_bound_points
#       as a user who follows the report reads it: the in-run figure,
#       unless its report called it weak, then the figure with that
#       baseline.  The choice is made from the in-run report's output,
#       never from the gain it is compared with.
#   solo_false_positive_max, solo_sci_min
#       single-threaded runs of code whose work varies by itself
#       (samples/varied_work, spinning and sleeping; io_contention with one
#       thread): the highest interference figure of their traced
#       functions, and the lowest SCI among them (which stays high: the
#       work varies).
#   external_interf_quiet, external_interf_hog, external_interf_delta,
#   external_share
#       samples/no_contention (spinning work, a lock per thread) traced
#       alone, then with two busy loops of another process on the guest's
#       CPUs: compute()'s interference figure both times (the one the
#       report ranks by: the bound where there is one), their difference,
#       and the external time the report shows in the second run over
#       the loss SCI counts there (it can pass 1: the fastest call waited
#       too, and SCI counts only the time above it).  The floors (the
#       measured waits on other threads) are a '# ' note.
#   gate_cost
#       what solo blocks cost the traced program: samples/pool_varied with
#       ACC_GATE_THREADS threads and private locks (every worker could run
#       at once, so a block, which lets one in at a time, costs it most),
#       traced by `ispotctl run` with blocks at the default share and with
#       --solo-blocks 0, alternating (each first every other time),
#       ACC_GATE_REPS runs each: the median of the program's own run time
#       (it prints it) with blocks over the median without.  Each run's
#       times, blocks' share and gate timeouts are a note.
# Each config's figures are printed as a '# ' note.
. "$(dirname "$0")/bench_lib.sh"
# The shell tests' one JSON reader (selftests/kmod/json_get.c).
# The shell tests' one JSON reader (selftests/kmod/json_get.c).
json_get=$(dirname "$0")/../kmod/json_get
s=/ispot/samples
tmp=$(mktemp -d)
reps=${ACC_REPS:-3}
# The I/O configs' untraced times vary most: even with the disk image in
# the host's RAM (scripts/bench.sh), one reader's mean read took 237, 252
# and 313 us in three runs one after another, and one reader's "gain"
# against itself came out -0.08 with the median of 5.  Fifteen runs of
# each, about four minutes more.
io_reps=${ACC_IO_REPS:-15}
work_us=${ACC_WORK_US:-2000}
iters=${ACC_ITERS:-1000}
hold_pct=${ACC_HOLD_PCT:-5 15 30 40 50 60 70 80 90 95}
io_threads=${ACC_IO_THREADS:-1 2 3 4 6 8 12 16 24}
# 3,000 reads: a run of one thread takes about a second, so the 10 ms
# clock is a small part of T (with 800, T was 0.24-0.30 s and the single
# thread's "gain" against itself came out anywhere from -0.09 to 0.20).
io_iters=${ACC_IO_ITERS:-3000}
# The pool: 2,000 calls of the mean size (15 units of 50 us, 0.76 ms;
# about 1.5 ms in the guest, whose sleeps overshoot) per thread: about 3
# s with private locks, 20 s with 8 threads sharing one (each hand-over
# of the mutex costs a wake-up in the guest).  Blocks at 2% of the run
# let in about 2% of one worker's calls alone (a block holds about 32
# mean calls): 40 or so, more than the 30 a reference takes.
pool_threads=${ACC_POOL_THREADS:-2 4 8}
pool_iters=${ACC_POOL_ITERS:-2000}
pool_unit_us=${ACC_POOL_UNIT_US:-50}
gate_threads=${ACC_GATE_THREADS:-8}
# Eight pairs: the pool's time moved by 15% from run to run on a loaded
# host, with or without blocks.
gate_reps=${ACC_GATE_REPS:-8}
configs=${ACC_CONFIGS:-lock spinlock io pool solo external gate}
# The work sleeps (--sleep) unless ACC_WORK=spin: see samples/sample.h.
work_opt=--sleep
[ "${ACC_WORK:-sleep}" != spin ] || work_opt=
io_file=/mnt/accuracy_bench.dat

# want PART: whether ACC_CONFIGS names PART.
want() {
	case " $configs " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

quiet() { "$@" >/dev/null 2>&1; }

# fn_field FILE NAME FIELD: FIELD of function NAME (all its keys) in a
# JSON report, or nothing.  A function's own fields come before its keys'.
fn_field() {
	"$json_get" "$1" ".functions[name=$2].$3" 2>/dev/null | head -n1
}
fn_sci() { fn_field "$1" "$2" sci; }
# fn_interf FILE NAME: "figure bounded": the interference figure the
# report ranks NAME by (its bound when it has no reference), and 1 if it
# is a bound, else 0.
fn_interf() {
	b=$(fn_field "$1" "$2" interference_bound)
	if [ -n "$b" ]; then
		echo "$b 1"
	else
		echo "$(fn_field "$1" "$2" interference) 0"
	fi
}
# blocks_note FILE: the run's solo blocks, as a '# ' note.
blocks_note() {
	"$json_get" "$1" .solo_blocks.blocks .solo_blocks.share \
		.solo_blocks.contaminated .solo_blocks.timeouts \
		.solo_blocks.reference_calls .solo_blocks.gate_wait_ns \
		2>/dev/null | awk -F '\t' '{
		printf "#          solo blocks: %s, share %.4f, %s contaminated, %s timeouts, %s reference calls, gate waits %.1f ms\n",
		       $1, $2, $3, $4, $5, $6 / 1e6 }'
}

# traced_json FILE CMD...: ispotctl CMD... with --json; the report (which
# shares stdout with a traced program) into FILE.  0, or 1 after '# ' lines.
traced_json() {
	tj_out=$1
	shift
	if ! ispotctl "$@" >"$tmp/stdout" 2>"$tmp/err"; then
		sed 's/^/# ispotctl: /' "$tmp/err"
		return 1
	fi
	grep '^{"ispot_version"' "$tmp/stdout" >"$tj_out" && return 0
	echo "# ispotctl $1: no JSON report on its output"
	return 1
}

# measure CAUSE PARAM FUNC "CONTENDED" "FIXED" [TRACE-OPTIONS...]: one
# config; appends "cause param sci T T_fixed gain noise ..." to
# $tmp/points (the columns: the awk below; 8-9 the in-run figure and
# whether it is a bound, 11 its reference's source, 13-15 the same with
# the baseline, 16 whether the run's reference is weak, 17-18 the figure
# a user who follows the report reads, 19 the in-run reference calls).
# The traced run is recorded as a user records it (solo blocks at the
# default share), and reported again with --baseline, a recording of the
# contended program with one thread (--threads 1), made just before it.
measure() {
	cause=$1 param=$2 func=$3 con=$4 fix=$5
	shift 5
	# shellcheck disable=SC2086
	n_reps=$reps
	[ "$cause" != io ] || n_reps=$io_reps
	base=$(echo "$con" | sed 's/--threads [0-9]*/--threads 1/')
	if [ "$base" = "$con" ] && [ "${con#*--threads 1}" = "$con" ]; then
		echo "# $cause $param: no --threads N to make a baseline of"
		return 1
	fi
	# shellcheck disable=SC2086
	traced_json "$tmp/base.json" record -o "$tmp/base.isr" \
		--func "$func" "$@" --json -- $base || return 1
	# shellcheck disable=SC2086
	traced_json "$tmp/run.json" record -o "$tmp/run.isr" \
		--func "$func" "$@" --json -- $con || return 1
	if ! ispotctl report --baseline "$tmp/base.isr" --json \
		-o "$tmp/based.json" "$tmp/run.isr" 2>"$tmp/err"; then
		sed 's/^/# ispotctl: /' "$tmp/err"
		return 1
	fi
	sci=$(fn_sci "$tmp/run.json" "$func")
	interf=$(fn_interf "$tmp/run.json" "$func")
	based=$(fn_interf "$tmp/based.json" "$func")
	floor=$(fn_field "$tmp/run.json" "$func" interference)
	ref=$(fn_field "$tmp/run.json" "$func" interference_reference)
	bref=$(fn_field "$tmp/based.json" "$func" interference_reference)
	weak=$(fn_field "$tmp/run.json" "$func" interference_reference_weak)
	rcalls=$(fn_field "$tmp/run.json" "$func" reference_calls)
	noise=$(fn_sci "$tmp/run.json" compute)
	dropped=$("$json_get" "$tmp/run.json" .events.dropped 2>/dev/null |
		  head -n1)
	[ "${dropped:-0}" = 0 ] || echo "# $cause $param: $dropped records dropped"
	: >"$tmp/tc"
	: >"$tmp/tf"
	r=0
	# Alternating, so that a slow phase of the emulator hits both.
	while [ "$r" -lt "$n_reps" ]; do
		r=$((r + 1))
		# shellcheck disable=SC2086
		elapsed quiet $con >>"$tmp/tc"
		# shellcheck disable=SC2086
		elapsed quiet $fix >>"$tmp/tf"
	done
	tc=$(median <"$tmp/tc")
	tf=$(median <"$tmp/tf")
	# Each untraced run, for the truth's spread (a host that got busy).
	echo "# $cause $param: untraced runs $(tr '\n' ' ' <"$tmp/tc")s, fixed $(tr '\n' ' ' <"$tmp/tf")s"
	tg=$(traced_gain "$func" "$con" "$fix" "$@")
	awk -v c="$cause" -v p="$param" -v s="${sci:-0}" -v tc="$tc" \
	    -v tf="$tf" -v n="${noise:--}" -v i="${interf% *}" \
	    -v b="${interf#* }" -v f="${floor:-0}" -v r="${ref:-none}" \
	    -v tg="$tg" -v bi="${based% *}" -v bb="${based#* }" \
	    -v br="${bref:-none}" -v w="${weak:-false}" \
	    -v rc="${rcalls:-0}" 'BEGIN {
		g = tc > 0 ? 1 - tf / tc : 0
		# As a user who follows the report reads it: with the
		# baseline where the report calls the reference of this run weak.
		a = w == "true" ? bi : i
		ab = w == "true" ? bb : b
		printf "%s %s %.4f %.2f %.2f %.4f %s %.4f %s %.4f %s %s %.4f %s %s %s %.4f %s %s\n",
		       c, p, s, tc, tf, g, n, i, b, f, r, tg, bi, bb, br, w,
		       a, ab, rc
	}' | tee -a "$tmp/points" | awk '{
		printf "# %-8s %-14s sci %s  interf %s%s (floor %s, reference %s, %s gated calls%s)  with baseline %s%s (%s)  T %ss  T_fixed %ss  gain %s  traced gain %s  compute sci %s\n",
		       $1, $2, $3, $9 == 1 ? "<=" : "", $8, $10, $11, $19,
		       $16 == "true" ? ", weak" : "",
		       $14 == 1 ? "<=" : "", $13, $15, $4, $5, $6, $12, $7
	}'
	blocks_note "$tmp/run.json"
}

# traced_gain FUNC "CONTENDED" "FIXED" [TRACE-OPTIONS...]: for the I/O
# configs, the gain as the traced program sees it, 1 - T_fixed / T with
# both programs traced (median of ACC_REPS each), or "-".  Tracing costs
# CPU time, and where the threads saturate the guest's CPUs that cost
# slows the contended program more than the fixed one: what separates
# this gain from the untraced one is the tracer's own effect, which no
# figure measured under tracing can see.
traced_gain() {
	[ "$cause" = io ] || { echo -; return; }
	tg_func=$1 tg_con=$2 tg_fix=$3
	shift 3
	: >"$tmp/ttc"
	: >"$tmp/ttf"
	r=0
	while [ "$r" -lt "$reps" ]; do
		r=$((r + 1))
		# shellcheck disable=SC2086
		elapsed quiet ispotctl run --func "$tg_func" "$@" -- $tg_con \
			>>"$tmp/ttc"
		# shellcheck disable=SC2086
		elapsed quiet ispotctl run --func "$tg_func" "$@" -- $tg_fix \
			>>"$tmp/ttf"
	done
	awk -v a="$(median <"$tmp/ttf")" -v b="$(median <"$tmp/ttc")" \
		'BEGIN { printf "%.4f\n", (b > 0 ? 1 - a / b : 0) }'
}

echo "# parts: $configs"
echo "# cause    param          SCI of the block, untraced T and T_fixed (median of $reps, I/O $io_reps), actual gain 1 - T_fixed/T"
: >"$tmp/points"
# sweep_hold CAUSE FUNC CONTENDED FIXED [FIXED_OPTION]: one lock's sweep of
# the share of the work done inside it.
sweep_hold() {
	for pct in $hold_pct; do
		hold=$((work_us * pct / 100))
		delay=$((work_us - hold))
		args="--threads 2 --delay-us $delay --hold-us $hold --iterations $iters $work_opt"
		measure "$1" "hold=${pct}%" "$2" "$s/$3 $args" \
			"$s/$4 $args${5:+ $5}" --func compute --key compute=arg0
	done
}
! want lock || sweep_hold lock acquire lock_contention no_contention
! want spinlock || sweep_hold spinlock spin_acquire spinlock spinlock --private
# The file is written once, before any config, so that no run's time
# holds its creation; dd from /dev/zero writes every block (a hole would
# be read without touching the disk).
if ! want io; then
	:
elif grep -q ' /mnt ' /proc/mounts &&
   dd if=/dev/zero of="$io_file" bs=1M count=16 2>/dev/null && sync; then
	for n in $io_threads; do
		measure io "threads=$n" read_block \
			"$s/io_contention --threads $n --iterations $io_iters --file $io_file" \
			"$s/io_contention --threads 1 --iterations $io_iters --file $io_file"
	done
	rm -f "$io_file"
else
	echo "# io: no disk on /mnt (selftests/vm/run.sh --disk): skipped"
fi
if want pool; then
	for n in $pool_threads; do
		args="--threads $n --iterations $pool_iters --delay-us $pool_unit_us $work_opt"
		measure pool "threads=$n" varied_lock_work \
			"$s/pool_varied $args" "$s/pool_varied $args --private-locks"
	done
fi

# Pearson's rho of "x y" lines.  Busybox awk may lack sqrt(): Newton's.
pearson='
function root(v, r, i) {
	if (v <= 0)
		return 0
	for (r = v > 1 ? v : 1; i < 200; i++)
		r = (r + v / r) / 2
	return r
}
{
	n++; x = $1; y = $2
	sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y
} END {
	vx = n * sxx - sx * sx; vy = n * syy - sy * sy
	if (n < 2 || vx <= 0 || vy <= 0)
		print "0.00"
	else
		printf "%.2f\n", (n * sxy - sx * sy) / root(vx * vy)
}'

# has CAUSE: whether any config of CAUSE was measured.
has() { grep -q "^$1 " "$tmp/points"; }
# Pearson's rho of columns 3 (SCI) and 4 (T) over one cause's configs.
rho() {
	awk -v c="$1" '$1 == c { print $3, $4 }' "$tmp/points" | awk "$pearson"
}
for c in lock spinlock io; do
	! has "$c" || echo "accuracy_rho_$c: $(rho "$c")"
done

# Spearman: Pearson's rho of the ranks (ties share their mean rank) of
# column 3 (predicted gain, the SCI) and column 6 (actual gain).
ranks() {	# COLUMN: "line rank" for every point, in line order
	awk -v k="$1" '{ print NR, $k }' "$tmp/points" | sort -g -k2 | awk '
		{ line[NR] = $1; v[NR] = $2 }
		END {
			i = 1
			while (i <= NR) {
				j = i
				while (j < NR && v[j + 1] == v[i]) j++
				for (k = i; k <= j; k++) print line[k], (i + j) / 2
				i = j + 1
			}
		}' | sort -n
}
# spearman COLUMN: rank correlation of COLUMN with the actual gain.
spearman() {
	ranks "$1" >"$tmp/r_pred"
	paste "$tmp/r_pred" "$tmp/r_act" | awk '{ print $2, $4 }' |
		awk "$pearson"
}
# mae COLUMN [CAUSE]: mean |column - actual gain|, over CAUSE's configs.
mae() {
	awk -v k="$1" -v c="$2" 'c == "" || $1 == c {
		d = $k - $6; e += d < 0 ? -d : d; n++ }
	     END { printf "%.3f\n", n ? e / n : 0 }' "$tmp/points"
}
# count AWK-CONDITION: how many configs meet it.
count() { awk "$1" "$tmp/points" | wc -l | tr -d ' '; }
if [ -s "$tmp/points" ]; then
	ranks 6 >"$tmp/r_act"
	echo "gain_spearman: $(spearman 3)"
	echo "gain_mae: $(mae 3)"
	# The headline: the in-run figure, as the traced run's report gives
	# it, with no baseline.
	echo "interf_gain_spearman: $(spearman 8)"
	echo "interf_gain_mae: $(mae 8)"
	! has io || echo "interf_io_mae: $(mae 8 io)"
	! has pool || echo "interf_pool_mae: $(mae 8 pool)"
	echo "interf_bound_points: $(count '$11 == "none"')"
	echo "interf_weak_points: $(count '$16 == "true"')"
fi
# The I/O configs against the gain measured traced (traced_gain): how far
# the figures are from what the traced program lost, apart from the
# tracer's own effect on the comparison.
if has io; then
	awk '$1 == "io" && $12 != "-" {
		d = $8 - $12; e += d < 0 ? -d : d
		d = $3 - $12; es += d < 0 ? -d : d
		d = $12 - $6; t += d; n++ }
	     END { if (n) printf "interf_io_traced_gain_mae: %.3f\nsci_io_traced_gain_mae: %.3f\nio_traced_gain_excess: %.3f\n",
			 e / n, es / n, t / n }' "$tmp/points"
fi
if [ -s "$tmp/points" ]; then
	# Where the figure had a reference (gated or solo calls, or the
	# fit): its error, and SCI's on the same configs.
	awk '$11 != "none" {
		d = $8 - $6; e += d < 0 ? -d : d
		d = $3 - $6; es += d < 0 ? -d : d; n++ }
	     END { printf "interf_referenced_mae: %.3f\nsci_referenced_mae: %.3f\n",
			  n ? e / n : 0, n ? es / n : 0 }' "$tmp/points"
	echo "interf_floor_gain_mae: $(mae 10)"
	# The same with --baseline: each config's recording reported
	# against a recording of its program with one thread.
	echo "interf_baseline_gain_spearman: $(spearman 13)"
	echo "interf_baseline_gain_mae: $(mae 13)"
	! has io || echo "interf_baseline_io_mae: $(mae 13 io)"
	! has pool || echo "interf_baseline_pool_mae: $(mae 13 pool)"
	echo "interf_baseline_bound_points: $(count '$15 == "none"')"
	# And as a user who follows the in-run report's advice reads it.
	echo "interf_baseline_advised_gain_spearman: $(spearman 17)"
	echo "interf_baseline_advised_gain_mae: $(mae 17)"
	! has io || echo "interf_baseline_advised_io_mae: $(mae 17 io)"
	echo "interf_baseline_advised_bound_points: $(count '$18 == 1')"
fi
# Per cause, as notes: how well the SCI predicts the gain itself (T
# falls as 1/T in the gain, so rho against T understates a wide sweep).
# cause_error CAUSE COLUMN LABEL: how far COLUMN lies from the actual
# gain over CAUSE's configs, as a '# ' note.
cause_error() {
	awk -v c="$1" -v k="$2" -v l="$3" '$1 == c { d = $k - $6
		e += d < 0 ? -d : d; b += d; n++ }
	END { printf "# %s: %s: mean error %.3f, mean |error| %.3f over " \
		    "%d configs\n", c, l, b / n, e / n, n }' "$tmp/points"
}
for c in lock spinlock io pool; do
	has "$c" || continue
	g=$(awk -v c="$c" '$1 == c { print $3, $6 }' "$tmp/points" |
	    awk "$pearson")
	w=$(awk -v c="$c" '$1 == c && $16 == "true"' "$tmp/points" | wc -l)
	nb=$(awk -v c="$c" '$1 == c && $11 == "none"' "$tmp/points" | wc -l)
	cause_error "$c" 3 "SCI, rho(SCI, actual gain) $g"
	cause_error "$c" 8 "interference in-run ($nb only a bound)"
	cause_error "$c" 13 "with the baseline"
	cause_error "$c" 17 "as the report advises (the baseline for $w)"
done
awk '$7 != "-" { print $7 }' "$tmp/points" >"$tmp/noise"
if [ -s "$tmp/noise" ]; then
	printf 'noise_sci_private: %.4f\n' "$(median <"$tmp/noise")"
	printf 'noise_sci_private_max: %.4f\n' "$(sort -g "$tmp/noise" | tail -n1)"
fi

# solo RUN-NAME FUNC CMD...: one single-threaded run; appends "name sci
# interference" of FUNC to $tmp/solo.
solo() {
	name=$1 func=$2
	shift 2
	if ! ispotctl run --func "$func" --json -o "$tmp/solo.json" -- "$@" \
		>/dev/null 2>"$tmp/err"; then
		sed 's/^/# ispotctl: /' "$tmp/err"
		return 1
	fi
	echo "$name $(fn_sci "$tmp/solo.json" "$func") $(fn_interf "$tmp/solo.json" "$func")" |
		tee -a "$tmp/solo" | awk '{
		printf "# solo %-22s sci %s  interf %s%s\n", $1, $2,
		       $4 == 1 ? "<=" : "", $3 }'
}
: >"$tmp/solo"
if want solo; then
	solo varied_work/spin varied_work "$s/varied_work" --threads 1 \
		--iterations 1000 --delay-us 400
	solo varied_work/sleep varied_work "$s/varied_work" --threads 1 \
		--iterations 1000 --delay-us 400 --sleep
	if grep -q ' /mnt ' /proc/mounts &&
	   dd if=/dev/zero of="$io_file" bs=1M count=16 2>/dev/null && sync; then
		solo io_contention/1 read_block "$s/io_contention" --threads 1 \
			--iterations "$io_iters" --file "$io_file"
		rm -f "$io_file"
	fi
fi
if [ -s "$tmp/solo" ]; then
	echo "solo_false_positive_max: $(awk '{ print $3 }' "$tmp/solo" |
		sort -g | tail -n1)"
	echo "solo_sci_min: $(awk '{ print $2 }' "$tmp/solo" | sort -g |
		head -n1)"
fi

# external_run: no_contention's compute() with spinning work; prints
# "figure floor external_ns loss_ns" of compute.
external_run() {
	ispotctl run --func compute --key compute=arg0 --json \
		-o "$tmp/ext.json" -- "$s/no_contention" --threads 2 \
		--iterations 300 --delay-us 1000 >/dev/null 2>"$tmp/err" ||
		{ sed 's/^/# ispotctl: /' "$tmp/err"; return 1; }
	er_f=$(fn_interf "$tmp/ext.json" compute)
	echo "${er_f% *} $(fn_field "$tmp/ext.json" compute interference)" \
	     "$(fn_field "$tmp/ext.json" compute external_ns)" \
	     "$(fn_field "$tmp/ext.json" compute loss_ns)"
}
if want external; then
	quiet=$(external_run)
	# The hog: two busy loops of another process, one per vCPU.
	hogs=
	for _ in 1 2; do
		sh -c 'while :; do :; done' &
		hogs="$hogs $!"
	done
	hog=$(external_run)
	# shellcheck disable=SC2086
	kill $hogs
	if [ -n "$quiet" ] && [ -n "$hog" ]; then
		echo "$quiet" | awk '{ printf "# external: quiet: interf %s (floor %s), external %s ns, loss %s ns\n", $1, $2, $3, $4 }'
		echo "$hog" | awk '{ printf "# external: with a hog: interf %s (floor %s), external %s ns, loss %s ns\n", $1, $2, $3, $4 }'
		echo "external_interf_quiet: ${quiet%% *}"
		echo "external_interf_hog: ${hog%% *}"
		awk -v a="${quiet%% *}" -v b="${hog%% *}" 'BEGIN {
			d = b - a; printf "external_interf_delta: %.4f\n", d }'
		echo "$hog" | awk '{ printf "external_share: %.3f\n",
			($4 > 0 ? $3 / $4 : 0) }'
	fi
fi

# gate_run FILE [OPTION...]: the gate's pool traced by `ispotctl run`
# with OPTIONs, its JSON report into FILE; prints the program's own run
# time in seconds (its line "... in S s, ..."), or nothing.
gate_run() {
	gr_json=$1
	shift
	# shellcheck disable=SC2086
	ispotctl run --func varied_lock_work "$@" --json -o "$gr_json" -- \
		"$s/pool_varied" --threads "$gate_threads" \
		--iterations "$pool_iters" --delay-us "$pool_unit_us" \
		$work_opt --private-locks 2>"$tmp/err" |
		sed -n 's/^pool_varied: .* in \([0-9.]*\) s,.*/\1/p'
}
if want gate; then
	: >"$tmp/g_on"
	: >"$tmp/g_off"
	r=0
	# Alternating, so that a slow phase of the host hits both, and each
	# first every other time (on, off, off, on, ...), so that neither
	# always runs after the other.
	while [ "$r" -lt "$gate_reps" ]; do
		r=$((r + 1))
		if [ $((r % 2)) = 0 ]; then
			off=$(gate_run "$tmp/gate_off.json" --solo-blocks 0)
			[ -n "$off" ] || sed 's/^/# ispotctl: /' "$tmp/err"
		fi
		on=$(gate_run "$tmp/gate_on.json")
		[ -n "$on" ] || sed 's/^/# ispotctl: /' "$tmp/err"
		if [ $((r % 2)) = 1 ]; then
			off=$(gate_run "$tmp/gate_off.json" --solo-blocks 0)
			[ -n "$off" ] || sed 's/^/# ispotctl: /' "$tmp/err"
		fi
		[ -n "$on" ] && [ -n "$off" ] || continue
		echo "$on" >>"$tmp/g_on"
		echo "$off" >>"$tmp/g_off"
		echo "# gate: $gate_threads threads, blocks on ${on} s, off ${off} s"
		blocks_note "$tmp/gate_on.json"
	done
	if [ -s "$tmp/g_on" ]; then
		awk -v a="$(median <"$tmp/g_on")" -v b="$(median <"$tmp/g_off")" \
			'BEGIN { printf "gate_cost: %.4f\n", (b > 0 ? a / b : 0) }'
	fi
fi
rm -rf "$tmp"
