#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tree keeps the shape that lets a newcomer find where a change goes
# and make it without reading everything around it:
#   - no source file of user/ or kmod/ over 600 lines, but those listed
#     below with the reason one job needs that many there;
#   - no function of user/ over 100 lines;
#   - no circle of includes among the units of user/ (a unit is foo.c,
#     foo.h and foo_internal.h: a circle means neither side can be built,
#     tested or read without the other);
#   - Documentation/design.rst's "Map of the tree" names every directory
#     of user/lib and no other, so the map is where a newcomer starts.
# Files are measured as they are in the work tree (wc -l; a function from
# its first line to its closing brace).
cd "$(dirname "$0")/../.." || exit 1
. selftests/kmod/tap.sh

file_max=600
func_max=100
# Files allowed over $file_max lines, one per line: "PATH  REASON".  An
# entry whose file is gone or back under the limit fails too, so the list
# only ever shrinks.
long_files_allowed='
'

# sources DIR...: the C sources and headers below DIRs, sorted.
sources() { find "$@" -name '*.[ch]' -type f | LC_ALL=C sort; }

# --- Long files ----------------------------------------------------------
allowed() {	# allowed PATH: PATH is on the list
	echo "$long_files_allowed" | awk -v p="$1" '$1 == p { f = 1 } END { exit !f }'
}
no_long_files() {
	ok=0
	for f in $(sources user kmod); do
		n=$(wc -l <"$f")
		[ "$n" -le "$file_max" ] && continue
		allowed "$f" && continue
		echo "# $f: $n lines (over $file_max, and not on the list)"
		ok=1
	done
	return $ok
}
# Each entry names an existing file still over the limit, with a reason.
allowlist_current() {
	bad=$(echo "$long_files_allowed" | awk 'NF' | while read -r f why; do
		if [ -z "$why" ]; then
			echo "# $f: on the list with no reason"
		elif [ ! -f "$f" ]; then
			echo "# $f: on the list, but gone"
		elif [ "$(wc -l <"$f")" -le "$file_max" ]; then
			echo "# $f: on the list, but $(wc -l <"$f") lines now"
		fi
	done)
	[ -z "$bad" ] && return 0
	echo "$bad"
	return 1
}

# --- Long functions ------------------------------------------------------
# long_functions FILE...: "FILE:LINE LENGTH SIGNATURE" for each function
# over $func_max lines.  Kernel style: a function starts with a line that
# begins with an identifier, holds '(' and does not end in ';' (its
# signature may go on over more lines), its body opens with '{' alone at
# the start of a line and closes with '}' at the start of a line.
long_functions() {
	for f; do
		awk -v f="$f" -v max="$func_max" '
			/^$/ { sig = "" }
			/^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ { sig = $0; sigl = FNR }
			/^\{/ && sig != "" { start = sigl; name = sig; inbody = 1 }
			/^\}/ && inbody {
				len = FNR - start + 1
				if (len > max)
					printf "%s:%d %d %s\n", f, start, len, name
				inbody = 0; sig = ""
			}' "$f"
	done
}
no_long_functions() {
	# Paths of the tree have no spaces.
	# shellcheck disable=SC2046
	found=$(long_functions $(sources user))
	[ -z "$found" ] && return 0
	echo "$found" | sed 's/^/# /'
	echo "# (over $func_max lines: split them where their steps part)"
	return 1
}

# --- Include circles -----------------------------------------------------
# include_circles: each circle among the units of user/, one line of its
# units.  An include "x.h" is looked for as the compiler does (Makefile):
# beside the including file, then in user/lib, user/ctl and user/daemon
# (user/ctl/top for what only top's sources include).  Headers outside
# user/ (include/, the C library) are not units.
include_circles() {
	sources user | awk '
	{ files[++nf] = $0; exists[$0] = 1 }
	function norm(p,   n, i, k, part, out) {
		n = split(p, part, "/")
		k = 0
		for (i = 1; i <= n; i++) {
			if (part[i] == "." || part[i] == "")
				continue
			if (part[i] == ".." && k > 0) { k--; continue }
			out[++k] = part[i]
		}
		p = out[1]
		for (i = 2; i <= k; i++)
			p = p "/" out[i]
		return p
	}
	function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
	function unit(p) { sub(/\.[ch]$/, "", p); sub(/_internal$/, "", p); return p }
	function resolve(src, name,   n, i, base, q) {
		n = split(dir(src) " user/lib user/ctl user/daemon user/ctl/top", base, " ")
		for (i = 1; i <= n; i++) {
			q = norm(base[i] "/" name)
			if (q in exists)
				return q
		}
		return ""
	}
	# Tarjan: the strongly connected components of more than one unit.
	function visit(v,   i, w, comp, size) {
		idx[v] = low[v] = count++
		stack[++sp] = v
		onstack[v] = 1
		for (i = 1; i <= deg[v]; i++) {
			w = adj[v, i]
			if (!(w in idx)) {
				visit(w)
				if (low[w] < low[v])
					low[v] = low[w]
			} else if (onstack[w] && idx[w] < low[v]) {
				low[v] = idx[w]
			}
		}
		if (low[v] != idx[v])
			return
		comp = ""
		size = 0
		do {
			w = stack[sp--]
			onstack[w] = 0
			comp = w " " comp
			size++
		} while (w != v)
		if (size > 1)
			print comp
	}
	END {
		for (i = 1; i <= nf; i++) {
			src = files[i]
			u = unit(src)
			units[u] = 1
			while ((getline line < src) > 0) {
				if (line !~ /^#[ \t]*include[ \t]*"/)
					continue
				sub(/^#[ \t]*include[ \t]*"/, "", line)
				sub(/".*/, "", line)
				q = resolve(src, line)
				if (q == "" || unit(q) == u || (u, unit(q)) in edge)
					continue
				edge[u, unit(q)] = 1
				adj[u, ++deg[u]] = unit(q)
			}
			close(src)
		}
		for (u in units)
			if (!(u in idx))
				visit(u)
	}' | while read -r circle; do
		# shellcheck disable=SC2086
		printf '%s\n' $circle | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $/\n/'
	done | LC_ALL=C sort
}
no_include_circles() {
	found=$(include_circles)
	[ -z "$found" ] && return 0
	echo "$found" | sed 's/^/# circle: /'
	echo "# (a unit is foo.c + foo.h + foo_internal.h; what two units share"
	echo "# goes into a third that both include)"
	return 1
}

# --- The map -------------------------------------------------------------
# map_dirs: the user/lib/DIR/ that design.rst's "Map of the tree" section
# names (up to the next section's title), one per line.
map_dirs() {
	awk '/^Map of the tree$/ { inmap = 1; getline; next }
	     inmap && /^[-=~^]+$/ { exit }
	     inmap' Documentation/design.rst |
		grep -o 'user/lib/[A-Za-z0-9_]*/' | sed 's|user/lib/||; s|/$||' |
		LC_ALL=C sort -u
}
map_matches_ls() {
	have=$(cd user/lib && for d in *; do [ -d "$d" ] && echo "$d"; done |
		LC_ALL=C sort)
	named=$(map_dirs)
	ok=0
	for d in $have; do
		echo "$named" | grep -qx "$d" && continue
		echo "# user/lib/$d/ is not in design.rst's map"
		ok=1
	done
	for d in $named; do
		echo "$have" | grep -qx "$d" && continue
		echo "# design.rst's map names user/lib/$d/, which is gone"
		ok=1
	done
	return $ok
}

tap_plan 5
tap_check "no file of user/ or kmod/ over $file_max lines but those listed" \
	no_long_files
tap_check "every listed long file is there, still long, with a reason" \
	allowlist_current
tap_check "no function of user/ over $func_max lines" no_long_functions
tap_check "no include circle among the units of user/" no_include_circles
tap_check "design.rst's map names every directory of user/lib and no other" \
	map_matches_ls
tap_done
