#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run every in-guest selftest (binaries *_test and scripts *_test.sh in
# this directory); exit non-zero if any failed.  Selected ones may be
# named on the command line.
cd "$(dirname "$0")" || exit 1
# ISPOT_TESTS_EXCLUDE="a_test b_test.sh" leaves those out of the default.
tests=${*:-$(ls | grep -E '_test(\.sh)?$' | sort)}
for x in ${ISPOT_TESTS_EXCLUDE:-}; do
	tests=$(printf '%s\n' $tests | grep -vx "$x")
done
rc=0
for t in $tests; do
	echo "# selftest: $t"
	start=$(date +%s)
	./"$t"
	r=$?
	# What each test costs on each kernel (scripts/check.sh's tiers).
	echo "# selftest: $t took $(($(date +%s) - start)) s"
	case $r in
	0|4) ;;
	*) echo "# selftest $t failed with exit $r"; rc=1 ;;
	esac
	grep -q '^ispot ' /proc/modules || /ispot/selftests/kmod/load_ispot.sh
done
exit $rc
