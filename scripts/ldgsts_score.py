#!/usr/bin/env python3
# ldgsts_score.py: scores the cp.async (LDGSTS) candidate rules of scripts/ldgsts_rules.py against
# measured JSONL (bankscope-gpu patterns output: measured_wavefronts / measured_bank_conflicts are
# smsp__sass_l1tex_data_{pipe_lsu_wavefronts,bank_conflicts_pipe_lsu}_mem_shared_op_ldgsts, else the
# l1tex__ pair, per pattern), per family and per kind (width, cache, prefetch hint).
#
#   python3 scripts/ldgsts_score.py MEASURED.jsonl [MORE.jsonl ...]
#       [--also assets/results/h200/2026-11-30a/patterns_v2_measured.jsonl]  (its ldgsts lines too)
#       [--global ldgsts_src_v1_global.jsonl]   (the run with global-side metrics: which counter, if
#                                                any, the shared wavefronts equal)
#       [--show H1_per_line]                    (list that hypothesis's mismatches)
#       [--json summary.json]
#       [--predicted tests/conformance/ldgsts_fresh_predicted.jsonl]  (predict-then-measure score)
# Exit 0 always (a score, not a test); 2 on unreadable input.
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ldgsts_rules as R  # noqa: E402


def load(path, only_ldgsts=True):
    rows = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                except ValueError as e:
                    sys.exit("ldgsts_score: %s:%d: not JSON (%s)" % (path, n, e))
                if only_ldgsts and r.get("op") != "ldgsts":
                    continue
                rows.append(r)
    except OSError as e:
        print("ldgsts_score: cannot read %s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)
    return rows


def kind(r):
    k = "w%d%s" % (r["width"], r.get("cache", "ca"))
    if r.get("l2_prefetch"):
        k += "_pf%d" % r["l2_prefetch"]
    return k


def measured(r):
    if "measured_wavefronts" not in r or "measured_bank_conflicts" not in r:
        return None
    return int(r["measured_wavefronts"]), int(r["measured_bank_conflicts"])


def score(rows, names):
    """{name: {(family, kind): [n, wf_ok, cf_ok, both_ok]}} over rows with measurements."""
    out = {n: {} for n in names}
    for r in rows:
        m = measured(r)
        if m is None:
            continue
        fam = r.get("family", "v2")
        for n in names:
            wf, cf = R.HYPOTHESES[n](r)
            for key in ((fam, kind(r)), (fam, "*"), ("*", kind(r)), ("*", "*")):
                c = out[n].setdefault(key, [0, 0, 0, 0])
                c[0] += 1
                c[1] += wf == m[0]
                c[2] += cf == m[1]
                c[3] += wf == m[0] and cf == m[1]
    return out


def table(sc, names, title):
    lines = [title, "  wavefronts right / patterns (both counters right in brackets)"]
    keys = sorted({k for n in names for k in sc[n]}, key=lambda k: (k[0] == "*", k[0], k[1] == "*", k[1]))
    lines.append("  %-10s %-14s %5s  " % ("family", "kind", "n") + "  ".join("%-15s" % n for n in names))
    for k in keys:
        n_ = sc[names[0]][k][0]
        cells = []
        for n in names:
            c = sc[n][k]
            cells.append("%-15s" % ("%d (%d)" % (c[1], c[3])))
        lines.append("  %-10s %-14s %5d  " % (k[0], k[1], n_) + "  ".join(cells))
    return "\n".join(lines)


def repeats(rows):
    """Each *_rep<k> line against its original: the same counts or not."""
    by_id = {r["id"]: r for r in rows if "id" in r}
    out = []
    for r in rows:
        rid = r.get("id", "")
        if "_rep" not in rid:
            continue
        orig = by_id.get(rid.rsplit("_rep", 1)[0])
        if orig is None:
            continue
        out.append((rid, measured(orig), measured(r)))
    return out


def global_side(rows, grows):
    """Joins the global-metric run by id; for each collected counter, on how many patterns the
    shared-side wavefronts equal it (per kind), and a per-pattern listing of a few."""
    by_id = {r.get("id"): r for r in grows}
    counts = {}
    sample = []
    for r in rows:
        m = measured(r)
        g = by_id.get(r.get("id"))
        if m is None or g is None:
            continue
        cs = g.get("counters", {})
        for name, v in cs.items():
            if "ldgsts" not in name and "global" not in name:
                continue
            c = counts.setdefault(name, {})
            for k in (kind(r), "*"):
                e = c.setdefault(k, [0, 0])
                e[0] += 1
                e[1] += v == m[0]
        if len(sample) < 400:
            sample.append((r["id"], m, {k: v for k, v in cs.items() if "global" in k or "ldgsts" in k}))
    return counts, sample


def main():
    ap = argparse.ArgumentParser(description="score cp.async candidate rules against measured JSONL")
    ap.add_argument("measured", nargs="+")
    ap.add_argument("--also", action="append", default=[], help="more measured files (their ldgsts lines)")
    ap.add_argument("--global", dest="global_", help="the run with the global-side ldgsts metrics")
    ap.add_argument("--show", action="append", default=[], help="list this hypothesis's mismatches")
    ap.add_argument("--json", help="write the per-hypothesis totals here")
    ap.add_argument("--predicted", help="predictions committed before measuring (id, wavefronts, bank_conflicts, rule)")
    a = ap.parse_args()
    names = list(R.HYPOTHESES)
    rows = [r for p in a.measured for r in load(p)]
    also = [r for p in a.also for r in load(p)]
    n_meas = sum(measured(r) is not None for r in rows)
    print("ldgsts_score: %d ldgsts lines (%d measured) from %s" % (len(rows), n_meas, ", ".join(a.measured)))
    sc = score(rows, names)
    print(table(sc, names, "== the probe batch"))
    if also:
        sc2 = score(also, names)
        print()
        print(table(sc2, names, "== earlier measurements (%s): source = lane * width" % ", ".join(a.also)))
    print()
    print("== totals (both counters right / measured), probe batch + earlier")
    tot = {}
    for n in names:
        c1 = sc[n].get(("*", "*"), [0, 0, 0, 0])
        c2 = score(also, [n])[n].get(("*", "*"), [0, 0, 0, 0]) if also else [0, 0, 0, 0]
        tot[n] = {"probe_n": c1[0], "probe_wf": c1[1], "probe_both": c1[3], "earlier_n": c2[0], "earlier_wf": c2[1],
                  "earlier_both": c2[3]}
        print("  %-15s probe %3d/%3d wf, %3d both;  earlier %3d/%3d wf, %3d both" %
              (n, c1[1], c1[0], c1[3], c2[1], c2[0], c2[3]))
    print()
    print("== best hypothesis per kind on the probe batch (both counters right / measured; ties listed)")
    for k in sorted({kk for n in names for kk in sc[n] if kk[0] == "*" and kk[1] != "*"}, key=lambda x: x[1]):
        best = max(sc[n][k][3] for n in names)
        n_ = sc[names[0]][k][0]
        print("  %-14s %3d/%-3d %s" % (k[1], best, n_, ", ".join(n for n in names if sc[n][k][3] == best)))
    rep = repeats(rows)
    if rep:
        same = sum(x[1] == x[2] for x in rep)
        print()
        print("== repeats: %d of %d repeated patterns measure the same as their original" % (same, len(rep)))
        for rid, o, n in rep:
            if o != n:
                print("  differs: %s original %s repeat %s" % (rid, o, n))
    if a.global_:
        grows = load(a.global_)
        counts, sample = global_side(rows, grows)
        print()
        print("== global side (%s): patterns whose shared wavefronts equal the counter" % a.global_)
        for name in sorted(counts):
            c = counts[name]
            print("  %-70s %s" % (name, "  ".join("%s %d/%d" % (k, v[1], v[0]) for k, v in sorted(c.items()))))
        print("  per pattern (id: measured wf/cf | global counters):")
        for rid, m, cs in sample:
            print("    %-40s %3d/%-3d | %s" % (rid, m[0], m[1], " ".join("%s=%s" % (k.split("__", 1)[-1], v)
                                                                      for k, v in sorted(cs.items()))))
    if a.predicted:
        # prediction lines carry no "op": keep them all
        pred = {r.get("id"): r for r in load(a.predicted, only_ldgsts=False)}
        n = ok = 0
        bad = []
        for r in rows:
            m, p = measured(r), pred.get(r.get("id"))
            if m is None or p is None:
                continue
            n += 1
            if (p["wavefronts"], p["bank_conflicts"]) == m:
                ok += 1
            else:
                bad.append((r["id"], kind(r), m, (p["wavefronts"], p["bank_conflicts"]), p.get("rule", "")))
        print()
        print("== predicted before measuring (%s): %d of %d right on both counters" % (a.predicted, ok, n))
        for b in bad:
            print("  %-42s %-10s measured %s predicted %s (%s)" % b)
    for h in a.show:
        if h not in R.HYPOTHESES:
            print("ldgsts_score: --show %s: not one of %s" % (h, ", ".join(names)), file=sys.stderr)
            continue
        print()
        print("== %s mismatches" % h)
        for r in rows + also:
            m = measured(r)
            if m is None:
                continue
            p = R.HYPOTHESES[h](r)
            if p != m:
                print("  %-42s %-10s measured %3d/%-3d predicted %3d/%-3d  %s" %
                      (r.get("id"), kind(r), m[0], m[1], p[0], p[1], r.get("desc", "")))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(tot, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
