#!/usr/bin/env python3
"""realworld_brute_force.py: an independent reference for the per-launch counts of the real kernels
of assets/scenarios/realworld/, written from each .cu file and its SASS (bankscope-cli sass), not
from the scenarios: every warp instruction of every block is listed here in plain Python (address
per lane, active mask, how nvcc issues it), and each distinct one is costed by the bank model alone
(`bankscope-cli predict --jsonl`). What it checks is the scenario language and the scenarios: the
same six counts `bankscope-gpu realworld --dry-run` prints, in the same table.

Usage: realworld_brute_force.py CLI [SIZES_FILE]   (prints the table; exit 1 on an error)

Issue modes (README "Edge tiles"): a "branch" instruction is executed by a warp only when one of
its lanes passes the guard; a "predicated" or unconditional one by every warp that reaches it.
Blocks whose guards are all alike are costed once (the key of each kernel's block_key()).
"""
import json
import subprocess
import sys
from collections import Counter

FULL = 0xFFFFFFFF


class Launch:
    """Collects warp instructions: (op, width, mask, offsets) -> executions, per op."""

    def __init__(self):
        self.patterns = Counter()
        self.inst = {"ld": 0, "st": 0}
        self.active = {"ld": 0, "st": 0}

    def warp(self, op, width, lanes, mode, times=1):
        """lanes: 32 byte offsets, None where the lane is inactive. mode: uncond/predicated/branch."""
        mask = 0
        offs = []
        for i, a in enumerate(lanes):
            if a is not None:
                mask |= 1 << i
            offs.append(0 if a is None else a)
        if mask == 0 and mode == "branch":
            return
        self.inst[op] += times
        if mask:
            self.active[op] += times
            self.patterns[(op, width, mask, tuple(offs))] += times


def warps(nthreads):
    return range(nthreads // 32)


def block_access(L, op, width, nthreads, addr, guard=None, mode="uncond", times=1):
    """One source-level access by every thread of a block: addr(tid) -> byte offset."""
    for w in warps(nthreads):
        lanes = []
        for lane in range(32):
            t = w * 32 + lane
            lanes.append(addr(t) if guard is None or guard(t) else None)
        L.warp(op, width, lanes, mode if guard is not None else "uncond", times)


# ---- the kernels, from their .cu files (line numbers of the shared accesses in comments) ----

def reduce_interleaved(n):
    B = 256
    blocks = (n + B - 1) // B
    def block(L, b):
        block_access(L, "st", 4, B, lambda t: 4 * t)                                  # 11
        s = 1
        while s < B:
            g = lambda t, s=s: 2 * s * t < B
            block_access(L, "ld", 4, B, lambda t, s=s: 4 * (2 * s * t), g, "predicated")      # 16
            block_access(L, "ld", 4, B, lambda t, s=s: 4 * (2 * s * t + s), g, "predicated")  # 17
            block_access(L, "st", 4, B, lambda t, s=s: 4 * (2 * s * t), g, "predicated")      # 18
            s *= 2
        block_access(L, "ld", 4, B, lambda t: 0, lambda t: t == 0, "branch")          # 22
    return blocks, block, lambda b: 0   # nothing depends on n inside a block


def scan_blelloch(n, M=512):
    T = M // 2
    blocks = (n + M - 1) // M
    cfo = lambda i: i + (i >> 5)
    def block(L, b):
        base = b * M
        block_access(L, "st", 4, T, lambda t: 4 * cfo(t))                              # 17
        block_access(L, "st", 4, T, lambda t: 4 * cfo(t + M // 2))                     # 18
        d = M >> 1
        while d > 0:
            off = M // (2 * d)
            g = lambda t, d=d: t < d
            a = lambda t, off=off: 4 * cfo(off * (2 * t + 1) - 1)
            bb = lambda t, off=off: 4 * cfo(off * (2 * t + 2) - 1)
            block_access(L, "ld", 4, T, a, g, "branch")                                # 26
            block_access(L, "ld", 4, T, bb, g, "branch")                               # 27
            block_access(L, "st", 4, T, bb, g, "branch")                               # 28
            d >>= 1
        block_access(L, "st", 4, T, lambda t: 4 * cfo(M - 1), lambda t: t == 0, "predicated")  # 32
        d = 1
        while d < M:
            off = M // (2 * d)
            g = lambda t, d=d: t < d
            a = lambda t, off=off: 4 * cfo(off * (2 * t + 1) - 1)
            bb = lambda t, off=off: 4 * cfo(off * (2 * t + 2) - 1)
            block_access(L, "ld", 4, T, a, g, "branch")                                # 40
            block_access(L, "ld", 4, T, bb, g, "branch")                               # 41
            block_access(L, "st", 4, T, a, g, "branch")                                # 42
            block_access(L, "st", 4, T, bb, g, "branch")                               # 43
            d *= 2
        block_access(L, "ld", 4, T, lambda t: 4 * cfo(t), lambda t: base + t < n, "predicated")   # 47
        block_access(L, "ld", 4, T, lambda t: 4 * cfo(t + M // 2), lambda t: base + t + M // 2 < n, "branch")  # 48
    return blocks, block, lambda b: min(n - b * M, M + 1)


def stencil3d(n):
    BX, BY, BZ = 32, 4, 4
    gx, gy = (n + BX - 1) // BX, (n + BY - 1) // BY
    T = BX * BY * BZ
    xyz = lambda t: (t % BX, (t // BX) % BY, t // (BX * BY))
    at = lambda z, y, x: 4 * ((z * (BY + 2) + y) * (BX + 2) + x)
    def block(L, b):
        bx, by = b % gx, b // gx
        def c(f):
            return lambda t: f(*xyz(t))
        for z0 in range(0, n, BZ):  # the block marches along z
            block_access(L, "st", 4, T, c(lambda x, y, z: at(z + 1, y + 1, x + 1)))                                  # 23
            block_access(L, "st", 4, T, c(lambda x, y, z: at(z + 1, y + 1, 0)), c(lambda x, y, z: x == 0), "predicated")         # 24
            block_access(L, "st", 4, T, c(lambda x, y, z: at(z + 1, y + 1, BX + 1)), c(lambda x, y, z: x == BX - 1), "predicated")  # 25
            block_access(L, "st", 4, T, c(lambda x, y, z: at(z + 1, 0, x + 1)), c(lambda x, y, z: y == 0), "predicated")         # 26
            block_access(L, "st", 4, T, c(lambda x, y, z: at(z + 1, BY + 1, x + 1)), c(lambda x, y, z: y == BY - 1), "predicated")  # 27
            block_access(L, "st", 4, T, c(lambda x, y, z: at(0, y + 1, x + 1)), c(lambda x, y, z: z == 0), "predicated")         # 28
            block_access(L, "st", 4, T, c(lambda x, y, z: at(BZ + 1, y + 1, x + 1)), c(lambda x, y, z: z == BZ - 1), "branch")   # 29
            inside = c(lambda x, y, z, z0=z0: bx * BX + x < n and by * BY + y < n and z0 + z < n)
            for dz, dy, dx in [(1, 1, 1), (1, 1, 0), (1, 1, 2), (1, 0, 1), (1, 2, 1), (0, 1, 1), (2, 1, 1)]:   # 32..38
                block_access(L, "ld", 4, T, c(lambda x, y, z, dz=dz, dy=dy, dx=dx: at(z + dz, y + dy, x + dx)), inside, "branch")
    def key(b):
        bx, by = b % gx, b // gx
        return (min(n - bx * BX, BX), min(n - by * BY, BY))
    return gx * gy, block, key


def sgemm_bk(n):
    g = (n + 63) // 64
    T = 256
    trips = (n + 7) // 8
    def block(L, b):
        ty, tx = (lambda t: t // 16), (lambda t: t % 16)
        a_r, a_c = (lambda t: t // 4), (lambda t: t % 4 * 2)
        b_r, b_c = (lambda t: t // 32), (lambda t: t % 32 * 2)
        bs0 = 512 * 4  # Bs after As (2048 bytes: a multiple of 128, so the order does not matter)
        block_access(L, "st", 4, T, lambda t: 4 * (a_c(t) * 64 + a_r(t)), times=trips)              # 30
        block_access(L, "st", 4, T, lambda t: 4 * ((a_c(t) + 1) * 64 + a_r(t)), times=trips)        # 31
        block_access(L, "st", 4, T, lambda t: bs0 + 4 * (b_r(t) * 64 + b_c(t)), times=trips)        # 33
        block_access(L, "st", 4, T, lambda t: bs0 + 4 * (b_r(t) * 64 + b_c(t) + 1), times=trips)    # 34
        for k in range(8):
            block_access(L, "ld", 16, T, lambda t, k=k: 4 * (k * 64 + ty(t) * 4), times=trips)       # 44: LDS.128
            block_access(L, "ld", 16, T, lambda t, k=k: bs0 + 4 * (k * 64 + tx(t) * 4), times=trips)  # 46: LDS.128
    return g * g, block, lambda b: 0


def argmax_extern(n):
    B = 256
    blocks = (n + B - 1) // B
    idx0 = B * 4  # sidx at byte blockDim.x * 4
    def block(L, b):
        block_access(L, "st", 4, B, lambda t: 4 * t)                                   # 14
        block_access(L, "st", 4, B, lambda t: idx0 + 4 * t)                            # 15
        s = B // 2
        while s > 0:
            g = lambda t, s=s: t < s
            block_access(L, "ld", 4, B, lambda t: 4 * t, g, "branch")                  # 19
            block_access(L, "ld", 4, B, lambda t, s=s: 4 * (t + s), g, "branch")       # 20
            block_access(L, "ld", 4, B, lambda t: idx0 + 4 * t, g, "branch")           # 21
            block_access(L, "ld", 4, B, lambda t, s=s: idx0 + 4 * (t + s), g, "branch")  # 22
            block_access(L, "st", 4, B, lambda t: 4 * t, g, "branch")                  # 24
            block_access(L, "st", 4, B, lambda t: idx0 + 4 * t, g, "branch")           # 25
            s >>= 1
        block_access(L, "ld", 4, B, lambda t: 0, lambda t: t == 0, "branch")           # 30
        block_access(L, "ld", 4, B, lambda t: idx0, lambda t: t == 0, "branch")        # 31
    return blocks, block, lambda b: 0


def fwht(n):
    C, T = 1024, 256
    blocks = (n + C - 1) // C
    def block(L, b):
        base = b * C
        for r in range(C // T):
            block_access(L, "st", 4, T, lambda t, r=r: 4 * (t + r * T))                # 14
        stride = C // 4
        while stride > 1:  # levels 256, 64, 16, 4 (stride 1 merged below)
            lo = lambda t, s=stride: t & (s - 1)
            i0 = lambda t, s=stride, lo=lo: ((t - lo(t)) << 2) + lo(t)
            for q in range(4):
                block_access(L, "ld", 4, T, lambda t, q=q, s=stride, i0=i0: 4 * (i0(t) + q * s))   # 20..23
            for q in range(4):
                block_access(L, "st", 4, T, lambda t, q=q, s=stride, i0=i0: 4 * (i0(t) + q * s))   # 25..28
            stride >>= 2
        block_access(L, "ld", 16, T, lambda t: 16 * t)                                 # 20: LDS.128
        block_access(L, "st", 16, T, lambda t: 16 * t)                                 # 28: STS.128
        for r in range(C // T):
            block_access(L, "ld", 4, T, lambda t, r=r: 4 * (t + r * T), lambda t, r=r: base + t + r * T < n, "predicated")  # 32
    return blocks, block, lambda b: min(n - b * C, C + 1)


def conv_row(n):
    gx, gy = (n + 127) // 128, (n + 3) // 4
    T = 128
    def block(L, b):
        tx, ty = (lambda t: t % 32), (lambda t: t // 32)
        for j in range(6):
            block_access(L, "st", 4, T, lambda t, j=j: 4 * (ty(t) * 192 + tx(t) + 32 * j))   # 25
        for c in range(16, 145):  # 4 x 33 taps less the 3 shared ones
            block_access(L, "ld", 4, T, lambda t, c=c: 4 * (ty(t) * 192 + tx(t) + c))        # 33
    return gx * gy, block, lambda b: 0


def bitonic_sort(n):
    C, T = 1024, 512
    blocks = (n + C - 1) // C
    def block(L, b):
        base = b * C
        block_access(L, "st", 4, T, lambda t: 4 * t)                                   # 14
        block_access(L, "st", 4, T, lambda t: 4 * (t + C // 2))                        # 15
        size = 2
        while size <= C:
            stride = size // 2
            while stride > 0:
                if stride == 1:  # the pair is 2t, 2t + 1: one LDS.64 and one STS.64
                    block_access(L, "ld", 8, T, lambda t: 8 * t)                       # 21
                    block_access(L, "st", 8, T, lambda t: 8 * t)                       # 25
                else:
                    pos = lambda t, s=stride: 2 * t - (t & (s - 1))
                    block_access(L, "ld", 4, T, lambda t, p=pos: 4 * p(t))             # 21
                    block_access(L, "ld", 4, T, lambda t, p=pos, s=stride: 4 * (p(t) + s))  # 22
                    block_access(L, "st", 4, T, lambda t, p=pos: 4 * p(t))             # 24
                    block_access(L, "st", 4, T, lambda t, p=pos, s=stride: 4 * (p(t) + s))  # 25
                stride >>= 1
            size <<= 1
        block_access(L, "ld", 4, T, lambda t: 4 * t, lambda t: base + t < n, "predicated")      # 29
        block_access(L, "ld", 4, T, lambda t: 4 * (t + C // 2), lambda t: base + t + C // 2 < n, "branch")  # 30
    return blocks, block, lambda b: min(n - b * C, C + 1)


KERNELS = {f.__name__: f for f in [reduce_interleaved, scan_blelloch, stencil3d, sgemm_bk, argmax_extern, fwht,
                                   conv_row, bitonic_sort]}
COUNTERS = [("ld", "inst", "smsp__inst_executed_op_shared_ld.sum"),
            ("ld", "active", "smsp__sass_inst_executed_op_shared_ld.sum"),
            ("ld", "wf", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
            ("st", "inst", "smsp__inst_executed_op_shared_st.sum"),
            ("st", "active", "smsp__sass_inst_executed_op_shared_st.sum"),
            ("st", "wf", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum")]


def counts(cli, name, n, params):
    blocks, block, key = KERNELS[name](n, **params)
    classes = Counter(key(b) for b in range(blocks))
    first = {}
    for b in range(blocks):
        first.setdefault(key(b), b)
    total = Launch()
    for k, mult in classes.items():
        L = Launch()
        block(L, first[k])
        for op in ("ld", "st"):
            total.inst[op] += L.inst[op] * mult
            total.active[op] += L.active[op] * mult
        for p, c in L.patterns.items():
            total.patterns[p] += c * mult
    pats = list(total.patterns)
    lines = "".join(json.dumps({"op": op, "width": w, "mask": m, "offsets": list(o)}) + "\n" for op, w, m, o in pats)
    out = subprocess.run([cli, "predict", "--jsonl", "-"], input=lines, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stdout + out.stderr)
    wf = {"ld": 0, "st": 0}
    for p, line in zip(pats, out.stdout.splitlines()):
        wf[p[0]] += json.loads(line)["wavefronts"] * total.patterns[p]
    return {"inst": total.inst, "active": total.active, "wf": wf}


def main():
    cli = sys.argv[1]
    sizes = sys.argv[2] if len(sys.argv) > 2 else "assets/scenarios/realworld/sizes.txt"
    print(f"realworld: {sizes}, brute force (scripts/realworld_brute_force.py, costed by {cli} predict --jsonl)")
    print("%-20s %9s %-6s %-64s %14s" % ("kernel", "N", "params", "counter", "predicted"))
    rows = 0
    for raw in open(sizes):
        f = raw.split("#")[0].split()
        if not f:
            continue
        name, n = f[0], f[1]
        params = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in f[2:]}
        c = counts(cli, name, int(n), params)
        rows += 1
        for op, what, counter in COUNTERS:
            print("%-20s %9s %-6s %-64s %14d" % (name, n, " ".join(f[2:]) or "-", counter, c[what][op]))
        sys.stdout.flush()
    print(f"{rows} rows, {rows * 6} predictions, 0 errors")


if __name__ == "__main__":
    main()
