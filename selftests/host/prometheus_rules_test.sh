#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The recording and alerting rules shipped for ispotd's metrics
# (user/daemon/ispotd.rules.yml) pass Debian's promtool: "check rules",
# and "test rules" on the series of prometheus_rules_test.yml, which say
# what each rule must compute and when each alert must fire.  Every metric
# the rules read is one ispotd writes, so renaming a metric fails here, and
# a wrong expectation is caught (the test runs promtool on a copy with one
# value changed and wants it to fail).
cd "$(dirname "$0")/../.." || exit 1
. selftests/kmod/tap.sh

rules=user/daemon/ispotd.rules.yml
tests=selftests/host/prometheus_rules_test.yml
tmpdir_setup ispot-rules

tap_plan 4
if ! command -v promtool >/dev/null; then
	for t in check test metrics catches; do
		tap_skip "rules_$t" "no promtool (scripts/deps.sh installs prometheus)"
	done
	exit 4
fi

out() { sed 's/^/# /' "$tmp/out"; }

t_check() { promtool check rules "$rules" >"$tmp/out" 2>&1 || { out; return 1; }; }
tap_check rules_pass_promtool_check t_check

t_test() {
	(cd "$(dirname "$tests")" && promtool test rules "$(basename "$tests")") \
		>"$tmp/out" 2>&1 || { out; return 1; }
}
tap_check rules_compute_and_fire_as_their_tests_say t_test

# Every ispot_* metric the rules read is written by ispotd.
t_metrics() {
	missing=
	for m in $(grep -v '^ *#' "$rules" | grep -o 'ispot_[a-z_]*' | grep -v ':' | sort -u); do
		case "$m" in
		ispot_loss_seconds|ispot_sci|ispot_interference|ispot_external|ispot_events_dropped) continue ;; # recording rule parts
		esac
		grep -rqE "\"$m[\" {]" user/daemon user/lib || missing="$missing $m"
	done
	[ -z "$missing" ] || { echo "# read by the rules, written by no one:$missing"; return 1; }
}
tap_check rules_read_only_metrics_ispotd_writes t_metrics

# The tests can fail: one expected SCI changed, promtool must object.
t_catches() {
	mkdir -p "$tmp/selftests/host" "$tmp/user/daemon"
	cp "$rules" "$tmp/user/daemon/"
	sed 's/^            value: 0.5$/            value: 0.4/' "$tests" \
		>"$tmp/selftests/host/t.yml"
	cmp -s "$tests" "$tmp/selftests/host/t.yml" && { echo "# nothing changed"; return 1; }
	! (cd "$tmp/selftests/host" && promtool test rules t.yml) >/dev/null 2>&1
}
tap_check rules_tests_catch_a_wrong_value t_catches
tap_done
