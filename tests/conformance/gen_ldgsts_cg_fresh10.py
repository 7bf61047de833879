#!/usr/bin/env python3
# gen_ldgsts_cg_fresh10.py: a FRESH cp.async .cg batch for predict-then-measure of rule H10
# (sim/RULES.md R9, .cg), found on the .cg small-structure probe (gen_ldgsts_cg_small.py,
# 2026-12-01v). Other seed and other constructions than every earlier batch: the earlier fresh
# batch's source and destination layouts (gen_ldgsts_fresh.py) at 16 bytes, tile loads into
# 64/128-byte-swizzled rows (what CUTLASS and cuBLAS issue), and "twice" layouts where pieces are
# read by several lanes into the same one or two rows (H10's rank), with random masks on a quarter
# of the lines. Deterministic.
#
#   python3 tests/conformance/gen_ldgsts_cg_fresh10.py            # writes ldgsts_cg_fresh10.jsonl
#   python3 tests/conformance/gen_ldgsts_cg_fresh10.py --check    # exit 1 if the file differs
#   python3 tests/conformance/gen_ldgsts_cg_fresh10.py --predict  # writes ldgsts_cg_fresh10_predicted.jsonl
#       (H10 by scripts/ldgsts_rules.py; committed BEFORE the batch is measured)
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

SEED = 10_2026_12_01
COUNT = 200
OUT_FILE = os.path.join(HERE, "ldgsts_cg_fresh10.jsonl")
PRED_FILE = os.path.join(HERE, "ldgsts_cg_fresh10_predicted.jsonl")


def swz(o, b):
    """Swizzle<b,4,3> on a byte offset: bits 4.. (b of them) ^= bits 7.. (the TMA/cp.async swizzles)."""
    return o ^ (((o >> 7) & ((1 << b) - 1)) << 4)


def special(rng):
    """(name, src, dst) of 16-byte lanes."""
    t = rng.choice(("tile", "twice", "rowperm"))
    if t == "tile":
        # rows of `per` pieces of a row-major matrix (lda bytes) into a swizzled shared tile
        per = rng.choice((4, 8))
        lda = rng.choice((256, 512, 1024, 4096, 8192)) + rng.choice((0, 0, 16, 64))
        b = rng.choice((1, 2, 3))
        base = rng.randrange(4) * 1024
        src = [(l // per) * lda + (l % per) * 16 for l in range(WARP)]
        dst = [swz(base + (l // per) * per * 16 + (l % per) * 16, b) for l in range(WARP)]
        return "tile_per%d_lda%d_sw%d" % (per, lda, b), src, dst
    if t == "twice":
        # pieces of one or two lines read by several lanes each, into the slots of one or two rows
        # (H10's rank counts repeats within a row: the repeats must share one)
        nrows = rng.choice((1, 2))
        lines = rng.choice((1, 2))
        pool = [(rng.randrange(lines), rng.randrange(8)) for _ in range(rng.randint(2, 6))]
        slots = rng.sample([(r, q) for r in range(nrows) for q in range(8)], 8 * nrows)
        base = rng.randrange(1, 64) * 128
        src = [l * 16 for l in range(WARP)]
        dst = [l * 16 for l in range(WARP)]
        for l, (r, q) in enumerate(slots):
            ln, pc = rng.choice(pool)
            src[l] = base + (ln * 40 * 128) + pc * 16
            dst[l] = 2048 + r * 128 + q * 16
        # lanes past the slots repeat an earlier lane's destination (dropped by H10)
        for l in range(len(slots), WARP):
            src[l], dst[l] = src[l % len(slots)], dst[l % len(slots)]
        return "twice_r%d_l%d" % (nrows, lines), src, dst
    # one line's pieces permuted into rows
    rows = rng.choice((1, 2, 4))
    src = [rng.randrange(1, 512) * 128 + rng.randrange(8) * 16 for _ in range(WARP)]
    dst = [(l % rows) * 128 + rng.randrange(8) * 16 + 128 * rng.randrange(16) for l in range(WARP)]
    return "rowperm%d" % rows, src, dst


def build():
    b = Batch()
    b.keys = set(v1.build().keys) | set(f1.build().keys)
    rng = random.Random(SEED)
    made = 0
    while made < COUNT:
        if made % 2 == 0:
            name, src, dst = special(rng)
        else:
            sname, src = f1.src_layout(16, rng)
            dname, dst = f1.dst_layout(16, rng)
            name = "%s_%s" % (sname, dname)
        src = [s % v1.SRC_LIMIT // 16 * 16 for s in src]
        dst = [d % v1.DST_LIMIT // 16 * 16 for d in dst]
        mask = FULL if rng.random() < 0.75 else (rng.getrandbits(32) or 1)
        pf = rng.choice((0, 0, 128, 64, 256)) if rng.random() < 0.3 else 0
        if b.add("h10_%03d_%s" % (made, name), "fresh10", 16, "cg", dst, src, "fresh10: %s" % name, mask=mask, pf=pf):
            made += 1
    return b


def main():
    import ldgsts_rules as R  # noqa: E402
    rows = build().rows
    text = "".join(json.dumps(r) + "\n" for r in rows)
    return batch_cli.fresh_main("fresh cp.async .cg batch for predict-then-measure of H10", text, rows, R.h10_cg_rank, "H10_cg_rank", OUT_FILE, PRED_FILE)

if __name__ == "__main__":
    sys.exit(main())
