#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every Documentation/*.rst parses cleanly with Debian's docutils (a table
# whose text spills out of its column, a broken title underline, a bad
# reference is a warning there and a mess in any renderer).  And the tree
# stands alone: no file points to a document outside it (a design file or
# a paper's text kept beside the clone); papers are cited by title
# (Documentation/design.rst, "References"), contracts by their place in
# Documentation/.
cd "$(dirname "$0")/../.." || exit 1
. selftests/kmod/tap.sh

py=/usr/bin/python3
rst_clean() {	# rst_clean FILE: no docutils warning or error
	"$py" - "$1" <<'PY'
import io, sys
import docutils.core
out = io.StringIO()
docutils.core.publish_doctree(open(sys.argv[1], encoding="utf-8").read(),
                              source_path=sys.argv[1],
                              settings_overrides={"warning_stream": out,
                                                  "report_level": 2})
msg = out.getvalue().strip()
if msg:
    for line in msg.splitlines():
        print("# " + line)
    sys.exit(1)
PY
}

# outside_refs: print every line of the tree that names a file outside it.
# The patterns are assembled from pieces so that this file does not match.
outside_refs() {
	d=DESIGN s=seeds
	re="$d\\.md|(^|[^[:alnum:]_])$s/|\\.\\./shared|[0-9]{3}_[0-9a-f]{16}\\.txt"
	re="$re|[Ss]eed 00[0-9]"
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z --cached --others --exclude-standard
	else
		find . -path ./.git -prune -o -type f -print0
	fi | xargs -0 grep -InE "$re" -- 2>/dev/null
}
no_outside_refs() {
	found=$(outside_refs)
	[ -z "$found" ] && return 0
	echo "$found" | sed 's/^/# /'
	echo "# cite a paper by its title (Documentation/design.rst, References)"
	echo "# and a contract by its file and section in Documentation/"
	return 1
}

# --- The front page ----------------------------------------------------
front_max=150
front_short() {
	n=$(wc -l <README.md)
	[ "$n" -le "$front_max" ] && return 0
	echo "# README.md has $n lines; the front page keeps to $front_max:"
	echo "# what is not for a newcomer's first read goes to Documentation/"
	return 1
}
# The two commands, each at the start of a line of a code block, and the
# last line make check prints.
front_commands() {
	ok=0
	for c in 'make demo' 'make check'; do
		grep -q "^$c " README.md && continue
		echo "# README.md shows no \"$c\" command line"
		ok=1
	done
	grep -qF 'N passed, N failed, N skipped' README.md ||
		{ echo "# README.md does not say what make check ends with"; ok=1; }
	return $ok
}
# Exactly one line for each: the lead rewrites them in place.
front_times() {
	ok=0
	for l in 'make check on a fresh machine: ' 'make check, warm: '; do
		n=$(grep -c "^${l}[^ ]*[0-9]" README.md)
		[ "$n" = 1 ] && continue
		echo "# README.md has $n lines \"$l<time>\", wants 1"
		ok=1
	done
	return $ok
}
# A count of tests passed belongs to a run, and a run to git's history.
front_no_history() {
	found=$(grep -nE '[0-9][0-9,]* (passed|failed)' README.md)
	[ -z "$found" ] && return 0
	echo "$found" | sed 's/^/# README.md:/'
	echo "# results of past runs belong in git, not in the front page"
	return 1
}

# links FILE: each relative link target of FILE (Markdown links and images
# outside code blocks; reStructuredText's `text <target>`_, hyperlink
# targets and image, figure and include directives), anchors dropped.
links() {
	case $1 in
	*.md)
		awk '/^```/ { fence = !fence; next } !fence' "$1" |
			grep -o '\]([^)]*)' | sed 's/^](//; s/)$//; s/ .*//'
		;;
	*.rst)
		grep -o '<[^<>]*>`__*' "$1" | sed 's/^<//; s/>`_*$//'
		sed -n -e 's/^\.\. *\(image\|figure\|include\|literalinclude\):: *//p' \
			-e 's/^\.\. _[^:]*: *//p' "$1"
		;;
	esac | sed 's/#.*//' | grep -v -E '^$|^[a-zA-Z][a-zA-Z0-9+.-]*:'
}
links_exist() {
	ok=0
	for f; do
		for l in $(links "$f"); do
			[ -e "$(dirname "$f")/$l" ] && continue
			echo "# $f: link to $l, which does not exist"
			ok=1
		done
	done
	return $ok
}

set -- Documentation/*.rst
tap_plan $(($# + 7))
if "$py" -c 'import docutils' 2>/dev/null; then
	tap_ok "docutils is installed"
else
	tap_not_ok "docutils is installed (run scripts/deps.sh)"
fi
for f; do
	tap_check "$f parses without warnings" rst_clean "$f"
done
tap_check "no file refers to a document outside the tree" no_outside_refs
tap_check "README.md is at most $front_max lines" front_short
tap_check "README.md shows make demo and make check" front_commands
tap_check "README.md has one fresh and one warm time line" front_times
tap_check "README.md holds no history of runs" front_no_history
tap_check "every relative link of README.md and Documentation/ exists" \
	links_exist README.md "$@"
tap_done
