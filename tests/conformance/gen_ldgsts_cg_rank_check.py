#!/usr/bin/env python3
# gen_ldgsts_cg_rank_check.py: random cp.async .cg patterns that exercise rule H10's rank and pairing
# (pieces read several times into the same one or two rows, partner halves present or not), each
# with H10's count by scripts/ldgsts_rules.py, for tests/test_ldgsts_candidates.cpp to hold the C++
# (sim/ldgsts.hpp) to. Not measured: a twin check of the two implementations, nothing more.
#   python3 tests/conformance/gen_ldgsts_cg_rank_check.py           # writes ldgsts_cg_rank_check.jsonl
#   python3 tests/conformance/gen_ldgsts_cg_rank_check.py --stdout  # the same on stdout (ctest diffs it)
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import ldgsts_rules as R  # noqa: E402
import batch_cli  # noqa: E402  (the generators' shared command lines, beside this file)

WARP = 32
OUT_FILE = os.path.join(HERE, "ldgsts_cg_rank_check.jsonl")


def build():
    rng = random.Random(20261201_11)
    rows = []
    for k in range(400):
        lines = rng.randint(1, 3)
        nrows = rng.randint(1, 2)
        pool = [(rng.randrange(lines), rng.randrange(8)) for _ in range(rng.randint(2, 10))]
        src, dst = [], []
        for l in range(WARP):
            ln, pc = rng.choice(pool)
            src.append((5 + ln) * 128 + pc * 16)
            dst.append((2 + rng.randrange(nrows)) * 128 + rng.randrange(8) * 16)
        mask = (1 << 32) - 1 if rng.random() < 0.5 else rng.getrandbits(32) or 1
        p = {"id": "rank_%03d" % k, "op": "ldgsts", "width": 16, "cache": "cg", "mask": "0x%08x" % mask,
             "offsets": dst, "src": src}
        p["h10"] = list(R.h10_cg_rank(p))
        rows.append(p)
    return rows


def main():
    text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in build())
    return batch_cli.stdout_or_file_main("H10 twin-check patterns", text, OUT_FILE)

if __name__ == "__main__":
    sys.exit(main())
