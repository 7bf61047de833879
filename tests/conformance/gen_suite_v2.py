#!/usr/bin/env python3
# gen_suite_v2.py: the issue-11 conformance suite: ldmatrix, stmatrix, shared atomics and cp.async
# (LDGSTS), one warp instruction per pattern, built to SEPARATE the hypotheses listed in README.md
# ("Issue 11: hypotheses"), not to pad a count. Deterministic: python3 stdlib, fixed seed.
#
#   python3 tests/conformance/gen_suite_v2.py            # writes patterns_v2.jsonl, prints a summary
#   python3 tests/conformance/gen_suite_v2.py --check    # exit 1 if the file differs from the generator
#   python3 tests/conformance/gen_suite_v2.py --hyp      # per family: how often each pair of
#                                                        # hypotheses predicts different wavefronts
#
# Line formats (issue 11 item 3, plus the bookkeeping keys id/family/desc that the model echoes):
#   {"id", "family", "op": "ldmatrix"|"stmatrix", "num": 1|2|4, "trans": bool, "mask", "offsets", "desc"}
#   {"id", "family", "op": "atom", "width": 4|8, "atom": "add"|..., "mask", "offsets", "desc"}
#   {"id", "family", "op": "ldgsts", "width": 4|8|16, "cache": "ca"|"cg", "mask", "offsets", "desc"}
# Every offset is aligned (16 bytes for matrix rows, the width otherwise) and below 48 KiB; lanes
# that are inactive or unused (ldmatrix lanes >= 8*num) still carry an aligned in-range offset.
import argparse
import json
import os
import random
import sys

WARP = 32
FULL = 0xFFFFFFFF
LIMIT = 49152
HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261130
ATOMS32 = ("add", "min", "max", "exch", "cas")
ATOMS64 = ("exch", "cas")  # 64-bit add/min/max are a CAS loop on sm_90 (sass_v2.txt)


class Suite:
    def __init__(self):
        self.rows, self.ids, self.keys = [], set(), set()

    def add(self, pid, family, op, offsets, mask=FULL, desc="", **kw):
        offsets = [int(o) for o in offsets]
        assert len(offsets) == WARP, pid
        mask &= FULL
        if op in ("ldmatrix", "stmatrix"):
            num = kw["num"]
            rows = FULL if num == 4 else (1 << (8 * num)) - 1
            assert mask & rows == rows, pid
            align = 16
        else:
            align = kw["width"]
            assert mask != 0, pid
        for o in offsets:
            assert 0 <= o and o + align <= LIMIT and o % align == 0, (pid, o)
        key = (op, tuple(sorted(kw.items())), mask, tuple(offsets))
        if key in self.keys:
            return  # exact duplicate: the first id wins
        assert pid not in self.ids, pid
        self.keys.add(key)
        self.ids.add(pid)
        row = {"id": pid, "family": family, "op": op}
        if op in ("ldmatrix", "stmatrix"):
            row["num"] = kw["num"]
            row["trans"] = kw["trans"]
        else:
            row["width"] = kw["width"]
            if op == "atom":
                row["atom"] = kw["atom"]
            else:
                row["cache"] = kw["cache"]
        row["mask"] = "0x%08x" % mask
        row["offsets"] = offsets
        row["desc"] = desc
        self.rows.append(row)

    def text(self):
        return "".join(json.dumps(r, separators=(", ", ": ")) + "\n" for r in self.rows)


def mat(s, pid, fam, op, num, trans, offs, desc, mask=FULL):
    tag = "ldsm" if op == "ldmatrix" else "stsm"
    s.add("%s_x%d%s_%s" % (tag, num, "t" if trans else "", pid), fam, op, offs, mask, desc, num=num, trans=trans)


# ---------------------------------------------------------------------------------------------
# ldmatrix / stmatrix
# ---------------------------------------------------------------------------------------------
STRIDES = (0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 192, 256, 272, 512)


def fam_mstride(s):
    """Row l at l * stride (lane = row): the row-stride family. 136 bytes is not 16-byte aligned
    (the GPU faults), so the padded strides are 144 (128 + 16) and 272 (256 + 16)."""
    for op in ("ldmatrix", "stmatrix"):
        for num, trans in ((1, False), (2, False), (4, False), (1, True), (4, True)):
            if op == "stmatrix" and num == 2:
                continue  # stores: x1, x4 and x4.trans
            if op == "stmatrix" and num == 1 and trans:
                continue
            if True:
                for st in STRIDES:
                    mat(s, "rs%d" % st, "mstride", op, num, trans, [l * st for l in range(WARP)],
                        "row l at l*%d bytes" % st)


def fam_mgemm(s):
    """The x4 A-operand idiom: lanes 0-15 rows 0-15 of 16-byte column chunk 0, lanes 16-31 rows
    0-15 of chunk 1, for row pitches with and without padding; and the B-operand (.trans) order
    (lanes 0-7 rows 0-7, 8-15 rows 8-15 of chunk 0, 16-31 the same in chunk 1)."""
    for op in ("ldmatrix", "stmatrix"):
        for pitch in (32, 64, 128, 144, 256, 272):
            mat(s, "a_p%d" % pitch, "mgemm", op, 4, False, [(l % 16) * pitch + (l // 16) * 16 for l in range(WARP)],
                "A idiom, row pitch %d B" % pitch)
            mat(s, "a_p%d" % pitch, "mgemm", op, 4, True, [(l % 16) * pitch + (l // 16) * 16 for l in range(WARP)],
                "A idiom .trans, row pitch %d B" % pitch)
            mat(s, "b_p%d" % pitch, "mgemm", op, 2, True, [(l % 16) * pitch for l in range(WARP)],
                "x2.trans, rows 0-15 of one chunk, pitch %d B" % pitch)


def swz(bits, base, shift, o):
    """CuTe Swizzle<B, M, S> on an offset in its own units."""
    mask = ((1 << bits) - 1) << (base + shift)
    return o ^ ((o & mask) >> shift)


def fam_mswizzle(s):
    """64x64 half tile (128-byte rows) and 64x32 half tile (64-byte rows), read/written with
    ldmatrix.x4 in the A idiom at every 16x16 block position, unswizzled and with the TMA swizzles
    on byte offsets: SWIZZLE_128B = Swizzle<3,4,3>, 64B = Swizzle<2,4,3>, 32B = Swizzle<1,4,3>
    (= Swizzle<3,3,3>, <2,3,3>, <1,3,3> on half-element offsets)."""
    layouts = (("none", None), ("sw128", (3, 4, 3)), ("sw64", (2, 4, 3)), ("sw32", (1, 4, 3)))
    for op in ("ldmatrix", "stmatrix"):
        for pitch, tile in ((128, "h64"), (64, "h32")):
            chunks = pitch // 16
            for name, sw in layouts:
                if pitch == 64 and name == "sw128":
                    continue  # a 128-byte swizzle needs 128-byte rows
                for r0 in (0, 32):
                    for c0 in ((0, 4) if chunks == 8 else (0, 2)):
                        for trans in (False, True):
                            if op == "stmatrix" and r0 == 32:
                                continue
                            def off(l):
                                o = (r0 + l % 16) * pitch + (c0 + l // 16) * 16
                                return swz(*sw, o) if sw else o
                            mat(s, "%s_%s_r%d_c%d" % (tile, name, r0, c0), "mswizzle", op, 4, trans,
                                [off(l) for l in range(WARP)],
                                "%s tile, %s, A idiom at rows %d.., chunk %d" % (tile, name, r0, c0))


def fam_mprobe(s):
    """Hand-made probes that separate the matrix hypotheses (README: M0..M4, T, U, D)."""
    for op in ("ldmatrix", "stmatrix"):
        for trans in (False, True):
            # every used row the same address: one phase per matrix (M0: num) vs one for all (M2: 1)
            for num in (1, 2, 4):
                mat(s, "all_same", "mprobe", op, num, trans, [1024] * WARP, "every row address 1024")
            # matrix k broadcasts its own row, rows of different matrices in different banks
            for num in (2, 4):
                mat(s, "mat_bcast_diffbank", "mprobe", op, num, trans, [4096 + (l // 8) * 16 for l in range(WARP)],
                    "matrix k: all rows at 4096+16k")
                mat(s, "mat_bcast_samebank", "mprobe", op, num, trans, [4096 + (l // 8) * 128 for l in range(WARP)],
                    "matrix k: all rows at 4096+128k (same banks, different words)")
                # matrices repeat matrix 0's rows exactly
                mat(s, "mat_repeat", "mprobe", op, num, trans, [(l % 8) * 16 for l in range(WARP)],
                    "every matrix: rows 0..7 at 0..112")
                mat(s, "mat_repeat_perm", "mprobe", op, num, trans, [((l % 8) ^ (l // 8)) * 16 for l in range(WARP)],
                    "every matrix the same 8 rows, permuted")
                # conflict-free matrices whose rows together collide: matrix k at 4096*k (same banks)
                mat(s, "mat_contig_samebank", "mprobe", op, num, trans, [(l % 8) * 16 + (l // 8) * 4096 for l in range(WARP)],
                    "matrix k: contiguous 128 B at 4096k")
                # half of each matrix conflicts 2-way
                mat(s, "mat_2way", "mprobe", op, num, trans, [(l % 4) * 16 + ((l % 8) // 4) * 256 + (l // 8) * 64 for l in range(WARP)],
                    "rows r and r+4 of a matrix 256 B apart")
            # duplicate rows inside one matrix (broadcast D0 vs one slot per row D1)
            for num in (1, 4):
                mat(s, "dup_pairs", "mprobe", op, num, trans, [(l // 2) * 128 for l in range(WARP)],
                    "rows 2k, 2k+1 share an address; pairs 128 B apart (4 words per bank)")
                mat(s, "dup_pairs_diffbank", "mprobe", op, num, trans, [(l // 2) * 16 for l in range(WARP)],
                    "rows 2k, 2k+1 share an address; pairs in different banks")
                mat(s, "dup_quads", "mprobe", op, num, trans, [(l // 4) * 128 for l in range(WARP)],
                    "rows 4k..4k+3 share an address, quads 128 B apart")
                mat(s, "dup_l_xor4", "mprobe", op, num, trans, [((l % 4) + (l // 8) * 4) * 128 for l in range(WARP)],
                    "rows r and r^4 share an address, 128 B apart otherwise")
            # unused lanes: conflicting or out-of-pattern addresses in lanes >= 8*num (U0: ignored)
            for num in (1, 2):
                mat(s, "unused_conflict", "mprobe", op, num, trans,
                    [l * 16 if l < 8 * num else (l % 8) * 128 + 8192 for l in range(WARP)],
                    "used rows contiguous; unused lanes 128 B apart")
                mat(s, "unused_same_as_used", "mprobe", op, num, trans,
                    [l * 16 if l < 8 * num else (l % 8) * 128 for l in range(WARP)],
                    "used rows contiguous; unused lanes collide with used banks")
                mat(s, "unused_masked", "mprobe", op, num, trans, [l * 16 for l in range(WARP)],
                    "used rows contiguous, unused lanes masked off", mask=(1 << (8 * num)) - 1)
            # rows in one bank group but words 2-way, 4-way, 8-way inside matrix 0 only (x4)
            for way in (2, 4, 8):
                mat(s, "m0_%dway" % way, "mprobe", op, 4, trans,
                    [((l % 8) % way) * 128 + ((l % 8) // way) * 16 if l < 8 else 8192 + l * 16 for l in range(WARP)],
                    "matrix 0 %d-way, matrices 1-3 conflict-free" % way)


def fam_mrandom(s, rng):
    """Random 16-byte-aligned rows: in 1 KiB (many collisions), 4 KiB, 48 KiB, and from pools of
    2..8 row addresses (duplicates)."""
    for op in ("ldmatrix", "stmatrix"):
        n = 0
        for region in (1024, 4096, LIMIT):
            for _ in range(4):
                num = rng.choice((1, 2, 4))
                trans = rng.random() < 0.5
                offs = [rng.randrange(region // 16) * 16 for _ in range(WARP)]
                mat(s, "rand%d_%d" % (region, n), "mrandom", op, num, trans, offs, "random rows in %d B" % region)
                n += 1
        for pool in (2, 3, 4, 8):
            for _ in range(2):
                num = rng.choice((1, 2, 4))
                trans = rng.random() < 0.5
                addrs = [rng.randrange(2048 // 16) * 16 for _ in range(pool)]
                mat(s, "pool%d_%d" % (pool, n), "mrandom", op, num, trans, [rng.choice(addrs) for _ in range(WARP)],
                    "rows drawn from %d addresses" % pool)
                n += 1


# ---------------------------------------------------------------------------------------------
# shared atomics
# ---------------------------------------------------------------------------------------------

def atom(s, pid, fam, width, a, offs, desc, mask=FULL):
    s.add("atom%d_%s_%s" % (width * 8, a, pid), fam, "atom", offs, mask, desc, width=width, atom=a)


def fam_aprobe(s):
    """Same-address lanes, n-way distinct words in one bank, per operation and width."""
    for width, ops in ((4, ATOMS32), (8, ATOMS64)):
        w = width
        for a in ops:
            atom(s, "contig", "aprobe", w, a, [l * w for l in range(WARP)], "lane l at l*%d (no conflict)" % w)
            atom(s, "all_same", "aprobe", w, a, [256] * WARP, "all 32 lanes on one word")
            atom(s, "grp2", "aprobe", w, a, [(l // 2) * w for l in range(WARP)], "lane pairs share a word")
            atom(s, "mod4", "aprobe", w, a, [(l % 4) * w for l in range(WARP)], "lanes l, l+4, ... share a word (4 words)")
            atom(s, "nway8", "aprobe", w, a, [(l % 8) * 128 + (l // 8) * w for l in range(WARP)], "8 distinct words per bank")
            atom(s, "half_same_half_nway", "aprobe", w, a, [0 if l < 16 else (l - 15) * 128 for l in range(WARP)],
                 "lanes 0-15 on word 0, lanes 16-31 on 16 other words of bank 0")
            if a not in ("add", "exch", "cas") or (width == 4 and a != "add"):
                continue  # the full probe set for add (32-bit) and exch/cas (64-bit)
            for g in (2, 4, 8, 16):
                atom(s, "grp%d" % g, "aprobe", w, a, [(l // g) * w for l in range(WARP)],
                     "groups of %d consecutive lanes share a word; groups in distinct banks" % g)
                atom(s, "mod%d" % g, "aprobe", w, a, [(l % g) * w for l in range(WARP)],
                     "lanes l, l+%d, ... share a word (%d words)" % (g, g))
            for n in (2, 4, 8, 16, 32):
                atom(s, "nway%d" % n, "aprobe", w, a, [(l % n) * 128 + (l // n) * w for l in range(WARP)],
                     "%d distinct words per bank" % n)
            # same word AND bank conflict: half the warp on one word, the other half on distinct words of its bank
            atom(s, "half_same_half_nway", "aprobe", w, a, [0 if l < 16 else (l - 15) * 128 for l in range(WARP)],
                 "lanes 0-15 on word 0, lanes 16-31 on 16 other words of bank 0")
            atom(s, "pairs_same_bank", "aprobe", w, a, [(l // 2) * 128 for l in range(WARP)],
                 "pairs share a word; the 16 words all in bank 0")
            # 2 lanes per word, words in distinct banks, but pairs not adjacent (l and l^16)
            atom(s, "xor16_share", "aprobe", w, a, [(l % 16) * w for l in range(WARP)], "lanes l and l^16 share a word")
            # masks
            atom(s, "one_lane", "aprobe", w, a, [l * w for l in range(WARP)], "lane 0 only", mask=0x1)
            atom(s, "nway32_half", "aprobe", w, a, [l * 128 for l in range(WARP)], "16 lanes, 16 words of bank 0",
                 mask=0x0000FFFF)
            atom(s, "nway32_odd", "aprobe", w, a, [l * 128 for l in range(WARP)], "odd lanes, 16 words of bank 0",
                 mask=0xAAAAAAAA)
            atom(s, "all_same_hi", "aprobe", w, a, [64] * WARP, "upper half-warp on one word", mask=0xFFFF0000)
    # 64-bit only: two half-warps whose words use the same banks / disjoint banks / one 128 B line
    for a in ATOMS64:
        atom(s, "halves_samebank", "aprobe", 8, a, [(l % 16) * 8 + (l // 16) * 1024 for l in range(WARP)],
             "half-warp 1 repeats half-warp 0's banks 1024 B higher")
        atom(s, "halves_same", "aprobe", 8, a, [(l % 16) * 8 for l in range(WARP)], "half-warp 1 repeats half-warp 0's words")
        atom(s, "halves_disjoint", "aprobe", 8, a, [(l % 16) * 8 if l < 16 else 2048 + (l % 16) * 8 for l in range(WARP)],
             "half-warps at 0 and 2048")
        atom(s, "in128", "aprobe", 8, a, [(l % 16) * 8 for l in range(WARP)], "whole warp in 128 B, lanes 0-15", mask=0x0000FFFF)
        atom(s, "pairs_l1", "aprobe", 8, a, [(l // 2) * 8 for l in range(WARP)], "lanes 2k, 2k+1 share a word (16 words, 128 B)")
        atom(s, "pairs_l2", "aprobe", 8, a, [((l % 2) + (l // 4) * 2) * 8 for l in range(WARP)], "lanes l and l^2 share a word")


def fam_arandom(s, rng):
    n = 0
    for width, ops in ((4, ATOMS32), (8, ATOMS64)):
        for region in (256, 1024, 8192):
            for _ in range(4):
                a = rng.choice(ops)
                offs = [rng.randrange(region // width) * width for _ in range(WARP)]
                mask = FULL if rng.random() < 0.6 else rng.getrandbits(32) or 1
                atom(s, "rand%d_%d" % (region, n), "arandom", width, a, offs, "random words in %d B" % region, mask=mask)
                n += 1
        for pool in (2, 4, 8):
            for _ in range(2):
                a = rng.choice(ops)
                addrs = [rng.randrange(1024 // width) * width for _ in range(pool)]
                atom(s, "pool%d_%d" % (pool, n), "arandom", width, a, [rng.choice(addrs) for _ in range(WARP)],
                     "words drawn from %d addresses" % pool)
                n += 1


# ---------------------------------------------------------------------------------------------
# cp.async (LDGSTS), shared destination side
# ---------------------------------------------------------------------------------------------

def g(s, pid, fam, width, cache, offs, desc, mask=FULL):
    s.add("ldgsts%d%s_%s" % (width, "" if cache == "ca" else "cg", pid), fam, "ldgsts", offs, mask, desc, width=width,
          cache=cache)


def fam_ldgsts(s, rng):
    kinds = ((4, "ca"), (8, "ca"), (16, "ca"), (16, "cg"))
    for w, c in kinds:
        for es in (0, 1, 2, 3, 4, 5, 8, 16, 32):
            g(s, "es%d" % es, "gstride", w, c, [l * es * w for l in range(WARP)], "element stride %d" % es)
        g(s, "pairs_l1", "gprobe", w, c, [(l // 2) * w for l in range(WARP)], "lanes 2k, 2k+1 same destination")
        g(s, "pairs_l2", "gprobe", w, c, [((l % 2) + (l // 4) * 2) * w for l in range(WARP)], "lanes l, l^2 same destination")
        g(s, "pairs_l4", "gprobe", w, c, [((l % 4) + (l // 8) * 4) * w for l in range(WARP)], "lanes l, l^4 same destination")
        g(s, "halves_same", "gprobe", w, c, [(l % 16) * w for l in range(WARP)], "half-warp 1 writes half-warp 0's destinations")
        g(s, "halves_samebank", "gprobe", w, c, [(l % 16) * w + (l // 16) * 2048 for l in range(WARP)],
          "half-warp 1 in half-warp 0's banks, 2048 B higher")
        g(s, "nway8", "gprobe", w, c, [(l % 8) * 128 + (l // 8) * w for l in range(WARP)], "8 destinations per bank group")
        g(s, "nway32", "gprobe", w, c, [l * 128 for l in range(WARP)], "every lane in bank 0 (group)")
        g(s, "mask_half", "gprobe", w, c, [l * w for l in range(WARP)], "lanes 0-15", mask=0x0000FFFF)
        g(s, "mask_odd", "gprobe", w, c, [l * 2 * w for l in range(WARP)], "odd lanes, stride 2", mask=0xAAAAAAAA)
        g(s, "mask_one", "gprobe", w, c, [l * 128 for l in range(WARP)], "lane 5 only", mask=1 << 5)
        for k in range(4):
            mask = FULL if k < 2 else rng.getrandbits(32) or 1
            g(s, "rand_%d" % k, "grandom", w, c, [rng.randrange(2048 // w) * w for _ in range(WARP)],
              "random destinations in 2 KiB", mask=mask)
        addrs = [rng.randrange(1024 // w) * w for _ in range(4)]
        g(s, "pool4", "grandom", w, c, [rng.choice(addrs) for _ in range(WARP)], "destinations from 4 addresses")
    # 16 B transposed-tile writes (the cp.async tile-fill idiom with and without swizzle)
    for c in ("ca", "cg"):
        for name, sw in (("none", None), ("sw128", (3, 4, 3))):
            def off(l):
                o = (l // 8) * 128 + (l % 8) * 16
                return swz(*sw, o) if sw else o
            g(s, "tilerow_%s" % name, "gprobe", 16, c, [off(l) for l in range(WARP)], "4 rows x 128 B, %s" % name)
            def offc(l):
                o = l * 128
                return swz(*sw, o) if sw else o
            g(s, "tilecol_%s" % name, "gprobe", 16, c, [offc(l) for l in range(WARP)], "one 16 B chunk of 32 rows, %s" % name)


def build():
    s = Suite()
    rng = random.Random(SEED)
    fam_mprobe(s)
    fam_mstride(s)
    fam_mgemm(s)
    fam_mswizzle(s)
    fam_mrandom(s, rng)
    fam_aprobe(s)
    fam_arandom(s, rng)
    fam_ldgsts(s, rng)
    return s


# ---------------------------------------------------------------------------------------------
# Hypotheses (README "Issue 11: hypotheses"): wavefronts each one predicts, for --hyp.
# ---------------------------------------------------------------------------------------------

def used(r):
    m = int(r["mask"], 16)
    if r["op"] in ("ldmatrix", "stmatrix"):
        n = r["num"]
        m &= FULL if n == 4 else (1 << (8 * n)) - 1
    return [l for l in range(WARP) if (m >> l) & 1]


def width_of(r):
    return 16 if r["op"] in ("ldmatrix", "stmatrix") else r["width"]


def words(addr, w):
    return [addr // 4 + k for k in range(max(1, w // 4))]


def busiest(lanes, offs, w, count_lanes=False):
    per_bank = {}
    for l in lanes:
        for wd in words(offs[l], w):
            per_bank.setdefault(wd % 32, [] if count_lanes else set())
            if count_lanes:
                per_bank[wd % 32].append(wd)
            else:
                per_bank[wd % 32].add(wd)
    return max((len(v) for v in per_bank.values()), default=0)


def phased(r, per, count_lanes=False):
    lanes, offs, w = used(r), r["offsets"], width_of(r)
    total = 0
    for p in range(0, WARP, per):
        ls = [l for l in lanes if p <= l < p + per]
        if ls:
            total += busiest(ls, offs, w, count_lanes)
    return total


def hyp_table(r):
    """name -> predicted wavefronts for the hypotheses that apply to this kind."""
    op, w = r["op"], width_of(r)
    base = 128 // w  # lanes per phase of R3
    if op in ("ldmatrix", "stmatrix"):
        lanes, offs = used(r), r["offsets"]
        rows_per_bank = phased(r, 8, count_lanes=True)
        return {
            "M0 phase per matrix": phased(r, 8),
            "M1 phase per 2 matrices": phased(r, 16),
            "M2 one phase": phased(r, 32),
            "D1 rows not merged": rows_per_bank,
            "U1 all 32 rows used": phased(dict(r, num=4, mask="0xffffffff"), 8),
            "M4 one wavefront per row group of 128B line": len({offs[l] // 128 for l in lanes}),
        }
    if op == "atom":
        return {
            "A0 store-like, same word merges": phased(r, base),
            "A1 same word serializes": phased(r, base, count_lanes=True),
            "A2 whole-warp phase": phased(r, 32),
        }
    return {
        "G0 store-like": phased(r, base),
        "G1 whole-warp phase": phased(r, 32),
        "G2 one lane per slot": phased(r, base, count_lanes=True),
    }


def score(path):
    """Per kind and family: how many measured patterns the model's committed prediction (the
    'wavefronts'/'bank_conflicts' keys bankscope-gpu writes) and each hypothesis get right
    (wavefronts), and the first few misses of the model."""
    rows = []
    for line in open(path):
        r = json.loads(line)
        if "offsets" in r:
            rows.append(r)
    measured = [r for r in rows if "measured_wavefronts" in r]
    print("%s: %d lines, %d measured, %d with errors" % (path, len(rows), len(measured),
                                                         sum(1 for r in rows if "measured_error" in r or "error" in r)))
    groups = {}
    for r in measured:
        groups.setdefault((r["op"], r["family"]), []).append(r)
    for key in sorted(groups):
        rs = groups[key]
        both = sum(1 for r in rs if (r["wavefronts"], r["bank_conflicts"]) ==
                   (r["measured_wavefronts"], r["measured_bank_conflicts"]))
        hyp = {}
        for r in rs:
            for name, v in hyp_table(r).items():
                hyp[name] = hyp.get(name, 0) + (v == r["measured_wavefronts"])
        print("%-9s %-9s n=%3d  model both counters %3d | %s" % (key[0], key[1], len(rs), both,
              ", ".join("%s %d" % (k.split(" ")[0], v) for k, v in sorted(hyp.items()))))
    misses = [r for r in measured if (r["wavefronts"], r["bank_conflicts"]) !=
              (r["measured_wavefronts"], r["measured_bank_conflicts"])]
    print("model misses: %d of %d" % (len(misses), len(measured)))
    for r in misses[:60]:
        print("  %-40s pred %d/%d  measured %d/%d  %s" % (r["id"], r["wavefronts"], r["bank_conflicts"],
              r["measured_wavefronts"], r["measured_bank_conflicts"], r.get("desc", "")))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--hyp", action="store_true")
    ap.add_argument("--score", metavar="MEASURED", help="score the model and each hypothesis against a measured file")
    args = ap.parse_args()
    if args.score:
        return score(args.score)
    s = build()
    path = os.path.join(HERE, "patterns_v2.jsonl")
    text = s.text()
    if args.check:
        with open(path) as f:
            same = f.read() == text
        print("%s: %s" % (path, "matches the generator" if same else "DIFFERS from the generator"))
        return 0 if same else 1
    if args.hyp:
        fams = {}
        for r in s.rows:
            t = hyp_table(r)
            names = sorted(t)
            d = fams.setdefault((r["op"], r["family"]), {})
            for i, a in enumerate(names):
                for b in names[i + 1:]:
                    d[(a, b)] = d.get((a, b), 0) + (t[a] != t[b])
        for (op, fam), d in sorted(fams.items()):
            print("%s / %s:" % (op, fam))
            for (a, b), n in sorted(d.items()):
                print("   %-45s vs %-45s differ on %d" % (a, b, n))
        return 0
    with open(path, "w") as f:
        f.write(text)
    counts = {}
    for r in s.rows:
        counts[(r["op"], r["family"])] = counts.get((r["op"], r["family"]), 0) + 1
    for k in sorted(counts):
        print("%-10s %-10s %4d" % (k[0], k[1], counts[k]))
    print("total %d patterns -> %s" % (len(s.rows), path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
