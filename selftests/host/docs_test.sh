#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every Documentation/*.rst parses cleanly with Debian's docutils (a table
# whose text spills out of its column, a broken title underline, a bad
# reference is a warning there and a mess in any renderer).
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

set -- Documentation/*.rst
tap_plan $(($# + 1))
if "$py" -c 'import docutils' 2>/dev/null; then
	tap_ok "docutils is installed"
else
	tap_not_ok "docutils is installed (run scripts/deps.sh)"
fi
for f; do
	tap_check "$f parses without warnings" rst_clean "$f"
done
tap_done
