#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The pictures (--svg DIR) and the HTML report (--html FILE) as users see
# them.  pictures_gen feeds a synthetic trace through the real pipeline
# and writes both with the code ispotctl runs (hostile function names
# included: '<script>', quotes, '&', a C++ template); then
#  - each SVG parses as XML, names its function in its <title>, and
#    Debian's rsvg-convert renders it to a PNG that is not one colour;
#  - a real headless Chromium loads the page: its script ran (it marks the
#    root element), no script error and no blocked load was reported,
#    every traced function has its heading, and its screenshot is not
#    blank;
#  - ispotctl plot draws a window log of ispotd's format, and its
#    pictures render too.
cd "$(dirname "$0")/../.." || exit 1
. selftests/kmod/tap.sh

tap_plan 7
tmpdir_setup
py=/usr/bin/python3
gen=selftests/host/pictures_gen

skip_all() {
	for t in svgs_are_xml_naming_their_function svgs_render_not_blank \
		 page_loads_with_its_script page_reports_no_error \
		 page_has_every_function screenshot_not_blank \
		 plot_renders_scores_over_time; do
		tap_skip "$t" "$1"
	done
	tap_done
}
[ -x "$gen" ] || skip_all "$gen is not built (make selftests)"
[ -x "$py" ] || skip_all "no $py (scripts/deps.sh)"

# png_varied FILE: a PNG whose pixels are not (almost) all one colour.
# 8-bit RGB(A) or grey, not interlaced: what rsvg-convert and Chromium
# write.  Prints the share of pixels off the commonest colour.
png_varied() {
	"$py" - "$1" <<'PY'
import struct, sys, zlib
from collections import Counter
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, hdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        hdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = hdr
assert depth == 8 and interlace == 0, "unexpected PNG layout"
bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
raw, stride, prev, rows = zlib.decompress(idat), w * bpp, None, []
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    prev = prev or bytearray(stride)
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
px = Counter(r[i:i + bpp] for r in rows for i in range(0, stride, bpp))
off = 1 - px.most_common(1)[0][1] / (w * h)
print("# %s: %dx%d, %d colours, %.1f%% off the background" % (sys.argv[1].rsplit("/", 1)[-1], w, h, len(px), off * 100))
sys.exit(0 if len(px) >= 3 and off >= 0.01 else 1)
PY
}

# svg_titles FILE...: "KIND<TAB>TITLE" of each FILE (KIND from its name,
# .sorted.svg or .hist.svg), which must be XML, an <svg>, and plain: no
# script, no image, no foreign object, no link (nothing runs or is fetched).
svg_titles() {
	"$py" - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    title = root.find(ns + "title")
    plain = not any(e.tag in (ns + "script", ns + "image", ns + "foreignObject")
                    or any("href" in k for k in e.attrib) for e in root.iter())
    if root.tag != ns + "svg" or title is None or not plain:
        print("# %s: not a plain SVG with a title" % path)
        sys.exit(1)
    print("%s\t%s" % (path.rsplit(".", 2)[-2], title.text))
PY
}

mkdir "$tmp/svg"
if ! "$gen" "$tmp/svg" "$tmp/page.html" >"$tmp/names" 2>"$tmp/err"; then
	sed 's/^/# /' "$tmp/err"
	tap_not_ok "pictures_gen wrote the pictures and the page"
	tap_done
fi
nr_funcs=$(wc -l <"$tmp/names")

# Each function's two files, found by the title they carry, and no other.
svgs_named() {
	svg_titles "$tmp"/svg/*.svg >"$tmp/titles" || return 1
	while IFS= read -r fname; do
		for kind in sorted hist; do
			grep -qF "$(printf '%s\t%s' "$kind" "$fname")" "$tmp/titles" ||
				{ echo "# no $kind picture titled '$fname'"; return 1; }
		done
	done <"$tmp/names"
	[ "$(wc -l <"$tmp/titles")" -eq $((2 * nr_funcs)) ]
}
tap_check svgs_are_xml_naming_their_function svgs_named

svgs_render() {
	for f in "$tmp"/svg/*.svg; do
		rsvg-convert -o "${f%.svg}.png" "$f" || return 1
		png_varied "${f%.svg}.png" || return 1
	done
}
if command -v rsvg-convert >/dev/null; then
	tap_check svgs_render_not_blank svgs_render
else
	tap_skip svgs_render_not_blank "no rsvg-convert (librsvg2-bin, scripts/deps.sh)"
fi

# Two windows of Documentation/ispotd.rst's format ("A window").
plot_renders() {
	for s in 10 70; do
		printf '{"time": "2026-11-23T14:%02d:%02d.000Z", ' $((s / 60)) $((s % 60))
		printf '"target": {"pid": 812, "exe": "/usr/sbin/app"}, '
		printf '"functions": [{"name": "acquire", "sci": 0.%d, ' $((s / 2))
		printf '"interference": 0.%d}, {"name": "a<b>&c", "sci": 0.1}]}\n' $((s / 3))
	done >"$tmp/windows.log"
	user/ispotctl plot --windows "$tmp/windows.log" --svg "$tmp/plot" ||
		return 1
	svg_titles "$tmp"/plot/windows.sci.svg "$tmp"/plot/windows.interf.svg \
		>"$tmp/plot.titles" || return 1
	grep -q 'SCI over time' "$tmp/plot.titles" &&
		grep -q 'INTERF over time' "$tmp/plot.titles" &&
		grep -q '>a&lt;b&gt;&amp;c</text>' "$tmp/plot/windows.sci.svg" ||
		return 1
	for f in "$tmp"/plot/*.svg; do
		rsvg-convert -o "${f%.svg}.png" "$f" &&
			png_varied "${f%.svg}.png" || return 1
	done
}
if [ ! -x user/ispotctl ]; then
	tap_skip plot_renders_scores_over_time "user/ispotctl is not built"
elif command -v rsvg-convert >/dev/null; then
	tap_check plot_renders_scores_over_time plot_renders
else
	tap_skip plot_renders_scores_over_time "no rsvg-convert (librsvg2-bin, scripts/deps.sh)"
fi

browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ]; then
	for t in page_loads_with_its_script page_reports_no_error \
		 page_has_every_function screenshot_not_blank; do
		tap_skip "$t" "no chromium (scripts/deps.sh)"
	done
	tap_done
fi
# Headless, as root in a container: no sandbox, no GPU, its own profile.
chrome() {
	timeout 60 "$browser" --headless --no-sandbox --disable-gpu \
		--no-first-run --user-data-dir="$tmp/profile" \
		--enable-logging=stderr --v=0 --hide-scrollbars "$@"
}
chrome --dump-dom "file://$tmp/page.html" >"$tmp/dom" 2>"$tmp/chrome.err"

tap_check page_loads_with_its_script \
	grep -q '^<html[^>]*data-ispot-loaded="yes"' "$tmp/dom"

# The page's own script writes an error into the root element; the
# console lists what the policy blocked and uncaught errors.
no_error() {
	grep -q '^<html[^>]*data-ispot-loaded' "$tmp/dom" &&
		! grep -q '^<html[^>]*data-script-error' "$tmp/dom" &&
		! grep 'CONSOLE' "$tmp/chrome.err" | sed 's/^/# /' | grep .
}
tap_check page_reports_no_error no_error

# Every traced function has a heading of its own, text as it was.
every_function() {
	"$py" - "$tmp/dom" "$tmp/names" <<'PY'
import sys
from html.parser import HTMLParser
class Headings(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inside, self.text = False, []
    def handle_starttag(self, tag, attrs):
        if tag == "h2":
            self.inside = True
            self.text.append("")
    def handle_endtag(self, tag):
        if tag == "h2":
            self.inside = False
    def handle_data(self, data):
        if self.inside:
            self.text[-1] += data
p = Headings()
p.feed(open(sys.argv[1], encoding="utf-8").read())
names = open(sys.argv[2], encoding="utf-8").read().splitlines()
missing = [n for n in names if n not in p.text]
for n in missing:
    print("# no heading for %r" % n)
sys.exit(1 if missing or not names else 0)
PY
}
tap_check page_has_every_function every_function

chrome --window-size=1200,1600 --screenshot="$tmp/shot.png" \
	"file://$tmp/page.html" >/dev/null 2>&1
tap_check screenshot_not_blank png_varied "$tmp/shot.png"
tap_done
