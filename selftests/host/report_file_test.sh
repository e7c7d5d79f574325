#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `ispotctl report FILE` on the host, as a user runs it: no module, no
# root.  The recordings of each older format in the unit tests' fixtures
# are reported, text and JSON; a report that cannot be written (stdout on
# a full disk) is one line with the disk's error and exit 1, never a
# second line ("cannot write the output: Success"); an empty file, as a
# record killed before it traced leaves, and a missing one are one line
# each, exit 1.
set -u
cd "$(dirname "$0")/../.."
. selftests/kmod/tap.sh
tmpdir_setup

require_file user/ispotctl make
fixtures=selftests/unit/recording/fixtures

tap_plan 4

reported() {
	local f
	for f in "$fixtures"/format*.isr; do
		run_status 0 user/ispotctl report "$f" || return 1
		grep -q "worker" "$tmp/out" ||
			{ echo "# $f: no worker row"; return 1; }
		run_status 0 user/ispotctl report "$f" --json || return 1
		grep -q '^{"ispot_version"' "$tmp/out" ||
			{ echo "# $f: no JSON report"; return 1; }
	done
}
tap_check every_older_format_is_reported reported

full_stdout() {
	local json
	for json in "" --json; do
		user/ispotctl report "$fixtures/format3.isr" $json \
			>/dev/full 2>"$tmp/err"
		[ $? = 1 ] || { echo "# exit not 1"; return 1; }
		one_line_err "cannot write the report (No space left on device)$" ||
			return 1
	done
}
if [ -w /dev/full ]; then
	tap_check stdout_on_a_full_disk_is_one_line_with_its_error full_stdout
else
	tap_skip stdout_on_a_full_disk_is_one_line_with_its_error "no /dev/full"
fi

empty_file() {
	: >"$tmp/.r.isr.AbCdEf"
	run_status 1 user/ispotctl report "$tmp/.r.isr.AbCdEf" &&
		one_line_err "is empty, not a recording (a record killed before it traced"
}
tap_check an_empty_file_is_said_to_be_empty empty_file

missing_file() {
	run_status 1 user/ispotctl report "$tmp/none.isr" &&
		one_line_err "none.isr"
}
tap_check a_missing_file_is_one_line missing_file

tap_done
