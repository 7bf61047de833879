#!/usr/bin/env python3
"""gen_fresh_r6.py: fresh patterns that could refute rule R6 (sim/rules.hpp), written AFTER the rule
was fitted to patterns.jsonl and BEFORE they were measured. Deterministic (seed 5150611).

R6 says a 64/128-bit load merges phases when every pair of active lanes (l, l^1) - or every pair
(l, l^2) - reads one address. The patterns here sit on both sides of that line: exact lane^1 /
lane^2 symmetry, the same with one lane broken, symmetry under lane^3, ^4, ^8, ^16 (which R6 says
does not merge), both symmetries at once, partial and random masks, loads and stores, in bank-
conflicting and conflict-free address pools.

    python3 gen_fresh_r6.py > fresh_r6.jsonl
"""
import json
import random

rng = random.Random(5150611)
out = []


def emit(kind, width, op, mask, offs):
    out.append({"id": f"r6_{kind}_{len(out):03d}_{op}", "family": f"r6_{kind}", "width": width,
                "op": op, "mask": f"0x{mask:08x}", "offsets": offs})


def pool(width):
    # Either spread over all banks or squeezed into a few banks (so merges can conflict).
    if rng.random() < 0.5:
        return [rng.randrange(0, 4096 // width) * width for _ in range(40)]
    base = rng.randrange(0, 8) * width
    return [base + rng.randrange(0, 24) * 128 + rng.choice([0, width]) for _ in range(40)]


def symmetric(width, partner):
    p = pool(width)
    offs = [None] * 32
    for lane in range(32):
        if offs[lane] is None:
            a = rng.choice(p)
            offs[lane] = a
            offs[lane ^ partner] = a
    return offs


def random_mask():
    r = rng.random()
    if r < 0.5:
        return 0xffffffff
    if r < 0.8:
        return rng.getrandbits(32) | 1
    return rng.choice([0x0000ffff, 0xffff0000, 0x55555555, 0xaaaaaaaa, 0x33333333, 0x0f0f0f0f])


for width in (8, 16):
    for op in ("ld", "ld", "st"):
        for partner in (1, 2, 3, 4, 8, 16):
            for _ in range(3):
                emit(f"sym{partner}", width, op, random_mask(), symmetric(width, partner))
        for _ in range(4):  # lane^1 symmetry with one active lane broken
            offs = symmetric(width, 1)
            lane = rng.randrange(32)
            offs[lane] = (offs[lane] + width * rng.choice([1, 2, 16, 32])) % 4096
            emit("sym1_broken", width, op, 0xffffffff, offs)
        for _ in range(4):  # lane^2 symmetry with one active lane broken
            offs = symmetric(width, 2)
            lane = rng.randrange(32)
            offs[lane] = (offs[lane] + width * rng.choice([1, 2, 16, 32])) % 4096
            emit("sym2_broken", width, op, 0xffffffff, offs)
        for _ in range(3):  # both: lanes of a quad share one address
            p = pool(width)
            rng.shuffle(p)
            offs = [p[lane // 4] for lane in range(32)]
            emit("quad", width, op, random_mask(), offs)
        for _ in range(3):  # a broken pair whose lanes are masked off: R6 says it still merges
            offs = symmetric(width, 1)
            lane = rng.randrange(32)
            offs[lane] = (offs[lane] + width) % 4096
            emit("sym1_masked", width, op, 0xffffffff & ~(1 << lane), offs)

for o in out:
    print(json.dumps(o, separators=(", ", ": ")))
