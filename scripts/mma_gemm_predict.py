#!/usr/bin/env python3
"""mma_gemm_predict.py: bankscope's per-launch prediction for assets/scenarios/mma/mma_gemm.cu,
printed in the shape of `bankscope-cli predict SCENARIO --json` with a third total, "ldsm".

  ld, st  <- bankscope-cli predict SCENARIO --n N --param SWZ=S --json   (the four STS.128 a k tile)
  ldsm    <- bankscope-cli predict --jsonl: one ldmatrix line per LDSM one block issues in one k
             tile (4 warps x 2 k16 steps x (2 .x4 of As + 2 .x4.trans of Bs)), with each lane's
             row address from the kernel's indexing, summed and multiplied by the launch's
             block k tiles: ceil(N / 64)^2 blocks x ceil(N / 32) k tiles. The shared tiles sit at
             the same offsets in every k tile and block, and edge tiles are zero-filled, not
             skipped, so every block k tile issues the same 32 LDSM (nvcc 13.0 SASS: 4
             LDSM.16.M88.4 and 4 LDSM.16.MT88.4 per warp between the two BAR.SYNC).

A second, independent statement of the LDSM side: the scenario says its ldmatrix accesses in the
scenario syntax too; when its totals have "ldsm", both must agree (else an error). It is what
`bankscope-gpu realworld --predictor` calls in place of `bankscope-cli predict`.

Usage: mma_gemm_predict.py --cli BANKSCOPE_CLI SCENARIO --n N --param SWZ=0|1|2 [--json]
       mma_gemm_predict.py --cli BANKSCOPE_CLI --jsonl-only --param SWZ=0|1|2   (the LDSM lines)
Errors: one line on stderr naming what is wrong, exit 1.
"""
import argparse
import json
import os
import re
import subprocess
import sys

BM, BN, BK = 64, 64, 32
WARPS = 4
# Byte offsets of the two static shared arrays: As (64 rows of lda halves) first, Bs after; both
# __align__(128), so only offsets modulo 128 bytes matter for banks (documented by NVIDIA: 32
# banks of 4 bytes).
AS_BASE = 0


def lda(swz):  # row strides in halves, padded by 8 for SWZ=2
    return BK + 8 if swz == 2 else BK


def ldb(swz):
    return BN + 8 if swz == 2 else BN
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(msg):
    print(f"mma_gemm_predict.py: {msg}", file=sys.stderr)
    sys.exit(1)


# (row, col) of the logical tile -> half offset; the same mapping as a_off / b_off in mma_gemm.cu.
def a_off(r, c, swz):
    chunk = (c >> 3) ^ (((r >> 1) & 3) if swz == 1 else 0)
    return r * lda(swz) + (chunk << 3) + (c & 7)


def b_off(r, c, swz):
    chunk = (c >> 3) ^ ((r & 7) if swz == 1 else 0)
    return r * ldb(swz) + (chunk << 3) + (c & 7)


def ldsm_lines(swz):
    """The JSONL lines of the 32 LDSM one block issues in one k tile."""
    lines = []
    bs_base = AS_BASE + BM * lda(swz) * 2
    for warp in range(WARPS):
        wm, wn = warp >> 1, warp & 1
        for kk in (0, 16):
            for i in range(2):  # lane l -> row l % 16, k (l / 16) * 8
                offs = [AS_BASE + 2 * a_off(wm * 32 + i * 16 + (l & 15), kk + (l >> 4) * 8, swz)
                        for l in range(32)]
                lines.append({"op": "ldmatrix", "num": 4, "trans": False, "mask": "0xffffffff",
                              "offsets": offs})
            for j in range(2):  # lane l -> k row l % 16, n (l / 16) * 8
                offs = [bs_base + 2 * b_off(kk + (l & 15), wn * 32 + j * 16 + (l >> 4) * 8, swz)
                        for l in range(32)]
                lines.append({"op": "ldmatrix", "num": 4, "trans": True, "mask": "0xffffffff",
                              "offsets": offs})
    return lines


def counter_names():
    """The ldmatrix counters' names, read from sim/counter_names.hpp (one definition)."""
    path = os.path.join(SRC, "sim", "counter_names.hpp")
    try:
        text = open(path).read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    names = {}
    for key, fn in (("instructions", "inst_executed"), ("active_instructions", "sass_inst_executed"),
                    ("wavefronts", "wavefronts"), ("bank_conflicts", "bank_conflicts")):
        m = re.search(r"inline const char\* " + fn + r"\(Op op\) \{(.*?)\n\}", text, re.S)
        v = m and re.search(r'case Op::kLdmatrix: return "([^"]+)"', m.group(1))
        if not v:
            fail(f"{path}: no Op::kLdmatrix name in {fn}()")
        names[key] = v.group(1)
    return names


def run(cmd, stdin=None):
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    except OSError as e:
        fail(f"--cli {cmd[0]}: {e.strerror}")
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
        fail(f"{' '.join(cmd[:2])} exited with {p.returncode}: {last}")
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("scenario", nargs="?")
    ap.add_argument("--n", type=int)
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--jsonl-only", action="store_true")
    a = ap.parse_args()
    swz = None
    for p in a.param:
        if p not in ("SWZ=0", "SWZ=1", "SWZ=2"):
            fail(f"--param {p}: expected SWZ=0, 1 or 2")
        swz = int(p[-1])
    if swz is None:
        fail("--param SWZ=0|1|2 is required")
    lines = ldsm_lines(swz)
    if a.jsonl_only:
        for l in lines:
            print(json.dumps(l))
        return
    if a.scenario is None or a.n is None:
        fail("needs SCENARIO and --n N")
    if a.n < 1 or a.n % 8 != 0:
        fail(f"N={a.n}: mma_gemm needs N a positive multiple of 8 (16-byte global chunks)")

    j = json.loads(run([a.cli, "predict", a.scenario, "--n", str(a.n), "--param", f"SWZ={swz}",
                        "--json"]))
    out = run([a.cli, "predict", "--jsonl", "-"], "\n".join(json.dumps(l) for l in lines) + "\n")
    wavefronts = conflicts = 0
    for k, text in enumerate(out.splitlines()):
        r = json.loads(text)
        if "error" in r:
            fail(f"ldmatrix line {k + 1}: {r['error']}")
        wavefronts += r["wavefronts"]
        conflicts += r["bank_conflicts"]
    block_ktiles = ((a.n + BM - 1) // BM) * ((a.n + BN - 1) // BN) * ((a.n + BK - 1) // BK)
    j["ldsm_source"] = ("scripts/mma_gemm_predict.py: %d ldmatrix lines a block k tile x %d "
                        "block k tiles" % (len(lines), block_ktiles))
    ldsm = {
        "instructions": len(lines) * block_ktiles,
        "active_instructions": len(lines) * block_ktiles,  # every LDSM has all 32 lanes on
        "wavefronts": wavefronts * block_ktiles,
        "bank_conflicts": conflicts * block_ktiles,
        "saturated": False,
        "counters": counter_names(),
    }
    # A scenario with its own ldmatrix accesses (issue 11 item 4 syntax) is predicted twice, by the
    # scenario evaluator and by these JSONL lines from the kernel's indexing: they must agree.
    had = j["totals"].get("ldsm")
    if had is not None:
        for key in ("instructions", "active_instructions", "wavefronts", "bank_conflicts"):
            if had[key] != ldsm[key]:
                fail(f"{a.scenario}: N={a.n} SWZ={swz}: the scenario predicts ldsm {key} {had[key]}, "
                     f"the ldmatrix JSONL lines {ldsm[key]}")
    j["totals"]["ldsm"] = ldsm
    if a.json:
        print(json.dumps(j, indent=1))
    else:
        for op in ("ld", "st", "ldsm"):
            t = j["totals"][op]
            print(f"{op:5} instructions {t['instructions']:>10}  wavefronts {t['wavefronts']:>10}  "
                  f"bank_conflicts {t['bank_conflicts']:>10}")


if __name__ == "__main__":
    main()
