#!/usr/bin/env bash
# h200_ldgsts_guard2.sh: the hardware side of scripts/h200_ldgsts_guard.sh's question. ncu has no
# hardware wavefront counter for LDGSTS alone on sm_90 ("n/a"), so this reads the hardware totals
# of all shared-memory wavefronts and of loads and stores; for one warp they are exact, and total -
# loads - stores = what the LDGSTS did. Also lists every ldgsts metric ncu offers and reads the
# hardware sector counters among them. About 1 minute; ncu --clock-control none.
OUT=${OUT:-out/ldgsts_guard2}
source "$(dirname "$0")/h200_common.sh"  # cd, $OUT/log.txt, the machine (GPU, driver, nvcc)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
W=$(mktemp -d)
step "probe at $(git rev-parse --short HEAD 2>/dev/null || echo no-git)"
"$NVCC" -O3 -arch=sm_90 -lineinfo -o "$W/ldgsts_guard" kernels/probes/ldgsts_guard.cu || exit 1
"$NCU" --query-metrics --chip gh100 2>/dev/null | grep -i "ldgsts" | awk '{print $1}' | sort -u | tee "$OUT/ldgsts_metrics.txt"
M=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum
S=$(grep -E "^l1tex__.*(sectors|requests|wavefronts).*ldgsts.*" "$OUT/ldgsts_metrics.txt" | sed 's/$/.sum/' | paste -sd, -)
for flag in 1 0; do
  echo "== ncu, flag $flag"
  timeout 150 "$NCU" --csv --clock-control none --metrics "$M${S:+,$S}" "$W/ldgsts_guard" "$flag" | grep -v "^==" | sed "s/^/flag$flag,/" >>"$OUT/metrics.csv"
done
python3 - "$OUT/metrics.csv" <<'PY' | tee "$OUT/summary.txt"
import csv, sys
rows = {}
for r in csv.reader(open(sys.argv[1])):
    if len(r) < 16 or r[1] == "ID": continue
    rows.setdefault((r[0], r[5].split("(")[0]), {})[r[13]] = r[15]
for (flag, k), m in rows.items():
    def v(n):
        x = m.get(n, "n/a").replace(",", "")
        return int(x) if x.isdigit() else None
    tot, ld, st = v("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"), v("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), v("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")
    rest = None if None in (tot, ld, st) else tot - ld - st
    print(f"{flag} {k:10s} hw total {tot} ld {ld} st {st} -> other (ldgsts) {rest}; sass ldgsts {v('smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum')}; "
          + "; ".join(f"{n.split('__',1)[1][:60]} {x}" for n, x in m.items() if 'ldgsts' in n and not n.startswith('smsp__sass')))
PY
echo "== done $(date -u +%FT%TZ)"
