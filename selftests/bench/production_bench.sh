#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench BENCH=production, in the guest: what ispotd costs a target.
#
# Runs of samples/lock_contention alternate, in this one boot: untraced,
# under `ispotd --budget 1%`, and under always-armed tracing (`ispotd
# --budget 0`).  Each run is one long process, so that the budget's
# controller has time to learn it.  Figures (`name: value`):
#   production_overhead_ratio  budget / untraced, median of the rounds
#   armed_overhead_ratio       always armed / untraced, median
#   production_duty_cycle      armed share of the budget runs' windows
#   production_overhead_estimate_max  the highest window estimate ispotd made
#   production_rank_ok         1 if acquire (the contended lock) ranks above
#                              compute (the uncontended work) under the budget
#   ispotd_rss_mib             ispotd's RSS after a target ended
#                              CHURN_THREADS threads, always armed
. "$(dirname "$0")/bench_lib.sh"
s=/ispot/samples
tmp=$(mktemp -d)
rounds=${ROUNDS:-3}
iters=${ITERS:-100000}
churn_rounds=${CHURN_ROUNDS:-5000}

work() {
	"$s/lock_contention" --delay-us 100 --hold-us 100 --threads 2 \
		--iterations "$iters" >/dev/null
}
# daemon BUDGET LOG: ispotd on every lock_contention, in the background.
daemon() {
	ispotd --exe "$s/lock_contention" --func acquire --func compute \
		--budget "$1" --window 10s --log "$2" 2>>"$tmp/ispotd.err" &
	dpid=$!
	sleep 2
}

: >"$tmp/ratios_b"
: >"$tmp/ratios_a"
r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	none=$(elapsed work)
	daemon 1% "$tmp/b.jsonl"
	budget=$(elapsed work)
	kill -TERM "$dpid"; wait "$dpid"
	daemon 0 "$tmp/a.jsonl"
	armed=$(elapsed work)
	kill -TERM "$dpid"; wait "$dpid"
	echo "# round $r: untraced ${none}s, budget 1% ${budget}s, always armed ${armed}s"
	awk -v a="$budget" -v n="$none" 'BEGIN { print a / n }' >>"$tmp/ratios_b"
	awk -v a="$armed" -v n="$none" 'BEGIN { print a / n }' >>"$tmp/ratios_a"
done
sed 's/^/# ispotd: /' "$tmp/ispotd.err" | sort | uniq -c | head -20

printf 'production_overhead_ratio: %.4f\n' "$(median <"$tmp/ratios_b")"
printf 'armed_overhead_ratio: %.4f\n' "$(median <"$tmp/ratios_a")"
# Windows: armed time over window time, summed over every budget window.
awk '{
	if (match($0, /"window_ns": [0-9]+/)) w += substr($0, RSTART + 13, RLENGTH - 13)
	if (match($0, /"armed_ns": [0-9]+/)) a += substr($0, RSTART + 12, RLENGTH - 12)
} END { printf "production_duty_cycle: %.4f\n", w ? a / w : 0 }' "$tmp/b.jsonl"
awk '{
	if (match($0, /"overhead_estimate": [0-9.e+-]+/)) {
		v = substr($0, RSTART + 21, RLENGTH - 21)
		if (v > m) m = v
	}
} END { printf "production_overhead_estimate_max: %.4f\n", m }' "$tmp/b.jsonl"

# Rank: each function's loss over its observed thread time, all windows.
rank=$(tr ',{}[]' '\n\n\n\n\n' <"$tmp/b.jsonl" | awk '
	/^ *"totals":/ { tot = 1 }
	/^ *"time":/ { tot = 0 }
	/^ *"name": / { n = $2; gsub(/"/, "", n); take = !tot; loss = -1; next }
	take && /^ *"loss_ns":/ && loss < 0 { loss = $2 }
	take && /^ *"sci":/ { if ($2 > 0) { L[n] += loss; T[n] += loss / $2 }; take = 0 }
	END {
		a = T["acquire"] ? L["acquire"] / T["acquire"] : 0
		c = T["compute"] ? L["compute"] / T["compute"] : 0
		printf "# under the budget: acquire SCI %.4f, compute SCI %.4f\n", a, c > "/dev/stderr"
		print (a > c && a > 0) ? 1 : 0
	}')
echo "production_rank_ok: $rank"

ispotd --exe "$s/thread_churn" --func churn_request --budget 0 \
	--window 5s --log /dev/null 2>/dev/null &
dpid=$!
sleep 2
"$s/thread_churn" --threads 4 --rounds "$churn_rounds" >/dev/null
rss=$(awk '/VmRSS/ { print $2 }' "/proc/$dpid/status")
kill -TERM "$dpid"; wait "$dpid"
echo "# thread churn: $((4 * churn_rounds)) threads"
awk -v k="$rss" 'BEGIN { printf "ispotd_rss_mib: %.2f\n", k / 1024 }'
rm -rf "$tmp"
