#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ispotd --listen on the host, the real daemon and real clients (curl,
# bash's /dev/tcp, promtool): /metrics and its format, the errors that
# stop the daemon before it serves, and clients that are too big, too
# many or silent.  The host has no ispot.ko: the daemon serves anyway,
# with ispot_targets 0 (the guest's ispotd_metrics_test.sh has targets).
set -u
cd "$(dirname "$0")/../.."
. selftests/kmod/tap.sh
tmpdir_setup
. selftests/kmod/ispotd_lib.sh

pids=()
cleanup() {
	local p
	for p in ${pids[@]+"${pids[@]}"}; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
}
at_exit cleanup

require_cmd curl promtool
require_file user/ispotd make

tap_plan 13

families="ispot_targets:gauge ispot_events_total:counter
ispot_duty_cycle:gauge ispot_overhead_estimate:gauge
ispot_calls_total:counter ispot_loss_seconds_total:counter
ispot_observed_seconds_total:counter ispot_sci:gauge
ispot_duration_seconds:histogram"

# A loopback port nothing listens on (others run tests on this host too).
free_port() {
	local p i
	for i in $(seq 100); do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

serving() {	# serving HOSTPORT: GET /metrics answers 200
	[ "$(curl -g -s -o /dev/null -w '%{http_code}' --max-time 5 \
		"http://$1/metrics")" = 200 ]
}

# start_daemon ADDR [ARGS...]: ispotd watching an executable that never
# runs, serving ADDR; its pid in $dpid, stderr in $tmp/daemon.err.
start_daemon() {
	local addr=$1
	shift
	user/ispotd --exe /nonexistent/ispot-listen-test --func f \
		--window 2s --log "$tmp/windows.jsonl" --listen "$addr" "$@" \
		2>"$tmp/daemon.err" &
	dpid=$!
	pids+=("$dpid")
	wait_for 20 serving "$addr" ||
		{ echo "# ispotd never served $addr"; sed 's/^/# /' "$tmp/daemon.err"; return 1; }
}

alive() {	# alive PID: still running (not a zombie either)
	[ -d "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status"
}

port=$(free_port) || { echo "# no free port"; tap_done; }
addr=127.0.0.1:$port
start_daemon "$addr"
main=$dpid

# --- /metrics: 200, the type, and every family's HELP and TYPE ----------
metrics_ok() {
	local f name type
	curl -s -D "$tmp/head" -o "$tmp/body" "http://$addr/metrics" || return 1
	tr -d '\r' <"$tmp/head" >"$tmp/h"
	grep -q '^HTTP/1.1 200 ' "$tmp/h" &&
	grep -qx 'Content-Type: text/plain; version=0.0.4; charset=utf-8' \
		"$tmp/h" ||
		{ sed 's/^/# /' "$tmp/h"; return 1; }
	for f in $families; do
		name=${f%:*}
		type=${f#*:}
		grep -q "^# HELP $name " "$tmp/body" &&
		grep -qx "# TYPE $name $type" "$tmp/body" ||
			{ echo "# no HELP/TYPE for $name"; return 1; }
	done
	# No module here: nothing traced, and the daemon serves all the same.
	grep -qx 'ispot_targets 0' "$tmp/body"
}
tap_check metrics_200_with_content_type_help_and_type metrics_ok

# --- promtool: the live text, and one with every kind of series --------
promtool_ok() {
	promtool check metrics <"$tmp/body" >"$tmp/lint" 2>&1 ||
		{ sed 's/^/# live: /' "$tmp/lint"; return 1; }
	ISPOT_METRICS_SAMPLE=$tmp/full.prom \
		selftests/unit/daemon/test_daemon_metrics >/dev/null &&
		grep -q '^ispot_duration_seconds_bucket{.*le="+Inf"}' \
			"$tmp/full.prom" || return 1
	promtool check metrics <"$tmp/full.prom" >"$tmp/lint" 2>&1 ||
		{ sed 's/^/# full: /' "$tmp/lint"; return 1; }
}
tap_check promtool_check_metrics_accepts_it promtool_ok

# --- other paths and methods ----------------------------------------
status_of() {	# status_of CURL_ARGS...: the HTTP status
	curl -g -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"
}
paths_ok() {
	local s
	s=$(status_of "http://$addr/other") && [ "$s" = 404 ] ||
		{ echo "# /other: $s"; return 1; }
	s=$(status_of -X POST "http://$addr/metrics") && [ "$s" = 405 ] ||
		{ echo "# POST: $s"; return 1; }
	s=$(status_of "http://$addr/metrics?name=x") && [ "$s" = 200 ] ||
		{ echo "# query: $s"; return 1; }
	# HEAD: the head only
	[ -z "$(curl -s --max-time 5 -I "http://$addr/metrics" |
		sed '1,/^\r$/d')" ]
}
tap_check other_path_404_post_405_head paths_ok

# --- IPv6 loopback ------------------------------------------------------
ipv6_ok() {
	local p6
	p6=$(free_port) || return 1
	start_daemon "[::1]:$p6" || return 1
	stop_daemon "$dpid"
}
if ip -6 addr show lo 2>/dev/null | grep -q '::1/128'; then
	tap_check ipv6_loopback_serves ipv6_ok
else
	tap_skip ipv6_loopback_serves "no ::1 on this host"
fi

# --- errors before serving: one line, and nothing left running ----------
daemon_fails() {	# daemon_fails STATUS REGEX ARGS...
	local want=$1 re=$2
	shift 2
	run_status "$want" timeout 20 user/ispotd --exe /nonexistent/x \
		--func f "$@" || return 1
	one_line_daemon_err "$re"
}
tap_check port_in_use_one_line_exit_1 \
	daemon_fails 1 "cannot listen on $addr: the port is in use" \
	--listen "$addr"
# 192.0.2.1: TEST-NET-1 (RFC 5737), an address no host has.
tap_check unbindable_address_one_line_exit_1 \
	daemon_fails 1 "cannot listen on 192.0.2.1:$port: no interface" \
	--listen "192.0.2.1:$port"

# A link-local address binds only with its interface; without, one line.
link_local_ok() {
	local p6 ll=$1 ifname=$2
	p6=$(free_port) || return 1
	daemon_fails 1 "needs its interface, e.g. .fe80::1%eth0.:$p6" \
		--listen "[fe80::1]:$p6" || return 1
	start_daemon "[$ll%$ifname]:$p6" || return 1
	stop_daemon "$dpid"
}
# /proc/net/if_inet6: 32 hex digits, index, prefix, scope (20: link), flags, name.
read -r ll_hex _ _ _ _ ll_if < <(awk '$4 == "20" { print; exit }' \
	/proc/net/if_inet6 2>/dev/null)
if [ -n "${ll_if:-}" ]; then
	ll=$(sed 's/..../&:/g; s/:$//' <<<"$ll_hex")
	tap_check link_local_needs_its_interface link_local_ok "$ll" "$ll_if"
else
	tap_skip link_local_needs_its_interface "no link-local IPv6 address on this host"
fi

bad_listen() {
	daemon_fails 2 "--listen '127.0.0.1' lacks a port" \
		--listen 127.0.0.1 || return 1
	daemon_fails 2 "--listen '9464' lacks an address" \
		--listen 9464 || return 1
	printf 'exe /nonexistent/x\nfunc f\nlisten localhost\n' \
		>"$tmp/bad.conf"
	daemon_fails 2 "bad.conf:3: listen 'localhost' lacks a port" \
		--config "$tmp/bad.conf" || return 1
	daemon_fails 1 "'300.1.2.3' is neither an IP address" \
		--listen 300.1.2.3:9464
}
tap_check listen_without_port_or_address_is_one_line bad_listen

# --- a 1 MiB request line: refused, and the daemon goes on --------------
huge_request() {
	local line
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
	# The daemon answers after 8 KiB; the rest may meet a closed socket.
	( { printf 'GET /'; head -c 1048576 /dev/zero | tr '\0' a
	    printf ' HTTP/1.1\r\nHost: x\r\n\r\n'; } >&3 ) 2>/dev/null
	line=$(timeout 10 head -n1 <&3 | tr -d '\r')
	exec 3<&-
	echo "# answer: ${line:-(closed)}"
	case "$line" in
	"" | "HTTP/1.1 414 "* | "HTTP/1.1 431 "* | "HTTP/1.1 400 "*) ;;
	*) return 1 ;;
	esac
	alive "$main" && serving "$addr"
}
tap_check huge_request_line_refused_still_serves huge_request

# --- 200 connections at once --------------------------------------------
# All from 127.0.0.1, one peer: at most its 32 of the pool (http.h,
# HTTP_MAX_PER_PEER) are kept, and a scrape still gets through.
nr_fds() { ls "/proc/$1/fd" | wc -l; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
many_connections() {
	local fds=() fd i before during rss0 rss1 ok=0
	before=$(nr_fds "$main")
	rss0=$(rss_kib "$main")
	for i in $(seq 200); do
		exec {fd}<>"/dev/tcp/127.0.0.1/$port" || break
		fds+=("$fd")
	done
	# While they are all open: a scrape still gets through.
	serving "$addr" && ok=1
	during=$(nr_fds "$main")
	rss1=$(rss_kib "$main")
	for fd in "${fds[@]}"; do
		exec {fd}<&-
	done
	echo "# ${#fds[@]} connections: fds $before -> $during, RSS ${rss0} -> ${rss1} KiB"
	[ "${#fds[@]}" -eq 200 ] && [ "$ok" = 1 ] && alive "$main" &&
		[ "$during" -le $((before + 32)) ] &&
		[ "$rss1" -le $((rss0 + 4096)) ] && serving "$addr"
}
tap_check many_connections_bounded_and_served many_connections

# --- a client that never sends --------------------------------------
silent_client() {
	local t0 t1 line served=0
	exec 4<>"/dev/tcp/127.0.0.1/$port" || return 1
	t0=$(date +%s%N)
	# Meanwhile, others are served.
	serving "$addr" && serving "$addr" && served=1
	line=$(timeout 15 head -n1 <&4 | tr -d '\r')
	t1=$(date +%s%N)
	exec 4<&-
	echo "# silent client: '${line}' after $(((t1 - t0) / 1000000)) ms"
	[ "$served" = 1 ] && [ "${line#HTTP/1.1 408 }" != "$line" ] &&
		[ $((t1 - t0)) -ge 3000000000 ]
}
tap_check silent_client_dropped_after_timeout silent_client

# --- SIGHUP: another --listen is bound, a bad one keeps the old ---------
sighup_rebind() {
	local p1 p2
	p1=$(free_port) && p2=$(free_port) || return 1
	printf 'exe /nonexistent/x\nfunc f\nlisten 127.0.0.1:%s\n' "$p1" \
		>"$tmp/hup.conf"
	user/ispotd --config "$tmp/hup.conf" 2>"$tmp/hup.err" &
	dpid=$!
	pids+=("$dpid")
	wait_for 20 serving "127.0.0.1:$p1" || return 1
	printf 'exe /nonexistent/x\nfunc f\nlisten 127.0.0.1:%s\n' "$p2" \
		>"$tmp/hup.conf"
	kill -HUP "$dpid"
	wait_for 20 serving "127.0.0.1:$p2" || return 1
	! serving "127.0.0.1:$p1" || { echo "# $p1 still served"; return 1; }
	# The main daemon's port: taken.  The old socket stays.
	printf 'exe /nonexistent/x\nfunc f\nlisten %s\n' "$addr" \
		>"$tmp/hup.conf"
	kill -HUP "$dpid"
	wait_for 20 grep -q "still serving on 127.0.0.1:$p2" "$tmp/hup.err" ||
		{ sed 's/^/# /' "$tmp/hup.err"; return 1; }
	grep "still serving" "$tmp/hup.err" | sed 's/^/# /'
	serving "127.0.0.1:$p2" && stop_daemon "$dpid"
}
tap_check sighup_rebinds_or_keeps_the_old_socket sighup_rebind

# --- SIGTERM: exit 0, the port free, nothing left -------------------
sigterm_ok() {
	local p
	stop_daemon "$main" || { echo "# exit $?"; return 1; }
	! serving "$addr" || return 1
	for p in "${pids[@]}"; do
		! alive "$p" || { echo "# pid $p still running"; return 1; }
	done
}
tap_check sigterm_exits_0_nothing_left_running sigterm_ok
tap_done
