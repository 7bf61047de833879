#!/usr/bin/env python3
"""plot_bench.py: draws `bankscope-gpu bench` JSON as an SVG bar chart (python3 standard library only).

    python3 scripts/plot_bench.py bench.json bench.svg

One panel per matrix size n; one horizontal bar per kernel, its length the effective bandwidth
(GB/s, read + write), labelled with GB/s and the percentage of cudaMemcpy device-to-device at the
same n. A dashed line marks the copy ceiling. Bars are coloured by family (ceiling, library,
reference, candidate); a kernel that wrote wrong output is drawn hatched red and labelled WRONG, one
that refused the size is listed as refused. Exit 2 with one line on bad input.
"""
import json
import sys
from xml.sax.saxutils import escape

COLORS = {"ceiling": "#8c8c8c", "library": "#4c72b0", "reference": "#dd8452", "candidate": "#55a868"}
BAR_H, GAP, LABEL_W, PLOT_W, RIGHT_W = 16, 4, 190, 560, 150
PANEL_HEAD, TOP, LEFT = 28, 70, 10


def fail(msg):
    print(f"plot_bench.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}")
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        fail(f"{path}: expected an object with a 'rows' list (bankscope-gpu bench --json)")
    for k, r in enumerate(data["rows"]):
        for key in ("kernel", "n"):
            if key not in r:
                fail(f"{path}: rows[{k}]: missing '{key}'")
    return data


def nice_max(v):
    """The smallest 1/2/2.5/5 x 10^k at or above v, for the axis."""
    if v <= 0:
        return 1.0
    mag = 10 ** len(str(int(v))) / 10
    for m in (1, 2, 2.5, 5, 10):
        if m * mag >= v:
            return m * mag
    return 10 * mag


def render(data):
    rows = data["rows"]
    sizes = []
    for r in rows:
        if r["n"] not in sizes:
            sizes.append(r["n"])
    vmax = nice_max(max([r.get("gbps", 0) or 0 for r in rows] + [1]))
    scale = PLOT_W / vmax
    dev = data.get("device", {})
    title = "bankscope-gpu bench: fp32 transpose, effective bandwidth (read + write)"
    sub = (f"{dev.get('name', '?')}, {dev.get('sms', '?')} SMs, driver {dev.get('nvidia_driver', '?')}, "
           f"CUDA {dev.get('cuda_driver', '?')}; median of {data.get('method', {}).get('runs', '?')} runs; "
           "% = share of cudaMemcpy device-to-device at the same n")
    out, y = [], TOP
    for n in sizes:
        panel = [r for r in rows if r["n"] == n]
        copy = next((r.get("gbps", 0) for r in panel if r["kernel"] == "memcpy_d2d"), 0)
        out.append(f'<text x="{LEFT}" y="{y + 18}" class="h">n = {n}</text>')
        y0 = y + PANEL_HEAD
        for k, r in enumerate(panel):
            by = y0 + k * (BAR_H + GAP)
            name = escape(str(r["kernel"]))
            out.append(f'<text x="{LEFT + LABEL_W - 6}" y="{by + BAR_H - 4}" class="k" text-anchor="end">{name}</text>')
            if r.get("skipped"):
                out.append(f'<text x="{LEFT + LABEL_W + 4}" y="{by + BAR_H - 4}" class="s">refused: '
                           f'{escape(str(r["skipped"]))}</text>')
                continue
            g = r.get("gbps", 0) or 0
            w = max(1.0, g * scale)
            wrong = not r.get("correct", True)
            fill = "url(#wrong)" if wrong else COLORS.get(r.get("family"), "#999999")
            out.append(f'<rect x="{LEFT + LABEL_W}" y="{by}" width="{w:.1f}" height="{BAR_H}" fill="{fill}">'
                       f'<title>{name} n={n}: {r.get("ms_median", 0):.4f} ms, {g:.1f} GB/s</title></rect>')
            pct = r.get("pct_of_copy", 0) or 0
            label = f"{g:.0f} GB/s  {pct:.1f}%" + ("  WRONG" if wrong else "")
            out.append(f'<text x="{LEFT + LABEL_W + w + 4:.1f}" y="{by + BAR_H - 4}" class="v">{label}</text>')
        y_end = y0 + len(panel) * (BAR_H + GAP)
        if copy:
            cx = LEFT + LABEL_W + copy * scale
            out.append(f'<line x1="{cx:.1f}" y1="{y0 - 4}" x2="{cx:.1f}" y2="{y_end}" class="c"/>')
        # axis ticks
        for t in range(0, 6):
            v = vmax * t / 5
            tx = LEFT + LABEL_W + v * scale
            out.append(f'<line x1="{tx:.1f}" y1="{y_end}" x2="{tx:.1f}" y2="{y_end + 4}" stroke="#444"/>')
            out.append(f'<text x="{tx:.1f}" y="{y_end + 15}" class="t" text-anchor="middle">{v:.0f}</text>')
        y = y_end + 30
    legend_x = LEFT + LABEL_W
    legend = []
    for k, (fam, col) in enumerate(list(COLORS.items()) + [("wrong output", "url(#wrong)")]):
        lx = legend_x + k * 120
        legend.append(f'<rect x="{lx}" y="{TOP - 22}" width="12" height="12" fill="{col}"/>'
                      f'<text x="{lx + 16}" y="{TOP - 12}" class="k">{escape(fam)}</text>')
    legend.append(f'<line x1="{legend_x + 600}" y1="{TOP - 16}" x2="{legend_x + 620}" y2="{TOP - 16}" class="c"/>'
                  f'<text x="{legend_x + 624}" y="{TOP - 12}" class="k">memcpy D2D</text>')
    width, height = LEFT + LABEL_W + PLOT_W + RIGHT_W, y + 10
    head = f'''<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
<defs><pattern id="wrong" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f4c7c3"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c0392b" stroke-width="3"/></pattern>
<style>.h{{font-size:14px;font-weight:bold}} .k{{font-size:11px}} .v{{font-size:10px;fill:#222}} .s{{font-size:10px;fill:#888;font-style:italic}} .t{{font-size:9px;fill:#444}} .c{{stroke:#c0392b;stroke-dasharray:4 3;stroke-width:1.2}}</style></defs>
<rect width="100%" height="100%" fill="white"/>
<text x="{LEFT}" y="20" font-size="15" font-weight="bold">{escape(title)}</text>
<text x="{LEFT}" y="36" font-size="10" fill="#444">{escape(sub)}</text>
'''
    return head + "\n".join(legend + out) + "\n</svg>\n"


def main(argv):
    if len(argv) != 3:
        fail("usage: plot_bench.py BENCH.json OUT.svg")
    svg = render(load(argv[1]))
    tmp = argv[2] + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(svg)
        import os
        os.replace(tmp, argv[2])
    except OSError as e:
        fail(f"{argv[2]}: {e.strerror}")
    print(f"plot_bench.py: wrote {argv[2]}")


if __name__ == "__main__":
    main(sys.argv)
