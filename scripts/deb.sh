#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: ISPOT's Debian packages (debian/; Documentation/packaging.rst)
# built from a copy of the tree in a temporary directory, because
# dpkg-buildpackage writes its results into the parent of the source
# directory: nothing is written outside that directory, and the tree is
# left as it was.
#
#   scripts/deb.sh [--check-tree] OUTDIR [DPKG-BUILDPACKAGE-OPTION...]
#
# The copy is the tree as git would commit it: the files git tracks and
# those it would add (not ignored), as they are now, uncommitted changes
# included (outside a git checkout: every file but .git and .build).  The
# options default to -us -uc (source and binaries, unsigned).  OUTDIR
# receives the .debs, the source package, the .buildinfo and the .changes
# (earlier ones of ispot removed), and build.log.
#
# --check-tree: then check what a build in the tree itself would leave:
# every file the build made must be one .gitignore ignores, and
# debian/rules clean must remove them all.  Each file that breaks this is
# one "deb: ..." line, and the exit status is 1.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
check_tree=0
[ "${1:-}" != --check-tree ] || { check_tree=1; shift; }
[ $# -ge 1 ] || { echo "usage: scripts/deb.sh [--check-tree] OUTDIR [DPKG-BUILDPACKAGE-OPTION...]" >&2; exit 2; }
mkdir -p "$1" && out=$(cd "$1" && pwd) || exit 1
shift
[ $# -gt 0 ] || set -- -us -uc
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
	{ echo "deb: dpkg-buildpackage or debhelper is missing; run scripts/deps.sh" >&2; exit 1; }
ver=$(sed -n 's/^#define ISPOT_VERSION "\(.*\)"$/\1/p' "$top/include/ispot_version.h")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# $work/build/ispot-VERSION is the copy; dpkg-buildpackage writes into
# $work/build, what this script keeps for itself is in $work.
src=$work/build/ispot-$ver
mkdir -p "$src"

# The copy: NUL-separated paths, those that exist (a tracked file may
# have been deleted).
cd "$top" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard
else
	find . \( -path ./.git -o -path ./.build \) -prune -o ! -type d -print0
fi | while IFS= read -r -d '' f; do
	[ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
done | tar --null --no-recursion -T - -cf - | tar -xf - -C "$src" || exit 1

# files_now: every file of the copy; unignored: those .gitignore does
# not ignore (a git directory of its own, outside the copy, reads them).
files_now() { (cd "$src" && find . ! -type d | sed 's|^\./||' | sort); }
unignored() {
	GIT_DIR=$work/git GIT_WORK_TREE=$src git ls-files --others --exclude-standard | sort
}
if [ $check_tree = 1 ]; then
	GIT_DIR=$work/git GIT_WORK_TREE=$src git init -q || exit 1
	files_now >"$work/files.before"
	unignored >"$work/unignored.before"
fi

(cd "$src" && dpkg-buildpackage "$@") >"$out/build.log" 2>&1 ||
	{ tail -n 30 "$out/build.log" | sed 's/^/deb: /' >&2
	  echo "deb: dpkg-buildpackage failed; the log is $out/build.log" >&2
	  exit 1; }

rm -f "$out"/ispot_* "$out"/ispot-dkms_* "$out"/ispot-dbgsym_*
for f in "$work"/build/*; do
	[ -f "$f" ] && mv "$f" "$out/"
done
ls "$out"/*.deb >/dev/null 2>&1 || { echo "deb: no .deb in $out" >&2; exit 1; }

rc=0
if [ $check_tree = 1 ]; then
	unignored | comm -13 "$work/unignored.before" - |
		sed 's/^/deb: the build left, not in .gitignore: /' >"$work/left"
	(cd "$src" && debian/rules clean) >>"$out/build.log" 2>&1 ||
		echo "deb: debian/rules clean failed" >>"$work/left"
	files_now | comm -13 "$work/files.before" - |
		sed 's|^|deb: debian/rules clean left: |' >>"$work/left"
	files_now | comm -23 "$work/files.before" - |
		sed 's/^/deb: the build or clean removed: /' >>"$work/left"
	if [ -s "$work/left" ]; then
		head -n 20 "$work/left" >&2
		n=$(wc -l <"$work/left")
		[ "$n" -le 20 ] || echo "deb: ... and $((n - 20)) more" >&2
		rc=1
	fi
fi
exit $rc
