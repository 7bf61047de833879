#!/usr/bin/env python3
# gen_ldgsts_small.py: issue 11's cp.async .ca arbitration probe. R9's .ca rule (H6, sim/RULES.md)
# misses 24 of 554 measured .ca lines, all where lanes collide on their SOURCE banks and on their
# DESTINATION banks at once, and no rule tried on those lines fits them all (the hardware packs
# worse than the best packing, better than H6). This batch pins the arbitration down from the
# bottom: every collision structure of 3, 4 and 5 active lanes, enumerated.
#
# A structure is a pair of set partitions of the active lanes (in lane order): lanes in one source
# class read different words on ONE source bank (each lane its own 128-byte line), lanes in one
# destination class write different words on ONE destination bank (each lane its own 128-byte
# row); different classes use different banks. 4-byte .ca, one phase (the warp), so a structure's
# count is a function of the collision structure alone if the hardware's arbitration is.
#
# Families:
#   s3, s4, s5   every structure of 3, 4, 5 lanes on lanes 0..n-1 (5 x 5, 15 x 15, 52 x 52)
#   pos          120 s5 structures again on spread lanes (0, 7, 13, 20, 31 and others): lane
#                positions vs lane order
#   same         120 s5 structures with source class c on bank c AND destination class c on bank
#                c (the main families keep source banks 0-7 and destination banks 16-23 apart):
#                whether a source and a destination on one bank number interact
#   lines        120 s5 structures whose lanes of different source classes share 128-byte lines:
#                whether the source line matters
#   s8           200 random structures of 8 lanes (2-4 classes a side): a check on whatever
#                rule the enumerations give
# Deterministic (stdlib, fixed seed).
#
#   python3 tests/conformance/gen_ldgsts_small.py            # writes ldgsts_small_v1.jsonl (not
#                                                            # committed: 1.4 MB, this makes it)
#   python3 tests/conformance/gen_ldgsts_small.py --stdout   # the batch on stdout (ctest
#                                                            # conformance.h200_ldgsts_small)
import json
import os
import random
import batch_cli  # noqa: E402  (the generators' shared command lines, beside this file)

WARP = 32
HERE = os.path.dirname(os.path.abspath(__file__))
OUT_FILE = os.path.join(HERE, "ldgsts_small_v1.jsonl")
SEED = 20261201_8


def partitions(n):
    """Set partitions of range(n) as restricted growth strings (class of lane i, classes in order
    of first use)."""
    out = []

    def rec(prefix, top):
        if len(prefix) == n:
            out.append(tuple(prefix))
            return
        for c in range(top + 2):
            rec(prefix + [c], max(top, c))

    rec([0], 0)
    return out


def build_line(pid, family, lanes, scls, dcls, src_bank0=0, dst_bank0=16, share_lines=False):
    """One pattern: lanes[i] gets source class scls[i] and destination class dcls[i]."""
    n = len(lanes)
    src = [l * 4 for l in range(WARP)]       # inactive lanes: the harness default, never used
    dst = [l * 4 for l in range(WARP)]
    mask = 0
    for i, lane in enumerate(lanes):
        mask |= 1 << lane
        sbank = (src_bank0 + scls[i]) % 32
        dbank = (dst_bank0 + dcls[i]) % 32
        # Source: each lane its own line (lines 3 + 5 i), or, with share_lines, the k-th lane of a
        # class in line k (lanes of different classes share lines; one class never repeats a line).
        if share_lines:
            k = sum(1 for j in range(i) if scls[j] == scls[i])
            line = 3 + 5 * k
        else:
            line = 3 + 5 * i
        src[lane] = line * 128 + sbank * 4
        dst[lane] = (2 + 3 * i) * 128 + dbank * 4   # each lane its own 128-byte row
    desc = "src classes %s, dst classes %s, lanes %s" % ("".join(map(str, scls)), "".join(map(str, dcls)),
                                                       ",".join(map(str, lanes)))
    return {"id": pid, "family": family, "op": "ldgsts", "width": 4, "cache": "ca", "mask": "0x%08x" % mask,
            "offsets": dst, "src": src, "desc": desc}


def build():
    rng = random.Random(SEED)
    rows = []
    for n in (3, 4, 5):
        parts = partitions(n)
        for a, sp in enumerate(parts):
            for b, dp in enumerate(parts):
                rows.append(build_line("sm_s%d_%02d_%02d" % (n, a, b), "s%d" % n, list(range(n)), sp, dp))
    p5 = partitions(5)
    pairs = [(a, b) for a in range(len(p5)) for b in range(len(p5))]
    spreads = [(0, 7, 13, 20, 31), (3, 4, 16, 17, 30), (1, 9, 10, 24, 25), (5, 6, 7, 8, 9)]
    for k, (a, b) in enumerate(rng.sample(pairs, 120)):
        rows.append(build_line("sm_pos_%03d" % k, "pos", list(spreads[k % 4]), p5[a], p5[b]))
    for k, (a, b) in enumerate(rng.sample(pairs, 120)):
        rows.append(build_line("sm_same_%03d" % k, "same", list(range(5)), p5[a], p5[b], 0, 0))
    for k, (a, b) in enumerate(rng.sample(pairs, 120)):
        rows.append(build_line("sm_lines_%03d" % k, "lines", list(range(5)), p5[a], p5[b], share_lines=True))
    for k in range(200):
        ns, nd = rng.randint(2, 4), rng.randint(2, 4)
        sp = [rng.randrange(ns) for _ in range(8)]
        dp = [rng.randrange(nd) for _ in range(8)]
        rows.append(build_line("sm_s8_%03d" % k, "s8", list(range(8)), sp, dp))
    return rows


def dump(rows):
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)


def main():
    return batch_cli.stdout_or_file_main("cp.async .ca arbitration probe batch", dump(build()), OUT_FILE)

if __name__ == "__main__":
    raise SystemExit(main())
