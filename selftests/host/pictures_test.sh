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
#  - the page's two flame graphs (the loss over the sampled stacks, the
#    wall time on and off CPU) are in Chromium's DOM with their frames,
#    were laid out (the script records each one's box), and that box of
#    the screenshot is drawn: warm frames, and blue off-CPU ones in the
#    wall graph;
#  - ispotctl plot draws a window log of ispotd's format, and its
#    pictures render too.
cd "$(dirname "$0")/../.." || exit 1
. selftests/kmod/tap.sh

tap_plan 9
tmpdir_setup
py=/usr/bin/python3
gen=selftests/host/pictures_gen

skip_all() {
	for t in svgs_are_xml_naming_their_function svgs_render_not_blank \
		 page_loads_with_its_script page_reports_no_error \
		 page_has_every_function screenshot_not_blank \
		 page_has_both_flame_graphs flame_graphs_drawn \
		 plot_renders_scores_over_time; do
		tap_skip "$t" "$1"
	done
	tap_done
}
[ -x "$gen" ] || skip_all "$gen is not built (make selftests)"
[ -x "$py" ] || skip_all "no $py (scripts/deps.sh)"

# png_varied FILE [X,Y,W,H [warm|warm+blue]]: a PNG (or that box of it)
# whose pixels are not (almost) all one colour, and with "warm" some
# red-orange ones (on-CPU frames), with "warm+blue" blue ones too
# (off-CPU frames).  8-bit RGB(A) or grey, not interlaced: what
# rsvg-convert and Chromium write.  Prints the share of pixels off the
# commonest colour.
png_varied() {
	"$py" - "$@" <<'PY'
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
x0, y0, bw, bh = 0, 0, w, h
if len(sys.argv) > 2:
    x0, y0, bw, bh = map(int, sys.argv[2].split(","))
    assert bw > 0 and bh > 0 and x0 + bw <= w and y0 + bh <= h, "box %s outside %dx%d" % (sys.argv[2], w, h)
    rows = [r[x0 * bpp:(x0 + bw) * bpp] for r in rows[y0:y0 + bh]]
    w, h, stride = bw, bh, bw * bpp
px = Counter(r[i:i + bpp] for r in rows for i in range(0, stride, bpp))
off = 1 - px.most_common(1)[0][1] / (w * h)
warm = sum(n for c, n in px.items() if bpp >= 3 and c[0] > 200 and c[2] < 80)
blue = sum(n for c, n in px.items() if bpp >= 3 and c[2] > 180 and c[2] > c[0] + 60)
print("# %s: %dx%d, %d colours, %.1f%% off the background, %d warm, %d blue pixels" % (sys.argv[1].rsplit("/", 1)[-1], w, h, len(px), off * 100, warm, blue))
want = sys.argv[3] if len(sys.argv) > 3 else ""
hues = ("warm" not in want or warm >= 100) and ("blue" not in want or blue >= 100)
sys.exit(0 if len(px) >= 3 and off >= 0.01 and hues else 1)
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
		 page_has_every_function screenshot_not_blank \
		 page_has_both_flame_graphs flame_graphs_drawn; do
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
# One width for the DOM and the screenshots: the flame graphs' boxes,
# which the page's script records, are where the screenshot has them.
chrome --window-size=1200,1600 --dump-dom "file://$tmp/page.html" \
	>"$tmp/dom" 2>"$tmp/chrome.err"

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

# flame_boxes: "KIND X,Y,W,H" of each flame graph in the DOM, which must
# be one <svg> per kind, loss and wall, each with the frames it says it
# drew and a box the script measured.
flame_boxes() {
	"$py" - "$tmp/dom" <<'PY'
import sys
from html.parser import HTMLParser
class Flames(HTMLParser):
    def __init__(self):
        super().__init__()
        self.graphs, self.inside = {}, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and "data-flame" in a:
            self.inside = a["data-flame"]
            self.graphs.setdefault(self.inside, []).append(
                {"frames": int(a.get("data-frames", "0")),
                 "box": a.get("data-box", ""), "rects": 0, "titles": 0})
        elif self.inside and tag == "rect":
            self.graphs[self.inside][-1]["rects"] += 1
        elif self.inside and tag == "g":
            self.graphs[self.inside][-1]["titles"] += 1
    def handle_endtag(self, tag):
        if tag == "svg":
            self.inside = None
p = Flames()
p.feed(open(sys.argv[1], encoding="utf-8").read())
ok = sorted(p.graphs) == ["loss", "wall"]
for kind, gs in sorted(p.graphs.items()):
    g = gs[0]
    box = [int(v) for v in g["box"].split(",")] if g["box"] else []
    print("# %s: %d graph(s), %d frames, %d rects, box %s" % (kind, len(gs), g["frames"], g["rects"], g["box"] or "none"))
    ok = ok and len(gs) == 1 and g["frames"] >= 5 and g["titles"] == g["frames"] \
        and g["rects"] == g["frames"] + 1 and len(box) == 4 and box[2] > 0 and box[3] > 0
    print("%s %s" % (kind, g["box"]))
if not ok:
    print("# want one loss and one wall flame graph, drawn, with their frames")
sys.exit(0 if ok else 1)
PY
}
flame_boxes >"$tmp/flames"
tap_check page_has_both_flame_graphs flame_boxes

# Each graph's box of a screenshot tall enough to hold it: drawn, in the
# colours it says (on CPU warm; off CPU blue, in the wall graph).
flames_drawn() {
	grep -q '^loss ' "$tmp/flames" && grep -q '^wall ' "$tmp/flames" ||
		return 1
	height=$(awk '/^(loss|wall) / { split($2, b, ","); e = b[2] + b[4]
		if (e > m) m = e } END { print m + 20 }' "$tmp/flames")
	chrome --window-size=1200,"$height" --screenshot="$tmp/flames.png" \
		"file://$tmp/page.html" >/dev/null 2>&1 || return 1
	png_varied "$tmp/flames.png" "$(awk '/^loss /{print $2}' "$tmp/flames")" warm &&
		png_varied "$tmp/flames.png" \
			"$(awk '/^wall /{print $2}' "$tmp/flames")" warm+blue
}
tap_check flame_graphs_drawn flames_drawn
tap_done
