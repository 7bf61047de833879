#!/usr/bin/env python3
# gen_ldgsts_src_v1.py: issue 11's cp.async (LDGSTS) source-side probe batch. Every earlier ldgsts
# pattern loaded one contiguous global row (lane l from l * width); this batch gives each lane its
# own global SOURCE ("src") as well as its shared destination, built to separate the rival rules in
# README_ldgsts_src.md ("Hypotheses"), not to pad a count. Deterministic: python3 stdlib, fixed seed.
#
#   python3 tests/conformance/gen_ldgsts_src_v1.py           # writes ldgsts_src_v1.jsonl + summary
#   python3 tests/conformance/gen_ldgsts_src_v1.py --check   # exit 1 if the file differs
#   python3 tests/conformance/gen_ldgsts_src_v1.py --hyp     # how often each pair of hypotheses
#                                                            # (scripts/ldgsts_rules.py) disagrees
#
# Line format (bankscope-gpu patterns / bankscope-cli predict --jsonl; id, family, desc are echoed):
#   {"id", "family", "op": "ldgsts", "width": 4|8|16, "cache": "ca"|"cg", ["l2_prefetch": 64|128|256,]
#    "mask", "offsets", "src", "desc"}
# offsets: shared destinations, aligned to the width, below 48 KiB. src: global source byte offsets
# into a cudaMalloc'd buffer (256-byte aligned, so src mod 32 / mod 128 is the sector / line
# position), aligned to the width (PTX ISA: cp.async faults otherwise), below 64 MiB.
import argparse
import json
import os
import random
import sys

WARP = 32
FULL = 0xFFFFFFFF
DST_LIMIT = 49152
SRC_LIMIT = 64 * 1024 * 1024
HERE = os.path.dirname(os.path.abspath(__file__))
OUT_FILE = os.path.join(HERE, "ldgsts_src_v1.jsonl")
SEED = 20261201
KINDS = ((4, "ca"), (8, "ca"), (16, "ca"), (16, "cg"))


def tag(w, c):
    return "w%d%s" % (w, c)


class Batch:
    def __init__(self):
        self.rows, self.ids, self.keys = [], set(), set()

    def add(self, pid, family, w, c, dst, src, desc, mask=FULL, allow_dup=False, pf=0):
        dst = [int(o) for o in dst]
        src = [int(o) for o in src]
        mask &= FULL
        assert len(dst) == WARP and len(src) == WARP, pid
        assert mask, pid
        assert c in ("ca", "cg") and (c == "ca" or w == 16), pid
        for l in range(WARP):
            assert 0 <= dst[l] < DST_LIMIT and dst[l] % w == 0, (pid, l, dst[l])
            assert 0 <= src[l] < SRC_LIMIT and src[l] % w == 0, (pid, l, src[l])
        pid = "ls_%s_%s" % (tag(w, c), pid)
        assert pf in (0, 64, 128, 256), pid
        key = (w, c, mask, tuple(dst), tuple(src), pf)
        if key in self.keys and not allow_dup:
            return False
        assert pid not in self.ids, pid
        self.ids.add(pid)
        self.keys.add(key)
        row = {"id": pid, "family": family, "op": "ldgsts", "width": w, "cache": c}
        if pf:
            row["l2_prefetch"] = pf
        row.update({"mask": "0x%08x" % mask, "offsets": dst, "src": src, "desc": desc})
        self.rows.append(row)
        return True


# ---------------------------------------------------------------------------------------------
# Source layouts: lane -> global byte offset, for a copy of w bytes. Each is (name, list, desc).
# ---------------------------------------------------------------------------------------------

def in_lines(w, n, line_gap=1024):
    """32 lanes over n 128-byte lines (32/n lanes per line, contiguous inside the line, wrapping
    onto the line's first byte when 32/n lanes need more than 128 bytes), lines line_gap apart."""
    per = WARP // n
    per_line = 128 // w
    return [(l // per) * line_gap + ((l % per) % per_line) * w for l in range(WARP)]


def sources(w, rng):
    out = []
    out.append(("contig", [l * w for l in range(WARP)], "contiguous (the historical default, given explicitly)"))
    for base in (4, 8, 16, 32, 64, 96, 128):
        if base % w == 0 and base % 128 != 0 or base == 128:
            out.append(("contig_b%d" % base, [base + l * w for l in range(WARP)],
                        "contiguous from byte %d (sector/line misaligned)" % base))
    for n in (1, 2, 4, 8, 16, 32):
        out.append(("lines%d" % n, in_lines(w, n), "lanes over %d lines 1 KiB apart" % n))
    out.append(("lines4_adj", in_lines(w, 4, 128), "lanes over 4 adjacent lines"))
    for st in (32, 64, 128, 256, 512, 16384):
        if st != w:
            out.append(("stride%d" % st, [l * st for l in range(WARP)], "stride %d bytes" % st))
    out.append(("reversed", [(WARP - 1 - l) * w for l in range(WARP)], "contiguous, lane order reversed"))
    out.append(("xor1", [(l ^ 1) * w for l in range(WARP)], "contiguous, lanes l^1 swapped"))
    out.append(("xor8", [(l ^ 8) * w for l in range(WARP)], "contiguous, lanes l^8 swapped"))
    out.append(("xor16", [(l ^ 16) * w for l in range(WARP)], "contiguous, halves swapped"))
    for k in (2, 4):
        out.append(("alt%d" % k, [(l % k) * 1024 + (l // k) * w for l in range(WARP)],
                    "lane l on line l %% %d (lines interleaved in lane order)" % k))
    out.append(("same", [0] * WARP, "every lane one source"))
    out.append(("same_b64", [64] * WARP, "every lane one source at byte 64"))
    out.append(("pairs", [(l // 2) * w for l in range(WARP)], "lanes 2k, 2k+1 one source"))
    out.append(("halves_far", [(l % 16) * w + (l // 16) * 65536 for l in range(WARP)],
                "half-warps 64 KiB apart, contiguous inside"))
    perm = list(range(WARP))
    rng.shuffle(perm)
    out.append(("perm", [perm[l] * w for l in range(WARP)], "contiguous block, lanes randomly permuted"))
    out.append(("rand_64k", [rng.randrange(65536 // w) * w for _ in range(WARP)], "random in 64 KiB"))
    out.append(("rand_1k", [rng.randrange(1024 // w) * w for _ in range(WARP)], "random in 1 KiB"))
    return out


# ---------------------------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------------------------

def fam_srcvary(b, rng):
    """Destinations fixed, sources varied: conflict-free contiguous, and 2-way/one-bank ones."""
    for w, c in KINDS:
        dsts = (("dcontig", [l * w for l in range(WARP)]),
                ("des2", [l * 2 * w for l in range(WARP)]),
                ("dnway32", [l * 128 for l in range(WARP)]))
        for dname, dst in dsts:
            keep = {"des2": ("contig", "lines1", "lines32", "stride16384", "same"),
                    "dnway32": ("contig", "lines1", "lines32", "stride128", "stride16384", "reversed", "alt2")}
            for sname, src, sdesc in sources(w, rng):
                if dname != "dcontig" and sname not in keep[dname]:
                    continue
                b.add("%s_%s" % (dname, sname), "srcvary", w, c, dst, src, "dst %s; src %s" % (dname, sdesc))


def fam_dstvary(b, rng):
    """Sources fixed (contiguous, one column of a big column-major matrix, all one), destinations varied."""
    for w, c in KINDS:
        srcs = (("scontig", [l * w for l in range(WARP)]),
                ("scol", [l * 16384 for l in range(WARP)]),
                ("ssame", [0] * WARP))
        pool = [rng.randrange(1024 // w) * w for _ in range(4)]
        dsts = (("es0", [0] * WARP), ("es1", [l * w for l in range(WARP)]), ("es2", [l * 2 * w for l in range(WARP)]),
                ("es3", [l * 3 * w for l in range(WARP)]), ("nway8", [(l % 8) * 128 + (l // 8) * w for l in range(WARP)]),
                ("pairs", [(l // 2) * w for l in range(WARP)]), ("halves_same", [(l % 16) * w for l in range(WARP)]),
                ("reversed", [(WARP - 1 - l) * w for l in range(WARP)]), ("pool4", [rng.choice(pool) for _ in range(WARP)]),
                ("rand", [rng.randrange(2048 // w) * w for _ in range(WARP)]))
        for sname, src in srcs:
            for dname, dst in dsts:
                if sname == "ssame" and dname not in ("es0", "es1", "es2", "pairs"):
                    continue
                b.add("%s_d%s" % (sname, dname), "dstvary", w, c, dst, src, "src %s; dst %s" % (sname, dname))


def fam_delta(b, rng):
    """Destination = source + a constant (the same shape shifted) vs the same destinations with the
    source shape changed: the (source line, destination - source) candidate for .cg."""
    for w, c in KINDS:
        for st in (2, 3, 5, 8):
            src = [l * st * w for l in range(WARP)]
            b.add("shift_es%d" % st, "delta", w, c, [s + 256 for s in src], src, "dst = src + 256, element stride %d" % st)
            b.add("shift_es%d_d0" % st, "delta", w, c, src, src, "dst = src, element stride %d" % st)
        # Permuted within each 128-byte source line: same lines, scrambled deltas.
        per_line = 128 // w
        src = [l * w for l in range(WARP)]
        dst = [(l // per_line) * 128 + ((l % per_line) ^ 1) * w for l in range(WARP)]
        b.add("inline_xor1", "delta", w, c, dst, src, "contiguous src; dst swaps neighbours inside each line")
        dst = [(l // per_line) * 128 + (per_line - 1 - l % per_line) * w for l in range(WARP)]
        b.add("inline_rev", "delta", w, c, dst, src, "contiguous src; dst reversed inside each line")
        # A line's lanes sent to two 128-byte destination rows, order kept.
        dst = [(l // per_line) * 256 + (l % per_line) * w for l in range(WARP)]
        b.add("line_gap128", "delta", w, c, dst, src, "contiguous src; each source line to its own 256-byte-strided row")


def fam_oneline(b):
    """16-byte copies of ONE source line (lanes 0-7, contiguous 128 bytes): the cost of a single
    line as a function of where its eight 16-byte chunks land (patterns_v2's .cg es2 = 32, es3 = 24,
    es5 = 32 fit no rule; per line that is 8, 6, 8). .ca beside .cg for comparison."""
    src = [l * 16 for l in range(WARP)]
    shapes = []
    for k in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16):
        shapes.append(("es%d" % k, [l * k * 16 for l in range(WARP)]))
    for sh in (16, 32, 64, 112, 128, 4096):
        shapes.append(("shift%d" % sh, [sh + l * 16 for l in range(WARP)]))
    shapes.append(("xor1", [(l ^ 1) * 16 for l in range(WARP)]))
    shapes.append(("rev", [(7 - l % 8) * 16 for l in range(WARP)]))
    shapes.append(("rot3", [((l + 3) % 8) * 16 for l in range(WARP)]))
    shapes.append(("sw_row5", [((l % 8) ^ 5) * 16 + 640 for l in range(WARP)]))
    shapes.append(("split4_gap", [(l % 8) * 16 + (l % 8 >= 4) * 128 for l in range(WARP)]))
    shapes.append(("split4_far", [(l % 8) * 16 + (l % 8 >= 4) * 4096 for l in range(WARP)]))
    shapes.append(("pairs_gap", [(l // 2) * 64 + (l % 2) * 16 for l in range(WARP)]))
    shapes.append(("quads_gap", [(l // 4) * 128 + (l % 4) * 16 + 64 for l in range(WARP)]))
    for c in ("ca", "cg"):
        for name, dst in shapes:
            b.add("line0_%s" % name, "oneline", 16, c, dst, src, "lanes 0-7 (one source line), dst %s" % name,
                  mask=0x000000FF)
        # Two source lines (lanes 0-15) with the second line's chunks shifted as a whole or not.
        b.add("line01_es3", "oneline", 16, c, [l * 48 for l in range(WARP)], src, "lanes 0-15, dst stride 48",
              mask=0x0000FFFF)
        b.add("line01_es2", "oneline", 16, c, [l * 32 for l in range(WARP)], src, "lanes 0-15, dst stride 32",
              mask=0x0000FFFF)


def fam_gemm(b, rng):
    """cuBLAS-SGEMM-like 4-byte .ca copies: groups of g lanes read g contiguous elements of one column
    of a column-major matrix (src stride lda * 4 between groups), destinations contiguous."""
    for lda in (512, 4096, 513, 4097):
        for g in (1, 2, 4, 8, 16, 32):
            if g == 32 and lda != 512:
                continue
            src = [(l // g) * lda * 4 + (l % g) * 4 for l in range(WARP)]
            b.add("gemm_lda%d_g%d" % (lda, g), "gemm", 4, "ca", [l * 4 for l in range(WARP)], src,
                  "SGEMM-like: %d contiguous floats per column, lda %d, dst contiguous" % (g, lda))
    # The same with the destination tile transposed (k-major rows of 64 floats + 4 pad).
    for g in (4, 8):
        src = [(l // g) * 4096 * 4 + (l % g) * 4 for l in range(WARP)]
        dst = [(l % g) * 68 * 4 + (l // g) * 4 for l in range(WARP)]
        b.add("gemm_lda4096_g%d_dT68" % g, "gemm", 4, "ca", dst, src, "SGEMM-like, dst transposed with stride 68 floats")
    # 8- and 16-byte vector versions (aligna8/16 kernels), and .cg for 16.
    for w, c in ((8, "ca"), (16, "ca"), (16, "cg")):
        for g in (1, 2, 4, 8):
            src = [(l // g) * 4096 * 4 + (l % g) * w for l in range(WARP)]
            b.add("gemm_lda4096_g%d" % g, "gemm", w, c, [l * w for l in range(WARP)], src,
                  "column blocks of %d x %d B, lda 4096 floats, dst contiguous" % (g, w))


def fam_prefetch(b):
    """cp.async's .L2::<n>B prefetch hint: cuBLAS's SGEMM issues LDGSTS.E.LTC128B, the probes above
    issue LDGSTS.E. The same shapes with the hint: does it change the shared-side count?"""
    for r in list(b.rows):
        fam, rid = r["family"], r["id"]
        base = rid[len("ls_") + len(tag(r["width"], r["cache"])) + 1:]
        pick = (fam == "gemm" and r["cache"] == "ca" and "lda512_" not in base and "lda4097" not in base) or base in (
            "dcontig_contig", "dcontig_lines1", "dcontig_lines8", "dcontig_lines32", "dcontig_stride16384",
            "dcontig_contig_b16", "scontig_des2", "scontig_dpairs", "ssame_des1")
        if not pick:
            continue
        for pf in ((64, 128, 256) if base in ("gemm_lda4096_g8", "dcontig_lines32") else (128,)):
            b.add(base + "_pf%d" % pf, "prefetch", r["width"], r["cache"], r["offsets"], r["src"],
                  r["desc"] + "; .L2::%dB" % pf, mask=int(r["mask"], 16), pf=pf)


def fam_mask(b, rng):
    for w, c in KINDS:
        col = [l * 16384 for l in range(WARP)]
        contig = [l * w for l in range(WARP)]
        b.add("mask_half_scol", "mask", w, c, contig, col, "lanes 0-15, column sources", mask=0x0000FFFF)
        b.add("mask_odd_scol", "mask", w, c, contig, col, "odd lanes, column sources", mask=0xAAAAAAAA)
        b.add("mask_one_scol", "mask", w, c, contig, col, "lane 5 only", mask=1 << 5)
        b.add("mask_8lanes_lines", "mask", w, c, contig, in_lines(w, 8), "one lane of each 4 per line", mask=0x11111111)
        for k in range(2):
            m = rng.getrandbits(32) or 1
            src = [rng.randrange(65536 // w) * w for _ in range(WARP)]
            dst = [rng.randrange(2048 // w) * w for _ in range(WARP)]
            b.add("mask_rand_%d" % k, "mask", w, c, dst, src, "random mask, sources, destinations", mask=m)


def fam_random(b, rng):
    for w, c in KINDS:
        for k in range(5):
            n_lines = rng.choice((1, 2, 3, 4, 6, 8, 12, 32))
            lines = [rng.randrange(512) * 128 for _ in range(n_lines)]
            src = [rng.choice(lines) + rng.randrange(128 // w) * w for _ in range(WARP)]
            dst = [rng.randrange(4096 // w) * w for _ in range(WARP)]
            b.add("rand_lines%d_%d" % (n_lines, k), "random", w, c, dst, src,
                  "sources in %d random lines, random destinations in 4 KiB" % n_lines)


def fam_repeat(b):
    """Exact repeats of earlier lines (different ids): is one launch's count reproducible, whatever
    the caches hold from the launch before?"""
    picks = [r for r in b.rows if r["id"].endswith(("dcontig_contig", "dcontig_stride16384", "dcontig_lines32",
                                                    "gemm_lda4096_g8", "sscol_dpairs"))]
    for r in picks:
        for k in (1,):
            b.add(r["id"][len("ls_") + len(tag(r["width"], r["cache"])) + 1:] + "_rep%d" % k, "repeat", r["width"],
                  r["cache"], r["offsets"], r["src"], r["desc"] + " (repeat %d)" % k, mask=int(r["mask"], 16),
                  allow_dup=True)


def build():
    b = Batch()
    rng = random.Random(SEED)
    fam_srcvary(b, rng)
    fam_dstvary(b, rng)
    fam_delta(b, rng)
    fam_gemm(b, rng)
    fam_oneline(b)
    fam_mask(b, rng)
    fam_random(b, rng)
    fam_repeat(b)
    fam_prefetch(b)
    return b


def dump(rows):
    return "".join(json.dumps(r) + "\n" for r in rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    ap.add_argument("--hyp", action="store_true", help="per family, how often hypotheses disagree")
    ap.add_argument("--out", default=OUT_FILE)
    a = ap.parse_args()
    b = build()
    text = dump(b.rows)
    if a.check:
        with open(a.out) as f:
            same = f.read() == text
        print("%s: %s" % (a.out, "up to date" if same else "DIFFERS from the generator"))
        return 0 if same else 1
    if a.hyp:
        sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
        import ldgsts_rules  # noqa: E402
        print(ldgsts_rules.separation_table(b.rows))
        return 0
    with open(a.out, "w") as f:
        f.write(text)
    fams = {}
    for r in b.rows:
        k = (r["family"], tag(r["width"], r["cache"]))
        fams[k] = fams.get(k, 0) + 1
    print("%d patterns -> %s" % (len(b.rows), a.out))
    for fam in sorted({k[0] for k in fams}):
        print("  %-8s %s" % (fam, "  ".join("%s %d" % (t, fams.get((fam, t), 0)) for t in (tag(*k) for k in KINDS))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
