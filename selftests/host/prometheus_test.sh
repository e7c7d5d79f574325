#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A real Prometheus server on the host scrapes ispotd in the guest.
#
# The VM (6.1, multi-threaded TCG: the two samples need two vCPUs) runs
# prometheus_guest.sh: ispotd --listen 0.0.0.0:9464 traces acquire in
# lock_contention and no_contention, and run.sh --forward makes it
# 127.0.0.1:PORT here.  /usr/bin/prometheus, started with a config of our
# own on a free port (never a system instance on :9090), scrapes it every
# second; its HTTP API then has to answer the contract's queries: the SCI
# expression ranks lock_contention's acquire above no_contention's, the
# dropped-events series exists, up is 1.  promtool checks a /metrics body
# fetched through the forward.  Prometheus is stopped by its pid, the VM
# is told to finish (and killed by its process group if it does not), and
# the temporary directory goes.
#
# The guest is 50-100 times slower than hardware: only the ranking within
# this run is asserted, never a value.  The two SCIs are printed as TAP
# comments (Documentation/evaluation.rst).  The ranking holds only if the
# lock sample's threads really contended: the samples' own figures
# (selftests/kmod/tap.sh, tap_parallel) are fetched from the guest, and
# the check is skipped, with them, when the host kept that from happening.
cd "$(dirname "$0")/../.." || exit 1
. selftests/kmod/tap.sh
. selftests/vm/ports.sh

# The whole test's bound: the boot, ispotd's calibration and the scrapes
# take about a minute on an idle machine.
guest_limit=420
tmpdir_setup ispot-prom
vm=
prom=
cleanup() {
	[ -z "$prom" ] || { kill "$prom" 2>/dev/null; wait "$prom" 2>/dev/null; }
	[ -z "$vm" ] || { kill -- -"$vm" 2>/dev/null; wait "$vm" 2>/dev/null; }
}
at_exit cleanup

tap_plan 10

# --- tools, ports, the VM and the server --------------------------------
t_tools() {
	local t
	for t in prometheus promtool curl jq; do
		command -v "$t" >/dev/null ||
			{ echo "# $t is missing; run scripts/deps.sh"; return 1; }
	done
	[ -x user/ispotd ] && [ -f kmod/ispot.ko ] ||
		{ echo "# ispotd or ispot.ko is not built; run make"; return 1; }
}
tap_check "tools_and_build_present" t_tools
[ $tap_fail -eq 0 ] || exit 1

ports=$(port_pick 3) || exit 1
{ read -r metrics_port; read -r control_port; read -r web_port; } <<<"$ports"

# setsid: the runner, its timeout and QEMU form one process group, which
# cleanup can end as a whole if the guest never finishes.
start_vm() {
	setsid nice selftests/vm/run.sh --kernel 6.1 --tcg multi \
		--timeout $((guest_limit + 120)) \
		--forward "$metrics_port:9464" \
		--forward "$control_port:8080" \
		-- sh selftests/host/prometheus_guest.sh "$guest_limit" \
		>"$tmp/vm.out" 2>&1 &
	vm=$!
}
start_vm

cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ispotd
    static_configs:
      - targets: ['127.0.0.1:$metrics_port']
EOF
prometheus --config.file="$tmp/prometheus.yml" \
	--storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$web_port" \
	--log.level=warn >"$tmp/prometheus.log" 2>&1 &
prom=$!

# until SECONDS CMD...: CMD succeeds within SECONDS, while the VM runs.
until_ok() {
	local n=$1
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		kill -0 "$vm" 2>/dev/null || { "$@"; return; }
		sleep 1
		n=$((n - 1))
	done
	return 1
}

# query PROMQL: one "labels value" line per series (labels: exe, function
# when present, else the job), from the server's HTTP API.
query() {
	curl -sf --max-time 10 "http://127.0.0.1:$web_port/api/v1/query" \
		--data-urlencode "query=$1" |
		jq -r '.data.result[] |
			"\(.metric.exe // .metric.job // "-"):\(.metric.function // "-") \(.value[1])"'
}

prom_ready() {
	curl -sf --max-time 5 "http://127.0.0.1:$web_port/-/ready" >/dev/null
}
t_prom_ready() {
	until_ok 60 prom_ready ||
		{ sed 's/^/# prometheus: /' "$tmp/prometheus.log"; return 1; }
}
tap_check "prometheus_server_ready" t_prom_ready

# --- /metrics through the forward -------------------------------------
# Ready once both targets have a function with observed time: a window
# with armed calls of each has closed.
body_has_both() {
	curl -sf --max-time 10 "http://127.0.0.1:$metrics_port/metrics" \
		>"$tmp/metrics.txt" || return 1
	grep -q '^ispot_observed_seconds_total{.*exe="lock_contention".*function="acquire"' \
		"$tmp/metrics.txt" &&
		grep -q '^ispot_observed_seconds_total{.*exe="no_contention".*function="acquire"' \
			"$tmp/metrics.txt"
}
# A multi-threaded boot that timed out before its command: QEMU's text
# patching (Documentation/design.rst, "Text patching under TCG") wedged
# insmod once here (a soft lockup of 425 s); no test had begun.  It is
# booted once more, as make check boots a kernel that wedged before its
# guest was set up.
wedged_before_command() {
	wait "$vm"
	grep -Eq 'vm: FAIL: timeout after [0-9]+s, (before the guest was set up|while the module loaded, before the command)' \
		"$tmp/vm.out" || return 1
	grep 'vm: FAIL' "$tmp/vm.out" | sed 's/^/# first boot: /'
	echo "# booting the guest once more"
	start_vm
}
t_metrics() {
	until_ok "$guest_limit" body_has_both ||
		{ wedged_before_command &&
		  until_ok "$guest_limit" body_has_both; } ||
		{ echo "# /metrics never had both targets"; sed 's/^/# vm: /' "$tmp/vm.out";
		  head -n 20 "$tmp/metrics.txt" 2>/dev/null | sed 's/^/# metrics: /'; return 1; }
}
tap_check "metrics_of_both_targets_through_forward" t_metrics

t_promtool() {
	promtool check metrics <"$tmp/metrics.txt" >"$tmp/promtool.out" 2>&1 ||
		{ sed 's/^/# promtool: /' "$tmp/promtool.out"; return 1; }
}
tap_check "promtool_check_metrics" t_promtool

# --- what the server scraped ------------------------------------------
sci_query='sum by (exe,function) (rate(ispot_loss_seconds_total[30s])) / sum by (exe,function) (rate(ispot_observed_seconds_total[30s]))'
# sci EXE: the SCI of EXE's acquire from the server, a number (not NaN).
sci() {
	query "$sci_query" | awk -v want="$1:acquire" '
		$1 == want && $2 ~ /^[0-9.e+-]+$/ { print $2; found = 1 }
		END { exit !found }'
}
both_scis() {
	sci lock_contention >"$tmp/sci.lock" && sci no_contention >"$tmp/sci.nolock"
}
# 20 s of scrapes after both series appear, so that the 30 s rate covers
# several windows of each target.
t_sci() {
	until_ok 120 both_scis || { echo "# no SCI for both targets:"; query "$sci_query" |
		sed 's/^/# /'; return 1; }
	sleep 20
	both_scis || return 1
	lock=$(cat "$tmp/sci.lock")
	nolock=$(cat "$tmp/sci.nolock")
	echo "# PromQL SCI of acquire: lock_contention $lock, no_contention $nolock"
	curl -s --max-time 20 "http://127.0.0.1:$control_port/cgi-bin/stats" |
		sed -n 1p >"$tmp/lock_contention.par"
	lt "$nolock" "$lock"
}
par_need contended "$tmp/lock_contention.par"
tap_parallel "promql_sci_ranks_lock_contention_first" t_sci

# Over the last minute, not at this instant: a scrape that failed (the
# guest is slow, and the host may be shared; half of them failed in one
# loaded run) marks every series stale, and an instant query then finds
# none.
t_dropped() {
	local out
	out=$(query 'last_over_time(ispot_events_total{outcome="dropped"}[1m])')
	sed 's/^/# dropped: /' <<<"$out"
	grep -q '^lock_contention:' <<<"$out" && grep -q '^no_contention:' <<<"$out"
}
tap_check "events_dropped_series_exists" t_dropped

# up is 1 now; the share of good scrapes is printed (the guest is slow and
# the host shared: one scrape may miss its 1 s timeout, so "now" may take
# a few seconds).
up_now() { [ "$(query 'up{job="ispotd"}')" = "ispotd:- 1" ]; }
t_up() {
	query 'sum_over_time(up{job="ispotd"}[30s]) / count_over_time(up{job="ispotd"}[30s])' |
		sed 's/^ispotd:- /# share of good scrapes, last 30 s: /'
	until_ok 10 up_now || { echo "# up: $(query 'up{job="ispotd"}')"; return 1; }
}
tap_check "scrape_target_up" t_up

# --- stopping: Prometheus by pid, the VM by asking the guest ------------
t_prom_stopped() {
	kill "$prom" && wait "$prom"
	local rc=$?
	prom=
	# 0: a clean shutdown on SIGTERM.
	[ "$rc" -eq 0 ] && ! port_listening "$web_port" ||
		{ echo "# prometheus exit $rc"; sed 's/^/# /' "$tmp/prometheus.log"; return 1; }
}
tap_check "prometheus_stopped_by_pid" t_prom_stopped

t_vm_clean() {
	curl -s --max-time 10 "http://127.0.0.1:$control_port/cgi-bin/done" >/dev/null
	wait "$vm"
	local rc=$?
	vm=
	grep '^guest: ' "$tmp/vm.out" | sed 's/^/# /'
	[ "$rc" -eq 0 ] || { echo "# run.sh exit $rc"; tail -n 20 "$tmp/vm.out" |
		sed 's/^/# /'; return 1; }
}
tap_check "vm_and_ispotd_exit_cleanly" t_vm_clean

t_nothing_left() {
	! port_listening "$metrics_port" && ! port_listening "$control_port" &&
		! port_listening "$web_port"
}
tap_check "nothing_left_listening" t_nothing_left
tap_done
