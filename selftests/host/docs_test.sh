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

set -- Documentation/*.rst
tap_plan $(($# + 2))
if "$py" -c 'import docutils' 2>/dev/null; then
	tap_ok "docutils is installed"
else
	tap_not_ok "docutils is installed (run scripts/deps.sh)"
fi
for f; do
	tap_check "$f parses without warnings" rst_clean "$f"
done
tap_check "no file refers to a document outside the tree" no_outside_refs
tap_done
