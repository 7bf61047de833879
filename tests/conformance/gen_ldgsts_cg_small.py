#!/usr/bin/env python3
# gen_ldgsts_cg_small.py: issue 11's cp.async .cg probe (16-byte cp.async.cg, L1 bypass). R9's .cg
# rule (H8, sim/RULES.md) misses 15 of 190 measured .cg lines; this batch measures the smallest
# cases exhaustively, as gen_ldgsts_small.py did for .ca (where that found the exact rule H9).
# A lane copies one 16-byte piece: source piece p (0-7) of a 128-byte global line into destination
# piece q (0-7) of a 128-byte shared row. Lanes 0..k-1 (one quarter-warp), k <= 8.
#
# Families:
#   c2      every (p1, q1, p2, q2) with q1 != q2, one line into one row: 8 x 8 x 8 x 7 = 3584
#   c2row   300 random pairs into two different rows (same line)
#   c2line  300 random pairs from two different lines (same row)
#   c3      400 random triples, one line into one row (distinct q)
#   c4_8    400 random sets of 4-8 lanes, one line into one row (distinct q)
#   cmix    300 random sets of 3-8 lanes over 2 lines and 2 rows
# Deterministic (stdlib, fixed seed).
#
#   python3 tests/conformance/gen_ldgsts_cg_small.py            # writes ldgsts_cg_small_v1.jsonl
#                                                               # (not committed: this makes it)
#   python3 tests/conformance/gen_ldgsts_cg_small.py --stdout   # the batch on stdout
import json
import os
import random
import batch_cli  # noqa: E402  (the generators' shared command lines, beside this file)

WARP = 32
HERE = os.path.dirname(os.path.abspath(__file__))
OUT_FILE = os.path.join(HERE, "ldgsts_cg_small_v1.jsonl")
SEED = 20261201_9
LINE0, ROW0 = 40, 3  # the source line and destination row (x 128 bytes)


def line(pid, family, lanes):
    """lanes: [(source line, p, row, q)] for lanes 0..k-1."""
    src = [l * 16 for l in range(WARP)]
    dst = [l * 16 for l in range(WARP)]
    for i, (sl, p, r, q) in enumerate(lanes):
        src[i] = (LINE0 + sl) * 128 + p * 16
        dst[i] = (ROW0 + r) * 128 + q * 16
    desc = " ".join("%d%s>%d%s" % (p, "'" * sl, q, "'" * r) for sl, p, r, q in lanes)
    return {"id": pid, "family": family, "op": "ldgsts", "width": 16, "cache": "cg",
            "mask": "0x%08x" % ((1 << len(lanes)) - 1), "offsets": dst, "src": src,
            "desc": "pieces (source>destination, ' = second line/row): " + desc}


def build():
    rng = random.Random(SEED)
    rows = []
    for p1 in range(8):
        for q1 in range(8):
            for p2 in range(8):
                for q2 in range(8):
                    if q1 != q2:
                        rows.append(line("cg_c2_%d%d%d%d" % (p1, q1, p2, q2), "c2", [(0, p1, 0, q1), (0, p2, 0, q2)]))
    for k in range(300):
        rows.append(line("cg_c2row_%03d" % k, "c2row",
                         [(0, rng.randrange(8), 0, rng.randrange(8)), (0, rng.randrange(8), 1, rng.randrange(8))]))
    for k in range(300):
        q1, q2 = rng.sample(range(8), 2)
        rows.append(line("cg_c2line_%03d" % k, "c2line", [(0, rng.randrange(8), 0, q1), (1, rng.randrange(8), 0, q2)]))
    for k in range(400):
        qs = rng.sample(range(8), 3)
        rows.append(line("cg_c3_%03d" % k, "c3", [(0, rng.randrange(8), 0, q) for q in qs]))
    for k in range(400):
        qs = rng.sample(range(8), rng.randint(4, 8))
        rows.append(line("cg_c48_%03d" % k, "c4_8", [(0, rng.randrange(8), 0, q) for q in qs]))
    for k in range(300):
        m = rng.randint(3, 8)
        cells = rng.sample([(r, q) for r in range(2) for q in range(8)], m)
        rows.append(line("cg_cmix_%03d" % k, "cmix", [(rng.randrange(2), rng.randrange(8), r, q) for r, q in cells]))
    return rows


def main():
    text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in build())
    return batch_cli.stdout_or_file_main("cp.async .cg small-structure probe batch", text, OUT_FILE)

if __name__ == "__main__":
    raise SystemExit(main())
