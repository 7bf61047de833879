#!/usr/bin/env python3
# gen_ldgsts_fresh9.py: a FRESH cp.async .ca batch for predict-then-measure of rule H9 (sim/RULES.md
# R9, "a lane's neighbourhood"), found on the small-structure probe (gen_ldgsts_small.py,
# 2026-12-01u). Other seed, other constructions than every earlier batch: the earlier fresh
# batch's source and destination layouts (gen_ldgsts_fresh.py), and "both" layouts that make
# sources AND destinations collide (few source banks over many lines, few destination banks over
# many rows, column groups into transposed tiles, pools), where H9 and the old H6 disagree most.
# 4, 8 and 16-byte .ca; random masks on a quarter of the lines. Deterministic (stdlib).
#
#   python3 tests/conformance/gen_ldgsts_fresh9.py            # writes ldgsts_fresh9.jsonl
#   python3 tests/conformance/gen_ldgsts_fresh9.py --check    # exit 1 if the file differs
#   python3 tests/conformance/gen_ldgsts_fresh9.py --predict  # writes ldgsts_fresh9_predicted.jsonl
#       (H9 by scripts/ldgsts_rules.py; committed BEFORE the batch is measured)
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import gen_ldgsts_fresh as f1  # noqa: E402
import gen_ldgsts_src_v1 as v1  # noqa: E402
from gen_ldgsts_src_v1 import Batch, FULL, WARP  # noqa: E402
import batch_cli  # noqa: E402  (the generators' shared command lines, beside this file)

SEED = 9_2026_12_01
PER_KIND = 80
OUT_FILE = os.path.join(HERE, "ldgsts_fresh9.jsonl")
PRED_FILE = os.path.join(HERE, "ldgsts_fresh9_predicted.jsonl")


def both_layout(w, rng):
    """Sources and destinations that both collide: (name, src, dst)."""
    t = rng.choice(("banks", "colT", "pools", "groups"))
    units = 128 // w  # bank groups of a 128-byte line / row
    if t == "banks":
        ns, nd = rng.randint(2, 8), rng.randint(2, 8)
        sb = rng.sample(range(units), min(ns, units))
        db = rng.sample(range(units), min(nd, units))
        src = [rng.randrange(1, 4096) * 128 + rng.choice(sb) * w for _ in range(WARP)]
        dst = [rng.randrange(0, 300) * 128 + rng.choice(db) * w for _ in range(WARP)]
        return "banks_s%d_d%d" % (ns, nd), src, dst
    if t == "colT":
        g = rng.choice((2, 4, 8))
        lda = rng.choice((256, 512, 1024, 2048, 4096)) * 4
        pad = rng.choice((0, 0, 1, 2))
        src = [(l // g) * lda + (l % g) * w for l in range(WARP)]
        dst = [((l % g) * (32 + pad) * 4 + (l // g) * w) // w * w for l in range(WARP)]
        return "colT_g%d_lda%d_pad%d" % (g, lda // 4, pad), src, dst
    if t == "pools":
        ps = [rng.randrange(1, 1 << 16) * w for _ in range(rng.randint(2, 6))]
        pd = [rng.randrange(0, 40960 // w) * w for _ in range(rng.randint(2, 6))]
        src = [rng.choice(ps) for _ in range(WARP)]
        dst = [rng.choice(pd) for _ in range(WARP)]
        return "pools_s%d_d%d" % (len(ps), len(pd)), src, dst
    # groups: lanes in groups of k share a source bank (different lines) and groups of m share a
    # destination bank (different rows), the two groupings interleaved
    k, m = rng.choice((2, 3, 4, 8)), rng.choice((2, 3, 4, 8))
    s0, d0 = rng.randrange(units), rng.randrange(units)
    src = [(7 + 3 * l) * 128 + ((s0 + l // k) % units) * w for l in range(WARP)]
    dst = [(2 + l) * 128 % 40960 + ((d0 + l % m) % units) * w for l in range(WARP)]
    return "groups_k%d_m%d" % (k, m), src, dst


def build():
    b = Batch()
    b.keys = set(v1.build().keys) | set(f1.build().keys)  # nothing an earlier batch measures
    rng = random.Random(SEED)
    for w in (4, 8, 16):
        made = 0
        while made < PER_KIND:
            if made % 2 == 0:
                name, src, dst = both_layout(w, rng)
            else:
                sname, src = f1.src_layout(w, rng)
                dname, dst = f1.dst_layout(w, rng)
                name = "%s_%s" % (sname, dname)
            src = [s % v1.SRC_LIMIT // w * w for s in src]
            dst = [d % v1.DST_LIMIT // w * w for d in dst]
            mask = FULL if rng.random() < 0.75 else (rng.getrandbits(32) or 1)
            pf = rng.choice((0, 0, 128, 64, 256)) if rng.random() < 0.3 else 0
            if b.add("h9_%02d_%s" % (made, name), "fresh9", w, "ca", dst, src, "fresh9: %s" % name,
                     mask=mask, pf=pf):
                made += 1
    return b


def main():
    import ldgsts_rules as R  # noqa: E402
    rows = build().rows
    text = "".join(json.dumps(r) + "\n" for r in rows)
    return batch_cli.fresh_main("fresh cp.async .ca batch for predict-then-measure of H9", text, rows, R.h9_ca_neighbourhood, "H9_ca_neighbourhood", OUT_FILE, PRED_FILE)

if __name__ == "__main__":
    sys.exit(main())
