#!/usr/bin/env python3
# gen_fresh_v2.py: a FRESH issue-11 batch, predicted before it is measured. Different seed and
# generator from gen_suite_v2.py; patterns placed on both sides of the rules fitted to the first
# H200 run (sim/RULES.md R7-R9): atomics and cp.async.ca serve every lane alone (same-word lane
# groups of varied sizes, mixed with distinct words in one bank), CAS doubles the wavefronts,
# 64-bit atomics in half-warp phases, masks that empty or thin a phase, ldgsts widths and strides,
# ldmatrix/stmatrix x1/x2/x4 (.trans or not) with random 16-byte-aligned rows.
# cp.async.cg is left out on purpose: no rule fits its measurements yet (RULES.md R9).
#
#   python3 tests/conformance/gen_fresh_v2.py > tests/conformance/fresh_v2.jsonl
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_suite_v2 import FULL, WARP, Suite  # noqa: E402

SEED = 20261201
LIMIT = 49152


def rmask(rng, keep_every=False):
    m = rng.getrandbits(32) | (1 << rng.randrange(WARP))
    return FULL if keep_every else m


def groups_offsets(rng, width, sizes, same_bank):
    """Lanes split into consecutive groups of the given sizes; each group on one word. With
    same_bank every group's word is in bank 0 (distinct words, 128 B apart), else random banks."""
    offs, lane, g = [0] * WARP, 0, 0
    order = list(range(WARP))
    rng.shuffle(order)
    for size in sizes:
        if same_bank:
            base = (g * 128 * max(1, width // 4)) % LIMIT
        else:
            base = rng.randrange(0, 8192 // width) * width
        for _ in range(size):
            if lane < WARP:
                offs[order[lane]] = base
                lane += 1
        g += 1
    return offs


def split(rng, n=WARP):
    sizes = []
    while n > 0:
        k = min(n, rng.choice((1, 1, 2, 3, 4, 5, 7, 8, 12, 16)))
        sizes.append(k)
        n -= k
    return sizes


def atoms(s, rng):
    for i in range(70):
        width = rng.choice((4, 4, 8))
        op = rng.choice(("add", "min", "max", "exch", "cas") if width == 4 else ("exch", "cas"))
        kind = rng.choice(("groups_samebank", "groups_mixed", "stride", "pool", "random"))
        if kind == "groups_samebank" or kind == "groups_mixed":
            sizes = split(rng)
            offs = groups_offsets(rng, width, sizes, kind == "groups_samebank")
            desc = "same-word lane groups %s (%s)" % (sizes, "one bank" if kind == "groups_samebank" else "random banks")
        elif kind == "stride":
            st = rng.choice((0, 1, 2, 3, 4, 8, 16, 32, 33))
            offs = [(l * st * width) % LIMIT for l in range(WARP)]
            desc = "element stride %d" % st
        elif kind == "pool":
            k = rng.choice((2, 3, 5, 6))
            pool = [rng.randrange(0, 4096 // width) * width for _ in range(k)]
            offs = [rng.choice(pool) for _ in range(WARP)]
            desc = "words drawn from %d addresses" % k
        else:
            span = rng.choice((256, 512, 2048, 16384))
            offs = [rng.randrange(0, span // width) * width for _ in range(WARP)]
            desc = "random words in %d B" % span
        mask = FULL if rng.random() < 0.6 else rmask(rng)
        if rng.random() < 0.1:
            mask = rng.choice((0x0000FFFF, 0xFFFF0000, 0x000000FF, 0x80000001))
        s.add("fatom%d_%s_%d" % (width * 8, op, i), "fa_" + kind, "atom", offs, mask, desc, width=width, atom=op)


def ldgsts(s, rng):
    for i in range(60):
        width = rng.choice((4, 8, 16))
        kind = rng.choice(("stride", "groups", "pool", "random", "halves"))
        if kind == "stride":
            st = rng.choice((0, 1, 2, 3, 4, 6, 8, 9, 16, 32))
            offs = [(l * st * width) % LIMIT for l in range(WARP)]
            desc = "element stride %d" % st
        elif kind == "groups":
            sizes = split(rng)
            offs = groups_offsets(rng, width, sizes, rng.random() < 0.5)
            desc = "same-destination lane groups %s" % sizes
        elif kind == "pool":
            k = rng.choice((2, 3, 6, 8))
            pool = [rng.randrange(0, 4096 // width) * width for _ in range(k)]
            offs = [rng.choice(pool) for _ in range(WARP)]
            desc = "destinations from %d addresses" % k
        elif kind == "halves":
            shift = rng.choice((0, 128, 1024, 2048, 4096 + 16))
            shift -= shift % width
            offs = [((l % 16) * width + (shift if l >= 16 else 0)) % LIMIT for l in range(WARP)]
            desc = "half-warp 1 = half-warp 0 + %d B" % shift
        else:
            span = rng.choice((512, 2048, 8192))
            offs = [rng.randrange(0, span // width) * width for _ in range(WARP)]
            desc = "random destinations in %d B" % span
        mask = FULL if rng.random() < 0.7 else rmask(rng)
        s.add("fgsts%d_%s_%d" % (width, kind, i), "fg_" + kind, "ldgsts", offs, mask, desc, width=width, cache="ca")


def matrices(s, rng):
    for i in range(80):
        op = "ldmatrix" if i % 2 == 0 else "stmatrix"
        num = rng.choice((1, 2, 4))
        trans = rng.random() < 0.5
        kind = rng.choice(("random", "rowstride", "swizzle", "repeat"))
        if kind == "random":
            span = rng.choice((256, 1024, 4096))
            rows = [rng.randrange(0, span // 16) * 16 for _ in range(WARP)]
            desc = "random rows in %d B" % span
        elif kind == "rowstride":
            st = rng.choice((16, 32, 48, 64, 80, 128, 144, 256))
            rows = [(l * st) % LIMIT for l in range(WARP)]
            desc = "row stride %d B" % st
        elif kind == "swizzle":
            pitch = rng.choice((64, 128))
            b = rng.choice((1, 2, 3))
            rows = []
            for l in range(WARP):
                r, c = l % 8 + 8 * (l // 16), (l // 8) % 2
                chunk = (c ^ (r % (1 << b))) % (pitch // 16)
                rows.append(r * pitch + chunk * 16)
            desc = "rows of a %d-B pitch tile, chunk ^= row mod %d" % (pitch, 1 << b)
        else:
            k = rng.choice((1, 2, 4))
            pool = [rng.randrange(0, 2048 // 16) * 16 for _ in range(k)]
            rows = [rng.choice(pool) for _ in range(WARP)]
            desc = "rows from %d addresses" % k
        used = FULL if num == 4 else (1 << (8 * num)) - 1
        mask = FULL if rng.random() < 0.8 else (rng.getrandbits(32) | used)
        tag = "fldsm" if op == "ldmatrix" else "fstsm"
        s.add("%s_x%d%s_%s_%d" % (tag, num, "t" if trans else "", kind, i), "fm_" + kind, op, rows, mask, desc,
              num=num, trans=trans)


def main():
    rng = random.Random(SEED)
    s = Suite()
    atoms(s, rng)
    ldgsts(s, rng)
    matrices(s, rng)
    sys.stdout.write(s.text())


if __name__ == "__main__":
    main()
