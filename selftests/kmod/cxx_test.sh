#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# C++ names end to end: a C++ sample traced by its demangled name, with
# and without parameter list, and the names in the report (demangled
# "name", mangled "linkage_name").  The sample links libstdc++, which the
# VM runner copies into the guest; ispotctl loads its demangler from it.
. "$(dirname "$0")/tap.sh"
app=/ispot/samples/cxx_lock
require_root
require_file "$app" "no g++?"
require_module
tmpdir_setup

tap_plan 4

# names FILE KEY: KEY (name, linkage_name) of every function, one a line.
names() { json_get "$1" ".functions[].$2"; }

t_by_name() {
	run_status 0 ispotctl run --json --func 'shop::Counter::add(int)' \
		-- "$app" 2 2000 || return 1
	names "$tmp/out" name | grep -qx 'shop::Counter::add(int)' &&
		names "$tmp/out" linkage_name |
			grep -qx '_ZN4shop7Counter3addEi' &&
		[ "$(json_get "$tmp/out" .functions[0].calls)" = 4000 ] &&
		! grep -q 'demangler' "$tmp/err" ||
		{ sed 's/^/# /' "$tmp/out" "$tmp/err"; return 1; }
}
tap_check "demangled_spec_and_names_in_json" t_by_name

t_ambiguous() {
	run_status 1 ispotctl run --func 'shop::Counter::add' -- "$app" 1 10 &&
		one_line_err "'shop::Counter::add' is ambiguous" &&
		grep -qF 'shop::Counter::add(int), shop::Counter::add(long)' \
			"$tmp/err"
}
tap_check "overloads_without_parameters_listed" t_ambiguous

t_glob() {
	run_status 0 ispotctl run --json --func 'shop::*::add(*)' \
		-- "$app" 2 500 || return 1
	[ "$(names "$tmp/out" linkage_name | wc -l)" = 2 ] &&
		names "$tmp/out" name | grep -qx 'shop::Counter::add(long)' ||
		{ sed 's/^/# /' "$tmp/out"; return 1; }
}
tap_check "glob_takes_every_overload" t_glob

# The table's name is short (no parameters) while one overload is
# traced; --wide gives the whole one, and so do two overloads traced.
t_text() {
	run_status 0 ispotctl run --func '_ZN4shop7Counter3addEl' \
		-- "$app" 1 100 &&
		grep -q ' shop::Counter::add  ' "$tmp/out" &&
		run_status 0 ispotctl run --wide --func '_ZN4shop7Counter3addEl' \
			-- "$app" 1 100 &&
		grep -q ' shop::Counter::add(long) ' "$tmp/out" &&
		run_status 0 ispotctl run --func 'shop::*::add(*)' \
			-- "$app" 1 100 &&
		grep -q ' shop::Counter::add(int) ' "$tmp/out" &&
		grep -q ' shop::Counter::add(long) ' "$tmp/out" ||
		{ sed 's/^/# /' "$tmp/out"; return 1; }
}
tap_check "mangled_spec_short_in_table_whole_with_wide" t_text

tap_done
