#!/usr/bin/env python3
# analyze.py: helps find the hardware's rules from a measured conformance file. python3 stdlib only.
#
#   python3 tests/conformance/analyze.py tests/conformance/h200_measured.jsonl \
#       [--cli build/bin/bankscope-cli] [--show 8] [--hyp]
#
# 1. Runs the model (`bankscope-cli predict --jsonl`) over the measured patterns and prints every
#    mismatch grouped by family / width / op, with predicted vs measured wavefronts and conflicts.
# 2. With --hyp, scores alternative rules for 64/128-bit accesses (the hypotheses in README.md)
#    against the measured wavefronts, per width/op, and lists the probes each one gets wrong.
# 3. Prints what the measured files say the "ideal" is (measured wavefronts - bank conflicts)
#    next to the number of active phases, which is what the model assumes (rules.hpp R4).
#
# Input lines: the pattern object plus "measured_wavefronts" and "measured_bank_conflicts"; a line
# without "offsets" (device metadata) is printed and skipped.
import argparse
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict

WARP = 32
BANKS = 32
LINE = 128  # bytes one wavefront can deliver (32 banks x 4 bytes)


def parse_mask(m):
    if isinstance(m, int):
        return m
    return int(m, 16) if m.lower().startswith("0x") else int(m)


def load(path):
    meta, rows = [], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError:
                print("%s:%d: not JSON, skipped" % (path, n), file=sys.stderr)
                continue
            if "offsets" not in r:
                meta.append(r)
                continue
            if "measured_wavefronts" not in r:
                print("%s:%d: %s: no measured_wavefronts, skipped" % (path, n, r.get("id")), file=sys.stderr)
                continue
            r["_line"] = n
            r["_mask"] = parse_mask(r.get("mask", 0xFFFFFFFF))
            rows.append(r)
    return meta, rows


def predict(rows, cli):
    """Model predictions from the CLI, in order. Returns None when the CLI is not available."""
    if not cli or not os.path.exists(cli):
        return None
    keep = ("id", "width", "op", "mask", "offsets")
    text = "".join(json.dumps({k: r[k] for k in keep if k in r}) + "\n" for r in rows)
    p = subprocess.run([cli, "predict", "--jsonl", "-"], input=text, capture_output=True, text=True)
    out = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    if len(out) != len(rows):
        print("cli returned %d lines for %d patterns: %s" % (len(out), len(rows), p.stderr.strip()),
              file=sys.stderr)
        return None
    return out


# ---------------------------------------------------------------------------------------------
# Candidate rules, in Python, for exploration only (the model is sim/; this only says which
# hypothesis fits). Every function returns wavefronts for one pattern.

def lane_words(r, lane):
    a, w = r["offsets"][lane], r["width"]
    return list(range(a // 4, (a + max(w, 4) - 1) // 4 + 1)) if w >= 4 else [a // 4]


def active(r):
    return [l for l in range(WARP) if r["_mask"] >> l & 1]


def phases(r):
    per = max(1, min(WARP, LINE // r["width"]))
    out = []
    for first in range(0, WARP, per):
        ls = [l for l in range(first, first + per) if r["_mask"] >> l & 1]
        if ls:
            out.append(ls)
    return out


def words_of(r, ls):
    s = set()
    for l in ls:
        s.update(lane_words(r, l))
    return s


def degree(words):
    per_bank = Counter(w % BANKS for w in words)
    return max(per_bank.values()) if per_bank else 0


def h0(r):
    return sum(degree(words_of(r, ph)) for ph in phases(r))


def h1(r):  # identical lane-by-lane phases cost once
    seen, total = set(), 0
    for ph in phases(r):
        per = max(1, min(WARP, LINE // r["width"]))
        key = tuple((l % per, r["offsets"][l]) for l in ph)
        if key not in seen:
            total += degree(words_of(r, ph))
            seen.add(key)
    return total


def h1s(r):  # identical word sets cost once
    seen, total = set(), 0
    for ph in phases(r):
        key = frozenset(words_of(r, ph))
        if key not in seen:
            total += degree(key)
            seen.add(key)
    return total


def h3(r):  # a phase whose words were all served already is free
    served, total = set(), 0
    for ph in phases(r):
        ws = words_of(r, ph)
        if not ws <= served:
            total += degree(ws)
            served |= ws
    return total


def h2(r):  # consecutive phases merge while their union stays conflict-free
    groups = []
    for ph in phases(r):
        ws = words_of(r, ph)
        if groups and degree(groups[-1] | ws) <= 1:
            groups[-1] |= ws
        else:
            groups.append(set(ws))
    return sum(degree(g) for g in groups)


def h2any(r):  # any phases merge (first fit) while the union stays conflict-free
    groups = []
    for ph in phases(r):
        ws = words_of(r, ph)
        for g in groups:
            if degree(g | ws) <= 1:
                g |= ws
                break
        else:
            groups.append(set(ws))
    return sum(degree(g) for g in groups)


def hw(r):  # whole warp: busiest bank's distinct words
    return degree(words_of(r, active(r)))


def h128(r):  # all active bytes inside one aligned 128-byte line -> 1
    lines = {r["offsets"][l] // LINE for l in active(r)}
    return 1 if len(lines) == 1 else h0(r)


def hu(r):  # unique data fits 128 bytes -> 1
    return 1 if len(words_of(r, active(r))) <= LINE // 4 else h0(r)


HYPS = [("H0 phases", h0), ("H1 lanewise-identical", h1), ("H1s same-set", h1s),
        ("H3 served-skip", h3), ("H2 adj-disjoint", h2), ("H2any disjoint", h2any),
        ("HW whole-warp", hw), ("H128 one-line", h128), ("HU unique<=128B", hu)]


def score_hypotheses(rows, show):
    wide = [r for r in rows if r["width"] >= 8]
    print("\n== hypotheses for 64/128-bit accesses (measured wavefronts) ==")
    keys = sorted({(r["width"], r["op"]) for r in wide})
    print("%-24s" % "hypothesis" + "".join("%12s" % ("%dB %s" % k) for k in keys) + "%12s" % "all")
    wrong = {}
    for name, f in HYPS:
        cells, bad = [], []
        for k in keys:
            sub = [r for r in wide if (r["width"], r["op"]) == k]
            hit = 0
            for r in sub:
                if f(r) == r["measured_wavefronts"]:
                    hit += 1
                else:
                    bad.append(r)
            cells.append("%5d/%-5d" % (hit, len(sub)))
        print("%-24s" % name + "".join("%12s" % c for c in cells) + "%12s" % ("%d/%d" % (len(wide) - len(bad), len(wide))))
        wrong[name] = bad
    for name, _f in HYPS:
        bad = wrong[name]
        if not bad:
            continue
        print("\n-- %s misses %d; first %d (pred/measured):" % (name, len(bad), min(show, len(bad))))
        fn = dict(HYPS)[name]
        for r in bad[:show]:
            print("   %-32s %2dB %s %s  %d/%d  %s" % (r["id"], r["width"], r["op"], r["mask"], fn(r),
                                                    r["measured_wavefronts"], r.get("desc", "")))


def ideal_table(rows):
    print("\n== implied ideal (measured wavefronts - measured bank conflicts) vs active phases ==")
    t = defaultdict(Counter)
    for r in rows:
        if "measured_bank_conflicts" not in r:
            continue
        ideal = r["measured_wavefronts"] - r["measured_bank_conflicts"]
        t[(r["width"], r["op"])][(len(phases(r)), ideal)] += 1
    for k in sorted(t):
        cells = ", ".join("phases %d -> ideal %d: %d" % (p, i, n) for (p, i), n in sorted(t[k].items()))
        print("  %2dB %s  %s" % (k[0], k[1], cells))


def probe_table(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r.get("family") in ("phase8", "phase16") and r.get("op") == "ld":
                r["_mask"] = parse_mask(r["mask"])
                rows.append(r)
    names = [n.split()[0] for n, _f in HYPS]
    print("| id (ld; st twin ends _st) | mask | " + " | ".join(names) + " |")
    print("|" + "---|" * (len(names) + 2))
    for r in rows:
        vals = [f(r) for _n, f in HYPS]
        print("| %s | %s | %s |" % (r["id"], r["mask"], " | ".join(str(v) for v in vals)))
    return 0


def main():
    ap = argparse.ArgumentParser(description="analyze a measured conformance file")
    ap.add_argument("measured")
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "..", "build", "bin", "bankscope-cli"),
                    help="bankscope-cli used for the model's predictions")
    ap.add_argument("--show", type=int, default=8, help="examples per group")
    ap.add_argument("--hyp", action="store_true", help="score the 64/128-bit hypotheses")
    ap.add_argument("--probes", action="store_true",
                    help="no measurements needed: print each hypothesis' wavefronts for the phase8/"
                         "phase16 probes of the given pattern file (a table for README.md)")
    args = ap.parse_args()
    if args.probes:
        return probe_table(args.measured)
    meta, rows = load(args.measured)
    for m in meta:
        print("measured on:", json.dumps(m))
    print("%d measured patterns" % len(rows))
    pred = predict(rows, args.cli)
    if pred is None:
        print("(no model predictions: %s not found; build it or pass --cli)" % args.cli)
    else:
        groups = defaultdict(list)
        fam_total = Counter()
        for r, p in zip(rows, pred):
            key = (r.get("family", "?"), r["width"], r["op"])
            fam_total[key] += 1
            if "error" in p:
                groups[key].append((r, None, p["error"]))
            elif (p["wavefronts"], p["bank_conflicts"]) != (r["measured_wavefronts"], r.get("measured_bank_conflicts")):
                groups[key].append((r, p, None))
        n_bad = sum(len(v) for v in groups.values())
        print("model: %d of %d match on both metrics (%.1f%%)" % (len(rows) - n_bad, len(rows),
                                                                   100.0 * (len(rows) - n_bad) / max(1, len(rows))))
        print("\n== mismatches by family / width / op (model wavefronts/conflicts vs measured) ==")
        for key in sorted(groups, key=lambda k: (-len(groups[k]), k)):
            items = groups[key]
            print("%-10s %2dB %s: %d of %d differ" % (key[0], key[1], key[2], len(items), fam_total[key]))
            for r, p, err in items[:args.show]:
                if err:
                    print("   %-32s model error: %s" % (r["id"], err))
                else:
                    print("   %-32s %s  model %d/%d  measured %d/%d  %s" % (
                        r["id"], r["mask"], p["wavefronts"], p["bank_conflicts"], r["measured_wavefronts"],
                        r.get("measured_bank_conflicts", -1), r.get("desc", "")))
    ideal_table(rows)
    if args.hyp:
        score_hypotheses(rows, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
