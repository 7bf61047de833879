#!/usr/bin/env python3
# ldgsts_rules.py: rules for the shared-memory side of cp.async (LDGSTS), issue 11, as plain
# functions of one JSONL pattern -> (wavefronts, bank_conflicts): the hypotheses of
# tests/conformance/README_ldgsts_src.md (H0-H5), the rules fitted on the 2026-12-01g probe (H6 for
# .ca, H8 for .cg, superseded) and the rules the model applies since 2026-12-01u/v (R9_model = H9 for
# .ca, H10 for .cg; sim/ldgsts.hpp is the C++, sim/RULES.md R9 the evidence).
#
# A pattern is the dict of one JSONL line: width, cache ("ca"/"cg"), mask, offsets (shared
# destinations) and src (global source byte offsets; absent = lane * width, the harness default).
#
#   python3 scripts/ldgsts_rules.py --selftest    hand-worked cases (each value explained below)
#   python3 scripts/ldgsts_rules.py --dump BATCH  every hypothesis on every line (for the C++ check)
import sys

WARP = 32
BANKS = 32
LINE = 128
SECTOR = 32


# ---------------------------------------------------------------------------------------------
# Pattern accessors
# ---------------------------------------------------------------------------------------------

def mask_of(p):
    m = p.get("mask", 0xFFFFFFFF)
    return int(m, 16) if isinstance(m, str) else int(m)


def active(p):
    m = mask_of(p)
    return [l for l in range(WARP) if (m >> l) & 1]


def src_of(p):
    """Lane -> global source byte offset; the harness default lane * width when absent."""
    return p["src"] if "src" in p else [l * p["width"] for l in range(WARP)]


def is_cg(p):
    return p.get("cache", "ca") == "cg"


# ---------------------------------------------------------------------------------------------
# R9's unit: phases as a store of the width, every active lane served alone in its bank
# ---------------------------------------------------------------------------------------------

def phase_of(lane, width):
    """Documented for older parts / measured here for stores: 4 B the whole warp, 8 B half-warps,
    16 B quarter-warps."""
    return lane // (WARP // max(1, width // 4)) if width > 4 else 0


def store_cost(lanes, dst, width):
    """R9 (measured, 71/71 .ca single-row patterns): per phase, the busiest bank's number of lanes
    (a lane of w bytes touches w/4 banks; lanes on the same word are NOT merged). Returns
    (wavefronts, active phases)."""
    per_phase = {}
    for l in lanes:
        ph = phase_of(l, width)
        banks = per_phase.setdefault(ph, {})
        for k in range(max(1, width // 4)):
            b = (dst[l] // 4 + k) % BANKS
            banks[b] = banks.get(b, 0) + 1
    wf = sum(max(b.values()) for b in per_phase.values())
    return wf, len(per_phase)


def grouped_cost(p, key):
    """Split the active lanes by key(lane); each group is a separate pass costed by store_cost.
    Conflicts = sum of (pass wavefronts - pass phases)."""
    groups = {}
    for l in active(p):
        groups.setdefault(key(l), []).append(l)
    wf = cf = 0
    for lanes in groups.values():
        w, ph = store_cost(lanes, p["offsets"], p["width"])
        wf += w
        cf += w - ph
    return wf, cf


# ---------------------------------------------------------------------------------------------
# The hypotheses
# ---------------------------------------------------------------------------------------------

def h0_dest_only(p):
    """H0 = R9 as adopted: destinations only, the source never matters."""
    w, ph = store_cost(active(p), p["offsets"], p["width"])
    return w, w - ph


def h1_per_line(p):
    """H1: one pass per 128-byte source line (a line's data written before the next)."""
    src = src_of(p)
    return grouped_cost(p, lambda l: src[l] // LINE)


def h2_per_sector(p):
    """H2: one pass per 32-byte source sector."""
    src = src_of(p)
    return grouped_cost(p, lambda l: src[l] // SECTOR)


def h3_line_shift(p):
    """H3 (the .cg candidate, 23/25 of patterns_v2's .cg lines): drop lanes repeating an earlier
    lane's destination, then one wavefront per distinct (source line, destination - source);
    conflicts 0 (all 25 measured .cg lines had 0)."""
    src, dst = src_of(p), p["offsets"]
    seen, keys = set(), set()
    for l in active(p):
        if dst[l] in seen:
            continue
        seen.add(dst[l])
        keys.add((src[l] // LINE, dst[l] - src[l]))
    return len(keys), 0


def h4_bandwidth(p):
    """H4: max(R9's cost, number of distinct source lines)."""
    w, ph = store_cost(active(p), p["offsets"], p["width"])
    lines = len({src_of(p)[l] // LINE for l in active(p)})
    wf = max(w, lines)
    return wf, w - ph


def h5_lane_runs(p):
    """H5: runs of consecutive active lanes on one source line form a request; each is a pass."""
    src = src_of(p)
    run_id, last, ids = -1, None, {}
    for l in active(p):
        line = src[l] // LINE
        if line != last:
            run_id += 1
            last = line
        ids[l] = run_id
    return grouped_cost(p, lambda l: ids[l])


# ---------------------------------------------------------------------------------------------
# The rules fitted on the measured probe (2026-12-01g), R9 until 2026-12-01u/v (H6, H7, H8), and the
# rules found on the small-structure probes and applied since (H9 .ca, H10 .cg; R9_model)
# ---------------------------------------------------------------------------------------------

def _banks(addr, width):
    return {(addr // 4 + k) % BANKS for k in range(max(1, width // 4))}


def h6_ca_serial(p):
    """H6 (.ca, measured 427 of 434 .ca lines of the probe + patterns_v2): the data of each lane is
    read from the L1's data banks (source bank = source / 4 mod 32, the line's place in the L1)
    and written to the destination banks. Phases as R9. Within a phase, in lane order, a lane's
    slot = max(number of earlier lanes of the phase sharing a source or a destination bank with
    it, 1 + the latest slot among those lanes) (0 without any); the phase costs its last slot + 1.
    Conflicts = wavefronts - active phases. Contiguous sources reduce it to R9."""
    src, dst, w = src_of(p), p["offsets"], p["width"]
    per_phase = {}
    for l in active(p):
        per_phase.setdefault(phase_of(l, w), []).append(l)
    wf = 0
    for lanes in per_phase.values():
        slot = {}
        for i, l in enumerate(lanes):
            sb, db = _banks(src[l], w), _banks(dst[l], w)
            earlier = [m for m in lanes[:i] if sb & _banks(src[m], w) or db & _banks(dst[m], w)]
            slot[l] = max([len(earlier)] + [slot[m] + 1 for m in earlier])
        wf += max(slot.values()) + 1
    return wf, wf - len(per_phase)


def h7_cg_sector(p):
    """H7 (.cg, measured 131 of 141 .cg lines): lanes repeating an earlier active lane's destination
    are dropped; one wavefront per distinct (source 128-byte line, destination 128-byte row,
    16-byte half swapped or not = bit 4 of source xor destination, 32-byte rotation = (destination
    / 32 - source / 32) mod 4); no conflicts (0 on all 150 measured .cg lines)."""
    src, dst = src_of(p), p["offsets"]
    seen, keys = set(), set()
    for l in active(p):
        if dst[l] in seen:
            continue
        seen.add(dst[l])
        keys.add((src[l] // LINE, dst[l] // LINE, ((src[l] ^ dst[l]) >> 4) & 1,
                  (dst[l] // SECTOR - src[l] // SECTOR) % 4))
    return len(keys), 0


# The dihedral group of the four 32-byte sectors of a line: rotations s -> s + r and reflections
# s -> r - s (mod 4). Reversal and the XOR swizzles inside a row are reflections/rotations of it.
D4 = [tuple((s + r) % 4 for s in range(4)) for r in range(4)] + \
     [tuple((r - s) % 4 for s in range(4)) for r in range(4)]


def _fewest_cover(passes, n):
    """The fewest of `passes` (bit masks over n pieces) whose union is all n pieces: a DP over the
    subsets (n <= 8 in a group of one destination row)."""
    best = [n + 1] * (1 << n)
    best[0] = 0
    for m in range(1 << n):
        if best[m] > n:
            continue
        for ps in passes:
            t = m | ps
            if best[m] + 1 < best[t]:
                best[t] = best[m] + 1
    return best[(1 << n) - 1]


def h8_cg_dihedral(p):
    """H8 (.cg, measured 141 of 150 .cg lines): lanes repeating an earlier active lane's destination
    are dropped. A kept lane is a 16-byte piece: source line, source piece p = source % 128 / 16
    (sector p / 2), destination row, destination piece q (chunk q / 2), halves swapped = (p ^ q) & 1,
    and its source sector's fill: both halves read by kept lanes, or only the lower, or only the
    upper. One wavefront moves, from one source line into one destination row, pieces of one fill
    kind and one swap setting whose sectors map to their chunks by ONE symmetry g of D4 (g(p / 2)
    = q / 2). Each (line, row) costs the fewest such wavefronts covering its pieces; no conflicts."""
    src, dst = src_of(p), p["offsets"]
    seen, kept = set(), []
    for l in active(p):
        if dst[l] in seen:
            continue
        seen.add(dst[l])
        kept.append(l)
    halves = {}
    for l in kept:
        halves.setdefault(src[l] // SECTOR, set()).add((src[l] // 16) % 2)
    groups = {}
    for l in kept:
        h = halves[src[l] // SECTOR]
        fill = 2 if len(h) == 2 else min(h)
        piece = ((src[l] % LINE) // 16, (dst[l] % LINE) // 16, fill)
        groups.setdefault((src[l] // LINE, dst[l] // LINE), set()).add(piece)
    wf = 0
    for pieces in groups.values():
        pieces = sorted(pieces)
        n = len(pieces)
        passes = set()
        for xh in (0, 1):
            for g in D4:
                for fill in (0, 1, 2):
                    m = 0
                    for i, (ps, qs, f) in enumerate(pieces):
                        if f == fill and (ps ^ qs) & 1 == xh and g[ps // 2] == qs // 2:
                            m |= 1 << i
                    if m:
                        passes.add(m)
        wf += _fewest_cover(passes, n)
    return wf, 0


def h9_ca_neighbourhood(p):
    """H9 (.ca, measured 2026-12-01u): found on every collision structure of 3, 4 and 5 lanes
    (ldgsts_small_v1, 3514 of 3514), then equal on every earlier measured .ca line (probe 363,
    patterns_v2 71, fresh 120; H6 missed 24 of them). Phases as R9. A lane's neighbourhood is the
    lanes of its phase sharing a source bank or a destination bank with it (itself included); the
    phase costs the largest neighbourhood. Conflicts = wavefronts - active phases. Not a packing:
    the hardware takes more wavefronts than a best packing (a source-and-destination 4-cycle of
    lanes: 3, where 2 would do) and never more than this."""
    src, dst, w = src_of(p), p["offsets"], p["width"]
    per_phase = {}
    for l in active(p):
        per_phase.setdefault(phase_of(l, w), []).append(l)
    wf = 0
    for lanes in per_phase.values():
        sb = {l: _banks(src[l], w) for l in lanes}
        db = {l: _banks(dst[l], w) for l in lanes}
        wf += max(sum(1 for y in lanes if sb[x] & sb[y] or db[x] & db[y]) for x in lanes)
    return wf, wf - len(per_phase)


def h10_cg_rank(p):
    """H10 (.cg, measured 2026-12-01v): found on the .cg small-structure probe (ldgsts_cg_small_v1,
    5284 of 5284: every 2-lane piece mapping of one line into one row, random triples, sets of 4-8
    lanes, two lines and rows), then equal on every earlier measured .cg line (probe 125, patterns_v2
    25, fresh 40; H8 missed 15 of them). Lanes repeating an earlier active lane's destination are
    dropped. A kept lane is a 16-byte piece: source line, source piece p = source % 128 / 16 (sector
    p / 2, half p % 2), destination row, destination piece q (chunk q / 2), swap x = (p ^ q) & 1.
    Its rank = the number of LATER kept lanes with the same source line, piece, swap and destination
    row (a piece read twice the same way goes out twice). Lanes of one rank, source line and
    destination row form a group; a piece is paired when its partner half (p ^ 1 -> q ^ 1) is in the
    group too. One wavefront moves, under ONE symmetry g of the four sectors (a rotation s -> s + r
    or a reflection s -> r - s, mod 4) and one swap x, either paired pieces of whole sectors (both
    halves of each sector S into chunk g(S)) or unpaired pieces of one half h; a group costs the
    fewest wavefronts that cover it; no conflicts."""
    src, dst = src_of(p), p["offsets"]
    seen, kept = set(), []
    for l in active(p):
        if dst[l] in seen:
            continue
        seen.add(dst[l])
        kept.append((src[l] // LINE, (src[l] % LINE) // 16, dst[l] // LINE, (dst[l] % LINE) // 16))
    groups = {}
    for i, (line, ps, row, qs) in enumerate(kept):
        rank = sum(1 for m in kept[i + 1:] if m[0] == line and m[1] == ps and m[2] == row and (m[1] ^ m[3]) & 1 == (ps ^ qs) & 1)
        groups.setdefault((rank, line, row), []).append((ps, qs))
    wf = 0
    for pieces in groups.values():
        n = len(pieces)
        have = set(pieces)
        paired = [(ps ^ 1, qs ^ 1) in have for ps, qs in pieces]
        passes = set()
        for g in D4:
            for xh in (0, 1):
                for h in (0, 1):
                    m = 0
                    for i, (ps, qs) in enumerate(pieces):
                        if not paired[i] and ps % 2 == h and g[ps // 2] == qs // 2 and (ps ^ qs) & 1 == xh:
                            m |= 1 << i
                    if m:
                        passes.add(m)
                m = 0
                for i, (ps, qs) in enumerate(pieces):
                    if paired[i] and g[ps // 2] == qs // 2 and (ps ^ qs) & 1 == xh:
                        m |= 1 << i
                if m:
                    passes.add(m)
        wf += _fewest_cover(passes, n)
    return wf, 0


def r9_model(p):
    """R9 as the model applies it (sim/ldgsts.hpp): H9 for .ca, H10 for .cg."""
    return h10_cg_rank(p) if is_cg(p) else h9_ca_neighbourhood(p)


HYPOTHESES = {
    "H0_dest_only": h0_dest_only,
    "H1_per_line": h1_per_line,
    "H2_per_sector": h2_per_sector,
    "H3_line_shift": h3_line_shift,
    "H4_bandwidth": h4_bandwidth,
    "H5_lane_runs": h5_lane_runs,
    "H6_ca_serial": h6_ca_serial,
    "H7_cg_sector": h7_cg_sector,
    "H8_cg_dihedral": h8_cg_dihedral,
    "H9_ca_neighbourhood": h9_ca_neighbourhood,
    "H10_cg_rank": h10_cg_rank,
    "R9_model": r9_model,
}


def separation_table(rows):
    """For gen_ldgsts_src_v1.py --hyp: per family, how many patterns each pair of hypotheses
    predicts different wavefronts for."""
    names = list(HYPOTHESES)
    fams = sorted({r["family"] for r in rows})
    out = ["wavefront disagreements per family (pairs of hypotheses), %d patterns" % len(rows)]
    head = "%-10s %5s " % ("family", "n") + " ".join("%s/%s" % (a[:2], b[:2]) for i, a in enumerate(names)
                                                    for b in names[i + 1:])
    out.append(head)
    for fam in fams + ["all"]:
        sel = [r for r in rows if fam == "all" or r["family"] == fam]
        pred = [{n: HYPOTHESES[n](r)[0] for n in names} for r in sel]
        cells = []
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                cells.append("%5d" % sum(x[a] != x[b] for x in pred))
        out.append("%-10s %5d " % (fam, len(sel)) + " ".join(cells))
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Self-test: hand-worked cases
# ---------------------------------------------------------------------------------------------

def _p(width, dst, src=None, mask=0xFFFFFFFF, cache="ca"):
    p = {"width": width, "cache": cache, "mask": "0x%08x" % mask, "offsets": dst}
    if src is not None:
        p["src"] = src
    return p


def selftest():
    L = range(WARP)
    checks = [
        # 4 B, contiguous dst and src: one phase, every bank once; src in one line -> 1 everywhere.
        ("contig4 H0", h0_dest_only(_p(4, [l * 4 for l in L])), (1, 0)),
        ("contig4 H1", h1_per_line(_p(4, [l * 4 for l in L])), (1, 0)),
        # ... sectors: 4 sectors of 8 lanes, each pass 1 wavefront -> 4 (3 conflicts? no: each pass
        # has 1 phase and costs 1, so 0 conflicts).
        ("contig4 H2", h2_per_sector(_p(4, [l * 4 for l in L])), (4, 0)),
        # 4 B, all lanes one destination word: bank 0 holds 32 lanes -> 32 / 31 (measured ldgsts4_es0).
        ("es0 4B H0", h0_dest_only(_p(4, [0] * 32)), (32, 31)),
        # 16 B es0: 4 quarter-warp phases x 8 lanes on banks 0-3 -> 32 / 28 (measured ldgsts16_es0).
        ("es0 16B H0", h0_dest_only(_p(16, [0] * 32)), (32, 28)),
        # 4 B column source (stride 16384): 32 lines, each 1 lane, 1 wavefront -> H1 32 / 0, H4 32.
        ("col4 H1", h1_per_line(_p(4, [l * 4 for l in L], [l * 16384 for l in L])), (32, 0)),
        ("col4 H4", h4_bandwidth(_p(4, [l * 4 for l in L], [l * 16384 for l in L]))[0], 32),
        # SGEMM-like g=8: 4 lines of 8 lanes -> H1 4; H3: deltas in a group: dst - src = 4l - (l//8)*lda4 - (l%8)*4
        # = (l//8)*(32 - lda4): one delta per group -> 4 keys.
        ("gemm g8 H1", h1_per_line(_p(4, [l * 4 for l in L], [(l // 8) * 16384 + (l % 8) * 4 for l in L])), (4, 0)),
        ("gemm g8 H3", h3_line_shift(_p(4, [l * 4 for l in L], [(l // 8) * 16384 + (l % 8) * 4 for l in L])), (4, 0)),
        # .cg es1 (16 B contiguous both sides): 4 lines, delta 0 -> H3 4 (measured 4); es0 dst: one
        # kept lane -> 1 (measured 1); pairs_l1 dst (l//2)*16: 16 kept lanes, deltas -16k distinct -> 16 (measured 16).
        ("cg es1 H3", h3_line_shift(_p(16, [l * 16 for l in L], cache="cg")), (4, 0)),
        ("cg es0 H3", h3_line_shift(_p(16, [0] * 32, cache="cg")), (1, 0)),
        ("cg pairs H3", h3_line_shift(_p(16, [(l // 2) * 16 for l in L], cache="cg")), (16, 0)),
        # H5 vs H1: sources alternating between two lines (even lanes line 0, odd lanes line 8):
        # H1 2 passes of 16 lanes, 1 wavefront each = 2; H5 32 runs of 1 lane = 32.
        ("alt H1", h1_per_line(_p(4, [l * 4 for l in L], [(l % 2) * 1024 + (l // 2) * 4 for l in L]))[0], 2),
        ("alt H5", h5_lane_runs(_p(4, [l * 4 for l in L], [(l % 2) * 1024 + (l // 2) * 4 for l in L]))[0], 32),
        # Inactive lanes' sources do not count: lane 0 only -> 1 everywhere.
        ("one lane H1", h1_per_line(_p(4, [l * 4 for l in L], [l * 16384 for l in L], mask=1)), (1, 0)),
        # H6: lanes 0-2 (4 B): lane 2 shares a source bank with lane 0 (sources 0 and 128: bank 0)
        # and a destination bank with lane 1 (destinations 4 and 132: bank 1); lanes 0 and 1 share
        # nothing. Slots 0, 0, max(2 earlier, 0 + 1) = 2 -> 3 wavefronts, 2 conflicts (a best
        # packing would need 2; the measured mask_rand_1 has this shape and counts 3).
        ("H6 chain", h6_ca_serial(_p(4, [0, 4, 132] + [0] * 29, [0, 8, 128] + [0] * 29, mask=0x7)), (3, 2)),
        # H6: lane 1 after lane 0 on the source bank (slot 1), lane 2 after lane 1 on the destination
        # bank only: slot max(1, 1 + 1) = 2 -> 3 / 2 (list scheduling; the count alone would say 2).
        ("H6 rec", h6_ca_serial(_p(4, [0, 4, 132] + [0] * 29, [0, 128, 8] + [0] * 29, mask=0x7)), (3, 2)),
        # H6 with contiguous sources is R9: es2 4 B destinations -> 2 / 1.
        ("H6 = R9", h6_ca_serial(_p(4, [l * 8 for l in L])), (2, 1)),
        # H6, 4 B, every source on bank 0 (stride 128), contiguous destinations: lane l has l earlier
        # source conflicts -> 32 / 31 (measured ls_w4ca_dcontig_stride128 32/31).
        ("H6 src col", h6_ca_serial(_p(4, [l * 4 for l in L], [l * 128 for l in L])), (32, 31)),
        # H7: 8 lanes of one source line into one row rotated by three 16-byte pieces (q = p + 3
        # mod 8): every piece swaps halves (3 is odd); 32-byte rotations q//2 - p//2 alternate 1, 2
        # -> 2 (measured ls_w16cg_line0_rot3 2).
        ("H7 rot3", h7_cg_sector(_p(16, [((l + 3) % 8) * 16 for l in range(8)] + [0] * 24,
                                     [l * 16 for l in L], mask=0xFF, cache="cg")), (2, 0)),
        # H7: the same line reversed inside the row (q = 7 - p): halves swap, rotations
        # (3 - p//2) - p//2 = 3, 1, 3, 1 ... -> 2 keys; measured ls_w16cg_line0_rev is 1 (an open miss).
        ("H7 rev", h7_cg_sector(_p(16, [(7 - l) * 16 for l in range(8)] + [0] * 24,
                                    [l * 16 for l in L], mask=0xFF, cache="cg")), (2, 0)),
        # H7: all lanes one destination -> one kept lane -> 1 (measured ldgsts16cg_es0 1).
        # H8: rot3 as above: even pieces move sector s -> chunk s + 1, odd pieces s -> s + 2, all
        # halves swapped; no symmetry of D4 does both -> 2 (measured 2).
        ("H8 rot3", h8_cg_dihedral(_p(16, [((l + 3) % 8) * 16 for l in range(8)] + [0] * 24,
                                       [l * 16 for l in L], mask=0xFF, cache="cg")), (2, 0)),
        # H8: the line reversed in its row: sector s -> chunk 3 - s (a reflection), halves swapped
        # -> 1 (measured ls_w16cg_line0_rev 1).
        ("H8 rev", h8_cg_dihedral(_p(16, [(7 - l) * 16 for l in range(8)] + [0] * 24,
                                      [l * 16 for l in L], mask=0xFF, cache="cg")), (1, 0)),
        # H8: piece p -> 2p (32-byte destination stride): row 0 holds s0 -> c0 and s1 -> c2 unswapped,
        # s0 -> c1 and s1 -> c3 swapped; neither pair is one rotation or reflection -> 2 + 2 per
        # row, two rows -> 8 (measured ls_w16cg_line0_es2 8).
        ("H8 es2", h8_cg_dihedral(_p(16, [l * 32 for l in range(8)] + [0] * 24,
                                      [l * 16 for l in L], mask=0xFF, cache="cg")), (8, 0)),
        ("H7 es0", h7_cg_sector(_p(16, [0] * 32, cache="cg")), (1, 0)),
        # H9, the H6 chain above: lane 2 shares a source bank with lane 0 and a destination bank
        # with lane 1, so lane 2's neighbourhood is all three -> 3 / 2 (measured mask_rand_1 3).
        ("H9 chain", h9_ca_neighbourhood(_p(4, [0, 4, 132] + [0] * 29, [0, 8, 128] + [0] * 29, mask=0x7)), (3, 2)),
        # H9, a hub: lane 0 shares a source bank with lane 1 and a destination bank with lane 2
        # (lanes 1 and 2 share nothing; a best packing needs 2): lane 0's neighbourhood is 3 -> 3 / 2
        # (measured sm_s3_01_02 3; H6 says 2).
        ("H9 hub", h9_ca_neighbourhood(_p(4, [0, 4, 128] + [0] * 29, [0, 128, 4] + [0] * 29, mask=0x7)), (3, 2)),
        # H9, a 4-cycle: lanes 0,1 on source bank 0, lanes 2,3 on source bank 1, lanes 0,2 on
        # destination bank 0, lanes 1,3 on destination bank 1: every neighbourhood is 3 -> 3 / 2
        # (measured sm_s4_03_06 3; a best packing needs 2).
        ("H9 cycle", h9_ca_neighbourhood(_p(4, [0, 132, 256, 388] + [0] * 28, [0, 128, 260, 388] + [0] * 28,
                                            mask=0xF)), (3, 2)),
        # H9 with contiguous sources is R9's store rule: es2 4 B destinations -> 2 / 1.
        ("H9 = R9", h9_ca_neighbourhood(_p(4, [l * 8 for l in L])), (2, 1)),
        # H10 (.cg; lanes 0.. of one source line at 0 into one row at 0, piece = offset / 16):
        # both halves of sector 0 into chunk 0 (pieces 0->0, 1->1): paired, one wavefront -> 1
        # (measured cg_c2_0011 1).
        ("H10 whole", h10_cg_rank(_p(16, [0, 16] + [0] * 30, [0, 16] + [0] * 30, mask=0x3, cache="cg")), (1, 0)),
        # H10: the lower half of sector 0 and the upper half of sector 1 (0->0, 3->3): unpaired,
        # different halves -> 2 (measured cg_c2_0033 2).
        ("H10 halves", h10_cg_rank(_p(16, [0, 48] + [0] * 30, [0, 48] + [0] * 30, mask=0x3, cache="cg")), (2, 0)),
        # H10: 6->5 and 0->3 (lower halves, swapped; sectors 3->2, 0->1: the reflection s -> 1 - s)
        # share a wavefront, 7->2 (upper half of sector 3, its partner 6 goes elsewhere: unpaired)
        # another -> 2 (measured cg_c3_014 2; H8 3).
        ("H10 reflect", h10_cg_rank(_p(16, [80, 48, 32] + [0] * 29, [96, 0, 112] + [0] * 29, mask=0x7, cache="cg")),
         (2, 0)),
        # H10: piece 6 read twice the same way (6->2, 6->4, no swap): lane 0 ranks 1 (one later
        # twin) and goes alone; 6->4 and 2->6 (sectors 3->2, 1->3: no symmetry) need 2 -> 3
        # (measured cg_c3_022 3; H8 2).
        ("H10 twice", h10_cg_rank(_p(16, [32, 64, 96] + [0] * 29, [96, 96, 32] + [0] * 29, mask=0x7, cache="cg")),
         (3, 0)),
    ]
    bad = 0
    for name, got, want in checks:
        ok = got == want
        bad += not ok
        print("%s %-12s got %s want %s" % ("ok  " if ok else "BAD ", name, got, want))
    return 1 if bad else 0


def dump(path):
    """One line per pattern of a JSONL batch: {"id", "<hypothesis>": [wavefronts, conflicts], ...};
    tests/test_ldgsts_candidates.cpp checks sim/ldgsts_candidates.hpp against it."""
    import json
    out = []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            row = {"id": r.get("id")}
            for n, h in HYPOTHESES.items():
                row[n] = list(h(r))
            out.append(json.dumps(row) + "\n")
    sys.stdout.write("".join(out))
    return 0


if __name__ == "__main__":
    if "--selftest" in sys.argv:
        sys.exit(selftest())
    if len(sys.argv) == 3 and sys.argv[1] == "--dump":
        sys.exit(dump(sys.argv[2]))
    print(__doc__ if __doc__ else "see the header")
