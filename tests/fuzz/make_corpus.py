#!/usr/bin/env python3
"""make_corpus.py: writes the committed seed corpora of the fuzz targets from the project's data.

  corpus/fuzz_scenario/  every assets/scenarios/*.json as is, the multi-statement scenarios below
                         (loop names reused, another statement's loop variable, issue modes), and
                         16 seeds of the structured mode (a 0 byte, then 200 or 400 pseudo-random
                         bytes; see fuzz_scenario.cpp)
  corpus/fuzz_expr/      every expression in them (defines, index expressions, guards), one a file
  corpus/fuzz_jsonl/     the first 50 lines of tests/conformance/patterns.jsonl, one a file
  corpus/fuzz_trace/     small traces (sim/trace.hpp format): the seed kernel's block, scattered
                         lanes, an LDSM, a predicated-off warp, a truncated copy, and LDGSTS
                         executions with their global sources (an 'S' record)

Run from anywhere after the assets change: python3 tests/fuzz/make_corpus.py. File names are the
SHA-1 of the content (as libFuzzer names its inputs), so rerunning adds nothing twice.
"""
import hashlib
import json
import pathlib
import random
import re
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def put(target, data):
    d = HERE / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def index_expressions(target):
    """'tile[a][b[c]]' -> ['a', 'b[c]']: top-level bracket contents."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(target):
        if ch == "[":
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                out.append(target[start:i])
    return out


# The trace encoding (varints, zigzag deltas, records) is written once, in tests/data/.
sys.path.insert(0, str(ROOT / "tests" / "data"))
from make_seed_trace import record, string, varint, zz as zvarint  # noqa: E402


def trace_seeds():
    """Traces written as sim/trace.hpp documents them (versions 1 to 4)."""
    head = b"BSTRACE\0" + (1).to_bytes(4, "little")
    launch = record("K", varint(0) + string("k") + b"".join(varint(x) for x in (1, 1, 1, 32, 32, 1))
                    + varint(4096) + varint(1024) + varint(0))
    def pc(i, addr, kind, width, op, line):
        return record("P", varint(i) + varint(addr) + bytes([kind]) + varint(width) + string(op)
                      + string("t.cu") + varint(line))
    def warp(block, w, pci, mask, base, mode, rest):
        return (varint(block) + varint(w) + varint(pci) + mask.to_bytes(4, "little")
                + (varint(base) + bytes([mode]) + rest if mask else b""))
    warps = [warp(0, w, 0, 0xffffffff, 1024 + 128 * w, 0, zvarint(4)) for w in range(4)]
    warps += [warp(0, w, 1, 0xffffffff, 1024 + 4 * w, 0, zvarint(128)) for w in range(4)]
    warps += [warp(0, 0, 1, 0x5, 1024, 1, zvarint(12))]  # lanes 0 and 2, one delta
    warps += [warp(0, 1, 2, 0xffffffff, 1024, 0, zvarint(16)), warp(0, 2, 0, 0, 0, 0, b"")]
    body = (launch + pc(0, 0x100, 1, 4, "STS", 12) + pc(1, 0x200, 0, 4, "LDS", 14)
            + pc(2, 0x300, 3, 16, "LDSM.16.M88.4", 20)
            + record("W", varint(len(warps)) + b"".join(warps))
            + record("E", varint(0) + varint(len(warps)) + varint(0) + varint(0)))
    full = head + body + record("Z", varint(1) + zvarint(0))
    # Version 2: the same launch with scattered warps in modes 2 (shift, 1-byte offsets) and 3
    # (shift, 2-byte offsets), full and partial masks, and a warp repeated (the report's memo).
    head2 = b"BSTRACE\0" + (2).to_bytes(4, "little")
    def packed(mode, shift, offs):
        return bytes([shift]) + b"".join(o.to_bytes(mode - 1, "little") for o in offs)
    perm = [7 * lane % 32 for lane in range(32)]
    spread = [997 * lane % 12288 for lane in range(32)]
    warps2 = [warp(0, w, 1, 0xffffffff, 1024, 2, packed(2, 2, perm)) for w in range(3)]
    warps2 += [warp(0, 3, 0, 0xffffffff, 1024, 3, packed(3, 2, spread))]
    warps2 += [warp(0, 4, 1, 0x0000ff0f, 1024, 2, packed(2, 2, perm[:12]))]
    warps2 += [warp(0, 5, 2, 0xffffffff, 1024, 3, packed(3, 4, [o % 4096 for o in spread]))]
    body2 = (launch + pc(0, 0x100, 1, 4, "STS", 12) + pc(1, 0x200, 0, 4, "LDS", 14)
             + pc(2, 0x300, 0, 16, "LDS.128", 20)
             + record("W", varint(len(warps2)) + b"".join(warps2))
             + record("E", varint(0) + varint(len(warps2)) + varint(0) + varint(0)))
    full2 = head2 + body2 + record("Z", varint(1) + zvarint(0))
    # LDGSTS with an 'S' record (the global sources of the 'W' executions after it): a .ca column
    # (mode 0), a .cg warp of scattered 16-byte pieces (mode 2), a half warp (mode 1); an STS and
    # nothing for it between them.
    warps3 = [warp(0, 0, 0, 0xffffffff, 1024, 0, zvarint(4)), warp(0, 1, 1, 0xffffffff, 1024, 0, zvarint(16)),
              warp(0, 2, 2, 0xffffffff, 1024, 0, zvarint(4)), warp(0, 3, 0, 0x0000ffff, 1024, 0, zvarint(4))]
    sources = (varint(0) + varint(8192) + bytes([0]) + zvarint(4096)
               + varint(1) + varint(65536) + bytes([2, 4]) + bytes(perm)
               + varint(3) + varint(256) + bytes([1]) + b"".join(zvarint(4 + 128 * (k % 3)) for k in range(15)))
    body3 = (launch + pc(0, 0x100, 5, 4, "LDGSTS.E", 12) + pc(1, 0x200, 5, 16, "LDGSTS.E.BYPASS.128", 14)
             + pc(2, 0x300, 1, 4, "STS", 16)
             + record("S", varint(3) + sources)
             + record("W", varint(len(warps3)) + b"".join(warps3))
             + record("E", varint(0) + varint(len(warps3)) + varint(0) + varint(0)))
    full3 = head2 + body3 + record("Z", varint(1) + zvarint(0))
    # Version 3: mode 4 (the lanes of the PC's previous execution, moved to base). Scattered LDS
    # warps repeated at other bases (other 16-byte residues too), 1-byte STS lanes repeated one byte
    # along, and a .cg LDGSTS whose destinations (mode 0, then 4) and sources (mode 2, then 4) repeat.
    head3 = b"BSTRACE\0" + (3).to_bytes(4, "little")
    warps4 = [warp(0, 0, 1, 0xffffffff, 1024, 2, packed(2, 2, perm))]
    warps4 += [warp(0, w, 1, 0xffffffff, 1024 + 516 * w, 4, b"") for w in range(1, 4)]
    warps4 += [warp(0, 4, 0, 0x0000ff0f, 2048, 2, packed(2, 0, perm[:12]))]
    warps4 += [warp(0, 5 + k, 0, 0x0000ff0f, 2049 + k, 4, b"") for k in range(3)]
    warps4 += [warp(0, 8, 2, 0xffffffff, 4096, 0, zvarint(16)), warp(0, 9, 2, 0xffffffff, 8192 + 16, 4, b"")]
    sources4 = (varint(8) + varint(65536) + bytes([2, 4]) + bytes(perm)
                + varint(9) + varint(65536 + 4096 + 48) + bytes([4]))
    body4 = (launch + pc(0, 0x100, 1, 1, "STS.U8", 12) + pc(1, 0x200, 0, 4, "LDS", 14)
             + pc(2, 0x300, 5, 16, "LDGSTS.E.BYPASS.LTC128B.128", 16)
             + record("S", varint(2) + sources4)
             + record("W", varint(len(warps4)) + b"".join(warps4))
             + record("E", varint(0) + varint(len(warps4)) + varint(0) + varint(0)))
    full4 = head3 + body4 + record("Z", varint(1) + zvarint(0))
    # Two .ca executions with the same destinations and other sources (contiguous, then one per
    # 128-byte line): the report's memo of the other kinds must tell them apart by their sources.
    warps5 = [warp(0, w, 0, 0xffffffff, 1024, 0, zvarint(4)) for w in range(2)]
    sources5 = (varint(0) + varint(8192) + bytes([0]) + zvarint(4)
                + varint(1) + varint(8192) + bytes([0]) + zvarint(128))
    body5 = (launch + pc(0, 0x100, 5, 4, "LDGSTS.E", 12)
             + record("S", varint(2) + sources5)
             + record("W", varint(len(warps5)) + b"".join(warps5))
             + record("E", varint(0) + varint(len(warps5)) + varint(0) + varint(0)))
    full5 = head2 + body5 + record("Z", varint(1) + zvarint(0))
    # Version 4: 'W' records of fixed-width fields (widths 0x41: block 2 bytes, warp and pc index 1,
    # base 2), a control byte per execution (the lanes' mode, mask stored, sources and their mode),
    # the sources in the execution. Scattered LDS lanes then repeats, 1-byte STS lanes on a partial
    # mask then repeats, a .cg LDGSTS whose destinations and sources repeat, a mask of 0.
    head4 = b"BSTRACE\0" + (4).to_bytes(4, "little")
    def ex4(ctl, block, w, pci, mask, base, rest=b"", src=b""):
        b = bytes([ctl | (8 if mask != 0xffffffff else 0)]) + block.to_bytes(2, "little") + bytes([w, pci])
        if mask != 0xffffffff:
            b += mask.to_bytes(4, "little")
        return b + (base.to_bytes(2, "little") + rest + src if mask else b"")
    warps6 = [ex4(3, 0, 0, 1, 0xffffffff, 1024, packed(3, 2, spread))]
    warps6 += [ex4(4, 300 + k, k, 1, 0xffffffff, 1024 + 516 * k) for k in range(1, 4)]
    warps6 += [ex4(2, 1, 4, 0, 0x0000ff0f, 2048, packed(2, 0, perm[:12]))]
    warps6 += [ex4(4, 1, 5 + k, 0, 0x0000ff0f, 2049 + k) for k in range(2)]
    warps6 += [ex4(0 | 16 | 2 << 5, 2, 0, 2, 0xffffffff, 4096, zvarint(16), (65536).to_bytes(4, "little") + packed(2, 4, perm))]
    warps6 += [ex4(4 | 16 | 4 << 5, 2, 1, 2, 0xffffffff, 8192 + 16, b"", (65536 + 4096 + 48).to_bytes(4, "little"))]
    warps6 += [ex4(0, 3, 0, 1, 0, 0)]
    body6 = (launch + pc(0, 0x100, 1, 1, "STS.U8", 12) + pc(1, 0x200, 0, 4, "LDS", 14)
             + pc(2, 0x300, 5, 16, "LDGSTS.E.BYPASS.LTC128B.128", 16)
             + record("W", varint(len(warps6)) + bytes([0x41]) + b"".join(warps6))
             + record("E", varint(0) + varint(len(warps6)) + varint(0) + varint(0)))
    full6 = head4 + body6 + record("Z", varint(1) + zvarint(0))
    # Version 4, long enough for the reader's fast path (48 bytes left) to offer repeats to the report
    # (TraceSink::on_repeat): an LDS pattern and a .cg cp.async pattern repeated 24 times each at
    # bases of two residues, so that most repeats find their cost kept and are counted later.
    warps7 = [ex4(3, 0, 0, 1, 0xffffffff, 1024, packed(3, 2, spread))]
    warps7 += [ex4(0 | 16 | 2 << 5, 0, 1, 2, 0xffffffff, 4096, zvarint(16), (65536).to_bytes(4, "little") + packed(2, 4, perm))]
    for k in range(1, 25):
        warps7 += [ex4(4, k, k % 8, 1, 0xffffffff, 1024 + 512 * k + 4 * (k % 2))]
        warps7 += [ex4(4 | 16 | 4 << 5, k, k % 8, 2, 0xffffffff, 4096 + 1024 * k,
                       src=(65536 + 4096 * k + 16 * (k % 2)).to_bytes(4, "little"))]
    body7 = (launch + pc(0, 0x100, 1, 1, "STS.U8", 12) + pc(1, 0x200, 0, 4, "LDS", 14)
             + pc(2, 0x300, 5, 16, "LDGSTS.E.BYPASS.LTC128B.128", 16)
             + record("W", varint(len(warps7)) + bytes([0x41]) + b"".join(warps7))
             + record("E", varint(0) + varint(len(warps7)) + varint(0) + varint(0)))
    full7 = head4 + body7 + record("Z", varint(1) + zvarint(0))
    return [full, head + body, full[: len(full) // 2], full2, full2[: len(full2) * 2 // 3], full3, full4, full5,
            full6, full7]


# Multi-statement scenarios for the launch_totals == brute force check (issue 16): statements that
# reuse a loop name, a guard on blockIdx and a loop variable, the three issue modes, and one that
# names another statement's loop variable (a compile error since loop variables are scoped).
def _tile40(accesses):
    return {"name": "scope", "block": [32], "grid": [40],
            "arrays": [{"name": "tile", "type": "float", "dims": [32, 32]}], "accesses": accesses}


SCENARIO_SEEDS = [
    _tile40([{"op": "st", "target": "tile[0][threadIdx.x]", "loops": [{"var": "j", "end": 25}]},
             {"op": "ld", "target": "tile[threadIdx.x][0]", "if": "blockIdx.x < j"}]),
    _tile40([{"op": "st", "target": "tile[j - 100][threadIdx.x]", "loops": [{"var": "j", "begin": 100, "end": 104}],
              "issue": "hoisted"},
             {"op": "ld", "target": "tile[threadIdx.x][j % 32]", "if": "blockIdx.x < j", "issue": "predicated",
              "loops": [{"var": "j", "end": 25}]}]),
    _tile40([{"op": "ld", "target": "tile[(j + k) % 32][threadIdx.x]", "if": "threadIdx.x < 16 || blockIdx.x < j + k",
              "loops": [{"var": "j", "end": 4}, {"var": "k", "end": 24, "step": 8}], "issue": "predicated"},
             {"op": "st", "target": "tile[k][threadIdx.x]", "if": "k < blockIdx.x", "loops": [{"var": "k", "end": 3}]}]),
    # The newer grammar (README "Loops, bodies, parameters, N-D arrays and the extern buffer"): a
    # body whose scoped define (of the loop variable and blockIdx) decides an edge guard, which the
    # interval analysis must bind as the concrete run does.
    {"name": "edge", "n": 50, "block": [32, 8], "tile": [32, 8],
     "arrays": [{"name": "tile", "type": "float", "dims": [64, 33]}],
     "accesses": [{"loop": {"var": "s", "init": 1, "cond": "s < 32", "update": "s *= 2"},
                   "defines": {"r": "blockIdx.y * 8 + threadIdx.y + s", "c": "blockIdx.x * 32 + threadIdx.x"},
                   "body": [{"op": "ld", "target": "tile[threadIdx.y + s][(threadIdx.x * s) % 33]", "if": "r < n && c < n"},
                            {"op": "st", "target": "tile[threadIdx.x][threadIdx.y]", "if": "r % 3 != 0",
                             "issue": "predicated"}]}]},
    {"name": "reduction", "n": 1024, "block": [128], "grid": [3], "params": {"K": 64},
     "extern": {"bytes": 2048},
     "arrays": [{"name": "sdata", "type": "int", "dims": [128], "offset": 0},
                {"name": "v", "type": "half2", "dims": [2, 4, 8, 8], "offset": 1024}],
     "accesses": [{"loop": {"var": "s", "init": "blockDim.x / 2", "cond": "s > 0", "update": "s >>= 1"},
                   "defines": {"tid": "threadIdx.x"},
                   "body": [{"op": "ld", "target": "sdata[tid + s]", "if": "tid < s"},
                            {"loop": {"var": "k", "init": 0, "cond": "k < K / 32", "update": "k++"},
                             "body": [{"op": "st", "target": "v[k % 2][lane % 4][lane / 4][s % 8]",
                                       "if": "blockIdx.x * 40 + tid < n"}]}]}]},
]


def main():
    for t in ("fuzz_scenario", "fuzz_expr", "fuzz_jsonl", "fuzz_trace"):
        shutil.rmtree(HERE / "corpus" / t, ignore_errors=True)
    exprs = set()
    for path in sorted((ROOT / "assets" / "scenarios").glob("*.json")):
        data = path.read_bytes()
        put("fuzz_scenario", data)
        scenario = json.loads(data)
        exprs.update(scenario.get("defines", {}).values())
        for access in scenario.get("accesses", []):
            exprs.update(index_expressions(access.get("target", "")))
            if access.get("if"):
                exprs.add(access["if"])
    for scenario in SCENARIO_SEEDS:
        put("fuzz_scenario", json.dumps(scenario, indent=2).encode())
    rng = random.Random(1)
    for _ in range(8):
        put("fuzz_scenario", b"\0" + bytes(rng.randrange(256) for _ in range(200)))
    rng = random.Random(2)
    for _ in range(8):
        put("fuzz_scenario", b"\0" + bytes(rng.randrange(256) for _ in range(400)))
    # A few spellings the scenarios do not use, so every operator is in the seeds.
    exprs.update(["(lane ^ (warp << 2)) % 32", "n > 0 ? -threadIdx.x : ~blockIdx.y", "0x1f & N",
                  "!(threadIdx.z != 0) || laneid >= 16", "blockDim.x * gridDim.x / 3 - 1 + 8LL",
                  "threadIdx.y >> 1 | threadIdx.x <= 7",
                  # Types (sim/expr.hpp): unsigned wrap, casts, octal and suffixed literals, and the
                  # typed variables fuzz_expr.cpp adds (d_int, d_uint, d_ll, d_ull, j).
                  "(threadIdx.x - 1) % 32", "-1 < 0u ? 010 : 0x7fffffffu", "(int)(0u - 1) << 3",
                  "(unsigned long long)d_ll * 3u >> j", "0xffffffffffffffffull / (d_ull | 1)",
                  "(long long)threadIdx.x - 2147483648 + d_int", "(size_t)d_uint + 18446744073709551615u",
                  "(int32_t)d_ull ^ (uint32_t)-d_int", "1LL << 62 | 0b101 % (uint64_t)blockIdx.x"])
    for e in sorted(exprs):
        put("fuzz_expr", e.encode())
    lines = (ROOT / "tests" / "conformance" / "patterns.jsonl").read_text().splitlines()
    for line in [l for l in lines if l.strip()][:50]:
        put("fuzz_jsonl", line.encode())
    for t in trace_seeds():
        put("fuzz_trace", t)
    for t in ("fuzz_scenario", "fuzz_expr", "fuzz_jsonl", "fuzz_trace"):
        files = list((HERE / "corpus" / t).iterdir())
        print(f"{t}: {len(files)} inputs, {sum(f.stat().st_size for f in files)} bytes")


if __name__ == "__main__":
    main()
