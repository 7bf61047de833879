#!/usr/bin/env python3
# gen_suite.py: writes the bankscope conformance suite, single warp-instruction shared-memory
# patterns (one JSON object per line) meant to FIND the hardware's bank/wavefront rules, not to pad
# a count. Deterministic: python3 stdlib only, fixed seeds, same bytes on every run.
#
#   python3 tests/conformance/gen_suite.py              # writes patterns.jsonl and fresh_batch.jsonl
#   python3 tests/conformance/gen_suite.py --check      # regenerates in memory, fails if files differ
#
# Line format (issue 2's JSONL pattern format plus bookkeeping keys the model ignores):
#   {"id": "w8_es3_ld", "family": "estride", "width": 8, "op": "ld", "mask": "0xffffffff",
#    "offsets": [32 byte offsets, lane 0 first], "desc": "..."}
# Every offset is aligned to the width and below 48 KiB, so one static shared buffer covers all.
# Inactive lanes still carry an (aligned, in-range) offset; the kernel must not access it.
#
# Families (see README.md for the table with counts):
#   stride    4-byte word strides 0..130 (ld, st), and 1/2-byte accesses at word strides
#   estride   element strides for 1, 2, 8, 16-byte accesses
#   bcast     all lanes one address; consecutive groups (pairs, quads, 8, half-warps) sharing;
#             lane%g groups sharing
#   xorshare  lanes sharing through lane^k (k = 1, 2, 4, 8, 16 and mixtures)
#   mask      partial / random active masks over contiguous, conflicting and broadcast bases
#   perm      permutations of a contiguous row (random, lane^k, reverse, rotate, bit-reverse, ...)
#   swizzle   XOR-swizzled tiles and CuTe Swizzle<B,M,S> layouts, column/row/8x8 reads
#   random    random addresses, distinct and with duplicates, wide and dense regions
#   subword   1- and 2-byte accesses to bytes of one word / of words in one bank
#   phase8    64-bit hypothesis probes (half-warp phases merged or not; see README)
#   phase16   128-bit hypothesis probes (quarter-warp phases merged or not; see README)
#   pool8/16  random 64/128-bit patterns drawn from small address pools (many merge chances)
import argparse
import json
import os
import random
import sys

WARP = 32
FULL = 0xFFFFFFFF
LIMIT = 49152  # 48 KiB: one static __shared__ buffer in the measuring kernel
WIDTHS = (1, 2, 4, 8, 16)
OPS = ("ld", "st")
HERE = os.path.dirname(os.path.abspath(__file__))
SUITE_SEED = 20261129
FRESH_SEED = 77003311


class Suite:
    """Collects patterns, checks every invariant, drops exact duplicates (same width/op/mask/offsets)."""

    def __init__(self):
        self.rows = []
        self.ids = set()
        self.keys = {}
        self.duplicates = []

    def add(self, pid, family, width, op, offsets, mask=FULL, desc=None):
        offsets = [int(o) for o in offsets]
        assert len(offsets) == WARP, pid
        assert width in WIDTHS and op in OPS, pid
        mask &= FULL
        assert mask != 0, pid
        for o in offsets:
            assert 0 <= o and o + width <= LIMIT, (pid, o)
            assert o % width == 0, (pid, o, width)
        assert pid not in self.ids, pid
        key = (width, op, mask, tuple(offsets))
        if key in self.keys:
            self.duplicates.append((pid, self.keys[key]))
            return False
        self.keys[key] = pid
        self.ids.add(pid)
        row = {"id": pid, "family": family, "width": width, "op": op, "mask": "0x%08x" % mask,
               "offsets": offsets}
        if desc:
            row["desc"] = desc
        self.rows.append(row)
        return True

    def text(self):
        lines = [json.dumps(r, separators=(", ", ": ")) for r in self.rows]
        for line in lines:
            assert len(line) < 1000, line[:80]
        return "\n".join(lines) + "\n"


def elems(width, idx, base=0):
    """Element indices -> byte offsets."""
    return [base + i * width for i in idx]


def lanes():
    return range(WARP)


# --------------------------------------------------------------------------------------------
# Regular families (main suite only)

def fam_stride(s):
    # 4-byte word strides 0..130, loads and stores: degree gcd(s, 32) by the documented rule.
    for stride in range(131):
        for op in OPS:
            s.add("w4_ws%d_%s" % (stride, op), "stride", 4, op, [4 * stride * l for l in lanes()],
                  desc="4B word stride %d" % stride)
    # 1- and 2-byte accesses at word strides: byte 0 of words lane*s (should behave like 4B).
    for width in (1, 2):
        for stride in (0, 1, 2, 3, 4, 8, 16, 17, 32, 33):
            for op in OPS:
                s.add("w%d_ws%d_%s" % (width, stride, op), "stride", width, op,
                      [4 * stride * l for l in lanes()], desc="%dB at word stride %d" % (width, stride))


def fam_estride(s):
    ld_strides = list(range(0, 35)) + [63, 64, 65, 127, 128, 129]
    st_strides = list(range(0, 10)) + [15, 16, 17, 31, 32, 33, 64, 65]
    for width in (1, 2, 8, 16):
        for op, strides in (("ld", ld_strides), ("st", st_strides)):
            for e in strides:
                if width * e * (WARP - 1) + width > LIMIT:
                    continue
                s.add("w%d_es%d_%s" % (width, e, op), "estride", width, op,
                      [width * e * l for l in lanes()], desc="%dB element stride %d" % (width, e))


def fam_bcast(s):
    for width in WIDTHS:
        for op in OPS:
            w = width
            s.add("w%d_bc_all0_%s" % (w, op), "bcast", w, op, [0] * WARP, desc="all lanes offset 0")
            s.add("w%d_bc_allhi_%s" % (w, op), "bcast", w, op, [20480 + 3 * 16] * WARP,
                  desc="all lanes one address, not 0")
            for g in (2, 4, 8, 16):
                # g consecutive lanes share one element; groups contiguous.
                s.add("w%d_bc_grp%d_%s" % (w, g, op), "bcast", w, op,
                      [(l // g) * w for l in lanes()], desc="%d consecutive lanes share, contiguous" % g)
                # g consecutive lanes share; groups 32 words apart (all groups in one bank).
                s.add("w%d_bc_grp%d_b0_%s" % (w, g, op), "bcast", w, op,
                      [(l // g) * 128 for l in lanes()], desc="%d consecutive lanes share, groups 128B apart" % g)
                # lanes with equal lane%g share (g distinct addresses, repeated every g lanes).
                s.add("w%d_bc_mod%d_%s" % (w, g, op), "bcast", w, op,
                      [(l % g) * w for l in lanes()], desc="lanes with equal lane%%%d share" % g)


XOR_KS_LD = (1, 2, 4, 8, 16, 3, 5, 6, 9, 10, 12, 17, 18, 24, 7, 15, 28, 30, 31)
XOR_KS_ST = (1, 2, 4, 8, 16, 3, 24, 31)


def fam_xorshare(s):
    # lane and lane^k (for every k bit combination) read the same element: address f(lane & ~k).
    for width in WIDTHS:
        for op, ks in (("ld", XOR_KS_LD), ("st", XOR_KS_ST)):
            for k in ks:
                s.add("w%d_xs%d_%s" % (width, k, op), "xorshare", width, op,
                      [(l & ~k) * width for l in lanes()], desc="lane^%d share, contiguous base" % k)
            # Same sharing over a conflicting base (element stride = 128 B => all in one bank).
            for k in ((1, 16, 24, 31) if op == "ld" else (1, 16)):
                s.add("w%d_xs%d_b0_%s" % (width, k, op), "xorshare", width, op,
                      [(l & ~k) * 128 for l in lanes()], desc="lane^%d share, 128B-stride base" % k)


MASKS = [
    ("l0", 0x00000001), ("l31", 0x80000000), ("l0l16", 0x00010001), ("l0l8", 0x00000101),
    ("q4", 0x01010101), ("e8", 0x11111111), ("lo16", 0x0000FFFF), ("hi16", 0xFFFF0000),
    ("hi8", 0xFF000000), ("mid16", 0x00FFFF00), ("odd", 0xAAAAAAAA), ("even", 0x55555555),
    ("l15l16", 0x00018000),
]


def fam_mask(s, rng):
    rand_masks = [("r%d" % i, rng.getrandbits(32) | 1 << rng.randrange(32)) for i in range(3)]
    bases = {
        "contig": lambda w: [l * w for l in lanes()],
        "conf": lambda w: [l * 128 for l in lanes()],      # every lane in bank 0: 32 words
        "bcast": lambda w: [64] * WARP,
        "x16": lambda w: [(l & 15) * w for l in lanes()],  # lane^16 share
    }
    narrow = {"l0", "l0l16", "q4", "hi16", "odd", "mid16"}
    for width in WIDTHS:
        # Below 8 bytes the whole warp is one phase: a few masks suffice. At 8 and 16 bytes the
        # mask decides which phases exist, so every mask is tried there.
        wide = width >= 8
        for bname in ("contig", "conf", "bcast", "x16"):
            if not wide and bname == "x16":
                continue
            offs = bases[bname](width)
            for mname, m in MASKS + rand_masks:
                if not wide and mname not in narrow and mname != "r0":
                    continue
                s.add("w%d_m_%s_%s_ld" % (width, bname, mname), "mask", width, "ld", offs, m,
                      desc="mask %s over %s" % (mname, bname))
            if bname in ("contig", "bcast", "conf"):
                for mname, m in MASKS[:6] + [("hi16", 0xFFFF0000), ("odd", 0xAAAAAAAA)] + rand_masks[:1]:
                    if not wide and mname not in narrow:
                        continue
                    s.add("w%d_m_%s_%s_st" % (width, bname, mname), "mask", width, "st", offs, m,
                          desc="mask %s over %s" % (mname, bname))


def bitrev5(x):
    return int("{:05b}".format(x)[::-1], 2)


def fam_perm(s, rng):
    for width in WIDTHS:
        perms = []
        for i in range(3):
            p = list(lanes())
            rng.shuffle(p)
            perms.append(("rnd%d" % i, p))
        perms += [("x1", [l ^ 1 for l in lanes()]), ("x16", [l ^ 16 for l in lanes()]),
                  ("x31", [l ^ 31 for l in lanes()]), ("rev", [31 - l for l in lanes()]),
                  ("rot1", [(l + 1) % 32 for l in lanes()]), ("rot8", [(l + 8) % 32 for l in lanes()]),
                  ("brev", [bitrev5(l) for l in lanes()]),
                  ("t4x8", [(l % 4) * 8 + l // 4 for l in lanes()]),
                  ("t8x4", [(l % 8) * 4 + l // 8 for l in lanes()]),
                  ("evod", [2 * l if l < 16 else 2 * (l - 16) + 1 for l in lanes()])]
        for name, p in perms:
            for op in (("ld", "st") if name in ("rnd0", "x16", "rev", "evod", "t4x8") else ("ld",)):
                s.add("w%d_p_%s_%s" % (width, name, op), "perm", width, op, [e * width for e in p],
                      desc="permuted contiguous row: %s" % name)


def cute_swizzle(b, m, sh, o):
    # CuTe Swizzle<B,M,S>: o ^ ((o & yyy_mask) >> S), yyy_mask = ((1<<B)-1) << (M+S).
    yyy = ((1 << b) - 1) << (m + sh)
    return o ^ ((o & yyy) >> sh)


def log2(x):
    return x.bit_length() - 1


def fam_swizzle(s):
    for width in WIDTHS:
        row_elems = 128 // width            # one 128-byte row per tile row
        m16 = log2(16 // width)              # M such that 2^M elements = 16 bytes
        rows = 32
        # Read patterns over a logical tile [rows][row_elems].
        pats = {
            "col": lambda l: (l, 0),                                  # column: lane = row
            "col1": lambda l: (l, min(1, row_elems - 1)),
            "row": lambda l: ((l * 1) // row_elems, l % row_elems),   # row-major run
            "blk8": lambda l: (l % 8, (l // 8) * (16 // width if width < 16 else 1)),  # 8x8-like
        }

        def layout_xor(r, c):
            # XOR swizzle at 16-byte granularity: chunk c16 ^ (row % 8); exact for every width.
            per16 = max(1, 16 // width)
            chunk, within = divmod(c, per16)
            return r * row_elems + ((chunk ^ (r % 8)) % (row_elems // per16 if row_elems >= per16 else 1)) * per16 + within

        def layout_xorw(r, c):
            # Classic element-granular XOR (tile[r][c ^ r]) — the seed-style swizzle.
            return r * row_elems + (c ^ (r % row_elems))

        def layout_plain(r, c):
            return r * row_elems + c

        layouts = [("plain", layout_plain), ("xor16", layout_xor), ("xore", layout_xorw)]
        for b, sh in ((1, 3), (2, 3), (3, 3), (3, 4), (2, 2), (3, 2)):
            def mk(b=b, sh=sh):
                return lambda r, c: cute_swizzle(b, m16, sh, r * row_elems + c)
            layouts.append(("sw%d%d%d" % (b, m16, sh), mk()))
        for lname, lay in layouts:
            for pname, pf in pats.items():
                offs = []
                for l in lanes():
                    r, c = pf(l)
                    offs.append(lay(r % rows, c % row_elems) * width)
                ops = ("ld", "st") if pname in ("col", "blk8") and lname in ("plain", "xor16", "sw3%d3" % m16) else ("ld",)
                for op in ops:
                    s.add("w%d_sz_%s_%s_%s" % (width, lname, pname, op), "swizzle", width, op, offs,
                          desc="%s layout, %s read, %dB" % (lname, pname, width))


def rand_distinct(rng, width, n, lo, hi):
    slots = rng.sample(range(lo // width, hi // width), n)
    return [x * width for x in slots]


def fam_random(s, rng, tag="", per=1):
    for width in WIDTHS:
        for op in OPS:
            reps = (4 if op == "ld" else 2) * per
            for i in range(reps):
                s.add("w%d_rnd_wide%s%d_%s" % (width, tag, i, op), "random", width, op,
                      rand_distinct(rng, width, WARP, 0, LIMIT), desc="distinct random in 48 KiB")
            for i in range((2 if op == "ld" else 1) * per):
                s.add("w%d_rnd_1k%s%d_%s" % (width, tag, i, op), "random", width, op,
                      rand_distinct(rng, width, WARP, 0, 1024 if width < 16 else 2048),
                      desc="distinct random in a small region")
            for pool in ((2, 4, 8, 16) if op == "ld" else (4, 16)):
                for i in range(per):
                    cand = rand_distinct(rng, width, pool, 0, 2048)
                    s.add("w%d_rnd_dup%d%s%d_%s" % (width, pool, tag, i, op), "random", width, op,
                          [rng.choice(cand) for _ in lanes()], desc="random with duplicates, pool %d" % pool)


def fam_subword(s, rng):
    for width in (1, 2):
        per_word = 4 // width
        pats = {
            # every lane a sub-word of word 0 (lanes beyond the word's bytes repeat them)
            "oneword": [(l % per_word) * width for l in lanes()],
            # word (l / per_word), consecutive: 32 lanes span 32*width bytes, conflict-free
            "contig": [l * width for l in lanes()],
            # per_word lanes per word, words 32 apart: all in bank 0 -> degree 32/per_word
            "bank0": [(l // per_word) * 128 + (l % per_word) * width for l in lanes()],
            # two words of bank 0, each touched by many lanes at different sub-words
            "bank0x2": [(l % 2) * 128 + ((l // 2) % per_word) * width for l in lanes()],
            # random sub-word of one of 4 words in distinct banks
            "rnd4w": [rng.choice((0, 4, 8, 12)) + rng.randrange(per_word) * width for _ in lanes()],
            # random sub-word of one of 4 words all in bank 0
            "rnd4b0": [rng.choice((0, 128, 256, 384)) + rng.randrange(per_word) * width for _ in lanes()],
            # lane l: byte/half of word l, but the sub-word varies with the lane
            "diag": [4 * l + (l % per_word) * width for l in lanes()],
        }
        for name, offs in pats.items():
            for op in OPS:
                s.add("w%d_sub_%s_%s" % (width, name, op), "subword", width, op, offs,
                      desc="sub-word: %s" % name)


# --------------------------------------------------------------------------------------------
# 64- and 128-bit hypothesis probes.
#
# Hypotheses (predicted wavefronts are listed per pattern in README.md; analyze.py scores them):
#   H0  phase model: 8B = two half-warp phases, 16B = four quarter-warp phases; each active phase
#       costs its max bank degree; phases are never merged.
#   H1  "identical phases merge": phases with the same lane-by-lane addresses cost once.
#   H1s "same address set merges": phases with the same SET of addresses cost once.
#   H3  "served phase skipped": a phase whose addresses were all served by earlier phases is free.
#   H2  "bank-disjoint phases merge": phases whose union still has <= 1 distinct word per bank are
#       served in one wavefront (greedy, in order).
#   HW  "whole-warp degree": the warp costs max over banks of distinct words (no phases at all),
#       with the phase count only as the floor of the ideal.
#   H128 "one aligned 128-byte window": all active addresses in one 128-byte line -> one wavefront.
#   HU  "unique bytes <= 128": the unique data of the warp fits one wavefront's 128 bytes.

def by_phase(width, phase_elems, base=0):
    """phase_elems: list (one per phase) of per-lane element index lists."""
    offs = []
    for p in phase_elems:
        offs += [base + e * width for e in p]
    assert len(offs) == WARP
    return offs


def fam_phase8(s):
    w = 8
    c16 = list(range(16))
    pairs = lambda lo: [lo + i // 2 for i in range(16)]  # 8 elements, each read by 2 lanes
    probes = [
        ("contig", [c16, [16 + i for i in c16]], FULL, "baseline contiguous 256B: H0=2 all=2"),
        ("same_lanewise", [c16, c16], FULL, "B[i]=A[i]: H0=2 H1=1 H1s=1 H3=1 H2=1 HW=1 H128=1"),
        ("same_reversed", [c16, c16[::-1]], FULL, "B=A reversed: H0=2 H1=2 H1s=1 H3=1 HW=1"),
        ("same_rot", [c16, c16[1:] + c16[:1]], FULL, "B=A rotated by 1 lane: H1=2 H1s=1"),
        ("subset", [c16, pairs(0)], FULL, "B subset of A: H0=2 H1s=2 H3=1 HW=1"),
        ("superset", [pairs(0), c16], FULL, "B superset of A: H0=2 H3=2 H2=1 HW=1"),
        ("disj_lo_hi", [pairs(0), pairs(8)], FULL, "A 0-63B, B 64-127B: H0=2 H1=2 H3=2 H2=1 HW=1 H128=1"),
        ("disj_far", [pairs(0), pairs(24)], FULL, "A 0-63B, B 192-255B: H2=1 HW=1 H128=2 HU=1"),
        ("disj_unaligned", [pairs(4), pairs(12)], FULL, "32-159B, bank-disjoint: H2=1 HW=1 H128=2"),
        ("u128_conflict", [pairs(0), pairs(16)], FULL, "A 0-63B, B 128-191B same banks: H2=2 HW=2 HU=1"),
        ("split_conflict", [list(range(8)) + list(range(16, 24)), list(range(8, 16)) + list(range(24, 32))],
         FULL, "each half 2-way in its own banks: H0=4 HW=2"),
        ("evenodd", [[2 * i for i in c16], [2 * i + 1 for i in c16]], FULL, "even/odd elems: H0=4 HW=2"),
        ("bc_all", [[5] * 16, [5] * 16], FULL, "all lanes one elem: H0=2 H1=1 HW=1"),
        ("bc_halves_diffbank", [[0] * 16, [1] * 16], FULL, "A all e0, B all e1: H0=2 H2=1 HW=1"),
        ("bc_halves_samebank", [[0] * 16, [16] * 16], FULL, "A all e0, B all e16: 2 everywhere"),
        ("bc_halves_far", [[0] * 16, [1 + 64] * 16], FULL, "A e0, B e65 (bank 2): H2=1 HW=1 H128=2"),
        ("a_full_b_bc_in", [c16, [3] * 16], FULL, "B broadcast of an elem of A: H3=1 HW=1 H0=2"),
        ("a_full_b_bc_out", [c16, [16] * 16], FULL, "B broadcast outside A, bank clash: 2"),
        ("a_bc_b_full", [[3] * 16, c16], FULL, "A broadcast of an elem of B: H3=2 H2=1 HW=1"),
        ("a_full_b_half", [c16, [i % 8 for i in c16]], FULL, "B = first half of A twice: H3=1 HW=1"),
        ("b_pairs_swapped", [c16, [i ^ 1 for i in c16]], FULL, "B = A with pairs swapped: H1=2 H1s=1"),
        ("l0l16_same", [[0] * 16, [0] * 16], 0x00010001, "lanes 0,16 same addr: H0=2 H1=1"),
        ("l0l16_diffbank", [[0] * 16, [1] * 16], 0x00010001, "lanes 0,16 banks 0-1 / 2-3: H0=2 H2=1"),
        ("l0l16_samebank", [[0] * 16, [16] * 16], 0x00010001, "lanes 0,16 same bank diff words: 2"),
        ("l0l1_same", [[0] * 16, [0] * 16], 0x00000003, "lanes 0,1 same addr (one phase): 1"),
        ("l0l1_samebank", [[0, 16] + [0] * 14, [0] * 16], 0x00000003, "lanes 0,1 bank clash in phase A: 2"),
        ("l15l16_same", [[7] * 16, [7] * 16], 0x00018000, "lanes 15,16 same addr: H0=2 H1=1"),
        ("a_full_b_one_in", [c16, [3] * 16], 0x0001FFFF, "A full, lane 16 reads elem of A: H3=1 HW=1"),
        ("a_full_b_one_out", [c16, [20] * 16], 0x0001FFFF, "A full, lane 16 elem 20 (clash): 2"),
        ("a_pairs_b_one_free", [pairs(0), [12] * 16], 0x0001FFFF, "A 0-63B, lane16 bank 24: H2=1"),
        ("hi_only", [c16, [16 + i for i in c16]], 0xFFFF0000, "only half B active: 1"),
        ("x16_conf", [[i * 16 for i in c16], [i * 16 for i in c16]], FULL, "lane^16 share, A 16-way: H0=32 H1=16"),
        ("x16_conf_half", [[i * 16 for i in c16], [i * 16 + 1 for i in c16]], FULL, "A 16-way bank 0, B 16-way bank 2: H0=32 HW=16"),
    ]
    for name, ph, mask, desc in probes:
        for op in OPS:
            s.add("w8_h_%s_%s" % (name, op), "phase8", w, op, by_phase(w, ph), mask, desc=desc)


def fam_phase16(s):
    w = 16
    c8 = list(range(8))
    q = lambda lo: [lo + i for i in c8]
    quads = lambda lo: [lo + i // 4 for i in c8]  # 2 elements, each read by 4 lanes (32 bytes)
    pairs = lambda lo: [lo + i // 2 for i in c8]  # 4 elements, each read by 2 lanes (64 bytes)
    probes = [
        ("contig", [q(0), q(8), q(16), q(24)], FULL, "baseline 512B: 4"),
        ("all_same", [q(0)] * 4, FULL, "Q0=Q1=Q2=Q3 lanewise: H0=4 H1=1 HW=1"),
        ("all_same_perm", [q(0), q(0)[::-1], [i ^ 1 for i in q(0)], [i ^ 4 for i in q(0)]], FULL,
         "all quarters same set, permuted: H1=4 H1s=1 HW=1"),
        ("pairs_adj", [q(0), q(0), q(8), q(8)], FULL, "Q0=Q1, Q2=Q3: H0=4 H1=2 HW=2"),
        ("pairs_nonadj", [q(0), q(8), q(0), q(8)], FULL, "Q0=Q2, Q1=Q3: H1adj=4 H1=2 HW=2"),
        ("q0_eq_q3", [q(0), q(8), q(16), q(0)], FULL, "Q0=Q3: H1adj=4 H1=3 HW=3"),
        ("q1_subset", [q(0), pairs(0), q(8), q(16)], FULL, "Q1 subset of Q0: H3=3 HW=3 H0=4"),
        ("q3_subset_q0", [q(0), q(8), q(16), pairs(0)], FULL, "Q3 subset of Q0 (not adjacent): H3=3"),
        ("disj_pairs", [pairs(0), pairs(4), pairs(8), pairs(12)], FULL, "Q halves: H0=4 H2=2 HW=2"),
        ("disj_quads", [quads(0), quads(2), quads(4), quads(6)], FULL, "each Q 32B own banks: H0=4 H2=1 HW=1 H128=1"),
        ("disj_quads_far", [quads(0), quads(10), quads(20), quads(30)], FULL, "bank-disjoint, 4 lines: H2=1 HW=1 H128=4"),
        ("disj_quads_rev", [quads(6), quads(4), quads(2), quads(0)], FULL, "disj_quads, quarters reversed"),
        ("u128_conflict", [quads(0), quads(8), quads(16), quads(24)], FULL, "4 x 32B all banks 0-7: HU=1 HW=4 H0=4"),
        ("evenq", [[qq + 4 * i for i in c8] for qq in range(4)], FULL, "Q q = elems q+4i: H0=16 HW=4"),
        ("bc_all", [[5] * 8] * 4, FULL, "all lanes one elem: H0=4 H1=1"),
        ("bc_quarters_diffbank", [[0] * 8, [1] * 8, [2] * 8, [3] * 8], FULL, "Q bcasts, banks disjoint: H0=4 H2=1"),
        ("bc_quarters_samebank", [[0] * 8, [8] * 8, [16] * 8, [24] * 8], FULL, "Q bcasts in bank 0-3: 4"),
        ("bc_pairs", [[0] * 8, [0] * 8, [1] * 8, [1] * 8], FULL, "Q0,Q1 e0; Q2,Q3 e1: H1=2 H2=1 HW=1"),
        ("bc_pairs_samebank", [[0] * 8, [0] * 8, [8] * 8, [8] * 8], FULL, "Q0,Q1 e0; Q2,Q3 e8: H1=2 HW=2"),
        ("half_same", [q(0), q(8), q(0), q(8)], 0x0000FFFF, "only Q0,Q1 active: 2"),
        ("q0_full_rest_bc_in", [q(0), [3] * 8, [5] * 8, [7] * 8], FULL, "Q1..3 bcast elems of Q0: H3=1 HW=1"),
        ("q0_full_rest_bc_out", [q(0), [8] * 8, [9] * 8, [10] * 8], FULL, "Q1..3 bcast outside Q0: HW=2"),
        ("l_q4_same", [[0] * 8] * 4, 0x01010101, "one lane per quarter, same addr: H0=4 H1=1"),
        ("l_q4_diffbank", [[0] * 8, [1] * 8, [2] * 8, [3] * 8], 0x01010101, "one lane/quarter, disjoint banks: H0=4 H2=1"),
        ("l_q4_samebank", [[0] * 8, [8] * 8, [16] * 8, [24] * 8], 0x01010101, "one lane/quarter, bank 0-3: 4"),
        ("l0l8_same", [[0] * 8] * 4, 0x00000101, "lanes 0,8 same: H0=2 H1=1"),
        ("l0l16_same", [[0] * 8] * 4, 0x00010001, "lanes 0,16 same: H0=2 H1=1"),
        ("l0l24_same", [[0] * 8] * 4, 0x01000001, "lanes 0,24 same (far quarters): H0=2 H1=1"),
        ("l0l8_diffbank", [[0] * 8, [1] * 8, [0] * 8, [0] * 8], 0x00000101, "lanes 0,8 disjoint banks: H0=2 H2=1"),
        ("l0l1_same", [[0] * 8] * 4, 0x00000003, "lanes 0,1 same (one phase): 1"),
        ("l0l1_samebank", [[0, 8] + [0] * 6] + [[0] * 8] * 3, 0x00000003, "lanes 0,1 bank clash: 2"),
        ("l7l8_same", [[2] * 8] * 4, 0x00000180, "lanes 7,8 same: H0=2 H1=1"),
        ("q1_only", [q(0), q(8), q(16), q(24)], 0x0000FF00, "only Q1 active: 1"),
        ("q3_only", [q(0), q(8), q(16), q(24)], 0xFF000000, "only Q3 active: 1"),
        ("q02_only_same", [q(0), q(8), q(0), q(8)], 0x00FF00FF, "Q0,Q2 active, identical: H0=2 H1=1"),
        ("x8_conf", [[i * 8 for i in c8]] * 4, FULL, "all quarters identical, 8-way in bank 0: H0=32 H1=8"),
        ("x24_half", [q(0), q(0), q(0), q(8)], FULL, "Q0=Q1=Q2, Q3 differs: H1=2 HW=2"),
    ]
    for name, ph, mask, desc in probes:
        for op in OPS:
            s.add("w16_h_%s_%s" % (name, op), "phase16", w, op, by_phase(w, ph), mask, desc=desc)


def fam_pool(s, rng, width, count_ld, count_st, tag="", family=None):
    """Random 64/128-bit patterns from a small pool of elements inside 1 KiB: many lanes and phases
    share addresses, so every merge hypothesis gets chances to be right or wrong. Some draws keep
    each phase inside one structured choice (phase-level sharing), some are lane-level."""
    family = family or ("pool%d" % width)
    nelem = 1024 // width
    for op, count in (("ld", count_ld), ("st", count_st)):
        for i in range(count):
            kind = i % 4
            pool = rng.sample(range(nelem), rng.choice((1, 2, 3, 4, 6, 8, 12, 16)))
            per = 128 // width  # lanes per phase in the simple model
            if kind == 0:      # lane-level random from the pool
                idx = [rng.choice(pool) for _ in lanes()]
            elif kind == 1:    # each phase = one random lane->pool map, phases copied/permuted
                base = [rng.choice(pool) for _ in range(per)]
                idx = []
                for _p in range(WARP // per):
                    choice = rng.randrange(3)
                    if choice == 0:
                        ph = list(base)
                    elif choice == 1:
                        ph = list(base)
                        rng.shuffle(ph)
                    else:
                        ph = [rng.choice(pool) for _ in range(per)]
                    idx += ph
            elif kind == 2:    # per-phase broadcast from the pool
                idx = []
                for _p in range(WARP // per):
                    idx += [rng.choice(pool)] * per
            else:              # contiguous run per phase, phases at random pool offsets
                idx = []
                for _p in range(WARP // per):
                    start = rng.choice(pool) % (nelem - per)
                    run = [start + j // rng.choice((1, 2, 4)) for j in range(per)] if False else \
                        [start + j // (1 << rng.randrange(3)) for j in range(per)]
                    idx += run
            mask = FULL if rng.random() < 0.6 else (rng.getrandbits(32) or 1)
            s.add("w%d_pool%s%d_%s" % (width, tag, i, op), family, width, op,
                  [e * width for e in idx], mask, desc="pool %d kind %d" % (len(pool), kind))


# --------------------------------------------------------------------------------------------
# Fresh batch: new random draws of each kind, another seed. Predicted before it is measured.

def fresh(s, rng, per_family):
    n = per_family
    for i in range(n):  # stride: random word stride, random op
        st = rng.randrange(0, 131)
        base = 4 * rng.randrange(0, (LIMIT - 4 * st * 31) // 4)  # a fresh start word
        op = rng.choice(OPS)
        s.add("f_stride%d_w4_ws%d_%s" % (i, st, op), "stride", 4, op,
              [base + 4 * st * l for l in lanes()])
    for i in range(n):  # estride: random width/element stride
        width = rng.choice((1, 2, 8, 16))
        emax = (LIMIT - width) // (width * (WARP - 1))
        e = rng.randrange(0, min(emax, 130) + 1)
        base = width * rng.randrange(0, (LIMIT - width * e * 31) // width)
        op = rng.choice(OPS)
        s.add("f_estride%d_w%d_es%d_%s" % (i, width, e, op), "estride", width, op,
              [base + width * e * l for l in lanes()])
    for i in range(n):  # bcast: g lanes share (consecutive or modulo), random base stride
        width = rng.choice(WIDTHS)
        g = rng.choice((2, 4, 8, 16, 32))
        stride = rng.choice((1, 2, 3, 4, 8, 16, 32 // width if width < 32 else 1, 128 // width)) or 1
        mod = rng.random() < 0.5
        offs = [((l % g) if mod else (l // g)) * stride * width for l in lanes()]
        op = rng.choice(OPS)
        s.add("f_bcast%d_w%d_%s" % (i, width, op), "bcast", width, op, offs)
    for i in range(n):  # xorshare: random k, random base stride
        width = rng.choice(WIDTHS)
        k = rng.randrange(1, 32)
        stride = rng.choice((1, 2, 3, 5, 8, 16))
        offs = [(l & ~k) * stride * width for l in lanes()]
        op = rng.choice(OPS)
        s.add("f_xorshare%d_w%d_k%d_%s" % (i, width, k, op), "xorshare", width, op, offs)
    for i in range(n):  # mask: random mask over a random structured base
        width = rng.choice(WIDTHS)
        base = rng.randrange(4)
        if base == 0:
            offs = [l * width for l in lanes()]
        elif base == 1:
            offs = [l * 128 for l in lanes()]
        elif base == 2:
            offs = [(l & rng.choice((15, 7, 23))) * width for l in lanes()]
        else:
            offs = [rng.randrange(0, 512 // width) * width for _ in lanes()]
        m = rng.getrandbits(32) & rng.getrandbits(32) if rng.random() < 0.5 else rng.getrandbits(32)
        m = m or (1 << rng.randrange(32))
        op = rng.choice(OPS)
        s.add("f_mask%d_w%d_%s" % (i, width, op), "mask", width, op, offs, m)
    for i in range(n):  # perm: random permutation of a contiguous or strided row
        width = rng.choice(WIDTHS)
        p = list(lanes())
        rng.shuffle(p)
        stride = rng.choice((1, 1, 2, 3, 33 if width == 4 else 1))
        op = rng.choice(OPS)
        s.add("f_perm%d_w%d_%s" % (i, width, op), "perm", width, op, [e * stride * width for e in p])
    for i in range(n):  # swizzle: random CuTe swizzle, random read shape
        width = rng.choice(WIDTHS)
        row_elems = 128 // width
        b, m, sh = rng.randrange(1, 4), rng.randrange(0, 5), rng.randrange(1, 5)
        shape = rng.randrange(3)
        c0 = rng.randrange(row_elems)
        offs = []
        for l in lanes():
            r, c = ((l, c0) if shape == 0 else (l // row_elems, l % row_elems) if shape == 1
                    else (l % 8, ((l // 8) * max(1, 16 // width) + c0) % row_elems))
            o = cute_swizzle(b, m, sh, r * row_elems + c)
            offs.append((o % (LIMIT // width)) * width)
        op = rng.choice(OPS)
        s.add("f_swizzle%d_w%d_sw%d%d%d_%s" % (i, width, b, m, sh, op), "swizzle", width, op, offs)
    rnd = Suite()
    fam_random(rnd, rng, tag="f", per=1)
    picked = rng.sample(rnd.rows, min(n, len(rnd.rows)))
    for r in picked:
        s.add("f_" + r["id"], "random", r["width"], r["op"], r["offsets"], int(r["mask"], 16))
    for i in range(n):  # subword
        width = rng.choice((1, 2))
        words = rng.sample([w * 4 for w in range(256)], rng.choice((1, 2, 4, 8)))
        offs = [rng.choice(words) + rng.randrange(4 // width) * width for _ in lanes()]
        op = rng.choice(OPS)
        s.add("f_subword%d_w%d_%s" % (i, width, op), "subword", width, op, offs)
    # 64/128-bit: twice the share, they are where the measured rules live.
    fam_pool(s, rng, 8, n, n // 2 + 1, tag="f", family="pool8")
    fam_pool(s, rng, 16, n, n // 2 + 1, tag="f", family="pool16")
    for i in range(n):  # phase-structured 8B: each half = random structure over a few rows
        width = rng.choice((8, 16))
        per = 128 // width
        idx = []
        for _p in range(WARP // per):
            style = rng.randrange(4)
            start = rng.randrange(0, 64)
            if style == 0:
                idx += [start + j for j in range(per)]
            elif style == 1:
                idx += [start] * per
            elif style == 2:
                g = rng.choice((2, 4))
                idx += [start + j // g for j in range(per)]
            else:
                idx += [start + rng.randrange(per) for _ in range(per)]
        mask = FULL if rng.random() < 0.7 else (rng.getrandbits(32) or 1)
        op = rng.choice(OPS)
        s.add("f_phase%d_w%d_%s" % (i, width, op), "phase%d" % width, width, op,
              [e * width for e in idx], mask)


def build_suite():
    rng = random.Random(SUITE_SEED)
    s = Suite()
    # Hypothesis probes first: where a regular family repeats one, the probe keeps its name.
    fam_phase8(s)
    fam_phase16(s)
    fam_stride(s)
    fam_estride(s)
    fam_bcast(s)
    fam_xorshare(s)
    fam_mask(s, rng)
    fam_perm(s, rng)
    fam_swizzle(s)
    fam_random(s, rng)
    fam_subword(s, rng)
    fam_pool(s, rng, 8, 40, 12)
    fam_pool(s, rng, 16, 40, 12)
    return s


def build_fresh(per_family):
    rng = random.Random(FRESH_SEED)
    s = Suite()
    fresh(s, rng, per_family)
    # Must be fresh: drop anything that is already in the main suite.
    main = build_suite()
    out = Suite()
    for r in s.rows:
        key = (r["width"], r["op"], int(r["mask"], 16), tuple(r["offsets"]))
        if key in main.keys:
            continue
        out.add(r["id"], r["family"], r["width"], r["op"], r["offsets"], int(r["mask"], 16))
    return out


def summary(s, name):
    from collections import Counter
    fam = Counter(r["family"] for r in s.rows)
    wo = Counter((r["width"], r["op"]) for r in s.rows)
    lines = ["%s: %d patterns (%d exact duplicates dropped)" % (name, len(s.rows), len(s.duplicates))]
    lines.append("  by family: " + ", ".join("%s %d" % kv for kv in sorted(fam.items())))
    lines.append("  by width/op: " + ", ".join("%dB %s %d" % (w, o, c) for (w, o), c in sorted(wo.items())))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out-dir", default=HERE, help="where to write (default: this directory)")
    ap.add_argument("--fresh-per-family", type=int, default=12,
                    help="fresh patterns per family in fresh_batch.jsonl (default 12)")
    ap.add_argument("--check", action="store_true", help="fail if the files on disk differ")
    args = ap.parse_args()
    outputs = [("patterns.jsonl", build_suite()), ("fresh_batch.jsonl", build_fresh(args.fresh_per_family))]
    bad = False
    for fname, suite in outputs:
        path = os.path.join(args.out_dir, fname)
        text = suite.text()
        print(summary(suite, fname), file=sys.stderr)
        if args.check:
            try:
                with open(path, encoding="utf-8") as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                print("%s: differs from the generator's output" % path, file=sys.stderr)
                bad = True
            continue
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
