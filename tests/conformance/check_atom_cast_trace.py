#!/usr/bin/env python3
"""check_atom_cast_trace.py: the atomics probe (kernels/probes/atom_cast.cu) traced on the H200 and
costed here. `bankscope-cli report --json` of the committed trace must give, in every launch, what
Nsight Compute counted for it (measured.txt from scripts/h200_atom_cast.sh): the atom instructions
and wavefronts (R8c for the ATOMS.CAST.SPIN loops, R8 for ATOMS.AND/OR/XOR/INC/DEC/ADD), and the
loop's LDS / LDS.64 instructions and wavefronts (R1-R6 with R11: the instruction-level counters).
No execution may be left "not modelled".

    check_atom_cast_trace.py CLI TRACE.bstrace MEASURED.txt
"""
import json
import subprocess
import sys

P = "smsp__sass_"
KEYS = {  # measured.txt column -> the report's per-launch name
    "sass_wavefronts": P + "l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "sass_inst": P + "inst_executed_op_shared_atom.sum",
    "ld_inst": P + "inst_executed_op_shared_ld.sum",
    "ld_wavefronts": P + "l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
}


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    cli, trace, measured = argv[1:]
    rep = json.loads(subprocess.run([cli, "report", trace, "--json", "--top", "0"], capture_output=True, text=True,
                                    check=True).stdout)
    cols = None
    meas = {}
    for line in open(measured):
        f = line.split()
        if line.startswith("# launch"):
            cols = f[1:]
            continue
        if cols and f and f[0].isdigit():
            meas[int(f[0])] = dict(zip(cols, f))
    bad = []
    launches = rep["launches"]
    if len(launches) != len(meas):
        bad.append(f"{len(launches)} launches in the trace, {len(meas)} measured")
    equal = 0
    for l in launches:
        m = meas.get(l["launch"])
        if m is None:
            bad.append(f"launch {l['launch']}: in the trace, not in {measured}")
            continue
        ok = True
        if l.get("not_modelled_executions"):
            bad.append(f"launch {l['launch']} {m['pattern']}: not modelled {l['not_modelled_executions']}")
            ok = False
        for col, name in KEYS.items():
            want = int(m[col])
            got = l["predicted"].get(name, 0)
            if got != want:
                bad.append(f"launch {l['launch']} {m['pattern']}: {name} predicted {got}, measured {want}")
                ok = False
        equal += ok
    print(f"check_atom_cast_trace: {trace}: {equal} of {len(meas)} launches equal on "
          f"{len(KEYS)} counters each")
    for b in bad[:25]:
        print("  " + b)
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
