#!/usr/bin/env python3
"""cast_spin_rules.py: rule R8c, the ATOMS.CAST.SPIN retry loop that nvcc 13 emits for sm_90 for a
float or 64-bit atomicAdd (and 64-bit atomicOr/Min/Max) on shared memory, in Python beside the C++
(cast_spin() in sim/bank_model.cpp) so that predictions can be written and checked without a build.

The loop is LDS (the old value), the update, ATOMS.CAST.SPIN (compare and swap, returning success),
and a branch back for the lanes that failed. Found on the H200 (kernels/probes/atom_cast.cu,
assets/results/h200/2026-12-01x, 40 of 40 launches on executions, wavefronts and ideal):

  - phases as a store of the width (R3): the warp for 4 bytes, half-warps for 8;
  - in each phase, each bank (4 bytes; a pair of banks for 8) serves ONE lane per execution, the
    lowest active lane on it; the others fail and retry (unlike R8's ATOMS.CAS, which serializes
    them inside one instruction);
  - a served lane of the second half-warp fails too when a lane of the first half-warp was served on
    the same word in that execution (its compare value is stale);
  - each execution costs 2 wavefronts per phase with an active lane (a compare-and-swap pass is
    two), bank conflicts 0 (l1tex counter); Nsight Compute's source-view "Ideal" is
    2 * ceil(active lanes * width / 128).

    cast_spin_rules.py --predict FRESH.jsonl   per launch: executions, wavefronts, ideal (stdout)
    cast_spin_rules.py --check-predicted FRESH.jsonl PREDICTED.jsonl
        the committed predictions of the loops (R8c lines) are what this rule gives now: a rule
        changed after its fresh batch was measured fails here, not silently
    cast_spin_rules.py --selftest
"""
import json
import sys


def spin_executions(width, mask, offsets):
    """The active lanes of each ATOMS.CAST.SPIN execution of one warp's retry loop."""
    active = [lane for lane in range(32) if (mask >> lane) & 1]
    executions = []
    while active:
        executions.append(list(active))
        phases = [active] if width == 4 else [[l for l in active if l < 16], [l for l in active if l >= 16]]
        served, written = set(), set()
        for phase in phases:
            first = {}
            for lane in phase:  # lowest lane per bank
                bank = (offsets[lane] // 4) % 32 if width == 4 else (offsets[lane] // 8) % 16
                first.setdefault(bank, lane)
            for lane in first.values():
                if offsets[lane] not in written:
                    served.add(lane)
            written.update(offsets[lane] for lane in first.values())
        active = [lane for lane in active if lane not in served]
    return executions


def spin_cost(width, executions):
    """(wavefronts, ncu source-view ideal) of the loop's ATOMS.CAST.SPIN executions."""
    wavefronts = ideal = 0
    for lanes in executions:
        if width == 4:
            phases = 1
        else:
            phases = any(l < 16 for l in lanes) + any(l >= 16 for l in lanes)
        wavefronts += 2 * phases
        ideal += 2 * ((len(lanes) * width + 127) // 128)
    return wavefronts, ideal


def selftest():
    # All 32 lanes on one word: one lane per execution, 32 executions, 2 wavefronts each.
    ex = spin_executions(4, 0xFFFFFFFF, [0] * 32)
    assert len(ex) == 32 and spin_cost(4, ex) == (64, 64)
    # 32 distinct words of one bank: also 32 (a bank serves one lane), unlike a load (1 pass each).
    ex = spin_executions(4, 0xFFFFFFFF, [128 * l for l in range(32)])
    assert len(ex) == 32
    # 8 bytes, all lanes on one word: the half-warps drain one lane each per execution, but the
    # second half's lane always finds the word just written: 32 executions, the first 16 with both
    # half-warps (4 wavefronts), the last 16 with one (2): 96 (measured 96).
    ex = spin_executions(8, 0xFFFFFFFF, [0] * 32)
    assert len(ex) == 32 and spin_cost(8, ex) == (96, 96)
    # 8 bytes, lanes alternating between two words of one bank: 17 executions, 66 wavefronts
    # (measured: 17, 66, ideal 52).
    ex = spin_executions(8, 0xFFFFFFFF, [128 * (l % 2) for l in range(32)])
    assert len(ex) == 17 and spin_cost(8, ex) == (66, 52)
    print("cast_spin_rules: selftest ok")


def predictions(path):
    for line in open(path):
        p = json.loads(line)
        ex = spin_executions(p["width"], int(p["mask"], 16), p["offsets"])
        wf, ideal = spin_cost(p["width"], ex)
        yield {"launch": p["launch"], "id": p["id"], "executions": len(ex), "wavefronts": wf, "bank_conflicts": 0,
               "ideal": ideal}


def check_predicted(fresh, predicted):
    committed = {}
    for line in open(predicted):
        q = json.loads(line)
        if q.get("rule") == "R8c":
            committed[q["id"]] = q
    now = {p["id"]: p for p in predictions(fresh) if p["id"] in committed}
    bad = [i for i, q in committed.items()
           if i not in now or any(now[i][k] != q[k] for k in ("executions", "wavefronts", "bank_conflicts", "ideal"))]
    print(f"cast_spin_rules: {len(committed) - len(bad)} of {len(committed)} committed R8c predictions "
          f"are what the rule gives now")
    for i in bad[:10]:
        print(f"  {i}: committed {committed[i]}, now {now.get(i)}")
    return 0 if committed and not bad else 1


def main(argv):
    if len(argv) == 2 and argv[1] == "--selftest":
        selftest()
        return 0
    if len(argv) == 4 and argv[1] == "--check-predicted":
        return check_predicted(argv[2], argv[3])
    if len(argv) != 3 or argv[1] != "--predict":
        sys.stderr.write("usage: cast_spin_rules.py --predict FRESH.jsonl | --check-predicted FRESH PREDICTED | "
                         "--selftest\n")
        return 2
    for p in predictions(argv[2]):
        print(json.dumps(p))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
