#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make install into a DESTDIR, as a distribution package build does: every
# file where Documentation/install.rst says, binaries that run, man pages
# that lint clean and document every option the tools take, a unit that
# systemd-analyze verifies, an example configuration ispotd accepts, an
# administrator's configuration never overwritten, and make uninstall
# leaving nothing but directories.  No module needed: dkms_test.sh builds
# and loads it.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. selftests/kmod/tap.sh
tmpdir_setup
require_cmd mandoc man systemd-analyze nm readelf
ver=$(sed -n 's/^#define ISPOT_VERSION "\(.*\)"$/\1/p' include/ispot_version.h)
[ -n "$ver" ] || { echo "Bail out! no ISPOT_VERSION in include/ispot_version.h"; exit 1; }
make -s user >/dev/null 2>&1 || { echo "Bail out! make user failed"; exit 1; }

tap_plan 10

D=$tmp/root
# inst PREFIX [TARGET]: make TARGET (install) into $D, output in $tmp/make.
inst() {
	make --no-print-directory DESTDIR="$D" PREFIX="$1" "${2:-install}" \
		>"$tmp/make" 2>&1 || { sed 's/^/# /' "$tmp/make"; return 1; }
}

# What PREFIX=/usr puts where (Documentation/install.rst), and modes.
expected_usr() {
	cat <<EOF
755 usr/bin/ispotctl
755 usr/sbin/ispotd
644 usr/share/man/man8/ispotctl.8
644 usr/share/man/man8/ispotd.8
644 usr/share/man/man4/ispot.4
644 usr/include/ispot.h
644 lib/systemd/system/ispotd.service
644 usr/share/ispot/ispotd.rules.yml
644 etc/ispot/ispotd.conf
644 usr/src/ispot-$ver/dkms.conf
644 usr/src/ispot-$ver/Kbuild
644 usr/src/ispot-$ver/kmod/Kbuild
644 usr/src/ispot-$ver/include/uapi/linux/ispot.h
644 usr/src/ispot-$ver/include/ispot_version.h
EOF
	for f in kmod/*.c kmod/*.h; do echo "644 usr/src/ispot-$ver/$f"; done
}

files_where_expected() {
	inst /usr || return 1
	(cd "$D" && find . ! -type d | sed 's|^\./||' | sort) >"$tmp/got"
	expected_usr | awk '{ print $2 }' | sort >"$tmp/want"
	diff "$tmp/want" "$tmp/got" | sed 's/^/# /' | grep . && return 1
	expected_usr | while read -r mode f; do
		got=$(stat -c %a "$D/$f")
		[ "$got" = "$mode" ] || { echo "# $f: mode $got, want $mode"; return 1; }
	done || return 1
	grep -q "^PACKAGE_VERSION=\"$ver\"$" "$D/usr/src/ispot-$ver/dkms.conf" ||
		{ echo "# dkms.conf does not say version $ver"; return 1; }
	grep -q '^ExecStart=/usr/sbin/ispotd --config /etc/ispot/ispotd.conf$' \
		"$D/lib/systemd/system/ispotd.service" ||
		{ echo "# the unit does not start /usr/sbin/ispotd"; return 1; }
	! grep -n '@[A-Z]*@' "$D/lib/systemd/system/ispotd.service" \
		"$D/usr/src/ispot-$ver/dkms.conf" | sed 's/^/# left: /' | grep .
}
tap_check install_puts_every_file_where_documented files_where_expected

binaries_run() {
	local v
	"$D/usr/bin/ispotctl" --help >"$tmp/out" 2>&1 &&
		grep -q '^usage: ispotctl' "$tmp/out" || { echo "# ispotctl --help failed"; return 1; }
	v=$("$D/usr/bin/ispotctl" --version)
	[[ "$v" == "ispotctl $ver "* ]] || { echo "# ispotctl --version: $v"; return 1; }
	"$D/usr/sbin/ispotd" --help >"$tmp/out" 2>&1 &&
		grep -q '^usage: ispotd' "$tmp/out" || { echo "# ispotd --help failed"; return 1; }
}
tap_check installed_binaries_run binaries_run

# Lint: mandoc's warnings and groff's (through man-db) must both be silent.
man_lint() {
	local p out
	for p in "$D"/usr/share/man/man*/*; do
		out=$(mandoc -T lint -W warning "$p" 2>&1) ||
			{ echo "# mandoc: $out" | head -n 20; return 1; }
		[ -z "$out" ] || { echo "# mandoc: $out" | head -n 20; return 1; }
		out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null)
		[ -z "$out" ] || { echo "# man --warnings $p: $out" | head -n 20; return 1; }
	done
}
tap_check man_pages_lint_clean man_lint

# render PAGE: plain text, no wrapping, no overstrike.
render() { mandoc -T ascii -O width=1000 "$1" | sed 's/.\x08//g'; }
# documented PAGE OPTION...: each option starts an item of PAGE.
documented() {
	local page=$1 o
	shift
	render "$page" >"$tmp/page"
	for o in "$@"; do
		# An item may start "--auto[=N]" or "--key=RULE".
		grep -q -E -- "^ +(-[a-z], )?$o( |$|\\[|=)" "$tmp/page" ||
			{ echo "# $(basename "$page") does not document $o"; return 1; }
	done
}
# options_of CMD...: the options CMD's --help lists: those in its usage
# lines (up to the first blank line) and each item's first word, not
# those named in the text of an item ("its --listen" in ispotctl top's).
options_of() {
	"$@" --help 2>&1 | awk '
		!NF { usage_done = 1 }
		!usage_done || /^ +(-[a-zA-Z], )?--[a-z]/' |
		sed -E 's/^ +(-[a-zA-Z], )?(--[a-z][a-z-]*).*/\2/' |
		grep -o -- '--[a-z][a-z-]*' | sort -u
}
man_matches_cli() {
	local m=$D/usr/share/man/man8 c cmds
	# shellcheck disable=SC2046
	documented "$m/ispotd.8" $(options_of "$D/usr/sbin/ispotd") || return 1
	cmds=$("$D/usr/bin/ispotctl" --help | sed -n '/^commands:/,/^$/p' |
		awk 'NR > 1 && NF { print $1 }')
	# top is documented (Documentation/usage.rst) whatever this build has.
	# shellcheck disable=SC2086
	documented "$m/ispotctl.8" $cmds top || return 1
	for c in $cmds; do
		# shellcheck disable=SC2046
		documented "$m/ispotctl.8" $(options_of "$D/usr/bin/ispotctl" "$c") ||
			return 1
	done
	documented "$m/ispotctl.8" --from --version
}
tap_check man_pages_document_every_command_and_option man_matches_cli

# systemd-analyze verify checks that ExecStart= is executable, so it is
# given a copy of the unit that starts the DESTDIR's binary (the path as
# installed is checked apart), and finds the man pages of Documentation=
# through MANPATH.
unit_verifies() {
	local unit=$D/lib/systemd/system/ispotd.service exe out score
	exe=$(sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p' "$unit")
	[ "$exe" = /usr/sbin/ispotd ] && [ -x "$D$exe" ] ||
		{ echo "# ExecStart=$exe is not the installed ispotd"; return 1; }
	grep -q '^Type=notify$' "$unit" || { echo "# not Type=notify"; return 1; }
	mkdir -p "$tmp/verify"
	sed "s|^ExecStart=$exe|ExecStart=$D$exe|" "$unit" >"$tmp/verify/ispotd.service"
	out=$(MANPATH=$D/usr/share/man systemd-analyze verify \
		"$tmp/verify/ispotd.service" 2>&1) ||
		{ echo "$out" | sed 's/^/# /'; return 1; }
	[ -z "$out" ] || { echo "$out" | sed 's/^/# /'; return 1; }
	# systemd's own exposure score, 0 (sealed) to 10: recorded, and kept
	# from creeping up (2.1 when written; 3.0 is still "OK").
	score=$(systemd-analyze security --offline=true \
		"$tmp/verify/ispotd.service" 2>&1 |
		sed -n 's/.*Overall exposure level for ispotd.service: \([0-9.]*\).*/\1/p')
	echo "# systemd-analyze security: exposure $score"
	[ -n "$score" ] && lt "$score" 3.01
}
tap_check unit_verifies_and_is_hardened unit_verifies

# The example configuration is valid: with a target and a function it
# runs (no module on the host: it waits for one) until SIGTERM, exit 0;
# without them it stops with the one-line error the file explains.
example_config_accepted() {
	local conf=$D/etc/ispot/ispotd.conf pid rc port=$((20000 + RANDOM % 40000))
	"$D/usr/sbin/ispotd" --config "$conf" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q "^ispotd: $conf: nothing to watch" "$tmp/err" ||
		{ echo "# exit $rc:"; sed 's/^/# /' "$tmp/err"; return 1; }
	"$D/usr/sbin/ispotd" --config "$conf" --exe /nonexistent/app --func f \
		--log - --listen "127.0.0.1:$port" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	sleep 1
	kill -TERM $pid
	wait $pid
	rc=$?
	[ $rc -eq 0 ] || { echo "# exit $rc:"; sed 's/^/# /' "$tmp/err"; return 1; }
}
tap_check example_config_accepted_by_ispotd example_config_accepted

# install-strip: no .symtab, but ispotd keeps the function it calibrates on
# in .dynsym (-rdynamic), where the symbol reader finds it.
strip_keeps_dynsym() {
	inst /usr install-strip || return 1
	# (Whole outputs: grep -q in a pipe would SIGPIPE its writer.)
	readelf -S "$D/usr/sbin/ispotd" >"$tmp/sections"
	nm -D --defined-only "$D/usr/sbin/ispotd" >"$tmp/dynsym"
	grep -q '\.symtab' "$tmp/sections" &&
		{ echo "# ispotd was not stripped"; return 1; }
	grep -q ' ispotd_calibration_target$' "$tmp/dynsym" ||
		{ echo "# ispotd_calibration_target is not in .dynsym"; return 1; }
	"$D/usr/sbin/ispotd" --help >/dev/null
}
tap_check install_strip_keeps_the_calibration_symbol strip_keeps_dynsym

# leftovers: what is not a directory, then directories install made that
# are not documented as left (the standard ones and their parents).
leftovers() {
	(cd "$D" && find . ! -type d) | sed 's|^\./||'
	(cd "$D" && find . -mindepth 1 -type d) | sed 's|^\./||' |
		grep -v -x -F -f <(printf '%s\n' "$@")
}
usr_dirs="etc lib lib/systemd lib/systemd/system usr usr/bin usr/sbin usr/share
usr/share/man usr/share/man/man4 usr/share/man/man8 usr/include usr/src"
uninstall_clean() {
	inst /usr uninstall || return 1
	# shellcheck disable=SC2086
	leftovers $usr_dirs | sed 's/^/# left: /' | grep . && return 1
	return 0
}
tap_check uninstall_leaves_only_standard_directories uninstall_clean

# An administrator's configuration survives install and uninstall.
config_kept() {
	mkdir -p "$D/etc/ispot"
	printf 'exe /usr/sbin/app\nfunc work\n' >"$D/etc/ispot/ispotd.conf"
	inst /usr || return 1
	grep -q "^keeping $D/etc/ispot/ispotd.conf" "$tmp/make" &&
		grep -q '^exe /usr/sbin/app$' "$D/etc/ispot/ispotd.conf" ||
		{ echo "# install replaced the configuration"; return 1; }
	inst /usr uninstall || return 1
	grep -q '^exe /usr/sbin/app$' "$D/etc/ispot/ispotd.conf" ||
		{ echo "# uninstall removed a changed configuration"; return 1; }
	rm -rf "${D:?}/etc/ispot"
}
tap_check administrators_configuration_kept config_kept

# PREFIX=/usr/local, the default: the administrator's unit directory.
usr_local() {
	rm -rf "$D"
	inst /usr/local || return 1
	grep -q '^ExecStart=/usr/local/sbin/ispotd ' \
		"$D/usr/local/lib/systemd/system/ispotd.service" &&
		[ -x "$D/usr/local/sbin/ispotd" ] && [ -x "$D/usr/local/bin/ispotctl" ] &&
		[ -f "$D/usr/local/share/man/man8/ispotd.8" ] &&
		[ -f "$D/usr/src/ispot-$ver/dkms.conf" ] &&
		[ -f "$D/etc/ispot/ispotd.conf" ] ||
		{ echo "# /usr/local layout:"; (cd "$D" && find . ! -type d) | sed 's/^/#   /'; return 1; }
	inst /usr/local uninstall || return 1
	# shellcheck disable=SC2046
	leftovers etc usr usr/src usr/local $(echo "$usr_dirs" | tr ' ' '\n' |
		grep '^usr/' | sed 's|^usr/|usr/local/|') usr/local/lib \
		usr/local/lib/systemd usr/local/lib/systemd/system |
		sed 's/^/# left: /' | grep . && return 1
	return 0
}
tap_check usr_local_prefix_installs_and_uninstalls usr_local

tap_done
