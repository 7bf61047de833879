"""bankscope --svg (issue 12): the exported document holds the pictures the window shows.

Counts are worked by hand for the seed lesson: lane i reads tile[i][0] (the transposed column read).
  A: float tile[32][32]: all 32 lanes in bank 0, 32 distinct words -> 32 wavefronts, bank 0 holds
     32 stacked words, every other bank none.
  B: float tile[32][33]: lane i's word is 33 i, bank (33 i) % 32 = i -> 1 wavefront, one word per
     bank.
Tile views: 32 x 32 logical cells per pane; physical cells 32 x 32 (A), 32 x 33 = 1056 (B) of which
the 32 in column 32 are padding; each active lane outlined once in each of the two views.
Usage: svg_check.py BANKSCOPE SOURCE_DIR OUT_DIR
"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

app, src, out = sys.argv[1:4]
failed = []


def export(name, *args):
    path = os.path.join(out, name)
    if os.path.exists(path):
        os.remove(path)
    r = subprocess.run([app, "--svg", path, *args], cwd=src, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        failed.append(f"{name}: exit {r.returncode}: {r.stderr.strip()}")
        return ""
    text = open(path).read()
    ET.fromstring(text)  # well-formed XML
    return text


def count(text, pattern):
    return len(re.findall(pattern, text))


def expect(what, got, want):
    print(f"{what}: {got} (expected {want})")
    if got != want:
        failed.append(f"{what}: {got}, expected {want}")


pair = export("pair.svg")  # the default start: compare mode on the seed pair
if pair:
    expect("pair: timeline segments (32 + 1)", count(pair, r"<title>wavefront \d+:"), 33)
    expect("pair: word cells (32 + 32)", count(pair, r"<title>bank \d+, word \d+ "), 64)
    expect("pair: bank-0 words (32 in A + 1 in B)", count(pair, r"<title>bank 0, word \d+ "), 33)
    expect("pair: lane boxes", count(pair, r"<title>lane \d+: byte"), 64)
    expect("pair: logical cells", count(pair, r"<title>\[\d+\]\[\d+\] -> offset"), 2048)
    expect("pair: physical cells", count(pair, r"<title>offset \d+, bank"), 2048)
    expect("pair: padding cells", count(pair, r"<title>offset \d+: padding"), 32)
    expect("pair: lane outlines (32 lanes x 2 views x 2 panes)", count(pair, r"<title>lane \d+</title>"), 128)
    expect("pair: drawings nested", count(pair, r"<svg "), 7)
single = export("single.svg", "--scenario", "assets/scenarios/seed_transpose_32x32.json", "--stride", "33")
if single:
    expect("single stride 33: timeline segments", count(single, r"<title>wavefront \d+:"), 1)
    expect("single stride 33: word cells", count(single, r"<title>bank \d+, word \d+ "), 32)
    expect("single stride 33: padding cells", count(single, r"<title>offset \d+: padding"), 32)
    expect("single stride 33: lane outlines", count(single, r"<title>lane \d+</title>"), 64)
# A trace with a what-if (issue 10, item 5): A = the committed H200 transpose trace's hottest LDS,
# execution 0 (a column read of float tile[32][32]: 32 words of one bank, 32 wavefronts); B = the
# same lanes with the tile padded to stride 33 (word 33 r + c: one word in each bank, 1 wavefront).
# No tile views: a trace has no scenario array to draw.
trace = export("trace_whatif.svg", "--trace", "assets/results/h200/2026-11-30d/traces/transpose.bstrace",
               "--array", "tile@0:float[32][32]", "--layout", "tile:stride=33")
if trace:
    expect("trace what-if: timeline segments (32 + 1)", count(trace, r"<title>wavefront \d+:"), 33)
    expect("trace what-if: word cells (32 + 32)", count(trace, r"<title>bank \d+, word \d+ "), 64)
    expect("trace what-if: lane boxes", count(trace, r"<title>lane \d+: byte"), 64)
    expect("trace what-if: pane titles", count(trace, r">A traced: LDS  pc 0x1390<|>B: what-if tile:stride=33<"), 2)
    expect("trace what-if: no tile views", count(trace, r"<title>offset \d+, bank"), 0)
bad = subprocess.run([app, "--svg", os.path.join(out, "x.svg"), "--stride", "0"], cwd=src,
                     capture_output=True, text=True, timeout=60)
expect("--stride 0 exits non-zero with one line", (bad.returncode != 0, len(bad.stderr.strip().splitlines())),
       (True, 1))
for f in failed:
    print("FAIL:", f)
sys.exit(1 if failed else 0)
