#!/usr/bin/env python3
# gen_ldgsts_fresh.py: a FRESH cp.async (LDGSTS) batch with global sources, for predict-then-measure
# once a rule has been chosen from ldgsts_src_v1 (README_ldgsts_src.md). Other seed, other shapes:
# every pattern is drawn from random source and destination constructions (random line counts,
# column groups of random size and lda, random bases, strides, permutations, swizzled tile rows,
# random masks, the .L2::<n>B hint), none copied from the probe batch. Deterministic (stdlib).
#
#   python3 tests/conformance/gen_ldgsts_fresh.py                  # writes ldgsts_fresh.jsonl
#   python3 tests/conformance/gen_ldgsts_fresh.py --check          # exit 1 if the file differs
#   python3 tests/conformance/gen_ldgsts_fresh.py --predict --rule-ca H6_ca_serial --rule-cg H8_cg_dihedral
#       # writes ldgsts_fresh_predicted.jsonl: {"id", "wavefronts", "bank_conflicts", "rule"} per line,
#       # from scripts/ldgsts_rules.py; commit it BEFORE measuring (scripts/h200_ldgsts.sh with
#       # LDGSTS_BATCH=tests/conformance/ldgsts_fresh.jsonl scores the measurement against it)
import argparse
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import gen_ldgsts_src_v1 as v1  # noqa: E402
from gen_ldgsts_src_v1 import Batch, FULL, KINDS, WARP  # noqa: E402

SEED = 77112026
PER_KIND = 40
OUT_FILE = os.path.join(HERE, "ldgsts_fresh.jsonl")
PRED_FILE = os.path.join(HERE, "ldgsts_fresh_predicted.jsonl")


def src_layout(w, rng):
    t = rng.choice(("lines", "colgroups", "based", "strided", "perm", "interleave", "random"))
    if t == "lines":
        n = rng.choice((1, 2, 3, 5, 6, 8, 10, 16, 24, 32))
        lines = rng.sample(range(1, 4096), n)
        return "lines%d" % n, [lines[l % n] * 128 + rng.randrange(128 // w) * w for l in range(WARP)]
    if t == "colgroups":
        g = rng.choice((1, 2, 4, 8, 16))
        lda = rng.choice((96, 257, 640, 1000, 2048, 3072, 8192)) * 4
        base = rng.randrange(32 // w) * w if w < 32 else 0
        lda -= lda % w
        return "col_g%d_lda%d" % (g, lda // 4), [base + (l // g) * lda + (l % g) * w for l in range(WARP)]
    if t == "based":
        base = rng.randrange(1, 64) * w
        return "base%d" % base, [base + l * w for l in range(WARP)]
    if t == "strided":
        st = rng.choice((24, 40, 48, 80, 96, 160, 192, 384, 768, 1536))
        st -= st % w
        st = max(st, w)
        return "stride%d" % st, [l * st for l in range(WARP)]
    if t == "perm":
        k = rng.choice((1, 2, 4))
        perm = list(range(WARP))
        rng.shuffle(perm)
        return "perm_x%d" % k, [perm[l] * w * k for l in range(WARP)]
    if t == "interleave":
        k = rng.choice((3, 8, 16))
        return "inter%d" % k, [(l % k) * 2048 + (l // k) * w for l in range(WARP)]
    return "rand", [rng.randrange(1 << 20) // w * w for _ in range(WARP)]


def swz128(o):
    """CuTe Swizzle<3,4,3> on a byte offset (bits 4-6 ^= bits 7-9): the 128-byte TMA/cp.async swizzle."""
    return o ^ (((o >> 7) & 7) << 4)


def dst_layout(w, rng):
    t = rng.choice(("contig", "strided", "tile", "tile_sw", "pool", "random", "transposed"))
    if t == "contig":
        base = rng.randrange(64) * 128
        return "contig", [base + l * w for l in range(WARP)]
    if t == "strided":
        k = rng.choice((2, 3, 4, 6, 7, 9, 16, 33))
        return "es%d" % k, [(l * k * w) % 16384 for l in range(WARP)]
    if t in ("tile", "tile_sw"):
        row = rng.choice((64, 128, 256))
        per = row // w
        o = [(l // per) * row + (l % per) * w if per <= WARP else l * w for l in range(WARP)]
        return t + str(row), ([swz128(x) for x in o] if t == "tile_sw" else o)
    if t == "pool":
        pool = [rng.randrange(2048 // w) * w for _ in range(rng.choice((2, 3, 6)))]
        return "pool%d" % len(pool), [rng.choice(pool) for _ in range(WARP)]
    if t == "transposed":
        g = rng.choice((4, 8))
        pad = rng.choice((0, 1, 4))
        return "T%d_pad%d" % (g, pad), [((l % g) * (64 + pad) * 4 + (l // g) * w) // w * w for l in range(WARP)]
    return "rand", [rng.randrange(4096 // w) * w for _ in range(WARP)]


def build():
    b = Batch()
    b.keys = set(v1.build().keys)  # nothing the probe batch already measures
    rng = random.Random(SEED)
    for w, c in KINDS:
        made = 0
        while made < PER_KIND:
            sname, src = src_layout(w, rng)
            dname, dst = dst_layout(w, rng)
            mask = FULL if rng.random() < 0.75 else (rng.getrandbits(32) or 1)
            pf = rng.choice((0, 0, 128, 64, 256)) if rng.random() < 0.4 else 0
            if b.add("f%02d_%s_%s" % (made, sname, dname), "fresh", w, c, dst, src,
                     "fresh: src %s, dst %s" % (sname, dname), mask=mask, pf=pf):
                made += 1
    return b


def main():
    ap = argparse.ArgumentParser(description="fresh cp.async batch for predict-then-measure")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--predict", action="store_true", help="write the predictions of the chosen rules")
    ap.add_argument("--rule-ca", default="H6_ca_serial", help=".ca rule (scripts/ldgsts_rules.py HYPOTHESES)")
    ap.add_argument("--rule-cg", default="H8_cg_dihedral", help=".cg rule")
    ap.add_argument("--out", default=OUT_FILE)
    ap.add_argument("--pred-out", default=PRED_FILE)
    a = ap.parse_args()
    b = build()
    text = "".join(json.dumps(r) + "\n" for r in b.rows)
    if a.check:
        with open(a.out) as f:
            same = f.read() == text
        print("%s: %s" % (a.out, "up to date" if same else "DIFFERS from the generator"))
        return 0 if same else 1
    if a.predict:
        import ldgsts_rules as R  # noqa: E402
        for n in (a.rule_ca, a.rule_cg):
            if n not in R.HYPOTHESES:
                print("gen_ldgsts_fresh: rule %s: not one of %s" % (n, ", ".join(R.HYPOTHESES)), file=sys.stderr)
                return 2
        lines = []
        for r in b.rows:
            rule = a.rule_cg if r["cache"] == "cg" else a.rule_ca
            wf, cf = R.HYPOTHESES[rule](r)
            lines.append(json.dumps({"id": r["id"], "wavefronts": wf, "bank_conflicts": cf, "rule": rule}) + "\n")
        with open(a.pred_out, "w") as f:
            f.write("".join(lines))
        print("%d predictions (%s for .ca, %s for .cg) -> %s" % (len(lines), a.rule_ca, a.rule_cg, a.pred_out))
        return 0
    with open(a.out, "w") as f:
        f.write(text)
    print("%d patterns -> %s" % (len(b.rows), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
