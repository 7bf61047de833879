#!/usr/bin/env python3
"""check_sass_counters.py: rule R11 (sim/RULES.md) against the H200. For every LDS/STS pattern
measured with both counters (scripts/h200_sass_ld.sh: the hardware l1tex__ one and the
instruction-level smsp__sass_ one, assets/results/h200/2026-12-01z), `bankscope-cli predict --jsonl
--sass` must give the hardware count as "wavefronts" and the instruction-level count as
"sass_wavefronts". The one pattern R11 does not explain is named below: the check fails if it
starts to match too (then this list is out of date) or if any other pattern differs.

    check_sass_counters.py CLI FILE.jsonl[.gz]...
"""
import gzip
import json
import subprocess
import sys

# Measured 4 instruction-level wavefronts; R11 says 3 (the hardware counts 3 too): its first
# half-warp satisfies R6's pairing and needs one wavefront, yet the counter did not merge it.
OPEN = {"w16_pool26_ld"}


def lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    cli, files = argv[1], argv[2:]
    rows = []
    for path in files:
        for p in lines(path):
            key = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_" + p["op"]
            if key not in p.get("counters", {}) or "measured_wavefronts" not in p:
                continue
            rows.append((path, p, p["counters"][key]))
    if not rows:
        print("check_sass_counters: no pattern with both counters")
        return 1
    inp = "".join(json.dumps({k: p[k] for k in ("id", "op", "width", "mask", "offsets")}) + "\n" for _, p, _ in rows)
    out = subprocess.run([cli, "predict", "--jsonl", "-", "--sass"], input=inp, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    hw_ok = sass_ok = 0
    bad = []
    still_open = []
    for (path, p, sass), line in zip(rows, out):
        q = json.loads(line)
        hw_ok += (q["wavefronts"], q["bank_conflicts"]) == (p["measured_wavefronts"], p["measured_bank_conflicts"])
        same = q["sass_wavefronts"] == sass
        sass_ok += same
        if p["id"] in OPEN:
            if same:
                bad.append(f"{p['id']}: listed as open but now predicted right ({sass})")
            else:
                still_open.append(p["id"])
        elif not same:
            bad.append(f"{path}: {p['id']}: sass_wavefronts {q['sass_wavefronts']}, measured {sass}")
    n = len(rows)
    print(f"check_sass_counters: {n} patterns; hardware counters right for {hw_ok}, "
          f"instruction-level counter right for {sass_ok} (open: {', '.join(still_open) or 'none'})")
    for b in bad[:20]:
        print("  " + b)
    return 0 if not bad and hw_ok == n and len(still_open) == len(OPEN) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
